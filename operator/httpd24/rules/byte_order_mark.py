"""A file that starts with a UTF-8 byte order mark, which httpd reads as part of the first word."""

from __future__ import annotations

from ..engine import Applicability, Finding, Rule, Severity, register


@register
class ByteOrderMark(Rule):
    """
    ## What it does
    Finds a file that starts with a UTF-8 byte order mark (the bytes
    `EF BB BF`, which some Windows editors write at the start of a file).

    ## Why is this bad?
    httpd does not skip the mark: it is the start of the file's first word.
    Start-up fails with `Invalid command '\\xef\\xbb\\xbfServerRoot'` (or
    `'\\xef\\xbb\\xbf#'` when the first line is a comment; measured on
    2.4.71). The mark is invisible in most editors.

    ## Example
    The mark (`EF BB BF`, invisible here) before the first line:
    ```apache
    \ufeffServerRoot "/etc/httpd"
    ```

    ## Use instead
    ```apache
    ServerRoot "/etc/httpd"
    ```

    ## Fix safety
    Safe: the mark is removed and nothing else; the file then reads as its
    author meant it.
    """

    code = "HT003"
    name = "byte-order-mark"
    severity = Severity.ERROR
    summary = "A file starts with a UTF-8 byte order mark, which httpd reads as part of the first word"
    fix_availability = "always"

    def check_config(self, ctx):
        for name, document in ctx.configset.documents.items():
            if not document.header:
                continue

            def remove(document=document) -> None:
                document.header = ""

            message = ("the file starts with a UTF-8 byte order mark, which httpd reads as part of the first word "
                       "(start-up fails: Invalid command '\\xef\\xbb\\xbf...'): remove it")
            fix = self.fix("remove the byte order mark", Applicability.SAFE, remove, *document.children[:1])
            if document.children:
                yield self.finding(document.children[0], message, fix=fix)
            else:
                yield Finding(code=self.code, rule=self.name, severity=self.severity, message=message, file=name,
                              line=1, column=1, fix=fix)

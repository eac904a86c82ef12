"""An argument whose opening quote is never closed."""

from __future__ import annotations

from ..config import Section, edit
from ..engine import Applicability, Rule, Severity, register


@register
class UnterminatedQuote(Rule):
    """
    ## What it does
    Finds an argument that opens a quote and never closes it, such as the 2.0-era
    `ErrorDocument 404 "Sorry, not here` message form.

    ## Why is this bad?
    httpd reads an unterminated quote to the end of the line, so the server
    starts, but the line is easy to misread and every other tool (editors,
    Augeas, apacheconfig) parses it differently. It usually hides a typo.

    ## Example
    ```apache
    ErrorDocument 404 "Sorry, not here
    ```

    ## Use instead
    ```apache
    ErrorDocument 404 "Sorry, not here"
    ```

    ## Fix safety
    Safe: the value httpd reads (everything up to the end of the line) is written
    with a closing quote, so the argument is the same.
    """

    code = "HT001"
    name = "unterminated-quote"
    severity = Severity.WARNING
    summary = "An argument opens a quote that is never closed"
    fix_availability = "always"

    def check_config(self, ctx):
        for item in ctx.live_items():
            node = item.node
            if not node.unterminated_quote or isinstance(node, Section):
                continue
            value = node.args[-1] if node.args else ""
            closed = edit.quote(value)
            if not closed.startswith('"'):  # a plain word: quote it anyway, as written
                closed = f'"{value}"'
            line = " ".join([node.name, *node.raw_args[:-1], closed])
            yield self.finding(
                item,
                f"the quote opened in {node.name}'s last argument is never closed; httpd reads it to the end of the line",
                replacement=line,
                fix=self.fix("close the quote", Applicability.SAFE, lambda n=node, t=line: edit.replace(n, t), node),
            )

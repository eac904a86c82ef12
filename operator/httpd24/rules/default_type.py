"""``DefaultType``: no effect in 2.4; a real type logs AH00117 and is no longer applied."""

from __future__ import annotations

from ..engine import Rule, Severity, register
from ._ht1xx import removal


@register
class DefaultType(Rule):
    """
    ## What it does
    Finds `DefaultType`.

    ## Why is this bad?
    In 2.2, `DefaultType text/plain` gave every response whose type mod_mime
    could not work out (a file without a known extension, a handler that set
    none) that Content-Type. 2.4 ignores the directive: such responses go out
    without a Content-Type, and any value other than `none` logs AH00117
    "Ignoring deprecated use of DefaultType" at start-up. `DefaultType none`
    (2.2.7+) already meant "send no type", which is what 2.4 does.

    ## Example
    ```apache
    DefaultType text/plain
    ```

    ## Use instead
    ```apache
    # name the files that need a type
    AddType text/plain .log .conf
    <Files "README">
        ForceType text/plain
    </Files>
    ```

    ## Fix safety
    Safe: 2.4 ignores `DefaultType` whatever its value, so removing the line
    changes nothing on 2.4. For a real type the finding stays a warning: the
    type is no longer applied, and which files need an `AddType` or a
    `ForceType` (in a `<Files>`/`<FilesMatch>`) instead is for a person to
    decide; the message says so.
    """

    code = "HT105"
    name = "default-type"
    severity = Severity.WARNING
    summary = "DefaultType has no effect in 2.4"
    fix_availability = "always"
    directives = ("defaulttype",)

    def check(self, ctx, item):
        value = item.args[0] if item.args else ""
        if value.lower() in ("none", "off", ""):
            yield self.finding(
                item,
                f"DefaultType {value} has no effect in 2.4 (responses without a known type get no Content-Type, "
                "as this line asked); remove it",
                fix=removal(self, item),
                severity=Severity.INFO,
            )
            return
        yield self.finding(
            item,
            f"DefaultType {value} is ignored by 2.4 (AH00117): responses of unknown type are sent without a "
            f"Content-Type instead of {value}; name the files that need it with AddType (by extension) or "
            f"ForceType {value} in a <Files>/<FilesMatch> section",
            replacement=f"AddType {value} <extensions>  |  ForceType {value}",
            fix=removal(self, item),
        )

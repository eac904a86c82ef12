"""``DefaultType``: no effect in 2.4; a real type logs AH00117 and is no longer applied."""

from __future__ import annotations

from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import quote, removal, replacement, server_of, unresolved

#: Values with which 2.2 sent no Content-Type either (``none`` since 2.2.7), so 2.4 changes nothing.
_NO_TYPE = ("none", "off", "")


def header_line(value: str) -> str:
    """The 2.4 line that gives responses of unknown type ``value``, as 2.2's ``DefaultType value`` did.

    mod_headers documents this form for Content-Type: the expression leaves typed responses alone, and
    ``Header set Content-Type`` goes through ``ap_set_content_type``, so 2.4 appends the
    ``AddDefaultCharset`` charset to it exactly as 2.2 did to its default type.
    """
    return f'Header set Content-Type {quote(value)} "expr=-z %{{CONTENT_TYPE}}"'


@register
class DefaultType(Rule):
    """
    ## What it does
    Finds `DefaultType`.

    ## Why is this bad?
    In 2.2, `DefaultType text/plain` gave every response whose type mod_mime
    could not work out (a file without a known extension, a handler or a
    backend that set none) that Content-Type. 2.4 ignores the directive: such
    responses go out without a Content-Type (browsers then guess, and may
    render a text file as HTML), and any value other than `none` logs
    AH00117 "Ignoring deprecated use of DefaultType" at start-up.
    `DefaultType none` (2.2.7+) already meant "send no type", which is what
    2.4 does.

    ## Example
    ```apache
    DefaultType text/plain
    ```

    ## Use instead
    ```apache
    Header set Content-Type "text/plain" "expr=-z %{CONTENT_TYPE}"
    ```

    ## Fix safety
    `DefaultType none` is removed (safe: 2.4 does the same), unless it
    overrides a real type that is left to a person (below). A real type is
    preserved: mod_headers' documented form sets it on exactly the responses
    that have no type, in the same section, and 2.4 adds the
    `AddDefaultCharset` charset to it as 2.2 did. Not applied when two
    `DefaultType` lines that can meet on one request (the same server, or
    the main server and a virtual host) name different types: a section's
    `DefaultType` replaced the one it inherited, but `Header` lines add up
    and the first one to set the type wins, so a person chooses, for
    example `AddType` or `ForceType` in a `<Files>` section for the inner
    one. Nor when the value is a `${VARIABLE}`, which may be `none`.
    """

    code = "HT105"
    name = "default-type"
    severity = Severity.WARNING
    summary = "DefaultType has no effect in 2.4"
    fix_availability = "sometimes"
    directives = ("defaulttype",)

    def check(self, ctx, item):
        value = _value(item)
        clash = _clashing(ctx, item)
        if value.lower() in _NO_TYPE:
            if clash is None:
                yield self.finding(
                    item,
                    f"DefaultType {value} has no effect in 2.4 (responses without a known type get no Content-Type, "
                    "as this line asked); remove it",
                    fix=removal(self, item),
                    severity=Severity.INFO,
                )
            else:
                yield self.finding(
                    item,
                    f"DefaultType {value} has no effect in 2.4, but it marks where {_where(clash)} did not apply: "
                    "remove it once that line is rewritten",
                    severity=Severity.INFO,
                )
            return
        line = header_line(value)
        if clash is not None or unresolved(item):
            why = (f"{_where(clash)} applies to some of the same requests and the first Header to set a type wins"
                   if clash is not None else "its value is only known at start-up")
            yield self.finding(
                item,
                f"DefaultType {value} is ignored by 2.4 (AH00117): responses of unknown type are sent without a "
                f"Content-Type; not rewritten because {why}: choose per section between {line} and AddType / "
                "ForceType in a <Files> section",
                replacement=line,
            )
            return
        yield self.finding(
            item,
            f"DefaultType {value} is ignored by 2.4 (AH00117): responses of unknown type would be sent without a "
            f"Content-Type; mod_headers keeps 2.2's {value}",
            replacement=line,
            fix=replacement(self, item, line, Applicability.PRESERVE, f"give untyped responses {value} with Header"),
        )


def _value(item) -> str:
    return item.args[0] if item.args else ""


def _type(item) -> str:
    """What 2.2 sent for responses of unknown type under this line ("none" for no Content-Type)."""
    value = _value(item).lower()
    return "none" if value in _NO_TYPE else value


def _where(item) -> str:
    return f"DefaultType {_value(item)} ({item.file}:{item.node.location.line})"


def _clashing(ctx, item):
    """Another ``DefaultType`` with a different value that can apply to the same requests, or None."""
    server = server_of(item)
    for other in ctx.items("defaulttype"):
        if other.node is item.node or _type(other) == _type(item):
            continue
        where = server_of(other)
        if server is None or where is None or where is server:
            return other
    return None

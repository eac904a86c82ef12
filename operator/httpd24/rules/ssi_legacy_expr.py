"""mod_include: ``<!--#if expr=... -->`` uses ap_expr in 2.4; SSILegacyExprParser restores 2.2's syntax."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import DIR_SECTIONS, module_available, scope_of

_LEGACY = "SSILegacyExprParser on"
_LOCATION = '<Location "/">\n    SSILegacyExprParser on\n</Location>'


_ACTIVATING_KEYS = frozenset(
    {"addoutputfilter", "addoutputfilterbytype", "setoutputfilter", "addhandler", "sethandler", "xbithack",
     "filterprovider"}
)


def _activates_includes(item) -> bool:
    """Whether the directive makes httpd run the INCLUDES filter for some requests."""
    if item.key not in _ACTIVATING_KEYS:
        return False
    args = [a.lower() for a in item.args]
    key = item.key
    if key in ("addoutputfilter", "addoutputfilterbytype") and args:
        return "includes" in args[0].split(";")
    if key == "setoutputfilter" and args:
        return "includes" in args[0].split(";")
    if key == "addhandler" and args:
        return args[0] == "server-parsed"
    if key == "sethandler" and args:
        return args[0] == "server-parsed"
    if key == "xbithack" and args:
        return args[0] in ("on", "full")
    if key == "filterprovider" and len(args) >= 2:
        return args[1] == "includes"
    return False


def _server_wide(scope: tuple) -> tuple:
    """A ``<Location "/">`` directly in a server covers the whole server."""
    if scope and scope[-1].key == "location" and scope[-1].args == ["/"]:
        return scope[:-1]
    return scope


@register
class SSIIfExprLegacySyntax(Rule):
    """
    ## What it does
    Finds where server-side includes are switched on (the INCLUDES filter
    through `AddOutputFilter`, `SetOutputFilter`, `AddOutputFilterByType` or
    a `FilterProvider`, the `server-parsed` handler, `XBitHack on|full`)
    without `SSILegacyExprParser`.

    ## Why is this bad?
    mod_include 2.4 parses `<!--#if expr="..." -->` and `#elif` with the new
    ap_expr parser. The 2.2 syntax (`$VAR`, `=`, `!=`, `/regex/`, `&&`
    between bare strings, e.g. `expr="$REDIRECT_URL"` or
    `expr="${HTTP_ACCEPT_LANGUAGE} = /de/"`) is no longer understood: such
    pages render "[an error occurred while processing this directive]" or
    take the other branch. The error documents of 2.2's multi-language error
    pages are such pages. The configuration cannot show whether a page uses
    `#if expr`; this rule reports every place SSI is on.

    ## Example
    ```apache
    <Directory /var/www/ssi>
        Options +Includes
        AddOutputFilter INCLUDES .shtml
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory /var/www/ssi>
        Options +Includes
        AddOutputFilter INCLUDES .shtml
        SSILegacyExprParser on
    </Directory>
    ```

    ## Fix safety
    Preserve: `SSILegacyExprParser on` (2.3.13+) is 2.2's expression parser.
    It is valid only in directory context, so where SSI is switched on for a
    whole server the fix adds it in a `<Location "/">` of that server. Drop
    the fix once the pages use ap_expr syntax (or use none).
    """

    code = "HT208"
    name = "ssi-if-expr-legacy-syntax"
    severity = Severity.WARNING
    summary = "SSI #if expr uses ap_expr in 2.4; SSILegacyExprParser restores 2.2's syntax"
    fix_availability = "always"

    def check_config(self, ctx):
        if not module_available(ctx, "include_module"):
            return
        covered = [
            _server_wide(scope_of(i)) for i in ctx.items("ssilegacyexprparser") if i.args and i.args[0].lower() == "on"
        ]
        done: set[tuple] = set()
        # Server-wide activations first: their <Location "/"> covers the sections below them.
        activations = sorted(
            (i for i in ctx.items(*_ACTIVATING_KEYS) if _activates_includes(i)),
            key=lambda i: len([s for s in scope_of(i) if s.key in DIR_SECTIONS]),
        )
        for item in activations:
            scope = scope_of(item)
            if any(scope[: len(c)] == c for c in covered):
                continue
            # One fix per scope; a server-level activation covers the whole server.
            key = tuple(id(s) for s in scope)
            if key in done:
                continue
            done.add(key)
            node = item.node
            in_directory = any(s.key in DIR_SECTIONS for s in scope)
            if not in_directory:
                covered.append(scope)
            text = _LEGACY if in_directory else _LOCATION
            where = "here" if in_directory else 'in a <Location "/"> of this server (it is a directory-context directive)'
            yield self.finding(
                item,
                f"{node.name} switches SSI on: 2.4 reads <!--#if expr --> with the new ap_expr parser;"
                f" pages written for 2.2 need `{_LEGACY}` {where} (the configuration cannot show whether any page"
                " uses #if expr)",
                replacement=_LEGACY,
                fix=self.fix(
                    "enable the legacy SSI expression parser",
                    Applicability.PRESERVE,
                    lambda node=node, text=text: edit.insert_after(node, text),
                    node,
                ),
            )

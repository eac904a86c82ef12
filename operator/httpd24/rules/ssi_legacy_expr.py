"""mod_include: ``<!--#if expr=... -->`` uses ap_expr in 2.4; SSILegacyExprParser restores 2.2's syntax."""

from __future__ import annotations

import posixpath

from ..config import Directive, edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import DIR_SECTIONS, module_available, scope_of, server_of
from .changed_defaults import access_file_names, allow_override_for, is_htaccess

_LEGACY = "SSILegacyExprParser on"
_LOCATION = '<Location "/">\n    SSILegacyExprParser on\n</Location>'
_MODERN_AT = '<Location "{}">\n    SSILegacyExprParser off\n</Location>'


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


def _innermost(item):
    """The per-directory section an item sits in directly (conditionals between them left out)."""
    scope = scope_of(item)
    return scope[-1] if scope and scope[-1].key in DIR_SECTIONS else None


def _error_documents(ctx, activations: list) -> tuple[set[int], list]:
    """httpd's multi-language error documents: the ``<Directory>`` sections (by id) of a directory
    named ``error`` that serves type maps through INCLUDES, and the Aliases that map URLs to one.

    The 2.4 package (and the official image) ships its own documents there, written for the new
    parser: under ``SSILegacyExprParser on`` they print "[an error occurred while processing this
    directive]" where the link to the referring page was.
    """
    parsing = {id(section) for section in map(_innermost, activations) if section is not None}
    directories: dict[str, int] = {}
    for item in ctx.items("addhandler"):
        section = _innermost(item)
        if (section is not None and section.key == "directory" and section.args and id(section) in parsing
                and len(item.args) >= 2 and item.args[0].lower() == "type-map"
                and any(a.lower().lstrip(".") == "var" for a in item.args[1:])):
            path = posixpath.normpath(section.args[0])
            if posixpath.basename(path) == "error":
                directories[path] = id(section)
    aliases = [a for a in ctx.items("alias") if len(a.args) == 2 and posixpath.normpath(a.args[1]) in directories]
    return set(directories.values()), aliases


def _error_document_urls(aliases: list, server) -> list[str]:
    """The URLs of the error documents under a ``<Location "/">`` of ``server`` (None: the main
    server, whose sections every virtual host inherits)."""
    urls = [a.args[0] for a in aliases if server is None or server_of(a) in (None, server)]
    return list(dict.fromkeys(urls))


def _server_wide(scope: tuple) -> tuple:
    """A ``<Location "/">`` directly in a server covers the whole server."""
    if scope and scope[-1].key == "location" and scope[-1].args == ["/"]:
        return scope[:-1]
    return scope


def _htaccess(item, names: set[str]) -> str | None:
    """The .htaccess file the item is read from (per request, in directory context), or None."""
    return item.file if not item.via and is_htaccess(item.file, names) else None


def _covers(covered: tuple, place: tuple) -> bool:
    """Whether an ``SSILegacyExprParser on`` at ``covered`` (.htaccess file or None, scope) applies at
    ``place``: the server's sections reach every .htaccess file, an .htaccess only itself."""
    (c_file, c_scope), (file, scope) = covered, place
    return (c_file is None or c_file == file) and scope[: len(c_scope)] == c_scope


def _anchor(node):
    """Where the fix goes: after the activating line, or after the last FilterProvider of its filter in the
    same block, so that one filter's providers stay together."""
    if node.key != "filterprovider" or not node.args or node.parent is None:
        return node
    siblings = node.parent.children
    last = node
    for sibling in siblings[next(i for i, n in enumerate(siblings) if n is node) + 1 :]:
        if (isinstance(sibling, Directive) and sibling.key == "filterprovider" and sibling.args
                and sibling.args[0].lower() == node.args[0].lower()):
            last = sibling
    return last


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

    httpd's own multi-language error documents (an `error` directory serving
    type maps through INCLUDES, as 2.2's `httpd.conf` sets them up) are left
    alone: the 2.4 package ships new ones there, written for the new parser.

    ## Fix safety
    Preserve: `SSILegacyExprParser on` (2.3.13+) is 2.2's expression parser.
    It is valid only in directory context, so where SSI is switched on for a
    whole server the fix adds it in a `<Location "/">` of that server, and
    turns it off again in a `<Location>` of each URL the error documents are
    aliased to (2.4's own documents break under the legacy parser). In an
    `.htaccess` file (where `<Location>` is refused: every request there
    would answer 500) the line goes into the file itself; it needs
    `AllowOverride Limit` there, so where the `AllowOverride` in effect
    lacks it (and `All`) the finding is left for a person. Drop the fix once
    the pages use ap_expr syntax (or use none).
    """

    code = "HT208"
    about_22_behaviour = True
    name = "ssi-if-expr-legacy-syntax"
    severity = Severity.WARNING
    summary = "SSI #if expr uses ap_expr in 2.4; SSILegacyExprParser restores 2.2's syntax"
    fix_availability = "always"

    def check_config(self, ctx):
        if not module_available(ctx, "include_module"):
            return
        names = access_file_names(ctx)
        covered = [
            (_htaccess(i, names), _server_wide(scope_of(i)))
            for i in ctx.items("ssilegacyexprparser") if i.args and i.args[0].lower() == "on"
        ]
        done: set[tuple] = set()
        # Server-wide activations first: their <Location "/"> covers the sections below them.
        activations = sorted(
            (i for i in ctx.items(*_ACTIVATING_KEYS) if _activates_includes(i)),
            key=lambda i: len([s for s in scope_of(i) if s.key in DIR_SECTIONS]),
        )
        error_directories, error_aliases = _error_documents(ctx, activations)
        for item in activations:
            scope = scope_of(item)
            htaccess = _htaccess(item, names)
            place = (htaccess, scope)
            if any(_covers(c, place) for c in covered) or any(id(s) in error_directories for s in scope):
                continue
            # One fix per scope; a server-level activation covers the whole server.
            key = (htaccess, *(id(s) for s in scope))
            if key in done:
                continue
            done.add(key)
            node = item.node
            in_directory = htaccess is not None or any(s.key in DIR_SECTIONS for s in scope)
            if not in_directory or (htaccess is not None and not scope):
                covered.append(place)
            if htaccess is not None:
                refused = self._refused_here(ctx, item, htaccess)
                if refused is not None:
                    yield refused
                    continue
            text, where = _LEGACY, "here"
            if not in_directory:
                urls = _error_document_urls(error_aliases, server_of(item))
                text = "\n".join([_LOCATION, *(_MODERN_AT.format(url) for url in urls)])
                where = 'in a <Location "/"> of this server (it is a directory-context directive)'
                if urls:
                    where += (f", and `SSILegacyExprParser off` under {', '.join(urls)}:"
                              " 2.4's own error documents there use ap_expr")
            anchor = _anchor(node)
            yield self.finding(
                item,
                f"{node.name} switches SSI on: 2.4 reads <!--#if expr --> with the new ap_expr parser;"
                f" pages written for 2.2 need `{_LEGACY}` {where} (the configuration cannot show whether any page"
                " uses #if expr)",
                replacement=_LEGACY,
                fix=self.fix(
                    "enable the legacy SSI expression parser",
                    Applicability.PRESERVE,
                    lambda anchor=anchor, text=text: edit.insert_after(anchor, text),
                    node,
                ),
            )

    def _refused_here(self, ctx, item, htaccess: str):
        """A finding for a person when the .htaccess may not hold SSILegacyExprParser (it needs AllowOverride
        Limit: with FileInfo alone every request there answers 500), else None."""
        override = allow_override_for(ctx, posixpath.dirname(htaccess))
        if override is None:
            return None  # 2.2's default All (HT301 writes it where a <Directory> names the directory)
        words = {w.lower().split("=", 1)[0] for w in override.args}
        if words & {"all", "limit", "none"}:
            return None  # None: the file is not read at all
        return self.finding(
            item,
            f"{item.node.name} switches SSI on: 2.4 reads <!--#if expr --> with the new ap_expr parser; pages"
            f" written for 2.2 need `{_LEGACY}`, which this .htaccess may hold only with AllowOverride Limit"
            f" (AllowOverride {' '.join(override.args)} at {override.file}:{override.node.location.line}: every"
            " request there would answer 500); add Limit to that AllowOverride, or write it in that <Directory>",
            replacement=_LEGACY,
        )

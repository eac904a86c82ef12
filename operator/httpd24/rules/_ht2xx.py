"""Helpers shared by the HT2xx rules (changed semantics): scopes, servers, module availability."""

from __future__ import annotations

from typing import Iterable

from ..config import Item, Section

#: Sections that make a per-directory scope (httpd merges their settings per request).
DIR_SECTIONS = frozenset(
    {
        "directory", "directorymatch", "files", "filesmatch", "location", "locationmatch",
        "proxy", "proxymatch", "if", "elseif", "else", "limit", "limitexcept",
    }
)


def server_of(item: Item) -> Section | None:
    """The ``<VirtualHost>`` the item belongs to, or None for the main server."""
    return item.in_section("virtualhost")


def scope_of(item: Item) -> tuple[Section, ...]:
    """The enclosing vhost and per-directory sections, outermost first (conditionals left out)."""
    return tuple(s for s in item.context if s.key == "virtualhost" or s.key in DIR_SECTIONS)


def in_directory_context(item: Item) -> bool:
    return any(s.key in DIR_SECTIONS for s in item.context)


def unresolved(item: Item) -> bool:
    """True when an argument still holds a ``${VAR}`` httpd would resolve only at start-up."""
    return any("${" in arg for arg in item.args)


def module_available(ctx, identifier: str) -> bool:
    """Whether ``identifier`` (``ssl_module``) is loaded on the target, as far as one can tell.

    Loaded by the configuration or named by the target; with an unknown
    target module list the operator loads what the configuration needs, so
    the answer is yes.
    """
    if identifier in ctx.view.loaded_modules:
        return True
    modules = ctx.target.modules
    return modules is None or identifier in modules


def loaded_before(ctx, identifier: str, item: Item) -> bool:
    """Whether ``identifier`` is loaded before httpd reads ``item`` (LoadModule is read in order)."""
    modules = ctx.target.modules
    if modules is not None and identifier in modules:
        return True
    loads = [i for i in ctx.live_items() if i.key == "loadmodule" and i.args and i.args[0] == identifier]
    if not loads:
        return modules is None
    load_ids = {id(i) for i in loads}
    for candidate in ctx.view.items:
        if candidate is item:
            return False
        if id(candidate) in load_ids:
            return True
    return False


def first(items: Iterable[Item]) -> Item | None:
    for item in items:
        return item
    return None

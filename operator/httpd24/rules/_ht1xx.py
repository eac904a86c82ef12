"""Helpers shared by the HT1xx rules (directives 2.4 removed, renamed or made inert)."""

from __future__ import annotations

import posixpath
from ..config import Item, Section, edit
from ..engine import Applicability, Fix

#: httpd's log levels, most severe first (APLOG_EMERG = 0 ... APLOG_DEBUG = 7).
LOG_LEVELS = ("emerg", "alert", "crit", "error", "warn", "notice", "info", "debug")


def server_of(item: Item) -> Section | None:
    """The ``<VirtualHost>`` the item belongs to, or None for the main server."""
    return item.in_section("virtualhost")


def unresolved(item: Item) -> bool:
    """True when an argument still holds a ``${VAR}`` httpd would resolve only at start-up."""
    return any("${" in arg for arg in item.args)


def removal(rule, item: Item, applicability: Applicability = Applicability.SAFE, what: str = "") -> Fix:
    node = item.node
    return rule.fix(what or f"remove {node.name}", applicability, lambda: edit.remove(node), node)


def replacement(rule, item: Item, text: str, applicability: Applicability, what: str = "") -> Fix:
    node = item.node
    return rule.fix(what or f"replace {node.name} by {text.splitlines()[0]}", applicability,
                    lambda: edit.replace(node, text), node)


def directory_of(path: str) -> str:
    """The directory of a 2.2 lock *file* path, as 2.4's ``Mutex mech:dir`` wants it.

    A bare file name was relative to ServerRoot in 2.2, so its directory is ``.``
    (2.4 resolves a relative mutex directory against ServerRoot too).
    """
    head = posixpath.dirname(path.replace("\\", "/")) if "/" in path or "\\" in path else ""
    if not head:
        return "."
    return head.rstrip("/") or "/"


def quote(value: str) -> str:
    return edit.quote(value)


def effective_log_level(ctx, item: Item) -> str:
    """The 2.2 ``LogLevel`` in force for the item's server: its own last one, else the main server's, else warn."""
    server = server_of(item)
    own = main = None
    for other in ctx.items("loglevel"):
        if not other.args:
            continue
        level = other.args[0].lower()
        if level not in LOG_LEVELS:
            continue
        where = server_of(other)
        if where is None:
            main = level
        if server is not None and where is server:
            own = level
    return own or main or "warn"


def later_plain_loglevel(ctx, item: Item) -> Item | None:
    """The last ``LogLevel <level>`` (no ``module:``) of the item's server read after the item.

    In 2.4 a plain level resets every per-module level set before it
    (``ap_reset_module_loglevels``), so a ``LogLevel mod:level`` written at the
    item's place would be lost: the module level must join that later line.
    """
    server = server_of(item)
    found = None
    for other in ctx.items("loglevel"):
        if other.order > item.order and server_of(other) is server and any(":" not in arg for arg in other.args):
            found = other
    return found


_CONDITIONS = ("ifmodule", "ifdefine", "ifversion", "if", "elseif", "else")


def under_conditions(item: Item, line: str, but=()) -> str:
    """``line`` inside the conditional sections (``<IfModule mod_rewrite.c>`` ...) the item is in, but
    those of ``but``: read only where the item was, so never where its module may be missing."""
    wrappers = [s for s in item.context if s.key in _CONDITIONS and s not in but]
    unit = edit.indent_unit(item.node.document)
    lines = [f"{unit * depth}<{s.name}{' ' + ' '.join(s.raw_args) if s.raw_args else ''}>" for depth, s in enumerate(wrappers)]
    lines.append(f"{unit * len(wrappers)}{line}")
    lines += [f"{unit * depth}</{s.name}>" for depth, s in reversed(list(enumerate(wrappers)))]
    return "\n".join(lines)


def module_level_fix(rule, ctx, item: Item, module_level: str, applicability: Applicability, what: str) -> tuple[str, Fix]:
    """Replace ``item`` by ``LogLevel <module_level>`` where 2.4 keeps it.

    Returns the replacement text (for the finding) and the fix. When a plain
    ``LogLevel`` of the same server comes later, that line would reset the
    module level, so the module level goes after it instead: added to its
    arguments when it sits in the same section as the item, otherwise on a
    line of its own right after it, inside the item's conditional sections
    (``<IfModule mod_rewrite.c>`` ...) that the later line is not in, so that
    ``LogLevel rewrite:...`` is never read where the module may be missing.
    """
    later = later_plain_loglevel(ctx, item)
    node = item.node
    if later is None:
        text = f"LogLevel {module_level}"
        return text, rule.fix(what, applicability, lambda: edit.replace(node, text), node)
    target = later.node
    if target.parent is node.parent:
        module = module_level.split(":", 1)[0].lower()
        kept = [a for a in target.args if ":" not in a or a.split(":", 1)[0].lower() != module]
        new_args = [*kept, module_level]

        def apply() -> None:
            edit.set_args(target, new_args)
            edit.remove(node)

        return "LogLevel " + " ".join(new_args), rule.fix(what, applicability, apply, node, target)
    text = under_conditions(item, f"LogLevel {module_level}", but=later.context)

    def apply_after() -> None:
        edit.insert_after(target, text)
        edit.remove(node)

    return f"LogLevel {module_level}", rule.fix(what, applicability, apply_after, node, target)

"""``RewriteLog`` and ``RewriteLogLevel``: 2.4 writes the rewrite trace to the error log
at ``LogLevel rewrite:traceN``; there is no separate rewrite log any more."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import module_level_fix, removal, server_of, under_conditions, unresolved


def _level(item) -> int | None:
    """2.2's RewriteLogLevel value (atoi), or None when it cannot be read."""
    if len(item.args) != 1 or unresolved(item):
        return None
    text = item.args[0].strip()
    digits = ""
    for i, char in enumerate(text):
        if char.isdigit() or (i == 0 and char in "+-"):
            digits += char
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0  # atoi("") == 0


def _trace(level: int) -> str:
    return f"trace{min(level, 8)}"


# -- which server wrote a rewrite log in 2.2 ------------------------------------------------------
# 2.2's config_server_merge gives a virtual host the main server's RewriteLog and RewriteLogLevel only
# under RewriteOptions Inherit (its own RewriteOptions, or the main server's when it has none: 2.2.22+
# merges the options); a level without a file, or a file at level 0, wrote nothing. 2.4's LogLevel is
# inherited by every virtual host that sets no plain LogLevel of its own.

@dataclass
class _Server:
    """What one server (the main one, or a virtual host) says about rewrite logging."""

    level: int = 0  # its last RewriteLogLevel, or the level of a LogLevel rewrite:traceN an earlier fix wrote
    log: bool = False  # it has a RewriteLog
    module_level: bool = False  # it has a LogLevel rewrite:... (an earlier fix wrote it: 2.2 has none)
    plain: str | None = None  # its last plain LogLevel (2.4 drops the main server's module levels under it)
    options: list[str] | None = None  # the words of its RewriteOptions lines; None when it has none
    levels: list = field(default_factory=list)  # its RewriteLogLevel items


def _servers(ctx) -> dict:
    """Each server's :class:`_Server`, by its ``<VirtualHost>`` node (None: the main server); read once a pass."""
    servers = ctx.cache.get("rewrite_log.servers")
    if servers is not None:
        return servers
    servers = {None: _Server(), **{item.node: _Server() for item in ctx.items("virtualhost")}}
    for item in ctx.items("rewriteloglevel", "loglevel", "rewritelog", "rewriteoptions"):
        server = servers.setdefault(server_of(item), _Server())
        if item.key == "rewritelog":
            server.log = True
        elif item.key == "rewriteoptions":
            server.options = [*(server.options or []), *(a.lower() for a in item.args)]
        elif item.key == "rewriteloglevel":
            if all(other.node is not item.node for other in server.levels):  # a file read twice: one line
                server.levels.append(item)
            level = _level(item)
            server.level = server.level if level is None else level
        else:
            trace = _rewrite_trace_arg(item)
            server.level = server.level if trace is None else trace
            server.module_level |= any(a.lower().startswith("rewrite:") for a in item.args)
            server.plain = next((a.lower() for a in item.args if ":" not in a), server.plain)
    ctx.cache["rewrite_log.servers"] = servers
    return servers


def _inherits(servers, server) -> bool:
    """Whether a virtual host took the main server's rewrite log in 2.2."""
    if server is None:
        return False
    options = servers[server].options
    return "inherit" in (options if options is not None else servers[None].options or [])


def _rewrite_trace_arg(item) -> int | None:
    """N of a ``LogLevel ... rewrite:traceN``."""
    return next((int(a[len("rewrite:trace"):]) for a in item.args
                 if a.lower().startswith("rewrite:trace") and a[len("rewrite:trace"):].isdigit()), None)


def _traced(servers, server) -> int:
    """The level at which 2.2 wrote the server's rewrite trace; 0 when it wrote none."""
    own = servers[server]
    level, log = own.level, own.log
    if _inherits(servers, server):
        level, log = level or servers[None].level, log or servers[None].log
    return level if log else 0


def _vhost_level(servers, vhost) -> str | None:
    """The ``LogLevel rewrite:...`` a virtual host needs of its own so that 2.4 traces it as 2.2 did; None
    where its own RewriteLogLevel is converted, or what it inherits is already right."""
    own = servers[vhost]
    if own.module_level:
        return None
    want = _traced(servers, vhost)
    if want and any((_level(line) or 0) > 0 for line in own.levels):
        return None  # its own RewriteLogLevel becomes its LogLevel rewrite:traceN where it stands
    inherited = 0 if own.plain else _traced(servers, None)
    if want == inherited:
        return None
    return f"rewrite:{_trace(want)}" if want else f"rewrite:{servers[None].plain or 'warn'}"


def _vhost_levels(servers, *, with_log: bool) -> list[tuple[object, str]]:
    """(virtual host, :func:`_vhost_level`) for those with (``with_log``) or without a RewriteLog of their own."""
    levels = ((vhost, _vhost_level(servers, vhost)) for vhost, own in servers.items()
              if vhost is not None and own.log == with_log)
    return [(vhost, level) for vhost, level in levels if level is not None]


def _conversion(rule, ctx, item):
    """(replacement text, Fix) turning a RewriteLogLevel n > 0 into LogLevel rewrite:traceN."""
    trace = _trace(_level(item))
    return module_level_fix(
        rule, ctx, item, f"rewrite:{trace}", Applicability.PRESERVE, f"trace rewriting with LogLevel rewrite:{trace}"
    )


def _with_vhost_note(replacement: str, levels) -> str:
    """``replacement``, followed by what each virtual host gets in the same edit (which may be in another
    file): the fixed finding is the only record of it in the summary."""
    notes = [f"LogLevel {level} in <{vhost.name}{''.join(' ' + a for a in vhost.raw_args)}> at "
             f"{vhost.location.file}:{vhost.location.line}" for vhost, level in levels]
    return "; ".join(filter(None, [replacement, *notes]))


def _with_vhost_levels(rule, item, fix, levels):
    """``fix``, also writing each virtual host's own ``LogLevel rewrite:...`` (in the same edit), inside the
    conditions the main server's ``item`` is in."""
    if not levels:
        return fix
    texts = [(vhost, under_conditions(item, f"LogLevel {level}")) for vhost, level in levels]

    def apply() -> None:
        for vhost, text in texts:  # first, indented as the lines the fix may remove
            edit.append_child(vhost, text)
        fix.apply()

    return rule.fix(fix.description, fix.applicability, apply, *fix.nodes, *(v for v, _ in levels))


@register
class RewriteLogLevel(Rule):
    """
    ## What it does
    Finds `RewriteLogLevel`.

    ## Why is this bad?
    2.4's mod_rewrite has no such directive (start-up fails). It logs its
    trace to the error log at `trace1`..`trace8` (level n of 2.2 is logged at
    `APLOG_DEBUG + n`, i.e. `tracen`), enabled per module with
    `LogLevel rewrite:traceN`.

    ## Example
    ```apache
    RewriteLog logs/rewrite.log
    RewriteLogLevel 3
    ```

    ## Use instead
    ```apache
    LogLevel rewrite:trace3
    ```

    ## Fix safety
    Level 0, and a level without any `RewriteLog` for that server, logged
    nothing in 2.2: the line is removed (safe). Levels 1-8 become
    `LogLevel rewrite:trace1`..`trace8` and 9 (2.2's maximum) `trace8`
    (2.4's maximum): this preserves the trace, but in the error log of that
    server rather than in the RewriteLog file, so the applicability is
    preserve. If a plain `LogLevel` of the same server comes after the line,
    `rewrite:traceN` is added to that `LogLevel` instead, because in 2.4 a
    plain level resets the module levels set before it.

    A virtual host wrote the main server's rewrite log (at the main server's
    level unless it set its own) only under `RewriteOptions Inherit`, its own
    or the main server's. 2.4's `LogLevel` reaches every virtual host without
    a plain `LogLevel` of its own, so a virtual host that traced nothing in 2.2
    gets `LogLevel rewrite:<the main server's level>` (default `warn`), and one
    that traced at a level it does not inherit in 2.4 gets its own
    `LogLevel rewrite:traceN`, in the same edit.
    """

    code = "HT114"
    name = "rewrite-log-level"
    severity = Severity.ERROR
    summary = "RewriteLogLevel is gone; use LogLevel rewrite:traceN"
    fix_availability = "sometimes"
    directives = ("rewriteloglevel",)

    def check(self, ctx, item):
        level = _level(item)
        if level is None:
            yield self.finding(item, f"RewriteLogLevel is not in 2.4 (start-up fails), and its value "
                                     f"'{' '.join(item.node.args)}' cannot be read here: write LogLevel rewrite:traceN "
                                     "(N = the level, at most 8) if a RewriteLog was set, else remove it")
            return
        if level <= 0:
            yield self.finding(
                item,
                "RewriteLogLevel is not in 2.4 (start-up fails); level 0 logged nothing: remove it",
                fix=removal(self, item),
            )
            return
        server, servers = server_of(item), _servers(ctx)
        if not _traced(servers, server):
            # The main server's level may still be the level of virtual hosts that inherit it with a
            # RewriteLog of their own: they get it as theirs in the same edit.
            fix = removal(self, item)
            levels = _vhost_levels(servers, with_log=True) if server is None else []
            fix = _with_vhost_levels(self, item, fix, levels)
            yield self.finding(
                item,
                f"RewriteLogLevel is not in 2.4 (start-up fails); without a RewriteLog 2.2 logged nothing at level "
                f"{level} for this server (a virtual host has the main server's only under RewriteOptions Inherit): "
                f"remove it (LogLevel rewrite:{_trace(level)} would start tracing to the error log)",
                replacement=_with_vhost_note("", levels),
                fix=fix,
            )
            return
        trace = _trace(level)
        text, fix = _conversion(self, ctx, item)
        levels = _vhost_levels(servers, with_log=False) if server is None else []
        fix = _with_vhost_levels(self, item, fix, levels)
        yield self.finding(
            item,
            f"RewriteLogLevel is not in 2.4 (start-up fails): level {level} is LogLevel rewrite:{trace}, "
            "written to the error log (2.4 has no separate rewrite log)",
            replacement=_with_vhost_note(text, levels),
            fix=fix,
        )


@register
class RewriteLog(Rule):
    """
    ## What it does
    Finds `RewriteLog`.

    ## Why is this bad?
    2.4's mod_rewrite has no such directive (start-up fails) and no log file
    of its own: the rewrite trace goes to the server's error log (`ErrorLog`,
    which may be a piped logger) at `LogLevel rewrite:traceN`.

    ## Example
    ```apache
    RewriteLog logs/rewrite.log
    RewriteLogLevel 2
    ```

    ## Use instead
    ```apache
    LogLevel rewrite:trace2
    ```

    ## Fix safety
    The line is removed. Safe when the server's `RewriteLogLevel` is 0 or
    unset (2.2 wrote nothing to the file). Otherwise preserve: the trace is
    kept by the `RewriteLogLevel` fix (HT114), but in the error log; the file
    (or program) named here no longer receives it, which the message says.
    Virtual hosts get what the `RewriteLogLevel` fix says they get.
    """

    code = "HT113"
    name = "rewrite-log"
    severity = Severity.ERROR
    summary = "RewriteLog is gone; 2.4 traces rewriting in the error log"
    fix_availability = "always"
    directives = ("rewritelog",)

    def check(self, ctx, item):
        target = item.node.raw_args[0] if item.node.raw_args else ""
        server, servers = server_of(item), _servers(ctx)

        # The RewriteLogLevel lines that log into this file (of this server, and of the virtual hosts that
        # inherit the main server's) are converted in the same edit: removed alone first, the file would
        # leave them looking like levels that never logged anything.
        logging_here = [server] if server is not None else [
            where for where, own in servers.items()
            if where is None or (_inherits(servers, where) and not own.log)
        ]
        dependants = list({
            id(other.node): other for where in logging_here if _traced(servers, where)
            for other in servers[where].levels if (_level(other) or 0) > 0
        }.values())  # a line of a file read in several servers is converted once
        level = _traced(servers, server) or max((_level(other) for other in dependants), default=0)
        # What the servers' own LogLevel lines must say once this file is gone: the main server's trace
        # reaches every virtual host in 2.4; a virtual host's own level may have been the main server's,
        # or must stay out of the main server's trace.
        if server is None:
            vhost_levels = _vhost_levels(servers, with_log=False) if level > 0 else []
        else:
            own_level = _vhost_level(servers, server)
            vhost_levels = [] if own_level is None else [(server, own_level)]
        if level <= 0:
            yield self.finding(
                item,
                f"RewriteLog is not in 2.4 (start-up fails); with RewriteLogLevel 0 nothing was written to {target}: "
                "remove it",
                replacement=_with_vhost_note("", vhost_levels),
                fix=_with_vhost_levels(self, item, removal(self, item), vhost_levels),
            )
            return
        conversions = [_conversion(self, ctx, other)[1] for other in dependants]
        node = item.node

        def apply() -> None:
            for conversion in conversions:
                conversion.apply()
            edit.remove(node)

        nodes = [node, *(n for conversion in conversions for n in conversion.nodes)]
        fix = self.fix(f"remove RewriteLog {target}", Applicability.PRESERVE, apply, *nodes)
        yield self.finding(
            item,
            f"RewriteLog is not in 2.4 (start-up fails): 2.4 has no separate rewrite log, the trace "
            f"(LogLevel rewrite:{_trace(level)}) goes to the ErrorLog of this server and {target} is no longer "
            "written",
            replacement=_with_vhost_note(f"LogLevel rewrite:{_trace(level)}", vhost_levels),
            fix=_with_vhost_levels(self, item, fix, vhost_levels),
        )

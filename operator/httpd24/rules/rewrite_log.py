"""``RewriteLog`` and ``RewriteLogLevel``: 2.4 writes the rewrite trace to the error log
at ``LogLevel rewrite:traceN``; there is no separate rewrite log any more."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import module_level_fix, removal, server_of, unresolved


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


def _servers_seeing(ctx, item):
    """Items of the same 2.2 server, or of the main server, which every virtual host inherits."""
    server = server_of(item)
    return lambda other: server_of(other) is server or server_of(other) is None or server is None


def _effective_level(ctx, item) -> int:
    """The rewrite trace level that applies to the item's server: its RewriteLogLevel (or a
    ``LogLevel rewrite:traceN`` written by an earlier fix), else the main server's; 0 when none."""
    server = server_of(item)
    own = main = None
    for other in ctx.items("rewriteloglevel", "loglevel"):
        if other.key == "rewriteloglevel":
            value = _level(other)
        else:
            value = next(
                (int(a[len("rewrite:trace"):]) for a in other.args
                 if a.lower().startswith("rewrite:trace") and a[len("rewrite:trace"):].isdigit()),
                None,
            )
        if value is None:
            continue
        if server_of(other) is None:
            main = value
        if server is not None and server_of(other) is server:
            own = value
    return own if own is not None else (main if main is not None else 0)


def _conversion(rule, ctx, item):
    """(replacement text, Fix) turning a RewriteLogLevel n > 0 into LogLevel rewrite:traceN."""
    trace = _trace(_level(item))
    return module_level_fix(
        rule, ctx, item, f"rewrite:{trace}", Applicability.PRESERVE, f"trace rewriting with LogLevel rewrite:{trace}"
    )


def _has_log(ctx, item) -> bool:
    """Whether a RewriteLog file is set for the item's server (its own, the main server's, or any vhost's
    when the item is in the main server, since virtual hosts inherit the main server's level)."""
    seeing = _servers_seeing(ctx, item)
    return any(seeing(other) for other in ctx.items("rewritelog"))


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
        if not _has_log(ctx, item):
            yield self.finding(
                item,
                f"RewriteLogLevel is not in 2.4 (start-up fails); without a RewriteLog 2.2 logged nothing at level "
                f"{level}: remove it (LogLevel rewrite:{_trace(level)} would start tracing to the error log)",
                fix=removal(self, item),
            )
            return
        trace = _trace(level)
        text, fix = _conversion(self, ctx, item)
        yield self.finding(
            item,
            f"RewriteLogLevel is not in 2.4 (start-up fails): level {level} is LogLevel rewrite:{trace}, "
            "written to the error log (2.4 has no separate rewrite log)",
            replacement=text,
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
    """

    code = "HT113"
    name = "rewrite-log"
    severity = Severity.ERROR
    summary = "RewriteLog is gone; 2.4 traces rewriting in the error log"
    fix_availability = "always"
    directives = ("rewritelog",)

    def check(self, ctx, item):
        target = item.node.raw_args[0] if item.node.raw_args else ""
        level = _effective_level(ctx, item)
        if level <= 0:
            yield self.finding(
                item,
                f"RewriteLog is not in 2.4 (start-up fails); with RewriteLogLevel 0 nothing was written to {target}: "
                "remove it",
                fix=removal(self, item),
            )
            return
        # The RewriteLogLevel lines that log into this file are converted in the same edit: removed
        # alone first, the file would leave them looking like levels that never logged anything.
        seeing = _servers_seeing(ctx, item)
        dependants = [
            other for other in ctx.items("rewriteloglevel")
            if seeing(other) and (_level(other) or 0) > 0
        ]
        conversions = [_conversion(self, ctx, other)[1] for other in dependants]
        node = item.node

        def apply() -> None:
            for conversion in conversions:
                conversion.apply()
            edit.remove(node)

        nodes = [node, *(n for conversion in conversions for n in conversion.nodes)]
        yield self.finding(
            item,
            f"RewriteLog is not in 2.4 (start-up fails): 2.4 has no separate rewrite log, the trace "
            f"(LogLevel rewrite:{_trace(level)}) goes to the ErrorLog of this server and {target} is no longer "
            "written",
            replacement=f"LogLevel rewrite:{_trace(level)}",
            fix=self.fix(f"remove RewriteLog {target}", Applicability.PRESERVE, apply, *nodes),
        )

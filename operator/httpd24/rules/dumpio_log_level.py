"""``DumpIOLogLevel``: gone in 2.4, where mod_dumpio always logs at trace7."""

from __future__ import annotations

from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import LOG_LEVELS, effective_log_level, module_level_fix, removal, unresolved


@register
class DumpIOLogLevel(Rule):
    """
    ## What it does
    Finds `DumpIOLogLevel`.

    ## Why is this bad?
    2.4's mod_dumpio has no such directive (start-up fails). In 2.2 it chose
    the level the dumps were logged at (default `debug`), and they reached
    the error log when the server's `LogLevel` let that level through. 2.4
    always logs dumps at `trace7`, so they appear only with
    `LogLevel dumpio:trace7` (or `trace8`).

    ## Example
    ```apache
    LogLevel debug
    DumpIOInput On
    DumpIOLogLevel debug
    ```

    ## Use instead
    ```apache
    LogLevel debug
    DumpIOInput On
    LogLevel dumpio:trace7
    ```

    ## Fix safety
    Preserve when 2.2 logged the dumps (the `DumpIOLogLevel` level is at or
    above the `LogLevel` in force for that server, `warn` when none is set):
    `LogLevel dumpio:trace7` keeps them in the error log, now tagged trace7.
    Safe removal when 2.2 filtered them out (for example `DumpIOLogLevel
    debug` under `LogLevel warn`): 2.4 without the module level does not
    log them either. If a plain `LogLevel` of the same server comes after
    the line, the module level is added to that `LogLevel` instead, because
    in 2.4 a plain level resets the module levels set before it.
    """

    code = "HT107"
    name = "dumpio-log-level"
    severity = Severity.ERROR
    summary = "DumpIOLogLevel is gone; 2.4 dumps at LogLevel dumpio:trace7"
    fix_availability = "sometimes"
    directives = ("dumpiologlevel",)

    def check(self, ctx, item):
        level = item.args[0].lower() if len(item.args) == 1 and not unresolved(item) else ""
        if level not in LOG_LEVELS:
            yield self.finding(item, f"DumpIOLogLevel is not in 2.4 (start-up fails), and its value "
                                     f"'{' '.join(item.node.args)}' cannot be read here: write LogLevel dumpio:trace7 "
                                     "if the dumps should be logged, else remove it")
            return
        server_level = effective_log_level(ctx, item)
        if LOG_LEVELS.index(level) > LOG_LEVELS.index(server_level):
            yield self.finding(
                item,
                f"DumpIOLogLevel is not in 2.4 (start-up fails); under LogLevel {server_level} 2.2 did not log "
                f"dumps at {level}, and 2.4 does not either without LogLevel dumpio:trace7: remove it",
                fix=removal(self, item),
            )
            return
        text, fix = module_level_fix(
            self, ctx, item, "dumpio:trace7", Applicability.PRESERVE, "log dumps with LogLevel dumpio:trace7"
        )
        yield self.finding(
            item,
            f"DumpIOLogLevel is not in 2.4 (start-up fails): mod_dumpio always logs at trace7, so keeping the dumps "
            f"2.2 logged at {level} takes LogLevel dumpio:trace7",
            replacement=text,
            fix=fix,
        )

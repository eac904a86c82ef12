"""The ``DebugLevel=n`` option of ``CharsetOptions`` and ``ExtFilterOptions``, removed in 2.4."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register

_MODULES = {"charsetoptions": "charset_lite", "extfilteroptions": "ext_filter"}


def _is_debug(word: str) -> bool:
    return word.lower().startswith("debuglevel=")


@register
class DebugLevelOption(Rule):
    """
    ## What it does
    Finds the `DebugLevel=n` option of `CharsetOptions` (mod_charset_lite) and
    `ExtFilterOptions` (mod_ext_filter).

    ## Why is this bad?
    2.4 accepts only `ImplicitAdd`, `NoImplicitAdd`, `TranslateAllMimeTypes`
    and `NoTranslateAllMimeTypes` for `CharsetOptions` and only `LogStderr`
    and `NoLogStderr` for `ExtFilterOptions`; `DebugLevel=n` is refused at
    start-up (or, in `.htaccess`, with a 500 on every request). The modules'
    debug output is controlled by the per-module `LogLevel` instead, which
    2.4 also accepts in directory context.

    ## Example
    ```apache
    <Directory /srv/www>
        CharsetOptions ImplicitAdd DebugLevel=4
        ExtFilterOptions DebugLevel=1 LogStderr
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory /srv/www>
        CharsetOptions ImplicitAdd
        ExtFilterOptions LogStderr
    </Directory>
    # only if the debug output is wanted
    LogLevel charset_lite:trace1 ext_filter:debug
    ```

    ## Fix safety
    Safe: the fix removes the `DebugLevel=n` word and keeps the other options
    (the whole line goes when it had no other option). What the server
    serves does not change; only the debugging messages, which 2.2 wrote at
    `debug` when `DebugLevel` was above 0, are gone unless a per-module
    `LogLevel` is added, as the message suggests.
    """

    code = "HT108"
    name = "debug-level-option"
    severity = Severity.ERROR
    summary = "CharsetOptions/ExtFilterOptions DebugLevel=n is gone; use LogLevel"
    fix_availability = "always"
    directives = tuple(_MODULES)

    def check(self, ctx, item):
        node = item.node
        debug = [a for a in node.args if _is_debug(a)]
        if not debug:
            return
        module = _MODULES[node.key]
        kept = [a for a in node.args if not _is_debug(a)]
        levels = [d.split("=", 1)[1] for d in debug]
        suggestion = f"LogLevel {module}:trace1" if module == "charset_lite" else f"LogLevel {module}:debug"
        wanted = "" if all(v.strip() in ("", "0") for v in levels) else f"; for its debug output use {suggestion}"
        if kept:
            replacement = f"{node.name} {' '.join(kept)}"
            description = f"remove {', '.join(debug)} from {node.name}"
            fix = self.fix(description, Applicability.SAFE, lambda: edit.set_args(node, kept), node)
        else:
            replacement = ""
            fix = self.fix(f"remove {node.name} {' '.join(debug)}", Applicability.SAFE, lambda: edit.remove(node), node)
        yield self.finding(
            item,
            f"{node.name} {' '.join(debug)}: 2.4 has no DebugLevel option (start-up fails); remove it{wanted}",
            replacement=replacement,
            fix=fix,
        )

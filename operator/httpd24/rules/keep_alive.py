"""``KeepAlive`` with a value other than On/Off: 2.2 read it as a number or a truth value, 2.4 refuses it."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import unresolved


@register
class KeepAliveValue(Rule):
    """
    ## What it does
    Finds `KeepAlive` with a value other than `On` or `Off` (any case).

    ## Why is this bad?
    httpd 2.2 took anything but `Off` or `0` to mean `On` (a leftover of the
    1.3 syntax, where the value was a request count): `KeepAlive 5`,
    `KeepAlive yes` and even `KeepAlive false` all enabled persistent
    connections. 2.4 declares `KeepAlive` a flag and refuses to start:
    "KeepAlive must be On or Off".

    ## Example
    ```apache
    KeepAlive 100
    KeepAlive 0
    ```

    ## Use instead
    ```apache
    KeepAlive On
    KeepAlive Off
    ```

    A value from an environment variable (`KeepAlive ${KA}`, not defined in
    the configuration) cannot be judged: it is reported for a person to
    check, without a fix.

    ## Fix safety
    Safe: the fix writes what 2.2 did with the value, `Off` for `0` (exactly
    that string, as 2.2 compared it) and `On` for everything else. A value
    that 2.2 read as `On` although it looks like a "no" (`false`, `no`,
    `none`, `-1`) is called out in the message.
    """

    code = "HT120"
    name = "keep-alive-value"
    severity = Severity.ERROR
    summary = "KeepAlive takes only On or Off in 2.4"
    fix_availability = "always"
    directives = ("keepalive",)

    def check(self, ctx, item):
        node = item.node
        if len(item.args) != 1:
            return
        value = item.args[0]
        if unresolved(item):
            # An environment variable: 2.4 refuses the number 2.2 may have taken from it.
            yield self.finding(
                item,
                f"KeepAlive {value}: 2.4 takes only On or Off, the value of the variable decides; check it (2.2 read"
                " any value but Off and 0 as On, a number included)",
                replacement="KeepAlive On",
                severity=Severity.WARNING,
            )
            return
        if value.lower() in ("on", "off"):
            return
        new = "Off" if value == "0" else "On"
        note = ""
        if new == "On" and value.lower() in ("false", "no", "none", "-1", "disabled", "disable"):
            note = " (only Off and 0 turned it off)"
        yield self.finding(
            item,
            f"KeepAlive {value} is refused by 2.4 (On or Off only); 2.2 read it as {new}{note}",
            replacement=f"KeepAlive {new}",
            fix=self.fix(f"write KeepAlive {new}", Applicability.SAFE, lambda: edit.set_args(node, [new]), node),
        )

"""``NameVirtualHost``: no effect in 2.4 besides a start-up notice."""

from __future__ import annotations

from ..engine import Rule, Severity, register
from ._ht1xx import removal


@register
class NameVirtualHost(Rule):
    """
    ## What it does
    Finds `NameVirtualHost`.

    ## Why is this bad?
    2.4 makes every address:port used by several `<VirtualHost>` sections
    name-based by itself; `NameVirtualHost` does nothing but log AH00548
    "NameVirtualHost has no effect and will be removed in the next release"
    at every start.

    ## Example
    ```apache
    NameVirtualHost *:80
    <VirtualHost *:80>
        ServerName a.example.org
    </VirtualHost>
    ```

    ## Use instead
    ```apache
    <VirtualHost *:80>
        ServerName a.example.org
    </VirtualHost>
    ```

    ## Fix safety
    Safe: 2.4 ignores the directive, so removing it changes nothing. Where
    2.2 had *no* `NameVirtualHost` for an address that several virtual hosts
    share, 2.4 starts treating them as name-based: that is a different
    situation, not reported here.
    """

    code = "HT106"
    name = "name-virtual-host"
    severity = Severity.WARNING
    summary = "NameVirtualHost has no effect in 2.4"
    fix_availability = "always"
    directives = ("namevirtualhost",)

    def check(self, ctx, item):
        yield self.finding(
            item,
            "NameVirtualHost has no effect in 2.4 (AH00548): addresses shared by several virtual hosts "
            "are name-based by themselves; remove it",
            fix=removal(self, item),
        )

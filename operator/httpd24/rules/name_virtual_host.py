"""``NameVirtualHost``: no effect in 2.4 besides a start-up notice."""

from __future__ import annotations

from ..config.addresses import parse_address
from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import removal, replacement
from .vhost_overlap import REMOVED_NAMEVIRTUALHOST, covers, shared_addresses


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
    share, 2.4 starts treating them as name-based: HT220 reports that. So
    where several virtual hosts share the address it names, the line is
    replaced by a comment that says it was there (`# httpd24 (HT106):
    NameVirtualHost *:80 removed: ...`): without it a lint of the migrated
    text could not tell it from a 2.2 configuration that forgot it.
    """

    code = "HT106"
    name = "name-virtual-host"
    severity = Severity.WARNING
    summary = "NameVirtualHost has no effect in 2.4"
    fix_availability = "always"
    directives = ("namevirtualhost",)

    def check(self, ctx, item):
        address = parse_address(item.args[0]) if item.args else None
        if address is not None and any(covers(address, shared) for shared in shared_addresses(ctx)):
            mark = REMOVED_NAMEVIRTUALHOST.format(item.args[0])
            fix = replacement(self, item, mark, Applicability.SAFE, what="replace NameVirtualHost by a comment")
        else:
            fix = removal(self, item)
        yield self.finding(
            item,
            "NameVirtualHost has no effect in 2.4 (AH00548): addresses shared by several virtual hosts "
            "are name-based by themselves; remove it",
            fix=fix,
        )

"""SSLSessionCache ``shm:`` / ``shmht:``: 2.2 aliases of shmcb that 2.4 does not know."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import unresolved

_ALIASES = ("shm", "shmht")


@register
class SSLSessionCacheShmAlias(Rule):
    """
    ## What it does
    Finds `SSLSessionCache shm:...` and `SSLSessionCache shmht:...`.

    ## Why is this bad?
    In mod_ssl 2.2 `shm` and `shmht` were other names for the `shmcb` cache
    (`ssl_engine_config.c` of 2.2.34). 2.4 moved session caches to socache
    providers and has no provider of those names: it refuses to start with
    "'shm' session cache not supported (known names: shmcb,default)".

    ## Example
    ```apache
    SSLSessionCache shm:/var/run/ssl_scache(512000)
    ```

    ## Use instead
    ```apache
    SSLSessionCache shmcb:/var/run/ssl_scache(512000)
    ```

    ## Fix safety
    Safe: 2.2 used the shmcb cache for these names; the path and size are
    kept. 2.4 needs mod_socache_shmcb loaded for it.
    """

    code = "HT205"
    name = "ssl-session-cache-shm-alias"
    severity = Severity.ERROR
    summary = "SSLSessionCache shm:/shmht: are gone in 2.4; use shmcb:"
    fix_availability = "always"
    directives = ("sslsessioncache",)

    def check(self, ctx, item):
        node = item.node
        if len(node.args) != 1 or unresolved(item):
            return
        value = node.args[0]
        kind, colon, rest = value.partition(":")
        if not colon or kind.lower() not in _ALIASES:
            return
        new = f"shmcb:{rest}"
        yield self.finding(
            item,
            f"SSLSessionCache {kind}: was an alias of shmcb in 2.2; 2.4 has no '{kind}' cache and refuses to start",
            replacement=f"SSLSessionCache {edit.quote(new)}",
            fix=self.fix(f"use shmcb: for {kind}:", Applicability.SAFE, lambda: edit.set_args(node, [new]), node),
        )

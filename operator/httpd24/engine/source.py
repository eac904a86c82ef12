"""Which httpd a configuration ran on before the migration: 2.2, or 2.4 already.

httpd24 rewrites a configuration so that 2.4 answers as it did before. For the configurations the
tool exists for, "before" is 2.2, and several rules write 2.2's behaviour back (``SSILegacyExprParser
on``, ``|$`` piped logs, 2.2's defaults) or report what 2.2 did differently. A configuration that loads
a module 2.2 never had (an MPM, mod_authz_core, mod_unixd ...) could not start on 2.2: it ran on 2.4,
its pages and clients know 2.4's behaviour, and writing 2.2's back would change it. Those rules
(``Rule.about_22_behaviour``) are left out for it, and the access rules read its Order/Allow/Deny as
2.4 + mod_access_compat answers them. The rules about what 2.4 refuses or renames still apply.

The evidence is only what 2.2 refuses at start-up, never a guess: a ``LoadModule`` outside every
``<IfModule>``, ``<IfDefine>`` and ``<IfVersion>`` (a branch 2.2 may skip), and not one of those
HT404 added under :data:`MIGRATION_LOADS` (they are the migration's: a lint of its output must find
what the migration left for a person, not judge the text by them); or an ``AllowOverride`` with a
``Nonfatal=`` option (2.2: "Illegal override option"), outside them too. ``--source-version`` overrides
it either way. A migration keeps its first pass's judgement (``Context.source``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Literal

from ..config import Comment

if TYPE_CHECKING:
    from ..config import Item, Node

#: ``auto`` judges by the configuration; ``2.2`` applies every rule; ``2.4`` says it ran on 2.4.
SourceVersion = Literal["auto", "2.2", "2.4"]

#: Modules httpd 2.4 ships that no 2.2 installation had (research notes §3.3, "New in 2.4.62"), less
#: those a third-party module of the same name gave 2.2 (mod_macro, mod_proxy_html, mod_xml2enc,
#: mod_remoteip backports, uWSGI's mod_proxy_uwsgi, mod_proxy_fcgi backports, mod_lua's forerunners),
#: and less mod_cache_disk: HT401 writes it for 2.2's mod_disk_cache, and a migration's own lines are
#: no evidence (a real 2.4 configuration that loads it loads an MPM and mod_authz_core too).
MODULES_ONLY_IN_24 = frozenset(f"{name}_module" for name in (
    "mpm_prefork", "mpm_worker", "mpm_event",  # 2.2 compiled its MPM into the binary
    "access_compat", "allowmethods", "auth_form", "authn_core", "authn_socache", "authnz_fcgi", "authz_core",
    "authz_dbd", "brotli", "buffer", "cache_socache", "data", "dialup", "heartbeat",
    "heartmonitor", "http2", "lbmethod_bybusyness", "lbmethod_byrequests", "lbmethod_bytraffic",
    "lbmethod_heartbeat", "log_debug", "md", "privileges", "proxy_express", "proxy_fdpass", "proxy_hcheck",
    "proxy_http2", "proxy_wstunnel", "ratelimit", "reflector", "request", "sed", "session", "session_cookie",
    "session_crypto", "session_dbd", "slotmem_plain", "slotmem_shm", "socache_dbm", "socache_dc",
    "socache_memcache", "socache_redis", "socache_shmcb", "systemd", "tls", "unixd", "watchdog",
))

#: The sections in which 2.2 may skip a line (it knows all three).
_CONDITIONS = ("ifmodule", "ifdefine", "ifversion")

#: The comment HT404 writes above the LoadModule lines it adds.
MIGRATION_LOADS = "# httpd24 (HT404): modules httpd 2.4 needs that this configuration did not load"


def loaded_by_migration(node: "Node") -> bool:
    """Whether a LoadModule line (or an ``<IfModule>`` around one) is in the block under :data:`MIGRATION_LOADS`."""
    siblings = node.parent.children if node.parent is not None else []
    index = next((i for i, sibling in enumerate(siblings) if sibling is node), 0)
    for sibling in reversed(siblings[:index]):
        if isinstance(sibling, Comment):
            return sibling.raw.strip() == MIGRATION_LOADS
        if getattr(sibling, "key", None) not in ("loadmodule", "ifmodule"):
            return False
    return False


@dataclass(frozen=True)
class Source:
    """What a configuration ran on, and the line that showed it."""

    ran_on_24: bool
    #: ``(line as written, file, line)`` of what 2.2 refuses; None when ``--source-version`` said so.
    evidence: tuple[str, str, int] | None = None

    def reason(self, display: Callable[[str], str] = str) -> str:
        """Why the configuration ran on 2.4, its file named by ``display``."""
        if self.evidence is None:
            return "--source-version 2.4"
        text, file, line = self.evidence
        refused = "cannot load" if text.startswith("LoadModule ") else "is refused"
        return f"{text} at {display(file)}:{line} {refused} on 2.2"


def refused_by_22(item: "Item") -> bool:
    """Whether 2.2 refuses to start on a LoadModule or AllowOverride line (one httpd reads, outside every
    condition: a file nothing includes, such as Debian's mods-available/, is not read)."""
    if item.unread or item.in_section(*_CONDITIONS) is not None or not item.args:
        return False
    if item.key == "loadmodule":
        return item.args[0] in MODULES_ONLY_IN_24 and not loaded_by_migration(item.node)
    return item.key == "allowoverride" and any(word.lower().startswith("nonfatal=") for word in item.args)


def judge(startup_lines: Iterable["Item"], policy: SourceVersion) -> Source:
    """What a configuration ran on, from the LoadModule and AllowOverride lines httpd reads in it."""
    if policy != "auto":
        return Source(policy == "2.4")
    for item in startup_lines:
        if refused_by_22(item):
            text = f"LoadModule {item.args[0]}" if item.key == "loadmodule" else " ".join([item.node.name, *item.args])
            return Source(True, (text, item.file, item.node.location.line))
    return Source(False)

"""mod_proxy_scgi: 2.2 sent PATH_INFO, 2.4 sends it only with the proxy-scgi-pathinfo variable."""

from __future__ import annotations

import re

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import scope_of

_SCGI = re.compile(r"^scgi://", re.I)
_SETTERS = ("setenv", "setenvif", "setenvifnocase", "setenvifexpr", "browsermatch", "browsermatchnocase")
_LINE = "SetEnvIf Request_URI . proxy-scgi-pathinfo"


def _targets(item) -> list[str]:
    args = item.args
    if item.key in ("proxypass", "proxypassmatch"):
        return args[1:2] if len(args) > 1 and not args[0].startswith("!") else args[:1]
    if item.key == "balancermember":
        return args[:1]
    if item.key == "rewriterule" and len(args) >= 3 and re.search(r"(^|[\[,])(P|proxy)([\],=]|$)", args[2], re.I):
        return args[1:2]
    return []


@register
class ProxySCGIPathInfo(Rule):
    """
    ## What it does
    Finds requests proxied to an SCGI backend (`ProxyPass`, `ProxyPassMatch`,
    `BalancerMember`, `RewriteRule ... [P]` with an `scgi://` URL) where no
    `proxy-scgi-pathinfo` variable is set.

    ## Why is this bad?
    mod_proxy_scgi 2.2 computed a `PATH_INFO` for the backend. 2.4 follows
    RFC 3875 and sends none unless the `proxy-scgi-pathinfo` environment
    variable is set; backends that route on `PATH_INFO` then see every
    request as the script root.

    ## Example
    ```apache
    ProxyPass /app scgi://localhost:4000/
    ```

    ## Use instead
    ```apache
    ProxyPass /app scgi://localhost:4000/
    SetEnvIf Request_URI . proxy-scgi-pathinfo
    ```

    ## Fix safety
    Preserve: the line the mod_proxy_scgi manual gives to restore 2.2's
    behaviour, added after the first SCGI line of each server or section
    (the manual asks for SetEnvIf because SetEnv runs too late). Needs
    mod_setenvif.
    """

    code = "HT209"
    about_22_behaviour = True
    name = "proxy-scgi-path-info"
    severity = Severity.WARNING
    summary = "mod_proxy_scgi sends no PATH_INFO in 2.4 unless proxy-scgi-pathinfo is set"
    fix_availability = "always"

    def check_config(self, ctx):
        covered = [
            scope_of(i)
            for i in ctx.items(*_SETTERS)
            if any(a.lower().lstrip("!").startswith("proxy-scgi-pathinfo") for a in i.args)
        ]
        done: set[tuple] = set()
        for item in ctx.items("proxypass", "proxypassmatch", "balancermember", "rewriterule"):
            if not any(_SCGI.match(t) for t in _targets(item)):
                continue
            scope = scope_of(item)
            key = tuple(id(s) for s in scope)
            if key in done or any(scope[: len(c)] == c for c in covered):
                continue
            done.add(key)
            node = item.node
            # Inside <Proxy balancer://...> the variable must be set where the request is mapped: the server.
            anchor = node
            for section in reversed(item.context):
                if section.key in ("proxy", "proxymatch"):
                    anchor = section
            yield self.finding(
                item,
                "requests proxied to SCGI get no PATH_INFO in 2.4 (2.2 sent one);"
                f" `{_LINE}` restores it",
                replacement=_LINE,
                fix=self.fix(
                    "set proxy-scgi-pathinfo", Applicability.PRESERVE, lambda a=anchor: edit.insert_after(a, _LINE), anchor
                ),
            )

"""mod_cache: CacheIgnoreURLSessionIdentifiers and CacheEnable match differently in 2.4."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import server_of


@register
class CacheIgnoreURLSessionIdentifiersSubstring(Rule):
    """
    ## What it does
    Finds `CacheIgnoreURLSessionIdentifiers`.

    ## Why is this bad?
    mod_cache 2.2 removed a session identifier from the cache key when the
    configured string occurred anywhere in a parameter name; 2.4 matches the
    exact parameter name. An identifier configured as part of a name
    (`sess` for `sessionid`, `id` for `PHPSESSID`) no longer matches: the
    identifiers stay in the key and the cache fills with one copy per
    session.

    ## Example
    ```apache
    CacheIgnoreURLSessionIdentifiers sess
    ```

    ## Use instead
    Once sessionid and jsessionid are known to be the full names, mark the
    line as checked:
    ```apache
    # httpd24: ignore=HT211
    CacheIgnoreURLSessionIdentifiers sessionid jsessionid
    ```

    ## Fix safety
    No fix: only a person knows the full parameter names the applications
    use.
    """

    code = "HT211"
    about_22_behaviour = True
    name = "cache-ignore-url-session-identifier-substring"
    severity = Severity.WARNING
    summary = "CacheIgnoreURLSessionIdentifiers matches whole parameter names in 2.4"
    directives = ("cacheignoreurlsessionidentifiers",)

    def check(self, ctx, item):
        names = [a for a in item.args if a.lower() != "none"]
        if not names:
            return
        yield self.finding(
            item,
            "CacheIgnoreURLSessionIdentifiers matches exact parameter names in 2.4 (2.2 matched substrings): make"
            f" sure {', '.join(names)} are the full names of the session parameters",
        )


@register
class CacheEnablePathOnForwardProxy(Rule):
    """
    ## What it does
    Finds `CacheEnable type /path` (a path without a scheme) in a server that
    forward-proxies (`ProxyRequests On`).

    ## Why is this bad?
    In 2.2 a path matched the path of any URL, so `CacheEnable disk /` also
    cached everything the forward proxy fetched. 2.4 matches a URL without a
    scheme only against local paths; proxied content is cached only by a
    `CacheEnable` naming its protocol (`http://`, optionally a host and
    path). The proxy cache silently stops caching.

    ## Example
    ```apache
    ProxyRequests On
    CacheEnable disk /
    ```

    ## Use instead
    ```apache
    ProxyRequests On
    CacheEnable disk /
    CacheEnable disk http://
    ```

    ## Fix safety
    Preserve, for `/` only: the fix adds a line per protocol the proxy can
    fetch (`http://`; `ftp://` when mod_proxy_ftp is loaded), which matches
    all proxied content as 2.2's `/` did. A longer path matched any host in
    2.2 and has no exact 2.4 form: no fix.
    """

    code = "HT212"
    about_22_behaviour = True
    name = "cache-enable-path-on-forward-proxy"
    severity = Severity.WARNING
    summary = "CacheEnable /path no longer matches forward-proxied content in 2.4"
    fix_availability = "sometimes"

    def check_config(self, ctx):
        proxying: set[int | None] = set()
        for item in ctx.items("proxyrequests"):
            if item.args and item.args[0].lower() == "on":
                server = server_of(item)
                proxying.add(id(server) if server is not None else None)
        if not proxying:
            return
        enables = list(ctx.items("cacheenable"))
        schemes = ["http://"]
        if "proxy_ftp_module" in ctx.view.loaded_modules:
            schemes.append("ftp://")
        for item in enables:
            if len(item.args) != 2 or "://" in item.args[1] or not item.args[1].startswith("/"):
                continue
            if any(s.key != "virtualhost" and s.key not in ("ifmodule", "ifdefine", "ifversion") for s in item.context):
                continue  # 2.4-only per-directory form
            server = server_of(item)
            key = id(server) if server is not None else None
            if key not in proxying and not (key is None and proxying):
                continue
            kind, path = item.args
            present = {
                i.args[1].lower()
                for i in enables
                if len(i.args) == 2 and i.args[0].lower() == kind.lower() and server_of(i) is server
            }
            missing = [s for s in schemes if s not in present]
            if not missing:
                continue
            node = item.node
            message = (
                f"CacheEnable {kind} {path} on a forward proxy: 2.2 also cached proxied content with it, 2.4 only"
                " with a CacheEnable naming the protocol"
            )
            if path != "/":
                yield self.finding(item, message + f" (e.g. `CacheEnable {kind} http://`); choose the hosts and paths")
                continue
            lines = "\n".join(f"CacheEnable {kind} {s}" for s in missing)
            yield self.finding(
                item,
                message + f"; add {' and '.join('`CacheEnable ' + kind + ' ' + s + '`' for s in missing)}",
                replacement=lines,
                fix=self.fix(
                    "cache proxied content by protocol", Applicability.PRESERVE,
                    lambda node=node, lines=lines: edit.insert_after(node, lines), node,
                ),
            )

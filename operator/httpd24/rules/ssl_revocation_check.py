"""CRLs configured without SSLCARevocationCheck: 2.2 checked them, 2.4 checks nothing."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import server_of

#: CRL directive -> the 2.4 directive that switches its checks on.
_CHECKS = {
    "sslcarevocationpath": "SSLCARevocationCheck",
    "sslcarevocationfile": "SSLCARevocationCheck",
    "sslproxycarevocationpath": "SSLProxyCARevocationCheck",
    "sslproxycarevocationfile": "SSLProxyCARevocationCheck",
}
#: ``no_crl_for_cert_ok`` (2.2's behaviour for a CA without a CRL) exists from 2.4.21 on.
_FLAG_SINCE = (2, 4, 21)


@register
class CRLWithoutRevocationCheck(Rule):
    """
    ## What it does
    Finds servers (the main server or a `<VirtualHost>`) that name CRLs
    with `SSLCARevocationPath`/`SSLCARevocationFile` (or the `SSLProxy...`
    forms) but set no `SSLCARevocationCheck` (`SSLProxyCARevocationCheck`).

    ## Why is this bad?
    mod_ssl 2.2 checked client (and proxied server) certificates against
    every CRL it was given, for each certificate of the chain. 2.4 loads the
    CRLs but checks nothing unless `SSLCARevocationCheck` says so (its
    default is `none`), so a revoked client certificate is accepted again:
    access control changes without a word in the log.

    ## Example
    ```apache
    SSLCARevocationFile /etc/ssl/crl/ca.crl
    ```

    ## Use instead
    ```apache
    SSLCARevocationFile /etc/ssl/crl/ca.crl
    SSLCARevocationCheck chain no_crl_for_cert_ok
    ```

    ## Fix safety
    Preserve: the fix writes out 2.2's behaviour, which the 2.4 manual gives
    as `SSLCARevocationCheck chain no_crl_for_cert_ok` (check the whole chain;
    a CA without a CRL is not an error, as in 2.2). The flag exists from
    2.4.21 on; for an older target the fix writes `chain`, which also rejects
    certificates whose CA has no CRL. A virtual host inherits the main
    server's setting, so one line in the main server covers vhosts that name
    no CRL of their own.

    Severity: error for client certificates (access changes), warning for
    the proxy forms (a revoked backend certificate is accepted).
    """

    code = "HT206"
    about_22_behaviour = True
    name = "ssl-crl-without-revocation-check"
    severity = Severity.ERROR
    summary = "CRLs are not checked in 2.4 without SSLCARevocationCheck"
    fix_availability = "always"

    def check_config(self, ctx):
        checks: dict[tuple[int | None, str], bool] = {}
        for item in ctx.items("sslcarevocationcheck", "sslproxycarevocationcheck"):
            server = server_of(item)
            name = "SSLProxyCARevocationCheck" if "proxy" in item.key else "SSLCARevocationCheck"
            checks[(id(server) if server is not None else None, name)] = True
        seen: set[tuple[int | None, str]] = set()
        mode = "chain no_crl_for_cert_ok" if ctx.target.version >= _FLAG_SINCE else "chain"
        for item in ctx.items(*_CHECKS):
            name = _CHECKS[item.key]
            server = server_of(item)
            key = (id(server) if server is not None else None, name)
            if key in seen or checks.get(key) or checks.get((None, name)):
                continue
            seen.add(key)
            node = item.node
            line = f"{name} {mode}"
            proxy = "Proxy" in name
            what = "proxied server certificates" if proxy else "client certificates"
            yield self.finding(
                item,
                f"{node.name} without {name}: 2.2 checked {what} against these CRLs, 2.4 checks nothing"
                f" unless told; add `{line}`",
                replacement=line,
                fix=self.fix(
                    f"add {line}", Applicability.PRESERVE, lambda node=node, line=line: edit.insert_after(node, line), node
                ),
                severity=Severity.WARNING if proxy else Severity.ERROR,
            )

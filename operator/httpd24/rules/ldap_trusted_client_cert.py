"""LDAPTrustedClientCert: a server-level setting in 2.2, directory context only in 2.4."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import DIR_SECTIONS, in_directory_context, server_of


@register
class LDAPTrustedClientCertServerLevel(Rule):
    """
    ## What it does
    Finds `LDAPTrustedClientCert` in the main server or a `<VirtualHost>`,
    outside any `<Directory>`, `<Location>` or `<Files>` section.

    ## Why is this bad?
    In 2.2 the client certificate for LDAP connections was a per-server
    setting. 2.4 made it per-directory only and refuses to start on a
    server-level line: "LDAPTrustedClientCert not allowed here" (in a vhost:
    "not allowed in <VirtualHost> context"). It must be present in every
    directory context whose LDAP authentication needs it.

    ## Example
    ```apache
    LDAPTrustedClientCert CERT_BASE64 /etc/ssl/ldap-client.pem
    <Location /private>
        AuthLDAPURL ldaps://ldap.example.com/dc=example,dc=com
    </Location>
    ```

    ## Use instead
    ```apache
    <Location /private>
        AuthLDAPURL ldaps://ldap.example.com/dc=example,dc=com
        LDAPTrustedClientCert CERT_BASE64 /etc/ssl/ldap-client.pem
    </Location>
    ```

    ## Fix safety
    Preserve: the fix moves the line into every section of the same server
    (for the main server: also of the virtual hosts, which inherited it in
    2.2) that configures LDAP authentication (`AuthLDAPURL`), which is where
    2.2 used it. Sections in `.htaccess` files are not visible; when the
    configuration holds no such section there is no fix and the message
    asks a person to place the line.
    """

    code = "HT210"
    name = "ldap-trusted-client-cert-server-level"
    severity = Severity.ERROR
    summary = "LDAPTrustedClientCert is valid only in directory context in 2.4"
    fix_availability = "sometimes"
    directives = ("ldaptrustedclientcert",)

    def check(self, ctx, item):
        if in_directory_context(item):
            return
        node = item.node
        server = server_of(item)
        own_certs = {
            id(server_of(i)) for i in ctx.items("ldaptrustedclientcert") if not in_directory_context(i)
        }
        sections = []
        for url in ctx.items("authldapurl"):
            section = next((s for s in reversed(url.context) if s.key in DIR_SECTIONS), None)
            if section is None or section in sections:
                continue
            url_server = server_of(url)
            if url_server is server or (server is None and id(url_server) not in own_certs):
                sections.append(section)
        message = f"{node.name} is allowed only in directory context in 2.4 (2.4 refuses to start)"
        if not sections:
            yield self.finding(
                item,
                message + "; move it into each <Directory>/<Location> whose LDAP authentication needs it",
            )
            return
        text = " ".join(node.raw_args)
        line = f"{node.name} {text}"

        def move(node=node, sections=tuple(sections), line=line):
            for section in sections:
                if not any(getattr(c, "key", None) == "ldaptrustedclientcert" for c in section.children):
                    edit.append_child(section, line)
            edit.remove(node)

        yield self.finding(
            item,
            message + f"; move it into the {len(sections)} section(s) that use AuthLDAPURL",
            replacement=line,
            fix=self.fix("move into the LDAP sections", Applicability.PRESERVE, move, node, *sections),
        )

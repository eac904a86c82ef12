"""The harness's clients have the names of its own hosts table (httpd24.apache._hosts) on the real httpd.

Host rules are judged against these names: the model is asked with :func:`double_reverse`, httpd looks the
client up through nss_wrapper. If the two disagreed, every `Allow from <name>` of the random differential
tests would be judged against names httpd never saw.
"""

from __future__ import annotations

import pytest

from httpd24.apache import Instance
from httpd24.apache._hosts import NAMES, double_reverse, wrapper
from httpd24.apache.differential import IPV6_UNAVAILABLE, SOURCES

pytestmark = pytest.mark.apache

HOST_RULES = {
    "/domain": ".example.invalid",        # a domain suffix: 127.0.0.2 only
    "/localhost": "localhost",            # 127.0.0.1, and ::1
    "/nameless": "nohost.invalid",        # nobody
}
CONF = "".join(
    f"<Location {path}>\n    Require host {host}\n</Location>\n" for path, host in HOST_RULES.items()
).encode()


def test_nss_wrapper_is_installed():
    assert wrapper() is not None, "libnss-wrapper is missing: `./run setup` installs it"


def _matches(name: str | None, host: str) -> bool:
    """mod_authz_host's `Require host`: the whole name, or a suffix starting at a dot."""
    if name is None:
        return False
    name, host = name.lower(), host.lower()
    return name == host or name.endswith(host if host.startswith(".") else "." + host)


def test_httpd_finds_the_names_the_harness_reads(httpd):
    assert wrapper() is not None
    assert double_reverse("127.0.0.2") == NAMES["127.0.0.2"] == "client2.example.invalid"
    assert double_reverse("127.0.0.9") is None
    mods = ["authn_core_module", "authz_core_module", "authz_host_module"]
    with Instance({"site.conf": CONF}, "site.conf", mods, httpd=httpd, ipv6=not IPV6_UNAVAILABLE) as srv:
        seen = {}
        for source in SOURCES:
            for path, host in HOST_RULES.items():
                server = "::1" if ":" in source else "127.0.0.1"
                status = srv.request(path, source=source, server=server).status
                seen[source, path] = status
                assert status == (404 if _matches(double_reverse(source), host) else 403), (source, path)
    assert seen["127.0.0.2", "/domain"] == 404 and seen["127.0.0.1", "/domain"] == 403
    assert seen["127.0.0.1", "/localhost"] == 404 and seen["127.0.0.9", "/localhost"] == 403

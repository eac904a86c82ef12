"""HT220: several <VirtualHost> on one address without a NameVirtualHost for it. 2.2 served every request
on that address from the first (IP-based, "overlap" warning); 2.4 chooses among them by name."""

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings

from httpd24.apache import Instance
from httpd24.engine import Severity


def _vhost(address: str, name: str, root: str = "") -> str:
    return f"<VirtualHost {address}>\n    ServerName {name}\n    DocumentRoot /srv/{root or name[0]}\n</VirtualHost>\n"


TWO = _vhost("*:80", "a.example.org") + _vhost("*:80", "b.example.org")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("NameVirtualHost *:80\n" + TWO, id="namevirtualhost"),
        pytest.param("<IfModule mod_ssl.c>\nNameVirtualHost *:80\n</IfModule>\n" + TWO, id="namevirtualhost-maybe"),
        pytest.param("NameVirtualHost *\n" + _vhost("*", "a.example.org") + _vhost("*", "b.example.org"),
                     id="namevirtualhost-no-port"),
        pytest.param(_vhost("*:80", "a.example.org") + _vhost("*:443", "b.example.org"), id="other-port"),
        pytest.param(_vhost("10.0.0.1:80", "a.example.org") + _vhost("10.0.0.2:80", "b.example.org"),
                     id="other-address"),
        pytest.param(_vhost("*:80", "a.example.org"), id="one"),
        pytest.param("NameVirtualHost 10.0.0.1:80\n" + _vhost("10.0.0.1:80", "a.example.org")
                     + _vhost("10.0.0.1:80", "b.example.org"), id="namevirtualhost-ip"),
        # `*` (any port) and `*:80` overlap in 2.2 only through its default-server list: not judged
        pytest.param(_vhost("*", "a.example.org") + _vhost("*:80", "b.example.org"), id="star-and-star-port"),
        pytest.param(_vhost("10.0.0.1", "c.example.org") + _vhost("10.0.0.1:80", "a.example.org")
                     + _vhost("10.0.0.1:80", "b.example.org"), id="ip-with-and-without-port"),
        # a _default_ vhost on the port comes first in 2.2's list: which one 2.2 served is not the first *:80
        pytest.param(_vhost("_default_:80", "d.example.org") + TWO, id="default-vhost-on-the-port"),
        pytest.param(_vhost("_default_:80", "a.example.org") + _vhost("_default_:80", "b.example.org"),
                     id="two-default-vhosts"),
        # the configuration listens elsewhere: no request reaches port 80 in either version
        pytest.param("Listen 8080\n" + TWO, id="not-listened"),
        pytest.param("<IfVersion < 2.3>\n" + TWO + "</IfVersion>\n", id="dead-ifversion"),
    ],
)
def test_noop(text):
    assert findings(text, "HT220") == []


def test_second_vhost_is_reported_with_the_one_2_2_served():
    text = "Listen 80\n" + TWO
    [finding] = findings(text, "HT220")
    assert (finding.line, finding.severity, finding.fix) == (6, Severity.WARNING, None)
    assert "first <VirtualHost *:80> (httpd.conf:2, ServerName a.example.org)" in finding.message
    assert "b.example.org" in finding.message and "by name" in finding.message


def test_every_vhost_2_2_never_served_is_reported():
    text = TWO + _vhost("*:80", "c.example.org") + _vhost("127.0.0.1:80", "d.example.org")
    assert [f.line for f in findings(text, "HT220")] == [5, 9]


@pytest.mark.parametrize(
    "first, second",
    [
        pytest.param("10.0.0.1:80", "10.0.0.1:80", id="ip"),
        pytest.param("[2001:db8::1]:443", "[2001:db8::1]:443", id="ipv6"),
        pytest.param("*", "*", id="no-port"),
        pytest.param("*:80 *:443", "*:443", id="one-of-several-addresses"),
        pytest.param("10.0.0.1:80 10.0.0.1:443", "10.0.0.1:80", id="same-ip-other-port-beside"),
    ],
)
def test_shared_addresses(first, second):
    text = _vhost(first, "a.example.org") + _vhost(second, "b.example.org")
    [finding] = findings(text, "HT220")
    assert finding.line == 5 and f"<VirtualHost {second.split()[-1]}>" in finding.message


def test_a_namevirtualhost_for_another_port_does_not_cover():
    assert len(findings("NameVirtualHost *:443\n" + TWO, "HT220")) == 1


def test_listen_on_the_port_keeps_the_finding():
    assert len(findings("Listen 0.0.0.0:80\n" + TWO, "HT220")) == 1
    assert len(findings("Listen 10.0.0.1:80\n" + _vhost("10.0.0.1:80", "a.x") + _vhost("10.0.0.1:80", "b.x"),
                        "HT220")) == 1


def test_a_configuration_that_ran_on_24_is_left_out():
    from httpd24.config import ConfigSet
    from httpd24.engine import lint

    text = "LoadModule mpm_event_module modules/mod_mpm_event.so\n" + TWO
    assert lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"), select=["HT220"]) == []


@pytest.mark.apache
def test_real_httpd_routes_by_name(httpd):  # noqa: F811
    """2.4 sends a request for the second vhost's name to the second vhost (2.2 sent it to the first)."""
    site = ("<VirtualHost *:${HTTPD24_PORT}>\n    ServerName a.example.org\n    DocumentRoot a\n</VirtualHost>\n"
            "<VirtualHost *:${HTTPD24_PORT}>\n    ServerName b.example.org\n    DocumentRoot b\n</VirtualHost>\n"
            "<Directory a>\n    Require all granted\n</Directory>\n<Directory b>\n    Require all granted\n"
            "</Directory>\n")
    assert [f.line for f in findings(site.replace("${HTTPD24_PORT}", "80"), "HT220")] == [5]
    files = {"site.conf": site, "a/who.txt": "a\n", "b/who.txt": "b\n"}
    with Instance(files, "site.conf", ["authz_core_module"], httpd=httpd) as srv:
        assert srv.request("/who.txt", host="b.example.org").body == b"b\n"
        assert srv.request("/who.txt", host="a.example.org").body == b"a\n"
        assert srv.request("/who.txt", host="other.example.org").body == b"a\n"


def test_a_migrated_namevirtualhost_configuration_is_not_reported():
    """migrate removes the NameVirtualHost (HT106); neither its later passes nor a lint of its output may
    then take the address for one 2.2 read by IP."""
    from httpd24.config import ConfigSet
    from httpd24.engine import lint, migrate

    text = "Listen 80\nNameVirtualHost *:80\n" + TWO
    result = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert "NameVirtualHost *:80\n" not in result.files["httpd.conf"].decode()
    assert [f for f in result.remaining if f.code == "HT220"] == []
    again = ConfigSet.from_mapping({"httpd.conf": result.files["httpd.conf"]}, entry="httpd.conf")
    assert lint(again, select=["HT220"]) == []

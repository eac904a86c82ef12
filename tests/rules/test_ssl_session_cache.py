import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest

SSL = ["ssl_module", "socache_shmcb_module"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("SSLSessionCache shmcb:/var/run/x(512000)\n", id="shmcb"),
        pytest.param("SSLSessionCache dbm:/var/run/x\n", id="dbm"),
        pytest.param("SSLSessionCache none\n", id="none"),
        pytest.param("<IfVersion < 2.3>\nSSLSessionCache shm:/x(5)\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nSSLSessionCache shm:/x(5)\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("#SSLSessionCache shm:/x(5)\n", id="comment"),
    ],
)
def test_noop(text):
    assert findings(text, "HT205") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "SSLSessionCache shm:/var/run/ssl_scache(512000)\n",
            "SSLSessionCache shmcb:/var/run/ssl_scache(512000)\n",
            id="shm",
        ),
        pytest.param("SSLSessionCache shmht:logs/x(5)\n", "SSLSessionCache shmcb:logs/x(5)\n", id="shmht"),
        pytest.param(
            '<IfModule mod_ssl.c>\n  SSLSessionCache "SHM:/a b(5)"\n</IfModule>\n',
            '<IfModule mod_ssl.c>\n  SSLSessionCache "shmcb:/a b(5)"\n</IfModule>\n',
            id="quoted-uppercase",
        ),
        pytest.param("Timeout 5\n\tsslsessioncache   'shm:/x(5)'\t\n", "Timeout 5\n\tsslsessioncache   'shmcb:/x(5)'\t\n",
                     id="layout-kept"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT205") == after


@pytest.mark.apache
@pytest.mark.parametrize("kind", ["shm", "shmht"])
def test_real_httpd_refuses_original_accepts_fix(httpd, kind):
    text = f"SSLSessionCache {kind}:logs/ssl_scache(512000)\n"
    before = configtest({"ssl.conf": text}, "ssl.conf", SSL, httpd=httpd)
    assert not before.ok and "session cache not supported" in before.output
    after = configtest({"ssl.conf": fixed(text, "HT205")}, "ssl.conf", SSL, httpd=httpd)
    assert after.ok, after.output

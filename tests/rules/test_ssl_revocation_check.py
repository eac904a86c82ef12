import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import configtest
from httpd24.config import Target
from httpd24.engine import Applicability, migrate

SSL = ["ssl_module", "socache_shmcb_module"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("SSLCARevocationFile /c.crl\nSSLCARevocationCheck chain\n", id="has-check"),
        pytest.param("SSLCARevocationCheck none\nSSLCARevocationPath /crl\n", id="explicit-none-is-a-2.4-choice"),
        pytest.param(
            "SSLCARevocationCheck chain\n<VirtualHost *:443>\nSSLCARevocationFile /c.crl\n</VirtualHost>\n",
            id="vhost-inherits-main-check",
        ),
        pytest.param("<IfVersion < 2.3>\nSSLCARevocationFile /c.crl\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nSSLCARevocationFile /c.crl\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("SSLProxyCARevocationFile /c.crl\nSSLProxyCARevocationCheck leaf\n", id="proxy-has-check"),
    ],
)
def test_noop(text):
    assert findings(text, "HT206") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "SSLCARevocationFile /c.crl\n",
            "SSLCARevocationFile /c.crl\nSSLCARevocationCheck chain no_crl_for_cert_ok\n",
            id="main",
        ),
        pytest.param(
            "<VirtualHost *:443>\n  SSLCARevocationPath /crl\n  SSLCARevocationFile /c.crl\n</VirtualHost>\n",
            "<VirtualHost *:443>\n  SSLCARevocationPath /crl\n  SSLCARevocationCheck chain no_crl_for_cert_ok\n"
            "  SSLCARevocationFile /c.crl\n</VirtualHost>\n",
            id="vhost-one-line-for-both",
        ),
        pytest.param(
            "SSLProxyCARevocationFile /c.crl\n",
            "SSLProxyCARevocationFile /c.crl\nSSLProxyCARevocationCheck chain no_crl_for_cert_ok\n",
            id="proxy",
        ),
        pytest.param(
            "<VirtualHost a:443>\nSSLCARevocationFile /a.crl\n</VirtualHost>\n<VirtualHost b:443>\nSSLCARevocationFile /b.crl\n"
            "SSLCARevocationCheck leaf\n</VirtualHost>\n",
            "<VirtualHost a:443>\nSSLCARevocationFile /a.crl\nSSLCARevocationCheck chain no_crl_for_cert_ok\n</VirtualHost>\n"
            "<VirtualHost b:443>\nSSLCARevocationFile /b.crl\nSSLCARevocationCheck leaf\n</VirtualHost>\n",
            id="per-vhost",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT206") == after


def test_old_target_gets_chain_only():
    result = migrate(configset("SSLCARevocationFile /c.crl\n"), target=Target(version=(2, 4, 6)), select=["HT206"])
    assert result.files["httpd.conf"] == b"SSLCARevocationFile /c.crl\nSSLCARevocationCheck chain\n"


def test_severity_and_applicability():
    client, proxy = findings("SSLCARevocationFile /c.crl\nSSLProxyCARevocationFile /p.crl\n", "HT206")
    assert (client.severity.value, proxy.severity.value) == ("error", "warning")
    assert client.fix.applicability == Applicability.PRESERVE


@pytest.mark.apache
def test_real_httpd_accepts_fix(httpd):
    text = "<VirtualHost *:443>\n  SSLCARevocationFile crl.pem\n  SSLProxyCARevocationFile crl.pem\n</VirtualHost>\n"
    files = {"crl.pem": "-----BEGIN X509 CRL-----\n", "ssl.conf": fixed(fixed(text, "HT206"), "HT206")}
    assert "SSLProxyCARevocationCheck chain no_crl_for_cert_ok" in files["ssl.conf"]
    result = configtest(files, "ssl.conf", SSL, httpd=httpd)
    assert result.ok, result.output

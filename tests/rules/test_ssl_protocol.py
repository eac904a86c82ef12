import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability

SSL = ["ssl_module", "socache_shmcb_module"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("SSLProtocol all -SSLv3\n", id="no-sslv2"),
        pytest.param("SSLProtocol all -SSLv2\n", id="minus-is-ht204"),
        pytest.param("<IfVersion < 2.3>\nSSLProtocol +SSLv2 +SSLv3\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nSSLProtocol SSLv2\n</IfModule>\n", id="dead-ifmodule-branch"),
        pytest.param("# SSLProtocol +SSLv2\n", id="comment"),
        pytest.param("SSLCipherSuite ALL:+SSLv2\n", id="cipher-suite-is-other"),
    ],
)
def test_noop(text):
    assert findings(text, "HT203") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("SSLProtocol +SSLv2 +SSLv3 +TLSv1\n", "SSLProtocol +SSLv3 +TLSv1\n", id="plus"),
        pytest.param("SSLProtocol +SSLv2 +TLSv1\n", "SSLProtocol +TLSv1\n", id="plus-tls"),
        pytest.param("SSLProtocol SSLv2 SSLv3 TLSv1\n", "SSLProtocol SSLv3 TLSv1\n", id="bare-list"),
        pytest.param("SSLProtocol all +sslv2\n", "SSLProtocol all\n", id="case"),
        pytest.param("SSLProxyProtocol SSLv2 +TLSv1\n", "SSLProxyProtocol +TLSv1\n", id="proxy"),
        pytest.param("SSLProtocol +TLSv1 SSLv2 +SSLv3\n", "SSLProtocol +SSLv3\n", id="bare-sslv2-resets-the-set"),
        pytest.param(
            "<VirtualHost *:443>\n\tSSLProtocol -ALL +SSLv2 +SSLv3 # x\n</VirtualHost>\n",
            "<VirtualHost *:443>\n\tSSLProtocol -ALL +SSLv3 # x\n</VirtualHost>\n",
            id="vhost",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT203") == after


def test_only_sslv2_needs_a_person():
    [finding] = findings("SSLProtocol SSLv2\n", "HT203")
    assert finding.fix is None
    assert "choose" in finding.message
    [finding] = findings("SSLProtocol -ALL +SSLv2\n", "HT203")
    assert finding.fix is None


def test_fix_is_preserve():
    [finding] = findings("SSLProtocol +SSLv2 +TLSv1\n", "HT203")
    assert finding.fix.applicability == Applicability.PRESERVE
    assert finding.replacement == "SSLProtocol +TLSv1"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("SSLProtocol all -SSLv2\n", "SSLProtocol all\n", id="plain"),
        pytest.param("SSLProtocol all -SSLv2 -SSLv3\n", "SSLProtocol all -SSLv3\n", id="middle"),
        pytest.param("SSLProxyProtocol ALL -sslv2\n", "SSLProxyProtocol ALL\n", id="proxy-case"),
        pytest.param("Timeout 5\r\n\tsslprotocol\t'all'   -SSLv2  -SSLv3 \r\n", "Timeout 5\r\n\tsslprotocol\t'all'  -SSLv3 \r\n",
                     id="layout-kept"),
    ],
)
def test_minus_fix(before, after):
    assert fixed(before, "HT204") == after


def test_minus_alone_is_reported_without_fix():
    [finding] = findings("SSLProtocol -SSLv2\n", "HT204")
    assert finding.fix is None
    assert findings("SSLProtocol all -SSLv3\n", "HT204") == []


@pytest.mark.apache
@pytest.mark.parametrize(
    "text",
    [
        "SSLProtocol +SSLv2 +TLSv1 +TLSv1.2\n",
        "SSLProtocol SSLv2 TLSv1 TLSv1.2\n",
        "SSLProtocol +TLSv1.2 SSLv2 +TLSv1\n",
        "SSLProxyProtocol SSLv2 +TLSv1\n",
    ],
)
def test_real_httpd_refuses_original_accepts_fix(httpd, text):
    before = configtest({"ssl.conf": text}, "ssl.conf", SSL, httpd=httpd)
    assert not before.ok and "SSLv2 is no longer supported" in before.output
    after = configtest({"ssl.conf": fixed(text, "HT203")}, "ssl.conf", SSL, httpd=httpd)
    assert after.ok, after.output


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("SSLProtocol +SSLv3 +TLSv1\n", "SSLProtocol +TLSv1\n", id="plus"),
        pytest.param("SSLProtocol all -SSLv2 +SSLv3\n", "SSLProtocol all -SSLv2\n", id="re-added"),
        pytest.param("SSLProtocol all -SSLv3\n", "SSLProtocol all -SSLv3\n", id="minus-is-fine"),
    ],
)
def test_sslv3_fix(before, after):
    assert fixed(before, "HT219") == after


def test_sslv3_only_needs_a_person():
    [finding] = findings("SSLProtocol SSLv3\n", "HT219")
    assert finding.fix is None


@pytest.mark.apache
def test_real_httpd_without_sslv3(httpd):
    """This build's OpenSSL has no SSLv3: the line fails; both fixes together give a valid line."""
    text = "SSLProtocol +SSLv2 +SSLv3 +TLSv1\n"
    before = configtest({"ssl.conf": "SSLProtocol +SSLv3 +TLSv1\n"}, "ssl.conf", SSL, httpd=httpd)
    if before.ok:
        pytest.skip("this OpenSSL still has SSLv3")
    assert "SSLv3 not supported" in before.output
    after = fixed(fixed(text, "HT203"), "HT219")
    assert after == "SSLProtocol +TLSv1\n"
    assert configtest({"ssl.conf": after}, "ssl.conf", SSL, httpd=httpd).ok


@pytest.mark.apache
def test_real_httpd_ignores_minus_sslv2(httpd):
    text = "SSLProtocol all -SSLv2 -SSLv3\n"
    assert configtest({"ssl.conf": text}, "ssl.conf", SSL, httpd=httpd).ok
    assert configtest({"ssl.conf": fixed(text, "HT204")}, "ssl.conf", SSL, httpd=httpd).ok

import pytest
from apache_fixture import httpd, self_signed  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<Location /a>\nLDAPTrustedClientCert CERT_BASE64 /c.pem\n</Location>\n", id="directory-context"),
        pytest.param("<IfVersion < 2.3>\nLDAPTrustedClientCert CERT_BASE64 /c.pem\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nLDAPTrustedClientCert CERT_BASE64 /c\n</IfModule>\n", id="dead-ifmodule"),
    ],
)
def test_noop(text):
    assert findings(text, "HT210") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "LDAPTrustedClientCert CERT_BASE64 /c.pem\n<Location /a>\n    AuthLDAPURL ldaps://h/dc=x\n</Location>\n"
            "<VirtualHost *:80>\n  <Directory /b>\n    AuthLDAPURL ldaps://h/dc=y\n  </Directory>\n</VirtualHost>\n",
            "<Location /a>\n    AuthLDAPURL ldaps://h/dc=x\n    LDAPTrustedClientCert CERT_BASE64 /c.pem\n</Location>\n"
            "<VirtualHost *:80>\n  <Directory /b>\n    AuthLDAPURL ldaps://h/dc=y\n"
            "    LDAPTrustedClientCert CERT_BASE64 /c.pem\n  </Directory>\n</VirtualHost>\n",
            id="main-server-into-every-ldap-section",
        ),
        pytest.param(
            "<VirtualHost *:80>\n  LDAPTrustedClientCert CERT_BASE64 /v.pem\n  <Location /a>\n    AuthLDAPURL ldaps://h/x\n"
            "  </Location>\n</VirtualHost>\n<Location /m>\n  AuthLDAPURL ldaps://h/m\n</Location>\n",
            "<VirtualHost *:80>\n  <Location /a>\n    AuthLDAPURL ldaps://h/x\n    LDAPTrustedClientCert CERT_BASE64 /v.pem\n"
            "  </Location>\n</VirtualHost>\n<Location /m>\n  AuthLDAPURL ldaps://h/m\n</Location>\n",
            id="vhost-only-its-own-sections",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT210") == after


def test_no_ldap_section_needs_a_person():
    [finding] = findings("LDAPTrustedClientCert CERT_BASE64 /c.pem\n", "HT210")
    assert finding.fix is None


@pytest.mark.apache
def test_real_httpd_refuses_original_accepts_fix(httpd, tmp_path):
    cert, _key = self_signed(tmp_path, "/CN=ldap-client")
    text = (
        "LDAPTrustedClientCert CERT_BASE64 client.pem\n"
        "<Location /a>\n  AuthType Basic\n  AuthName x\n  AuthBasicProvider ldap\n"
        "  AuthLDAPURL ldap://127.0.0.1/dc=x\n  Require valid-user\n</Location>\n"
    )
    modules = ["ldap_module", "authnz_ldap_module", "auth_basic_module", "authn_core_module", "authz_core_module",
               "authz_user_module"]
    with open(cert) as handle:
        files = {"client.pem": handle.read()}
    before = configtest({**files, "site.conf": text}, "site.conf", modules, httpd=httpd)
    assert not before.ok and "not allowed here" in before.output
    after = configtest({**files, "site.conf": fixed(text, "HT210")}, "site.conf", modules, httpd=httpd)
    assert after.ok, after.output

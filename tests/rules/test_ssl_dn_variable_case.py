"""HT221: a DN variable whose S or I is written in lower case (`%{ssl_client_s_dn}`) is empty in 2.4."""

import http.client
import ssl

import pytest
from apache_fixture import httpd, self_signed  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.engine import Severity, migrate


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        pytest.param('Header set X-DN "%{ssl_client_s_dn}s"\n', Severity.WARNING, id="header"),
        pytest.param('LogFormat "%h %{ssl_client_s_dn_CN}x" ssl\n', Severity.WARNING, id="logformat"),
        pytest.param('<Location /a>\nSSLRequire %{ssl_client_s_dn_CN} eq "Jane"\n</Location>\n', Severity.ERROR,
                     id="sslrequire"),
        pytest.param("RewriteCond %{SSL:SSL_CLIENT_i_DN} !^/C=DE\nRewriteRule ^ - [F]\n", Severity.ERROR,
                     id="rewritecond"),
        pytest.param("SSLUserName ssl_client_s_dn_CN\n", Severity.ERROR, id="sslusername"),
    ],
)
def test_reported(text, severity):
    [finding] = findings(text, "HT221")
    assert finding.severity is severity
    assert "empty in 2.4" in finding.message


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('Header set X-DN "%{SSL_CLIENT_S_DN}s"\n', id="upper-case"),
        # Only the S/I letter is compared case-sensitively by 2.4 (the live test shows both).
        pytest.param('Header set X-CN "%{Ssl_Client_S_Dn_CN}s"\n', id="rest-of-the-name-any-case"),
        pytest.param('LogFormat "%{ssl_client_s_dn}e" env\n', id="an-environment-variable"),
        pytest.param("RewriteCond %{HTTP:ssl_client_s_dn} ^/C=DE\n", id="a-request-header"),
        pytest.param('Header set X-DN "%{my_ssl_client_s_dn}s"\n', id="a-longer-name"),
        pytest.param("<IfModule !mod_authz_core.c>\nSSLUserName ssl_client_s_dn_CN\n</IfModule>\n", id="dead-branch"),
    ],
)
def test_not_reported(text):
    assert findings(text, "HT221") == []


def test_fix_writes_the_name_as_2_4_reads_it_keeping_the_component_as_written():
    before = ('<Location /a>\n  SSLRequire %{ssl_client_s_dn_CN} eq "Jane" and %{Ssl_Client_i_Dn_O} eq "Ex"\n'
              "</Location>\nSSLUserName ssl_client_s_dn_Email\n")
    after = ('<Location /a>\n  SSLRequire %{SSL_CLIENT_S_DN_CN} eq "Jane" and %{SSL_CLIENT_I_DN_O} eq "Ex"\n'
             "</Location>\nSSLUserName SSL_CLIENT_S_DN_Email\n")
    assert fixed(before, "HT221") == after


def test_migrate_then_keeps_2_2_s_dn_format():
    """Once the name is one 2.4 reads, HT207 sees it: the whole DN needs LegacyDNStringFormat."""
    text = 'LoadModule ssl_module modules/mod_ssl.so\nHeader set X-DN "%{ssl_client_s_dn}s"\n'
    out = migrate(configset(text), select=["HT221", "HT207"]).files["httpd.conf"].decode()
    assert 'SSLOptions +LegacyDNStringFormat\nHeader set X-DN "%{SSL_CLIENT_S_DN}s"\n' in out


@pytest.mark.apache
def test_real_httpd_reads_the_s_i_letter_case_sensitively_and_the_fix_restores_the_values(httpd, tmp_path):
    """What the rule stands on, asked of a live 2.4 over TLS: a lower-case S/I letter names nothing
    (2.2's mod_ssl compared `S_DN` with strcasecmp; 2.4 tests `*var == 'S'`), in a header, a RewriteCond,
    an SSLRequire and a log format; the rest of the name may be in any case. After `migrate`, each
    answers with the value 2.2 gave."""
    from httpd24.apache import Instance

    self_signed(tmp_path, "/O=Example/CN=localhost")
    site = (
        "<VirtualHost 127.0.0.1:${HTTPD24_PORT_2}>\n  SSLEngine on\n"
        f"  SSLCertificateFile {tmp_path}/c.pem\n  SSLCertificateKeyFile {tmp_path}/k.pem\n"
        '  Header always set X-CN "%{ssl_server_s_dn_CN}s"\n'
        '  Header always set X-Any-Case "%{Ssl_Server_S_Dn_CN}s"\n'
        "  RewriteEngine on\n  RewriteCond %{SSL:ssl_server_s_dn_CN} ^localhost$\n"
        "  RewriteRule ^/rewrite$ /matched [R=302]\n"
        '  <Location /required>\n    SSLRequire %{ssl_server_s_dn_CN} eq "localhost"\n  </Location>\n'
        f'  LogFormat "%{{ssl_server_s_dn_CN}}x" cn\n  CustomLog {tmp_path}/cn.log cn\n'
        "</VirtualHost>\n"
    )
    modules = ["ssl_module", "socache_shmcb_module", "headers_module", "authz_core_module", "rewrite_module",
               "log_config_module"]

    def answers(text: str) -> tuple:
        (tmp_path / "cn.log").write_text("")
        with Instance({"site.conf": text}, "site.conf", modules, httpd=httpd, ports=2) as server:
            seen = []
            for path in ("/", "/rewrite", "/required"):
                connection = http.client.HTTPSConnection("127.0.0.1", server.ports[1], timeout=10,
                                                         context=ssl._create_unverified_context())
                connection.request("GET", path)
                response = connection.getresponse()
                seen.append((response.status, response.getheader("X-CN"), response.getheader("X-Any-Case")))
                connection.close()
        return seen, (tmp_path / "cn.log").read_text().split()

    before = answers(site)
    assert before == ([(404, "(null)", "localhost"), (404, "(null)", "localhost"), (403, "(null)", "localhost")],
                      ["-", "-", "-"])
    migrated = fixed(site, "HT221")
    assert migrated.count("SSL_SERVER_S_DN_CN") == 4
    assert answers(migrated) == ([(404, "localhost", "localhost"), (302, "localhost", "localhost"),
                                  (404, "localhost", "localhost")], ["localhost"] * 3)

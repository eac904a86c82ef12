import pytest
from apache_fixture import httpd, self_signed  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest

SSL = ["ssl_module", "socache_shmcb_module", "rewrite_module", "headers_module", "log_config_module"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('SSLRequire %{SSL_CLIENT_S_DN_CN} eq "Jane"\n', id="component-unchanged"),
        pytest.param(
            'SSLOptions +LegacyDNStringFormat\n<Location /a>\nSSLRequire %{SSL_CLIENT_S_DN} eq "/CN=J"\n</Location>\n',
            id="covered-by-server",
        ),
        pytest.param("<IfVersion < 2.3>\nSSLUserName SSL_CLIENT_S_DN\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nSSLUserName SSL_CLIENT_S_DN\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("# SSLUserName SSL_CLIENT_S_DN\n", id="comment"),
        # 2.4's mod_ssl reads the S/I letter case-sensitively: this names no DN variable (HT221 says so).
        pytest.param('Header set X-DN "%{ssl_client_s_dn}s"\n', id="lower-case-s-is-no-variable-in-2.4"),
        pytest.param("RewriteCond %{HTTP:SSL_CLIENT_S_DN} ^/C=DE\n", id="a-request-header"),
        pytest.param('RequestHeader set X-DN "%{MY_SSL_CLIENT_S_DN}e"\n', id="a-longer-name"),
    ],
)
def test_noop(text):
    assert findings(text, "HT207") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            '<Location /a>\n  SSLRequire %{SSL_CLIENT_S_DN} eq "/CN=J"\n  SSLRequire %{SSL_CLIENT_I_DN} eq "/CN=CA"\n</Location>\n',
            '<Location /a>\n  SSLOptions +LegacyDNStringFormat\n  SSLRequire %{SSL_CLIENT_S_DN} eq "/CN=J"\n'
            '  SSLRequire %{SSL_CLIENT_I_DN} eq "/CN=CA"\n</Location>\n',
            id="sslrequire-once-per-section",
        ),
        pytest.param(
            "<VirtualHost *:443>\nRewriteCond %{SSL:SSL_CLIENT_S_DN} !^/C=DE\nRewriteRule ^ - [F]\n</VirtualHost>\n",
            "<VirtualHost *:443>\nSSLOptions +LegacyDNStringFormat\nRewriteCond %{SSL:SSL_CLIENT_S_DN} !^/C=DE\n"
            "RewriteRule ^ - [F]\n</VirtualHost>\n",
            id="rewritecond",
        ),
        pytest.param(
            "SSLOptions StdEnvVars\nSSLUserName SSL_CLIENT_S_DN\n",
            "SSLOptions StdEnvVars\nSSLOptions +LegacyDNStringFormat\nSSLUserName SSL_CLIENT_S_DN\n",
            id="sslusername",
        ),
        pytest.param(
            'RequestHeader set X-DN "%{SSL_SERVER_S_DN}s"\n',
            'SSLOptions +LegacyDNStringFormat\nRequestHeader set X-DN "%{SSL_SERVER_S_DN}s"\n',
            id="header",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT207") == after


def test_every_use_is_reported_at_its_line_and_fixed_once():
    """Only the first use of a section was reported; the others had no finding at their line."""
    text = ('<Location /a>\n  SSLRequire %{SSL_CLIENT_S_DN} eq "/CN=J"\n'
            '  RequestHeader set X-DN "%{SSL_CLIENT_S_DN}s %{SSL_CLIENT_I_DN}s"\n</Location>\n'
            '<Location /b>\n  SSLUserName SSL_CLIENT_I_DN\n</Location>\n')
    found = findings(text, "HT207")
    assert [f.line for f in found] == [2, 3, 6]
    assert "SSL_CLIENT_S_DN and SSL_CLIENT_I_DN" in found[1].message
    assert found[0].fix is found[1].fix and found[2].fix is not found[0].fix
    assert fixed(text, "HT207").count("SSLOptions +LegacyDNStringFormat") == 2


def test_the_rest_of_the_name_may_be_in_any_case():
    """Only the S/I letter must be upper case (the live tests here and for HT221 show both)."""
    assert len(findings('SSLRequire %{Ssl_Client_S_Dn} eq "/CN=J"\n', "HT207")) == 1


def test_severity():
    [access] = findings("SSLUserName SSL_CLIENT_S_DN\n", "HT207")
    [log] = findings('LogFormat "%{SSL_CLIENT_S_DN}x" dn\n', "HT207")
    assert (access.severity.value, log.severity.value) == ("error", "warning")


def test_no_fix_when_mod_ssl_is_loaded_later():
    text = 'LogFormat "%{SSL_CLIENT_S_DN}x" dn\nLoadModule ssl_module modules/mod_ssl.so\n'
    [finding] = findings(text, "HT207")
    assert finding.fix is None


@pytest.mark.apache
def test_real_httpd_accepts_fix(httpd):
    text = (
        "<VirtualHost *:443>\n"
        "  RewriteEngine On\n"
        "  RewriteCond %{SSL:SSL_CLIENT_S_DN} !^/C=DE\n"
        "  RewriteRule ^ - [F]\n"
        '  <Location /a>\n    SSLRequire %{SSL_CLIENT_S_DN} eq "/CN=J"\n  </Location>\n'
        '  CustomLog logs/x "%{SSL_CLIENT_I_DN}x"\n'
        "</VirtualHost>\n"
    )
    after = fixed(text, "HT207")
    assert after.count("SSLOptions +LegacyDNStringFormat") == 2
    result = configtest({"site.conf": after, "logs/.keep": ""}, "site.conf", SSL, httpd=httpd)
    assert result.ok, result.output


@pytest.mark.apache
def test_real_httpd_dn_variables_are_upper_case_and_legacy_format_restores_2_2(httpd, tmp_path):
    """What the rule stands on, asked of a live 2.4 over TLS: the server DN in RFC 2253 form, 2.2's form
    under +LegacyDNStringFormat, and nothing for a lower-case s (2.2's mod_ssl compared `S_DN` with
    strcasecmp, 2.4's tests the letter alone), so HT207 needs that letter in upper case (HT221 the others)."""
    import http.client
    import ssl

    from httpd24.apache import Instance

    self_signed(tmp_path, "/C=DE/O=Example/CN=localhost")
    site = (
        "<VirtualHost 127.0.0.1:${HTTPD24_PORT_2}>\n  SSLEngine on\n"
        f"  SSLCertificateFile {tmp_path}/c.pem\n  SSLCertificateKeyFile {tmp_path}/k.pem\n"
        '  Header always set X-Upper "%{SSL_SERVER_S_DN}s"\n  Header always set X-Lower "%{ssl_server_s_dn}s"\n'
        "  <Location /legacy>\n    SSLOptions +LegacyDNStringFormat\n  </Location>\n</VirtualHost>\n"
    )
    with Instance({"site.conf": site}, "site.conf", ["ssl_module", "socache_shmcb_module", "headers_module",
                                                      "authz_core_module"], httpd=httpd, ports=2) as server:
        seen = {}
        for path in ("/", "/legacy"):
            connection = http.client.HTTPSConnection("127.0.0.1", server.ports[1], timeout=10,
                                                     context=ssl._create_unverified_context())
            connection.request("GET", path)
            response = connection.getresponse()
            seen[path] = (response.getheader("X-Upper"), response.getheader("X-Lower"))
            connection.close()
    assert seen["/"] == ("CN=localhost,O=Example,C=DE", "(null)")
    assert seen["/legacy"] == ("/C=DE/O=Example/CN=localhost", "(null)")

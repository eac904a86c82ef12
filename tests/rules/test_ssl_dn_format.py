import pytest
from apache_fixture import httpd  # noqa: F401
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

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest

MODULES = ["proxy_module", "proxy_scgi_module", "setenvif_module", "rewrite_module"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("ProxyPass /app http://localhost:4000/\n", id="http"),
        pytest.param("ProxyPass /app scgi://h:4000/\nSetEnvIf Request_URI . proxy-scgi-pathinfo\n", id="already"),
        pytest.param(
            "SetEnv proxy-scgi-pathinfo 1\n<VirtualHost *:80>\nProxyPass /a scgi://h:1/\n</VirtualHost>\n",
            id="main-server-covers-vhost",
        ),
        pytest.param("<IfVersion < 2.3>\nProxyPass /app scgi://h:4000/\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nProxyPass /app scgi://h:4000/\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("ProxyPass /app/static !\n", id="exclusion"),
    ],
)
def test_noop(text):
    assert findings(text, "HT209") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "ProxyPass /app scgi://localhost:4000/\nProxyPass /b scgi://localhost:4001/\n",
            "ProxyPass /app scgi://localhost:4000/\nSetEnvIf Request_URI . proxy-scgi-pathinfo\n"
            "ProxyPass /b scgi://localhost:4001/\n",
            id="proxypass-once-per-server",
        ),
        pytest.param(
            "<Location /app>\n    ProxyPass SCGI://localhost:4000/\n</Location>\n",
            "<Location /app>\n    ProxyPass SCGI://localhost:4000/\n    SetEnvIf Request_URI . proxy-scgi-pathinfo\n</Location>\n",
            id="location",
        ),
        pytest.param(
            "RewriteRule ^/app/(.*) scgi://h:1/$1 [P,L]\n",
            "RewriteRule ^/app/(.*) scgi://h:1/$1 [P,L]\nSetEnvIf Request_URI . proxy-scgi-pathinfo\n",
            id="rewrite-proxy",
        ),
        pytest.param(
            "<Proxy balancer://b>\n  BalancerMember scgi://h:1\n</Proxy>\n",
            "<Proxy balancer://b>\n  BalancerMember scgi://h:1\n</Proxy>\nSetEnvIf Request_URI . proxy-scgi-pathinfo\n",
            id="balancer-member",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT209") == after


@pytest.mark.apache
def test_real_httpd_accepts_fix(httpd):
    text = "<VirtualHost *:80>\n  ProxyPass /app scgi://localhost:4000/\n</VirtualHost>\n"
    after = fixed(text, "HT209")
    assert "proxy-scgi-pathinfo" in after
    result = configtest({"site.conf": after}, "site.conf", MODULES, httpd=httpd)
    assert result.ok, result.output

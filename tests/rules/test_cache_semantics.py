import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest


def test_session_identifiers_reported_without_fix():
    [finding] = findings("CacheIgnoreURLSessionIdentifiers sess jsessionid\n", "HT211")
    assert finding.fix is None and "sess, jsessionid" in finding.message
    assert findings("CacheIgnoreURLSessionIdentifiers None\n", "HT211") == []
    assert findings("<IfVersion < 2.3>\nCacheIgnoreURLSessionIdentifiers s\n</IfVersion>\n", "HT211") == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("CacheEnable disk /\n", id="no-forward-proxy"),
        pytest.param("ProxyRequests Off\nCacheEnable disk /\n", id="proxy-off"),
        pytest.param("ProxyRequests On\nCacheEnable disk /\nCacheEnable disk http://\n", id="already"),
        pytest.param("<IfVersion < 2.3>\nProxyRequests On\nCacheEnable disk /\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param(
            "<IfModule !mod_authz_core.c>\nProxyRequests On\nCacheEnable disk /\n</IfModule>\n", id="dead-ifmodule"
        ),
        pytest.param(
            "<VirtualHost a:80>\nProxyRequests On\n</VirtualHost>\n<VirtualHost b:80>\nCacheEnable disk /\n</VirtualHost>\n",
            id="other-vhost",
        ),
    ],
)
def test_noop(text):
    assert findings(text, "HT212") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "ProxyRequests On\nCacheEnable disk /\n",
            "ProxyRequests On\nCacheEnable disk /\nCacheEnable disk http://\n",
            id="main",
        ),
        pytest.param(
            "LoadModule proxy_ftp_module m.so\n<VirtualHost *:3128>\n  ProxyRequests On\n  CacheEnable mem /\n</VirtualHost>\n",
            "LoadModule proxy_ftp_module m.so\n<VirtualHost *:3128>\n  ProxyRequests On\n  CacheEnable mem /\n"
            "  CacheEnable mem http://\n  CacheEnable mem ftp://\n</VirtualHost>\n",
            id="vhost-with-ftp",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT212") == after


def test_longer_path_needs_a_person():
    [finding] = findings("ProxyRequests On\nCacheEnable disk /images\n", "HT212")
    assert finding.fix is None


@pytest.mark.apache
def test_real_httpd_accepts_fix(httpd):
    text = "ProxyRequests On\nCacheEnable disk /\nCacheRoot cache\n"
    after = fixed(text, "HT212")
    modules = ["proxy_module", "proxy_http_module", "cache_module", "cache_disk_module"]
    result = configtest({"site.conf": after, "cache/.keep": ""}, "site.conf", modules, httpd=httpd)
    assert result.ok, result.output

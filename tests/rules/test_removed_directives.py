import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity

MCACHE = ["MCacheSize 4096", "MCacheMaxObjectCount 100", "MCacheMaxObjectSize 2048", "MCacheMinObjectSize 1",
          "MCacheMaxStreamingBuffer 65536", "MCacheRemovalAlgorithm GDSF"]


@pytest.mark.parametrize(
    ("code", "text"),
    [
        pytest.param("HT115", "<IfModule mod_mem_cache.c>\nMCacheSize 4096\n</IfModule>\n", id="mem-cache-in-ifmodule"),
        pytest.param("HT115", "<IfModule !mod_authz_core.c>\nMCacheSize 4096\n</IfModule>\n", id="mem-cache-dead"),
        pytest.param("HT115", "<IfVersion < 2.3>\nMCacheSize 4096\n</IfVersion>\n", id="mem-cache-dead-version"),
        pytest.param("HT115", "CacheEnable disk /\n", id="disk-cache"),
        pytest.param("HT116", "<IfVersion < 2.3>\nCookieLog logs/c\n</IfVersion>\n", id="cookielog-dead"),
        pytest.param("HT116", "<IfModule !mod_authz_core.c>\nCookieLog logs/c\n</IfModule>\n", id="cookielog-dead-mod"),
        pytest.param("HT116", "CustomLog logs/c common\n", id="customlog"),
        pytest.param("HT117", "<IfVersion < 2.3>\nSSIAccessEnable on\n</IfVersion>\n", id="ssi-dead"),
        pytest.param("HT117", "<IfModule !mod_authz_core.c>\nSSIAccessEnable on\n</IfModule>\n", id="ssi-dead-mod"),
        pytest.param("HT118", "<IfModule !mod_authz_core.c>\nWin32DisableAcceptEx\n</IfModule>\n", id="win32-dead"),
        pytest.param("HT118", "<IfVersion < 2.3>\nWin32DisableAcceptEx\n</IfVersion>\n", id="win32-dead-version"),
        pytest.param("HT119", "<IfModule mpm_beos_module>\nMaxRequestsPerThread 10000\n</IfModule>\n", id="beos"),
        pytest.param("HT119", "<IfVersion < 2.3>\nMaxRequestsPerThread 10000\n</IfVersion>\n", id="beos-dead"),
        pytest.param("HT119", "<IfModule !mod_authz_core.c>\nMaxRequestsPerThread 1\n</IfModule>\n", id="beos-dead-mod"),
    ],
)
def test_noop(code, text):
    assert findings(text, code) == []


@pytest.mark.parametrize("line", MCACHE)
def test_mem_cache_directive_is_an_error_without_fix(line):
    [finding] = findings(line + "\n", "HT115")
    assert finding.severity == Severity.ERROR and finding.fix is None
    assert "mod_cache_disk" in finding.message and "mod_cache_socache" in finding.message
    assert fixed(line + "\n", "HT115") == line + "\n"


def test_max_requests_per_thread_needs_a_person():
    [finding] = findings("MaxRequestsPerThread 10000\n", "HT119")
    assert finding.fix is None and "MaxConnectionsPerChild" in finding.message


@pytest.mark.parametrize(
    ("code", "before", "after"),
    [
        pytest.param("HT116", "CookieLog logs/cookies\n", 'CustomLog logs/cookies "%{Cookie}n \\"%r\\" %t"\n',
                     id="cookielog"),
        pytest.param("HT116", '<VirtualHost *:80>\r\n  CookieLog "logs/my cookies"\r\n</VirtualHost>\r\n',
                     '<VirtualHost *:80>\r\n  CustomLog "logs/my cookies" "%{Cookie}n \\"%r\\" %t"\r\n</VirtualHost>\r\n',
                     id="cookielog-quoted-crlf"),
        pytest.param("HT117", "<Directory /srv>\n  SSIAccessEnable on\n  Options +Includes\n</Directory>\n",
                     "<Directory /srv>\n  Options +Includes\n</Directory>\n", id="ssi-on"),
        pytest.param("HT117", "SSIAccessEnable off\n", "", id="ssi-off"),
        # Read only where 2.2 ran on Windows (elsewhere 2.2 refused it): AcceptFilter ... none would also
        # turn off Linux's default accept filters, so outside mpm_winnt's block it stays with mpm_winnt.
        pytest.param("HT118", "Win32DisableAcceptEx\n",
                     "<IfModule mpm_winnt_module>\n    AcceptFilter http none\n    AcceptFilter https none\n"
                     "</IfModule>\n", id="win32"),
        pytest.param("HT118", "<IfModule mpm_winnt.c>\n  Win32DisableAcceptEx\n</IfModule>\n",
                     "<IfModule mpm_winnt.c>\n  AcceptFilter http none\n  AcceptFilter https none\n</IfModule>\n",
                     id="win32-in-22-block"),
        pytest.param("HT118", "<IfModule mpm_winnt_module>\r\n    Win32DisableAcceptEx\r\n</IfModule>\r\n",
                     "<IfModule mpm_winnt_module>\r\n    AcceptFilter http none\r\n    AcceptFilter https none\r\n"
                     "</IfModule>\r\n", id="win32-crlf-indented"),
    ],
)
def test_fix(code, before, after):
    assert fixed(before, code) == after


def test_ssi_off_message_says_what_changes():
    [finding] = findings("SSIAccessEnable off\n", "HT117")
    assert "-A" in finding.message and "Off" in finding.message
    assert finding.fix.applicability == Applicability.SAFE


@pytest.mark.apache
@pytest.mark.parametrize(
    ("code", "text", "modules"),
    [
        pytest.param("HT116", "CookieLog logs/cookies\n", ["mpm_event_module", "log_config_module"],
                     id="cookielog"),
        pytest.param("HT117", "<Directory /srv>\n    SSIAccessEnable on\n</Directory>\n",
                     ["mpm_event_module", "include_module"], id="ssi"),
        pytest.param("HT118", "Win32DisableAcceptEx\n", ["mpm_event_module"], id="win32"),
    ],
)
def test_real_httpd_refuses_original_accepts_fix(httpd, code, text, modules):
    files = {"r.conf": text, "logs/.keep": ""}
    before = configtest(files, "r.conf", modules, httpd=httpd)
    assert not before.ok and "Invalid command" in before.output, before.output
    after = configtest({**files, "r.conf": fixed(text, code)}, "r.conf", modules, httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
def test_real_httpd_refuses_mem_cache(httpd):
    result = configtest({"m.conf": "\n".join(MCACHE) + "\n"}, "m.conf", ["mpm_event_module", "cache_module"],
                        httpd=httpd)
    assert not result.ok and "MCacheSize" in result.output


@pytest.mark.parametrize(
    ("code", "text"),
    [
        pytest.param("HT114", "RewriteLogLevel ${LEVEL}\n", id="rewriteloglevel-variable"),
        pytest.param("HT107", "DumpIOLogLevel ${LEVEL}\n", id="dumpio-variable"),
        pytest.param("HT107", "DumpIOLogLevel loud\n", id="dumpio-bad-level"),
        pytest.param("HT110", "LockFile\n", id="lockfile-no-arg"),
        pytest.param("HT111", "RewriteLock a b\n", id="rewritelock-two-args"),
        pytest.param("HT112", "SSLMutex\n", id="sslmutex-no-arg"),
        pytest.param("HT116", "CookieLog\n", id="cookielog-no-arg"),
    ],
)
def test_refused_directive_with_unreadable_value_is_still_reported(code, text):
    [finding] = findings(text, code)
    assert finding.severity == Severity.ERROR and finding.fix is None
    assert "start-up fails" in finding.message


@pytest.mark.apache
def test_real_httpd_refuses_max_requests_per_thread(httpd):
    result = configtest({"t.conf": "MaxRequestsPerThread 10000\n"}, "t.conf", ["mpm_worker_module"], httpd=httpd)
    assert not result.ok and "MaxRequestsPerThread" in result.output

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import Instance, configtest, request
from httpd24.engine import Applicability, migrate


@pytest.mark.parametrize(
    ("code", "text"),
    [
        pytest.param("HT114", "LogLevel rewrite:trace3\n", id="already-2.4"),
        pytest.param("HT114", "<IfVersion < 2.3>\nRewriteLogLevel 3\n</IfVersion>\n", id="level-dead-ifversion"),
        pytest.param("HT114", "<IfModule !mod_authz_core.c>\nRewriteLogLevel 3\n</IfModule>\n", id="level-dead-mod"),
        pytest.param("HT113", "<IfVersion < 2.3>\nRewriteLog logs/rw\n</IfVersion>\n", id="log-dead-ifversion"),
        pytest.param("HT113", "<IfModule !mod_authz_core.c>\nRewriteLog logs/rw\n</IfModule>\n", id="log-dead-mod"),
        pytest.param("HT113", "RewriteEngine On\n", id="other"),
    ],
)
def test_noop(code, text):
    assert findings(text, code) == []


FIXES = [
    pytest.param("RewriteLog logs/rewrite_log\nRewriteLogLevel 3\n", "LogLevel rewrite:trace3\n", id="pair"),
    pytest.param("RewriteLogLevel 9\r\nRewriteLog logs/rw\r\n", "LogLevel rewrite:trace8\r\n", id="nine-crlf"),
    pytest.param("RewriteLogLevel 1\nRewriteLog logs/rw\n", "LogLevel rewrite:trace1\n", id="one"),
    pytest.param("RewriteLog logs/rw\nRewriteLogLevel 0\n", "", id="zero"),
    pytest.param("RewriteLog logs/rw\nServerName x\n", "ServerName x\n", id="log-without-level"),
    pytest.param("RewriteLogLevel 4\nServerName x\n", "ServerName x\n", id="level-without-log"),
    pytest.param(
        "LogLevel warn\nRewriteLogLevel 2\nRewriteLog logs/rw\nLogLevel info\n",
        "LogLevel warn\nLogLevel info rewrite:trace2\n",
        id="later-loglevel-would-reset",
    ),
    pytest.param(
        "<IfModule mod_rewrite.c>\n    RewriteLog logs/rw\n    RewriteLogLevel 5\n</IfModule>\n",
        "<IfModule mod_rewrite.c>\n    LogLevel rewrite:trace5\n</IfModule>\n",
        id="in-ifmodule",
    ),
    # 2.2's mod_rewrite (config_server_merge) gives a virtual host the main server's RewriteLog and
    # RewriteLogLevel only under RewriteOptions Inherit, its own or (2.2.22+) the main server's:
    # without it the level or the file alone logged nothing.
    pytest.param(
        "RewriteLogLevel 2\n<VirtualHost *:80>\n  RewriteEngine On\n  RewriteLog logs/vh\n</VirtualHost>\n",
        "<VirtualHost *:80>\n  RewriteEngine On\n</VirtualHost>\n",
        id="vhost-log-main-level",
    ),
    pytest.param(
        "RewriteLog logs/rw\n<VirtualHost *:80>\n  RewriteLogLevel 3\n</VirtualHost>\n",
        "<VirtualHost *:80>\n</VirtualHost>\n",
        id="main-log-vhost-level",
    ),
    pytest.param(
        "RewriteLogLevel 2\n<VirtualHost *:80>\n  RewriteOptions Inherit\n  RewriteLog logs/vh\n</VirtualHost>\n",
        "<VirtualHost *:80>\n  RewriteOptions Inherit\n  LogLevel rewrite:trace2\n</VirtualHost>\n",
        id="vhost-log-main-level-inherit",
    ),
    pytest.param(
        "RewriteLog logs/rw\n<VirtualHost *:80>\n  RewriteOptions inherit\n  RewriteLogLevel 3\n</VirtualHost>\n",
        "<VirtualHost *:80>\n  RewriteOptions inherit\n  LogLevel rewrite:trace3\n</VirtualHost>\n",
        id="main-log-vhost-level-inherit",
    ),
    pytest.param(
        "RewriteOptions Inherit\nRewriteLog logs/rw\n<VirtualHost *:80>\n  RewriteLogLevel 3\n</VirtualHost>\n",
        "RewriteOptions Inherit\n<VirtualHost *:80>\n  LogLevel rewrite:trace3\n</VirtualHost>\n",
        id="main-inherit-option-reaches-the-vhost",
    ),
    # The main server's trace would reach every virtual host in 2.4 (LogLevel is inherited):
    # those that did not inherit it in 2.2 keep mod_rewrite at the level they logged it at.
    pytest.param(
        "RewriteLog logs/rw\nRewriteLogLevel 3\n<VirtualHost *:80>\n  ServerName a\n</VirtualHost>\n",
        "LogLevel rewrite:trace3\n<VirtualHost *:80>\n  ServerName a\n  LogLevel rewrite:warn\n</VirtualHost>\n",
        id="main-trace-kept-out-of-vhost",
    ),
    pytest.param(
        "LogLevel info\nRewriteLog logs/rw\nRewriteLogLevel 3\n<VirtualHost *:80>\n</VirtualHost>\n",
        "LogLevel info\nLogLevel rewrite:trace3\n<VirtualHost *:80>\n    LogLevel rewrite:info\n</VirtualHost>\n",
        id="main-trace-kept-out-at-the-main-level",
    ),
    pytest.param(
        "<IfModule mod_rewrite.c>\n  RewriteLog logs/rw\n  RewriteLogLevel 3\n</IfModule>\n<VirtualHost *:80>\n</VirtualHost>\n",
        "<IfModule mod_rewrite.c>\n  LogLevel rewrite:trace3\n</IfModule>\n<VirtualHost *:80>\n"
        "  <IfModule mod_rewrite.c>\n    LogLevel rewrite:warn\n  </IfModule>\n</VirtualHost>\n",
        id="vhost-level-only-where-the-module-is",  # LogLevel rewrite: without mod_rewrite stops 2.4
    ),
    pytest.param(
        "RewriteLog logs/rw\nRewriteLogLevel 3\n<VirtualHost *:80>\n  RewriteLog logs/vh\n</VirtualHost>\n",
        "LogLevel rewrite:trace3\n<VirtualHost *:80>\n  LogLevel rewrite:warn\n</VirtualHost>\n",
        id="main-trace-kept-out-of-vhost-with-its-own-file-at-level-0",
    ),
    pytest.param(
        "RewriteLog logs/rw\nRewriteLogLevel 3\n<VirtualHost *:80>\n  RewriteOptions Inherit\n</VirtualHost>\n",
        "LogLevel rewrite:trace3\n<VirtualHost *:80>\n  RewriteOptions Inherit\n</VirtualHost>\n",
        id="main-trace-inherited",
    ),
    pytest.param(
        "RewriteLog logs/rw\nRewriteLogLevel 3\n<VirtualHost *:80>\n  LogLevel notice\n</VirtualHost>\n",
        "LogLevel rewrite:trace3\n<VirtualHost *:80>\n  LogLevel notice\n</VirtualHost>\n",
        id="vhost-plain-level-resets-anyway",
    ),
]


@pytest.mark.parametrize(("before", "after"), FIXES)
def test_fix(before, after):
    assert fixed(before, "HT11") == after


@pytest.mark.parametrize(("before", "after"), FIXES)
@pytest.mark.parametrize("first", ["HT113", "HT114"])
def test_either_rule_first_gives_the_same_result(before, after, first):
    """Each rule's fix carries what the other's lines then need: applied one rule at a time, in either
    order, the trace ends where both together put it."""
    second = "HT114" if first == "HT113" else "HT113"
    assert fixed(fixed(before, first), second) == after


def test_messages_and_applicability():
    log, level = findings("RewriteLog logs/rewrite_log\nRewriteLogLevel 3\n", "HT11")
    assert log.code == "HT113" and "ErrorLog" in log.message
    assert "logs/rewrite_log" in log.message and "no longer" in log.message
    assert log.fix.applicability == Applicability.PRESERVE
    assert level.code == "HT114" and level.replacement == "LogLevel rewrite:trace3"
    assert level.fix.applicability == Applicability.PRESERVE
    [zero] = findings("RewriteLogLevel 0\n", "HT114")
    assert zero.fix.applicability == Applicability.SAFE


def test_safe_only_migration_keeps_the_trace_pair_together():
    text = "RewriteLog logs/rw\nRewriteLogLevel 3\n"
    assert fixed(text, "HT11", applicability=Applicability.SAFE) == text


@pytest.mark.parametrize(
    ("code", "after"),
    [
        pytest.param("HT113", "LogLevel rewrite:trace3\n", id="rewritelog-fix-converts-the-level-too"),
        pytest.param("HT114", "RewriteLog logs/rw\nLogLevel rewrite:trace3\n", id="level-alone"),
    ],
)
def test_either_rule_alone_keeps_the_trace(code, after):
    # Removing the RewriteLog first must not turn the level into one that "logged nothing".
    assert fixed("RewriteLog logs/rw\nRewriteLogLevel 3\n", code) == after


@pytest.mark.apache
def test_real_httpd_refuses_original_accepts_fix(httpd):
    text = (
        "LogLevel warn\n"
        "RewriteEngine On\n"
        "RewriteLog logs/rewrite_log\n"
        "RewriteLogLevel 9\n"
        "<VirtualHost *:80>\n"
        "    RewriteEngine On\n"
        "    RewriteLogLevel 2\n"
        "</VirtualHost>\n"
    )
    modules = ["mpm_event_module", "rewrite_module"]
    files = {"rw.conf": text, "logs/.keep": ""}
    before = configtest(files, "rw.conf", modules, httpd=httpd)
    assert not before.ok and "RewriteLog" in before.output
    out = fixed(text, "HT11")
    # The virtual host had no RewriteLog (no Inherit): its level logged nothing in 2.2.
    assert "LogLevel rewrite:trace8" in out and "trace2" not in out and "LogLevel rewrite:warn" in out
    after = configtest({**files, "rw.conf": out}, "rw.conf", modules, httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
def test_real_httpd_traces_where_2_2_did_and_nowhere_else(httpd):
    """2.2 traced the main server's requests only: a virtual host without RewriteOptions Inherit had no
    rewrite log. The migrated configuration, run on apache2, traces requests to the main server and none to
    the virtual host (which, unmigrated, would inherit the main server's LogLevel rewrite:trace3)."""
    text = (
        "RewriteEngine On\n"
        "RewriteRule ^/main$ /index.html\n"
        "RewriteLog logs/rewrite_log\n"
        "RewriteLogLevel 3\n"
        "<VirtualHost 127.0.0.1:${HTTPD24_PORT_2}>\n"
        "    RewriteEngine On\n"
        "    RewriteRule ^/vhost$ /index.html\n"
        "</VirtualHost>\n"
    )
    out = fixed(text, "HT11")
    with Instance({"rw.conf": out}, "rw.conf", ["rewrite_module"], httpd=httpd, ports=2) as server:
        request(server.ports[0], "/main")
        request(server.ports[1], "/vhost")
        log = server.error_log()
    traced = [line for line in log.splitlines() if "rewrite:trace3" in line]
    assert any("/main" in line for line in traced), log
    assert not any("/vhost" in line for line in traced), log


@pytest.mark.parametrize("code", ["HT113", "HT114"])
def test_what_a_virtual_host_gets_is_in_the_fixed_finding(code):
    # The fix wrote `LogLevel rewrite:warn` into a virtual host of another file, and nothing in the summary
    # said so: the applied finding named httpd.conf and `LogLevel rewrite:trace3` only.
    files = {"httpd.conf": "RewriteLog logs/rw\nRewriteLogLevel 3\nInclude sites/*.conf\n",
             "sites/a.conf": "# a site\n<VirtualHost *:80>\n</VirtualHost>\n"}
    migration = migrate(configset(files), select=[code])
    assert migration.files["sites/a.conf"] == b"# a site\n<VirtualHost *:80>\n    LogLevel rewrite:warn\n</VirtualHost>\n"
    [applied] = [f for f in migration.applied if f.code == code]
    assert "LogLevel rewrite:warn in <VirtualHost *:80> at sites/a.conf:2" in applied.replacement

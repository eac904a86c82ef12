import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability


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


@pytest.mark.parametrize(
    ("before", "after"),
    [
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
        pytest.param(
            "RewriteLogLevel 2\n<VirtualHost *:80>\n  RewriteEngine On\n  RewriteLog logs/vh\n</VirtualHost>\n",
            "LogLevel rewrite:trace2\n<VirtualHost *:80>\n  RewriteEngine On\n</VirtualHost>\n",
            id="vhost-log-main-level",
        ),
        pytest.param(
            "RewriteLog logs/rw\n<VirtualHost *:80>\n  RewriteLogLevel 3\n</VirtualHost>\n",
            "<VirtualHost *:80>\n  LogLevel rewrite:trace3\n</VirtualHost>\n",
            id="main-log-vhost-level",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT11") == after


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
    assert "LogLevel rewrite:trace8" in out and "LogLevel rewrite:trace2" in out
    after = configtest({**files, "rw.conf": out}, "rw.conf", modules, httpd=httpd)
    assert after.ok, after.output

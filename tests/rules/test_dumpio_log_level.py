import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("LogLevel dumpio:trace7\n", id="already-2.4"),
        pytest.param("<IfVersion < 2.3>\nDumpIOLogLevel debug\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nDumpIOLogLevel debug\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("# DumpIOLogLevel debug\n", id="comment"),
    ],
)
def test_noop(text):
    assert findings(text, "HT107") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("LogLevel debug\nDumpIOInput On\nDumpIOLogLevel debug\n",
                     "LogLevel debug\nDumpIOInput On\nLogLevel dumpio:trace7\n", id="logged"),
        pytest.param("DumpIOLogLevel error\r\nDumpIOOutput On\r\n", "LogLevel dumpio:trace7\r\nDumpIOOutput On\r\n",
                     id="above-default-warn-crlf"),
        pytest.param("DumpIOInput On\nDumpIOLogLevel debug\n", "DumpIOInput On\n", id="filtered-out-by-default-warn"),
        pytest.param("LogLevel notice\nDumpIOLogLevel info\n", "LogLevel notice\n", id="filtered-out"),
        pytest.param("DumpIOLogLevel crit\nLogLevel warn\n", "LogLevel warn dumpio:trace7\n",
                     id="later-loglevel-would-reset"),
        pytest.param(
            "<IfModule mod_dumpio.c>\n    DumpIOLogLevel emerg\n</IfModule>\nLogLevel error\n",
            "<IfModule mod_dumpio.c>\n</IfModule>\nLogLevel error\n<IfModule mod_dumpio.c>\n"
            "    LogLevel dumpio:trace7\n</IfModule>\n",
            id="later-loglevel-outside-ifmodule",
        ),
        pytest.param(
            "LogLevel debug\n<VirtualHost *:80>\n  LogLevel warn\n  DumpIOLogLevel debug\n</VirtualHost>\n",
            "LogLevel debug\n<VirtualHost *:80>\n  LogLevel warn\n</VirtualHost>\n",
            id="vhost-own-level",
        ),
        pytest.param(
            "LogLevel debug\n<VirtualHost *:80>\n  DumpIOLogLevel debug\n</VirtualHost>\n",
            "LogLevel debug\n<VirtualHost *:80>\n  LogLevel dumpio:trace7\n</VirtualHost>\n",
            id="vhost-inherits-main-level",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT107") == after


def test_applicability():
    [kept] = findings("LogLevel debug\nDumpIOLogLevel debug\n", "HT107")
    assert kept.severity == Severity.ERROR and kept.fix.applicability == Applicability.PRESERVE
    assert kept.replacement == "LogLevel dumpio:trace7"
    [dropped] = findings("DumpIOLogLevel debug\n", "HT107")
    assert dropped.fix.applicability == Applicability.SAFE
    # only safe fixes: the preserve one is left for a person
    assert fixed("LogLevel debug\nDumpIOLogLevel debug\n", "HT107", applicability=Applicability.SAFE) == (
        "LogLevel debug\nDumpIOLogLevel debug\n"
    )


@pytest.mark.apache
def test_real_httpd_refuses_original_accepts_fix(httpd):
    text = "LogLevel debug\nDumpIOInput On\nDumpIOOutput On\nDumpIOLogLevel debug\n"
    modules = ["mpm_event_module", "dumpio_module"]
    before = configtest({"d.conf": text}, "d.conf", modules, httpd=httpd)
    assert not before.ok and "DumpIOLogLevel" in before.output
    out = fixed(text, "HT107")
    assert "LogLevel dumpio:trace7" in out
    after = configtest({"d.conf": out}, "d.conf", modules, httpd=httpd)
    assert after.ok, after.output

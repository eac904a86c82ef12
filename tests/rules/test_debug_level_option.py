import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("CharsetOptions ImplicitAdd\n", id="charset-no-debug"),
        pytest.param("ExtFilterOptions LogStderr\n", id="extfilter-no-debug"),
        pytest.param("<IfVersion < 2.3>\nCharsetOptions DebugLevel=4\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nExtFilterOptions DebugLevel=1\n</IfModule>\n",
                     id="dead-ifmodule"),
        pytest.param("SetEnv DebugLevel=4\n", id="other-directive"),
    ],
)
def test_noop(text):
    assert findings(text, "HT108") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("CharsetOptions ImplicitAdd DebugLevel=4\n", "CharsetOptions ImplicitAdd\n", id="charset-keep"),
        pytest.param("CharsetOptions debuglevel=0 NoImplicitAdd TranslateAllMimeTypes\n",
                     "CharsetOptions NoImplicitAdd TranslateAllMimeTypes\n", id="charset-first-lowercase"),
        pytest.param("<Directory /srv>\r\n\tExtFilterOptions DebugLevel=1 LogStderr\r\n</Directory>\r\n",
                     "<Directory /srv>\r\n\tExtFilterOptions LogStderr\r\n</Directory>\r\n", id="extfilter-crlf"),
        pytest.param("<Directory /srv>\n  ExtFilterOptions DebugLevel=1\n  Options None\n</Directory>\n",
                     "<Directory /srv>\n  Options None\n</Directory>\n", id="only-option"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT108") == after


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        pytest.param("CharsetOptions DebugLevel=4\n", "LogLevel charset_lite:trace1", id="charset"),
        pytest.param("ExtFilterOptions DebugLevel=1\n", "LogLevel ext_filter:debug", id="extfilter"),
    ],
)
def test_message_suggests_loglevel(text, suggestion):
    [finding] = findings(text, "HT108")
    assert suggestion in finding.message
    assert finding.fix.applicability == Applicability.SAFE


def test_level_zero_needs_no_loglevel():
    [finding] = findings("CharsetOptions DebugLevel=0 ImplicitAdd\n", "HT108")
    assert "LogLevel" not in finding.message


@pytest.mark.apache
@pytest.mark.parametrize(
    ("text", "module"),
    [
        pytest.param("<Directory /srv>\n    CharsetOptions ImplicitAdd DebugLevel=4\n</Directory>\n",
                     "charset_lite_module", id="charset"),
        pytest.param("<Directory /srv>\n    ExtFilterOptions DebugLevel=1 LogStderr\n</Directory>\n",
                     "ext_filter_module", id="extfilter"),
    ],
)
def test_real_httpd_refuses_original_accepts_fix(httpd, text, module):
    modules = ["mpm_event_module", module]
    before = configtest({"c.conf": text}, "c.conf", modules, httpd=httpd)
    assert not before.ok and "DebugLevel" in before.output, before.output
    after = configtest({"c.conf": fixed(text, "HT108")}, "c.conf", modules, httpd=httpd)
    assert after.ok, after.output

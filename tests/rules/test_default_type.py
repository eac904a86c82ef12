import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("ForceType text/plain\n", id="forcetype"),
        pytest.param("<IfVersion < 2.3>\nDefaultType text/plain\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nDefaultType text/plain\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("# DefaultType text/plain\n", id="comment"),
    ],
)
def test_noop(text):
    assert findings(text, "HT105") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("DefaultType text/plain\nServerName x\n", "ServerName x\n", id="plain"),
        pytest.param("<Directory /srv>\r\n  DefaultType application/octet-stream\r\n  Options None\r\n</Directory>\r\n",
                     "<Directory /srv>\r\n  Options None\r\n</Directory>\r\n", id="crlf-directory"),
        pytest.param("DefaultType None\n", "", id="none"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT105") == after


def test_real_type_is_a_warning_that_suggests_forcetype():
    [finding] = findings("DefaultType text/plain\n", "HT105")
    assert finding.severity == Severity.WARNING
    assert "ForceType text/plain" in finding.message and "AddType" in finding.message
    assert finding.fix.applicability == Applicability.SAFE


def test_none_is_only_info():
    [finding] = findings("DefaultType none\n", "HT105")
    assert finding.severity == Severity.INFO


@pytest.mark.apache
def test_real_httpd_warns_on_original_and_not_on_fix(httpd):
    text = "<Directory /srv>\n    DefaultType text/plain\n</Directory>\n"
    before = configtest({"t.conf": text}, "t.conf", ["mpm_event_module"], httpd=httpd)
    assert "AH00117" in before.output
    after = configtest({"t.conf": fixed(text, "HT105")}, "t.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok and "AH00117" not in after.output, after.output

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("KeepAlive On\n", id="on"),
        pytest.param("KeepAlive off\n", id="off-lower"),
        pytest.param("KeepAlive OFF\n", id="off-upper"),
        pytest.param("<IfVersion < 2.3>\nKeepAlive 15\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nKeepAlive 0\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("# KeepAlive 0\n", id="comment"),
        pytest.param("KeepAliveTimeout 0\n", id="other-directive"),
        pytest.param("Define KA 1\nKeepAlive ${UNDEFINED_KA}\n", id="unresolved-variable"),
    ],
)
def test_noop(text):
    assert findings(text, "HT120") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("KeepAlive 0\n", "KeepAlive Off\n", id="zero"),
        pytest.param("KeepAlive 15\n", "KeepAlive On\n", id="number"),
        pytest.param("KeepAlive 00\n", "KeepAlive On\n", id="double-zero-was-on"),
        pytest.param("KeepAlive false\n", "KeepAlive On\n", id="false-was-on"),
        pytest.param("KeepAlive yes\n", "KeepAlive On\n", id="yes"),
        pytest.param('KeepAlive "0"\n', "KeepAlive Off\n", id="quoted"),
        pytest.param("<VirtualHost *:80>\r\n\tKeepAlive 1\r\n</VirtualHost>\r\n",
                     "<VirtualHost *:80>\r\n\tKeepAlive On\r\n</VirtualHost>\r\n", id="crlf-tab"),
        pytest.param("KeepAlive 0", "KeepAlive Off", id="no-final-newline"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT120") == after


def test_finding():
    [finding] = findings("ServerName x\nKeepAlive false\n", "HT120")
    assert (finding.line, finding.severity, finding.replacement) == (2, Severity.ERROR, "KeepAlive On")
    assert finding.fix.applicability == Applicability.SAFE
    assert "only Off and 0" in finding.message


@pytest.mark.apache
@pytest.mark.parametrize("value", ["0", "15", "false"])
def test_real_httpd_refuses_original_accepts_fix(httpd, value):
    text = f"KeepAlive {value}\nKeepAliveTimeout 5\n"
    before = configtest({"ka.conf": text}, "ka.conf", ["mpm_event_module"], httpd=httpd)
    assert not before.ok and "KeepAlive must be On or Off" in before.output
    after = configtest({"ka.conf": fixed(text, "HT120")}, "ka.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok, after.output

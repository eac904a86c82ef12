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
        pytest.param("Define KA On\nKeepAlive ${KA}\n", id="defined-variable"),
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
        pytest.param('KeepAlive "0"\n', 'KeepAlive "Off"\n', id="quoted"),
        pytest.param('Timeout 5\n  keepalive   "yes"  \n', 'Timeout 5\n  keepalive   "On"  \n', id="only-the-value-changes"),
        pytest.param("<VirtualHost *:80>\r\n\tKeepAlive 1\r\n</VirtualHost>\r\n",
                     "<VirtualHost *:80>\r\n\tKeepAlive On\r\n</VirtualHost>\r\n", id="crlf-tab"),
        pytest.param("KeepAlive 0", "KeepAlive Off", id="no-final-newline"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT120") == after


def test_variable_value_needs_a_person():
    """`KeepAlive ${KA}`: the value decides, and 2.4 refuses a number 2.2 took (`KeepAlive 5`)."""
    [finding] = findings("KeepAlive ${KA}\n", "HT120")
    assert finding.fix is None and finding.severity == Severity.WARNING
    assert "${KA}" in finding.message


def test_finding():
    [finding] = findings("ServerName x\nKeepAlive false\n", "HT120")
    assert (finding.line, finding.severity, finding.replacement) == (2, Severity.ERROR, "KeepAlive On")
    assert finding.fix.applicability == Applicability.SAFE
    assert "only Off and 0" in finding.message


@pytest.mark.apache
@pytest.mark.parametrize("value", ["0", "15", "false", '  "yes"'])
def test_real_httpd_refuses_original_accepts_fix(httpd, value):
    text = f"KeepAlive {value}\nKeepAliveTimeout 5\n"
    before = configtest({"ka.conf": text}, "ka.conf", ["mpm_event_module"], httpd=httpd)
    assert not before.ok and "KeepAlive must be On or Off" in before.output
    after = configtest({"ka.conf": fixed(text, "HT120")}, "ka.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
def test_real_httpd_refuses_a_number_from_a_variable(httpd):
    """The variable's value decides: 2.4 refuses `KeepAlive ${KA}` with KA=5 (2.2 read it as On)."""
    text = "KeepAlive ${KA}\n"
    assert findings(text, "HT120")
    assert not configtest({"a.conf": text}, "a.conf", [], httpd=httpd, extra="Define KA 5").ok
    assert configtest({"a.conf": text}, "a.conf", [], httpd=httpd, extra="Define KA On").ok

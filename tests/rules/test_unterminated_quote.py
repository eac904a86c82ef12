import pytest
from ruletest import configset, findings, fixed



@pytest.mark.parametrize(
    "text",
    [
        pytest.param('ErrorDocument 404 "Sorry"\n', id="closed"),
        pytest.param("ErrorDocument 404 /missing.html\n", id="no-quote"),
        pytest.param('<IfVersion < 2.3>\nErrorDocument 404 "Sorry\n</IfVersion>\n', id="dead-branch"),
    ],
)
def test_noop(text):
    assert findings(text, "HT001") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param('ErrorDocument 404 "Sorry, not here\n', 'ErrorDocument 404 "Sorry, not here"\n', id="message"),
        pytest.param('  ErrorDocument 500 "a \\"b\\" c\r\n', '  ErrorDocument 500 "a \\"b\\" c"\r\n', id="escapes-crlf-indent"),
        pytest.param("Header set X 'abc\n", 'Header set X "abc"\n', id="single-quote"),
    ],
)
def test_fix_keeps_the_value_httpd_reads(before, after):
    out = fixed("A b\n" + before, "HT001")
    assert out == "A b\n" + after
    original = [i.args for i in configset("A b\n" + before).view().items][1]
    migrated = [i.args for i in configset(out).view().items][1]
    assert migrated == original


def test_location():
    [finding] = findings('A b\n\nErrorDocument 404 "x\n', "HT001")
    assert (finding.line, finding.column) == (3, 1)

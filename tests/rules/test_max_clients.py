import pytest
from ruletest import findings, fixed


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("MaxRequestWorkers 150\n", id="already-2.4"),
        pytest.param("<IfVersion < 2.3>\nMaxClients 150\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nMaxClients 150\n</IfModule>\n", id="dead-ifmodule-branch"),
        pytest.param("# MaxClients 150\n", id="comment"),
    ],
)
def test_noop(text):
    assert findings(text, "HT101") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("MaxClients 150\n", "MaxRequestWorkers 150\n", id="plain"),
        pytest.param("A b\r\n  maxclients   150 # x\r\n", "A b\r\n  MaxRequestWorkers   150 # x\r\n", id="case-crlf-spacing"),
        pytest.param(
            "<IfModule mpm_prefork_module>\n    MaxClients 150\n</IfModule>\n",
            "<IfModule mpm_prefork_module>\n    MaxRequestWorkers 150\n</IfModule>\n",
            id="in-ifmodule",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT101") == after


def test_finding_location_and_replacement():
    [finding] = findings("ServerRoot /x\n\n  MaxClients 150\n", "HT101")
    assert (finding.file, finding.line, finding.column) == ("httpd.conf", 3, 3)
    assert finding.replacement == "MaxRequestWorkers 150"


def test_max_requests_per_child():
    assert fixed("MaxRequestsPerChild 0\n", "HT102") == "MaxConnectionsPerChild 0\n"

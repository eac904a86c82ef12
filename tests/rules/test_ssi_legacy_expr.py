import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.config import Target


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Options +Includes\nAddType text/html .shtml\n", id="includes-allowed-but-no-filter"),
        pytest.param(
            "<Directory /w>\nAddOutputFilter INCLUDES .shtml\nSSILegacyExprParser on\n</Directory>\n", id="already"
        ),
        pytest.param(
            '<Location "/">\nSSILegacyExprParser on\n</Location>\n', id="nothing-to-do"
        ),
        pytest.param("XBitHack off\n", id="xbithack-off"),
        pytest.param("<IfVersion < 2.3>\nAddOutputFilter INCLUDES .shtml\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nAddHandler server-parsed .shtml\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("AddOutputFilter DEFLATE .html\n", id="other-filter"),
    ],
)
def test_noop(text):
    assert findings(text, "HT208") == []


def test_server_wide_fix_covers_sections():
    text = "AddOutputFilter INCLUDES .shtml\n<Directory /e>\nAddOutputFilter Includes html\n</Directory>\n"
    [finding] = findings(text, "HT208")
    assert finding.line == 1
    assert fixed(text, "HT208").count("SSILegacyExprParser") == 1


def test_no_finding_when_mod_include_is_not_loaded():
    target = Target(modules=frozenset({"mime_module"}))
    assert findings("AddOutputFilter INCLUDES .shtml\n", "HT208", target=target) == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "<Directory /var/www/ssi>\n    Options +Includes\n    AddOutputFilter INCLUDES .shtml\n</Directory>\n",
            "<Directory /var/www/ssi>\n    Options +Includes\n    AddOutputFilter INCLUDES .shtml\n"
            "    SSILegacyExprParser on\n</Directory>\n",
            id="directory",
        ),
        pytest.param(
            "AddType text/html .shtml\nAddOutputFilter Includes;DEFLATE .shtml .html\n",
            "AddType text/html .shtml\nAddOutputFilter Includes;DEFLATE .shtml .html\n"
            '<Location "/">\n    SSILegacyExprParser on\n</Location>\n',
            id="server-level-chain",
        ),
        pytest.param(
            "<VirtualHost *:80>\n  XBitHack on\n  AddHandler server-parsed .shtml\n</VirtualHost>\n",
            '<VirtualHost *:80>\n  XBitHack on\n  <Location "/">\n      SSILegacyExprParser on\n  </Location>\n'
            "  AddHandler server-parsed .shtml\n</VirtualHost>\n",
            id="vhost-once",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT208") == after


@pytest.mark.apache
def test_real_httpd_accepts_fix_and_runs_22_if_expr(httpd):
    """A 2.2 page with `#if expr="$QUERY_STRING = /yes/"`: broken on plain 2.4, right after the fix."""
    from httpd24.apache import Instance

    site = 'Options +Includes\nAddType text/html .shtml\nAddOutputFilter INCLUDES .shtml\nDocumentRoot docs\n'
    page = '<!--#if expr="$QUERY_STRING = /yes/" -->YES<!--#else -->NO<!--#endif -->\n'
    after = fixed(site, "HT208")
    modules = ["include_module", "mime_module", "authz_core_module", "authn_core_module"]
    assert configtest({"site.conf": after, "docs/p.shtml": page}, "site.conf", modules, httpd=httpd).ok
    with Instance({"site.conf": site, "docs/p.shtml": page}, "site.conf", modules, httpd=httpd) as srv:
        assert "YES" not in srv.request("/p.shtml?yes").text
    with Instance({"site.conf": after, "docs/p.shtml": page}, "site.conf", modules, httpd=httpd) as srv:
        assert srv.request("/p.shtml?yes").text.strip() == "YES"
        assert srv.request("/p.shtml?no").text.strip() == "NO"

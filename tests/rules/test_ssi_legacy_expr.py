import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import configtest
from httpd24.config import Target
from httpd24.engine import lint, migrate

#: httpd's multi-language error documents, as 2.2's httpd.conf (and every distribution's) sets them up.
#: The 2.4 package ships its own documents there, written for the new expression parser.
ERROR_DOCUMENTS = """\
Alias /error/ "/usr/share/apache2/error/"
<Directory "/usr/share/apache2/error">
    Options IncludesNoExec
    AddOutputFilter Includes html
    AddHandler type-map var
    LanguagePriority en
    ForceLanguagePriority Prefer Fallback
</Directory>
ErrorDocument 404 /error/HTTP_NOT_FOUND.html.var
"""


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
        pytest.param(ERROR_DOCUMENTS, id="httpd-error-documents"),
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
            "AddOutputFilter INCLUDES .shtml\n" + ERROR_DOCUMENTS,
            "AddOutputFilter INCLUDES .shtml\n"
            '<Location "/">\n    SSILegacyExprParser on\n</Location>\n'
            '<Location "/error/">\n    SSILegacyExprParser off\n</Location>\n' + ERROR_DOCUMENTS,
            id="server-level-but-not-the-error-documents",
        ),
        pytest.param(
            ERROR_DOCUMENTS + "<VirtualHost *:80>\n  AddOutputFilter INCLUDES .shtml\n</VirtualHost>\n",
            ERROR_DOCUMENTS + '<VirtualHost *:80>\n  AddOutputFilter INCLUDES .shtml\n  <Location "/">\n'
            '      SSILegacyExprParser on\n  </Location>\n  <Location "/error/">\n      SSILegacyExprParser off\n'
            "  </Location>\n</VirtualHost>\n",
            id="vhost-inherits-the-error-documents",
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


@pytest.mark.apache
def test_real_httpd_keeps_24s_error_documents_working_after_the_fix(httpd):
    """2.4's multi-language error documents use ap_expr: under `SSILegacyExprParser on` they print
    "[an error occurred while processing this directive]" instead of the referring page's link."""
    from httpd24.apache import Instance

    site = "Options +Includes\nAddType text/html .shtml\nAddOutputFilter INCLUDES .shtml\nDocumentRoot docs\n" + ERROR_DOCUMENTS
    page = '<!--#if expr="$QUERY_STRING = /yes/" -->YES<!--#else -->NO<!--#endif -->\n'
    after = fixed(site, "HT208")
    modules = ["include_module", "mime_module", "alias_module", "negotiation_module", "authz_core_module",
               "authn_core_module"]
    with Instance({"site.conf": after, "docs/p.shtml": page}, "site.conf", modules, httpd=httpd) as srv:
        assert srv.request("/p.shtml?yes").text.strip() == "YES"
        missing = srv.request("/missing", headers={"Referer": "http://shop.example/list"})
        assert missing.status == 404
        assert '<a href="http://shop.example/list">' in missing.text
        assert "an error occurred" not in missing.text


HTACCESS_SITE = "DocumentRoot htdocs\n<Directory htdocs>\n    AllowOverride {}\n</Directory>\n"
HTACCESS = "Options +Includes\nAddOutputFilter INCLUDES .shtml\nAddType text/html .shtml\n"
PAGE = '<!--#if expr="$QUERY_STRING = /yes/" -->YES<!--#else -->NO<!--#endif -->\n'


def _migrate_htaccess(override: str) -> dict[str, str]:
    files = {"httpd.conf": HTACCESS_SITE.format(override), "htdocs/.htaccess": HTACCESS}
    result = migrate(configset(files), select=["HT208"])
    return {name: data.decode() for name, data in result.files.items()}


@pytest.mark.parametrize("override", ["All", "FileInfo Options Limit", "None"])
def test_htaccess_gets_the_directive_itself(override):
    """<Location> is not allowed in .htaccess (every request there answers 500): the line goes in the file."""
    out = _migrate_htaccess(override)
    assert out["htdocs/.htaccess"] == (
        "Options +Includes\nAddOutputFilter INCLUDES .shtml\nSSILegacyExprParser on\nAddType text/html .shtml\n"
    )
    assert out["httpd.conf"] == HTACCESS_SITE.format(override)


def test_htaccess_without_allowoverride_limit_needs_a_person():
    """SSILegacyExprParser in .htaccess needs AllowOverride Limit (FileInfo is not enough: 500)."""
    files = {"httpd.conf": HTACCESS_SITE.format("FileInfo Options"), "htdocs/.htaccess": HTACCESS}
    [finding] = lint(configset(files), select=["HT208"])
    assert finding.file == "htdocs/.htaccess" and finding.fix is None
    assert "AllowOverride" in finding.message and "Limit" in finding.message
    assert _migrate_htaccess("FileInfo Options")["htdocs/.htaccess"] == HTACCESS


def test_existing_line_in_an_htaccess_covers_only_that_file():
    files = {"httpd.conf": HTACCESS_SITE.format("All") + "AddOutputFilter INCLUDES .shtml\n",
             "htdocs/.htaccess": "SSILegacyExprParser on\n"}
    [finding] = lint(configset(files), select=["HT208"])
    assert finding.file == "httpd.conf"


def test_fix_does_not_split_the_providers_of_one_filter():
    text = (
        "FilterDeclare ssi\n"
        'FilterProvider ssi INCLUDES "%{CONTENT_TYPE} =~ m#^text/html#"\n'
        'FilterProvider ssi INCLUDES "%{REQUEST_URI} =~ m#\\.shtml$#"\n'
        "FilterChain ssi\n"
    )
    lines = fixed(text, "HT208").splitlines()
    at = lines.index('<Location "/">')
    assert [line.split()[0] for line in lines[:at]] == ["FilterDeclare", "FilterProvider", "FilterProvider"]


@pytest.mark.apache
@pytest.mark.parametrize("override", ["All", "FileInfo Options Limit"])
def test_real_httpd_serves_the_migrated_htaccess_with_the_22_parser(httpd, override):
    """The .htaccess is read per request (apache2 -t cannot see it): the migrated one answers 200 and
    evaluates 2.2's #if expr syntax."""
    from httpd24.apache import Instance

    out = _migrate_htaccess(override)
    modules = ["include_module", "mime_module", "authz_core_module", "authn_core_module"]
    files = {"httpd.conf": out["httpd.conf"], "htdocs/.htaccess": out["htdocs/.htaccess"], "htdocs/p.shtml": PAGE}
    with Instance(files, "httpd.conf", modules, httpd=httpd) as srv:
        yes, no = srv.request("/p.shtml?yes"), srv.request("/p.shtml?no")
        assert (yes.status, yes.text.strip(), no.text.strip()) == (200, "YES", "NO")

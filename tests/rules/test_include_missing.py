import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings

from httpd24.apache import configtest
from httpd24.config import ConfigSet
from httpd24.config.configset import Listing
from httpd24.engine import Severity, lint

# -- HT408 Include of a file the configuration does not have -----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param({"httpd.conf": "Include extra.conf\n", "extra.conf": "ServerAdmin a@b\n"}, id="key-exists"),
        pytest.param("IncludeOptional extra.conf\n", id="optional"),
        pytest.param("Include conf.d/*.conf\n", id="wildcard-is-ht403s"),
        pytest.param("<IfVersion < 2.3>\nInclude extra.conf\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nInclude extra.conf\n</IfModule>\n", id="dead-ifmodule-branch"),
        pytest.param("Include /etc/apache2/mods-enabled/x.load\n", id="outside-the-server-root"),
        pytest.param("Include conf.d/site.conf\n", id="subdirectory-is-no-key"),
        pytest.param("Include conf.d/\n", id="written-as-a-directory"),
        pytest.param("Include ${APACHE_CONFDIR}/ports.conf\n", id="environment-variable"),
        pytest.param("# Include extra.conf\n", id="comment"),
    ],
)
def test_include_missing_noop(text):
    assert findings(text, "HT408") == []


@pytest.mark.parametrize(
    ("line", "key"),
    [
        pytest.param("Include extra.conf", "extra.conf", id="relative"),
        pytest.param('Include "./extra.conf"', "extra.conf", id="quoted-dot"),
        pytest.param("Include /usr/local/apache2/extra.conf", "extra.conf", id="absolute-in-the-server-root"),
        pytest.param("Define site shop\nInclude ${site}.conf", "shop.conf", id="define"),
    ],
)
def test_include_missing_is_an_error_naming_the_key(line, key):
    [finding] = findings(f"ServerName x\n{line}\n", "HT408")
    assert finding.severity is Severity.ERROR and finding.fix is None and finding.replacement == ""
    assert f"no file or ConfigMap key {key}" in finding.message and "refuses to start" in finding.message
    assert f"add {key}" in finding.message and "remove the line" in finding.message


def test_include_missing_in_a_key_nothing_includes_counts_too():
    """Any key may be what the pods read (the HttpdServer's entry decides), as HT403 judges them."""
    [finding] = lint(configset({"httpd.conf": "ServerName x\n", "other.conf": "Include gone.conf\n"}),
                     select=["HT408"])
    assert finding.file == "other.conf"


def test_include_missing_judges_only_the_directory_the_files_live_in():
    """A ConfigMap mounted at conf/ of the server root: only conf/ is all its own; the server root
    around it is the image's, which may have the file."""
    files = {"conf/httpd.conf": "Include conf/gone.conf\nInclude modules.conf\nInclude /etc/app/conf/x.conf\n"}
    cs = ConfigSet.from_mapping(files, entry="conf/httpd.conf", server_root="/etc/app")
    cs.listing = Listing("conf", frozenset(files))
    assert [(f.line, f.code) for f in lint(cs, select=["HT408"])] == [(1, "HT408"), (3, "HT408")]


def test_include_missing_says_nothing_of_a_file_that_is_there_but_not_read():
    """A binaryData value with NUL bytes is a key: what is wrong with it is said elsewhere."""
    cs = ConfigSet.from_mapping({"httpd.conf": "Include logo.png\n"}, entry="httpd.conf")
    cs.listing = Listing("", frozenset({"httpd.conf", "logo.png"}))
    assert lint(cs, select=["HT408"]) == []


def test_include_missing_judges_a_directory_read_from_disk_on_disk(tmp_path):
    """A directory given is the server root: a plain Include of what it does not hold opens no file on the
    server either (one that is there but not configuration, or a directory, is no concern of this rule)."""
    (tmp_path / "httpd.conf").write_text("Include extra.conf\nInclude logo.png\nInclude conf.d\nInclude gone.d/\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\0")
    (tmp_path / "conf.d").mkdir()
    found = lint(ConfigSet.from_directory(str(tmp_path)), select=["HT408"])
    assert [f.line for f in found] == [1, 4], found
    assert f"{tmp_path}/extra.conf" in found[0].message and "IncludeOptional" in found[0].message


@pytest.mark.apache
def test_include_missing_matches_real_httpd(httpd):
    """Every Include line the rule judges fails apache2 -t with httpd's "Could not open configuration
    file", and every one it passes over that names a file of the set starts, on the same files."""
    lines = {
        "Include extra.conf": True,
        "Include ./extra.conf": True,
        "IncludeOptional extra.conf": False,
        "Include here.conf": False,
        "<IfModule !mod_authz_core.c>\nInclude extra.conf\n</IfModule>": False,
        "<IfVersion < 2.3>\nInclude extra.conf\n</IfVersion>": False,
    }
    for line, fails in lines.items():
        files = {"httpd.conf": f"ServerName x\n{line}\n", "here.conf": "ServerAdmin a@example.org\n"}
        found = lint(configset(files), select=["HT408"])
        result = configtest(files, "httpd.conf", ["authz_core_module", "version_module"], httpd=httpd)
        assert bool(found) is fails, (line, found)
        assert result.ok is not fails, (line, result.output)
        if fails:
            assert "Could not open configuration file" in result.output
            files["extra.conf"] = "ServerAdmin a@example.org\n"
            assert lint(configset(files), select=["HT408"]) == []
            assert configtest(files, "httpd.conf", ["authz_core_module", "version_module"], httpd=httpd).ok

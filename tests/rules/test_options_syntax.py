"""HT121: Options lines 2.2 accepted and 2.4 refuses (+/- words mixed with plain ones, All/None after
other words, +All/-None). Each fix must write what 2.2 did; apache2 proves that 2.4 refuses the input
and starts with the output."""

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import Instance, configtest
from httpd24.engine import Applicability, Severity, lint, migrate


def _dir(options: str) -> str:
    return f"<Directory /tmp>\n    Options {options}\n</Directory>\n"


@pytest.mark.parametrize(
    "options",
    [
        pytest.param("Indexes FollowSymLinks", id="plain"),
        pytest.param("+Indexes -FollowSymLinks", id="all-signed"),
        pytest.param("All -Indexes", id="all-then-signed"),  # 2.4 accepts signed words after a first All/None
        pytest.param("None +Indexes", id="none-then-signed"),
        pytest.param("All MultiViews", id="all-then-plain"),
        pytest.param("Indexes Bogus", id="illegal-option-2.2-refused-too"),
        pytest.param("Indexes +Bogus", id="illegal-option-after-a-mix"),
        pytest.param("Indexes + FollowSymLinks", id="a-lone-sign"),
        pytest.param("${OPTS} +Indexes", id="undefined-variable"),
    ],
)
def test_noop(options):
    assert findings(_dir(options), "HT121") == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<IfVersion < 2.3>\nOptions Indexes +FollowSymLinks\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("# Options Indexes +FollowSymLinks\n", id="comment"),
    ],
)
def test_noop_text(text):
    assert findings(text, "HT121") == []


@pytest.mark.parametrize(
    ("options", "after"),
    [
        pytest.param("Indexes +FollowSymLinks", "Indexes FollowSymLinks", id="the-usual-mix"),
        pytest.param("Indexes +FollowSymLinks -Includes", "Indexes FollowSymLinks", id="minus-an-unset-option"),
        pytest.param("indexes +followsymlinks", "indexes followsymlinks", id="spelling-kept"),
        pytest.param("-Includes Indexes +FollowSymLinks", "Indexes FollowSymLinks",
                     id="minus-before-the-first-plain-word"),
        pytest.param("All -Indexes MultiViews", "Includes FollowSymLinks ExecCGI MultiViews", id="all-minus"),
        pytest.param("None +Indexes FollowSymLinks", "Indexes FollowSymLinks", id="none-plus"),
        pytest.param("Indexes All", "All", id="all-not-first"),
        pytest.param("Indexes None", "Indexes", id="none-not-first-added-nothing"),
        pytest.param("Indexes -Indexes", "None", id="removed-again"),
        pytest.param("+All", "+Indexes +Includes +FollowSymLinks +ExecCGI", id="plus-all"),
        pytest.param("-All +MultiViews", "-Indexes -Includes -FollowSymLinks -ExecCGI +MultiViews",
                     id="minus-all"),
    ],
)
def test_fix(options, after):
    assert fixed(_dir(options), "HT121") == _dir(after)


def test_fix_keeps_layout():
    before = "<Directory /srv>\r\n\tOptions Indexes +FollowSymLinks\r\n</Directory>\r\n"
    assert fixed(before, "HT121") == "<Directory /srv>\r\n\tOptions Indexes FollowSymLinks\r\n</Directory>\r\n"
    before = "<Directory /srv>\n  options  Indexes\t\"+FollowSymLinks\"  -Includes\n</Directory>\n"
    assert fixed(before, "HT121") == "<Directory /srv>\n  options  Indexes\t\"FollowSymLinks\"\n</Directory>\n"


def test_a_line_2_2_ignored_is_removed():
    """`Options +None` added nothing in 2.2 (and reset nothing: no plain word)."""
    assert fixed("<Directory /srv>\n    Options +None\n    AllowOverride None\n</Directory>\n", "HT121") == (
        "<Directory /srv>\n    AllowOverride None\n</Directory>\n")


def test_finding():
    [finding] = findings(_dir("Indexes +FollowSymLinks"), "HT121")
    assert (finding.line, finding.severity, finding.replacement) == (2, Severity.ERROR,
                                                                     "Options Indexes FollowSymLinks")
    assert finding.fix.applicability == Applicability.SAFE
    assert "Either all Options must start with + or -, or no Option may." in finding.message
    assert "refuses to start" in finding.message


@pytest.mark.parametrize(
    ("options", "said"),
    [
        # 2.2 dropped +FollowSymLinks for this directory at `Indexes`, but kept it in its list of additions:
        # sections below with +/- Options got it back.
        pytest.param("+FollowSymLinks Indexes", "+FollowSymLinks", id="plus-wiped-by-a-later-plain-word"),
        # this directory follows symlinks, the sections below that use +/- do not
        pytest.param("Indexes -FollowSymLinks FollowSymLinks", "-FollowSymLinks", id="removed-then-set-again"),
        # which Includes 2.2 meant changed in 2.2.12 (IncludesNOEXEC's bits)
        pytest.param("IncludesNOEXEC +Includes", "IncludesNOEXEC", id="includes-both-kinds"),
    ],
)
def test_no_fix_where_2_2_meant_two_things(options, said):
    [finding] = findings(_dir(options), "HT121")
    assert finding.fix is None and finding.severity == Severity.ERROR
    assert "a person must decide" in finding.message and said in finding.message
    assert fixed(_dir(options), "HT121") == _dir(options)


def test_htaccess_is_checked_with_its_own_consequence():
    files = {
        "httpd.conf": "DocumentRoot docs\n<Directory docs>\n    AllowOverride Options\n</Directory>\n",
        "docs/.htaccess": "Options Indexes +FollowSymLinks\n",
    }
    [finding] = lint(configset(files), select=["HT121"])
    assert finding.file == "docs/.htaccess" and "500" in finding.message
    result = migrate(configset(files), select=["HT121"])
    assert result.files["docs/.htaccess"] == b"Options Indexes FollowSymLinks\n"


@pytest.mark.apache
@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ("Indexes +FollowSymLinks", "Either all Options must start with + or -, or no Option may."),
        ("-Includes Indexes +FollowSymLinks", "Either all Options must start with + or -, or no Option may."),
        ("All -Indexes MultiViews", "Either all Options must start with + or -, or no Option may."),
        ("Indexes All", "'Options All' must be the first option given."),
        ("Indexes None", "'Options None' must be the first Option given."),
        ("+All", "You may not use 'Options +All' or 'Options -All'."),
    ],
)
def test_real_httpd_refuses_original_accepts_fix(httpd, options, refusal):  # noqa: F811
    text = _dir(options)
    before = configtest({"o.conf": text}, "o.conf", ["mpm_event_module"], httpd=httpd)
    assert not before.ok and refusal in before.output, before.output
    after = configtest({"o.conf": fixed(text, "HT121")}, "o.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
def test_real_httpd_answers_500_for_the_htaccess_and_lists_the_directory_after(httpd):  # noqa: F811
    """In an .htaccess file the line is read per request: 2.4 answers 500 for its directory. Fixed, it lists
    the directory (Indexes) as 2.2 did."""
    files = {
        "site.conf": "DocumentRoot docs\n<Directory docs>\n    AllowOverride Options\n    Require all granted\n"
                     "</Directory>\n",
        "docs/d/.htaccess": "Options Indexes +FollowSymLinks\n",
        "docs/d/file.txt": "x\n",
    }
    modules = ["authz_core_module", "autoindex_module"]
    with Instance(files, "site.conf", modules, httpd=httpd) as srv:
        assert srv.request("/d/").status == 500
    result = migrate(configset(files, "site.conf"), select=["HT121"])
    fixed_files = {name: data.decode() for name, data in result.files.items()}
    with Instance(fixed_files, "site.conf", modules, httpd=httpd) as srv:
        response = srv.request("/d/")
        assert response.status == 200 and b"file.txt" in response.body

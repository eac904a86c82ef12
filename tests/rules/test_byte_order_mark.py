"""HT003: a file that starts with a UTF-8 byte order mark. httpd does not skip it: the three bytes are the
start of the first word, so `apache2 -t` says "Invalid command '\\xef\\xbb\\xbf#'" even when the first line is
a comment. httpd24 read the file as if the mark were not there, reported nothing, and migrate left it."""

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, migrate

BOM = "\ufeff"


@pytest.mark.parametrize("text", ["ServerAdmin a@b\n", "", "# \ufeff\nServerAdmin \ufeffa@b\n"])
def test_noop(text):
    assert findings(text, "HT003") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(BOM + "# site\r\nServerAdmin a@b\r\n", "# site\r\nServerAdmin a@b\r\n", id="comment-crlf"),
        pytest.param(BOM + "ServerAdmin a@b", "ServerAdmin a@b", id="directive-no-final-newline"),
        pytest.param(BOM, "", id="only-the-mark"),
        pytest.param(BOM + "\n<Directory /x>\n</Directory>\n", "\n<Directory /x>\n</Directory>\n", id="blank-first"),
    ],
)
def test_fix_removes_the_mark_and_nothing_else(before, after):
    assert fixed(before, "HT003") == after


def test_finding_is_at_the_start_of_each_file_with_a_mark_and_its_fix_is_safe():
    files = {"httpd.conf": "Include conf.d/*.conf\n", "conf.d/a.conf": BOM + "ServerAdmin a@b\n",
             "conf.d/b.conf": "ServerAdmin a@b\n", "www/.htaccess": BOM + "Options -Indexes\n"}
    found = [f for f in migrate(configset(files)).found if f.code == "HT003"]
    assert [(f.file, f.line, f.column) for f in found] == [("conf.d/a.conf", 1, 1), ("www/.htaccess", 1, 1)]
    assert all(f.fix.applicability is Applicability.SAFE for f in found)
    migration = migrate(configset(files))
    assert migration.files["conf.d/a.conf"] == b"ServerAdmin a@b\n"
    assert migration.files["www/.htaccess"] == b"Options -Indexes\n"


@pytest.mark.apache
@pytest.mark.parametrize("text", [BOM + "# a comment\nServerAdmin a@b\n", BOM + "ServerAdmin a@b\n"])
def test_real_httpd_refuses_the_mark_and_accepts_the_fix(httpd, text):
    before = configtest({"site.conf": text}, "site.conf", [], httpd=httpd)
    assert not before.ok and "Invalid command '\\xef\\xbb\\xbf" in before.output
    after = configtest({"site.conf": fixed(text, "HT003")}, "site.conf", [], httpd=httpd)
    assert after.ok, after.output

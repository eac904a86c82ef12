"""HT509: a Require provider that 2.2 read in any case (`Require Valid-User`) is refused by 2.4.

2.2's mod_authz_user and mod_authz_groupfile/mod_authz_dbm compared `valid-user`, `user` and `group` with
strcasecmp; 2.4 looks a provider up by its exact name and refuses to start ("Unknown Authz provider:
Valid-User"). Found by the random differential run with keywords in other cases: the migration left such
lines as they were (a section without Order/Allow/Deny is already 2.4 to the translator), so the
migrated configuration failed `apache2 -t`.
"""

from __future__ import annotations

import pytest
from ruletest import findings, fixed

from httpd24.apache import differential
from httpd24.config import ConfigSet
from httpd24.engine import Applicability, get, migrate
from httpd24.engine.registry import missing_doc_sections

AUTH = '    AuthType Basic\n    AuthName "r"\n    AuthUserFile /etc/httpd/users\n'
GROUPS = "    AuthGroupFile /etc/httpd/groups\n"


def test_documented():
    rule = get("HT509")
    assert rule is not None and missing_doc_sections(rule) == []


@pytest.mark.parametrize(
    ("line", "written"),
    [("Require Valid-User", "Require valid-user"), ("Require USER alice Bob", "Require user alice Bob"),
     ("require Group Staff", "require group Staff")],
)
def test_fix(line, written):
    before = f"<Directory /srv>\n{AUTH}    {line}\n</Directory>\n"
    [finding] = findings(before, "HT509")
    assert finding.fix.applicability == Applicability.SAFE
    assert "Unknown Authz provider" in finding.message
    assert fixed(before, "HT509") == before.replace(line, written)


@pytest.mark.parametrize(
    "line", ["Require valid-user", "Require user Alice", "Require group Staff", "Require LDAP-USER x",
             "Require File-Owner", "Require all granted"],
)
def test_noop(line):
    assert findings(f"<Directory /srv>\n{AUTH}    {line}\n</Directory>\n", "HT509") == []


CASES = {
    "require only": f"DocumentRoot /srv/www\n<Directory /srv/www/a>\n{AUTH}    Require Valid-User\n</Directory>\n"
                    f"<Directory /srv/www/c>\n{AUTH}{GROUPS}    Require GROUP admins\n</Directory>\n",
    "with address rules": f"DocumentRoot /srv/www\n<Directory /srv/www/a>\n    Order allow,deny\n"
                          f"    Allow from 127.0.0.2\n    Satisfy Any\n{AUTH}    Require User alice\n</Directory>\n"
                          f"<Location /c>\n    Require USER bob\n</Location>\n",
}


@pytest.mark.apache
@pytest.mark.parametrize("text", CASES.values(), ids=CASES)
def test_migration_starts_and_answers_as_2_2(httpd, text):
    """The migrated configuration starts on 2.4 without mod_access_compat and answers as 2.2 did; the
    reference (normalize_22) reads the words as 2.2 did, so it starts too."""
    result = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    report = differential.verify(text, result.files["httpd.conf"], httpd=httpd)
    assert report.ok, report.format()
    assert report.requests


def test_translate_writes_them_as_2_4_reads_them(access):
    cs = ConfigSet.from_mapping({"httpd.conf": CASES["require only"]}, entry="httpd.conf")
    for out in (access.translate(cs), access.normalize_22(cs)):
        text = out.documents["httpd.conf"].render().decode()
        assert "Require valid-user" in text and "Require group admins" in text

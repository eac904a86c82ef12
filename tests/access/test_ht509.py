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
from httpd24.engine import Applicability, get, lint, migrate
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


# -- a quoted provider word: 2.2 never read it, 2.4 takes the quotes off ---------------------------------------------
# 2.2's Require is RAW_ARGS (core.c keeps the line as written) and each authz module compared the first word as
# ap_getword_white gives it, quotes included: `"valid-user"` was no word of theirs, so the line let nobody in
# (mod_authz_default answered 401 when no other line did). 2.4's mod_authz_core reads the provider with
# ap_getword_conf, which takes the quotes off: `Require "valid-user"` lets every authenticated user in, and
# `Require "Valid-User"` refuses to start. Lowercasing the word inside its quotes, as HT509 did, was no safe fix.
QUOTED = ['Require "valid-user"', "Require 'valid-user'", 'Require "Valid-User"', 'Require "VALID-USER"',
          'Require "USER" alice', "Require 'Group' staff", 'Require "file-owner"', "Require 'ldap-user' alice"]


@pytest.mark.parametrize("line", QUOTED)
def test_a_quoted_provider_is_found_and_never_rewritten_into_one_2_4_reads(line):
    before = f"<Directory /srv>\n{AUTH}{GROUPS}    {line}\n</Directory>\n"
    [finding] = findings(before, "HT509")
    assert "2.2 never read a quoted provider" in finding.message and "let nobody in" in finding.message, finding
    # Removing the line keeps 2.2's answer only next to another Require line: alone, it made 2.2 ask for a login and
    # refuse everyone (test_the_reference_answers_as_2_2_did...), which `Require user` with no names says in 2.4.
    assert "write `Require user` (no names) to keep 2.2's answer" in finding.message, finding.message
    assert finding.fix is None or finding.fix.applicability == Applicability.DISPLAY_ONLY, finding.fix
    assert fixed(before, "HT509") == before
    word = line.split()[1]
    if word != word.lower():
        assert f'Unknown Authz provider: {word.strip(chr(34) + chr(39))}' in finding.message
        # The suggestion keeps the quotes, which 2.4 reads.
        assert finding.replacement == line.replace(word, word.lower()), finding.replacement
    elif "valid-user" in word:
        assert "lets every authenticated user in" in finding.message


def test_a_quoted_provider_of_a_configuration_that_ran_on_2_4_is_what_it_meant():
    text = f"LoadModule mpm_event_module modules/mod_mpm_event.so\n<Directory /srv>\n{AUTH}    Require \"valid-user\"\n</Directory>\n"
    cs = ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
    assert lint(cs, select=["HT509"]) == []


@pytest.mark.apache
def test_2_4_reads_a_quoted_provider_without_its_quotes(httpd):
    """`Require "valid-user"` starts and lets alice in; `Require "Valid-User"` refuses to start; the suggested
    `Require "valid-user"` starts."""
    from httpd24.apache import Instance, configtest, htpasswd_file

    modules = ["authn_core_module", "authz_core_module", "authz_user_module", "auth_basic_module",
               "authn_file_module"]
    for line, starts in (('Require "valid-user"', True), ('Require "Valid-User"', False)):
        site = (f'DocumentRoot www\n<Location /p>\n    AuthType Basic\n    AuthName "r"\n'
                f'    AuthUserFile users\n    {line}\n</Location>\n')
        result = configtest({"site.conf": site, "users": htpasswd_file({"alice": "pw"}), "www/p/a.txt": "a\n"},
                            "site.conf", modules, httpd=httpd)
        assert result.ok is starts, result.output
        if not starts:
            assert "Unknown Authz provider: Valid-User" in result.output
            [finding] = findings(site, "HT509")
            site = site.replace(line, finding.replacement)
        with Instance({"site.conf": site, "users": htpasswd_file({"alice": "pw"}), "www/p/a.txt": "a\n"},
                      "site.conf", modules, httpd=httpd) as server:
            assert server.request("/p/a.txt").status == 401
            assert server.request("/p/a.txt", user="alice", password="pw").status == 200


# -- what 2.2 answered for a quoted provider, and what the migration makes of it ------------------------------------
# mod_authz_user, mod_authz_groupfile (and _dbm, _owner, authnz_ldap) of 2.2 each skip a line whose first word is not
# theirs (`"valid-user"` with its quotes is no module's word); mod_authz_default (APR_HOOK_LAST) then answers 401 when a
# Require line applies to the method and nobody granted (httpd 2.2 modules/aaa/mod_authz_default.c). So the line asked
# for a login and admitted nobody, and next to a line a module read it changed nothing. In 2.4 terms: `Require user`
# with no names (mod_authz_user: DENIED without a user, then DENIED for every user), which apache2 accepts.
DOCROOT = "DocumentRoot /srv/www\n"
QUOTED_22 = {
    "alone": (DOCROOT + "<Directory /srv/www/a>\n    Order allow,deny\n    Allow from all\n"
              f"{AUTH}{GROUPS}    Require \"valid-user\"\n</Directory>\n",
              DOCROOT + f"<Directory /srv/www/a>\n{AUTH}{GROUPS}    Require user\n</Directory>\n"),
    "next to a line 2.2 read": (DOCROOT + "<Directory /srv/www/a>\n    Order allow,deny\n    Allow from all\n"
                                f"{AUTH}    Require 'Valid-User'\n    Require user bob\n</Directory>\n",
                                DOCROOT + f"<Directory /srv/www/a>\n{AUTH}    Require user bob\n</Directory>\n"),
    "group, Satisfy Any": (DOCROOT + "<Directory /srv/www/a>\n    Order deny,allow\n    Deny from all\n"
                           f"    Allow from 127.0.0.2\n    Satisfy Any\n{AUTH}{GROUPS}    Require 'group' staff\n"
                           "</Directory>\n",
                           DOCROOT + f"<Directory /srv/www/a>\n{AUTH}{GROUPS}    <RequireAny>\n"
                           "        Require ip 127.0.0.2\n        Require user\n    </RequireAny>\n</Directory>\n"),
    "inherited": (DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require \"user\" alice\n</Directory>\n"
                  "<Directory /srv/www/a>\n    Order allow,deny\n    Allow from all\n</Directory>\n",
                  DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require user\n</Directory>\n"),
}


def _configset(text: str) -> ConfigSet:
    return ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")


def test_the_2_2_model_reads_no_quoted_provider():
    from httpd24.access import decide_22
    from httpd24.access.model import Request

    def status(text, user, groups=(), client="127.0.0.1"):
        return decide_22(_configset(text), Request("/a/f.html", client=client, user=user, groups=frozenset(groups)))

    alone, beside, any_, inherited = (text for text, _ in QUOTED_22.values())
    assert status(alone, "alice") == 401 and status(alone, None) == 401
    assert status(beside, "bob") == 200 and status(beside, "alice") == 401
    assert status(any_, "alice", ["staff"]) == 401 and status(any_, None, client="127.0.0.2") == 200
    assert status(inherited, "alice") == 401


@pytest.mark.apache
def test_the_reference_answers_as_2_2_did_and_the_migration_leaves_the_line_to_a_person(httpd, access):
    """normalize_22 (the reference of --verify) writes the quoted line as 2.2 read it; the hand-written 2.4 form
    that keeps 2.2's answers (`Require user`) agrees with it and with the 2.2 model on real apache2. The
    translation refuses: whether the line is meant is a person's choice (HT509), and 2.4 would read it."""
    for label, (text, kept) in QUOTED_22.items():
        report = differential.compare(access.normalize_22(_configset(text)), kept, name=label, httpd=httpd)
        assert report.ok and report.requests, report.format()
        assert differential.against_model(report, text) == [], label
        with pytest.raises(access.TranslationError, match="quoted"):
            access.translate(_configset(text))
        result = migrate(_configset(text))
        assert [line for line in text.splitlines() if "Require" in line] == [
            line for line in result.files["httpd.conf"].decode().splitlines() if "Require" in line], label
        refused = [f for f in result.remaining if f.code == "HT501" and f.fix is None and "quoted" in f.message]
        assert refused, (label, [(f.code, f.message) for f in result.remaining])


@pytest.mark.parametrize("line", ['Require "Valid-User"', "Require 'group' staff", 'Require "file-owner"'])
def test_a_quoted_provider_in_a_section_the_plan_leaves_alone_is_not_rewritten_by_translate(access, line):
    """No Order/Allow/Deny anywhere: the translator plans nothing, and used to lowercase the word inside its quotes,
    which 2.4 then reads (every authenticated user let in where 2.2 let nobody in)."""
    text = DOCROOT + f"<Directory /srv/www/a>\n{AUTH}{GROUPS}    {line}\n</Directory>\n"
    with pytest.raises(access.TranslationError, match="quoted"):
        access.translate(_configset(text))
    assert "Require user\n" in access.normalize_22(_configset(text)).documents["httpd.conf"].render().decode()

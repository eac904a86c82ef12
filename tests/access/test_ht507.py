"""HT507: Require lines of different 2.2 authorization modules in one section.

2.2 (httpd 2.2 source, modules/aaa): each module is an auth_checker hook, the first that
does not decline decides, and an authoritative module (the default) answers 401 to a user
its own lines do not admit. 2.4 reads a section's Require lines as <RequireAny>.
"""

from __future__ import annotations

import textwrap

import pytest
from ruletest import configset, findings, fixed

from httpd24.access import Request, TranslationError, authz22, build, decide_22, normalize_notes, translate
from httpd24.engine import Severity, get, lint, migrate
from httpd24.engine.registry import missing_doc_sections

LOAD_USER_FIRST = ("LoadModule authz_user_module modules/mod_authz_user.so\n"
                   "LoadModule authz_groupfile_module modules/mod_authz_groupfile.so\n")
LOAD_GROUP_FIRST = ("LoadModule authz_groupfile_module modules/mod_authz_groupfile.so\n"
                    "LoadModule authz_user_module modules/mod_authz_user.so\n")


def location(body: str, path: str = "/private", groupfile: bool = True) -> str:
    head = f"<Location {path}>\n    AuthType Basic\n    AuthName private\n    AuthUserFile conf/users\n"
    if groupfile:
        head += "    AuthGroupFile conf/groups\n"
    return head + textwrap.indent(textwrap.dedent(body), "    ") + "</Location>\n"


MIXED = location("Require user alice\nRequire group admins\n")
#: A line 2.2 could not have used, outside any branch 2.2 may skip.
RUNS_ON_24 = "<Directory /srv/www>\n    Require all granted\n</Directory>\n"


def test_documented():
    rule = get("HT507")
    assert rule is not None and rule.severity == Severity.ERROR
    assert missing_doc_sections(rule) == []
    doc = rule.documentation()
    for heading in ("## Example", "## Use instead", "## Fix safety"):
        assert heading in doc
    # the 2.2 facts it rests on, with where they come from
    for needle in ("AP_IMPLEMENT_HOOK_RUN_FIRST(int,auth_checker", "APR_HOOK_MIDDLE", "APR_HOOK_LAST",
                   "mod_authz_owner.c", "mod_authz_user.c", "modules/aaa/config.m4", "apr_hook_sort_all"):
        assert needle in doc, needle


def test_mixed_user_and_group():
    [finding] = findings(MIXED, "HT507")
    assert (finding.line, finding.column) == (6, 5)  # the first Require line
    assert finding.severity == Severity.ERROR and finding.fix is None
    message = finding.message
    assert message.startswith("<Location /private>: `Require user alice` and `Require group admins` are read by "
                              "different 2.2 modules (mod_authz_user, mod_authz_groupfile)")
    # who gets in on 2.4 that 2.2 refused, depending on which module ran first
    assert "user alice (refused on 2.2 where mod_authz_groupfile ran first)" in message
    assert "members of group admins (refused on 2.2 where mod_authz_user ran first)" in message
    assert "LoadModule order" in message and "no AuthzUserAuthoritative Off" in message
    # the two 2.4 forms
    assert "<RequireAll> if a user had to meet every one" in message
    assert "<RequireAny> if any one was meant to be enough" in message
    assert fixed(MIXED, "HT507") == MIXED


@pytest.mark.parametrize(
    ("loads", "did", "gain"),
    [
        pytest.param(LOAD_GROUP_FIRST, "mod_authz_groupfile ran before mod_authz_user (LoadModule order) and answered "
                     "401 to anyone `Require group admins` does not admit, so `Require user alice` had no effect",
                     "so user alice would get in as well", id="groupfile-first"),
        pytest.param(LOAD_USER_FIRST, "mod_authz_user ran before mod_authz_groupfile (LoadModule order) and answered "
                     "401 to anyone `Require user alice` does not admit, so `Require group admins` had no effect",
                     "so members of group admins would get in as well", id="user-first"),
    ],
)
def test_load_order_says_which_line_was_in_effect(loads, did, gain):
    [finding] = findings(loads + MIXED, "HT507")
    assert did in finding.message and gain in finding.message


@pytest.mark.parametrize(
    ("text", "gain"),
    [
        pytest.param(location("Require valid-user\nRequire group admins\n"), "every authenticated user", id="valid-user"),
        pytest.param(LOAD_GROUP_FIRST + location("Require valid-user\nRequire group admins\n"), "every authenticated user",
                     id="valid-user-groupfile-first"),
        pytest.param(location("Require user alice\nRequire ldap-group cn=ops,dc=example,dc=org\n", groupfile=False)
                     .replace("AuthName private\n", "AuthName private\n    AuthLDAPURL ldap://127.0.0.1/dc=example,dc=org\n"),
                     "user alice", id="ldap-group-first-by-hook-order"),
        pytest.param(location("Require user alice\nRequire group admins\n", groupfile=False)
                     .replace("AuthName private\n", "AuthName private\n    AuthDBMGroupFile conf/groups.db\n"),
                     "members of group admins", id="dbm-group-file"),
        pytest.param(location("Require file-owner\nRequire user alice\n", groupfile=False), "user alice", id="file-owner"),
        pytest.param(location("Require user alice\n<Limit POST>\n    Require group admins\n</Limit>\n"),
                     "(for POST)", id="limit-adds-a-line"),
        pytest.param("<Location /private>\n    AuthGroupFile conf/groups\n</Location>\n"
                     + location("Require user alice\nRequire group admins\n", path="/private/x", groupfile=False),
                     "user alice", id="group-file-inherited"),
    ],
)
def test_triggers(text, gain):
    [finding] = findings(text, "HT507")
    assert gain in finding.message, finding.message


def test_htaccess():
    files = {
        "httpd.conf": "DocumentRoot /srv/www\n<Directory /srv/www/a>\n    AllowOverride AuthConfig\n</Directory>\n",
        "srv/www/a/.htaccess": "AuthType Basic\nAuthName a\nAuthUserFile /etc/users\nAuthGroupFile /etc/groups\n"
                               "Require group staff\nRequire user bob\n",
    }
    [finding] = lint(configset(files), select=["HT507"])
    assert finding.file == "srv/www/a/.htaccess" and finding.line == 5
    assert finding.message.startswith("srv/www/a/.htaccess: `Require group staff` and `Require user bob`")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(location("Require user alice bob\nRequire user carol\n"), id="one-module-users"),
        pytest.param(location("Require group admins\nRequire group staff\n"), id="one-module-groups"),
        pytest.param(location("Require valid-user\n"), id="single-line"),
        pytest.param(location("Require user alice\nRequire group admins\n", groupfile=False), id="no-group-file"),
        pytest.param(location("Require user alice\nRequire ldap-group cn=ops\n", groupfile=False), id="no-ldap-url"),
        pytest.param(location("<Limit GET>\n    Require user alice\n</Limit>\n<Limit POST>\n    Require group admins\n"
                              "</Limit>\n"), id="never-on-one-method"),
        # Authz*Authoritative Off: 2.2 read the lines as "any of them"
        pytest.param("<Directory /srv>\n    AuthzUserAuthoritative Off\n    AuthzGroupFileAuthoritative Off\n"
                     "    AuthGroupFile /etc/groups\n</Directory>\n<Directory /srv/sub>\n    AuthType Basic\n"
                     "    AuthName sub\n    Require user alice\n    Require group admins\n</Directory>\n",
                     id="off-inherited-by-path"),
        pytest.param(LOAD_USER_FIRST + "<Directory /srv>\n    AuthzUserAuthoritative Off\n</Directory>\n"
                     "<Directory /srv/sub>\n    AuthType Basic\n    AuthName sub\n    AuthGroupFile /etc/groups\n"
                     "    Require user alice\n    Require group admins\n</Directory>\n", id="earlier-module-off"),
        pytest.param(LOAD_USER_FIRST + location("Require valid-user\nRequire group admins\n"),
                     id="valid-user-granted-first"),
        # an Authz*Authoritative line in or around the section: HT103 judges it (and reports it)
        pytest.param(location("AuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\n"
                              "Require user alice\nRequire group admins\n"), id="off-in-section"),
        pytest.param(location("AuthzUserAuthoritative On\nRequire user alice\nRequire group admins\n"), id="ht103-reports"),
        # branches 2.4 never reads
        pytest.param("<IfModule !mod_authz_core.c>\n" + MIXED + "</IfModule>\n", id="dead-ifmodule"),
        pytest.param("<IfVersion < 2.3>\n" + MIXED + "</IfVersion>\n", id="dead-ifversion"),
        pytest.param("# Require user alice\n# Require group admins\n", id="comment"),
        # written for 2.4
        pytest.param(location("<RequireAny>\n    Require user alice\n    Require group admins\n</RequireAny>\n"),
                     id="requireany"),
        pytest.param(location("<RequireAll>\n    Require user alice\n    Require group admins\n</RequireAll>\n"),
                     id="requireall"),
        pytest.param(location("Require user alice\nRequire group admins\nRequire ip 10.0.0.0/8\n"), id="require-ip"),
        pytest.param(location("<IfModule mod_authz_core.c>\n    Require user alice\n    Require group admins\n"
                              "</IfModule>\n"), id="24-branch"),
        pytest.param(location("<IfVersion >= 2.4>\n    Require user alice\n    Require group admins\n</IfVersion>\n"),
                     id="24-version-branch"),
        # a configuration that runs on 2.4 already: its lines are read as <RequireAny> today
        pytest.param(RUNS_ON_24 + MIXED, id="runs-on-24"),
        pytest.param("<Directory /srv>\n    Order allow,deny\n    Allow from all\n</Directory>\n"
                     "<IfModule mod_authz_core.c>\n" + RUNS_ON_24 + "</IfModule>\n" + MIXED, id="runs-on-24-with-compat"),
    ],
)
def test_noop(text):
    assert findings(text, "HT507") == []


def test_a_24_line_in_a_branch_2_2_skips_proves_nothing():
    [finding] = findings("<IfModule mod_authz_core.c>\n" + RUNS_ON_24 + "</IfModule>\n" + MIXED, "HT507")
    assert "<Location /private>" in finding.message


def test_ht103_covers_what_ht507_skips():
    text = location("AuthzUserAuthoritative On\nRequire user alice\nRequire group admins\n")
    [finding] = findings(text, "HT103")
    assert finding.fix is None and "mod_authz_user" in finding.message


def test_group_file_in_child_makes_groupfile_authoritative_again():
    # No merger in 2.2's authz modules: AuthGroupFile in the child replaces mod_authz_groupfile's
    # whole record, AuthzGroupFileAuthoritative Off of the parent included.
    text = ("<Directory /srv>\n    AuthzUserAuthoritative Off\n    AuthzGroupFileAuthoritative Off\n"
            "    AuthGroupFile /etc/groups\n</Directory>\n<Directory /srv/sub>\n    AuthType Basic\n"
            "    AuthName sub\n    AuthGroupFile /etc/groups2\n    Require user alice\n    Require group admins\n"
            "</Directory>\n")
    [finding] = findings(text, "HT507")
    assert "mod_authz_groupfile (no AuthzGroupFileAuthoritative Off) is authoritative" in finding.message
    assert "user alice (refused on 2.2 where mod_authz_groupfile ran first)" in finding.message
    assert "members of group admins" not in finding.message  # mod_authz_user is not authoritative there


def test_group_file_of_a_section_merged_later_counts():
    """A <Files> section merges after the <Directory> whose Require lines it leaves alone; its
    AuthGroupFile switched mod_authz_groupfile on for them (random run seed 796511723, index 251)."""
    text = ("<Directory /srv/www/a>\n    AuthType Basic\n    AuthName a\n    AuthUserFile /etc/users\n"
            "    Require user carol\n    Require group admins\n</Directory>\n"
            "<FilesMatch \"\\.log$\">\n    AuthGroupFile /etc/groups\n</FilesMatch>\n")
    [finding] = findings(text, "HT507")
    assert finding.line == 5
    assert "user carol (refused on 2.2 where mod_authz_groupfile ran first)" in finding.message
    with pytest.raises(TranslationError, match="HT507"):
        translate(configset(text))
    assert findings(text.replace("AuthGroupFile /etc/groups", "AuthName logs"), "HT507") == []


# -- the migration never claims the section is kept -----------------------------------------

COMPAT = ("<Directory /srv>\n    Order deny,allow\n    Deny from all\n    Allow from 10.0.0.0/8\n    AuthType Basic\n"
          "    AuthName r\n    AuthUserFile /etc/users\n    AuthGroupFile /etc/groups\n"
          "    Require user alice\n    Require group admins\n</Directory>\n")


def test_ht501_refuses_to_translate():
    [finding] = findings(COMPAT, "HT501")
    assert finding.fix is None
    assert 'did not mean "any of them" as 2.4 does (HT507)' in finding.message
    with pytest.raises(TranslationError, match="HT507"):
        translate(configset(COMPAT))
    _copy, notes = normalize_notes(configset(COMPAT))
    assert any("HT507" in note for note in notes)


def test_migrate_leaves_the_section_to_a_person():
    # the AuthType-only section's fix (HT504) would make the configuration a 2.2/2.4 mix, which
    # HT502 then rewrote as 2.4 + mod_access_compat reads it: any of the lines
    text = COMPAT + "<Directory /var/other>\n    AuthType Basic\n    AuthName o\n    AuthUserFile /etc/users\n</Directory>\n"
    result = migrate(configset(text))
    assert result.files["httpd.conf"].decode() == text
    codes = {f.code for f in result.remaining}
    assert {"HT501", "HT504", "HT507"} <= codes and not result.applied


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(  # Off on both modules: 2.2 meant "any of them"; written so explicitly
            location("AuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\nRequire user alice\n"
                     "Require group admins\n"),
            location("<RequireAny>\n    Require user alice\n    Require group admins\n</RequireAny>\n"),
            id="both-off",
        ),
        pytest.param(  # the same next to Order/Allow/Deny: HT501 writes the <RequireAny>, then HT103 removes the lines
            location("Order allow,deny\nAllow from all\nAuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\n"
                     "Require user alice\nRequire group admins\n"),
            location("<RequireAny>\n    Require user alice\n    Require group admins\n</RequireAny>\n"),
            id="both-off-compat",
        ),
    ],
)
def test_any_of_sections_migrate_explicitly(before, after):
    result = migrate(configset(before))
    assert result.files["httpd.conf"].decode() == after
    assert not [f for f in result.remaining if f.code in ("HT103", "HT501", "HT507")]


# -- the model's 2.2 evaluator ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("loads", "alice", "member"),
    [
        pytest.param("", 401, 200, id="stock-order-groupfile-first"),
        pytest.param(LOAD_GROUP_FIRST, 401, 200, id="groupfile-first"),
        pytest.param(LOAD_USER_FIRST, 200, 401, id="user-first"),
    ],
)
def test_decide_22_follows_the_first_authoritative_module(loads, alice, member):
    model = build(configset(loads + MIXED))
    assert decide_22(model, Request("/private/x", user="alice")) == alice
    assert decide_22(model, Request("/private/x", user="bob", groups=frozenset({"admins"}))) == member
    assert decide_22(model, Request("/private/x", user="carol")) == 401


def test_decide_22_any_of_with_authoritative_off():
    model = build(configset(location("AuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\n"
                                     "Require user alice\nRequire group admins\n")))
    assert decide_22(model, Request("/private/x", user="alice")) == 200
    assert decide_22(model, Request("/private/x", user="bob", groups=frozenset({"admins"}))) == 200
    assert decide_22(model, Request("/private/x", user="carol")) == 401


def test_hook_order():
    # apr_hook_sort_all: mod_authz_owner is dragged before the group modules, mod_authnz_ldap before mod_authz_user
    assert authz22.run_order(authz22.STOCK_LOAD_ORDER) == [
        "authz_owner", "authz_groupfile", "authnz_ldap", "authz_user", "authz_dbm"]
    assert authz22.run_order(["authz_user", "authz_owner", "authz_groupfile", "authz_dbm"]) == [
        "authz_user", "authz_owner", "authz_groupfile", "authz_dbm"]


# -- HT103 removes Authz*Authoritative Off: the "any of them" it meant stays written ---------------


def test_ht103_keeps_any_of_when_lines_are_apart():
    text = location("AuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\nRequire user alice\n"
                    "AuthBasicProvider file\nRequire group admins\n")
    assert fixed(text, "HT103") == location("<RequireAny>\n    Require user alice\n    Require group admins\n"
                                            "</RequireAny>\nAuthBasicProvider file\n")


def test_ht103_leaves_lines_in_limit_to_a_person():
    text = location("AuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\nRequire user alice\n"
                    "<Limit POST>\n    Require group admins\n</Limit>\n")
    result = findings(text, "HT103")
    assert len(result) == 2 and all(f.fix is None and "<RequireAny>" in f.message for f in result)
    assert fixed(text, "HT103") == text


def test_ht103_waits_for_ht501_next_to_order_allow_deny():
    text = location("Order allow,deny\nAllow from all\nAuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\n"
                    "Require user alice\nRequire group admins\n")
    result = findings(text, "HT103")
    assert len(result) == 2 and all(f.fix is None and "HT501" in f.message for f in result)


def test_translate_refuses_mixed_lines_even_without_order_allow_deny():
    # No Order/Allow/Deny/Satisfy: HT501's plan never looks at the section, but 2.4 still reads the lines
    # as "any of them", which 2.2 did not (groupfile ran first: carol, not in staff, got 401).
    text = (
        "DocumentRoot /srv/www\n<Files secret.txt>\n    AuthType Basic\n    AuthName r\n    AuthUserFile /etc/httpd/users\n"
        "    AuthGroupFile /etc/httpd/groups\n    Require group staff\n    <Limit GET POST>\n        Require valid-user\n"
        "    </Limit>\n</Files>\n"
    )
    with pytest.raises(TranslationError, match="HT507"):
        translate(configset(text))

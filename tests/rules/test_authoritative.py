import textwrap

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity

LOAD_USER_FIRST = "LoadModule authz_user_module modules/mod_authz_user.so\n" \
                  "LoadModule authz_groupfile_module modules/mod_authz_groupfile.so\n"
LOAD_GROUP_FIRST = "LoadModule authz_groupfile_module modules/mod_authz_groupfile.so\n" \
                   "LoadModule authz_user_module modules/mod_authz_user.so\n"


def location(body: str) -> str:
    head = "<Location /private>\n    AuthType Basic\n    AuthName private\n    AuthUserFile conf/users\n" \
           "    AuthGroupFile conf/groups\n"
    return head + textwrap.indent(textwrap.dedent(body), "    ") + "</Location>\n"


LDAP = textwrap.dedent("""\
    <Location /repos/infra>
        AuthType Basic
        AuthName "Git Infrastructure"
        AuthBasicProvider ldap
        AuthLDAPUrl "ldap://127.0.0.1:389/ou=people,dc=example,dc=org?uid"
        AuthzLDAPAuthoritative {value}
        Require {require}
    </Location>
""")


@pytest.mark.parametrize(
    ("code", "text"),
    [
        pytest.param("HT103", "<IfModule !mod_authz_core.c>\n" + location("AuthzUserAuthoritative Off\nRequire user a\n")
                     + "</IfModule>\n", id="dead-ifmodule"),
        pytest.param("HT103", "<IfVersion < 2.3>\n" + location("AuthzLDAPAuthoritative Off\nRequire valid-user\n")
                     + "</IfVersion>\n", id="dead-ifversion"),
        pytest.param("HT103", location("Require user a\nRequire group g\n"), id="no-authoritative-line"),
        pytest.param("HT103", "# AuthzUserAuthoritative Off\n", id="comment"),
        pytest.param("HT104", "<IfModule !mod_authz_core.c>\nAuthDefaultAuthoritative Off\n</IfModule>\n",
                     id="authn-dead-ifmodule"),
        pytest.param("HT104", "<IfVersion < 2.3>\nAuthDefaultAuthoritative Off\n</IfVersion>\n",
                     id="authn-dead-ifversion"),
        pytest.param("HT104", "AuthBasicAuthoritative Off\n", id="authbasic-still-exists"),
    ],
)
def test_noop(code, text):
    assert findings(text, code) == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(LDAP.format(value="on", require="ldap-group cn=infra,ou=groups,dc=example,dc=org"),
                     LDAP.format(value="on", require="ldap-group cn=infra,ou=groups,dc=example,dc=org").replace(
                         "    AuthzLDAPAuthoritative on\n", ""), id="ldap-on-single-provider"),
        pytest.param(LDAP.format(value="off", require="valid-user"),
                     LDAP.format(value="off", require="valid-user").replace("    AuthzLDAPAuthoritative off\n", ""),
                     id="ldap-off-valid-user"),
        pytest.param(location("AuthzUserAuthoritative Off\nRequire user alice bob\n"),
                     location("Require user alice bob\n"), id="off-single-provider"),
        pytest.param(location("AuthzGroupFileAuthoritative On\nRequire group staff\n"),
                     location("Require group staff\n"), id="on-single-provider"),
        pytest.param(location("AuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\n"
                              "Require user alice\nRequire group staff\n"),
                     location("<RequireAny>\n    Require user alice\n    Require group staff\n</RequireAny>\n"),
                     id="all-off-is-require-any"),  # bare, the lines would read as 2.2's default (HT507)
        pytest.param(LOAD_USER_FIRST + location("AuthzUserAuthoritative Off\nRequire user alice\nRequire group staff\n"),
                     LOAD_USER_FIRST + location("<RequireAny>\n    Require user alice\n    Require group staff\n"
                                                "</RequireAny>\n"),
                     id="earlier-module-off-later-on"),
        pytest.param("<Directory /srv>\r\n\tAuthzUserAuthoritative On\r\n</Directory>\r\n",
                     "<Directory /srv>\r\n</Directory>\r\n", id="on-without-require-crlf"),
        pytest.param("<Directory /srv>\n  AuthzDBDAuthoritative Off\n  Require valid-user\n</Directory>\n",
                     "<Directory /srv>\n  Require valid-user\n</Directory>\n", id="dbd-never-in-2.2"),
        pytest.param("<Directory /srv>\n  AuthzDefaultAuthoritative On\n</Directory>\n",
                     "<Directory /srv>\n</Directory>\n", id="default-on"),
        pytest.param(location("<Limit GET>\n    AuthzUserAuthoritative Off\n    Require user a\n</Limit>\n"),
                     location("<Limit GET>\n    Require user a\n</Limit>\n"), id="in-limit"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT103") == after


@pytest.mark.parametrize(
    ("text", "culprit"),
    [
        pytest.param(location("AuthzUserAuthoritative On\nRequire user alice\nRequire group staff\n"),
                     "mod_authz_user", id="on-mixed-providers"),
        pytest.param(location("AuthzUserAuthoritative Off\nRequire user alice\nRequire group staff\n"),
                     "mod_authz_groupfile", id="off-but-other-module-authoritative-order-unknown"),
        pytest.param(LOAD_GROUP_FIRST + location("AuthzUserAuthoritative Off\nRequire user alice\n"
                                                 "Require group staff\n"),
                     "loaded before mod_authz_user", id="off-on-the-later-module"),
        pytest.param(LDAP.format(value="on", require="valid-user"), "mod_authnz_ldap", id="ldap-on-valid-user"),
        pytest.param("<Directory /srv>\n  AuthzDefaultAuthoritative Off\n</Directory>\n", "third-party",
                     id="default-off"),
        pytest.param(location("AuthzUserAuthoritative Off\n<Files x>\n  Require user a\n  Require group g\n</Files>\n"),
                     "mod_authz_groupfile", id="nested-scope"),
        # 2.2: the sub-directory's own mod_authz_groupfile record has no group file (no merger), so nobody
        # there is admitted by group; 2.4 without the line inherits /etc/groups and admits staff
        pytest.param("<Directory /srv>\n  AuthType Basic\n  AuthName a\n  AuthGroupFile /etc/groups\n"
                     "  Require group staff\n</Directory>\n<Directory /srv/sub>\n  AuthzGroupFileAuthoritative Off\n"
                     "</Directory>\n", "inherit the AuthGroupFile", id="record-without-group-file"),
    ],
)
def test_person_must_decide(text, culprit):
    [finding] = findings(text, "HT103")
    assert finding.fix is None and finding.severity == Severity.ERROR
    assert culprit in finding.message
    if "RequireAny" in finding.message:
        assert "<RequireAll>" in finding.message
    assert fixed(text, "HT103") == text


def test_finding_says_why_removal_is_safe():
    [finding] = findings(LDAP.format(value="on", require="ldap-group cn=x"), "HT103")
    assert finding.fix.applicability == Applicability.SAFE
    assert "mod_authnz_ldap handles every Require line" in finding.message


@pytest.mark.parametrize("value", ["On", "Off"])
def test_auth_default_authoritative(value):
    text = f"<Directory /srv>\n    AuthType Basic\n    AuthDefaultAuthoritative {value}\n</Directory>\n"
    [finding] = findings(text, "HT104")
    assert finding.fix.applicability == Applicability.SAFE
    assert fixed(text, "HT104") == "<Directory /srv>\n    AuthType Basic\n</Directory>\n"


# -- real httpd ------------------------------------------------------------------------------

AUTH_MODULES = ["mpm_event_module", "authn_core_module", "authz_core_module", "auth_basic_module",
                "authn_file_module", "authz_user_module", "authz_groupfile_module"]


@pytest.mark.apache
@pytest.mark.parametrize(
    ("text", "code", "modules"),
    [
        pytest.param(location("AuthzUserAuthoritative Off\nAuthzGroupFileAuthoritative Off\n"
                              "AuthDefaultAuthoritative On\nRequire user alice\nRequire group staff\n"),
                     "HT10", AUTH_MODULES, id="file-chain"),
        pytest.param(LDAP.format(value="on", require="ldap-group cn=infra,ou=groups,dc=example,dc=org"), "HT103",
                     [*AUTH_MODULES, "ldap_module", "authnz_ldap_module"], id="ldap"),
    ],
)
def test_real_httpd_refuses_original_accepts_fix(httpd, text, code, modules):
    files = {"a.conf": text, "conf/users": "alice:x\n", "conf/groups": "staff: alice\n"}
    before = configtest(files, "a.conf", modules, httpd=httpd)
    assert not before.ok and "Authoritative" in before.output, before.output
    out = fixed(text, code)
    assert "Authoritative" not in out
    after = configtest({**files, "a.conf": out}, "a.conf", modules, httpd=httpd)
    assert after.ok, after.output


def test_record_without_group_file_denied_members_on_2_2():
    # The 2.2 model (access.authz22: no merger, the section's record replaces the inherited one)
    # agrees with HT103 that removing the line would change the answer in /srv/sub.
    from httpd24.access import Request, build, decide_22

    # (with an AuthUserFile: without one, httpd answers 500 to any credentials, which the model knows too)
    text = ("<Directory /srv>\n  AuthType Basic\n  AuthName a\n  AuthUserFile /etc/users\n  AuthGroupFile /etc/groups\n"
            "  Require group staff\n</Directory>\n<Directory /srv/sub>\n  AuthzGroupFileAuthoritative Off\n</Directory>\n")
    member = dict(path="/x", user="bob", groups=frozenset({"staff"}), is_dir=False)
    with_line = build(configset({"httpd.conf": text}))
    without = build(configset({"httpd.conf": text.replace("  AuthzGroupFileAuthoritative Off\n", "")}))
    assert decide_22(with_line, Request(filename="/srv/f", **member)) == 200
    assert decide_22(with_line, Request(filename="/srv/sub/f", **member)) == 401
    assert decide_22(without, Request(filename="/srv/sub/f", **member)) == 200


def test_no_safe_removal_where_a_later_section_resets_the_record():
    # <Location /> is merged after <Directory /srv/a>: its AuthzUserAuthoritative On and AuthGroupFile replace
    # both records for every request, so on 2.2 mod_authz_groupfile (authoritative again, first) refused
    # authenticated users outside `admins`, which the lines read as 2.4's <RequireAny> would admit.
    from httpd24.access import Request, build, decide_22

    text = ("DocumentRoot /srv\n<Directory /srv/a>\n  AuthType Basic\n  AuthName a\n  AuthUserFile /etc/users\n"
            "  AuthGroupFile /etc/groups\n  AuthzUserAuthoritative Off\n  AuthzGroupFileAuthoritative Off\n"
            "  Require valid-user\n  Require group admins\n</Directory>\n"
            "<Location />\n  AuthzUserAuthoritative On\n  AuthGroupFile /etc/groups\n</Location>\n")
    in_directory = [f for f in findings(text, "HT103") if f.line in (7, 8)]
    assert len(in_directory) == 2
    for finding in in_directory:
        assert finding.fix is None and "<Location />, merged after this section" in finding.message
    assert "AuthzUserAuthoritative Off" in fixed(text, "HT103")
    assert decide_22(build(configset(text)), Request(path="/a/x", user="carol", groups=frozenset())) == 401

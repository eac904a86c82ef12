"""The access rules HT501-HT507: findings, messages, fixes (pyupgrade style). HT507 has tests/access/test_ht507.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruletest import configset, findings, fixed

from httpd24.engine import Applicability, get, lint, migrate
from httpd24.engine.registry import missing_doc_sections

CORPUS = Path("/work/shared/corpus/files")
AUTH = '    AuthType Basic\n    AuthName "r"\n    AuthUserFile /etc/users\n'


@pytest.mark.parametrize("code", ["HT501", "HT502", "HT503", "HT504", "HT505", "HT506", "HT507"])
def test_documented(code):
    rule = get(code)
    assert rule is not None
    assert missing_doc_sections(rule) == []
    for heading in ("## Example", "## Use instead", "## Fix safety"):
        assert heading in rule.documentation()


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<Directory /srv>\n    Require all granted\n</Directory>\n", id="already-2.4"),
        pytest.param("<IfModule !mod_authz_core.c>\n    Order deny,allow\n    Deny from all\n</IfModule>\n", id="dead-branch"),
        pytest.param("# Order deny,allow\n", id="comment"),
        pytest.param("<Directory /srv>\n" + AUTH + "    Require valid-user\n</Directory>\n", id="require-only"),
    ],
)
def test_noop(text):
    assert findings(text, "HT5") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "<Directory /srv>\n    Order deny,allow\n    Deny from all\n</Directory>\n",
            "<Directory /srv>\n    Require all denied\n</Directory>\n",
            id="deny-all",
        ),
        pytest.param(
            "<Directory />\n  Order allow,deny\n  Allow from all\n</Directory>\n"
            "<Files .ht*>\n  Order allow,deny\n  Deny from all\n  Satisfy All\n</Files>\n",
            "<Directory />\n  Require all granted\n</Directory>\n<Files .ht*>\n  Require all denied\n</Files>\n",
            id="root-directory-and-files",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT5") == after


def test_ht501_finding():
    [finding] = findings("<Directory /srv>\n    # x\n    Order deny,allow\n    Deny from all\n</Directory>\n", "HT501")
    assert (finding.line, finding.column) == (3, 5)
    assert finding.replacement == "Require all denied"
    assert finding.fix.applicability == Applicability.SAFE
    assert "mod_access_compat" in finding.message


def test_ht501_no_fix_when_meaning_depends_on_other_sections():
    # <LocationMatch> inherits Satisfy Any only where <Directory /srv/www/c> applies: /c/x maps
    # into it, but the Alias sends /c/other/ elsewhere: no single 2.4 form.
    text = (
        "DocumentRoot /srv/www\nAlias /c/other/ /srv/other/\n<Directory /srv/www/c>\n    Order mutual-failure\n"
        "    Allow from 127.0.0.8/29\n    Deny from 127.1\n    Satisfy any\n</Directory>\n"
        '<LocationMatch "^/c/">\n    Order mutual-failure\n    Allow from 127.1\n'
        "    AuthType Basic\n    AuthName r\n    AuthUserFile /etc/users\n    Require user bob carol\n</LocationMatch>\n"
    )
    result = findings(text, "HT501")
    assert result and all(f.fix is None for f in result)
    [location] = [f for f in result if f.line == 10]  # the Order line of <LocationMatch>
    assert "depends on which other sections apply" in location.message
    assert any("needs a person" in f.message for f in result if f.line != 10)


def test_ht501_satisfy_only_section_keeps_the_inherited_rules_with_authmerging():
    # <Files> may meet either directory; Satisfy Any without any Require changes nothing in 2.2,
    # so it inherits whichever address rules apply: AuthMerging And keeps them in 2.4.
    text = (
        "DocumentRoot /srv\n<Directory /srv/a>\n    Order allow,deny\n    Allow from 10.0.0.1\n</Directory>\n"
        "<Directory /srv/b>\n    Order allow,deny\n    Allow from 10.0.0.2\n</Directory>\n"
        "<Files secret.txt>\n    Satisfy Any\n</Files>\n"
    )
    assert fixed(text, "HT501") == (
        "DocumentRoot /srv\n<Directory /srv/a>\n    Require ip 10.0.0.1\n</Directory>\n"
        "<Directory /srv/b>\n    Require ip 10.0.0.2\n</Directory>\n"
        "<Files secret.txt>\n    AuthMerging And\n    Require all granted\n</Files>\n"
    )


def test_ht502_hybrid_states_assumption():
    text = (
        "<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n"
        "<Location /server-status>\n    SetHandler server-status\n    Require local\n</Location>\n"
    )
    result = findings(text, "HT502")
    assert len(result) == 2
    location = result[1]
    assert "assuming the server is 2.4 with mod_access_compat" in location.message
    assert "Require local" in location.message
    assert fixed(text, "HT502").count("Require all denied") == 2


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        pytest.param(
            "DocumentRoot /srv\n<Directory /srv>\n    Order deny,allow\n    Deny from all\n    Allow from 10.0.0.1\n"
            + AUTH + "    Require valid-user\n</Directory>\n<Directory /srv/a>\n    Satisfy Any\n</Directory>\n",
            "holds only Satisfy",
            id="child-only-satisfy",
        ),
        pytest.param(
            "DocumentRoot /srv\n<Directory /srv>\n    Order allow,deny\n    Allow from 10.0.0.1\n    Satisfy Any\n"
            + AUTH + "    Require valid-user\n</Directory>\n<Directory /srv/a>\n    Order allow,deny\n    Allow from 10.0.0.2\n</Directory>\n",
            "falls back to Satisfy All",
            id="child-drops-satisfy-any",
        ),
        pytest.param(
            "<Directory /srv>\n    Order deny,allow\n    Deny from all\n    Satisfy Any\n</Directory>\n",
            "2.2 answers as `Require all denied`, 2.4 + mod_access_compat as `Require all granted`",
            id="deny-satisfy-any-no-require",
        ),
        pytest.param(
            "<Directory /srv>\n    Order allow,deny\n    Allow from all\n" + AUTH + "</Directory>\n",
            "500",
            id="authtype-no-require",
        ),
    ],
)
def test_ht503_compat_differences(text, needle):
    result = findings(text, "HT503")
    assert result, "expected a finding"
    assert any(needle in f.message for f in result), [f.message for f in result]
    assert all(f.fix is None for f in result)


def test_ht503_silent_when_explicit():
    text = "<Directory /srv>\n    Order deny,allow\n    Deny from all\n    Allow from 10.0.0.1\n    Satisfy All\n</Directory>\n"
    assert findings(text, "HT503") == []


def test_ht504_authtype_without_require():
    text = "<Directory /srv>\n" + AUTH + "</Directory>\n"
    [finding] = findings(text, "HT504")
    assert "AH01627" in finding.message
    assert fixed(text, "HT504") == (
        '<Directory /srv>\n    AuthType Basic\n    Require all granted\n    AuthName "r"\n    AuthUserFile /etc/users\n</Directory>\n'
    )


#: A configuration written for 2.4 alone: its unconditional `Require ip` means nothing useful to 2.2,
#: so it runs on 2.4 already, where /srv/b answers 500 (AH01627) today.
WRITTEN_FOR_24 = "<Directory /srv/a>\n    Require ip 10.0.0.0/8\n</Directory>\n<Directory /srv/b>\n" + AUTH + "</Directory>\n"


def test_ht504_in_a_configuration_written_for_24_keeps_its_500():
    [finding] = findings(WRITTEN_FOR_24, "HT504")
    assert finding.fix is None and "2.4 answers 500 there today" in finding.message
    assert "2.2 asked for no authentication" not in finding.message


@pytest.mark.parametrize("condition", ["IfModule mod_authz_core.c", "IfVersion >= 2.3", "IfDefine WITH_24"])
def test_ht504_2_4_lines_under_a_condition_do_not_prove_2_4(condition):
    """A configuration that keeps its 2.4 lines in a branch 2.2 skips may still run on 2.2 today."""
    name = condition.split()[0]
    text = WRITTEN_FOR_24.replace("    Require ip 10.0.0.0/8\n", f"    <{condition}>\n        Require ip 10.0.0.0/8\n    </{name}>\n")
    [finding] = findings(text, "HT504")
    assert finding.fix is not None and "2.2 asked for no authentication" in finding.message


def test_ht504_keeps_inherited_require_with_authmerging():
    text = (
        "DocumentRoot /srv\n<Location /a>\n    Order allow,deny\n    Allow from all\n" + AUTH + "    Require valid-user\n</Location>\n"
        "<Location />\n    AuthType Basic\n</Location>\n"
    )
    out = fixed(text, "HT504")
    assert "<Location />\n    AuthType Basic\n    AuthMerging And\n    Require all granted\n</Location>\n" in out, out


def _htaccess_set(override: str | None):
    conf = "DocumentRoot /srv/www\n<Directory /srv/www/a>\n"
    if override:
        conf += f"    AllowOverride {override}\n"
    conf += "</Directory>\n"
    return {"httpd.conf": conf, "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 10.0.0.1\n"}


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        pytest.param(None, "refuses every line in it", id="default-none"),
        pytest.param("None", "never reads this file", id="none"),
    ],
)
def test_ht505_htaccess_override(override, needle):
    result = lint(configset(_htaccess_set(override)), select=["HT505"])
    assert len(result) == 1 and needle in result[0].message
    assert result[0].file == "srv/www/a/.htaccess"


#: `Limit` lets the file in but not its translation: HT501 says so (tests/access/test_allowoverride.py).
@pytest.mark.parametrize("override", ["All", "AuthConfig Limit", "AuthConfig", "Limit"])
def test_ht505_ok(override):
    assert lint(configset(_htaccess_set(override)), select=["HT505"]) == []


def test_ht505_names_the_servers_without_an_allowoverride_and_where_to_write_it():
    """One virtual host has an AllowOverride for the file's directory, the main server and another host
    (which merges the main server's sections) have none: HT505 said "in the main server" only, and to add the
    line to <Directory /srv/www/a>, the host's own section, where it changes nothing for the others (the
    vhosts shape of the differential run, seed 1, index 44)."""
    files = _htaccess_set(None)
    files["httpd.conf"] = ("DocumentRoot /srv/www\n<VirtualHost *:80>\n    ServerName v1.example\n"
                           "    <Directory /srv/www/a>\n        AllowOverride AuthConfig Limit\n    </Directory>\n"
                           "</VirtualHost>\n<VirtualHost *:80>\n    ServerName v2.example\n</VirtualHost>\n")
    [finding] = lint(configset(files), select=["HT505"])
    assert "no AllowOverride applies to /srv/www/a/ in the main server and <VirtualHost> v2.example " in finding.message
    assert finding.message.endswith("add `AllowOverride AuthConfig` (what its lines need once migrated) to a "
                                    "<Directory /srv/www/a> of the main server, outside every <VirtualHost>"), finding.message
    assert "never reads" not in finding.message


def test_ht505_says_which_hosts_a_main_server_allowoverride_would_override(httpd):
    """v1 keeps .htaccess files out with its own `<Directory />` line; the main server and v2 have none. The
    main-server <Directory /srv/www/a> HT505 asks for sorts after v1's shallower line and decides for v1 too:
    the message says so and how to keep v1's (measured on apache2: following both pieces of advice, v1 still
    ignores the file and v2 reads it)."""
    from httpd24.apache import differential

    files = {"httpd.conf": ("DocumentRoot /srv/www\n<Directory /srv/www>\n    DirectoryIndex index.html\n</Directory>\n"
                            "<VirtualHost *:80>\n    ServerName v1.example\n"
                            "    <Directory />\n        AllowOverride None\n    </Directory>\n</VirtualHost>\n"
                            "<VirtualHost *:80>\n    ServerName v2.example\n</VirtualHost>\n"),
             "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n"}
    [finding] = lint(configset(files), select=["HT505"])
    assert ("it would override <VirtualHost> v1.example's `AllowOverride None` (httpd.conf:8)" in finding.message
            and "write that line again in a <Directory /srv/www/a> of that host" in finding.message), finding.message
    advised = dict(files, **{"httpd.conf": files["httpd.conf"].replace(
        "DocumentRoot /srv/www\n", "DocumentRoot /srv/www\n<Directory /srv/www/a>\n    AllowOverride AuthConfig Limit\n"
        "</Directory>\n").replace("    </Directory>\n</VirtualHost>\n<VirtualHost",
                                   "    </Directory>\n    <Directory /srv/www/a>\n        AllowOverride None\n"
                                   "    </Directory>\n</VirtualHost>\n<VirtualHost")})
    assert lint(configset(advised), select=["HT505"]) == []
    statuses = differential.run(advised, httpd=httpd)
    got = {(q.unit.split()[0], q.source): differential.access_answer(s) for q, s in statuses.items()
           if q.path == "/a/f.html" and q.method == "GET" and not q.user and not q.env}
    assert (got[("vhost1", "127.0.0.1")], got[("vhost2", "127.0.0.1")], got[("vhost2", "127.0.0.2")]) == (200, 403, 200)


@pytest.mark.parametrize("body", [
    pytest.param('<Files ~ "^f\\.">\n    Satisfy All\n</Files>\n', id="access-lines-in-a-section"),
    pytest.param("Options -Indexes\n", id="no-access-lines"),
])
def test_ht505_reports_the_500_of_any_htaccess_line_where_no_allowoverride_applies(body):
    """2.4 refuses every line of a file no AllowOverride applies to, access control or not, and HT505 looked only
    for access lines at the file's top: a file whose Satisfy sat in a <Files> passed, and its migrated main server
    answered 500 where 2.2 answered 405 (vhosts shape, seed 41, index 193, on apache2)."""
    files = {"httpd.conf": ("DocumentRoot /srv/www\n<VirtualHost *:80>\n    ServerName v1.example\n"
                            "    <Directory /srv/www>\n        AllowOverride All\n    </Directory>\n</VirtualHost>\n"),
             "srv/www/a/.htaccess": body}
    [finding] = lint(configset(files), select=["HT505"])
    assert "no AllowOverride applies to /srv/www/a/ in the main server " in finding.message, finding.message
    files["httpd.conf"] = files["httpd.conf"].replace("<VirtualHost *:80>", "<Directory />\n    AllowOverride None\n"
                                                      "</Directory>\n<VirtualHost *:80>")
    assert lint(configset(files), select=["HT505"]) == []  # never read by the main server: nothing lost


def test_htaccess_translated():
    migrated = fixed("Order deny,allow\nDeny from all\nAllow from 10.0.0.1\n", "HT501", name="site.htaccess")
    assert migrated == "Require ip 10.0.0.1\n"


#: Lines inside <Limit> or <IfModule> in an .htaccess file are its own (they were read as server-level
#: lines, "not allowed here", with no fix): the classic `<Limit GET POST>` .htaccess of the 2.2 era.
HTACCESS_WRAPPED = {
    "Limit": ("<Limit GET POST>\norder deny,allow\ndeny from all\nallow from 10.1.2.3\n</Limit>\n",
              "<RequireAll>\n    Require method GET POST\n    Require ip 10.1.2.3\n</RequireAll>\n"
              "<RequireAll>\n    Require all granted\n    Require not method GET POST\n</RequireAll>\n"),
    "IfModule": ("<IfModule mod_ssl.c>\nOrder deny,allow\nDeny from all\nAllow from 10.1.2.3\n</IfModule>\n",
                 "<IfModule mod_ssl.c>\nRequire ip 10.1.2.3\n</IfModule>\n"),
}


@pytest.mark.parametrize("name", ["cacti-cli-dual", "glpi-config-dual", "owncloud-config", "roundcube-1.1.4-config",
                                  "wordpress-akismet-3.x-dual"])
def test_corpus_htaccess_files_with_ifmodule_branches_are_not_refused(name):
    """Real .htaccess files with 2.2/2.4 dual blocks: their Require lines were reported as standing outside
    any section (HT506: httpd refuses to start) because they sit inside <IfModule>."""
    path = CORPUS / f"{name}.htaccess"
    found = lint(configset(path.read_bytes(), path.name), select=["HT5"])
    assert not [f for f in found if f.severity == "error"], [f"{f.line}: {f.code} {f.message}" for f in found]


@pytest.mark.parametrize("wrapper", HTACCESS_WRAPPED)
def test_htaccess_lines_inside_limit_or_ifmodule_are_the_file_s_own(wrapper):
    before, after = HTACCESS_WRAPPED[wrapper]
    assert lint(configset(before, ".htaccess"), select=["HT506"]) == []
    assert fixed(before, "HT501", name=".htaccess") == after


@pytest.mark.parametrize(
    "line",
    ["Allow from example.org/24", "Deny 10.0.0.1", "Allow from 10.0.0.0/33", "Order deny, allow", "Satisfy some",
     "Order deny,allow extra", "Order allow,deny # open to all"],
)
def test_ht506_invalid(line):
    text = f"<Directory /srv>\n    {line}\n</Directory>\n"
    [finding] = findings(text, "HT506")
    assert finding.line == 2 and "refuses to start" in finding.message
    assert all(f.fix is None for f in findings(text, "HT501"))


@pytest.mark.apache
def test_httpd_refuses_an_order_line_with_more_than_its_argument(httpd):
    """What HT506 says of `Order allow,deny # open to all`: httpd has no comment after a directive."""
    from httpd24 import apache

    modules = ["mpm_event_module", "authz_core_module", "authz_host_module", "access_compat_module"]
    text = "<Directory /srv>\n    Order allow,deny # open to all\n</Directory>\n"
    result = apache.configtest({"site.conf": text}, "site.conf", modules, httpd=httpd)
    assert not result.ok and "one argument" in result.output, result.output


#: <Limit> sections 2.4 refuses whatever they hold: (opening, closing, the line httpd names, its words in
#: `apache2 -t`). Core reads a <Limit>'s methods as a set: it must name one, TRACE is TraceEnable's, and a
#: nested one must narrow the set around it.
REFUSED_LIMITS = {
    "Limit without a method": ("<Limit>", "</Limit>", 3, "<Limit> directive requires additional arguments"),
    "LimitExcept without a method": ("<LimitExcept>", "</LimitExcept>", 3,
                                     "<LimitExcept> directive requires additional arguments"),
    "Limit TRACE": ("<Limit GET TRACE>", "</Limit>", 3, "TRACE cannot be controlled by <Limit>, see TraceEnable"),
    "Limit inside a Limit of other methods": ("<Limit GET>\n    <Limit POST>", "</Limit>\n    </Limit>", 4,
                                              "<Limit> directive excludes all methods"),
    "LimitExcept inside a Limit it does not narrow": (
        "<Limit GET>\n    <LimitExcept POST>", "</LimitExcept>\n    </Limit>", 4,
        "<LimitExcept> directive specifies methods already excluded"),
    "LimitExcept inside a LimitExcept it does not narrow": (
        "<LimitExcept GET POST>\n    <IfModule mod_authz_core.c>\n    <LimitExcept GET>",
        "</LimitExcept>\n    </IfModule>\n    </LimitExcept>", 5,
        "<LimitExcept> directive specifies methods already excluded"),
}


def _refused_limit(where: str) -> str:
    opening, closing, _, _ = REFUSED_LIMITS[where]
    return (f"<Directory /srv>\n    Options None\n    {opening}\n        Order deny,allow\n        Deny from all\n"
            f"    {closing}\n</Directory>\n")


@pytest.mark.parametrize("where", REFUSED_LIMITS)
def test_ht506_a_limit_httpd_refuses_is_reported_not_translated(where):
    text = _refused_limit(where)
    _, _, line, said = REFUSED_LIMITS[where]
    [finding] = findings(text, "HT506")
    assert finding.line == line and said in finding.message and "refuses to start" in finding.message, finding
    assert all(f.fix is None for f in findings(text, "HT501"))
    assert not migrate(configset(text)).changed


@pytest.mark.apache
@pytest.mark.parametrize("where", REFUSED_LIMITS)
def test_httpd_refuses_these_limits(httpd, where):
    """What HT506 says of them, in httpd's words."""
    from httpd24 import apache

    modules = ["mpm_event_module", "authz_core_module", "authz_host_module", "access_compat_module"]
    result = apache.configtest({"site.conf": _refused_limit(where)}, "site.conf", modules, httpd=httpd)
    assert not result.ok and REFUSED_LIMITS[where][3] in result.output, result.output


OUTSIDE_A_SECTION = {
    "server": "Order deny,allow\nDeny from all\n",
    "virtual host": "<VirtualHost *:80>\n    ServerName a.test\n    Order allow,deny\n    Allow from all\n</VirtualHost>\n",
    "server Limit": "<Limit POST>\n    Order deny,allow\n    Deny from all\n</Limit>\n",
}


@pytest.mark.parametrize("where", OUTSIDE_A_SECTION)
def test_ht506_access_outside_a_section_has_no_fix(where):
    """httpd takes these lines only in directory context, on 2.2 too: no 2.4 line can stand there either."""
    text = OUTSIDE_A_SECTION[where]
    invalid = findings(text, "HT506")
    assert invalid and all("not allowed here" in f.message and "<Directory>" in f.message for f in invalid)
    assert findings(text, "HT501") and all(f.fix is None for f in findings(text, "HT501"))
    assert fixed(text, "HT501") == text


#: <If> gives its lines directory context wherever it stands (2.4 syntax).
IN_IF = {
    "server": '<If "%{HTTP_HOST} == \'a.test\'">\n    Require all denied\n</If>\n',
    "virtual host": '<VirtualHost *:80>\n    ServerName a.test\n    <If "-R \'10.0.0.0/8\'">\n'
                    '        Require all granted\n    </If>\n</VirtualHost>\n',
}


@pytest.mark.parametrize("where", IN_IF)
def test_access_in_if_at_server_level_is_in_place(where):
    assert findings(IN_IF[where], "HT506") == []


@pytest.mark.apache
@pytest.mark.parametrize("where", [*OUTSIDE_A_SECTION, *(f"If at {w}" for w in IN_IF)])
def test_httpd_refuses_access_outside_a_section_even_with_mod_access_compat(httpd, where):
    from httpd24 import apache

    modules = ["mpm_event_module", "authz_core_module", "authz_host_module", "access_compat_module"]
    text = IN_IF[where[len("If at "):]] if where.startswith("If at ") else OUTSIDE_A_SECTION[where]
    result = apache.configtest({"site.conf": text}, "site.conf", modules, httpd=httpd)
    assert result.ok == where.startswith("If at "), result.output
    assert result.ok or "not allowed" in result.output


@pytest.mark.parametrize(
    ("files", "requires"),
    [
        pytest.param("AuthDBMGroupFile /etc/groups.db", "Require dbm-group admins", id="dbm-only"),
        # mod_authz_groupfile runs first (stock order) and, authoritative, refuses whom its file does not admit
        pytest.param("AuthGroupFile /etc/groups\n    AuthDBMGroupFile /etc/groups.db",
                     "Require group admins", id="both-files"),
        pytest.param("AuthGroupFile /etc/groups\n    AuthDBMGroupFile /etc/groups.db\n    AuthzGroupFileAuthoritative Off",
                     "Require group admins\n    Require dbm-group admins", id="both-files-first-not-authoritative"),
        pytest.param("AuthGroupFile /etc/groups\n    AuthDBMGroupFile /etc/groups.db\n    AuthzDBMAuthoritative Off",
                     "Require group admins", id="both-files-second-not-authoritative"),
        pytest.param("AuthGroupFile /etc/groups", "Require group admins", id="file-only"),
    ],
)
def test_ht501_require_group_follows_the_group_file(files, requires):
    # spec §5.1: with AuthDBMGroupFile, 2.2's "Require group" (mod_authz_dbm) is "Require dbm-group" in 2.4.
    text = (
        "<Directory /srv>\n    Order deny,allow\n    Deny from all\n    Allow from 10.0.0.0/8\n    Satisfy Any\n"
        f"    AuthType Basic\n    AuthName r\n    {files}\n    Require group admins\n</Directory>\n"
        "<Directory /srv/sub>\n    Order allow,deny\n    Allow from all\n</Directory>\n"
    )
    out = fixed(text, "HT501")
    assert out.startswith(f"<Directory /srv>\n    {requires}\n    Require ip 10.0.0.0/8\n")
    # the sub-directory inherits Satisfy Any: its Allow from all decides alone
    assert "<Directory /srv/sub>\n    Require all granted\n</Directory>" in out


def test_ht502_message_claims_no_rewrite_it_does_not_make():
    # /srv/www/b answers 500 today, and the 2.4 form of /srv/www would take that away: nothing is rewritten.
    text = (
        "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n"
        "<Directory /srv/www/a>\n    Require ip 127.0.0.2\n</Directory>\n"
        "<Directory /srv/www/b>\n    AuthType Basic\n    AuthName b\n</Directory>\n"
    )
    [held] = [f for f in findings(text, "HT502") if "<Directory /srv/www>" in f.message]
    assert held.fix is None and "not rewritten automatically because <Directory /srv/www/b>" in held.message
    assert "rewritten to answer" not in held.message


def test_a_quoted_limit_method_is_named_whole_in_the_reason():
    """httpd reads `<Limit "GET POST">` as one method named `GET POST` (ap_getword_conf), which only that
    section registers; the reason named `"GET` and could not find the section."""
    text = ('<Directory /srv/www>\n    <Limit "GET POST">\n        Order deny,allow\n        Deny from all\n'
            '    </Limit>\n</Directory>\n')
    [finding] = [f for f in migrate(configset(text)).remaining if f.code == "HT501"]
    assert 'names "GET POST", a method' in finding.message, finding.message
    assert "httpd.conf:2: <Limit>" in finding.message, finding.message

"""HT409: a section standing where httpd refuses it, judged against real httpd."""

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings

from httpd24.apache import configtest
from httpd24.engine import Severity, lint, migrate

NESTED_IN_REQUIREALL = """\
<Directory "/srv/www">
    <RequireAll>
        <Directory "/srv/www/sub">
            Order allow,deny
            Allow from all
        </Directory>
        Require all granted
    </RequireAll>
</Directory>
"""


def test_directory_in_requireall_is_a_refusal_not_a_bug_of_httpd24():
    """The fuzzer's case: HT502 offered a fix that changed nothing and the migration blamed httpd24.
    httpd refuses the nesting itself, so the finding says so and no access fix is offered."""
    [finding] = findings(NESTED_IN_REQUIREALL, "HT409")
    assert (finding.file, finding.line, finding.severity, finding.fix) == ("httpd.conf", 3, Severity.ERROR, None)
    assert finding.message.startswith("<Directory /srv/www/sub> inside <RequireAll> (httpd.conf:2)")
    assert "<Directory not allowed in <RequireAll> context" in finding.message
    assert "move it out of <Directory /srv/www> (httpd.conf:1)" in finding.message
    assert all(f.fix is None for f in lint(configset(NESTED_IN_REQUIREALL), select=["HT5"]))
    migration = migrate(configset(NESTED_IN_REQUIREALL))
    assert migration.failures == [] and migration.applied == [], migration.failures
    [hybrid] = [f for f in migration.remaining if f.code == "HT502"]
    assert "httpd.conf:3: <Directory /srv/www/sub> stands where httpd refuses it" in hybrid.message


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<Directory /srv>\n<Directory /srv/sub>\nOrder allow,deny\nAllow from all\n</Directory>\n"
                     "Require all granted\n</Directory>\n", id="directory-in-directory"),
        pytest.param("<Directory /srv>\n<Location /sub>\nOrder allow,deny\nAllow from all\n</Location>\n"
                     "Require all granted\n</Directory>\n", id="location-in-directory"),
        pytest.param("<Directory /srv>\n<VirtualHost *:80>\nOrder allow,deny\nAllow from all\n</VirtualHost>\n"
                     "Require all granted\n</Directory>\n", id="virtualhost-in-directory"),
    ],
)
def test_no_access_fix_inside_a_configuration_httpd_refuses(text):
    """The direct nestings did not reach the wording, but HT502 "fixed" them: a rewrite that keeps the
    answers of today, of a configuration that has none (it never started)."""
    migration = migrate(configset(text))
    assert [f.code for f in migration.applied] == [] and migration.failures == []
    assert [f.line for f in migration.remaining if f.code == "HT409"] == [2]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<VirtualHost *:80>\n<Directory /x>\n</Directory>\n<Location /x>\n</Location>\n"
                     "<Proxy *>\n</Proxy>\n</VirtualHost>\n", id="vhost-holds-server-sections"),
        pytest.param("<Directory /x>\n<Files y>\n<Limit GET>\n<RequireAll>\nRequire all granted\n</RequireAll>\n"
                     "</Limit>\n</Files>\n<If true>\n<Files z>\n</Files>\n</If>\n</Directory>\n", id="per-dir-nestings"),
        pytest.param("<IfModule !mod_nothing.c>\n<Directory /x>\n<IfModule !mod_none.c>\n</IfModule>\n</Directory>\n"
                     "</IfModule>\n", id="conditions"),
        pytest.param("<Directory /x>\n<IfModule !mod_authz_core.c>\n<Location /y>\n</Location>\n</IfModule>\n"
                     "</Directory>\n", id="dead-branch-is-never-read"),
        pytest.param({"httpd.conf": "ServerName x\n", "srv/.htaccess": "<Limit GET>\nRequire all granted\n</Limit>\n"},
                     id="limit-in-htaccess"),
    ],
)
def test_noop(text):
    assert findings(text, "HT409") == []


def test_only_the_outermost_misplaced_section_is_reported():
    """httpd stops at the first; moving it out may be all that is needed for those inside."""
    text = "<Directory /x>\n<VirtualHost *:80>\n<Directory /y>\n</Directory>\n</VirtualHost>\n</Directory>\n"
    assert [(f.line, f.message.split(" (")[0]) for f in findings(text, "HT409")] == [
        (2, "<VirtualHost *:80> inside <Directory /x>")]


def test_across_an_include():
    """Include splices the file into the section: its sections stand inside it."""
    files = {"httpd.conf": "<Location /app>\nInclude app.conf\n</Location>\n",
             "app.conf": "<Files secret>\nRequire all denied\n</Files>\n"}
    [finding] = lint(configset(files), select=["HT409"])
    assert (finding.file, finding.line) == ("app.conf", 1)
    assert "<Files secret> inside <Location /app> (httpd.conf:1)" in finding.message


def test_in_an_htaccess_file():
    files = {"httpd.conf": "ServerName x\n", "srv/.htaccess": "<Directory /srv/sub>\n</Directory>\n"}
    [finding] = lint(configset(files), select=["HT409"])
    assert finding.file == "srv/.htaccess" and "an .htaccess file" in finding.message


OUTERS = [
    "Directory /srv", "DirectoryMatch ^/srv", "Location /", "LocationMatch ^/", "Files y", "FilesMatch ^y",
    "Proxy http://y/", "VirtualHost *:81", "Directory /srv;Limit POST", "Directory /srv;LimitExcept POST",
    "Directory /srv;RequireAll", "Directory /srv;RequireAny", "Directory /srv;If true", "Location /;If true",
    "Directory /srv;IfModule !mod_nothing.c", "VirtualHost *:81;Location /;IfModule !mod_nothing.c",
    "VirtualHost *:81;Directory /srv;Files y", "IfModule !mod_nothing.c", "",
]
INNERS = [
    "Directory /x", "DirectoryMatch ^/x", "Location /x", "LocationMatch ^/x", "Proxy http://x/", "ProxyMatch ^x",
    "VirtualHost *:80", "Files x", "FilesMatch ^x", "Limit GET", "LimitExcept GET", "If true",
    "AuthnProviderAlias file x", "AuthzProviderAlias user x y",
]
MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "authz_user_module", "proxy_module",
           "access_compat_module"]


def _nest(outer: str, inner: str) -> str:
    opened = [part for part in outer.split(";") if part]
    lines = [line for part in opened for line in (f"<{part}>", "Require all granted")[:2 if "Require" in part else 1]]
    lines += [f"<{inner}>", f"</{inner.split()[0]}>"]
    return "\n".join(lines + [f"</{part.split()[0]}>" for part in reversed(opened)]) + "\n"


def test_agrees_with_httpd(httpd):  # noqa: F811
    """Each section inside each section (conditions and Include are transparent): HT409 speaks exactly where
    httpd -t refuses the nesting. <Limit> at the server level included; nested <Limit>s are HT506's."""
    wrong = []
    for outer in OUTERS:
        for inner in INNERS:
            if "Limit" in outer and "Limit" in inner:
                continue  # a <Limit> that narrows another's methods or not: HT506 (model.limit_refusal)
            text = _nest(outer, inner)
            found = lint(configset({"httpd.conf": text}), select=["HT409"])
            result = configtest({"site.conf": text}, "site.conf", MODULES, httpd=httpd)
            nesting = not result.ok and any(words in result.output for words in (
                "not allowed in", "not allowed here", "cannot occur within"))
            if not result.ok and not nesting:
                wrong.append((outer, inner, "httpd refused it otherwise", result.output))
            elif bool(found) is not nesting:
                wrong.append((outer, inner, [f.message for f in found], result.output))
    assert wrong == []

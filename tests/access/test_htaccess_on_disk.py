"""A configuration directory migrated as a whole: its .htaccess files are placed where they are on disk.

A set read from a directory names its files relative to that directory (the server root), so
``www/a/.htaccess`` is ``<dir>/www/a/.htaccess``, under ``<Directory <dir>/www/a>``. It was read as
``/www/a/``: the file met no section, its ``Require`` line was left alone, and on 2.4 it replaced the
section's address rule (2.2 required both), opening the directory to every valid user from anywhere.
Judged on the real apache2, the original with mod_access_compat (2.2's answers here: the .htaccess only
adds Require lines) against the migration without it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.apache import Instance, write_htpasswd
from httpd24.cli import main

AUTH_MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module",
                "authz_user_module", "authz_host_module"]


def site(root) -> None:
    (root / "www" / "a").mkdir(parents=True)
    (root / "www" / "a" / "f.html").write_text("hello\n")
    write_htpasswd(root / "htpasswd", {"alice": "secret"})
    (root / "httpd.conf").write_text(
        f"DocumentRoot {root}/www\n"
        f"<Directory {root}/www>\n    AllowOverride All\n</Directory>\n"
        f"<Directory {root}/www/a>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n")
    (root / "www" / "a" / ".htaccess").write_text(
        f"AuthType Basic\nAuthName private\nAuthUserFile {root}/htpasswd\nRequire valid-user\n")


def answers(root, modules, httpd) -> dict:  # noqa: F811
    conf = (root / "httpd.conf").read_text()
    with Instance({"site.conf": conf}, "site.conf", modules, httpd=httpd) as srv:
        return {(source, user): srv.request("/a/f.html", source=source, user=user, password="secret").status
                for source in ("127.0.0.1", "127.0.0.2") for user in (None, "alice")}


@pytest.fixture
def root():
    """A directory httpd's children (www-data) can read: pytest's tmp_path is private to root."""
    top = Path(tempfile.mkdtemp(prefix="httpd24-htaccess-"))
    top.chmod(0o755)
    yield top / "site"
    shutil.rmtree(top)


@pytest.mark.apache
def test_an_htaccess_keeps_the_address_rule_of_its_directory(root, httpd, capsys):  # noqa: F811
    site(root)
    before = answers(root, AUTH_MODULES + ["access_compat_module"], httpd)
    assert before[("127.0.0.1", "alice")] == 403 and before[("127.0.0.2", "alice")] == 200

    assert main(["migrate", "--write", "-q", str(root)]) == 0
    capsys.readouterr()
    assert "Require ip 127.0.0.2" in (root / "www" / "a" / ".htaccess").read_text()
    assert answers(root, AUTH_MODULES, httpd) == before


@pytest.mark.apache
def test_an_htaccess_whose_directory_is_unknown_keeps_the_address_rule_wherever_it_lies(root, httpd):  # noqa: F811
    """A ConfigMap key `site/.htaccess`: no <Directory> names its directory, so it may lie in any. It was
    taken to lie under `<Directory />` only: its Require was left to replace the translated address rule
    of `<Directory www/a>` on 2.4 wherever it was mounted there. It gets `AuthMerging And` now."""
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    site(root)
    original = (root / "httpd.conf").read_text()
    htaccess = (root / "www" / "a" / ".htaccess").read_text()
    before = answers(root, AUTH_MODULES + ["access_compat_module"], httpd)

    result = migrate(ConfigSet.from_mapping({"httpd.conf": original, "site/.htaccess": htaccess}, entry="httpd.conf"))
    (root / "httpd.conf").write_bytes(result.files["httpd.conf"])
    (root / "www" / "a" / ".htaccess").write_bytes(result.files["site/.htaccess"])
    assert "Order" not in (root / "httpd.conf").read_text()
    assert answers(root, AUTH_MODULES, httpd) == before


def nested_site(root) -> None:
    """`www/a/.htaccess` asks for a user, `www/a/sub/.htaccess` for an address; no <Directory> names either."""
    (root / "www" / "a" / "sub").mkdir(parents=True)
    (root / "www" / "a" / "sub" / "f.html").write_text("hello\n")
    write_htpasswd(root / "htpasswd", {"alice": "secret"})
    (root / "httpd.conf").write_text(f"DocumentRoot {root}/www\n<Directory {root}/www>\n    AllowOverride All\n</Directory>\n")
    (root / "www" / "a" / ".htaccess").write_text(
        f"AuthType Basic\nAuthName private\nAuthUserFile {root}/htpasswd\nRequire valid-user\n")
    (root / "www" / "a" / "sub" / ".htaccess").write_text("Order allow,deny\nAllow from 127.0.0.1\n")


def nested_answers(root, modules, httpd) -> dict:  # noqa: F811
    conf = (root / "httpd.conf").read_text()
    with Instance({"site.conf": conf}, "site.conf", modules, httpd=httpd) as srv:
        return {(source, user): srv.request("/a/sub/f.html", source=source, user=user, password="secret").status
                for source in ("127.0.0.1", "127.0.0.2") for user in (None, "alice")}


@pytest.mark.apache
def test_an_htaccess_below_another_keeps_the_user_its_parent_asks_for(root, httpd, capsys):  # noqa: F811
    """2.2 merged the two files (a user and an address); on 2.4 the inner file's Require replaced the outer
    one's, unless it says `AuthMerging And`. Neither directory is named by a <Directory>, so the model
    placed neither, and took the inner file to have nothing but the server above it: anyone from
    127.0.0.1 got in without a password (401 became 200)."""
    nested_site(root)
    before = nested_answers(root, AUTH_MODULES + ["access_compat_module"], httpd)
    assert before[("127.0.0.1", None)] == 401 and before[("127.0.0.1", "alice")] == 200

    main(["migrate", "--write", "-q", str(root)])
    capsys.readouterr()
    assert "Order" not in (root / "www" / "a" / "sub" / ".htaccess").read_text()
    assert nested_answers(root, AUTH_MODULES, httpd) == before


@pytest.mark.apache
def test_an_htaccess_under_allowoverride_limit_is_left_to_a_person_before_its_require_breaks_it(root, httpd, capsys):  # noqa: F811
    """`AllowOverride Limit` let 2.2 read Order/Allow in `www/a/.htaccess`; the Require they become needs
    AuthConfig, so every request there would answer 500 on 2.4. HT505 said so only where a <Directory> named
    the file's own directory; here only its parent is named. HT501 offered the translation as safe all the
    same: `migrate --write` broke the site. Now HT501 names the AllowOverride to change and writes nothing."""
    (root / "www" / "a").mkdir(parents=True)
    (root / "www" / "a" / "f.html").write_text("hello\n")
    (root / "httpd.conf").write_text(f"DocumentRoot {root}/www\n<Directory {root}/www>\n    AllowOverride Limit\n</Directory>\n")
    text = "Order deny,allow\nDeny from all\nAllow from 127.0.0.1\n"
    (root / "www" / "a" / ".htaccess").write_text(text)
    modules = AUTH_MODULES + ["access_compat_module"]

    def answers():
        with Instance({"site.conf": (root / "httpd.conf").read_text()}, "site.conf", modules, httpd=httpd) as srv:
            return [srv.request("/a/f.html", source=source).status for source in ("127.0.0.1", "127.0.0.2")]

    assert answers() == [200, 403]
    assert main(["lint", "--select", "HT501", str(root)]) == 1
    out = capsys.readouterr().out
    assert "www/a/.htaccess" in out and "AllowOverride Limit (httpd.conf:3" in out and "add AuthConfig" in out, out
    main(["migrate", "--write", "-q", str(root)])
    capsys.readouterr()
    assert (root / "www" / "a" / ".htaccess").read_text() == text
    assert answers() == [200, 403]


@pytest.mark.apache
def test_htaccess_files_whose_directories_are_unknown_may_lie_one_below_the_other(root, httpd):  # noqa: F811
    """The same two files as keys of a set that does not say where they lie: either may be below the
    other, so the address file's Require must not replace the user file's."""
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    nested_site(root)
    before = nested_answers(root, AUTH_MODULES + ["access_compat_module"], httpd)
    files = {"httpd.conf": (root / "httpd.conf").read_text(),
             "one/.htaccess": (root / "www" / "a" / ".htaccess").read_text(),
             "two/.htaccess": (root / "www" / "a" / "sub" / ".htaccess").read_text()}

    result = migrate(ConfigSet.from_mapping(files, entry="httpd.conf"))
    (root / "www" / "a" / ".htaccess").write_bytes(result.files["one/.htaccess"])
    (root / "www" / "a" / "sub" / ".htaccess").write_bytes(result.files["two/.htaccess"])
    if b"Order" in result.files["two/.htaccess"]:  # left to a person: fine, if said so
        assert any(f.code == "HT501" and f.file == "two/.htaccess" for f in result.remaining)
    else:
        assert nested_answers(root, AUTH_MODULES, httpd) == before


@pytest.mark.apache
def test_an_access_line_httpd_refuses_in_an_htaccess_is_a_500_not_a_refusal_to_start(root, httpd):  # noqa: F811
    """HT506 said "httpd refuses to start" for an .htaccess line too: httpd reads .htaccess files per request,
    starts, and answers 500 under that directory (the live server shows it), which is what the message says."""
    from ruletest import configset

    from httpd24.engine import lint

    site(root)
    (root / "www" / "a" / ".htaccess").write_text("Order deny,allow\nAllow from 10.0.0.0/33\n")
    conf = (root / "httpd.conf").read_text()
    with Instance({"site.conf": conf}, "site.conf", AUTH_MODULES + ["access_compat_module"], httpd=httpd) as srv:
        assert srv.request("/a/f.html").status == 500
        assert srv.request("/").status != 500
    [finding] = lint(configset((root / "www" / "a" / ".htaccess").read_text(), ".htaccess"), select=["HT506"])
    assert "refuses to start" not in finding.message
    assert "answers 500 for every request under this .htaccess's directory" in finding.message, finding.message

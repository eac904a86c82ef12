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

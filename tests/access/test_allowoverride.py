"""What AllowOverride makes of an .htaccess file's access lines, measured on apache2, and the model's reading.

Measured (2.4, with and without mod_access_compat): `AllowOverride None` -- the file is not read at all, whatever
it holds; a class that lets its lines through -- they apply (Order/Allow/Deny: Limit, Require/Satisfy/AuthType:
AuthConfig, Options: Options); a line whose class is not allowed -- "<Directive> not allowed here", 500 for every
request under its directory. And with no AllowOverride anywhere the file IS read (core's OR_UNSET bit counts as
some override in the directory walk) and every line of it is refused: 500, not "ignored" as 2.4's default None
suggests. 2.2 read the same classes (core.c and mod_authz_host of 2.2 declare them alike), its default was All.

The model read every .htaccess file as if its lines were allowed: under `AllowOverride None` it applied a file
httpd never opens (403 where apache2 answers 200).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.access import Request, build, decide_22, decide_compat
from httpd24.apache import Instance
from httpd24.config import ConfigSet

MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module", "authz_user_module",
           "authz_host_module"]
BODIES = {"order": "Order deny,allow\nDeny from all\n", "require": "Require all denied\n",
          "options": "Options -Indexes\n"}
#: AllowOverride -> body -> status of /a/f.html (with mod_access_compat).
MEASURED = {
    None: {"order": 500, "require": 500, "options": 500},
    "None": {"order": 200, "require": 200, "options": 200},
    "All": {"order": 403, "require": 403, "options": 200},
    "AuthConfig": {"order": 500, "require": 403, "options": 500},
    "Limit": {"order": 403, "require": 500, "options": 500},
    "Options": {"order": 500, "require": 500, "options": 200},
}


def config(root, override: str | None) -> str:
    return f"DocumentRoot {root}/www\n" + (
        f"<Directory {root}/www>\n    AllowOverride {override}\n</Directory>\n" if override else "")


@pytest.mark.apache
def test_apache2_reads_an_htaccess_as_allowoverride_says(httpd):  # noqa: F811
    top = Path(tempfile.mkdtemp(prefix="httpd24-allowoverride-"))
    try:
        top.chmod(0o755)
        (top / "www" / "a").mkdir(parents=True)
        (top / "www" / "a" / "f.html").write_text("hello\n")
        got: dict = {}
        for override in MEASURED:
            for name, body in BODIES.items():
                (top / "www" / "a" / ".htaccess").write_text(body)
                with Instance({"site.conf": config(top, override)}, "site.conf", MODULES + ["access_compat_module"],
                              httpd=httpd) as srv:
                    got.setdefault(override, {})[name] = srv.request("/a/f.html").status
        assert got == MEASURED
    finally:
        shutil.rmtree(top)


def test_the_model_reads_no_htaccess_under_allowoverride_none():
    for body in ("Order deny,allow\nDeny from all\n", "Require all denied\n"):
        files = {"httpd.conf": config("/srv", "None"), "srv/www/a/.htaccess": body}
        model = build(ConfigSet.from_mapping(files, entry="httpd.conf"))
        request = Request("/a/f.html")
        assert decide_22(model, request) == 200 and decide_compat(model, request) == 200, body
        # Under the Directory's AllowOverride All it is read, as before.
        files["httpd.conf"] = config("/srv", "All")
        model = build(ConfigSet.from_mapping(files, entry="httpd.conf"))
        assert decide_compat(model, request) == 403, body

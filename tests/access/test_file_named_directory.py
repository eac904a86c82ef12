"""A `<Location /a/f.html/>` does not certainly meet `<Directory /srv/www/a/f.html>`: f.html may be a file.

apache2 tests a <Directory> against a request's path only as far as the walk finds directories: a file's name
followed by more of the URL (/a/f.html/ and /a/f.html/x, path info) or a name that is not there meets none of
the sections named after it (measured below, with every Options that decides how the walk looks at names). The
plan took the Location's own path for a directory every request of it lies in, so it wrote the Directory's
address rules into the Location, and so did normalize_22 (the reference of --verify): both answered 403 where
the original on 2.4 + mod_access_compat -- 2.2's answers here, nothing is inherited otherwise than there --
answered 401 and 404. The test harness cannot show it (it makes every path a <Directory> names a directory), so
the tree is built here, with f.html a file.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.access import normalize_22, translate
from httpd24.apache import Instance, write_htpasswd
from httpd24.config import ConfigSet

pytestmark = pytest.mark.apache

MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module", "authz_user_module",
           "authz_host_module"]
PATHS = ("/a/f.html", "/a/f.html/", "/a/f.html/x", "/a/missing.html", "/a/missing.html/x")


@pytest.fixture
def root():
    """A directory httpd's children (www-data) can read, with /a/f.html a file."""
    top = Path(tempfile.mkdtemp(prefix="httpd24-file-dir-"))
    top.chmod(0o755)
    (top / "www" / "a").mkdir(parents=True)
    (top / "www" / "a" / "f.html").write_text("hello\n")
    write_htpasswd(top / "htpasswd", {"alice": "secret"})
    yield top
    shutil.rmtree(top)


def answers(conf: str, modules, httpd) -> dict:  # noqa: F811
    with Instance({"site.conf": conf}, "site.conf", modules, httpd=httpd) as srv:
        return {(path, source, user): srv.request(path, source=source, user=user, password="secret").status
                for path in PATHS for source in ("127.0.0.1", "127.0.0.2") for user in (None, "alice")}


def test_a_section_named_after_a_file_meets_no_request_with_more_path(root, httpd):  # noqa: F811
    for options in ("FollowSymLinks", "-FollowSymLinks", "SymLinksIfOwnerMatch"):
        for name in ("f.html", "f.html/", "missing.html"):
            conf = (f"DocumentRoot {root}/www\n<Directory {root}/www>\n    Options {options}\n</Directory>\n"
                    f"<Directory {root}/www/a/{name}>\n    Require all denied\n</Directory>\n")
            got = answers(conf, ["authz_core_module"], httpd)
            assert {path for (path, _, _), status in got.items() if status == 403} == (
                {"/a/f.html"} if options == "FollowSymLinks" and name != "missing.html" else set()), (options, name)


def cases(root) -> dict[str, str]:
    auth = f'    AuthType Basic\n    AuthName "r"\n    AuthUserFile {root}/htpasswd\n'
    return {
        # The Directory's Deny went into the Location: 403 for 127.0.0.2 at /a/f.html/x (401, then 404, before).
        "narrowed": (f"DocumentRoot {root}/www\n<Directory {root}/www/a/f.html>\n    Order deny,allow\n"
                     f"    Deny from 127.0.0.2\n</Directory>\n<Location /a/f.html/>\n{auth}    Require valid-user\n"
                     "</Location>\n"),
        # The Directory's Allow from all went into the Location, past the server's Deny (403 before).
        "widened": (f"DocumentRoot {root}/www\n<Directory {root}/www>\n    Order deny,allow\n    Deny from 127.0.0.2\n"
                    f"</Directory>\n<Directory {root}/www/a/f.html>\n    Order allow,deny\n    Allow from all\n"
                    f"</Directory>\n<Location /a/f.html/>\n{auth}    Require valid-user\n</Location>\n"),
    }


@pytest.mark.parametrize("label", ["narrowed", "widened"])
def test_the_translation_answers_as_the_original_where_the_directory_is_a_file(root, httpd, label):  # noqa: F811
    text = cases(root)[label]
    original = answers(text, MODULES + ["access_compat_module"], httpd)
    configset = ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
    reference = answers(normalize_22(configset).documents["httpd.conf"].render().decode(),
                        MODULES + ["access_compat_module"], httpd)
    assert reference == original
    translated = translate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert answers(translated.documents["httpd.conf"].render().decode(), MODULES, httpd) == original

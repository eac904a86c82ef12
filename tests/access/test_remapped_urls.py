"""A <Location> whose URLs are proxied or mapped by a regex meets other sections than DocumentRoot says.

Proxied URLs (ProxyPass, RewriteRule [P]) meet <Proxy> sections and no <Directory> at all; URLs that
AliasMatch or a server RewriteRule map land in the target's <Directory>. The model read neither, so a
proxied `<Location /app>` with `Satisfy Any` under a `<Proxy *>` address rule became `Require all
granted` (401 -> 200 for anyone), and a `<Location /docs>` over an AliasMatch into a restricted
directory lost the address rule (403 -> 200 for any valid user). Judged on the real apache2: the
original with 2.2's inheritance written out (normalize_22) on 2.4 with mod_access_compat against the
migration without it. The backend of ProxyPass is a closed port,
so a request that gets through access control answers 503.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.access import normalize_notes
from httpd24.apache import Instance, write_htpasswd
from httpd24.config import ConfigSet
from httpd24.engine import migrate

pytestmark = pytest.mark.apache

MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module",
           "authz_user_module", "authz_host_module", "alias_module", "rewrite_module", "proxy_module",
           "proxy_http_module"]
AUTH = "    AuthType Basic\n    AuthName x\n    AuthUserFile {root}/htpasswd\n"
BACKEND = "http://127.0.0.1:9/"

#: name -> (configuration, paths). The reference is 2.2's inheritance written out (normalize_22) where a
#: <Location> holds `Satisfy`; where it holds only Require lines, normalize_22 may not know which
#: <Directory> applies, and needs not: 2.4 + mod_access_compat keeps the inherited Order/Allow/Deny
#: apart from Require lines, as 2.2 did, so the original itself is the reference.
CASES = {
    # 2.2 (and 2.4 + mod_access_compat): the <Proxy *> address rule or a valid user.
    "proxy-satisfy-any": (
        f"ProxyPass /app {BACKEND}\n"
        "<Proxy *>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Proxy>\n"
        f"<Location /app>\n{AUTH}    Require valid-user\n    Satisfy Any\n</Location>\n",
        ["/app", "/app/x"]),
    # The <Directory> of the DocumentRoot never applies to proxied URLs: a valid user from anywhere.
    "proxy-meets-no-directory": (
        "<Directory {root}/www>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n"
        f"ProxyPass /app {BACKEND}\n"
        f"<Location /app>\n{AUTH}    Require valid-user\n</Location>\n",
        ["/app/x", "/f.html"]),
    "rewrite-proxy": (
        "<Proxy *>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Proxy>\n"
        f"RewriteEngine On\nRewriteRule ^/app/(.*)$ {BACKEND}$1 [P]\n"
        f"<Location /app>\n{AUTH}    Require valid-user\n    Satisfy Any\n</Location>\n",
        ["/app/x", "/f.html"]),
    # Some URLs of the Location are proxied, the others meet the DocumentRoot's <Directory>.
    "partly-proxied": (
        "<Directory {root}/www>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n"
        f"ProxyPass /app {BACKEND}\n"
        f"<Location />\n{AUTH}    Require valid-user\n</Location>\n",
        ["/app/x", "/f.html", "/c/f.html"]),
    "aliasmatch-into-a-restricted-directory": (
        "AliasMatch ^/docs/(.*)$ {root}/www/c/$1\n"
        "<Directory {root}/www/c>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n"
        f"<Location /docs>\n{AUTH}    Require valid-user\n</Location>\n",
        ["/docs/f.html", "/c/f.html", "/f.html"]),
    "rewrite-into-a-restricted-directory": (
        "RewriteEngine On\nRewriteRule ^/docs/(.*)$ {root}/www/c/$1\n"
        "<Directory {root}/www/c>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n"
        f"<Location /docs>\n{AUTH}    Require valid-user\n</Location>\n",
        ["/docs/f.html", "/c/f.html", "/f.html"]),
    # [PT] hands /c/f.html on: the Location walk after translation reads the new URL, so <Location /docs>
    # (a valid user from anywhere) does not apply to /docs/f.html; the <Directory> of /c does, as for a
    # request of /c/f.html itself. The model reads [PT] as no remap, which this shows is enough.
    "rewrite-passthrough": (
        "RewriteEngine On\nRewriteRule ^/docs/(.*)$ /c/$1 [PT]\n"
        "<Directory {root}/www/c>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n"
        f"<Location /docs>\n{AUTH}    Require valid-user\n    Satisfy Any\n</Location>\n",
        ["/docs/f.html", "/c/f.html", "/f.html"]),
}


#: Where the translation depends on the request: /app itself is not proxied by `^/app/`, and there
#: `Satisfy Any` without the <Proxy *> rules admits everyone.
LEFT_TO_A_PERSON = {"rewrite-proxy"}


@pytest.fixture(scope="module")
def root():
    """A document tree httpd's children (www-data) can read: pytest's tmp_path is private to root."""
    top = Path(tempfile.mkdtemp(prefix="httpd24-remap-"))
    top.chmod(0o755)
    (top / "www" / "c").mkdir(parents=True)
    (top / "www" / "f.html").write_text("root\n")
    (top / "www" / "c" / "f.html").write_text("c\n")
    write_htpasswd(top / "htpasswd", {"alice": "secret"})
    yield top
    shutil.rmtree(top)


def answers(conf: str, modules: list[str], paths: list[str], httpd) -> dict:  # noqa: F811
    with Instance({"site.conf": conf}, "site.conf", modules, httpd=httpd) as srv:
        return {(path, source, user): srv.request(path, source=source, user=user, password="secret").status
                for path in paths for source in ("127.0.0.1", "127.0.0.2") for user in (None, "alice")}


def site(name: str, root: Path) -> tuple[str, list[str]]:
    text, paths = CASES[name]
    return f"DocumentRoot {root}/www\n" + text.replace("{root}", str(root)), paths


def reference(original: str, paths: list[str], httpd) -> dict:  # noqa: F811
    """2.2's answers. 2.4 + mod_access_compat alone does not give them where a section sets `Satisfy`:
    it moved into the module that holds Order/Allow/Deny, so a section with only `Satisfy Any` drops the
    inherited address rules there (research notes §5); normalize_22 writes them out."""
    if "Satisfy" in original:
        normalized, notes = normalize_notes(ConfigSet.from_mapping({"httpd.conf": original}, entry="httpd.conf"))
        assert notes == []
        original = normalized.render()["httpd.conf"].decode()
    return answers(original, MODULES + ["access_compat_module"], paths, httpd)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_remapped_location_answers_as_before(name, root, httpd):  # noqa: F811
    original, paths = site(name, root)
    result = migrate(ConfigSet.from_mapping({"httpd.conf": original}, entry="httpd.conf"))
    left = [f for f in result.remaining if f.code.startswith("HT5")]
    if left:  # a person decides, and is told where
        assert any("a person must decide" in f.message for f in left), [f.message for f in left]
        assert name in LEFT_TO_A_PERSON
        return
    migrated = result.files["httpd.conf"].decode()
    assert "Order" not in migrated and "Satisfy" not in migrated, migrated
    assert answers(migrated, MODULES, paths, httpd) == reference(original, paths, httpd)


@pytest.mark.parametrize("name, request_, before", [
    ("proxy-satisfy-any", ("/app/x", "127.0.0.1", None), 401),
    ("proxy-satisfy-any", ("/app/x", "127.0.0.2", None), 503),
    ("proxy-meets-no-directory", ("/app/x", "127.0.0.1", "alice"), 503),
    ("aliasmatch-into-a-restricted-directory", ("/docs/f.html", "127.0.0.1", "alice"), 403),
    ("rewrite-into-a-restricted-directory", ("/docs/f.html", "127.0.0.2", "alice"), 200),
    ("rewrite-passthrough", ("/docs/f.html", "127.0.0.1", "alice"), 403),
    ("rewrite-passthrough", ("/docs/f.html", "127.0.0.2", None), 200),
])
def test_the_reference_reads_these_as_2_2_did(name, request_, before, root, httpd):  # noqa: F811
    """The reference itself, on requests whose 2.2 answer follows from the research notes (§2(d))."""
    original, _ = site(name, root)
    path, source, user = request_
    assert reference(original, [path], httpd)[request_] == before

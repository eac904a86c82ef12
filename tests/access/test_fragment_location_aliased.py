"""A fragment's `<Location /app>` lies where the configuration including it maps /app.

A fragment (a file another configuration includes: no ServerRoot, PidFile or User of its own) that sets
no DocumentRoot is served under its includer's (Debian's /var/www), which may also Alias its URLs.
The model took `<Location /app>` to map under httpd's compiled-in DocumentRoot, so the fragment's own
`<Directory /srv/app>` never met it: `Require valid-user` + `Satisfy Any` there became `Require all
granted`, and where the includer maps /app into /srv/app (its DocumentRoot is /srv, or an Alias), 2.2
asked everyone but the directory's addresses for a password and the migration let them all in
(401 -> 200). Such a Location is now left to a person, saying why. Judged on the real apache2: the
includer's line is in the server both sides run; the reference is 2.2's inheritance written out by hand
for those URLs (the Location takes the Directory's Order/Allow/Deny, as 2.2's merge does), on 2.4 with
mod_access_compat.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.apache import Instance, write_htpasswd
from httpd24.config import ConfigSet
from httpd24.engine import migrate

pytestmark = pytest.mark.apache

MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module",
           "authz_user_module", "authz_host_module", "alias_module"]
AUTH = "    AuthType Basic\n    AuthName x\n    AuthUserFile {root}/htpasswd\n"
DIRECTORY = "<Directory {root}/app>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Directory>\n"
FRAGMENT = DIRECTORY + f"<Location /app>\n{AUTH}    Require valid-user\n    Satisfy any\n</Location>\n"
#: 2.2 for URLs the Alias maps into {root}/app: the Location inherits the Directory's address rules (its
#: own authz_host config is empty; research notes §5), which 2.4 + mod_access_compat would drop.
REFERENCE = DIRECTORY + (f"<Location /app>\n{AUTH}    Require valid-user\n    Satisfy any\n"
                         "    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Location>\n")
#: What the including configuration adds, each mapping /app/f.html to {root}/app/f.html: the server's
#: other half, which the fragment cannot see.
INCLUDERS = ["DocumentRoot {root}\n", "Alias /app {root}/app\n"]
REQUESTS = [(source, user) for source in ("127.0.0.1", "127.0.0.2") for user in (None, "alice")]


@pytest.fixture(scope="module")
def root():
    """A tree httpd's children (www-data) can read: pytest's tmp_path is private to root."""
    top = Path(tempfile.mkdtemp(prefix="httpd24-fragloc-"))
    top.chmod(0o755)
    (top / "app").mkdir()
    (top / "app" / "f.html").write_text("app\n")
    write_htpasswd(top / "htpasswd", {"alice": "secret"})
    yield top
    shutil.rmtree(top)


def answers(fragment: str, modules: list[str], root: Path, includer: str, httpd) -> dict:  # noqa: F811
    with Instance({"site.conf": fragment}, "site.conf", modules, httpd=httpd,
                  extra=includer.replace("{root}", str(root))) as srv:
        return {(source, user): srv.request("/app/f.html", source=source, user=user, password="secret").status
                for source, user in REQUESTS}


@pytest.mark.parametrize("includer", INCLUDERS)
def test_the_reference_reads_the_location_as_2_2_did(root, includer, httpd):  # noqa: F811
    """The Directory's addresses get in without a password, everyone else needs one (Satisfy Any)."""
    reference = answers(REFERENCE.replace("{root}", str(root)), MODULES + ["access_compat_module"], root, includer,
                        httpd)
    assert reference == {("127.0.0.1", None): 401, ("127.0.0.1", "alice"): 200,
                         ("127.0.0.2", None): 200, ("127.0.0.2", "alice"): 200}


@pytest.mark.parametrize("includer", INCLUDERS)
def test_a_fragment_location_answers_as_before_wherever_the_includer_maps_it(root, includer, httpd):  # noqa: F811
    fragment = FRAGMENT.replace("{root}", str(root))
    result = migrate(ConfigSet.from_mapping({"site.conf": fragment}, entry="site.conf"))
    left = [f for f in result.remaining if f.code.startswith("HT5")]
    if left:
        assert any("a person must decide" in f.message and "the DocumentRoot of the configuration including it"
                   in f.message for f in left), [f.message for f in left]
        return
    migrated = result.files["site.conf"].decode()
    assert "Order" not in migrated and "Satisfy" not in migrated, migrated
    reference = answers(REFERENCE.replace("{root}", str(root)), MODULES + ["access_compat_module"], root, includer,
                        httpd)
    assert answers(migrated, MODULES, root, includer, httpd) == reference, migrated


def test_a_fragment_that_sets_its_document_root_is_translated_and_answers_as_before(root, httpd):  # noqa: F811
    """Where the fragment says where its URLs lie, nothing is guessed: its DocumentRoot's <Directory>
    meets the Location, the translation is written, and proven on a server whose includer adds nothing."""
    def fragment(text: str) -> str:
        return f"DocumentRoot {root}\n" + text.replace("<Directory {root}/app>", "<Directory {root}>").replace(
            "{root}", str(root))

    result = migrate(ConfigSet.from_mapping({"site.conf": fragment(FRAGMENT)}, entry="site.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining
    migrated = result.files["site.conf"].decode()
    reference = answers(fragment(REFERENCE), MODULES + ["access_compat_module"], root, "", httpd)
    assert reference[("127.0.0.1", None)] == 401
    assert answers(migrated, MODULES, root, "", httpd) == reference, migrated


#: A main-server Location in a fragment whose virtual hosts set their own DocumentRoot: in each of them /admin
#: lies under it, and in the main server (the includer's DocumentRoot) under none of the virtual hosts'
#: <Directory> sections. `Satisfy any` inherits `Allow from all` (a) or 2.2's default (b, main): open to all.
VHOSTS = (
    "<Location /admin>\n    AuthType Basic\n    AuthName admin\n    AuthUserFile /etc/pw\n    Require valid-user\n"
    "    Satisfy any\n</Location>\n"
    "<VirtualHost *:80>\n    ServerName a.test\n    DocumentRoot /srv/a\n"
    "    <Directory /srv/a>\n        Order allow,deny\n        Allow from all\n    </Directory>\n</VirtualHost>\n"
    "<VirtualHost *:80>\n    ServerName b.test\n    DocumentRoot /srv/b\n"
    "    <Directory /srv/b/private>\n        Order deny,allow\n        Deny from all\n        Allow from 127.0.0.2\n"
    "    </Directory>\n</VirtualHost>\n"
)
#: A virtual host without a DocumentRoot of its own lies under the includer's, which may be /srv/c.
WITHOUT_ITS_OWN = ("<VirtualHost *:80>\n    ServerName c.test\n    <Directory /srv/c/admin>\n        Order deny,allow\n"
                   "        Deny from all\n        Allow from 127.0.0.2\n    </Directory>\n</VirtualHost>\n")


def test_the_directories_of_virtual_hosts_that_set_their_document_root_are_not_guessed(httpd):  # noqa: F811
    """Where only the main server guesses, the Location meets the main server's <Directory> sections there, not
    those of virtual hosts that map /admin themselves: the translation is written, and answers as 2.2."""
    from httpd24.apache import differential

    result = migrate(ConfigSet.from_mapping({"httpd.conf": VHOSTS}, entry="httpd.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining
    migrated = result.files["httpd.conf"].decode()
    report = differential.verify(VHOSTS, migrated, httpd=httpd)
    assert report.ok, report.format()
    assert any(q.path.startswith("/admin") for q in report.statuses), sorted({q.path for q in report.statuses})

    refused = migrate(ConfigSet.from_mapping({"httpd.conf": VHOSTS + WITHOUT_ITS_OWN}, entry="httpd.conf"))
    assert any(f.code == "HT501" and "<Location /admin>" in f.message and "a person must decide" in f.message
               for f in refused.remaining), refused.remaining


#: The Location's own Order/Allow/Deny replace the directory's (2.2's mod_authz_host merges nothing): wherever
#: the includer maps /app, it is open to all, and the directory's address rules do not make it depend on that.
OWN_HOST_RULES = DIRECTORY + "<Location /app>\n    Order allow,deny\n    Allow from all\n</Location>\n"


@pytest.mark.parametrize("includer", INCLUDERS)
def test_a_fragment_location_with_its_own_address_rules_is_translated_and_answers_as_before(root, includer, httpd):  # noqa: F811
    fragment = OWN_HOST_RULES.replace("{root}", str(root))
    result = migrate(ConfigSet.from_mapping({"site.conf": fragment}, entry="site.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining
    migrated = result.files["site.conf"].decode()
    reference = answers(fragment, MODULES + ["access_compat_module"], root, includer, httpd)
    assert set(reference.values()) == {200}
    assert answers(migrated, MODULES, root, includer, httpd) == reference, migrated


def test_many_such_pairs_in_a_fragment_stay_within_the_analysis_budget():
    """1,500 <Directory>/<Location> pairs like that one were all refused ("more than 250,000 pairs") once every
    Location of a fragment could meet every <Directory>; those with only address rules are not such pairs."""
    text = "".join(OWN_HOST_RULES.replace("{root}/app", f"/srv/d{i}").replace("/app", f"/l{i}") for i in range(600))
    result = migrate(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining[:3]

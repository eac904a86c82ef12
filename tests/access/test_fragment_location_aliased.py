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

from httpd24.apache import Instance, differential, write_htpasswd
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
    (top / "www").mkdir()
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
    _migrated, report = _proven(VHOSTS, httpd)
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


#: A fragment may set its DocumentRoot and still be served through its includer's Aliases: `<Directory
#: {root}/app>` lies outside {root}/www, and only an Alias of the includer's can put URLs there.
OWN_ROOT = "DocumentRoot {root}/www\n"


def test_a_fragment_location_meets_a_directory_only_an_includers_alias_reaches(root, httpd):  # noqa: F811
    """The model mapped /app under the fragment's DocumentRoot only, and wrote `Require all granted` for the
    Location: with the includer's `Alias /app {root}/app`, anonymous clients outside the Directory's addresses
    got 200 where 2.2 asked them for a password. Now left to a person, naming the directory."""
    fragment = (OWN_ROOT + FRAGMENT).replace("{root}", str(root))
    reference = answers((OWN_ROOT + REFERENCE).replace("{root}", str(root)), MODULES + ["access_compat_module"],
                        root, INCLUDERS[1], httpd)
    assert reference[("127.0.0.1", None)] == 401, reference
    assert answers(_written_before(fragment), MODULES, root, INCLUDERS[1], httpd)[("127.0.0.1", None)] == 200
    result = migrate(ConfigSet.from_mapping({"site.conf": fragment}, entry="site.conf"))
    [left] = [f for f in result.remaining if f.code == "HT501" and f.message.startswith("<Location /app>")]
    assert f"an Alias of the configuration including it may put its URLs in <Directory {root}/app>" in left.message


def _written_before(fragment: str) -> str:
    """The translation the model wrote when it mapped /app under the fragment's DocumentRoot only."""
    return fragment.replace("Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2", "Require ip 127.0.0.2"
                            ).replace("Require valid-user\n    Satisfy any", "Require all granted")


def test_the_harness_runs_a_fragment_that_sets_its_document_root_under_an_includers_alias(httpd):  # noqa: F811
    """The proofs run such a fragment under `Alias /app /srv/app` too, and there that translation answers
    otherwise than 2.2; the translation of a Location with address rules of its own answers as 2.2 there."""
    text = (OWN_ROOT + FRAGMENT).replace("{root}", "/srv")
    aliased = f"{differential.INCLUDER_UNIT} Alias /app /srv/app)"
    assert list(differential.prepare(text)) == ["main", aliased]
    # The reference (2.2's inheritance made explicit where the model sees it) answers as that translation: the
    # model of 2.2, told where the Alias puts each URL, is the judge.
    report = differential.verify(text, _written_before(text), httpd=httpd)
    assert report.ok, report.format()
    wrong = differential.against_model(report, text)
    assert {m.request.unit for m in wrong} == {aliased}, wrong
    _migrated, report = _proven((OWN_ROOT + OWN_HOST_RULES).replace("{root}", "/srv"), httpd)
    assert any(q.unit == aliased and q.path.startswith("/app/") for q in report.statuses), report.format()


def _in_a_virtual_host(text: str) -> str:
    return "<VirtualHost *:80>\n    ServerName app.test\n" + text + "</VirtualHost>\n"


def test_the_harness_runs_a_fragments_virtual_host_under_an_includers_alias_too(httpd):  # noqa: F811
    """A virtual host inherits its includer's Aliases (and DocumentRoot) as the main server does: the same
    fragment inside a <VirtualHost> gets the same unit, where the same wrong translation shows."""
    text = _in_a_virtual_host((OWN_ROOT + FRAGMENT).replace("{root}", "/srv"))
    host = "vhost1 <VirtualHost *:80> (httpd.conf)"
    aliased = f"{host} {differential.INCLUDER} Alias /app /srv/app)"
    assert list(differential.prepare(text)) == ["main", host, aliased]
    report = differential.verify(text, _written_before(text), httpd=httpd)
    assert report.ok, report.format()
    assert {m.request.unit for m in differential.against_model(report, text)} == {aliased}
    own_rules = _in_a_virtual_host((OWN_ROOT + OWN_HOST_RULES).replace("{root}", "/srv"))
    _migrated, report = _proven(own_rules, httpd)
    assert any(q.unit == aliased and q.path.startswith("/app/") for q in report.statuses), report.format()
    assert not differential.against_model(report, own_rules)
    # without a DocumentRoot of its own or of the fragment's main server: the includer's
    roots = [label for label in differential.prepare(_in_a_virtual_host(FRAGMENT.replace("{root}", "/srv")))
             if differential.INCLUDER in label]
    assert roots == [f"{host} {differential.INCLUDER} DocumentRoot {root})" for root in ("/srv", "/srv/app")]


#: From the campaigns (wide 110 index 383, narrow 111 index 493): a Location whose Directory named after it lies
#: outside the DocumentRoot -- with address rules only, or empty -- was still taken to lie under the DocumentRoot
#: for certain, so its translation carried the DocumentRoot <Directory>'s Require lines (500 without an AuthType
#: there) or address rules (403) into URLs the includer's Alias puts in that directory, where 2.2 applied neither.
UNDER_AN_ALIAS_ONLY = {
    "address rules only": "DocumentRoot /srv/www\n<Location ~ \"^/a/b\">\n    Order mutual-failure\n"
                          "    Allow from 127.0.0.1/32 ALL ::/127\n    Allow from 127.0.0.2 127.1\n</Location>\n"
                          "<Directory /srv/a>\n    Options All\n    Deny from ::1\n</Directory>\n"
                          "<Directory /srv/www>\n    Options All\n    AuthGroupFile /etc/httpd/groups\n"
                          "    Require group staff\n    <Limit GET>\n        AuthType Basic\n"
                          "        AuthName \"restricted\"\n        AuthUserFile /etc/httpd/users\n"
                          "        Require group admins\n    </Limit>\n</Directory>\n",
    "empty": "DocumentRoot /srv/www\n<Directory /srv/www>\n    Order deny,allow\n    Deny from ::1 127.1.0.0/16\n"
             "    Deny from 192.168.2 env=!HTTPD24_A\n    AuthGroupFile /etc/httpd/groups\n    Require group staff\n"
             "</Directory>\n<Directory /srv/a/b>\n</Directory>\n<Location /a/b>\n    Require user bob carol\n"
             "</Location>\n",
}


@pytest.mark.parametrize("name", sorted(UNDER_AN_ALIAS_ONLY))
def test_a_location_named_as_a_directory_outside_the_document_root_may_lie_there(name, httpd):  # noqa: F811
    """Translated, it answers as the model of 2.2 says in every unit the harness runs, the includer's Alias ones
    among them; or it is left to a person."""
    text = UNDER_AN_ALIAS_ONLY[name]
    assert any(f"{differential.INCLUDER_UNIT} Alias /a" in label for label in differential.prepare(text))
    result = migrate(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))
    if [f for f in result.remaining if f.code.startswith("HT5")]:
        return
    report = differential.verify(text, result.files["site.conf"].decode(), httpd=httpd)
    assert report.ok, report.format()
    assert not differential.against_model(report, text)


def test_a_fragment_location_with_its_own_address_rules_is_translated_whatever_the_includer_aliases(root, httpd):  # noqa: F811
    """Its own Order/Allow/Deny replace the unreached directory's: nothing is left to a person, and the migration
    answers as 2.2 where the includer's Alias puts /app in that directory."""
    fragment = (OWN_ROOT + OWN_HOST_RULES).replace("{root}", str(root))
    result = migrate(ConfigSet.from_mapping({"site.conf": fragment}, entry="site.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining
    reference = answers(fragment, MODULES + ["access_compat_module"], root, INCLUDERS[1], httpd)
    assert answers(result.files["site.conf"].decode(), MODULES, root, INCLUDERS[1], httpd) == reference


#: A whole server configuration whose Include names files the set does not hold (a ConfigMap's keys have no
#: conf.d/): the server may read an Alias there, as the includer of a fragment may.
INCLUDING = "ServerRoot /etc/httpd\nPidFile /run/httpd.pid\nInclude conf.d/*.conf\n"


def test_a_server_that_includes_files_it_does_not_show_is_read_as_a_fragment_is():
    """What a fragment's includer may map, a file the server includes may map too: the Location that the
    previous tests prove answers otherwise under such an Alias is left to a person, saying which Include; once
    the set shows that file (without the Alias), nothing is unseen and it is translated."""
    text = (INCLUDING + OWN_ROOT + FRAGMENT).replace("{root}", "/srv")
    result = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    [left] = [f for f in result.remaining if f.code == "HT501" and f.message.startswith("<Location /app>")]
    assert ("httpd.conf:3 includes conf.d/*.conf, which httpd24 did not read: an Alias of that file may put its "
            "URLs in <Directory /srv/app>") in left.message, left.message
    shown = migrate(ConfigSet.from_mapping({"httpd.conf": text, "conf.d/site.conf": "ServerAdmin root@localhost\n"},
                                           entry="httpd.conf"))
    assert not [f for f in shown.remaining if f.code.startswith("HT5")], shown.remaining
    # the same Include in a branch 2.4 never reads hides nothing
    dead = text.replace("Include conf.d/*.conf", "<IfVersion < 2.3>\nInclude conf.d/*.conf\n</IfVersion>")
    unread = migrate(ConfigSet.from_mapping({"httpd.conf": dead}, entry="httpd.conf"))
    assert not [f for f in unread.remaining if f.code.startswith("HT5")], unread.remaining


def test_many_such_pairs_in_a_fragment_stay_within_the_analysis_budget():
    """1,500 <Directory>/<Location> pairs like that one were all refused ("more than 250,000 pairs") once every
    Location of a fragment could meet every <Directory>; those with only address rules are not such pairs."""
    text = "".join(OWN_HOST_RULES.replace("{root}/app", f"/srv/d{i}").replace("/app", f"/l{i}") for i in range(600))
    result = migrate(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining[:3]


#: The <Directory> holds a Require line, which a Location with address rules only inherits on 2.2 and on 2.4:
#: under the includer's /var/www, /admin asks 127.0.0.2 for a password as well.
REQUIRE_INHERITED = (
    "<Directory /var/www/admin>\n    AuthType Basic\n    AuthName admin\n    AuthUserFile /etc/pw\n"
    "    Require valid-user\n</Directory>\n"
    "<Location /admin>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Location>\n"
)


def test_the_harness_runs_a_fragment_under_its_includers_document_root_and_holds_the_migration_to_it(httpd):  # noqa: F811
    """The proofs (migrate --verify, the campaigns) run a fragment that sets no DocumentRoot under one that puts
    its Location on its Directory too. There the translation the model wrote when it took /admin to lie under
    none of them (`Require ip` alone, replacing the inherited `Require valid-user`) lets 127.0.0.2 in without a
    password, which the unit shows; the migration (`AuthMerging And`) answers as 2.2 in every unit."""
    labels = list(differential.prepare(REQUIRE_INHERITED))
    debian = f"{differential.INCLUDER_UNIT} DocumentRoot /var/www)"
    assert labels[0] == "main" and debian in labels
    replaced = REQUIRE_INHERITED.replace("Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2",
                                         "Require ip 127.0.0.2")
    wrong = differential.verify(REQUIRE_INHERITED, replaced, httpd=httpd)
    missed = {m.request.unit for m in wrong.mismatches}
    assert debian in missed and all(differential.INCLUDER_UNIT in unit for unit in missed), wrong.format()
    assert "AuthMerging And" in _proven_under_includers(REQUIRE_INHERITED, httpd)


#: Sections of other kinds under which the includer's DocumentRoot puts the Location: an anchored DirectoryMatch
#: (campaign wide 104, index 444: it was left out, and `Require user alice` replaced its address rules, 403 ->
#: 500), a <Files> inside a <Directory>, and a <Files> inside the Location itself (which httpd refuses: reported,
#: where including it among the directories the Location may lie in recursed without end).
OTHER_KINDS = {
    "directorymatch": "<LocationMatch ^/c/>\n    AuthType Basic\n    AuthName x\n    AuthUserFile /etc/pw\n"
                      "    Require user alice\n</LocationMatch>\n<DirectoryMatch ^/srv/www/a/>\n    Order deny,allow\n"
                      "    Deny from all\n    Allow from 127.0.0.2\n</DirectoryMatch>\n",
    "files-in-a-directory": "<Directory /var/www/admin>\n    <Files f.html>\n        AuthType Basic\n        AuthName x\n"
                            "        AuthUserFile /etc/pw\n        Require valid-user\n    </Files>\n</Directory>\n"
                            "<Location /admin>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n"
                            "</Location>\n",
}


@pytest.mark.parametrize("name", sorted(OTHER_KINDS))
def test_fragment_migrations_answer_as_2_2_under_the_includers_document_root(name, httpd):  # noqa: F811
    assert "AuthMerging And" in _proven_under_includers(OTHER_KINDS[name], httpd)


def test_a_files_section_inside_a_fragment_location_is_reported_not_a_crash():
    text = OTHER_KINDS["files-in-a-directory"].replace("</Location>", "    <Files y>\n        Satisfy any\n    </Files>\n"
                                                                       "</Location>")
    result = migrate(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))
    assert any(f.code == "HT501" and "<Files> cannot occur within <Location>" in f.message for f in result.remaining)


def _proven_under_includers(text: str, httpd) -> str:  # noqa: F811
    """The migration of fragment ``text``, after checking that apache2 runs it under an including configuration's
    DocumentRoot too, and that it answers as 2.2 there and under the harness's own."""
    assert any(differential.INCLUDER_UNIT in label for label in differential.prepare(text))
    return _proven(text, httpd)[0]


def _proven(text: str, httpd) -> tuple[str, differential.VerifyReport]:  # noqa: F811
    """The migration of ``text``, with nothing left to a person, and its report: every unit answers as 2.2."""
    result = migrate(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining
    migrated = result.files["site.conf"].decode()
    report = differential.verify(text, migrated, httpd=httpd)
    assert report.ok, report.format()
    return migrated, report


#: From the random htaccess shape (seed 77:htaccess:36, no DocumentRoot): the Location's own address rules
#: replace the <Directory>'s, but its 2.4 form needed `AuthMerging Or` (for the .htaccess file nothing places),
#: which merges it with the <Directory>'s translated Require lines wherever the includer's DocumentRoot puts
#: /a/b under /srv/www/c: DELETE, which 2.2 denied to all, was let through there.
MERGES_WITH_A_LEFT_OUT_DIRECTORY = {
    "httpd.conf": "<Directory /srv/www/c>\n    Order deny,allow\n    Allow from env=HTTPD24_B\n    Allow from 10.0.0.0/8\n"
                  "    Deny from 127.0.0.8/29\n</Directory>\n"
                  "<Location /a/b>\n    AuthType basic\n    Satisfy Any\n    Order mutual-failure\n"
                  "    AuthUserFile /etc/httpd/users\n    Deny from 127.1.2\n    Deny from env=!HTTPD24_B\n"
                  "    <Limit GET POST OPTIONS>\n        Order Allow,Deny\n        Allow from 127.1.2.3 127.0.0.1/8\n"
                  "        Deny from 127.0.0.8/29 127.0.0.9\n    </Limit>\n</Location>\n",
    "srv/www/a/.htaccess": 'Satisfy All\nAuthType Basic\nAuthName "restricted"\nAuthUserFile /etc/httpd/users\n'
                           "AuthGroupFile /etc/httpd/groups\nRequire group staff admins\n",
}


def test_a_location_whose_2_4_form_merges_with_a_directory_left_out_is_left_to_a_person(httpd):  # noqa: F811
    files = MERGES_WITH_A_LEFT_OUT_DIRECTORY
    result = migrate(ConfigSet.from_mapping(files, entry="httpd.conf"))
    [left] = [f for f in result.remaining if f.code == "HT501" and f.message.startswith("<Location /a/b>")]
    assert "AuthMerging Or" in left.message and "a person must decide" in left.message, left.message
    # What it wrote before, held to the model of 2.2 under the includer's DocumentRoot /srv/www/c.
    merged = files["httpd.conf"].split("<Location")[0].replace(
        "    Order deny,allow\n    Allow from env=HTTPD24_B\n    Allow from 10.0.0.0/8\n    Deny from 127.0.0.8/29\n",
        "    Require env HTTPD24_B\n    Require ip 10.0.0.0/8\n    <RequireAll>\n        Require all granted\n"
        "        Require not ip 127.0.0.8/29\n    </RequireAll>\n    AllowOverride All\n") + (
        "<Location /a/b>\n    AuthType basic\n    AuthMerging Or\n    <RequireAll>\n"
        "        Require method GET OPTIONS POST\n        Require ip 127.1.2.3 127.0.0.1/8\n"
        "        Require not ip 127.1.2 127.0.0.8/29 127.0.0.9\n        Require env HTTPD24_B\n    </RequireAll>\n"
        "    AuthUserFile /etc/httpd/users\n</Location>\n")
    report = differential.verify(files, {**files, "httpd.conf": merged}, httpd=httpd)
    wrong = differential.against_model(report, files)
    assert any(differential.INCLUDER_UNIT in m.request.unit and m.request.method == "DELETE" for m in wrong), (
        report.format())

"""A configuration with both server sections and .htaccess files, run together on the real servers.

The .htaccess files are written where they lie (each side, each configuration, under a name of its own:
``AccessFileName``), so httpd reads them per request as it reads an .htaccess: after the <Directory>
sections of their directory, under the ``AllowOverride`` the configuration gives them. Before, a set
with a server configuration ran without its .htaccess files, and only a set of .htaccess files alone
was run (as the DocumentRoot's <Directory>).
"""

from __future__ import annotations

import os

import pytest

from httpd24.apache import differential
from httpd24.config import ConfigSet

pytestmark = pytest.mark.apache

AUTH = "AuthType Basic\nAuthName private\nAuthUserFile /etc/httpd/users\n"


def site(allow_override: str = "All", directory: str = "    Order allow,deny\n    Allow from 127.0.0.2\n",
         htaccess: str = AUTH + "Require valid-user\n") -> dict[str, str]:
    return {
        "httpd.conf": (f"DocumentRoot /srv/www\n<Directory /srv/www>\n    AllowOverride {allow_override}\n</Directory>\n"
                       f"<Directory /srv/www/a>\n{directory}</Directory>\n"),
        "srv/www/a/.htaccess": htaccess,
    }


def answers(statuses, path="/a/f.html"):
    return {(q.source, q.user, q.password): differential.access_answer(s)
            for q, s in statuses.items() if q.path == path and q.method == "GET" and not q.env}


def test_an_htaccess_runs_with_the_server_configuration(httpd):
    got = answers(differential.run(site(), httpd=httpd))
    assert got[("127.0.0.2", None, None)] == 401  # the .htaccess's Require, beside the section's Allow
    assert got[("127.0.0.2", "alice", "alice-pw")] == 200
    assert got[("127.0.0.1", "alice", "alice-pw")] == 403
    assert answers(differential.run(site(), httpd=httpd), "/f.html")[("127.0.0.1", None, None)] == 200


def test_allowoverride_decides_whether_the_htaccess_is_read(httpd):
    got = answers(differential.run(site("None"), httpd=httpd))
    assert got[("127.0.0.2", None, None)] == 200 and got[("127.0.0.1", None, None)] == 403
    # `AuthType` needs AuthConfig: httpd answers 500 under the directory
    got = answers(differential.run(site("Limit"), httpd=httpd))
    assert set(got.values()) == {500}


def test_negative_an_htaccess_require_that_replaces_the_address_rule_is_caught(httpd):
    """The error test_htaccess_on_disk fixed: on 2.4 the .htaccess's Require replaces the section's."""
    original = site()
    wrong = site(directory="    Require ip 127.0.0.2\n")
    report = differential.compare(original, wrong, name="replaced", httpd=httpd)
    assert not report.ok
    assert {(m.request.source, m.reference, m.candidate) for m in report.mismatches
            if m.request.path == "/a/f.html" and m.request.user == "alice" and m.request.password == "alice-pw"
            and m.request.source == "127.0.0.1"} == {("127.0.0.1", 403, 200)}
    right = site(directory="    Require ip 127.0.0.2\n", htaccess=AUTH + "AuthMerging And\nRequire valid-user\n")
    assert differential.compare(original, right, name="merged", httpd=httpd).ok


def test_each_side_and_configuration_reads_its_own_htaccess(httpd):
    """Both servers and every configuration of a batch share one file tree: the files must not mix."""
    deny = site(htaccess="Order deny,allow\nDeny from all\n")
    cases = [differential.Case("a", site(), site(directory="    Require ip 127.0.0.2\n",
                                                    htaccess=AUTH + "AuthMerging And\nRequire valid-user\n")),
             differential.Case("b", deny, site(directory="    Require ip 127.0.0.2\n", htaccess="Require all denied\n"))]
    a, b = differential.compare_many(cases, httpd=httpd)
    assert a.ok, a.format()
    assert b.ok, b.format()
    assert set(answers({q: s for q, (s, _c) in b.statuses.items()}).values()) == {403}


def test_a_migration_with_htaccess_files_is_proven(httpd, translation_cases, assert_all_ok):
    reports = differential.compare_many(translation_cases([("site", site())]), httpd=httpd)
    assert_all_ok(reports, "mixed .htaccess")
    assert any(q.path == "/a/f.html" for q in reports[0].statuses)


def test_the_htaccess_shape_writes_server_sections_and_htaccess_files():
    from test_differential_random import SEED

    configs = differential.random_configs(SEED, 50, shapes="htaccess")
    assert configs[5:8] == differential.random_configs(SEED, 3, start=5, shapes="htaccess")
    for _i, files in configs:
        assert "AllowOverride" in files["httpd.conf"]
        assert [n for n in files if n.endswith("/.htaccess")]
        for name, text in files.items():
            if name.endswith(".htaccess"):
                assert "<Directory" not in text and "<Location" not in text, text
    assert len({tuple(sorted(f.items())) for _i, f in configs}) >= 45
    # Aliases: to a directory no section names, with an .htaccess file there, and to one under the DocumentRoot
    assert any("Alias /ext /srv/ext\n" in f["httpd.conf"] and "srv/ext/.htaccess" in f for _i, f in configs)
    assert any("Alias /x /srv/www/a\n" in f["httpd.conf"] for _i, f in configs)
    assert all(("srv/ext/.htaccess" in f) == ("Alias /ext" in f["httpd.conf"]) for _i, f in configs)
    assert any("AllowOverride AuthConfig Limit Nonfatal=Override" in f["httpd.conf"]  # with_nonfatal
               or "AllowOverride Limit AuthConfig Options Nonfatal=Override" in f["httpd.conf"]
               for _i, f in differential.random_configs(SEED, 200, shapes="htaccess"))


#: No AllowOverride applies to srv/www/a: 2.2 read the file (its default All), 2.4 answers 500 for its lines.
NO_OVERRIDE = {
    "httpd.conf": "DocumentRoot /srv/www\n<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n",
    "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
}


def test_the_reference_reads_an_htaccess_where_no_allowoverride_applies_as_2_2_did(httpd):
    """normalize_22 writes 2.2's default (AllowOverride All) out: the reference answered 500 under srv/www/a, where
    the 2.2 model (and 2.2) applied the file."""
    from httpd24.access import normalize_22

    reference = normalize_22(ConfigSet.from_mapping(NO_OVERRIDE, entry="httpd.conf"))
    report = differential.compare(reference, reference, candidate_compat=True, httpd=httpd)
    assert differential.against_model(report, NO_OVERRIDE) == []
    got = answers({q: a for q, (a, _b) in report.statuses.items()})
    assert got[("127.0.0.1", None, None)] == 403 and got[("127.0.0.2", None, None)] == 200


def test_normalize_22_writes_the_default_once_and_only_where_it_is_missing():
    from httpd24.access import normalize_22
    from httpd24.config import ConfigSet

    text = normalize_22(ConfigSet.from_mapping(NO_OVERRIDE, entry="httpd.conf")).render()["httpd.conf"].decode()
    assert text.count("AllowOverride All") == 1 and "<Directory />" in text
    for written in ("<Directory /srv/www>\n    AllowOverride None\n</Directory>\n",
                    "<Directory />\n    AllowOverride AuthConfig\n</Directory>\n"):
        files = {**NO_OVERRIDE, "httpd.conf": NO_OVERRIDE["httpd.conf"] + written}
        assert "AllowOverride All" not in normalize_22(ConfigSet.from_mapping(files, entry="httpd.conf")).render()[
            "httpd.conf"].decode()
    # nothing to read: nothing written
    alone = {"httpd.conf": NO_OVERRIDE["httpd.conf"]}
    assert "AllowOverride" not in normalize_22(ConfigSet.from_mapping(alone, entry="httpd.conf")).render()[
        "httpd.conf"].decode()
    # an existing <Directory /> gets the line
    files = {**NO_OVERRIDE, "httpd.conf": NO_OVERRIDE["httpd.conf"] + "<Directory />\n    Options None\n</Directory>\n"}
    text = normalize_22(ConfigSet.from_mapping(files, entry="httpd.conf")).render()["httpd.conf"].decode()
    assert text.endswith("<Directory />\n    Options None\n    AllowOverride All\n</Directory>\n")
    assert text.count("<Directory />") == 1


def test_a_migration_writes_2_2_s_default_where_no_allowoverride_applies(httpd):
    """`httpd24 migrate` (fix level preserve, its default): HT301 appends `AllowOverride All` to the <Directory>
    above the file, and the migrated configuration answers as the reference (now 2.2's) and the 2.2 model. At
    fix level safe that fix is not applied: HT505 says which AllowOverride to write where."""
    from httpd24.config import ConfigSet
    from httpd24.engine import Applicability, lint, migrate

    migrated = {k: v.decode() for k, v in migrate(ConfigSet.from_mapping(NO_OVERRIDE, entry="httpd.conf")).files.items()}
    assert "AllowOverride All" in migrated["httpd.conf"]
    report = differential.verify(ConfigSet.from_mapping(NO_OVERRIDE, entry="httpd.conf"), migrated, httpd=httpd)
    assert report.ok, report.format()
    assert differential.against_model(report, NO_OVERRIDE) == []
    safe = migrate(ConfigSet.from_mapping(NO_OVERRIDE, entry="httpd.conf"), applicability=Applicability.SAFE)
    left = lint(ConfigSet.from_mapping({k: v.decode() for k, v in safe.files.items()}, entry="httpd.conf"),
                select=["HT505"])
    assert [f.file for f in left] == ["srv/www/a/.htaccess"]
    assert "add `AllowOverride AuthConfig` (what its lines need once migrated) to <Directory /srv/www/a>" in left[0].message


def _placed_and_proven(files: dict[str, str], dirpath: str, path: str, httpd) -> dict[str, str]:
    """The migration of ``files``, after checking that the model places its one .htaccess file at ``dirpath`` and
    that apache2 runs it: the migration answers as the reference, and ``path`` (a file under the .htaccess file)
    only to 127.0.0.2, as the file says, on both sides."""
    from httpd24.access import build
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    [scope] = [s for s in build(ConfigSet.from_mapping(files, entry="httpd.conf")).scopes if s.kind == "htaccess"]
    assert scope.dirpath == dirpath
    migrated = {k: v.decode() for k, v in migrate(ConfigSet.from_mapping(files, entry="httpd.conf")).files.items()}
    report = differential.verify(ConfigSet.from_mapping(files, entry="httpd.conf"), migrated, httpd=httpd)
    assert report.ok, report.format()
    got = {q.source: (a, b) for q, (a, b) in report.statuses.items()
           if q.path == path and q.method == "GET" and q.user is None and not q.env}
    assert got == {source: (200, 200) if source == "127.0.0.2" else (403, 403) for source in differential.SOURCES}
    assert differential.against_model(report, files) == []
    return migrated


#: No <Directory> names srv/www/a or a parent, the DocumentRoot does: the file lies at /srv/www/a/, and 2.2 read it
#: there with its compiled-in `AllowOverride All` (the set is a whole server: a `PidFile`).
UNDER_THE_DOCUMENT_ROOT = {
    "httpd.conf": "PidFile run/httpd.pid\nDocumentRoot /srv/www\n",
    "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
}


#: No <Directory> names srv/ext or a parent, an Alias maps to it: 2.2 read the file there with its compiled-in
#: `AllowOverride All`, though the DocumentRoot's own section sets None (so the DocumentRoot is covered).
UNDER_AN_ALIAS = {
    "httpd.conf": "PidFile run/httpd.pid\nDocumentRoot /srv/www\n<Directory /srv/www>\n    AllowOverride None\n"
                  "</Directory>\nAlias /ext /srv/ext\n",
    "srv/ext/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
}


#: The same under a ScriptAlias (cgi-bin): the harness serves it as an Alias (no CGI runs; access is decided
#: before any handler), so the file is run where 2.2 read it.
UNDER_A_SCRIPTALIAS = {**UNDER_AN_ALIAS, "httpd.conf": UNDER_AN_ALIAS["httpd.conf"].replace(
    "Alias /ext /srv/ext", "ScriptAlias /ext/ /srv/ext/")}


@pytest.mark.parametrize(("files", "dirpath", "path"), [
    (UNDER_THE_DOCUMENT_ROOT, "/srv/www/a/", "/a/f.html"),
    (UNDER_AN_ALIAS, "/srv/ext/", "/ext/f.html"),
    (UNDER_A_SCRIPTALIAS, "/srv/ext/", "/ext/f.html"),
], ids=["document-root", "alias", "scriptalias"])
def test_an_htaccess_no_directory_names_is_placed_and_its_migration_proven(httpd, files, dirpath, path):
    """Placed by <Directory> sections only, a file under the DocumentRoot applied nowhere in the model and was not
    run, so a migration that left 2.4 answering 500 under it passed (HT301 said nothing of a server without
    <Directory />). Under an Alias target it stayed unplaced after that, and HT301 looked at DocumentRoots only: the
    migration left 2.4 at its default None there, the file was ignored and /ext/ open to all, which 2.2 denied.
    Placed by both, the file runs, and the migration (HT301 writes `<Directory />` with 2.2's All) answers as 2.2."""
    from httpd24.config import ConfigSet
    from httpd24.engine import lint

    migrated = _placed_and_proven(files, dirpath, path, httpd)
    assert "<Directory />\n    AllowOverride All\n</Directory>\n" in migrated["httpd.conf"]
    # A fragment (no PidFile): the main configuration including it decides, HT505 says what to write where.
    fragment = {**files, "httpd.conf": files["httpd.conf"].replace("PidFile run/httpd.pid\n", "")}
    [left] = lint(ConfigSet.from_mapping(fragment, entry="httpd.conf"), select=["HT505"])
    assert left.file == dirpath.lstrip("/") + ".htaccess" and f"no AllowOverride applies to {dirpath}" in left.message


#: A wildcard <Directory> names the file's directory (a UserDir-like layout): the file lies at /srv/bob/pub/.
UNDER_A_WILDCARD = {
    "httpd.conf": "<Directory /srv/*/pub>\n    AllowOverride All\n    Order allow,deny\n    Allow from all\n"
                  "</Directory>\n",
    "srv/bob/pub/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
}


def test_an_htaccess_under_a_wildcard_directory_is_placed_and_its_migration_proven(httpd):
    """Placed by a literal prefix only, the file under `<Directory /srv/*/pub>` applied nowhere in the model and the
    proofs never ran it. Placed by the wildcard, the migration is run with it and answers as 2.2 there."""
    _placed_and_proven(UNDER_A_WILDCARD, "/srv/bob/pub/", "/__fs/srv/bob/pub/f.html", httpd)


def test_migrations_of_random_htaccess_sites_without_allowoverride_answer_as_2_2(httpd):
    """The htaccess shape with its `AllowOverride` taken out (2.2's default All then applied the files): what
    `httpd24 migrate` fully translates answers as the reference, or where normalize_22 could not make 2.2's
    inheritance explicit, as the 2.2 model. Every other one is a whole server (a `PidFile`), where HT301 writes
    2.2's default as `<Directory />`; in a fragment an .htaccess file under the DocumentRoot alone is left to
    a person (HT505: the main configuration decides)."""
    import random
    import re

    from httpd24.access import normalize_notes
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    cases, originals, whole = [], {}, 0
    for i in range(60):
        files = differential.random_config_htaccess(random.Random(f"77:htaccess:{i}"))
        files["httpd.conf"] = ("PidFile run/httpd.pid\n" if i % 2 else "") + re.sub(
            r"<Directory /srv/www>\n    AllowOverride [^\n]*\n</Directory>\n", "", files["httpd.conf"], count=1)
        migration = migrate(ConfigSet.from_mapping(files, entry="httpd.conf"))
        migrated = {k: v.decode() for k, v in migration.files.items()}
        if any(re.search(r"(?im)^\s*(order|allow|deny|satisfy)\b", text) for text in migrated.values()) or any(
                f.code == "HT505" and "no AllowOverride applies" in f.message for f in migration.remaining):
            continue  # left to a person
        whole += i % 2
        reference, notes = normalize_notes(ConfigSet.from_mapping(files, entry="httpd.conf"))
        originals[str(i)] = (files, notes)
        cases.append(differential.Case(str(i), reference, migrated))
    assert len(cases) >= 8 and whole >= 4
    for report in differential.compare_many(cases, httpd=httpd):
        files, notes = originals[report.name]
        assert not report.candidate_error, report.format()
        if notes:
            assert differential.against_model(report, files) == [], report.format()
        else:
            assert report.ok, report.format()


def vhost_site(main_override: str, vhost_override: str) -> dict[str, str]:
    """The .htaccess's AllowOverride comes from a <VirtualHost>'s <Directory>, as in Debian's 2.2 layout."""
    return {
        "httpd.conf": (f"DocumentRoot /srv/www\n<Directory />\n    AllowOverride {main_override}\n</Directory>\n"
                       "<VirtualHost *:80>\n    ServerName a.example\n    DocumentRoot /srv/www\n"
                       f"    <Directory /srv/www>\n        AllowOverride {vhost_override}\n"
                       "        Order allow,deny\n        Allow from all\n    </Directory>\n</VirtualHost>\n"),
        "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
    }


def unit_answers(statuses, unit_prefix: str, path="/a/f.html"):
    return {q.source: differential.access_answer(s) for q, s in statuses.items()
            if q.unit.startswith(unit_prefix) and q.source in ("127.0.0.1", "127.0.0.2") and q.path == path and q.method == "GET" and not q.user and not q.env}


@pytest.mark.parametrize(("main_override", "vhost_override"), [("None", "All"), ("All", "None")])
def test_a_virtual_hosts_allowoverride_decides_for_its_requests(httpd, main_override, vhost_override):
    """httpd merges a virtual host's <Directory> sections with the main server's, so the deeper
    AllowOverride of the host decides whether the host's requests read the file."""
    from httpd24.access import Request, build, decide_22
    from httpd24.config import ConfigSet

    files = vhost_site(main_override, vhost_override)
    statuses = differential.run(files, httpd=httpd)
    measured = {unit: unit_answers(statuses, unit) for unit in ("main", "vhost1")}
    for unit, override in (("main", main_override), ("vhost1", vhost_override)):
        # read: the file's Deny; not read: the host's (or no) Allow lets everyone in
        assert measured[unit] == ({"127.0.0.1": 403, "127.0.0.2": 200} if override == "All"
                                  else {"127.0.0.1": 200, "127.0.0.2": 200}), unit
    model = build(ConfigSet.from_mapping(files, entry="httpd.conf"))
    for source in ("127.0.0.1", "127.0.0.2"):
        got = decide_22(model, Request("/a/f.html", client=source, vhost="a.example"))
        assert got == measured["vhost1"][source], source


@pytest.mark.parametrize(("main_override", "vhost_override"), [("None", "All"), ("All", "None")])
def test_a_migration_reads_the_virtual_hosts_allowoverride(httpd, translation_cases, assert_all_ok,
                                                           main_override, vhost_override):
    from httpd24.config import ConfigSet
    from httpd24.engine import lint

    files = vhost_site(main_override, vhost_override)
    reports = differential.compare_many(translation_cases([("site", files)]), httpd=httpd)
    assert_all_ok(reports, "virtual host AllowOverride")
    found = {f.code: f for f in lint(ConfigSet.from_mapping(files, entry="httpd.conf"), select=["HT501", "HT505"])
             if f.file == "srv/www/a/.htaccess"}
    # read by one of the two servers: translated, never "httpd never reads this file"
    assert "HT505" not in found, found["HT505"].message
    assert found["HT501"].fix is not None


def test_the_2_2_model_judges_each_virtual_hosts_requests(httpd):
    """Where normalize_22 cannot make 2.2's inheritance explicit, the candidate is held to the 2.2 model
    (differential.against_model); with virtual hosts it returned every request as unjudged, so every such
    configuration of the vhosts shape failed. Each host's requests are now asked of the model as that
    host's (its ServerName)."""
    files = vhost_site("None", "All")
    report = differential.compare(files, files, candidate_compat=True, httpd=httpd)
    assert report.ok, report.format()
    assert differential.against_model(report, files) == []
    # a host that no longer reads the file: every source but 127.0.0.2 gets in where 2.2 answered 403
    report = differential.compare(files, vhost_site("None", "None"), candidate_compat=True, httpd=httpd)
    flagged = differential.against_model(report, files)
    assert {(m.request.unit.split()[0], m.candidate) for m in flagged} == {("vhost1", 200)}
    assert "127.0.0.1" in {m.request.source for m in flagged} and "127.0.0.2" not in {m.request.source for m in flagged}


#: An .htaccess file under `AllowOverride None` never applies: the sections below it keep their own meaning.
UNREAD = "DocumentRoot /srv/www\n<Directory />\n    AllowOverride None\n</Directory>\n<Directory /srv/www>\n</Directory>\n"
UNREAD_FILE = {"srv/www/.htaccess": "Require user bob carol\n"}


@pytest.mark.parametrize("section", [
    "<Directory /srv/www/a/b>\n    Deny from 127.0.0\n</Directory>\n",
    "<VirtualHost *:80>\n    ServerName v1.example\n    <Directory /srv/www/a/b>\n        Deny from 127.0.0\n"
    "    </Directory>\n</VirtualHost>\n",
], ids=["main server", "virtual host"])
def test_a_file_no_server_reads_is_not_merged_into_the_sections_below_it(httpd, translation_cases, assert_all_ok,
                                                                         section):
    """The planner took every placed .htaccess above a section as met by its requests, AllowOverride None or
    not: it wrote the file's `Require user bob carol` into <Directory /srv/www/a/b> (without an AuthType: 500
    where 2.2 answered 200; seed 12, index 161 of the vhosts shape, measured on apache2)."""
    files = {"httpd.conf": UNREAD + section, **UNREAD_FILE}
    reports = differential.compare_many(translation_cases([("unread", files)]), httpd=httpd)
    assert_all_ok(reports, "unread .htaccess")


def test_a_file_one_server_reads_meets_the_sections_of_that_server_only(httpd, access):
    """The main server reads no .htaccess, the virtual host reads /srv/www's: a main-server section below it
    means one thing in each, and its translation must answer as 2.2 in both (or be refused)."""
    files = {"httpd.conf": UNREAD + "<Directory /srv/www/a/b>\n    Order deny,allow\n    Deny from 127.0.0\n</Directory>\n"
             "<VirtualHost *:80>\n    ServerName v1.example\n    <Directory /srv/www>\n        AllowOverride AuthConfig\n"
             "    </Directory>\n</VirtualHost>\n", **UNREAD_FILE}
    cs = differential.ConfigSet.from_mapping(files, entry="httpd.conf")
    try:
        candidate = access.translate(cs)
    except access.TranslationError:
        return
    [report] = differential.compare_many([differential.Case("one reads", access.normalize_22(cs), candidate)],
                                         httpd=httpd)
    assert report.ok, report.format()


VHOSTS_COUNT = int(os.environ.get("HTTPD24_VHOSTS_COUNT") or 150)


@pytest.mark.parametrize("shapes", ["htaccess", "vhosts"])
def test_the_sections_these_shapes_add_stay_at_the_server_level(shapes):
    """Where the configuration drawn has no DocumentRoot line, its first line opens a section: the AllowOverride
    <Directory> went inside it (seed 109, htaccess 480: `<Directory>` inside `<DirectoryMatch>`, which httpd
    refuses, so neither side started). Seed 109 holds such configurations."""
    from httpd24.engine import lint

    configs = differential.random_configs(109, 500, shapes=shapes)
    assert sum(not f["httpd.conf"].startswith(("DocumentRoot", "ServerRoot")) for _i, f in configs) >= 20
    for i, files in configs:
        misplaced = lint(ConfigSet.from_mapping(files, entry="httpd.conf"), select=["HT409"])
        assert not misplaced, (i, misplaced[0].message)


def test_the_vhosts_shape_writes_virtual_hosts_with_their_own_allowoverride():
    import re

    from test_differential_random import SEED

    configs = differential.random_configs(SEED, 100, shapes="vhosts")
    assert configs[5:8] == differential.random_configs(SEED, 3, start=5, shapes="vhosts")
    texts = [files["httpd.conf"] for _i, files in configs]
    assert all("<VirtualHost *:80>" in t and "ServerName v1.example" in t for t in texts)
    assert all([n for n in files if n.endswith("/.htaccess")] for _i, files in configs)
    main = [t.split("<VirtualHost", 1)[0] for t in texts]
    assert any("<Directory />\n    AllowOverride None" in m for m in main)  # the main server: closed,
    assert any(re.search(r"</VirtualHost>\n<(?!VirtualHost)", t) for t in texts)  # a host between its sections
    assert any("AllowOverride" not in t.replace("\n        AllowOverride", "") for t in texts)  # none of its own
    assert any("ServerName v3.example" in t for t in texts) and any("    DocumentRoot /srv/www/" in t for t in texts)
    assert any("    <Directory />\n        AllowOverride" in t for t in texts)
    # whole configurations whose hosts take every Listen (the main server answers nothing), and one they do not
    whole = "PidFile run/httpd.pid\nListen 80\n"
    assert any(t.startswith(whole) and "Listen 8080" not in t for t in texts)
    assert any(t.startswith(whole + "Listen 8080\n") for t in texts)
    assert any(not t.startswith(whole) for t in texts)
    assert any(t.endswith("</VirtualHost>\nAlias /ext /srv/ext\n") for t in texts)
    assert len(set(map(str, configs))) >= 95
    # 2.4's Nonfatal=Override (the configuration ran on 2.4, so its Require providers are as 2.4 names them)
    ran_on_24 = [files for _i, files in configs if "Nonfatal=Override" in files["httpd.conf"]]
    assert 5 <= len(ran_on_24) <= 35
    providers = [m[1] for files in ran_on_24 for text in files.values()
                 for m in re.finditer(r"(?im)^\s*require\s+(\S+)", text)]
    assert providers and all(p in ("valid-user", "user", "group") for p in providers), providers
    others = [m[1] for _i, files in configs if "Nonfatal=" not in files["httpd.conf"] for text in files.values()
              for m in re.finditer(r"(?im)^\s*require\s+(\S+)", text)]
    assert any(p not in ("valid-user", "user", "group") for p in others)  # 2.2's any case, elsewhere


def test_vhosts_translations_match(httpd, access, capsys):
    """The vhosts shape, as test_differential_wide.test_wide_translations_match: proven where normalize_22
    makes 2.2's inheritance explicit, held to the 2.2 model (per virtual host) elsewhere, refusals counted.
    The candidate is translate() with HT301's AllowOverride (differential.with_override_default): the servers
    are drawn without one too, where 2.2's default All read the files and translate() leaves that line to
    HT301. ``HTTPD24_VHOSTS_COUNT`` changes the count; replay one with
    ``hack/differential.py --shapes vhosts --seed S --index I``."""
    import re
    import time

    from test_differential_random import SEED

    t0 = time.monotonic()
    results = differential.random_run(SEED, VHOSTS_COUNT, differential.with_override_default(access.translate),
                                      access.normalize_22, httpd=httpd, shapes="vhosts")
    refused = {i: r.candidate_error for i, _t, r in results if "translation raised TranslationError" in (r.candidate_error or "")}
    unproven = {i for i, t, _r in results
                if i not in refused and access.normalize_notes(differential.ConfigSet.from_mapping(t, entry="httpd.conf"))[1]}
    judged = [(i, t, r) for i, t, r in results if i not in refused]
    bad = [(i, t, r.format(limit=8)) for i, t, r in judged
           if not r.ok and (i not in unproven or r.reference_error or r.candidate_error)]
    bad += [(i, t, "not as the 2.2 model says:\n" + "\n".join(map(str, wrong[:8])))
            for i, t, r in judged if (r.ok or i in unproven) and (wrong := differential.against_model(r, t))]
    # sections (and .htaccess files) left to a person: `file:line: <label>: why` each, "; " between them
    sections = sum(len(re.findall(r"(?:^|; )(?:translation raised TranslationError: )?[^\s;:]+:\d+: ", error))
                   for error in refused.values())
    with capsys.disabled():
        print(f"\n[differential vhosts] HTTPD24_SEED={SEED} HTTPD24_VHOSTS_COUNT={VHOSTS_COUNT}: "
              f"{len(judged) - len(unproven)} proven, {len(refused)} refused ({sections} sections left to a person), "
              f"{len(unproven)} against the 2.2 model only, {time.monotonic() - t0:.0f}s")
    if bad:
        pytest.fail(f"seed={SEED}: {len(bad)} vhosts configurations answer otherwise than 2.2:\n\n" + "\n\n".join(
            f"configuration {i} (hack/differential.py --shapes vhosts --seed {SEED} --index {i}):\n"
            + "".join(f"--- {name}\n{text}" for name, text in t.items()) + what for i, t, what in bad[:4]),
            pytrace=False)
    # .htaccess files read by some servers only make many sections mean several things: most are refused.
    # About 11% are judged (168 of 1,500, seeds 41-45), 17 of 150 on average; a bound of 2% (3 of 150) keeps
    # the test from being vacuous and is 3.7 standard deviations away (1/5 was 2.4: one CI run in 125).
    assert len(judged) * 50 > VHOSTS_COUNT, f"only {len(judged)} of {VHOSTS_COUNT} configurations could be judged"

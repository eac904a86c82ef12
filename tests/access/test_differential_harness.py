"""The harness itself on hand-written pairs: it passes right translations and catches wrong ones.

No translator involved: the candidates are written by hand (the spec's 2.4 forms,
and deliberately wrong ones), so these tests prove the harness can pass and fail.
"""

from __future__ import annotations

import re

import pytest

from httpd24.apache import differential

pytestmark = pytest.mark.apache

AUTH = """    AuthType Basic
    AuthName "restricted"
    AuthUserFile /etc/httpd/users
"""

STATUS_22 = """<Location /server-status>
    SetHandler server-status
    Order deny,allow
    Deny from all
    Allow from 127.0.0.1
</Location>
"""
STATUS_24 = """<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>
"""

# spec §5.2 rule 6: (2.2 form, the 2.4 form the spec gives)
RULE6 = {
    "deny-all": (
        "<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n</Directory>\n",
        "<Directory /srv/www>\n    Require all denied\n</Directory>\n",
    ),
    "allow-all": (
        "<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n"
        "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n",
        "<Directory />\n    Require all denied\n</Directory>\n<Directory /srv/www>\n    Require all granted\n</Directory>\n",
    ),
    "host": (
        "<Directory /srv/www>\n    Order Deny,Allow\n    Deny from all\n    Allow from localhost\n</Directory>\n",
        "<Directory /srv/www>\n    Require host localhost\n</Directory>\n",
    ),
    "auth-host-switched-off": (
        f"<Directory /srv/www>\n{AUTH}    Require valid-user\n    Order Deny,Allow\n    Allow from all\n</Directory>\n",
        f"<Directory /srv/www>\n{AUTH}    Require valid-user\n</Directory>\n",
    ),
    "satisfy-all": (
        f"<Directory /srv/www>\n{AUTH}    Require valid-user\n    Order deny,allow\n    Deny from all\n"
        "    Allow from 127.0.0.1\n    Satisfy All\n</Directory>\n",
        f"<Directory /srv/www>\n{AUTH}    <RequireAll>\n        Require valid-user\n        Require ip 127.0.0.1\n"
        "    </RequireAll>\n</Directory>\n",
    ),
    "satisfy-any": (
        f"<Directory /srv/www>\n{AUTH}    Require valid-user\n    Order deny,allow\n    Deny from all\n"
        "    Allow from 127.0.0.1\n    Satisfy any\n</Directory>\n",
        f"<Directory /srv/www>\n{AUTH}    Require valid-user\n    Require ip 127.0.0.1\n</Directory>\n",
    ),
}
DOCROOT = "DocumentRoot /srv/www\n"


@pytest.mark.parametrize("name", sorted(RULE6))
def test_spec_rule6_forms_are_equivalent(httpd, name):
    old, new = RULE6[name]
    report = differential.compare(DOCROOT + old, DOCROOT + new, name=name, httpd=httpd)
    assert report.ok, report.format()
    assert report.requests >= 40


def test_spec_section4_server_status(httpd):
    report = differential.compare(STATUS_22, STATUS_24, name="server-status", httpd=httpd)
    assert report.ok, report.format()
    got = {q.source: a for q, (a, _b) in report.statuses.items() if q.path == "/server-status" and q.user is None}
    assert got == {"127.0.0.1": 200, "127.0.0.2": 403, "127.0.0.9": 403, "127.1.2.3": 403,
                   **({"::1": 403} if "::1" in differential.SOURCES else {})}
    logs = differential.last_logs()
    line = re.compile(r'^127\.0\.0\.2 - - \[[^]]+\] "GET /server-status HTTP/1\.1" 403 \d+$', re.M)
    ok_line = re.compile(r'^127\.0\.0\.1 - - \[[^]]+\] "GET /server-status HTTP/1\.1" 200 \d+$', re.M)
    for side in ("ref_access", "cand_access"):
        assert line.search(logs[side]), logs[side][-2000:]
        assert ok_line.search(logs[side]), logs[side][-2000:]
    assert re.search(r"\[access_compat:error\].*\[client 127\.0\.0\.2:\d+\] AH01797: client denied by server configuration: \S*/server-status",
                     logs["ref_error"]), logs["ref_error"][-2000:]
    assert "AH01630" not in logs["ref_error"]
    assert re.search(r"\[authz_core:error\].*\[client 127\.0\.0\.2:\d+\] AH01630: client denied by server configuration: \S*/server-status",
                     logs["cand_error"]), logs["cand_error"][-2000:]
    assert "AH01797" not in logs["cand_error"]


def test_spec_rule4_ah01797_hybrid_on_compat(httpd):
    """Directory / denies with compat directives; Location has only Require local: 403 + AH01797."""
    hybrid = ("<Directory />\n    AllowOverride None\n    Order deny,allow\n    Deny from all\n</Directory>\n"
              "<Location /server-status>\n    SetHandler server-status\n    Require local\n</Location>\n")
    statuses = differential.run(hybrid, httpd=httpd)
    got = {q.source for q, s in statuses.items() if q.path == "/server-status" and s == 403}
    assert got == set(differential.SOURCES)
    assert re.search(r"AH01797: client denied by server configuration: \S*/server-status", differential.last_logs()["ref_error"])


def test_spec_rule5_conforming_mix(httpd):
    """Require all denied in <Directory />, compat lines in the Location.

    The guide says 200 for the allowed address; measured: that needs the DocumentRoot
    <Directory> with Require all granted of the stock httpd.conf (research notes §2e):
    without it, the inherited Require all denied still answers 403 (AH01630).
    """
    mix = ("<Directory />\n    Require all denied\n</Directory>\n"
           "<Location /server-status>\n    SetHandler server-status\n    Order deny,allow\n    Deny from all\n"
           "    Allow From 127.0.0.1\n</Location>\n")
    stock = "DocumentRoot /srv/www\n<Directory /srv/www>\n    Require all granted\n</Directory>\n"

    def status(cfg, source):
        st = differential.run(cfg, httpd=httpd)
        return {q.source: s for q, s in st.items() if q.path == "/server-status" and q.user is None}[source]

    assert status(stock + mix, "127.0.0.1") == 200
    assert status(stock + mix, "127.0.0.2") == 403
    assert status(mix, "127.0.0.1") == 403
    assert "AH01630" in differential.last_logs()["ref_error"]


# --- negative controls: the harness must catch wrong translations ---------------------------------


def _mismatch(report, path, source, user=None):
    return [m for m in report.mismatches if m.request.path == path and m.request.source == source and m.request.user == user]


def test_negative_satisfy_any_as_requireall(httpd):
    old, _right = RULE6["satisfy-any"]
    wrong = RULE6["satisfy-all"][1]
    report = differential.compare(DOCROOT + old, DOCROOT + wrong, name="satisfy-any-as-requireall", httpd=httpd)
    assert not report.ok
    assert report.mismatches
    (m,) = [m for m in _mismatch(report, "/", "127.0.0.1") if not m.request.env and m.request.method == "GET"]
    assert (m.reference, m.candidate) == (200, 401)
    text = report.format()
    assert "GET / from 127.0.0.1 as anonymous" in text and "original 200  migrated 401" in text


def test_negative_allow_127_0_0_1_as_require_local(httpd):
    wrong = STATUS_24.replace("Require ip 127.0.0.1", "Require local")
    report = differential.compare(STATUS_22, wrong, name="allow-as-local", httpd=httpd)
    assert not report.ok
    sources = {m.request.source for m in report.mismatches}
    # `Require local` is ::1 too: the harness asks from there when this machine has IPv6 loopback
    assert sources == {"127.0.0.2", "127.0.0.9", "127.1.2.3"} | ({"::1"} if "::1" in differential.SOURCES else set())
    assert all((m.reference, m.candidate) == (403, 200) for m in report.mismatches)


needs_ipv6 = pytest.mark.skipif(differential.IPV6_UNAVAILABLE is not None, reason=str(differential.IPV6_UNAVAILABLE))


@needs_ipv6
def test_ipv6_loopback_is_a_client():
    assert "::1" in differential.SOURCES


@needs_ipv6
@pytest.mark.parametrize("words, v6, v4", [
    ("::1", 200, 403), ("2001:db8::/32", 403, 403), ("::/1", 200, 403), ("all", 200, 200),
    ("127.0.0.1", 403, 200), ("127.0.0.0/8", 403, 200), ("0.0.0.0/1", 403, 200),
])
def test_ipv6_clients_are_judged(httpd, words, v6, v4):
    """An IPv6 client meets IPv4 entries and IPv6 ones as httpd decides: the answers come from ::1."""
    text = f"<Location /s>\n    Order deny,allow\n    Deny from all\n    Allow from {words}\n</Location>\n"
    statuses = differential.run(DOCROOT + text, httpd=httpd)
    got = {q.source: differential.access_answer(s) for q, s in statuses.items()
           if q.path == "/s" and q.user is None and q.method == "GET"}
    assert got["::1"] == v6 and got["127.0.0.1"] == v4


@needs_ipv6
def test_negative_a_translation_that_forgets_ipv6_is_caught(httpd):
    old = DOCROOT + "<Location /s>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1 ::1\n</Location>\n"
    wrong = DOCROOT + "<Location /s>\n    Require ip 127.0.0.1\n</Location>\n"
    report = differential.compare(old, wrong, name="forgets-ipv6", httpd=httpd)
    assert {m.request.source for m in report.mismatches} == {"::1"}
    assert all((differential.access_answer(m.reference), m.candidate) == (200, 403) for m in report.mismatches)
    assert "from ::1 as anonymous" in report.format()


def test_negative_dropped_parent_address_rules(httpd):
    """Native 2.4 replaces an inherited Require: the parent's address rule is lost (research §5)."""
    old = (DOCROOT + "<Directory /srv/www>\n    Order deny,allow\n    Deny from 127.0.0.2\n</Directory>\n"
           f"<Directory /srv/www/a>\n{AUTH}    Require valid-user\n</Directory>\n")
    wrong = (DOCROOT + "<Directory /srv/www>\n    <RequireAll>\n        Require all granted\n        Require not ip 127.0.0.2\n"
             f"    </RequireAll>\n</Directory>\n<Directory /srv/www/a>\n{AUTH}    Require valid-user\n</Directory>\n")
    right = wrong.replace(
        f"<Directory /srv/www/a>\n{AUTH}    Require valid-user\n",
        f"<Directory /srv/www/a>\n{AUTH}    AuthMerging And\n    Require valid-user\n")
    bad = differential.compare(old, wrong, name="dropped", httpd=httpd)
    assert [m for m in _mismatch(bad, "/a/", "127.0.0.2", "alice") if not m.request.env] and not bad.ok
    good = differential.compare(old, right, name="authmerging", httpd=httpd)
    assert good.ok, good.format()


def test_negative_leftover_directive_fails_startup(httpd):
    report = differential.compare(STATUS_22, STATUS_22, name="leftover", httpd=httpd)
    assert not report.ok and report.reference_error is None
    assert "Invalid command 'Order'" in report.candidate_error
    assert "did not start on 2.4 without mod_access_compat" in report.format()


def test_batch_isolates_the_failing_case(httpd):
    cases = [
        differential.Case("good", STATUS_22, STATUS_24),
        differential.Case("leftover", STATUS_22, STATUS_22),
        differential.Case("wrong", STATUS_22, STATUS_24.replace("127.0.0.1", "127.0.0.2")),
    ]
    good, leftover, wrong = differential.compare_many(cases, httpd=httpd)
    assert good.ok, good.format()
    assert leftover.candidate_error and "Invalid command 'Order'" in leftover.candidate_error
    assert wrong.mismatches and not wrong.candidate_error


def test_verify_without_httpd_says_so(monkeypatch):
    monkeypatch.setattr(differential, "find_httpd", lambda: None)
    report = differential.verify(STATUS_22, STATUS_24, normalize=lambda cs: cs)
    assert not report.ok
    assert "no Apache httpd 2.4 binary found" in report.format()


def test_prepare_moves_paths_and_keeps_access_directives():
    # Listen 8080: a request still reaches the main server (test_main_server_reachable)
    text = ("ServerRoot /etc/httpd\nListen 80\nListen 8080\nDocumentRoot /var/www/html\nLoadModule x y\n"
            "<Directory /var/www/html/private>\n    Options Indexes\n    Order allow,deny\n    Allow from 10.1\n"
            "    AuthUserFile /etc/secret/pw\n</Directory>\n<VirtualHost *:80>\n    <Location /x>\n"
            "        Deny from all\n    </Location>\n</VirtualHost>\n")
    units = differential.prepare(text, fs_root="/T")
    assert list(units) == ["main", "vhost1 <VirtualHost *:80> (httpd.conf)"]
    main = units["main"]
    assert "Listen" not in main and "LoadModule" not in main and "ServerRoot" not in main
    assert "    Options Indexes\n" in main  # no FollowSymLinks: the sections a file meets change (test_options_walk)
    assert "<Directory /T/var/www/html/private>" in main and "DocumentRoot /T/var/www/html" in main
    assert "AuthUserFile /USERS" in main and "Allow from 10.1" in main
    assert "<Location /x>" in units["vhost1 <VirtualHost *:80> (httpd.conf)"]
    assert "<Location /x>" not in main


def test_prepare_drops_the_options_lines_2_4_refuses():
    """Both servers would refuse to start; the HT121 rule says what 2.2 made of such a line."""
    text = "DocumentRoot /srv/www\n<Directory /srv/www>\n    Options Indexes +FollowSymLinks\n    Options Bogus\n" \
           "    Options -FollowSymLinks\n</Directory>\n"
    main = differential.prepare(text, fs_root="/T")["main"]
    assert "Indexes" not in main and "Bogus" not in main and "    Options -FollowSymLinks\n" in main


def test_prepare_wraps_htaccess():
    units = differential.prepare({".htaccess": "Order deny,allow\nDeny from all\n"}, fs_root="/T")
    assert units["main"].splitlines()[0] == "<Directory /T/var/www/html>"


def test_translator_exception_is_reported_per_case(httpd):
    good, raised = differential.compare_many(
        [differential.Case("good", STATUS_22, STATUS_24), differential.Case("raised", STATUS_22, ValueError("no exact form"))],
        httpd=httpd)
    assert good.ok, good.format()
    assert not raised.ok and raised.requests == 0
    assert "translation raised ValueError: no exact form" in raised.format()


# A configuration whose 2.2 inheritance normalize_22 cannot make explicit (the FilesMatch inherits the
# root's address rules for /data.log but the /a/b Directory's for /a/b/data.log): there the reference
# (2.4 + mod_access_compat) is not 2.2 and the model of 2.2 judges each difference.
UNPROVEN = """\
DocumentRoot /srv/www
<Directory />
    Order allow,deny
    Require group admins
    Deny from 127.0.0.1 127.1
    AuthGroupFile /etc/httpd/groups
    Allow from 127.1.2.3
</Directory>
<Directory /srv/www/a/b>
    Order mutual-failure
    Deny from 127.1.2.3
    AuthType Basic
    AuthName "restricted"
    AuthUserFile /etc/httpd/users
    Require valid-user
</Directory>
<FilesMatch "\\.log$">
    Satisfy any
</FilesMatch>
"""


def test_model_explains_the_differences_of_an_unproven_configuration(httpd, access):
    cs = differential.ConfigSet.from_mapping({"httpd.conf": UNPROVEN}, entry="httpd.conf")
    assert access.normalize_notes(cs)[1], "the case must be one the normalisation cannot make explicit"
    report = differential.compare(access.normalize_22(cs), access.translate(cs), name="unproven", httpd=httpd)
    # 2.2: /data.log from anyone is 500 (Satisfy Any, the address check fails, Require without AuthType);
    # 2.4 + mod_access_compat says 200 there: the reference is wrong, the translation right.
    (m,) = [m for m in _mismatch(report, "/data.log", "127.0.0.2") if not m.request.env and m.request.method == "GET"]
    assert (m.reference, m.candidate) == (200, 500)
    assert differential.against_model(report, UNPROVEN) == []


def test_negative_model_catches_a_wrong_translation_of_an_unproven_configuration(httpd, access):
    cs = differential.ConfigSet.from_mapping({"httpd.conf": UNPROVEN}, entry="httpd.conf")
    wrong = access.translate(cs).render()["httpd.conf"].replace(b"Require valid-user", b"Require all granted")
    report = differential.compare(access.normalize_22(cs), wrong, name="unproven-wrong", httpd=httpd)
    # /data.log now answers 200 to anyone, as the (wrong) reference does: only the model sees it.
    wrong_answers = differential.against_model(report, UNPROVEN)
    assert wrong_answers and {m.request.path for m in wrong_answers} <= {"/data.log", "/a/b/data.log"}
    assert {m.candidate for m in wrong_answers} == {200}
    assert any(m.reference == m.candidate for m in wrong_answers)


# httpd 2.4 merges the Location sections that apply among themselves first, then the result onto the
# directory's configuration: an `AuthMerging And` in the last of them also ANDs the directory's Require
# lines with the earlier Location's, which 2.2 had replaced (found by the 2.2 model: seed 1, index 265).
LOCATION_GROUP = """\
DocumentRoot /srv/www
<Location /c>
    Order Allow,Deny
    Allow from 127.0.0.0/255.255.255.252
    Satisfy Any
</Location>
<Location />
    Satisfy Any
</Location>
<Directory />
    Order mutual-failure
    Allow from 127.0.0.1
    Deny from env=!HTTPD24_B
</Directory>
"""


def test_authmerging_is_not_used_where_httpd_merges_a_walk_group_first(httpd, access):
    cs = differential.ConfigSet.from_mapping({"httpd.conf": LOCATION_GROUP}, entry="httpd.conf")
    try:
        candidate = access.translate(cs)
    except access.TranslationError as error:
        assert "<Location />" in str(error)
        return
    report = differential.compare(access.normalize_22(cs), candidate, name="location-group", httpd=httpd)
    assert differential.against_model(report, LOCATION_GROUP) == []


# What 2.4 does with an AuthMerging And at the end of a Location group (see LOCATION_GROUP): the model's
# 2.4 evaluation (decide_24) must answer as the real server on every request.
GROUP_MERGE_24 = """\
DocumentRoot /srv/www
<Location /c>
    Require ip 127.0.0.0/255.255.255.252
</Location>
<Location />
    AuthMerging And
    Require all granted
</Location>
<Directory />
    <RequireAll>
        Require ip 127.0.0.1 127.1.2.3
        Require env HTTPD24_B
    </RequireAll>
</Directory>
"""


GROUP_MERGE_24_FILES = """\
DocumentRoot /srv/www
<FilesMatch "^f">
    Require ip 127.0.0.0/255.255.255.252
</FilesMatch>
<Files f.html>
    AuthMerging And
    Require all granted
</Files>
<Directory />
    <RequireAll>
        Require ip 127.0.0.1 127.1.2.3
        Require env HTTPD24_B
    </RequireAll>
</Directory>
"""


# A directory asked for without its trailing slash (/a) meets its <Directory>, but a <DirectoryMatch>
# regex sees the path without the slash; with the slash (/a/) and below, the directory with it.
DIRECTORY_MATCH_24 = {
    name: f"DocumentRoot /srv/www\n<Location /a>\n</Location>\n{open_}\n    Require all denied\n{close}\n"
    for name, open_, close in [
        ("directorymatch-slash", '<DirectoryMatch "^/srv/www/a/">', "</DirectoryMatch>"),
        ("directorymatch-parent", '<DirectoryMatch "^/srv/www/$">', "</DirectoryMatch>"),
        ("directorymatch-exact", '<DirectoryMatch "^/srv/www/a/$">', "</DirectoryMatch>"),
        ("directory", "<Directory /srv/www/a>", "</Directory>"),
    ]
}


# `Require group` finds the user in no group where no AuthGroupFile applies (here: outside /a).
GROUP_WITHOUT_FILE_24 = f"""\
DocumentRoot /srv/www
<Directory /srv/www>
{AUTH}    Require group admins
</Directory>
<Directory /srv/www/a>
    AuthGroupFile /etc/httpd/groups
</Directory>
"""


# Wildcards, as httpd matches them (apr_fnmatch with APR_FNM_PATHNAME). A wildcard <Location> matches the
# whole URL, and `*` never crosses a "/": `/c/*` meets /c/w but not /c/w/f.html nor /c/sub/ (the model
# matched any URL below it). A <Directory> meets a file directly in it as well as its directory: with
# FollowSymLinks (the default of 2.2 and 2.4) the directory walk takes every segment of the file name for
# a directory without looking, so `/srv/www/*` is tested against "/srv/www/secret.txt/" and applies to
# /secret.txt (the model matched only the file's directory, /srv/www/). Found by the wide random
# generator (seed 2, indexes 128 and 52).
WILDCARDS_24 = {
    "location-wildcard": "DocumentRoot /srv/www\n<Directory /srv/www/c/sub>\n</Directory>\n"
                         "<Location /c/*>\n    Require all denied\n</Location>\n",
    # Equal numbers of "/" (4): httpd merges them in reading order, so /a/ is denied. The harness moves paths
    # below its own root, which adds "/" to an anchored regex only: it must add as many to the others.
    "directorymatch-unanchored": "DocumentRoot /srv/www\n<DirectoryMatch \"^/srv/www/a/\">\n    Require all granted\n"
                                 "</DirectoryMatch>\n<DirectoryMatch \"/srv/www/a/\">\n    Require all denied\n"
                                 "</DirectoryMatch>\n",
    "directory-wildcard-meets-files": "DocumentRoot /srv/www\n<Directory /srv/www/a/b>\n</Directory>\n"
                                      "<Files secret.txt>\n</Files>\n<Directory /srv/www/*>\n    Require all denied\n"
                                      "</Directory>\n",
    # A <Files> inside a section merges where that section merges: core's merge appends the section's
    # <Files> to those merged before it, and every regex <Directory> merges after the plain ones, so the
    # <Files> of a <DirectoryMatch> comes last however few "/" it has (the model put it before the <Files>
    # of a deeper <Directory>). Found by the wide random generator (seed 636717143, index 50).
    "files-in-directorymatch-after-directory": "DocumentRoot /srv/www\n<Directory /srv/www/c>\n"
                                               "    <Files *.txt>\n        Require all denied\n    </Files>\n"
                                               "</Directory>\n<DirectoryMatch \"^/srv/www/(a|c)\">\n"
                                               "    <Files *.txt>\n        Require all granted\n    </Files>\n"
                                               "</DirectoryMatch>\n",
}


@pytest.mark.parametrize(
    "text", [GROUP_MERGE_24, GROUP_MERGE_24_FILES, *DIRECTORY_MATCH_24.values(), GROUP_WITHOUT_FILE_24,
             *WILDCARDS_24.values()],
    ids=["location-group", "files-group", *DIRECTORY_MATCH_24, "group-without-file", *WILDCARDS_24],
)
def test_model_answers_as_real_2_4(httpd, access, text):
    """The model's 2.4 evaluation (decide_24), which the 2.2 model shares its section matching with."""
    report = differential.compare(text, text, name="group-merge", httpd=httpd)
    assert report.ok and report.requests
    model = access.build(differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    wrong = []
    for q, (_ref, real) in report.statuses.items():
        said = access.decide_24(model, differential.model_request(q, report))
        if differential.access_answer(real) != said:
            wrong.append((q.describe(), real, said))
    assert wrong == []


# An Alias below a Location's path sends some of its URLs outside the directory the rest map into:
# the Directory section applies to /c/x but not to /c/other/x.
ALIAS_BELOW_LOCATION = f"""\
DocumentRoot /srv/www
Alias /c/other/ /srv/other/
<Directory /srv/www/c>
    Order deny,allow
    Deny from all
</Directory>
<Location /c/>
    Satisfy Any
{AUTH}    Require valid-user
</Location>
"""


def _translated_and_compared(text: str, name: str, httpd, access, refused_at: str):
    """The report of the translation against the normalised original on apache2, or None when the
    translator leaves the configuration to a person, which it may only do naming ``refused_at`` and
    the sections the meaning depends on (both answers are safe; each is checked)."""
    cs = differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
    try:
        candidate = access.translate(cs)
    except access.TranslationError as error:
        assert refused_at in str(error) and "depends on which other sections apply" in str(error), str(error)
        return None
    return differential.compare(access.normalize_22(cs), candidate, name=name, httpd=httpd)


def test_alias_below_a_location_is_not_taken_as_the_same_directory(httpd, access):
    report = _translated_and_compared(ALIAS_BELOW_LOCATION, "alias-below-location", httpd, access,
                                      refused_at="httpd.conf:7: <Location /c/>")
    if report is None:
        return  # left to a person, for the reason checked above
    assert {(m.request.path, m.request.user) for m in differential.against_model(report, ALIAS_BELOW_LOCATION)} == set()
    assert any(q.path.startswith("/c/other/") for q in report.statuses)


# mod_alias matches `Alias /c/` only against URLs that go on after /c/: /c itself still maps into the
# DocumentRoot, where <Directory /srv/www/c> applies to it (seed 1739139452, index 62, where another
# configuration of the batch made /srv/www/c a directory; `Alias /d` makes it one here).
ALIAS_WITH_SLASH = f"""\
DocumentRoot /srv/www
Alias /c/ /srv/www/a/b/
Alias /d /srv/www/c
<Directory /srv/www/c>
    Order deny,allow
    Deny from all
{AUTH}    Require valid-user
</Directory>
<Location /c>
{AUTH}    Require valid-user
</Location>
"""


def test_an_alias_ending_in_a_slash_does_not_map_the_url_without_it(httpd, access):
    model = access.build(differential.ConfigSet.from_mapping({"httpd.conf": ALIAS_WITH_SLASH}, entry="httpd.conf"))
    assert model.filename("/c", None) == "/srv/www/c"
    assert model.filename("/c/x", None) == "/srv/www/a/b/x"
    assert model.filename("/cx", None) == "/srv/www/cx"
    report = _translated_and_compared(ALIAS_WITH_SLASH, "alias-with-slash", httpd, access,
                                      refused_at="httpd.conf:10: <Location /c>")
    if report is None:
        return  # left to a person, for the reason checked above
    assert report.ok, report.format()
    assert any(q.path == "/c" for q in report.statuses)


# <Location /a> holds only AuthType: its translation gets `Require all granted`, so an `AuthMerging Or`
# written into the later <Location /> would OR that in and admit everyone under /a (seed 5, index 83).
AUTHTYPE_BEFORE_MERGING = f"""\
DocumentRoot /srv/www
<Location /a>
{AUTH}</Location>
<LocationMatch "^/c/">
    Satisfy any
</LocationMatch>
<Location />
    Require valid-user
</Location>
<Location /a/b>
    Order Deny,Allow
    Allow from 127.0.0.8/29
    Deny from 127.0.0. 127.1.2
    Require valid-user
</Location>
"""


def test_authmerging_accounts_for_the_require_written_into_authtype_only_sections(httpd, access):
    report = _translated_and_compared(AUTHTYPE_BEFORE_MERGING, "authtype-before-merging", httpd, access,
                                      refused_at="httpd.conf:10: <Location />")
    if report is None:
        return  # left to a person, for the reason checked above
    assert differential.against_model(report, AUTHTYPE_BEFORE_MERGING) == []


# --- the sample reaches under and beside what regex and wildcard sections match -------------------


def _paths(text, httpd):
    return {q.path for q in differential.run(DOCROOT + text, httpd=httpd)}


@pytest.mark.parametrize("section, under, beside", [
    ('<Location ~ "^/a/b">', ["/a/b/", "/a/b/f.html"], ["/a/bx"]),
    ('<LocationMatch "^/(a|c)">', ["/a/", "/c/"], ["/ax", "/cx"]),
    ('<LocationMatch "f\\.html$">', ["/f.html"], []),
    ("<Location /c/*>", ["/c/w/", "/c/w/f.html"], ["/c/wx"]),
    ('<DirectoryMatch "^/srv/www/(a|c)">', ["/a/", "/c/f.html"], ["/ax/"]),
    ('<Directory ~ "/b$">', ["/b/"], []),
    ("<Directory /srv/www/*/b>", ["/w/b/", "/w/b/f.html"], ["/w/bx/"]),
])
def test_the_sample_asks_under_and_beside_regex_and_wildcard_sections(httpd, section, under, beside):
    name = section[1:].split()[0]
    paths = _paths(f"{section}\n    Order deny,allow\n    Deny from all\n</{name}>\n", httpd)
    assert set(under + beside) <= paths, sorted(paths)


@pytest.mark.parametrize("original, wrong", [
    # a regex matches past its literal text: /a/bx too
    ('<Location ~ "^/a/b">', '<LocationMatch "^/a/b(/|$)">'),
    # every alternative of a regex, not only the text they share
    ('<LocationMatch "^/(a|c)">', '<LocationMatch "^/a">'),
    ('<DirectoryMatch "^/srv/www/(a|c)">', '<DirectoryMatch "^/srv/www/a">'),
    # a wildcard matches other names than the one the sample made of it, a set each of its members
    ("<Directory /srv/www/*/b>", "<Directory /srv/www/w/b>"),
    ("<Directory /srv/www/[ac]>", "<Directory /srv/www/a>"),
])
def test_negative_a_regex_or_wildcard_narrowed_by_the_translation_is_caught(httpd, original, wrong):
    def config(section, body):
        name = section[1:].split()[0].rstrip(">")
        return f"{DOCROOT}{section}\n{body}</{name}>\n"

    report = differential.compare(config(original, "    Order deny,allow\n    Deny from all\n"),
                                  config(wrong, "    Require all denied\n"), name="narrowed", httpd=httpd)
    assert report.mismatches and not report.ok, report.format()

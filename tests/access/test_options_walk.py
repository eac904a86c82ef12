"""Which <Directory> sections a file meets depends on the Options in effect at its directory.

httpd's directory walk (server/request.c, ap_directory_walk, "First optimization") takes a file's own name
for one more directory, without an lstat, when the options merged so far -- the server's, then those of
every <Directory> section and .htaccess file of the file's directory and above -- hold FollowSymLinks and
not SymLinksIfOwnerMatch; it then tests the <Directory> sections of the file's depth against "<file>/", so
`<Directory /srv/www/x/*>` applies to /srv/www/x/f.html. With -FollowSymLinks, SymLinksIfOwnerMatch, None
or any absolute Options list without FollowSymLinks it lstat()s the name, finds a file and stops: those
sections do not apply. Options of a section at the file's own depth, or of a regex section (merged after
the walk), decide nothing; regex sections are matched against the file name either way, and a directory
meets the same sections whatever the options (all measured below on apache2 2.4, every case against the
model).
"""

from __future__ import annotations

import itertools

import pytest
from apache_fixture import httpd, served_dir  # noqa: F401

from httpd24.access import Request, build, decide_22, decide_24
from httpd24.apache import Instance, differential
from httpd24.config import ConfigSet

pytestmark = pytest.mark.apache

SECTIONS = {
    "star": ("<Directory /srv/www/x/*>", "</Directory>"),
    "star-slash": ("<Directory /srv/www/x/*/>", "</Directory>"),
    "star-star": ("<Directory /srv/www/x/*/*>", "</Directory>"),
    "tilde": ('<Directory ~ "^/srv/www/x/[^/]+$">', "</Directory>"),
    "directorymatch": ('<DirectoryMatch "^/srv/www/x/[^/]+/">', "</DirectoryMatch>"),
}
OPTIONS = ["FollowSymLinks", "-FollowSymLinks", "SymLinksIfOwnerMatch", "+SymLinksIfOwnerMatch", "None", "Indexes",
           "+Indexes", "All", "FollowSymLinks SymLinksIfOwnerMatch"]
#: Where the Options line stands: the server, a <Directory> above or at the file's directory (or at /x/sub,
#: the file's directory for /x/sub/f.html only), a wildcard <Directory> meeting /x/sub, the section itself, a
#: regex section meeting /x and all below it.
PLACES = ["server", "/srv/www", "/srv/www/x", "/srv/www/x/sub", "/srv/www/x/?ub", "in-section", "regex"]


def config(section: str, options: str, place: str) -> str:
    lines = ["DocumentRoot /srv/www"]
    if place == "server":
        lines.append(f"Options {options}")
    for directory in ("/srv/www", "/srv/www/x", "/srv/www/x/sub", "/srv/www/x/?ub"):
        lines += [f"<Directory {directory}>", *([f"    Options {options}"] if place == directory else []), "</Directory>"]
    if place == "regex":
        lines += ['<DirectoryMatch "^/srv/www/x">', f"    Options {options}", "</DirectoryMatch>"]
    head, tail = SECTIONS[section]
    lines += [head, *([f"    Options {options}"] if place == "in-section" else []), "    Require all denied", tail]
    return "\n".join(lines) + "\n"


CASES = {f"{s} | Options {o} | {p}": config(s, o, p) for s, o, p in itertools.product(SECTIONS, OPTIONS, PLACES)}


def test_the_model_meets_the_sections_apache2_meets_whatever_the_options(httpd):  # noqa: F811
    """Before: the model took every file for a directory too (FollowSymLinks), so `<Directory /srv/www/x/*>`
    denied /x/f.html where -FollowSymLinks, SymLinksIfOwnerMatch, None or `Options Indexes` above it let
    apache2 serve it (and `<Directory /srv/www/x/*/*>` /x/sub/f.html)."""
    reports = differential.compare_many([differential.Case(name, text, text) for name, text in CASES.items()],
                                        httpd=httpd, sources=("127.0.0.1",))
    wrong = []
    for (name, text), report in zip(CASES.items(), reports):
        assert report.ok and report.requests, report.format()
        model = build(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        for q, (real, _same) in report.statuses.items():
            said = decide_24(model, differential.model_request(q, report))
            if q.user is None and differential.access_answer(real) != said:
                wrong.append((name, q.path, real, said))
    assert wrong == []
    # what the cases measured, in short: a file meets `/x/*` only where its directory follows symlinks
    statuses = {name: {q.path: a for q, (a, _b) in r.statuses.items() if q.user is None}
                for name, r in zip(CASES, reports)}
    assert statuses["star | Options FollowSymLinks | /srv/www/x"]["/x/f.html"] == 403
    assert statuses["star | Options -FollowSymLinks | /srv/www/x"]["/x/f.html"] == 200
    assert statuses["star | Options -FollowSymLinks | in-section"]["/x/f.html"] == 403
    assert statuses["star | Options +Indexes | server"]["/x/f.html"] == 403
    assert statuses["star | Options Indexes | server"]["/x/f.html"] == 200
    assert statuses["star-star | Options None | /srv/www/x/?ub"]["/x/sub/f.html"] == 200
    assert statuses["star-star | Options None | /srv/www/x/?ub"]["/x/sub/"] == 200
    assert statuses["tilde | Options None | server"]["/x/f.html"] == 403
    assert statuses["star | Options None | regex"]["/x/f.html"] == 403


def on_disk(path: str) -> Request:
    """The request as the tree below has it: /x/g.html is a file, though a <Directory> names it."""
    return Request(path, is_dir=path.endswith("/"))


@pytest.mark.parametrize("htaccess, status", [("Options -FollowSymLinks\n", 200), ("Options +Indexes\n", 403),
                                              ("# nothing\n", 403)])
def test_options_in_an_htaccess_file_decide_for_the_files_beside_it(served_dir, httpd, htaccess, status):  # noqa: F811
    """.htaccess files are merged at their directory's level of the walk, before its files are looked at;
    also a file named by a plain <Directory> (`<Directory /srv/www/x/f.html>`) is met only so."""
    (served_dir / "www" / "x").mkdir(parents=True)
    (served_dir / "www" / "x" / "f.html").write_text("hello\n")
    (served_dir / "www" / "x" / "g.html").write_text("hello\n")
    (served_dir / "www" / "x" / ".htaccess").write_text(htaccess)
    conf = (f"DocumentRoot {served_dir}/www\n<Directory {served_dir}/www>\n    AllowOverride Options\n</Directory>\n"
            f"<Directory {served_dir}/www/x/*.html>\n    Require all denied\n</Directory>\n"
            f"<Directory {served_dir}/www/x/g.html>\n    Require all denied\n</Directory>\n")
    with Instance({"site.conf": conf}, "site.conf", ["authz_core_module"], httpd=httpd) as srv:
        real = {path: differential.access_answer(srv.request(path).status) for path in ("/x/f.html", "/x/g.html", "/x/")}
    assert real == {"/x/f.html": status, "/x/g.html": status, "/x/": 200}
    model = build(ConfigSet.from_mapping({"httpd.conf": conf, f"{served_dir}/www/x/.htaccess".lstrip("/"): htaccess},
                                         entry="httpd.conf"))
    assert {path: decide_24(model, on_disk(path)) for path in real} == real
    twenty_two = conf.replace("Require all denied", "Order allow,deny")
    model = build(ConfigSet.from_mapping({"httpd.conf": twenty_two, f"{served_dir}/www/x/.htaccess".lstrip("/"): htaccess},
                                         entry="httpd.conf"))
    assert {path: decide_22(model, on_disk(path)) for path in real} == real


def test_a_virtual_host_merges_its_options_onto_the_server_s(served_dir, httpd):  # noqa: F811
    """Each virtual host's record is merged onto the main server's (+/- words change it, a plain list replaces
    it), then its <Directory> sections' onto that."""
    (served_dir / "www" / "x").mkdir(parents=True)
    (served_dir / "www" / "x" / "f.html").write_text("hello\n")
    hosts = {"inherits": "", "plus": "Options +FollowSymLinks", "plain": "Options Indexes FollowSymLinks",
             "minus": "Options -Indexes", "in-directory": f"<Directory {served_dir}/www/x>\n    Options All\n</Directory>"}
    conf = f"Options Indexes\n<Directory {served_dir}/www/x/*>\n    Require all denied\n</Directory>\n" + "".join(
        f"<VirtualHost *:*>\n    ServerName {name}.test\n    DocumentRoot {served_dir}/www\n    {body}\n</VirtualHost>\n"
        for name, body in hosts.items())
    with Instance({"site.conf": conf}, "site.conf", ["authz_core_module"], httpd=httpd) as srv:
        real = {name: srv.request("/x/f.html", host=f"{name}.test").status for name in hosts}
    assert real == {"inherits": 200, "plus": 403, "plain": 403, "minus": 200, "in-directory": 403}
    model = build(ConfigSet.from_mapping({"httpd.conf": conf}, entry="httpd.conf"))
    assert {name: decide_24(model, Request("/x/f.html", vhost=f"{name}.test", is_dir=False)) for name in hosts} == real

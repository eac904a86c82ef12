"""Include resolution and liveness on a configuration set."""

from __future__ import annotations

import os

import pytest

from httpd24.config import ConfigSet, Liveness, ParseError, Target


def live_names(cs, target=Target()):
    view = cs.view(target)
    return [(i.file, i.node.name, " ".join(i.args)) for i in view.items if i.live is not Liveness.DEAD]


def test_include_globs_alphabetical_and_context():
    cs = ConfigSet.from_mapping(
        {
            "httpd.conf": "<VirtualHost *:80>\nInclude conf.d/*.conf\n</VirtualHost>\n",
            "conf.d/b.conf": "B 1\n",
            "conf.d/a.conf": "A 1\n",
            "conf.d/x.txt": "X 1\n",
        },
        entry="httpd.conf",
    )
    view = cs.view()
    reached = [(i.file, i.node.name) for i in view.items if i.live is Liveness.LIVE]
    assert reached[2:] == [("conf.d/a.conf", "A"), ("conf.d/b.conf", "B")]
    a = next(i for i in view.items if i.node.name == "A")
    assert [s.key for s in a.context] == ["virtualhost"]
    # x.txt is not included: linted on its own as possibly live
    x = next(i for i in view.items if i.node.name == "X")
    assert x.live is Liveness.UNKNOWN


def test_include_absolute_under_server_root_and_directory_include():
    cs = ConfigSet.from_mapping(
        {"httpd.conf": "Include /etc/httpd/conf.d\n", "conf.d/one.conf": "One 1\n", "conf.d/sub/two.conf": "Two 2\n"},
        entry="httpd.conf",
        server_root="/etc/httpd",
    )
    assert [n for f, n, a in live_names(cs)] == ["Include", "One", "Two"]


def test_wildcard_in_directory_part():
    cs = ConfigSet.from_mapping(
        {"httpd.conf": "Include sites/*/vhost.conf\n", "sites/a/vhost.conf": "A 1\n", "sites/b/vhost.conf": "B 1\n"},
        entry="httpd.conf",
    )
    assert [n for f, n, a in live_names(cs)] == ["Include", "A", "B"]


def test_unresolved_includes_are_recorded():
    cs = ConfigSet.from_mapping(
        {"httpd.conf": "Include conf.d/*.conf\nIncludeOptional extra/*.conf\nInclude /opt/other.conf\n"},
        entry="httpd.conf",
    )
    view = cs.view()
    assert [(u.pattern, u.optional, u.external) for u in view.unresolved] == [
        ("conf.d/*.conf", False, False),
        ("extra/*.conf", True, False),
        ("/opt/other.conf", False, True),
    ]


def test_include_cycle_is_a_clear_error():
    cs = ConfigSet.from_mapping(
        {"httpd.conf": "Include a.conf\n", "a.conf": "\nInclude b.conf\n", "b.conf": "Include a.conf\n"},
        entry="httpd.conf",
    )
    with pytest.raises(ParseError) as info:
        cs.view()
    assert (info.value.file, info.value.line) == ("b.conf", 1)
    assert "httpd.conf -> a.conf -> b.conf -> a.conf" in info.value.reason


def test_parse_errors_are_collected_per_file():
    cs = ConfigSet.from_mapping({"httpd.conf": "Include bad.conf\n", "bad.conf": "<Directory /x>\n"}, entry="httpd.conf")
    assert [str(e) for e in cs.errors] == ["bad.conf:1:1: <Directory> was not closed; add </Directory> where the section ends"]


def test_define_and_variable_substitution():
    cs = ConfigSet.from_mapping(
        {"httpd.conf": 'Define root "/srv/my site"\nDocumentRoot ${root}/htdocs\nServerName ${undefined}\n'},
        entry="httpd.conf",
    )
    view = cs.view()
    by_name = {i.node.name: i.args for i in view.items}
    assert by_name["DocumentRoot"] == ["/srv/my", "site/htdocs"]  # substituted before tokenizing, as httpd does
    assert by_name["ServerName"] == ["${undefined}"]


def test_changed_reports_only_edited_files():
    from httpd24.config import edit

    cs = ConfigSet.from_mapping({"httpd.conf": "A 1\n", "b.conf": "B 1\n"}, entry="httpd.conf")
    edit.rename(cs.documents["b.conf"].children[0], "C")
    assert cs.changed() == {"b.conf": b"C 1\n"}


def test_from_directory_links_become_aliases(tmp_path):
    (tmp_path / "mods-available").mkdir()
    (tmp_path / "mods-enabled").mkdir()
    (tmp_path / "mods-available" / "x.conf").write_text("X 1\n")
    os.symlink("../mods-available/x.conf", tmp_path / "mods-enabled" / "x.conf")
    (tmp_path / "apache2.conf").write_text("IncludeOptional mods-enabled/*.conf\n")
    (tmp_path / "binary.so").write_bytes(b"\x7fELF\0\0")
    cs = ConfigSet.from_directory(str(tmp_path))
    assert cs.entry == "apache2.conf"
    assert sorted(cs.documents) == ["apache2.conf", "mods-available/x.conf"]
    x = [i for i in cs.view().items if i.node.name == "X"]
    assert len(x) == 1 and x[0].live is Liveness.LIVE and x[0].file == "mods-available/x.conf"


def test_from_directory_leaves_out_content_and_data(tmp_path):
    """A directory holds more than configuration: pages, password files, logs. Those are not read
    (an HTML page would be a section that never closes), and each is said why; a file an Include
    names is read whatever it is called, and so is an .htaccess file under the served directory."""
    files = {
        "httpd.conf": "DocumentRoot htdocs\nAuthUserFile conf/users\nCustomLog logs/access common\n"
                      "Include conf/extra.txt\nRewriteMap m txt:conf/map\n",
        "conf/users": "alice:$apr1$x$y\n",
        "conf/map": "a b\n",
        "conf/extra.txt": "ServerAdmin a@b\n",
        "conf/notes.md": "# <b>notes</b>\n",
        "conf/snippet.conf": "ServerTokens Prod\n",
        "conf/magic": "0 string eval\\ \"exec\\ /bin/perl application/x-perl\n",
        "logs/access": "127.0.0.1 - - [x] \"GET /\"\n",
        "htdocs/index.html": "<html>\n<p>hi\n</html>\n",
        "htdocs/.htaccess": "Order allow,deny\nAllow from all\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    cs = ConfigSet.from_directory(str(tmp_path))
    assert sorted(cs.documents) == ["conf/extra.txt", "conf/snippet.conf", "htdocs/.htaccess", "httpd.conf"]
    assert cs.errors == []
    assert cs.skipped == {
        "conf/users": "data read by AuthUserFile at httpd.conf:2",
        "conf/map": "data read by RewriteMap at httpd.conf:5",
        "conf/notes.md": "a md file, which no Include names",
        "conf/magic": "mod_mime_magic data, which no Include names",
        "logs/access": "data read by CustomLog at httpd.conf:3",
        "htdocs/index.html": "content served by DocumentRoot at httpd.conf:1",
    }


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("<IfModule !mod_authz_core.c>", Liveness.DEAD),
        ("<IfModule mod_authz_core.c>", Liveness.LIVE),
        ("<IfModule mod_mem_cache.c>", Liveness.DEAD),
        ("<IfModule mod_ssl.c>", Liveness.UNKNOWN),
        ("<IfModule !ssl_module>", Liveness.UNKNOWN),
        ("<IfVersion < 2.3>", Liveness.DEAD),
        ("<IfVersion >= 2.4>", Liveness.LIVE),
        ("<IfVersion = 2.4>", Liveness.DEAD),  # missing parts compare as 0: 2.4.62 != 2.4.0
        ("<IfVersion ~ ^2\\.4>", Liveness.LIVE),
        ("<IfVersion /^2\\.2/>", Liveness.DEAD),
        ("<IfVersion !~ ^2\\.2>", Liveness.LIVE),
        ("<IfDefine SSL>", Liveness.UNKNOWN),
        ("<IfDefine !SSL>", Liveness.UNKNOWN),
    ],
)
def test_conditions_on_default_target(condition, expected):
    name = condition[1:].split()[0]
    cs = ConfigSet.from_mapping({"httpd.conf": f"{condition}\nX 1\n</{name}>\n"}, entry="httpd.conf")
    item = next(i for i in cs.view().items if i.node.name == "X")
    assert item.live is expected


def test_loadmodule_and_define_settle_conditions_in_order():
    text = (
        "<IfModule ssl_module>\nBefore 1\n</IfModule>\n"
        "LoadModule ssl_module modules/mod_ssl.so\n"
        "<IfModule mod_ssl.c>\nAfter 1\n</IfModule>\n"
        "Define TLS\n<IfDefine TLS>\nDefined 1\n</IfDefine>\n"
    )
    cs = ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
    target = Target(modules=frozenset(), defines=frozenset())
    live = {i.node.name: i.live for i in cs.view(target).items}
    assert live["Before"] is Liveness.DEAD and live["After"] is Liveness.LIVE and live["Defined"] is Liveness.LIVE


@pytest.mark.parametrize("name", ["mod_ssl.c", "ssl_module"])
def test_a_target_module_may_be_named_as_ifmodule_names_it(name):
    """``--module mod_ssl.c`` (the form most 2.2 configurations test for) once made
    ``<IfModule mod_ssl.c>`` false: the target kept the name as given, the check compared identifiers."""
    cs = ConfigSet.from_mapping({"httpd.conf": "<IfModule mod_ssl.c>\nA 1\n</IfModule>\n<IfModule ssl_module>\nB 1\n"
                                              "</IfModule>\n<IfModule !mod_ssl.c>\nC 1\n</IfModule>\n"}, entry="httpd.conf")
    live = {i.node.name: i.live for i in cs.view(Target(modules=frozenset({name}))).items}
    assert (live["A"], live["B"], live["C"]) == (Liveness.LIVE, Liveness.LIVE, Liveness.DEAD)

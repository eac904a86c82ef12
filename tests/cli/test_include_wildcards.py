"""A wildcard before the last component of an Include, judged as httpd judges it (checked against `apache2 -t`).

httpd walks `Include conf.d/*/x.conf` one component at a time: `*` matches the directories of conf.d, and in
each of them it opens x.conf. One directory without it is enough for httpd to refuse to start ("Could not
open configuration file .../conf.d/b/x.conf"), however many others have it; so is a directory where a
later wildcard matches nothing ("No matches for the wildcard '*.conf' in '.../conf.d/b'"), or where a
directory written out is missing ("Could not open directory"). `IncludeOptional` passes over each of them.
httpd24 said nothing as long as one directory had the file, and the migrated configuration failed.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from apache_fixture import configtest_tree, httpd  # noqa: F401

from clirun import run
from httpd24.k8s import review


def codes(out: str) -> list[tuple[str, str]]:
    return [(line.split(": ", 1)[0].rsplit(":", 1)[0], line.split(": ", 1)[1].split(" ")[0])
            for line in out.splitlines()]


def _tree(root, include: str, files: dict) -> None:
    """``files``: path -> text, or None for an empty directory."""
    root.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        where = root / path
        if text is None:
            where.mkdir(parents=True, exist_ok=True)
        else:
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text(text)
    (root / "httpd.conf").write_text(f"ServerRoot {root}\nServerName x\n{include}\n")


SITE = "ServerAdmin a@example.org\n"

#: (Include, files, what httpd says (ROOT: the server root), what the finding says, what it tells to add)
FAILING = {
    "a directory without the file": (
        "Include conf.d/*/x.conf", {"conf.d/a/x.conf": SITE, "conf.d/b/y.conf": SITE},
        "Could not open configuration file ROOT/conf.d/b/x.conf", "conf.d/b has no x.conf", "add conf.d/b/x.conf"),
    "every directory without the file": (
        "Include conf.d/*/x.conf", {"conf.d/a": None},
        "Could not open configuration file ROOT/conf.d/a/x.conf", "conf.d/a has no x.conf", "add conf.d/a/x.conf"),
    "an empty directory, a wildcard at the end": (
        "Include conf.d/*/*.conf", {"conf.d/a/x.conf": SITE, "conf.d/b": None},
        "No matches for the wildcard '*.conf' in 'ROOT/conf.d/b'", "nothing in conf.d/b matches *.conf",
        "add a file matching *.conf to conf.d/b"),
    "a directory of other files, a wildcard at the end": (
        "Include conf.d/*/*.conf", {"conf.d/a/x.conf": SITE, "conf.d/b/notes.txt": "x\n"},
        "No matches for the wildcard '*.conf' in 'ROOT/conf.d/b'", "nothing in conf.d/b matches *.conf",
        "add a file matching *.conf to conf.d/b"),
    "two wildcards before the last component": (
        "Include conf.d/*/*/x.conf", {"conf.d/a/s/x.conf": SITE, "conf.d/b": None},
        "No matches for the wildcard '*' in 'ROOT/conf.d/b'", "no directory in conf.d/b matches *",
        "add a directory to conf.d/b"),
    "a directory written out that is missing": (
        "Include conf.d/*/sub/*.conf", {"conf.d/a/sub/x.conf": SITE, "conf.d/b": None},
        "Could not open directory ROOT/conf.d/b/sub", "conf.d/b has no directory sub", "add conf.d/b/sub/"),
}


@pytest.mark.parametrize("case", FAILING)
def test_a_directory_the_wildcard_matches_without_what_follows_is_an_error(tmp_path, httpd, case):  # noqa: F811
    include, files, says, what, add = FAILING[case]
    root = tmp_path / "root"
    _tree(root, include, files)
    result = configtest_tree(httpd, root)
    assert result.returncode != 0 and says.replace("ROOT", str(root)) in result.stderr, result.stderr
    for given in (root, root / "httpd.conf"):
        code, out, err = run("lint", "--select", "HT403", str(given))
        assert code == 1 and codes(out) == [(f"{root}/httpd.conf:3", "HT403")], (given, out, err)
        assert f"Include {include.split()[1]}: {what}, and httpd refuses to start" in out, (given, out)
        assert says.replace("ROOT", str(root)) in out and "IncludeOptional" in out and add in out, (given, out)
        assert "internal error" not in err and "Traceback" not in err, err
    # Its fix makes a configuration httpd starts.
    code, out, err = run("migrate", "--select", "HT403", "--write", str(root / "httpd.conf"))
    assert "IncludeOptional" in (root / "httpd.conf").read_text(), (out, err)
    assert configtest_tree(httpd, root).returncode == 0


def test_every_directory_without_the_file_is_counted(tmp_path, httpd):  # noqa: F811
    root = tmp_path / "root"
    _tree(root, "Include conf.d/*/x.conf",
          {"conf.d/a/x.conf": SITE, "conf.d/b": None, "conf.d/c": None, "conf.d/d": None, "conf.d/e": None,
           "conf.d/f": None})
    assert configtest_tree(httpd, root).returncode != 0
    for given in (root, root / "httpd.conf"):
        code, out, err = run("lint", "--select", "HT403", str(given))
        assert "conf.d/b has no x.conf" in out and "(4 more: conf.d/c, conf.d/d, conf.d/e, ...)" in out, out


PASSING = {
    "every directory has the file": ("Include conf.d/*/x.conf", {"conf.d/a/x.conf": SITE, "conf.d/b/x.conf": SITE}),
    "IncludeOptional": ("IncludeOptional conf.d/*/x.conf", {"conf.d/a/x.conf": SITE, "conf.d/b": None}),
    "IncludeOptional, a wildcard at the end": ("IncludeOptional conf.d/*/*.conf",
                                               {"conf.d/a/x.conf": SITE, "conf.d/b": None}),
    "a file beside the directories": ("Include conf.d/*/x.conf", {"conf.d/a/x.conf": SITE, "conf.d/b.conf": SITE}),
    "a hidden directory": ("Include conf.d/*/x.conf", {"conf.d/a/x.conf": SITE, "conf.d/.git/config": "x\n"}),
    "a wildcard at the end only": ("Include conf.d/*.conf", {"conf.d/a.conf": SITE, "conf.d/b": None}),
}


@pytest.mark.parametrize("case", PASSING)
def test_what_httpd_starts_with_is_no_error(tmp_path, httpd, case):  # noqa: F811
    include, files = PASSING[case]
    root = tmp_path / "root"
    _tree(root, include, files)
    result = configtest_tree(httpd, root)
    assert result.returncode == 0, result.stderr
    for given in (root, root / "httpd.conf"):
        code, out, err = run("lint", "--select", "HT403", str(given))
        assert code == 0 and out == "", (given, out, err)


def test_a_link_the_wildcard_does_not_match_needs_no_file(tmp_path, httpd):  # noqa: F811
    """httpd's wildcard before the last component matches real directories only: a link to a directory
    without x.conf is passed over, and it starts."""
    root = tmp_path / "root"
    _tree(root, "Include conf.d/*/x.conf", {"conf.d/a/x.conf": SITE, "elsewhere": None})
    (root / "conf.d" / "link").symlink_to(root / "elsewhere")
    assert configtest_tree(httpd, root).returncode == 0
    for given in (root, root / "httpd.conf"):
        code, out, err = run("lint", "--select", "HT403", str(given))
        assert code == 0 and out == "", (given, out, err)


# -- a ConfigMap: its keys are the files of one directory, and the rest of the server root is the image's -------------
def _manifest(data: dict[str, str], annotations: dict[str, str]) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "web", "annotations": annotations}, "data": data})


def test_a_configmap_is_judged_as_the_same_files_on_disk(tmp_path):
    """Mounted at conf/, the keys make the one directory `*` is known to match: without x.conf httpd fails
    there, and the CLI (on the manifest and on the same files in a directory) and the webhook say the same.
    With x.conf, nothing is said: what else the image's server root holds is not known."""
    for present in (False, True):
        data = {"httpd.conf": "ServerName x\nInclude */x.conf\n", "site.conf": SITE}
        if present:
            data["x.conf"] = SITE
        text = _manifest(data, {review.ANN_CONFIG_DIR: "conf", review.ANN_SERVER_ROOT: "/srv/web"})
        (tmp_path / "cm.yaml").write_text(text)
        code, out, err = run("lint", "--isolated", "--select", "HT403", "--format", "json", "cm.yaml", cwd=tmp_path)
        cli = [(r["code"], r["file"].split("]:", 1)[1], r["line"], r["message"]) for r in json.loads(out)]
        webhook = [(f.code, f.file, f.line, f.message) for f in review.analyze(copy.deepcopy(yaml.safe_load(text))).findings
                   if f.code == "HT403"]
        assert cli == webhook, (cli, webhook, err)
        root = tmp_path / f"dir-{present}"
        for key, value in data.items():
            (root / "conf").mkdir(parents=True, exist_ok=True)
            (root / "conf" / key).write_text(value)
        code, out, err = run("lint", "--isolated", "--select", "HT403", "--format", "json", str(root))
        on_disk = [(r["code"], r["line"], r["message"].replace(str(root), "/srv/web")) for r in json.loads(out)]
        assert [(c, line, m) for c, _, line, m in cli] == on_disk, (cli, on_disk, err)
        if present:
            assert cli == [], cli
        else:
            assert [(c, f, line) for c, f, line, _ in cli] == [("HT403", "httpd.conf", 2)], cli
            assert cli[0][3].startswith("Include */x.conf: conf has no x.conf, and httpd refuses to start "
                                        "(\"Could not open configuration file /srv/web/conf/x.conf"), cli


# -- a file the wildcard matches that is not configuration -----------------------------------------------------------
PAGE = "<html>\n<body>hello</body>\n</html>\n"


def test_a_page_an_include_matches_is_read_and_its_error_said_file_or_directory_given(tmp_path, httpd):  # noqa: F811
    """httpd reads the page the wildcard matches, and fails on its line 3. Given the directory, the page (under
    DocumentRoot) was left out as content, and HT403 said the Include matched no file; given the file, the
    parse error came with that same HT403."""
    root = tmp_path / "root"
    _tree(root, f"DocumentRoot {root}/htdocs\nInclude htdocs/*.html", {"htdocs/index.html": PAGE})
    result = configtest_tree(httpd, root)
    assert result.returncode != 0, result.stderr
    assert (f"Syntax error on line 3 of {root}/htdocs/index.html: Expected </body>hello</body> but saw </html>"
            in result.stderr), result.stderr
    for given in (root, root / "httpd.conf"):
        code, out, err = run("lint", str(given))
        assert code == 2, (given, code, out, err)
        assert (f"{root}/htdocs/index.html:3:1: error: expected </body>hello</body> (opened at line 2) but saw "
                "</html>") in err, (given, err)
        assert "HT403" not in out and "index.html: not read" not in err, (given, out, err)


def test_a_key_an_include_matches_that_does_not_parse_is_its_error_not_ht403(tmp_path):
    text = _manifest({"httpd.conf": "ServerName x\nInclude *.html\n", "index.html": PAGE}, {})
    analysis = review.analyze(yaml.safe_load(text))
    assert [str(p) for p in analysis.problems] == [
        "index.html:3:1: expected </body>hello</body> (opened at line 2) but saw </html>"], analysis.problems
    assert [f.code for f in analysis.findings if f.code == "HT403"] == []
    (tmp_path / "cm.yaml").write_text(text)
    code, out, err = run("lint", "--isolated", "cm.yaml", cwd=tmp_path)
    assert code == 2 and "HT403" not in out, (out, err)
    assert "cm.yaml[default/web]:index.html:3:1: error: expected </body>hello</body>" in err, err


# -- a wildcard with a trailing slash: `Include conf.d/*/` -------------------------------------------------------------
#: httpd's walk takes the empty component after the slash as one more to follow, so the wildcard keeps only real
#: directories (not files, not links to directories) and each is read whole, every file below it (dot files too, as
#: `Include conf.d/a/` reads them). (Include, files, links (name -> target), whether httpd starts, the files it reads)
TRAILING = {
    "directories only, a file beside them is not read": (
        "Include conf.d/*/", {"conf.d/a/x.conf": SITE, "conf.d/z.conf": "Bogus1\n"}, {}, True, ["conf.d/a/x.conf"]),
    "every file below a directory, deep ones and dot files too": (
        "Include conf.d/*/", {"conf.d/a/deep/x.conf": SITE, "conf.d/a/.hidden": SITE}, {}, True,
        ["conf.d/a/.hidden", "conf.d/a/deep/x.conf"]),
    "an empty directory is no error": ("Include conf.d/*/", {"conf.d/a": None}, {}, True, []),
    "a file named like a directory is not read": (
        "Include conf.d/*.d/", {"conf.d/x.d": "Bogus2\n", "conf.d/y.d/s.conf": SITE}, {}, True, ["conf.d/y.d/s.conf"]),
    "files only: no directory matches": ("Include conf.d/*/", {"conf.d/z.conf": SITE}, {}, False, []),
    "a link to a directory is not matched": (
        "Include conf.d/*/", {"real/x.conf": SITE, "conf.d": None}, {"conf.d/l": "../real"}, False, []),
    "IncludeOptional, no directory": ("IncludeOptional conf.d/*/", {"conf.d/z.conf": SITE}, {}, True, []),
}

#: httpd takes `.` and `..` out of a path by its letters before it looks at the disk (`conf.d/*/..` is `conf.d`,
#: whatever conf.d holds), but a `.` after a wildcard leaves the slash before it: `conf.d/*/.` reads what `conf.d/*/`
#: reads, the directories only (it was read as `conf.d/*`, files beside the directories too).
DOTS = {
    "a dot after a wildcard: directories only": (
        "Include conf.d/*/.", {"conf.d/a/x.conf": SITE, "conf.d/a/sub/y.conf": SITE, "conf.d/z.conf": "Bogus1\n"}, {},
        True, ["conf.d/a/sub/y.conf", "conf.d/a/x.conf"]),
    "a dot after a wildcard, files only: no directory matches": (
        "Include conf.d/*/.", {"conf.d/z.conf": "Bogus1\n"}, {}, False, []),
    "a dot after a wildcard, a link to a directory is not matched": (
        "Include conf.d/*/.", {"real/x.conf": "Bogus1\n", "conf.d/z.conf": "Bogus2\n"}, {"conf.d/l": "../real"}, False,
        []),
    "IncludeOptional, a dot after a wildcard, no directory": (
        "IncludeOptional conf.d/*/.", {"conf.d/z.conf": "Bogus1\n"}, {}, True, []),
    "a dot after a wildcard, then a file": (
        "Include conf.d/*/./x.conf", {"conf.d/a/x.conf": SITE, "conf.d/x.conf": "Bogus1\n"}, {}, True,
        ["conf.d/a/x.conf"]),
    "a dot before a wildcard": (
        "Include conf.d/./*.conf", {"conf.d/b.conf": SITE, "conf.d/a/x.conf": "Bogus1\n"}, {}, True, ["conf.d/b.conf"]),
    "a dot-dot after a wildcard takes it away, as a name of no directory would be (no directory needed)": (
        "Include conf.d/*/..", {"conf.d/c.conf": SITE}, {}, True, ["conf.d/c.conf"]),
    "a dot-dot after a wildcard, then a file": (
        "Include conf.d/*/../c.conf", {"conf.d/c.conf": SITE, "conf.d/a/c.conf": "Bogus1\n"}, {}, True,
        ["conf.d/c.conf"]),
    "a dot-dot before a wildcard": (
        "Include conf.d/../x/*.conf", {"conf.d/b.conf": "Bogus1\n", "x/q.conf": SITE}, {}, True, ["x/q.conf"]),
}


@pytest.mark.parametrize("case", {**TRAILING, **DOTS})
def test_a_wildcard_with_a_trailing_slash_reads_what_httpd_reads(tmp_path, httpd, case):  # noqa: F811
    from httpd24 import inputs

    include, files, links, starts, read = {**TRAILING, **DOTS}[case]
    root = tmp_path / "root"
    _tree(root, include, files)
    for name, target in links.items():
        (root / name).symlink_to(target)
    result = configtest_tree(httpd, root)
    assert (result.returncode == 0) is starts, result.stderr
    if not starts:
        assert f"No matches for the wildcard '*' in '{root}/conf.d', failing" in result.stderr, result.stderr
    for given in (root, root / "httpd.conf"):
        [source] = inputs.load(str(given))
        view = source.configset.view()
        reached = sorted({item.file for item in view.items if not item.unread} - {"httpd.conf"})
        assert reached == read, (given, reached)
        code, out, err = run("lint", "--isolated", str(given))
        assert "Bogus" not in out, (given, out)  # a file httpd does not read is no configuration of its
        if starts:
            assert code == 0 and out == "", (given, out, err)
        else:
            assert code == 1 and codes(out) == [(f"{root}/httpd.conf:3", "HT403")], (given, out, err)
            assert "no directory in conf.d matches *" in out and "IncludeOptional" in out, (given, out)
    if not starts:  # its fix makes a configuration httpd starts
        run("migrate", "--select", "HT403", "--write", str(root / "httpd.conf"))
        assert configtest_tree(httpd, root).returncode == 0

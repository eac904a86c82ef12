"""Includes through symbolic links, judged as httpd judges them (checked against `apache2 -t`).

httpd's wildcard Include walks the pattern one component at a time: a wildcard that is not the last
component matches real directories only (it reads the directory entry's type, and a link's is "link"),
while a component written out is opened through any link. An Include that reaches a directory reads
everything below it, through links, so a link back up (`self -> .`) makes it fail ("Too many levels of
symbolic links"). A link loop elsewhere (in the directory a site serves) is none of its business.
"""

from __future__ import annotations


import pytest
from apache_fixture import configtest_tree, httpd  # noqa: F401

from clirun import run, run_limited


def codes(out: str) -> list[tuple[str, str]]:
    return [(line.split(": ", 1)[0].rsplit(":", 1)[0], line.split(": ", 1)[1].split(" ")[0])
            for line in out.splitlines()]


@pytest.fixture
def tree(tmp_path):
    """A served directory and an include directory, each with a link `self -> .` in it."""
    root = tmp_path / "root"
    (root / "conf.d").mkdir(parents=True)
    (root / "htdocs").mkdir()
    (root / "other").mkdir()
    (root / "conf.d" / "a.conf").write_text("MaxClients 5\n")
    (root / "other" / "x.conf").write_text("MaxClients 6\n")
    (root / "htdocs" / "index.html").write_text("<p>hi</p>\n")
    (root / "conf.d" / "self").symlink_to(".")
    (root / "htdocs" / "self").symlink_to(".")
    return root


def _write(root, include: str) -> None:
    (root / "httpd.conf").write_text(f"ServerRoot {root}\nDocumentRoot {root}/htdocs\n"
                                     f"<Directory {root}/htdocs>\n    Options FollowSymLinks\n</Directory>\n"
                                     f"{include}\n")


def test_a_wildcard_through_a_loop_link_written_out_is_no_ht403(tree, httpd):  # noqa: F811
    """The fuzzer's case: the directory given read conf.d/a.conf, but not as conf.d/self/a.conf (the loop is
    not walked), so `Include conf.d/self/*.conf` matched no name and HT403 claimed httpd would not start."""
    _write(tree, "Include conf.d/self/*.conf")
    assert configtest_tree(httpd, tree).returncode == 0
    for given in (tree, tree / "httpd.conf"):
        code, out, err = run("lint", "--select", "HT101,HT403", str(given))
        # Given the file, it is read as httpd opens it (through the link); given the directory, as the file it is.
        read_as = tree / ("conf.d/self/a.conf" if given != tree else "conf.d/a.conf")
        assert code == 0 and (f"{read_as}:1", "HT101") in codes(out), (given, out, err)
        assert "HT403" not in out, (given, out, err)


@pytest.mark.parametrize("include", ["Include conf.d/*/*.conf", "Include conf.d/s*/a.conf", "Include */x.conf"])
def test_a_wildcard_before_the_last_component_matches_no_link(tree, httpd, include):  # noqa: F811
    """`conf.d/*/*.conf` reaches conf.d/self/a.conf through the loop on disk (Python's glob), but httpd
    matches no link there: "No matches for the wildcard '*'", so HT403 is right, file or directory given."""
    (tree / "linked").symlink_to("other")
    _write(tree, include.replace("*/x.conf", "l*/x.conf"))
    result = configtest_tree(httpd, tree)
    assert result.returncode != 0 and "No matches for the wildcard" in result.stderr, result.stderr
    for given in (tree, tree / "httpd.conf"):
        code, out, err = run("lint", "--select", "HT403", str(given))
        assert [c for _, c in codes(out)] == ["HT403"], (given, out, err)


def test_wildcards_over_loops_end_at_once(tree):
    """Two loop links and a pattern of 18 wildcards: Python's glob walked 2**17 paths through them (16 s,
    and 10,000 copies of one file read); httpd walks none."""
    (tree / "conf.d" / "me").symlink_to(".")
    _write(tree, "Include conf.d/" + "*/" * 17 + "*.conf")
    for given in (tree, tree / "httpd.conf"):
        done = run_limited("lint", "--select", "HT403", str(given))
        assert [c for _, c in codes(done.stdout)] == ["HT403"], (given, done.stdout, done.stderr[-2000:])
        assert "10000 files" not in done.stderr


@pytest.mark.parametrize("include", ["Include conf.d", "Include conf.d/", "Include conf.d/*"])
def test_an_include_of_a_directory_holding_a_loop_is_an_error_at_its_line(tree, httpd, include):  # noqa: F811
    """httpd reads the directory through the link again and again until the path has too many links."""
    _write(tree, include)
    result = configtest_tree(httpd, tree)
    assert result.returncode != 0 and "Too many levels of symbolic links" in result.stderr, result.stderr
    for given in (tree, tree / "httpd.conf"):
        done = run_limited("lint", "--select", "HT101", str(given))
        assert done.returncode == 2, (given, done.stdout, done.stderr)
        assert (f"httpd.conf:6:1: error: {include}: {tree}/conf.d/self is a symbolic link to a directory above it "
                f"(a loop)") in done.stderr, done.stderr
        assert "Too many levels of symbolic links" in done.stderr and "remove the link" in done.stderr


def test_an_include_optional_of_a_directory_holding_a_loop_is_no_error(tree, httpd):  # noqa: F811
    """IncludeOptional passes over the file it cannot open once the path has too many links: httpd starts
    (having read conf.d/a.conf forty times). The loop is named, not followed, and no error."""
    _write(tree, "IncludeOptional conf.d/")
    assert configtest_tree(httpd, tree).returncode == 0
    for given in (tree, tree / "httpd.conf"):
        done = run_limited("lint", "--select", "HT101", str(given))
        assert done.returncode == 0 and " error: " not in done.stderr, (given, done.stderr)
        assert f"{tree}/conf.d/self: not read (a symbolic link loop" in done.stderr, (given, done.stderr)


def test_a_loop_in_the_served_directory_is_none_of_the_configurations_business(tree, httpd):  # noqa: F811
    _write(tree, "Include conf.d/*.conf")
    assert configtest_tree(httpd, tree).returncode == 0
    for given in (tree, tree / "httpd.conf"):
        done = run_limited("lint", "--select", "HT101,HT403", str(given))
        assert done.returncode == 0 and (f"{tree}/conf.d/a.conf:1", "HT101") in codes(done.stdout), done.stderr
        assert "HT403" not in done.stdout and " error: " not in done.stderr, done.stderr

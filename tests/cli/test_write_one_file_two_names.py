"""`migrate --write` of one file on disk that the configuration reads under two names (a link to it beside it, a
linked directory, two arguments that both include it): it is written once, through the link, which stays a link;
when the two names' migrated texts differ, writing one would undo the other's fixes, so neither is written.

Each name was written on its own: the second write replaced the first's (a fix made under one name only was lost
while the summary called it made), and each left a kept copy (.httpd24-orig) of the file behind.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from clirun import run

MAIN = "RewriteLog logs/rw.log\nRewriteLogLevel 2\nInclude conf.d/*.conf\n"
VHOST = "<VirtualHost *:80>\n    ServerName a\n    MaxClients 5\n</VirtualHost>\n"
FIXED = "<VirtualHost *:80>\n    ServerName a\n    MaxRequestWorkers 5\n    LogLevel rewrite:warn\n</VirtualHost>\n"


def _listing(directory) -> list[str]:
    """Every name under ``directory``: its files, and its links to directories (not followed)."""
    names = []
    for where, directories, files in os.walk(directory):
        linked = [d for d in directories if os.path.islink(os.path.join(where, d))]
        names.extend(os.path.relpath(os.path.join(where, name), directory) for name in files + linked)
    return sorted(names)


@pytest.fixture
def server(tmp_path):
    (tmp_path / "httpd.conf").write_text(MAIN)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_text(VHOST)
    (tmp_path / "conf.d" / "b.conf").symlink_to("a.conf")
    return tmp_path


def test_a_file_and_a_link_to_it_are_written_once_and_the_link_stays(server):
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", str(server / "httpd.conf"))
    assert code == 0, err
    assert (server / "conf.d" / "a.conf").read_text() == FIXED
    assert os.readlink(server / "conf.d" / "b.conf") == "a.conf"
    assert (server / "httpd.conf").read_text() == "LogLevel rewrite:trace2\nInclude conf.d/*.conf\n"
    assert _listing(server) == ["conf.d/a.conf", "conf.d/b.conf", "httpd.conf"]  # no kept copy left behind


def test_a_linked_directory_is_written_through_once(tmp_path):
    """`Include sites/*.conf` and `Include conf.d/*.conf` with sites -> conf.d: every file read twice."""
    (tmp_path / "httpd.conf").write_text("Include conf.d/*.conf\nInclude sites/*.conf\n")
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_text("MaxClients 5\n")
    (tmp_path / "sites").symlink_to("conf.d")
    code, _, err = run("migrate", "--write", "--select", "HT101", str(tmp_path / "httpd.conf"))
    assert code == 0, err
    assert (tmp_path / "conf.d" / "a.conf").read_text() == "MaxRequestWorkers 5\n"
    assert os.path.islink(tmp_path / "sites")
    assert _listing(tmp_path) == ["conf.d/a.conf", "httpd.conf", "sites"]


def test_two_names_whose_fixes_differ_are_not_written_and_both_are_named(server):
    """per-file-ignores silences HT101 under b.conf only: a.conf's text renames MaxClients, b.conf's does not. The
    file was written as b.conf's text last: a.conf's rename was lost, and the summary said it was made."""
    (server / "httpd24.toml").write_text('[per-file-ignores]\n"conf.d/b.conf" = ["HT101"]\n')
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", "httpd.conf", cwd=server)
    assert code == 2, err
    assert (server / "conf.d" / "a.conf").read_text() == VHOST
    assert (server / "httpd.conf").read_text() == MAIN  # the other half of HT113's edit is not written alone
    assert os.readlink(server / "conf.d" / "b.conf") == "a.conf"
    assert _listing(server) == ["conf.d/a.conf", "conf.d/b.conf", "httpd.conf", "httpd24.toml"]
    assert (f"httpd24: conf.d/a.conf: not written: it is one file with conf.d/b.conf ({server}/conf.d/a.conf, reached "
            "under both names through a link), and their migrated texts differ from line 3 (conf.d/a.conf:3, "
            "conf.d/b.conf:3): a fix made, or ignored, under one name only; written as either, the other's would be "
            "lost -> make the fixes agree for both names (a per-file-ignores pattern that matches both, or none), or "
            "edit the file by hand from `httpd24 migrate --diff`") in err, err
    assert ("httpd24: httpd.conf: not written either: its fix (HT113) also edits conf.d/a.conf, which could not be "
            "written; it is left as it was") in err, err
    assert "  fixed " not in err and ": fixed " not in err and "  would fix " in err


def test_a_file_two_arguments_include_is_not_written_twice_with_different_fixes(tmp_path):
    """Both entries include common.conf; one's HT113 writes `LogLevel rewrite:warn` into its virtual host, which the
    other's text lacks: written last, it dropped that line, and the trace of one.conf's new `LogLevel rewrite:trace2`
    reached the virtual host, which 2.2 never traced."""
    (tmp_path / "one.conf").write_text("RewriteLog logs/rw.log\nRewriteLogLevel 2\nInclude common.conf\n")
    (tmp_path / "two.conf").write_text("Include common.conf\n")
    (tmp_path / "common.conf").write_text(VHOST)
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", "one.conf", "two.conf", cwd=tmp_path)
    assert code == 2, err
    assert (tmp_path / "common.conf").read_text() == FIXED
    assert (tmp_path / "one.conf").read_text() == "LogLevel rewrite:trace2\nInclude common.conf\n"
    assert ("httpd24: common.conf: not written for two.conf: this run wrote it for another argument already, and its "
            "text there differs from this one's from line 4 -> run `httpd24 migrate --write two.conf` again: it "
            "reads the file as it is now") in err, err
    assert "two.conf: nothing written; 1 finding(s) would be fixed (HT101 x1) in common.conf" in err, err


def test_the_same_text_for_a_file_two_arguments_include_is_written_once(tmp_path):
    (tmp_path / "one.conf").write_text("Include common.conf\n")
    (tmp_path / "two.conf").write_text("Include common.conf\n")
    (tmp_path / "common.conf").write_text("MaxClients 5\n")
    code, _, err = run("migrate", "--write", "--select", "HT101", "one.conf", "two.conf", cwd=tmp_path)
    assert code == 0, err
    assert (tmp_path / "common.conf").read_text() == "MaxRequestWorkers 5\n"
    assert "two.conf: fixed 1 finding(s) (HT101 x1) in common.conf" in err


def test_hard_links_are_one_file_too(server):
    """Two hard links have two real paths: the same file all the same, rewritten in place once, both names kept."""
    (server / "conf.d" / "b.conf").unlink()
    os.link(server / "conf.d" / "a.conf", server / "conf.d" / "b.conf")
    (server / "httpd24.toml").write_text('[per-file-ignores]\n"conf.d/b.conf" = ["HT101"]\n')
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", "httpd.conf", cwd=server)
    assert code == 2 and "conf.d/a.conf: not written: it is one file with conf.d/b.conf" in err, err
    assert (server / "conf.d" / "a.conf").read_text() == VHOST and (server / "httpd.conf").read_text() == MAIN
    (server / "httpd24.toml").unlink()
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", "httpd.conf", cwd=server)
    assert code == 0, err
    assert (server / "conf.d" / "b.conf").read_text() == FIXED and os.stat(server / "conf.d" / "a.conf").st_nlink == 2
    assert _listing(server) == ["conf.d/a.conf", "conf.d/b.conf", "httpd.conf"]


def _patched(directory, diff: str) -> None:
    """``diff`` applied with patch(1), as a person applies `httpd24 migrate --diff`; it must apply cleanly."""
    (directory / "m.diff").write_text(diff, encoding="utf-8", newline="")
    applied = subprocess.run(["patch", "-p1", "-i", "m.diff"], cwd=directory, capture_output=True, text=True)
    (directory / "m.diff").unlink()
    assert applied.returncode == 0, applied.stdout + applied.stderr


def test_the_diff_of_a_file_and_a_link_to_it_applies_with_patch(server):
    """The change was printed once per name: patch applied it under a.conf, then failed on b.conf (the same file,
    changed already) or replaced the link."""
    code, diff, err = run("migrate", "--diff", "-q", "--select", "HT101,HT113,HT114", "httpd.conf", cwd=server)
    assert code == 0, err
    _patched(server, diff)
    assert (server / "conf.d" / "a.conf").read_text() == FIXED
    assert os.readlink(server / "conf.d" / "b.conf") == "a.conf"
    assert (server / "httpd.conf").read_text() == "LogLevel rewrite:trace2\nInclude conf.d/*.conf\n"


def test_the_diff_of_a_file_two_arguments_include_is_printed_once(tmp_path):
    for name in ("one.conf", "two.conf"):
        (tmp_path / name).write_text("Include common.conf\n")
    (tmp_path / "common.conf").write_text("MaxClients 5\n")
    code, diff, err = run("migrate", "--diff", "-q", "--select", "HT101", "one.conf", "two.conf", cwd=tmp_path)
    assert code == 0, err
    _patched(tmp_path, diff)
    assert (tmp_path / "common.conf").read_text() == "MaxRequestWorkers 5\n"


def test_the_diff_shows_a_file_whose_names_differ_once_and_says_so(server):
    (server / "httpd24.toml").write_text('[per-file-ignores]\n"conf.d/b.conf" = ["HT101"]\n')
    code, diff, err = run("migrate", "--diff", "-q", "--select", "HT101,HT113,HT114", "httpd.conf", cwd=server)
    assert code == 0, err
    assert diff.count("+++ b/conf.d/") == 1, diff
    assert ("httpd24: conf.d/b.conf: not in the diff: it is one file with conf.d/a.conf, shown above, and its migrated "
            "text differs from there from line 3 -> apply the diff, then run `httpd24 migrate --diff httpd.conf` "
            "again") in err, err
    _patched(server, diff)
    assert (server / "conf.d" / "a.conf").read_text() == FIXED


def test_a_file_two_arguments_reach_through_two_hard_links_is_said_to_be_written_already(tmp_path):
    """Each hard link has its own real path, so the second argument took the first's write for someone else's edit
    ("changed while httpd24 ran"): nothing was lost, but the message sent the user looking for another writer."""
    (tmp_path / "one.conf").write_text("RewriteLog logs/rw.log\nRewriteLogLevel 2\nInclude common.conf\n")
    (tmp_path / "two.conf").write_text("Include common2.conf\n")
    (tmp_path / "common.conf").write_text(VHOST)
    os.link(tmp_path / "common.conf", tmp_path / "common2.conf")
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", "one.conf", "two.conf", cwd=tmp_path)
    assert code == 2, err
    assert (tmp_path / "common.conf").read_text() == FIXED and (tmp_path / "common2.conf").read_text() == FIXED
    assert "changed while httpd24 ran" not in err, err
    assert ("httpd24: common2.conf: not written for two.conf: this run wrote it for another argument already, and its "
            "text there differs from this one's from line 4") in err, err

"""`migrate --write` of a fix that edits several files: all of them are written, or none.

HT113 removes RewriteLog in one file and writes `LogLevel rewrite:warn` into a virtual host that may
live in another: the main server's new `LogLevel rewrite:trace2` without the virtual host's line
would start tracing that virtual host, which 2.2 never did.
"""

from __future__ import annotations

import errno
import os

import pytest

from clirun import run
from httpd24.config import ConfigSet
from httpd24.engine import migrate

MAIN = "RewriteLog logs/rw.log\nRewriteLogLevel 2\nInclude vhost.conf\nMaxClients 5\n"
VHOST = "<VirtualHost *:80>\n    ServerName a\n</VirtualHost>\n"


@pytest.fixture
def site(tmp_path):
    (tmp_path / "main.conf").write_text(MAIN)
    (tmp_path / "vhost.conf").write_text(VHOST)
    (tmp_path / "alone.conf").write_text("MaxClients 7\n")
    return tmp_path


def _refuse(monkeypatch, victim):
    """The rename onto ``victim`` fails, as onto an immutable file (EPERM, root too)."""
    replace = os.replace

    def refusing(src, dst, *args, **kwargs):
        if os.path.realpath(dst) == os.path.realpath(victim):
            raise OSError(errno.EPERM, os.strerror(errno.EPERM))
        return replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", refusing)


def test_the_migration_knows_every_file_a_fix_edited(site):
    migration = migrate(ConfigSet.from_mapping({"main.conf": MAIN, "vhost.conf": VHOST}, entry="main.conf"),
                        select=["HT113", "HT114"])
    [fixed] = migration.applied
    assert fixed.code == "HT113" and fixed.file == "main.conf"
    assert migration.files_of(fixed) == {"main.conf", "vhost.conf"}


def test_a_fix_whose_other_file_cannot_be_written_is_not_half_written(site, monkeypatch):
    _refuse(monkeypatch, site / "vhost.conf")
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", str(site / "main.conf"))
    assert code == 2, err
    assert f"cannot write {site}/vhost.conf: {os.strerror(errno.EPERM)}; it is left as it was" in err
    # main.conf holds the other half of HT113's edit: renamed first, it is put back, and says why.
    assert (site / "main.conf").read_text() == MAIN and (site / "vhost.conf").read_text() == VHOST
    assert (f"{site}/main.conf: put back as it was: its fix (HT113) also edits {site}/vhost.conf, which could "
            "not be written") in err
    # The summary claims no fix that is not on disk.
    assert "  fixed " not in err and ": fixed " not in err, err
    assert "  would fix " in err and "HT113" in err
    assert sorted(p.name for p in site.iterdir()) == ["alone.conf", "main.conf", "vhost.conf"]  # no temp file


def test_files_no_fix_links_are_still_written_each_on_its_own(site, monkeypatch):
    """ruff's way: one file that cannot be written keeps no other from being written."""
    _refuse(monkeypatch, site / "vhost.conf")
    code, _, err = run("migrate", "--write", "--select", "HT101,HT113,HT114", str(site / "main.conf"),
                       str(site / "alone.conf"))
    assert code == 2
    assert (site / "alone.conf").read_text() == "MaxRequestWorkers 7\n"
    assert f"fixed 1 finding(s) (HT101 x1) in {site}/alone.conf" in err


def test_a_full_disk_while_the_temporary_files_are_made_renames_nothing(site, monkeypatch):
    """The second temporary file cannot be synced (ENOSPC): no file was renamed yet, none is."""
    fsync, calls, renames = os.fsync, [], []

    def second_fails(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return fsync(fd)

    monkeypatch.setattr(os, "fsync", second_fails)
    monkeypatch.setattr(os, "replace", lambda *args: renames.append(args))
    code, _, err = run("migrate", "--write", "--select", "HT113,HT114", str(site / "main.conf"))
    assert code == 2 and renames == []
    assert f"cannot write {site}/vhost.conf: {os.strerror(errno.ENOSPC)}; it is left as it was" in err
    assert (f"{site}/main.conf: not written either: its fix (HT113) also edits {site}/vhost.conf, which could not "
            "be written; it is left as it was") in err
    assert (site / "main.conf").read_text() == MAIN and (site / "vhost.conf").read_text() == VHOST
    assert "  fixed " not in err and "  would fix " in err
    assert sorted(p.name for p in site.iterdir()) == ["alone.conf", "main.conf", "vhost.conf"]


def test_written_together_when_both_can_be(site):
    code, _, err = run("migrate", "--write", "--select", "HT113,HT114", str(site / "main.conf"))
    assert code == 0, err
    assert (site / "main.conf").read_text() == "LogLevel rewrite:trace2\nInclude vhost.conf\nMaxClients 5\n"
    assert "LogLevel rewrite:warn" in (site / "vhost.conf").read_text()
    assert "  fixed   " in err


def test_a_fix_that_edits_only_another_file_is_not_called_made_when_that_file_is_not_written(tmp_path, monkeypatch):
    """HT404's finding is on the line that needs the module (site.conf); its fix adds the LoadModule line to
    the file that loads the others (httpd.conf). The summary said "fixed" as long as site.conf was written."""
    (tmp_path / "httpd.conf").write_text("LoadModule authz_host_module modules/mod_authz_host.so\nInclude site.conf\n")
    (tmp_path / "site.conf").write_text("RewriteEngine On\nMaxClients 5\n")
    _refuse(monkeypatch, tmp_path / "httpd.conf")
    code, _, err = run("migrate", "--write", "--select", "HT101,HT404", str(tmp_path / "httpd.conf"))
    assert code == 2 and f"cannot write {tmp_path}/httpd.conf" in err
    assert (tmp_path / "site.conf").read_text() == "RewriteEngine On\nMaxRequestWorkers 5\n"  # HT101's, alone
    assert f"fixed 1 finding(s) (HT101 x1) in {tmp_path}/site.conf" in err
    [line] = [line for line in err.splitlines() if " HT404 RewriteEngine On " in line]
    assert line.startswith(f"  would fix {tmp_path}/site.conf:1:1: HT404 "), err
    assert all(line.startswith("  would fix ") for line in err.splitlines() if " HT404 " in line)


@pytest.mark.parametrize("vhost, why", [
    ("binaryData:\n  vhost.conf: " + __import__("base64").b64encode(VHOST.encode()).decode() + "\n",
     "a binaryData value, which --write does not edit in place"),
    ("  vhost.conf: >\n    <VirtualHost *:80>\n\n    ServerName a\n\n    </VirtualHost>\n",
     "the value is not a literal block (key: |)"),
])
def test_a_configmap_value_that_cannot_be_edited_keeps_the_values_linked_to_it(tmp_path, vhost, why):
    """A value --write refuses (before or while editing the manifest) takes the values its fixes share with
    it along: the ConfigMap is left as it was, each value named with why."""
    manifest = tmp_path / "cm.yaml"
    text = ("kind: ConfigMap\nmetadata: {name: web}\ndata:\n  httpd.conf: |\n"
            + "".join(f"    {line}\n" for line in MAIN.splitlines()) + vhost)
    manifest.write_text(text)
    code, _, err = run("migrate", "--write", "--select", "HT113,HT114", str(manifest))
    assert code == 2, err
    assert manifest.read_text() == text
    assert f"{manifest}[default/web]:vhost.conf: not written: " in err and why in err, err
    assert (f"{manifest}[default/web]:httpd.conf: not written: a fix in it (HT113) also edits vhost.conf, which is "
            "not written either") in err, err
    assert "  fixed " not in err and "  would fix " in err


# -- a changed file --write has no path for --------------------------------------------------------------------------
def test_a_changed_file_without_a_path_is_reported_and_its_fix_not_called_made(site):
    """A file of the set with no file on disk to write it back to (none of today's inputs makes one: every file
    read from disk has its path, a ConfigMap's values are written by key; a stand-in or a value from elsewhere
    would be one) was passed over in silence, and the other half of its fix written alone: main.conf got
    `LogLevel rewrite:trace2` without the virtual host's `LogLevel rewrite:warn`, and the summary said "fixed"."""
    import io

    from httpd24 import cli, inputs

    [source] = inputs.load(str(site / "main.conf"))
    del source.paths["vhost.conf"]
    migration = migrate(source.configset, select=["HT101", "HT113", "HT114"])
    assert migration.changed == {"main.conf", "vhost.conf"}
    err = io.StringIO()
    unwritten = cli._write(source, migration, err, {})
    assert unwritten == {"main.conf", "vhost.conf"}, err.getvalue()
    assert (site / "main.conf").read_text() == MAIN and (site / "vhost.conf").read_text() == VHOST
    said = err.getvalue()
    assert (f"httpd24: {site}/vhost.conf: not written: httpd24 has no file on disk to write it to (it was not read "
            "from one); its fixes (HT113) change it -> print them with `httpd24 migrate --diff` and apply that by "
            "hand") in said, said
    assert (f"httpd24: {site}/main.conf: not written either: its fix (HT113) also edits {site}/vhost.conf, which "
            "could not be written; it is left as it was") in said, said
    summary = io.StringIO()
    cli._summary(source, migration, summary, unwritten)
    assert "  fixed " not in summary.getvalue() and "  would fix " in summary.getvalue(), summary.getvalue()


# -- a failed rollback keeps the original bytes ----------------------------------------------------------------------
def _chattr(flag: str, path) -> None:
    import subprocess

    subprocess.run(["chattr", flag, str(path)], check=True, capture_output=True)


@pytest.fixture
def immutable(site):
    """Files made immutable (chattr +i: the kernel refuses to rename over them, root too), made mutable again at
    the end so that pytest can remove them."""
    import shutil

    if os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("chattr +i needs root and e2fsprogs")
    made: list = []
    try:
        _chattr("+i", site / "alone.conf")
        _chattr("-i", site / "alone.conf")
    except Exception as error:  # a file system without the flag (tmpfs, overlay)
        pytest.skip(f"chattr +i does not work here: {error}")
    yield lambda path: (_chattr("+i", path), made.append(path))
    for path in made:
        _chattr("-i", path)


def test_a_rollback_that_fails_keeps_the_original_bytes_in_a_named_file(site, immutable, monkeypatch):
    """vhost.conf refuses its rename (immutable), after main.conf was renamed; then main.conf refuses to be put back
    (made immutable in between, as another process may). Its original bytes were in memory only, and gone when
    httpd24 exited: now they are in a file beside it, made before the first rename, which the error names."""
    immutable(site / "vhost.conf")
    replace = os.replace

    def main_becomes_immutable_then(src, dst, *args, **kwargs):
        if os.path.realpath(dst) == os.path.realpath(site / "vhost.conf"):
            immutable(site / "main.conf")
        return replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", main_becomes_immutable_then)
    code, _, err = run("migrate", "--write", "--select", "HT113,HT114", str(site / "main.conf"))
    assert code == 2, err
    assert f"cannot write {site}/vhost.conf: {os.strerror(errno.EPERM)}; it is left as it was" in err
    kept = [p for p in site.iterdir() if p.name.endswith(".httpd24-orig")]
    assert len(kept) == 1 and kept[0].name.startswith(".main.conf."), sorted(p.name for p in site.iterdir())
    assert kept[0].read_text() == MAIN
    assert (f"httpd24: {site}/main.conf: holds the migrated text, but {site}/vhost.conf, which its fix (HT113) also "
            f"edits, does not; its original is kept in {kept[0]}: put it back with `cp {kept[0]} {site}/main.conf`"
            ) in err, err
    assert os.stat(kept[0]).st_mode & 0o777 == 0o600  # readable by the owner only, whatever the file held
    assert "  fixed " not in err and "  would fix " in err


def test_no_copy_is_left_when_the_rollback_succeeds_or_nothing_fails(site, immutable):
    immutable(site / "vhost.conf")
    code, _, err = run("migrate", "--write", "--select", "HT113,HT114", str(site / "main.conf"))
    assert code == 2 and f"{site}/main.conf: put back as it was" in err, err
    assert (site / "main.conf").read_text() == MAIN
    assert sorted(p.name for p in site.iterdir()) == ["alone.conf", "main.conf", "vhost.conf"]
    _chattr("-i", site / "vhost.conf")
    assert run("migrate", "--write", "--select", "HT113,HT114", str(site / "main.conf"))[0] == 0
    assert sorted(p.name for p in site.iterdir()) == ["alone.conf", "main.conf", "vhost.conf"]


# -- a file with hard links, rewritten in place, keeps its original too ----------------------------------------------
_LIMITED_AFTER_COPIES = r'''
import os, resource, signal, sys
from httpd24.cli import main

copies, fsync = int(sys.argv[1]), os.fsync
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not death


def limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (8, resource.RLIM_INFINITY))


def then_limited(fd):
    global copies
    fsync(fd)
    if os.readlink(f"/proc/self/fd/{fd}").endswith(".httpd24-orig"):
        copies -= 1
        if copies == 0:
            limit()


if copies == 0:
    limit()
os.fsync = then_limited
sys.exit(main(sys.argv[2:]))
'''


@pytest.mark.parametrize("alone", [True, False], ids=["alone", "with-a-linked-file"])
def test_an_in_place_rewrite_that_cannot_put_the_file_back_keeps_its_original(site, alone):
    """main.conf has another hard link, so it is rewritten in place; the write stops part-way, and so does the write
    of its old bytes: what it holds is not known. It was said to be "left as it was", and its original was in memory
    only; now it is in a copy made before the first write, which the error names."""
    os.link(site / "main.conf", site / "other-name.conf")
    if alone:
        (site / "main.conf").write_text("RewriteLog logs/rw.log\nRewriteLogLevel 2\n")
    original = (site / "main.conf").read_text()
    done = _limited_after_copies(1 if alone else 2, "migrate", "--write", "--select", "HT113,HT114",
                                 str(site / "main.conf"))
    assert done.returncode == 2, done.stderr
    kept = [p for p in site.iterdir() if p.name.endswith(".httpd24-orig")]
    assert len(kept) == 1 and kept[0].name.startswith(".main.conf."), sorted(p.name for p in site.iterdir())
    assert kept[0].read_text() == original and os.stat(kept[0]).st_mode & 0o777 == 0o600
    too_large = os.strerror(errno.EFBIG)
    assert (f"httpd24: cannot write {site}/main.conf: {too_large}, nor put its old bytes back ({too_large}); its "
            f"original is kept in {kept[0]}: put it back with `cp {kept[0]} {site}/main.conf` (which keeps the "
            "file's owner and mode)") in done.stderr, done.stderr
    assert f"{site}/main.conf: {too_large}; it is left as it was" not in done.stderr
    assert (site / "vhost.conf").read_text() == VHOST
    assert "  fixed " not in done.stderr and "  would fix " in done.stderr


def test_an_in_place_rewrite_is_not_made_without_a_copy_of_the_original(site):
    """No copy can be made (the limit is there from the start): the file is not written, rather than written with
    nothing to put it back from. It was written part-way, put back part-way, and said to be "left as it was"."""
    os.link(site / "main.conf", site / "other-name.conf")
    done = _limited_after_copies(0, "migrate", "--write", "--select", "HT101", str(site / "main.conf"))
    assert done.returncode == 2, done.stderr
    assert (site / "main.conf").read_text() == MAIN
    assert (f"httpd24: cannot write {site}/main.conf: no copy of it could be kept to put it back from "
            f"({os.strerror(errno.EFBIG)}); it is left as it was") in done.stderr, done.stderr
    assert sorted(p.name for p in site.iterdir()) == ["alone.conf", "main.conf", "other-name.conf", "vhost.conf"]


def _limited_after_copies(copies: int, *argv):
    """``httpd24 ARGV`` in a process of its own whose file size limit falls to 8 bytes (the kernel then refuses
    more with EFBIG, as a full disk refuses blocks) once ``copies`` copies of originals (.httpd24-orig) are
    made: each write of a longer file then stops part-way, and so does the write that puts its old bytes back."""
    import subprocess
    import sys

    import httpd24

    operator = os.path.dirname(os.path.dirname(httpd24.__file__))  # the httpd24 this test runs
    return subprocess.run([sys.executable, "-c", _LIMITED_AFTER_COPIES, str(copies), *argv], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ, PYTHONPATH=operator))

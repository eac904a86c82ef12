"""Inputs and outputs at their edges: pipes, odd line ends, malformed manifests, owners and links,
URIs, and the small usage errors. Each test is a bug a user met."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse

import pytest

from clirun import run, stdin

OPERATOR = os.path.join(os.path.dirname(__file__), "..", "..", "operator")


@pytest.fixture
def pipe():
    """pipe(data): a /dev/fd path reading ``data`` from a pipe, as bash's ``<(cat file)`` gives one."""
    opened = []

    def make(data: bytes) -> str:
        read, write = os.pipe()
        opened.append(read)
        os.write(write, data)  # fits the pipe's buffer: every test's data is < 64 KiB
        os.close(write)
        return f"/dev/fd/{read}"

    yield make
    for fd in opened:
        os.close(fd)


def _cli(*argv, cwd=None, timeout=60):
    """``httpd24 ARGV`` in a process of its own: a hang fails the test instead of the suite."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(OPERATOR))
    return subprocess.run([sys.executable, "-m", "httpd24", *argv], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


# -- 1: a pipe is read once ---------------------------------------------------------------------
@pytest.mark.parametrize("padding", [0, 20000])
def test_a_pipe_is_read_once_and_completely(pipe, padding):
    # not_configuration() sniffed the first 8 KiB, then the file was opened again: a pipe was empty by then.
    data = b"# padding\n" * (padding // 10) + b"MaxClients 150\n"
    path = pipe(data)
    code, out, err = run("lint", "--select", "HT101", "--fail-on", "warning", path)
    assert code == 1, err
    assert f"{path}:{padding // 10 + 1}:1: HT101 " in out


@pytest.mark.parametrize("given", ["pipe", "-"])
def test_a_pipes_relative_includes_are_read_from_the_working_directory(pipe, tmp_path, monkeypatch, given):
    # `httpd24 lint <(git show HEAD:httpd.conf)`: the pipe is /dev/fd/63, and its Includes were looked
    # for under /dev, where they match nothing (a false HT403 error, and conf.d's findings lost).
    # Included files are shown as `-` shows them, relative to the working directory (the pipe's were
    # absolute: /tmp/.../conf.d/a.conf).
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_text("MaxClients 150\n")
    text = "Include conf.d/*.conf\n"
    if given == "pipe":
        given = pipe(text.encode())
    else:
        stdin(monkeypatch, text)
    code, out, err = run("lint", "--fail-on", "never", given, cwd=tmp_path)
    assert code == 0, err
    assert "HT403" not in out
    assert re.search(r"^conf\.d/a\.conf:1:1: HT101 ", out, re.M), out


def test_a_fifo_given_directly_is_read_as_cat_reads_it(tmp_path):
    fifo = tmp_path / "fifo.conf"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(b"MaxClients 150\n"), daemon=True)
    writer.start()
    done = _cli("lint", "--select", "HT101", "--fail-on", "warning", str(fifo), timeout=30)
    assert done.returncode == 1 and f"{fifo}:1:1: HT101 " in done.stdout, done.stderr


def test_a_pipe_is_not_written_back(pipe):
    code, out, err = run("migrate", "--write", pipe(b"MaxClients 150\n"))
    assert code == 2 and "cannot write" in err and "internal error" not in err


def test_a_fifo_in_a_directory_or_behind_an_include_is_never_opened(tmp_path):
    (tmp_path / "httpd.conf").write_text("MaxClients 150\nInclude conf.d/*.conf\n")
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_text("MaxRequestsPerChild 0\n")
    os.mkfifo(tmp_path / "conf.d" / "b.conf")  # no writer: opening it would block for ever
    os.mkfifo(tmp_path / "spool")
    done = _cli("lint", "--fail-on", "never", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "HT101" in done.stdout and "HT102" in done.stdout
    assert f"{tmp_path}/spool: not read (a named pipe" in done.stderr
    done = _cli("lint", "--fail-on", "never", str(tmp_path / "httpd.conf"))
    assert done.returncode == 0 and "HT102" in done.stdout, done.stderr


# -- 2: --diff splits lines on \n only ----------------------------------------------------------
@pytest.mark.parametrize("odd", ["\r", "\f", "\v", "\x1c", "\x85", "\u2028"])
def test_diff_applies_with_patch_when_a_line_holds_other_line_breaks(tmp_path, odd):
    if shutil.which("patch") is None:
        pytest.skip("no patch(1)")
    conf = tmp_path / "cr.conf"
    conf.write_bytes(f"# old mac line{odd}ServerName a\nMaxClients 10\n# end{odd}".encode())
    _, migrated, _ = run("migrate", "-q", str(conf))
    code, diff, err = run("migrate", "--diff", "-q", "cr.conf", cwd=tmp_path)
    (tmp_path / "cr.diff").write_text(diff, encoding="utf-8", newline="")
    applied = subprocess.run(["patch", "-p1", "-i", "cr.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert conf.read_bytes() == migrated.encode() and b"MaxRequestWorkers 10" in conf.read_bytes()


# -- 3: malformed manifests -----------------------------------------------------------------------
@pytest.mark.parametrize("body, field", [
    ("metadata: web\ndata:\n  httpd.conf: \"MaxClients 1\"\n", "metadata"),
    ("metadata: {name: web}\ndata: [MaxClients 1]\n", "data"),
    ("metadata: {name: web, annotations: [a, b]}\ndata:\n  httpd.conf: \"MaxClients 1\"\n", "annotations"),
])
def test_a_malformed_configmap_is_an_error_of_its_file_and_the_rest_is_checked(tmp_path, body, field):
    conf = tmp_path / "p.conf"
    conf.write_text("MaxClients 150\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: ConfigMap\n" + body)
    code, out, err = run("lint", "--fail-on", "warning", str(conf), str(bad))
    assert code == 2 and "internal error" not in err
    assert f"{conf}:1:1: HT101 " in out
    [line] = [line for line in err.splitlines() if str(bad) in line]
    assert field in line and "must be a mapping" in line


@pytest.mark.parametrize("name, text, needle", [
    ("l.yaml", "kind: List\nitems: 3\n", "items must be a list"),
    ("l.json", '{"kind": "List", "items": {"a": 1}}', "items must be a list"),
    ("n.json", "5", "not a Kubernetes object"),
    ("e.yaml", "kind: ConfigMap\nmetadata: {name: w, annotations: {httpd24.io/entry: 5}}\n", "entry must be a string"),
])
def test_a_manifest_of_the_wrong_shape_is_an_error_of_its_file(tmp_path, name, text, needle):
    (tmp_path / name).write_text(text)
    code, _, err = run("lint", str(tmp_path / name))
    assert code == 2 and f"httpd24: {tmp_path / name}" in err and needle in err and "internal error" not in err


def test_a_helm_template_in_a_directory_is_reported_and_the_rest_is_linted(tmp_path):
    (tmp_path / "httpd.conf").write_text("MaxClients 150\n")
    (tmp_path / "cm.yaml").write_text(
        "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  httpd.conf: |\n    MaxClients 1\n")
    code, out, err = run("lint", "--fail-on", "warning", str(tmp_path))
    assert code == 2 and "internal error" not in err
    assert f"{tmp_path}/httpd.conf:1:1: HT101 " in out
    assert f"{tmp_path}/cm.yaml:" in err and "not valid YAML" in err and "helm template" in err


# -- 4: migrate's exit code and summary agree ---------------------------------------------------
def test_migrate_fails_when_its_summary_says_a_person_is_needed(tmp_path):
    conf = tmp_path / "m.conf"
    conf.write_text("# httpd24: ignore=HT406 because reasons\nServerName x\n")
    code, _, err = run("migrate", str(conf))
    assert "need a person" in err and "1 warning" in err
    assert code == 1
    notes_only = tmp_path / "dav.conf"
    notes_only.write_text("DavLockDB /var/lock/DAVLock\n")  # an info finding, never fixed: a note
    code, _, err = run("migrate", str(notes_only))
    assert "note" in err and "need a person" not in err
    assert code == 0


# -- 5: --write keeps owner, group and hard links -----------------------------------------------
def test_write_keeps_hard_links(tmp_path):
    conf = tmp_path / "site.conf"
    conf.write_text("MaxClients 5\n")
    link = tmp_path / "link.conf"
    os.link(conf, link)
    assert run("migrate", "--write", "--select", "HT101", str(conf))[0] == 0
    assert link.read_text() == conf.read_text() == "MaxRequestWorkers 5\n"
    assert os.path.samefile(conf, link)


def test_write_keeps_owner_and_group(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    owned = tmp_path / "owned.conf"
    owned.write_text("MaxClients 5\n")
    os.chown(owned, 65534, 65534)
    assert run("migrate", "--write", "--select", "HT101", str(owned))[0] == 0
    assert owned.read_text() == "MaxRequestWorkers 5\n"
    assert (owned.stat().st_uid, owned.stat().st_gid) == (65534, 65534)


# -- 6: SARIF URIs are URI references -------------------------------------------------------------
def test_sarif_uri_is_percent_encoded(tmp_path):
    (tmp_path / "sp ace").mkdir()
    name = "sp ace/a #1%.conf"
    (tmp_path / name).write_text("MaxClients 150\n")
    _, out, err = run("lint", "--format", "sarif", name, cwd=tmp_path)
    [result] = json.loads(out)["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert re.fullmatch(r"[A-Za-z0-9._~/!$&'()*+,;=:@%-]*", uri) and urllib.parse.unquote(uri) == name


# -- 7: small usage errors --------------------------------------------------------------------------
def test_an_empty_select_is_a_usage_error(tmp_path, capsys):
    conf = tmp_path / "p.conf"
    conf.write_text("MaxClients 150\n")
    code, out, _ = run("lint", "--select", "", str(conf))
    assert code == 2 and out == "" and "--select" in capsys.readouterr().err


def test_nul_bytes_are_refused_alike_from_a_file_and_standard_input(tmp_path, monkeypatch):
    data = "MaxClients 1\n\0\n"
    conf = tmp_path / "nul.conf"
    conf.write_text(data)
    code, out, err = run("lint", str(conf))
    assert code == 2 and out == ""
    stdin(monkeypatch, data)
    code2, out2, err2 = run("lint", "--stdin-filename", str(conf), "-")
    assert (code2, out2, err2) == (code, out, err)


def test_a_symbolic_link_loop_is_named(tmp_path):
    os.symlink("b.conf", tmp_path / "a.conf")
    os.symlink("a.conf", tmp_path / "b.conf")
    code, _, err = run("lint", str(tmp_path / "a.conf"))
    assert code == 2 and f"{tmp_path}/a.conf: a symbolic link loop" in err


# -- 8: bytes that are not UTF-8 come out as they went in -------------------------------------------
def _cli_bytes(*argv, cwd=None, encoding="utf-8"):
    """``httpd24 ARGV`` with stdout in the strict ``encoding`` a UTF-8 locale gives (PYTHONIOENCODING
    as LANG=en_US.UTF-8 sets it, without Python's C-locale leniency): stdout and stderr as bytes."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(OPERATOR), PYTHONIOENCODING=encoding)
    return subprocess.run([sys.executable, "-m", "httpd24", *argv], capture_output=True, cwd=cwd, env=env, timeout=60)


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
@pytest.mark.parametrize("argv, shown", [
    (["lint", "--fail-on", "never"], b"/var/log/caf\xe9.log"),
    (["lint", "--fail-on", "never", "--format", "github"], b"/var/log/caf\xe9.log"),
    (["migrate", "--diff"], b"-RewriteLog /var/log/caf\xe9.log\n"),
    (["migrate"], b"# caf\xe9 \xc3\xa9t\xc3\xa9\n"),
])
def test_latin1_bytes_in_a_file_come_out_unchanged_whatever_the_locale(tmp_path, argv, shown, encoding):
    # The engine reads a file's bytes as UTF-8 with surrogateescape; a strict stdout then died with
    # "internal error: UnicodeEncodeError ... surrogates not allowed" under LANG=en_US.UTF-8.
    conf = tmp_path / "latin1.conf"
    conf.write_bytes(b"# caf\xe9 \xc3\xa9t\xc3\xa9\nRewriteLog /var/log/caf\xe9.log\nMaxClients 1\n")
    done = _cli_bytes(*argv, "latin1.conf", cwd=tmp_path, encoding=encoding)
    assert b"internal error" not in done.stderr and done.returncode in (0, 1), done.stderr
    assert shown in done.stdout
    if argv == ["migrate"]:  # the migrated file, byte for byte: the comment's Latin-1 and UTF-8 alike
        kept = conf.read_bytes().replace(b"RewriteLog /var/log/caf\xe9.log\n", b"")  # a log 2.4 cannot write
        assert done.stdout == kept.replace(b"MaxClients", b"MaxRequestWorkers")


# -- 9: --write makes its temporary file itself, and never writes over an edit ---------------------
def test_write_never_follows_a_link_planted_where_its_temporary_file_was(tmp_path):
    # The temporary file was a fixed a.conf.httpd24.tmp opened without O_EXCL: a link planted there made
    # --write overwrite the link's target and then rename the link over a.conf.
    (tmp_path / "victim").write_text("unrelated\n")
    conf = tmp_path / "a.conf"
    conf.write_text("MaxClients 5\n")
    os.symlink("victim", tmp_path / "a.conf.httpd24.tmp")
    code, _, err = run("migrate", "--write", "--select", "HT101", str(conf))
    assert code == 0, err
    assert (tmp_path / "victim").read_text() == "unrelated\n"
    assert not conf.is_symlink() and conf.read_text() == "MaxRequestWorkers 5\n"
    assert os.readlink(tmp_path / "a.conf.httpd24.tmp") == "victim"  # not ours: left alone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.conf", "a.conf.httpd24.tmp", "victim"]


def test_write_through_a_link_replaces_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "site.conf").write_text("MaxClients 5\n")
    (tmp_path / "real" / "site.conf").chmod(0o604)
    os.symlink("real/site.conf", tmp_path / "site.conf")
    assert run("migrate", "--write", "--select", "HT101", str(tmp_path / "site.conf"))[0] == 0
    assert os.readlink(tmp_path / "site.conf") == "real/site.conf"
    assert (tmp_path / "real" / "site.conf").read_text() == "MaxRequestWorkers 5\n"
    assert ((tmp_path / "real" / "site.conf").stat().st_mode & 0o777) == 0o604
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["site.conf"]


def _edit_while_migrating(monkeypatch, path, edit):
    """Between migrate's read and its write, ``edit`` changes ``path`` (as an editor saving it would)."""
    import httpd24.cli as cli

    original = cli.migrate

    def migrate_then_edit(*args, **kwargs):
        result = original(*args, **kwargs)
        edit(path)
        return result

    monkeypatch.setattr(cli, "migrate", migrate_then_edit)


def _append(line):
    return lambda path: path.write_bytes(path.read_bytes() + line)


@pytest.mark.parametrize("links", [1, 2], ids=["renamed-over", "hard-linked"])
def test_write_keeps_an_edit_made_while_httpd24_ran(tmp_path, monkeypatch, links):
    conf = tmp_path / "race.conf"
    conf.write_text("MaxClients 5\n")
    if links == 2:
        os.link(conf, tmp_path / "other-name.conf")
    _edit_while_migrating(monkeypatch, conf, _append(b"ServerName added\n"))
    code, _, err = run("migrate", "--write", "--select", "HT101", str(conf))
    assert conf.read_text() == "MaxClients 5\nServerName added\n"  # the edit is kept, nothing written over it
    assert code == 2 and f"{conf}: changed while httpd24 ran" in err and "rerun" in err, err
    assert "internal error" not in err and ": fixed " not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["race.conf"] + ["other-name.conf"] * (links - 1))


def test_write_keeps_an_edit_made_to_a_manifest_while_httpd24_ran(tmp_path, monkeypatch):
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("kind: ConfigMap\nmetadata: {name: web}\ndata:\n  httpd.conf: |\n    MaxClients 5\n")
    _edit_while_migrating(monkeypatch, manifest, lambda p: p.write_text(p.read_text().replace("5", "7")))
    code, _, err = run("migrate", "--write", "--select", "HT101", str(manifest))
    assert "MaxClients 7" in manifest.read_text()
    assert code == 2 and f"{manifest}: changed while httpd24 ran" in err, err


def test_write_migrates_every_configmap_of_one_manifest(tmp_path):
    # Each ConfigMap is a source of its own, written in turn: the second must see the first's write
    # as httpd24's own, not as someone else's edit.
    manifest = tmp_path / "cms.yaml"
    one = "kind: ConfigMap\nmetadata: {name: %s}\ndata:\n  httpd.conf: |\n    MaxClients 5\n"
    manifest.write_text(one % "a" + "---\n" + one % "b")
    code, _, err = run("migrate", "--write", "--select", "HT101", str(manifest))
    assert code == 0, err
    assert manifest.read_text() == (one % "a" + "---\n" + one % "b").replace("MaxClients", "MaxRequestWorkers")


def test_migrate_prints_a_manifest_read_from_standard_input(monkeypatch):
    # The migrated ConfigMap was built by reopening the manifest's file, which standard input has not.
    stdin(monkeypatch, "kind: ConfigMap\nmetadata: {name: w}\ndata:\n  httpd.conf: |\n    MaxClients 1\n")
    code, out, err = run("migrate", "-q", "--stdin-filename", "cm.yaml", "-")
    assert code == 0 and "internal error" not in err, err
    assert "name: w" in out and "MaxRequestWorkers 1" in out and "MaxClients" not in out

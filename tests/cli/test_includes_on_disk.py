"""A configuration file given to the CLI brings the files its Includes reach on disk, as ``httpd -f`` reads them."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from apache_fixture import configtest_tree, httpd  # noqa: F401
from clirun import run, run_limited, stdin

SITE_22 = """\
<Directory /srv/legacy>
    Order allow,deny
    Allow from all
</Directory>
MaxClients 10
"""


def codes(out: str) -> list[tuple[str, str]]:
    """(file:line, code) of each text-format finding."""
    found = []
    for line in out.splitlines():
        where, _, rest = line.partition(": ")
        found.append((where.rsplit(":", 1)[0], rest.split(" ")[0]))
    return found


@pytest.fixture
def server(tmp_path):
    """httpd.conf with `Include conf.d/*.conf` and no ServerRoot line: Debian's apache2.conf layout."""
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "httpd.conf").write_text("ServerName x\nInclude conf.d/*.conf\n")
    (tmp_path / "conf.d" / "legacy.conf").write_text(SITE_22)
    return tmp_path


def test_lint_reads_the_files_the_includes_match(server):
    code, out, err = run("lint", "--select", "HT101,HT403,HT501", str(server / "httpd.conf"))
    legacy = server / "conf.d" / "legacy.conf"
    assert codes(out) == [(f"{legacy}:2", "HT501"), (f"{legacy}:5", "HT101")], out
    assert code == 1


def test_included_files_are_shown_relative_when_the_file_was_given_relative(server):
    _, out, _ = run("lint", "--select", "HT101", "httpd.conf", cwd=server)
    assert codes(out) == [("conf.d/legacy.conf:5", "HT101")]


def test_a_wildcard_that_matches_nothing_on_disk_is_still_reported(server):
    (server / "conf.d" / "legacy.conf").unlink()
    code, out, _ = run("lint", "--select", "HT403", str(server / "httpd.conf"))
    assert codes(out) == [(f"{server}/httpd.conf:2", "HT403")] and code == 1


def test_files_given_with_the_file_that_includes_them_are_reported_once(server):
    """A pre-commit hook passes every changed file: each finding still comes once, in context."""
    _, out, _ = run("lint", "--select", "HT101", "httpd.conf", "conf.d/legacy.conf", cwd=server)
    assert codes(out) == [("conf.d/legacy.conf:5", "HT101")]


def test_migrate_prints_the_file_and_what_changed_of_its_includes(server):
    code, out, _ = run("migrate", "--select", "HT101", str(server / "httpd.conf"))
    assert out == (f"# ==> {server}/conf.d/legacy.conf <==\n" + SITE_22.replace("MaxClients", "MaxRequestWorkers")
                   + f"# ==> {server}/httpd.conf <==\nServerName x\nInclude conf.d/*.conf\n")


def test_migrate_write_changes_the_included_file_through_its_link(tmp_path):
    """Debian enables a site with a link in sites-enabled/: the file it points to is rewritten, the link stays."""
    (tmp_path / "sites-available").mkdir()
    (tmp_path / "sites-enabled").mkdir()
    (tmp_path / "sites-available" / "legacy.conf").write_text(SITE_22)
    os.symlink("../sites-available/legacy.conf", tmp_path / "sites-enabled" / "legacy.conf")
    (tmp_path / "apache2.conf").write_text("IncludeOptional sites-enabled/*.conf\n")
    code, _, err = run("migrate", "--write", str(tmp_path / "apache2.conf"))
    assert os.readlink(tmp_path / "sites-enabled" / "legacy.conf") == "../sites-available/legacy.conf"
    text = (tmp_path / "sites-available" / "legacy.conf").read_text()
    assert "Require all granted" in text and "Order" not in text and "MaxRequestWorkers 10" in text, err
    assert (tmp_path / "apache2.conf").read_text() == "IncludeOptional sites-enabled/*.conf\n"


def test_a_server_root_line_is_followed_when_the_file_lies_under_it(tmp_path):
    (tmp_path / "conf" / "conf.d").mkdir(parents=True)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf" / "httpd.conf").write_text(f'ServerRoot "{tmp_path}"\nInclude conf.d/*.conf\n')
    (tmp_path / "conf.d" / "real.conf").write_text("MaxClients 1\n")
    (tmp_path / "conf" / "conf.d" / "decoy.conf").write_text("MaxClients 2\n")
    code, out, err = run("lint", "--select", "HT101", str(tmp_path / "conf" / "httpd.conf"))
    assert codes(out) == [(f"{tmp_path}/conf.d/real.conf:1", "HT101")] and err.startswith("Found 1 ")


def test_a_copy_whose_server_root_is_elsewhere_reads_its_own_tree_and_says_so(tmp_path):
    """Red Hat's layout checked into a repository: conf/httpd.conf names /etc/httpd, its conf.d/ is beside conf/."""
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf" / "httpd.conf").write_text('ServerRoot "/nonexistent/etc/httpd"\nInclude conf.d/*.conf\n')
    (tmp_path / "conf.d" / "site.conf").write_text("MaxClients 1\n")
    code, out, err = run("lint", "--select", "HT101,HT403", str(tmp_path / "conf" / "httpd.conf"))
    assert codes(out) == [(f"{tmp_path}/conf.d/site.conf:1", "HT101")]
    assert (f"httpd24: {tmp_path}/conf/httpd.conf: its ServerRoot /nonexistent/etc/httpd does not hold it: "
            f"Includes are read from {tmp_path} (--server-root chooses another directory)") in err


def test_server_root_option_decides(tmp_path):
    (tmp_path / "a" / "conf.d").mkdir(parents=True)
    (tmp_path / "b" / "conf.d").mkdir(parents=True)
    (tmp_path / "a" / "httpd.conf").write_text("Include conf.d/*.conf\n")
    (tmp_path / "a" / "conf.d" / "x.conf").write_text("MaxClients 1\n")
    (tmp_path / "b" / "conf.d" / "y.conf").write_text("MaxClients 2\n")
    _, out, _ = run("lint", "--select", "HT101", "--server-root", str(tmp_path / "b"), str(tmp_path / "a" / "httpd.conf"))
    assert codes(out) == [(f"{tmp_path}/b/conf.d/y.conf:1", "HT101")]


def test_an_absolute_include_outside_the_server_root_is_read(tmp_path):
    (tmp_path / "server").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "common.conf").write_text("MaxClients 3\n")
    (tmp_path / "server" / "httpd.conf").write_text(f"Include {tmp_path}/shared/*.conf\n")
    code, out, _ = run("lint", "--select", "HT101,HT403", str(tmp_path / "server" / "httpd.conf"))
    assert codes(out) == [(f"{tmp_path}/shared/common.conf:1", "HT101")]


def test_an_include_cycle_on_disk_is_an_error_at_its_line(tmp_path):
    (tmp_path / "a.conf").write_text("ServerName x\nInclude b.conf\n")
    (tmp_path / "b.conf").write_text("Include a.conf\n")
    code, _, err = run("lint", str(tmp_path / "a.conf"))
    assert code == 2
    assert f"{tmp_path}/b.conf:1:1: error: Include cycle: a.conf -> b.conf -> a.conf" in err, err
    assert "Traceback" not in err


def test_files_that_include_each_other_are_each_reported_when_both_are_given(tmp_path):
    (tmp_path / "a.conf").write_text("Include b.conf\n")
    (tmp_path / "b.conf").write_text("Include a.conf\n")
    code, _, err = run("lint", "a.conf", "b.conf", cwd=tmp_path)
    assert code == 2 and err.count("error: Include cycle") == 2, err


def test_a_parse_error_in_an_included_file_is_shown_at_its_path(server):
    (server / "conf.d" / "broken.conf").write_text("<Directory /x>\n")
    code, _, err = run("lint", str(server / "httpd.conf"))
    assert code == 2 and f"{server}/conf.d/broken.conf:1:1: error: <Directory> was not closed" in err, err


def test_standard_input_follows_includes_from_the_working_directory(server, monkeypatch):
    stdin(monkeypatch, "Include conf.d/*.conf\n")
    _, out, _ = run("lint", "--select", "HT101", "-", cwd=server)
    assert codes(out) == [("conf.d/legacy.conf:5", "HT101")]


@pytest.mark.apache
def test_a_debian_tree_migrated_from_its_apache2_conf_passes_real_apache2_without_access_compat(tmp_path, httpd):
    """Debian's own /etc/apache2 plus a 2.2 site enabled by a link: `migrate --write apache2.conf` rewrites the
    site's file, and the real apache2 then starts the whole tree (-t) with mod_access_compat disabled."""
    if not os.path.isfile("/etc/apache2/apache2.conf"):
        pytest.skip("Debian's /etc/apache2 is not installed")
    tree = tmp_path / "apache2"
    shutil.copytree("/etc/apache2", tree, symlinks=True)
    # Under Debian's <Directory /var/www/> (Require all granted): 2.4 + mod_access_compat grants there today.
    (tree / "sites-available" / "legacy.conf").write_text(SITE_22.replace("/srv/legacy", "/var/www/legacy"))
    os.symlink("../sites-available/legacy.conf", tree / "sites-enabled" / "legacy.conf")
    for name in ("access_compat.load",):
        if (tree / "mods-enabled" / name).is_symlink():
            (tree / "mods-enabled" / name).unlink()
    env = httpd.env(tmp_path / "run")

    def configtest() -> subprocess.CompletedProcess:
        return subprocess.run([httpd.binary, "-t", "-d", str(tree), "-f", str(tree / "apache2.conf")],
                              env=env, capture_output=True, text=True, timeout=60)

    before = configtest()
    assert before.returncode != 0 and "Invalid command 'Order'" in before.stderr, before.stderr
    code, out, err = run("migrate", "--write", str(tree / "apache2.conf"))
    assert "Require all granted" in (tree / "sites-available" / "legacy.conf").read_text(), err
    assert (tree / "sites-enabled" / "legacy.conf").is_symlink()
    after = configtest()
    assert after.returncode == 0, after.stderr + err
    # the modules it needs: not those whose <IfModule> blocks Debian's files keep dormant (mime.conf's
    # mod_include, status.conf's mod_proxy): loading them would turn those blocks on
    code, out, err = run("modules", "--builtin", "debian", "--module-dir", httpd.module_dir, str(tree / "apache2.conf"))
    loaded = {line.split()[1] for line in out.splitlines() if line.startswith("LoadModule")}
    assert {"mime_module", "alias_module", "status_module"} <= loaded and not {"include_module", "proxy_module"} & loaded


def test_an_include_of_a_huge_tree_stops_at_the_file_limit(tmp_path, monkeypatch):
    """`Include /` would list the whole file system: the listing stops at MAX_FILES, and says so."""
    from httpd24.config import disk

    monkeypatch.setattr(disk, "MAX_FILES", 3)
    for i in range(20):
        (tmp_path / "tree" / f"d{i:02}").mkdir(parents=True)
        (tmp_path / "tree" / f"d{i:02}" / "f.conf").write_text("ServerName x\n")
    (tmp_path / "httpd.conf").write_text("Include tree\n")
    listed = []
    real_walk = os.walk

    def walk(top, *args, **kwargs):
        for entry in real_walk(top, *args, **kwargs):
            listed.append(entry[0])
            yield entry

    monkeypatch.setattr(os, "walk", walk)
    code, out, err = run("lint", str(tmp_path / "httpd.conf"))
    assert code == 0 and "not read (more than 3 files included; not followed further)" in err, err
    assert len(listed) <= 8, f"listed {len(listed)} of 21 directories for 3 files"


@pytest.mark.timeout(30)  # the old reading waited forever on the FIFO
def test_devices_and_kernel_files_are_never_opened(tmp_path):
    """`Include /dev/*` or a directory with a FIFO in it: a read could block (or, for some devices, act), so only
    regular files outside /proc, /sys and /dev are read; lint answers at once."""
    (tmp_path / "conf.d").mkdir()
    os.mkfifo(tmp_path / "conf.d" / "pipe.conf")  # opening it for reading would wait for a writer forever
    (tmp_path / "conf.d" / "site.conf").write_text("MaxClients 1\n")
    (tmp_path / "httpd.conf").write_text("Include conf.d\nIncludeOptional /dev/*\nIncludeOptional /proc/kmsg\n")
    code, out, err = run("lint", "--select", "HT101", str(tmp_path / "httpd.conf"))
    assert codes(out) == [(f"{tmp_path}/conf.d/site.conf:1", "HT101")]
    # Nothing left out unsaid: httpd would refuse the FIFO at start-up (after waiting for a writer).
    assert (f"{tmp_path}/conf.d/pipe.conf: not read (a named pipe (FIFO), never opened; httpd refuses it at "
            "start-up (not a regular file))") in err, err
    assert "/dev/*: not read (under /dev: devices and kernel files are never opened)" in err
    assert "/proc/kmsg: not read (under /proc" in err


def test_a_fifo_named_by_a_plain_include_is_named_not_reported_missing(tmp_path):
    os.mkfifo(tmp_path / "pipe.conf")
    (tmp_path / "httpd.conf").write_text(f"ServerRoot {tmp_path}\nInclude pipe.conf\n")
    code, _, err = run("lint", str(tmp_path / "httpd.conf"))
    assert code == 0 and "no such file" not in err, err
    assert f"{tmp_path}/pipe.conf: not read (a named pipe (FIFO)" in err


def test_an_include_of_dev_null_reads_nothing_and_says_nothing(tmp_path):
    """httpd reads /dev/null as an empty file (ap_pcfg_openfile allows it by name)."""
    (tmp_path / "httpd.conf").write_text(f"ServerRoot {tmp_path}\nInclude /dev/null\nMaxClients 1\n")
    code, out, err = run("lint", "--select", "HT101", str(tmp_path / "httpd.conf"))
    assert "not read" not in err and codes(out) == [(f"{tmp_path}/httpd.conf:3", "HT101")]


@pytest.mark.apache
def test_a_missing_included_file_is_ht408_at_its_include_line_whatever_the_input(tmp_path, httpd):  # noqa: F811
    """apache2 -t says the same of a plain Include of no file however the configuration reaches it ("Syntax error
    on line 3 of .../httpd.conf: Could not open configuration file .../extra.conf"); so does httpd24: one HT408
    finding at the Include line, with what to do, for the file given, the directory given and the ConfigMap
    (it was an error without a code for the file, a note without a line for the directory). The rest is still
    checked and migrated; the finding needs a person (lint and migrate exit 1), and an ignore mark silences it
    where the server has the file the repository does not."""
    root = tmp_path / "root"
    root.mkdir()
    text = f"ServerRoot {root}\nServerName x\nInclude extra.conf\nMaxClients 5\n"
    (root / "httpd.conf").write_text(text)
    result = configtest_tree(httpd, root)
    assert result.returncode != 0, result.stderr
    assert (f"Syntax error on line 3 of {root}/httpd.conf: Could not open configuration file {root}/extra.conf: "
            "No such file or directory") in result.stderr, result.stderr
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("kind: ConfigMap\nmetadata: {name: web}\ndata:\n  httpd.conf: |\n"
                        + "".join(f"    {line}\n" for line in text.replace(f"ServerRoot {root}\n", "").splitlines()))
    inputs = {f"{root}/httpd.conf": (f"{root}/httpd.conf:3", root), str(root): (f"{root}/httpd.conf:3", root),
              manifest.name: ("cm.yaml[default/web]:httpd.conf:2", "/etc/httpd24")}
    for given, (where, server_root) in inputs.items():
        code, out, err = run("lint", "--isolated", "--select", "HT101,HT408", str(given), cwd=tmp_path)
        assert code == 1, (given, code, out, err)
        assert [c for w, c in codes(out) if c == "HT408"] == ["HT408"] and (where, "HT408") in codes(out), (given, out)
        assert f"{server_root}/extra.conf" in out and "refuses to start" in out and "add " in out, (given, out)
        assert "not read" not in err and "error:" not in err, (given, err)
        assert any(c == "HT101" for _, c in codes(out)), (given, out)  # the rest is checked
        code, _, err = run("migrate", "--isolated", "--check", str(given), cwd=tmp_path)
        assert code == 1 and "would migrate" in _, (given, code, err)
    code, out, err = run("migrate", "--isolated", "--write", str(root / "httpd.conf"))
    assert code == 1 and "  manual  " in err and " HT408 " in err, err
    assert "MaxRequestWorkers 5" in (root / "httpd.conf").read_text()
    (root / "httpd.conf").write_text(text.replace("Include extra.conf", "# httpd24: ignore=HT408\nInclude extra.conf"))
    assert run("lint", "--isolated", "--select", "HT408", str(root / "httpd.conf"))[0] == 0
    assert run("lint", "--isolated", "--select", "HT408", str(root))[0] == 0
    (root / "httpd.conf").write_text(text.replace("Include extra.conf", "IncludeOptional extra.conf"))
    code, out, err = run("lint", "--isolated", str(root / "httpd.conf"))
    assert "HT408" not in out and "no such file" not in err, (out, err)


def test_a_missing_file_under_a_guessed_server_root_is_named_but_not_an_error(server):
    """A virtual host file given alone: its Includes are relative to a server root it does not name."""
    (server / "vhost.conf").write_text("<VirtualHost *:80>\n  Include conf.d/site.inc\n</VirtualHost>\n")
    code, _, err = run("lint", str(server / "vhost.conf"))
    assert code == 0, err
    assert (f"{server}/conf.d/site.inc: not read (no such file; vhost.conf:2 includes it, relative to {server}, "
            "a guess (no ServerRoot line holds the file): give --server-root to check it)") in err
    code, out, _ = run("lint", "--select", "HT408", "--server-root", str(server), str(server / "vhost.conf"))
    assert code == 1 and codes(out) == [(f"{server}/vhost.conf:2", "HT408")], out


def test_a_missing_file_outside_the_server_root_is_named_but_not_an_error(server):
    """A copy of /etc/apache2 in a repository still names /etc/apache2/ports.conf: not there, not checked."""
    (server / "httpd.conf").write_text("ServerName x\nInclude /nonexistent-httpd24/ports.conf\n")
    code, _, err = run("lint", str(server / "httpd.conf"))
    assert code == 0
    assert "/nonexistent-httpd24/ports.conf: not read (no such file, outside the server root" in err


def test_an_unreadable_included_file_is_an_error(server, monkeypatch):
    """(Root reads any file, so the refusal is made by the open() the walk calls.)"""
    from httpd24.config import disk

    legacy = server / "conf.d" / "legacy.conf"

    def refusing(path, *args, **kwargs):
        if str(path) == str(legacy):
            raise PermissionError(13, "Permission denied", str(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(disk, "open", refusing, raising=False)
    code, _, err = run("lint", str(server / "httpd.conf"))
    assert code == 2, err
    assert f"{server}/httpd.conf:2:1: error: Include conf.d/*.conf: {legacy} cannot be read (Permission denied)" in err


def test_a_directory_given_names_the_files_its_plain_includes_miss(tmp_path):
    """As for a file given: httpd refuses to start without a plain Include's file, which HT408 says at the line;
    one outside the directory is named, not checked; an empty directory included is no error at all."""
    (tmp_path / "empty.d").mkdir()
    (tmp_path / "httpd.conf").write_text("Include conf/extra/ssl.conf\nInclude empty.d\nInclude /nonexistent-httpd24/x.conf\n"
                                         "IncludeOptional conf/optional.conf\nMaxClients 1\n")
    code, out, err = run("lint", "--select", "HT101,HT408", str(tmp_path))
    assert codes(out) == [(f"{tmp_path}/httpd.conf:1", "HT408"), (f"{tmp_path}/httpd.conf:5", "HT101")], out
    assert code == 1 and f"{tmp_path}/conf/extra/ssl.conf" in out and "not read (no such file" not in err, err
    assert "/nonexistent-httpd24/x.conf: not read (outside the directory given, not checked" in err
    assert "empty.d" not in err + out and "optional" not in err + out


@pytest.mark.apache
def test_modules_for_debians_module_directory_leave_out_what_its_binary_compiles_in(tmp_path, httpd):
    """`--module-dir /usr/lib/apache2/modules` names Debian's binary, which compiles mod_log_config,
    mod_logio, mod_unixd (...) in: there is no .so to load, and a LoadModule of one stops apache2 -t."""
    if httpd.module_dir.rstrip("/") != "/usr/lib/apache2/modules":
        pytest.skip("the apache2 found is not Debian's")
    site = tmp_path / "site.conf"
    site.write_text('LogFormat "%h %I" io\nCustomLog /dev/null io\n<Directory /srv>\n    Order allow,deny\n'
                    '    Allow from all\n</Directory>\n')
    assert run("migrate", "--write", str(site))[0] == 0
    code, out, err = run("modules", "--module-dir", httpd.module_dir, str(site))
    assert code == 0, err
    loaded = {line.split()[1] for line in out.splitlines() if line.startswith("LoadModule")}
    assert "authz_core_module" in loaded and not {"log_config_module", "logio_module"} & loaded
    main = tmp_path / "main.conf"
    main.write_text(f"ServerRoot {tmp_path}\n{out}ServerName localhost\nErrorLog /dev/null\nInclude {site}\n")
    checked = subprocess.run([httpd.binary, "-t", "-f", str(main)], env=httpd.env(tmp_path / "run"),
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr


# -- the same file by two arguments is read once, in its widest context --------------------------
@pytest.fixture
def dup(tmp_path):
    """A directory whose x.conf holds access lines only its Include inside <Directory> gives a context."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "httpd.conf").write_text("<Directory /srv>\nInclude x.conf\n</Directory>\n")
    (site / "x.conf").write_text("MaxClients 1\nOrder allow,deny\nAllow from all\n")
    return site


def test_write_of_a_directory_and_a_file_in_it_writes_the_file_in_its_context(dup, tmp_path):
    # `migrate --write DIR DIR/x.conf` migrated x.conf twice: the second, out of context, wrote over the first.
    alone = tmp_path / "alone"
    shutil.copytree(dup, alone)
    run("migrate", "--write", str(alone))
    code, _, err = run("migrate", "--write", str(dup), str(dup / "x.conf"))
    assert "internal error" not in err
    assert (dup / "x.conf").read_text() == (alone / "x.conf").read_text()
    assert "Require all granted" in (dup / "x.conf").read_text()
    assert run("migrate", "--check", str(dup))[0] == 0


@pytest.mark.parametrize("argv", [
    ["x.conf", "x.conf", "./x.conf"],
    [".", "x.conf"],
    ["x.conf", "."],
    [".", "./"],
])
def test_a_file_given_twice_or_inside_a_directory_given_is_reported_once(dup, argv):
    code, out, err = run("lint", "--fail-on", "never", *argv, cwd=dup)
    # The same line of the same file, however its path is spelled, is one finding.
    found = [(os.path.realpath(os.path.join(dup, where)), code) for where, code in codes(out)]
    assert ("%s:1" % (dup / "x.conf"), "HT101") in found and len(found) == len(set(found)), out


def test_a_manifest_given_twice_is_reported_once(tmp_path):
    (tmp_path / "cm.yaml").write_text("kind: ConfigMap\nmetadata: {name: w}\ndata:\n  httpd.conf: |\n    MaxClients 1\n")
    code, out, err = run("lint", "--fail-on", "never", "cm.yaml", "./cm.yaml", str(tmp_path / "cm.yaml"), cwd=tmp_path)
    assert len(out.splitlines()) == 1 and "HT101" in out, out


# -- a directory given: links to directories, as httpd follows them ------------------------------------
def test_a_linked_directory_is_read_as_httpd_reads_it_even_when_it_points_outside(tmp_path):
    """`Include ext/*.conf` with ext a link to a directory: httpd reads its files. The directory walk did
    not follow the link, reported a false HT403 and `migrate` turned the Include into IncludeOptional. A
    link pointing outside the directory given is followed too (it is part of the tree given, as httpd and
    `cp -rL` see it), and `--write` changes the file it leads to."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "a.conf").write_text("MaxClients 5\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "httpd.conf").write_text("Include ext/*.conf\n")
    (site / "ext").symlink_to("../shared")
    code, out, err = run("lint", "--select", "HT101,HT403", str(site))
    assert codes(out) == [(f"{site}/ext/a.conf:1", "HT101")], out + err
    code, out, err = run("migrate", "--write", "--select", "HT101,HT403", str(site))
    assert code == 0, err
    assert (site / "httpd.conf").read_text() == "Include ext/*.conf\n"
    assert (tmp_path / "shared" / "a.conf").read_text() == "MaxRequestWorkers 5\n" and (site / "ext").is_symlink()


def test_a_directory_linked_inside_the_tree_is_one_set_of_files(tmp_path):
    """Debian-style: enabled/ a link to available/. Its files are read once, under their own names."""
    (tmp_path / "available").mkdir()
    (tmp_path / "available" / "a.conf").write_text("MaxClients 5\n")
    (tmp_path / "enabled").symlink_to("available")
    (tmp_path / "httpd.conf").write_text("Include enabled/*.conf\n")
    code, out, err = run("lint", "--select", "HT101,HT403", str(tmp_path))
    assert codes(out) == [(f"{tmp_path}/available/a.conf:1", "HT101")], out + err


def test_a_link_loop_in_a_directory_ends_and_is_named(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to("..")
    (tmp_path / "sub" / "again").symlink_to("..")
    (tmp_path / "self").symlink_to(".")
    (tmp_path / "httpd.conf").write_text("MaxClients 5\n")
    done = run_limited("lint", "--select", "HT101", str(tmp_path))
    assert done.returncode == 0 and "internal error" not in done.stderr, done.stderr
    assert codes(done.stdout) == [(f"{tmp_path}/httpd.conf:1", "HT101")], done.stdout
    for link in ("self", "sub/up", "sub/again"):
        assert f"{tmp_path}/{link}: not read (a symbolic link loop" in done.stderr, done.stderr


# -- Includes outside what was given ------------------------------------------------------------------
def test_a_directory_given_names_every_file_its_includes_reach_outside_it(tmp_path):
    """A directory given is the configuration, as a ConfigMap is: a file its Includes reach outside it is
    not read (what the machine running the lint holds there need not be the server's), but it is never
    left out silently (an existing file was), and the note says how to have it read."""
    (tmp_path / "shared").mkdir()
    for name in ("common.conf", "optional.conf", "relative.conf", "w.conf"):
        (tmp_path / "shared" / name).write_text("MaxClients 3\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "httpd.conf").write_text(f"Include {tmp_path}/shared/common.conf\nIncludeOptional {tmp_path}/shared/optional.conf\n"
                                     f"Include ../shared/relative.conf\nIncludeOptional {tmp_path}/shared/w*.conf\n")
    code, out, err = run("lint", "--select", "HT101,HT403", str(site))
    assert out == "" and code == 0, out + err
    for line, pattern in enumerate([f"{tmp_path}/shared/common.conf", f"{tmp_path}/shared/optional.conf",
                                    f"{tmp_path}/shared/relative.conf", f"{tmp_path}/shared/w*.conf"], 1):
        assert (f"httpd24: {pattern}: not read (outside the directory given, not checked; httpd.conf:{line} includes "
                f"it: give {site}/httpd.conf instead of the directory to read it as httpd does)") in err, err
    code, out, err = run("lint", "--select", "HT101,HT403", str(site / "httpd.conf"))
    assert len(codes(out)) == 4 and {c for _, c in codes(out)} == {"HT101"}, out + err


def test_a_relative_include_above_the_server_root_is_resolved(tmp_path):
    """`Include ../shared/*.conf`: the files were read, yet the wildcard was judged to match none (HT403)."""
    (tmp_path / "srv").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "x.conf").write_text("MaxClients 4\n")
    (tmp_path / "srv" / "httpd.conf").write_text(f"ServerRoot {tmp_path}/srv\nInclude ../shared/*.conf\n")
    code, out, err = run("lint", "--select", "HT101,HT403", str(tmp_path / "srv" / "httpd.conf"))
    assert codes(out) == [(f"{tmp_path}/shared/x.conf:1", "HT101")], out + err


@pytest.mark.parametrize("given", ["directory", "an Include of l0"])
def test_links_that_name_a_million_directories_without_a_loop_end(tmp_path, given):
    """Two links in each of 20 levels, each to the next level: no loop, yet 2**20 directories to walk."""
    (tmp_path / "httpd.conf").write_text("MaxClients 5\n" + ("Include l0\n" if given != "directory" else ""))
    for level in range(20):
        (tmp_path / f"l{level}").mkdir()
    (tmp_path / "l20").mkdir()
    for level in range(20):
        for link in "ab":
            (tmp_path / f"l{level}" / link).symlink_to(f"../l{level + 1}")
    done = run_limited("lint", "--select", "HT101", str(tmp_path if given == "directory" else tmp_path / "httpd.conf"))
    assert done.returncode == 0 and codes(done.stdout) == [(f"{tmp_path}/httpd.conf:1", "HT101")], done.stderr[-2000:]
    assert done.stderr.count("directories reached through links; neither this link nor any later one followed") == 1


def test_an_include_of_a_directory_follows_the_links_in_it_as_httpd_does(tmp_path):
    """`Include conf` reads every file under conf/, through links to directories too (httpd stats each
    entry, following links); a link to a directory above is a loop, on which httpd fails ("Too many
    levels of symbolic links": tests/cli/test_include_links.py): named at the Include, and not followed."""
    (tmp_path / "shared" / "sub").mkdir(parents=True)
    (tmp_path / "shared" / "sub" / "b.conf").write_text("MaxClients 6\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "a.conf").write_text("MaxClients 5\n")
    (tmp_path / "conf" / "linked").symlink_to("../shared")
    (tmp_path / "conf" / "again").symlink_to(".")
    (tmp_path / "httpd.conf").write_text("Include conf\n")
    done = run_limited("lint", "--select", "HT101", str(tmp_path / "httpd.conf"))
    assert "internal error" not in done.stderr, done.stderr
    assert codes(done.stdout) == [(f"{tmp_path}/conf/a.conf:1", "HT101"),
                                  (f"{tmp_path}/conf/linked/sub/b.conf:1", "HT101")], done.stdout + done.stderr
    assert done.returncode == 2
    assert (f"{tmp_path}/httpd.conf:1:1: error: Include conf: {tmp_path}/conf/again is a symbolic link to a "
            "directory above it (a loop)") in done.stderr, done.stderr


# -- --server-root for a directory given ----------------------------------------------------------------------------
@pytest.fixture
def served(tmp_path):
    """A server root holding sites/ (what is given) and common/ (what its Includes reach, outside sites/)."""
    (tmp_path / "sites").mkdir()
    (tmp_path / "common").mkdir()
    (tmp_path / "sites" / "x.conf").write_text(
        "Include common/ok.conf\nInclude common/missing.conf\nInclude common/*.none\nMaxClients 5\n")
    (tmp_path / "common" / "ok.conf").write_text("KeepAlive On\n")
    return tmp_path


def _said(out: str, err: str) -> list[str]:
    return sorted(line.split(" ")[0] + " " + line.split(" ")[1] for line in out.splitlines() if ": HT" in line) + sorted(
        line for line in err.splitlines() if "not read" in line)


def test_server_root_reads_a_directory_s_includes_as_it_reads_a_file_s(served):
    """`--server-root` was not passed to a directory: sites/'s relative Includes were looked up in sites/ (a guess,
    said on stderr: common/ok.conf "no such file"), and the plain Include of no file was no HT408, where the same
    file given alone with the same --server-root is HT408 at its line. Now both read the Includes from the server
    root, and say the same."""
    file_code, file_out, file_err = run("lint", "--select", "HT403,HT408,HT101", "--server-root", ".", "sites/x.conf",
                                        cwd=served)
    code, out, err = run("lint", "--select", "HT403,HT408,HT101", "--server-root", ".", "sites", cwd=served)
    assert _said(out, err) == _said(file_out, file_err) == [
        "sites/x.conf:2:1: HT408", "sites/x.conf:3:1: HT403", "sites/x.conf:4:1: HT101"], (out, err)
    assert code == file_code == 1
    assert run("migrate", "--write", "--select", "HT101", "--server-root", ".", "sites", cwd=served)[0] == 0
    assert (served / "sites" / "x.conf").read_text().endswith("MaxRequestWorkers 5\n")


def test_server_root_outside_the_directory_names_its_files_absolutely(served, tmp_path_factory):
    """A server root that does not hold the directory: its relative Includes are read there, as a file's are."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "common").mkdir()
    (elsewhere / "common" / "ok.conf").write_text("KeepAlive On\n")
    code, out, err = run("lint", "--select", "HT403,HT408,HT101", "--server-root", str(elsewhere), "sites", cwd=served)
    shown = f"{served}/sites/x.conf"
    assert _said(out, err) == [f"{shown}:2:1: HT408", f"{shown}:3:1: HT403", f"{shown}:4:1: HT101"], (out, err)
    assert f"there is no {elsewhere}/common/missing.conf" in out


def test_a_name_the_set_has_no_path_for_is_shown_without_dot_slash(server, monkeypatch):
    """`--server-root .` with a directory: names of the set that were not read from a path of their own (a
    file not written, one reached under another name) used to read `./conf.d/x.conf`."""
    from httpd24 import inputs

    monkeypatch.chdir(server)
    [source] = inputs.load(".", server_root=".")
    assert source.display("conf.d/other.conf") == "conf.d/other.conf"
    [source] = inputs.load(str(server), server_root=str(server))
    assert source.display("conf.d/other.conf") == str(server / "conf.d" / "other.conf")

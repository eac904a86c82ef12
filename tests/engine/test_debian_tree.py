"""A whole Debian 7 (httpd 2.2) /etc/apache2, assembled from the corpus files, migrated as one
directory with `httpd24 migrate --write` and judged by the real apache2 2.4 as Debian starts it.

The single-file corpus tests load the required modules before each file. Here the configuration
loads its own, through links in mods-enabled/ to files in mods-available/, after the directives
that depend on them (the LockFile comes before `Include mods-enabled/*.load`): what httpd reads,
and in which order, is the configuration's own, as on a real server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401
from clirun import run

FILES = Path("/work/shared/corpus/files")
#: The modules wheezy's apache2 package enables by default (its mods-enabled/), by 2.2 name.
ENABLED = ("alias", "auth_basic", "authn_file", "authz_default", "authz_groupfile", "authz_host", "authz_user",
           "autoindex", "cgi", "deflate", "dir", "env", "mime", "negotiation", "reqtimeout", "setenvif", "status")
#: Installed but not enabled (only mods-available/).
AVAILABLE = ("dav", "dav_fs", "disk_cache", "ldap", "mem_cache", "ssl", "userdir")


def wheezy(root: Path, module_dir: str) -> Path:
    etc = root / "apache2"
    for name in ("mods-available", "mods-enabled", "sites-available", "sites-enabled", "conf.d"):
        (etc / name).mkdir(parents=True)
    shutil.copy(FILES / "debian7-wheezy-apache2.conf", etc / "apache2.conf")
    shutil.copy(FILES / "debian7-wheezy-ports.conf", etc / "ports.conf")
    for module in ENABLED + AVAILABLE:
        (etc / "mods-available" / f"{module}.load").write_text(
            f"LoadModule {module}_module {module_dir}/mod_{module}.so\n")
        conf = FILES / f"debian7-wheezy-mods-{module}.conf"
        if conf.exists():
            shutil.copy(conf, etc / "mods-available" / f"{module}.conf")
    for module in ENABLED:
        for suffix in (".load", ".conf"):
            if (etc / "mods-available" / f"{module}{suffix}").exists():
                os.symlink(f"../mods-available/{module}{suffix}", etc / "mods-enabled" / f"{module}{suffix}")
    shutil.copy(FILES / "debian7-wheezy-sites-available-default", etc / "sites-available" / "default")
    shutil.copy(FILES / "debian7-wheezy-sites-available-default-ssl", etc / "sites-available" / "default-ssl")
    os.symlink("../sites-available/default", etc / "sites-enabled" / "000-default")
    (etc / "envvars").write_text("export APACHE_RUN_USER=www-data\nexport APACHE_RUN_GROUP=www-data\n")
    return etc


@pytest.mark.apache
def test_a_debian_22_tree_migrated_as_a_directory_passes_apache2(httpd, tmp_path):  # noqa: F811
    etc = wheezy(tmp_path, httpd.module_dir)
    env = httpd.env(tmp_path / "run")

    def configtest() -> subprocess.CompletedProcess:
        return subprocess.run([httpd.binary, "-t", "-d", str(etc), "-f", str(etc / "apache2.conf")],
                              capture_output=True, text=True, env=env, timeout=30)

    assert configtest().returncode != 0  # as 2.2 wrote it, 2.4 refuses it
    code, out, err = run("migrate", "--write", str(etc))
    assert code == 0, err
    checked = configtest()
    assert checked.returncode == 0, checked.stderr
    # What was written went through the links, into the files they point at.
    assert os.path.islink(etc / "mods-enabled" / "status.conf")
    assert "Require" in (etc / "mods-available" / "status.conf").read_text()
    # Nothing is left to fix, and nothing that needs a person is an error.
    assert run("migrate", "--check", str(etc))[0] == 0
    code, out, err = run("lint", "--fail-on", "error", str(etc))
    assert code == 0, out


@pytest.mark.apache
def test_an_unanchored_directorymatch_is_named_with_its_remedy_and_anchored_the_tree_migrates(httpd, tmp_path):  # noqa: F811
    """Debian's moodle package ships `<DirectoryMatch /usr/share/moodle/>` in conf.d/. Unanchored, it also matches
    /usr/share/phpmyadmin/setup/usr/share/moodle/, below phpmyadmin's `Require valid-user` (which 2.2 kept there,
    with moodle's address rules; 2.4 would not): its meaning depends on the other sections, it needs a person,
    and so every other section of the server waits for it. The message says how to mean that directory only;
    written so, every section is translated, apache2 starts the result, and it answers as 2.2."""
    etc = wheezy(tmp_path, httpd.module_dir)
    moodle = etc / "conf.d" / "moodle"
    shutil.copy(FILES / "moodle-debian-apache.conf", moodle)
    shutil.copy(FILES / "phpmyadmin-debian-4.1-apache.conf", etc / "conf.d" / "phpmyadmin.conf")
    code, out, _err = run("lint", "--select", "HT501", str(etc))
    [refused] = [line for line in out.splitlines() if "a person must decide" in line]
    assert refused.startswith(f"{moodle}:") and "<DirectoryMatch /usr/share/moodle/>" in refused
    assert "anchor it as `^/usr/share/moodle/`" in refused, refused
    held = [line for line in out.splitlines() if "needs a person" in line]
    assert len(held) >= 3 and all("<DirectoryMatch /usr/share/moodle/>" in line for line in held), out

    moodle.write_text(moodle.read_text().replace("<DirectoryMatch /usr/share/moodle/>",
                                                 "<DirectoryMatch ^/usr/share/moodle/>"))
    code, out, err = run("migrate", "--write", "--verify", str(etc))
    assert code == 0 and "every status matched" in out, out + err
    assert "Require ip 127.0.0.0/255.0.0.0" in moodle.read_text()
    code, out, err = run("lint", "--fail-on", "error", str(etc))
    assert code == 0, out

"""A repository's ``httpd24.toml``: found from the working directory up, overridden by the command line,
and every mistake in it a usage error that names the file, the line and what to write."""

from __future__ import annotations

import subprocess
import sys

import pytest
from clirun import run

CONF = """\
MaxClients 150
DefaultType text/plain
<Directory /srv/www>
    Order allow,deny
    Allow from all
</Directory>
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "httpd.conf").write_text(CONF)
    (tmp_path / "conf" / "legacy.conf").write_text("MaxClients 10\n")
    return tmp_path


def codes(out: str) -> list[str]:
    return [line.split()[1] for line in out.splitlines()]


def test_select_and_ignore_come_from_the_file_found_above_the_working_directory(project):
    (project / "httpd24.toml").write_text('select = ["HT1", "HT5"]\nignore = ["HT105"]\n')
    code, out, _ = run("lint", "--isolated", "httpd.conf", cwd=project / "conf")
    assert {"HT101", "HT105", "HT501"} <= set(codes(out))
    code, out, _ = run("lint", "httpd.conf", cwd=project / "conf")
    assert code == 1
    assert sorted(set(codes(out))) == ["HT101", "HT501"]


def test_the_command_line_wins_over_the_file(project):
    (project / "httpd24.toml").write_text('select = ["HT1"]\nfail-on = "never"\n')
    code, out, _ = run("lint", "conf/httpd.conf", cwd=project)
    assert code == 0 and set(codes(out)) == {"HT101", "HT105"}
    code, out, _ = run("lint", "--select", "HT5", "--fail-on", "error", "conf/httpd.conf", cwd=project)
    assert code == 1 and set(codes(out)) == {"HT501"}


def test_a_dotted_name_is_found_and_config_names_another(project, tmp_path_factory):
    (project / ".httpd24.toml").write_text('ignore = ["HT101"]\n')
    _, out, _ = run("lint", "conf/httpd.conf", cwd=project)
    assert "HT101" not in codes(out)
    other = tmp_path_factory.mktemp("elsewhere") / "strict.toml"
    other.write_text('select = ["HT101"]\n')
    _, out, _ = run("lint", "--config", str(other), "conf/httpd.conf", cwd=project)
    assert set(codes(out)) == {"HT101"}


def test_per_file_ignores_silence_findings_and_their_fixes_in_matching_files_only(project):
    (project / "httpd24.toml").write_text('[per-file-ignores]\n"conf/legacy*.conf" = ["HT101"]\n')
    _, out, _ = run("lint", "conf/httpd.conf", "conf/legacy.conf", cwd=project)
    assert [line.split(":")[0] for line in out.splitlines() if " HT101 " in line] == ["conf/httpd.conf"]
    code, _, _ = run("migrate", "--write", "conf/httpd.conf", "conf/legacy.conf", cwd=project)
    assert (project / "conf" / "legacy.conf").read_text() == "MaxClients 10\n"
    assert "MaxRequestWorkers 150" in (project / "conf" / "httpd.conf").read_text()


def test_settings_for_the_server_reach_lint_and_modules(project):
    (project / "conf" / "httpd.conf").write_text("<IfModule mod_ssl.c>\n    SSLMutex default\n</IfModule>\n")
    _, out, _ = run("lint", "conf/httpd.conf", cwd=project)
    assert "HT112" in codes(out)  # no module named: every <IfModule> branch is read
    (project / "httpd24.toml").write_text('modules = ["mod_mime.c"]\nsource-version = "2.2"\n')
    _, out, _ = run("lint", "conf/httpd.conf", cwd=project)
    assert "HT112" not in codes(out)
    _, out, _ = run("modules", "--isolated", "conf/httpd.conf", cwd=project)
    assert "LoadModule ssl_module" in out
    _, out, _ = run("modules", "conf/httpd.conf", cwd=project)
    assert "ssl_module" not in out  # the server of the settings does not load mod_ssl: the branch is dead


@pytest.mark.parametrize("text, expected", [
    ('selct = ["HT1"]\n', "httpd24.toml:1: selct: no such setting; did you mean `select`?"),
    ('\nselect = ["HT5O1"]\n', "httpd24.toml:2: select: HT5O1 is no rule code or prefix"),
    ('fail-on = "warnings"\n', "httpd24.toml:1: fail-on: 'warnings' is none of error, warning, info, never"),
    ('target-version = 2.4\n', 'httpd24.toml:1: target-version: 2.4: give a 2.4 release as a string, e.g. "2.4.62"'),
    ('select = "HT1\n', "httpd24.toml: not valid TOML: "),
    ('[per-file-ignores]\n"x.conf" = []\n', 'httpd24.toml:2: x.conf: give a list of rule codes or prefixes'),
    ("modules = []\n", 'httpd24.toml:1: modules: give a list of names'),
])
def test_a_mistake_in_the_file_is_a_usage_error_with_file_line_and_what_to_write(project, text, expected):
    (project / "httpd24.toml").write_text(text)
    code, out, err = run("lint", "conf/httpd.conf", cwd=project)
    assert code == 2 and out == ""
    assert err.startswith("httpd24: ") and expected in err
    assert "Traceback" not in err


def test_a_settings_file_is_not_read_by_the_rules_command(project):
    (project / "httpd24.toml").write_text("nonsense = 1\n")
    code, out, _ = run("rules", cwd=project)
    assert code == 0 and "HT101" in out


def test_the_console_script_reads_it_too(project):
    """The installed entry point, as CI calls it."""
    (project / "httpd24.toml").write_text('select = ["HT105"]\n')
    done = subprocess.run([sys.executable, "-m", "httpd24", "lint", "conf/httpd.conf"], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert set(codes(done.stdout)) == {"HT105"}, done.stderr

"""How deep sections and Includes may nest: httpd's own Include limit, and a clear error past ours;
how far ``${VAR}`` may grow a configuration.

httpd refuses an Include more than 128 levels deep (``AP_MAX_INCLUDE_DEPTH``, server/config.c);
it has no limit on sections. A configuration nested deeper than anyone writes used to end the
engine's recursive walks with a RecursionError ("internal error" in the CLI, an exception in the
admission review). Now sections deeper than :data:`MAX_SECTION_DEPTH` are a ParseError at the
section that goes too deep, and the Include limit is httpd's, with its message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from clirun import run, run_limited
from httpd24.config import (
    MAX_EXPANSION,
    MAX_INCLUDE_DEPTH,
    MAX_SECTION_DEPTH,
    ConfigSet,
    ParseError,
    parse,
)
from httpd24.engine import lint, migrate

APACHE = shutil.which("apache2") or "/usr/sbin/apache2"
MODULE_DIR = "/usr/lib/apache2/modules"
ACCESS_22 = "Order allow,deny\nAllow from all\n"


def directory(body: str) -> str:
    return f"<Directory /srv/www>\n{body}</Directory>\n"


def nested(depth: int, body: str, section: str = "IfVersion >= 2.4") -> str:
    name = section.split()[0]
    return f"<{section}>\n" * depth + body + f"</{name}>\n" * depth


def chain(length: int, last: str) -> dict[str, str]:
    """httpd.conf including c1.conf including c2.conf ... ``length`` Includes deep."""
    files = {"httpd.conf": "Include c1.conf\n"}
    for i in range(1, length + 1):
        files[f"c{i}.conf"] = f"Include c{i + 1}.conf\n" if i < length else last
    return files


def test_sections_as_deep_as_httpd24_reads_are_linted_and_migrated():
    text = nested(MAX_SECTION_DEPTH - 1, directory(ACCESS_22))
    assert parse(text).render() == text.encode()
    findings = lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert [f.line for f in findings if f.code == "HT501"] == [MAX_SECTION_DEPTH + 1]
    migration = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert migration.files["httpd.conf"] == nested(MAX_SECTION_DEPTH - 1, directory("Require all granted\n")).encode()


def test_a_section_one_level_deeper_is_a_parse_error_at_that_section():
    with pytest.raises(ParseError) as info:
        parse(nested(MAX_SECTION_DEPTH + 1, ACCESS_22), "deep.conf")
    error = info.value
    assert (error.file, error.line, error.column) == ("deep.conf", MAX_SECTION_DEPTH + 1, 1)
    assert f"more than {MAX_SECTION_DEPTH} deep" in error.reason
    cs = ConfigSet.from_mapping({"deep.conf": nested(MAX_SECTION_DEPTH + 1, ACCESS_22)}, entry="deep.conf")
    assert [(e.file, e.line) for e in cs.errors] == [("deep.conf", MAX_SECTION_DEPTH + 1)]


def test_sections_count_through_includes():
    outer = MAX_SECTION_DEPTH // 2
    files = {
        "httpd.conf": nested(outer, "Include inner.conf\n"),
        "inner.conf": nested(MAX_SECTION_DEPTH - outer + 1, ACCESS_22),
    }
    parse(files["inner.conf"])  # alone it is within the limit
    with pytest.raises(ParseError) as info:
        lint(ConfigSet.from_mapping(files, entry="httpd.conf"))
    assert (info.value.file, info.value.line) == ("inner.conf", MAX_SECTION_DEPTH - outer + 1)
    assert f"more than {MAX_SECTION_DEPTH} deep" in info.value.reason
    assert f"the Include at httpd.conf:{outer + 1}" in info.value.reason


def test_includes_as_deep_as_httpd_allows_are_read():
    files = chain(MAX_INCLUDE_DEPTH, directory(ACCESS_22))
    findings = lint(ConfigSet.from_mapping(files, entry="httpd.conf"))
    assert [(f.file, f.code) for f in findings if f.code == "HT501"] == [(f"c{MAX_INCLUDE_DEPTH}.conf", "HT501")]
    migration = migrate(ConfigSet.from_mapping(files, entry="httpd.conf"))
    assert migration.files[f"c{MAX_INCLUDE_DEPTH}.conf"] == directory("Require all granted\n").encode()


def test_one_include_deeper_is_httpds_error_at_that_include():
    files = chain(MAX_INCLUDE_DEPTH + 1, ACCESS_22)
    with pytest.raises(ParseError) as info:
        lint(ConfigSet.from_mapping(files, entry="httpd.conf"))
    assert (info.value.file, info.value.line, info.value.column) == (f"c{MAX_INCLUDE_DEPTH}.conf", 1, 1)
    assert f"Exceeded maximum include depth of {MAX_INCLUDE_DEPTH}" in info.value.reason


def test_cli_reports_too_deep_nesting_with_file_and_line(tmp_path):
    path = tmp_path / "deep.conf"
    path.write_text(nested(5000, ACCESS_22))
    for command in ("lint", "migrate"):
        code, _, err = run(command, str(path))
        assert code == 2, (command, err)
        assert f"{path}:{MAX_SECTION_DEPTH + 1}:1: " in err
        assert "internal error" not in err and "Traceback" not in err


@pytest.mark.apache
@pytest.mark.skipif(not os.path.exists(APACHE), reason="apache2 not installed")
@pytest.mark.parametrize("length", [MAX_INCLUDE_DEPTH, MAX_INCLUDE_DEPTH + 1])
def test_include_limit_is_httpds(length):
    """The same files, read by ``apache2 -t -f`` and by the engine: both accept, or both refuse at the same line."""
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="d") as short:  # httpd cuts a long message short
        _compare_with_apache(Path(short), length)


def _compare_with_apache(tmp_path: Path, length: int) -> None:
    head = (
        f"LoadModule mpm_event_module {MODULE_DIR}/mod_mpm_event.so\n"
        f"ServerName depth.test\nPidFile {tmp_path}/pid\nErrorLog {tmp_path}/error.log\n"
    )
    files = chain(length, "ServerAdmin admin@depth.test\n")
    files["httpd.conf"] = head + files["httpd.conf"].replace("c1.conf", f"{tmp_path}/c1.conf")
    for i in range(1, length):
        files[f"c{i}.conf"] = files[f"c{i}.conf"].replace(f"c{i + 1}.conf", f"{tmp_path}/c{i + 1}.conf")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    apache = subprocess.run([APACHE, "-t", "-f", str(tmp_path / "httpd.conf")], capture_output=True, text=True, check=False)
    engine_error = None
    try:
        lint(ConfigSet.from_mapping(files, entry="httpd.conf", server_root=str(tmp_path)))
    except ParseError as error:
        engine_error = error
    assert (apache.returncode == 0) == (engine_error is None), (apache.stderr[-300:], engine_error)
    if engine_error is not None:
        assert f"Syntax error on line {engine_error.line} of {tmp_path}/{engine_error.file}: Exceeded" in apache.stderr


def test_a_section_name_with_braces_stays_as_written_in_the_too_deep_reason():
    """The reason names the Include's file as a template (ParseError.shown); the section's own name is not one."""
    from httpd24.config.nodes import Location
    from httpd24.config.parser import too_deep

    section = parse("<x{0}}>\n</x{0}}>\n", "inner.conf").children[0]
    error = too_deep(section, Location("conf/httpd.conf", 7, 1, 7, 20))
    assert error.reason.startswith("<x{0}}> is nested more than") and "the Include at conf/httpd.conf:7;" in error.reason
    assert "the Include at httpd.conf:7;" in error.shown(lambda name: name.removeprefix("conf/"))


def doubling(levels: int, use: str = "ServerAdmin ${A%d}\n") -> str:
    """Each Define twice the one before (a "billion laughs"): the last value is 2 ** (levels + 1) characters."""
    lines = ["Define A0 xx\n"] + [f"Define A{i} ${{A{i - 1}}}${{A{i - 1}}}\n" for i in range(1, levels + 1)]
    return "".join(lines) + use.replace("%d", str(levels))


def test_variables_may_grow_a_configuration_as_far_as_real_ones_do():
    # a long value used on many lines, and a doubling short of the limit
    files = {"httpd.conf": "Define ROOT /srv/" + "x" * 200 + "\n" + "<Directory ${ROOT}/d>\n" + ACCESS_22 * 2000
             + "</Directory>\n" + "Alias /a ${ROOT}\n" * 5000 + doubling(10)}
    lint(ConfigSet.from_mapping(files, entry="httpd.conf"))


@pytest.mark.parametrize("levels", [60, 200])
def test_a_define_that_doubles_itself_is_an_error_at_the_line_not_a_hang(levels):
    # 40 lines whose last value is 2**61 characters: the walk built every value, taking memory without
    # end (an admission review of a 2 KB ConfigMap ran the webhook out of memory)
    text = doubling(levels)
    with pytest.raises(ParseError) as info:
        lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    error = info.value
    assert error.file == "httpd.conf" and 2 <= error.line <= levels + 2
    assert "${" in error.reason and f"{MAX_EXPANSION // (1 << 20)} MiB" in error.reason
    migration = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert migration.cycle is not None and migration.files["httpd.conf"] == text.encode()


def test_many_lines_each_using_a_large_variable_are_an_error_not_a_hang():
    text = "Define BIG " + "x" * (1 << 20) + "\n" + "ServerAdmin ${BIG}\n" * 1000
    with pytest.raises(ParseError) as info:
        lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert info.value.line <= 1000


def test_cli_reports_a_doubling_define_with_file_and_line(tmp_path):
    path = tmp_path / "httpd.conf"
    path.write_text(doubling(60))
    for command in ("lint", "migrate", "modules"):
        done = run_limited(command, str(path))
        assert done.returncode == 2, (command, done.stderr[-2000:])
        assert f"{path}:" in done.stderr and "${" in done.stderr
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr

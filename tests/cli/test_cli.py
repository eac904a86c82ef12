"""The CLI, called through main() as a user would call it."""

from __future__ import annotations

import errno
import io
import json
import os
import textwrap

import pytest

from clirun import run, stdin
from httpd24.cli import main

CORPUS = "/work/shared/corpus/files"


@pytest.fixture
def site(tmp_path):
    conf = tmp_path / "httpd.conf"
    conf.write_bytes(b"ServerName x\r\nMaxClients 150\r\nInclude conf.d/*.conf\r\n")
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_text("MaxRequestsPerChild 0\n")
    return tmp_path


def test_lint_text_format_like_ruff(site):
    code, out, err = run("lint", "--fail-on", "warning", str(site))
    lines = out.splitlines()
    assert f"{site}/conf.d/a.conf:1:1: HT102 MaxRequestsPerChild is renamed MaxConnectionsPerChild in 2.4 (the old name still works but is deprecated) -> MaxConnectionsPerChild 0 [*]" in lines
    assert any(line.startswith(f"{site}/httpd.conf:2:1: HT101 ") for line in lines)
    assert code == 1
    assert "finding(s)" in err


def test_lint_exit_codes(site, tmp_path):
    clean = tmp_path / "clean.conf"
    clean.write_text("ServerName example.org\n")
    assert run("lint", str(clean))[0] == 0
    # HT101 is a warning: below the default --fail-on error
    assert run("lint", "--select", "HT101", str(site))[0] == 0
    assert run("lint", "--select", "HT101", "--fail-on", "warning", str(site))[0] == 1
    assert run("lint", "--select", "HT101", "--fail-on", "never", str(site))[0] == 0


def test_lint_select_and_ignore_by_prefix(site):
    _, out, _ = run("lint", "--select", "HT1", "--ignore", "HT102", str(site))
    codes = {line.split(": ")[1].split()[0] for line in out.splitlines()}
    assert codes == {"HT101"}


def test_parse_error_exit_2_with_location(tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text("ServerName x\n<Directory /x>\n")
    code, out, err = run("lint", str(bad))
    assert code == 2
    assert f"{bad}:2:1: error: <Directory> was not closed" in err
    assert "Traceback" not in err


def test_missing_path_and_bad_usage_exit_2(tmp_path):
    code, _, err = run("lint", str(tmp_path / "nope.conf"))
    assert code == 2 and "no such file or directory" in err
    assert run("lint")[0] == 2
    assert run("frobnicate")[0] == 2


@pytest.mark.parametrize("command", ["lint", "migrate"])
@pytest.mark.parametrize(("option", "value", "needle"), [
    ("--select", "HT5O1", "HT5O1 is no rule code or prefix"),  # a letter O: it once selected nothing and passed
    ("--ignore", "HT101,XYZ", "XYZ is no rule code or prefix"),
    ("--target-version", "2.4", "a 2.4 release as major.minor.patch"),
    ("--target-version", "abc", "a 2.4 release as major.minor.patch"),  # once an internal error
    ("--target-version", "2.2.34", "a 2.4 release as major.minor.patch"),
])
def test_bad_option_values_are_usage_errors(site, capsys, command, option, value, needle):
    code, out, err = run(command, option, value, str(site / "httpd.conf"))
    assert code == 2 and not out, out
    assert needle in capsys.readouterr().err + err


def test_select_takes_codes_and_prefixes_in_any_case(site):
    code, out, _ = run("lint", "--select", "ht10,HT3", "--ignore", "ht102", str(site))
    assert {line.split()[1] for line in out.splitlines()} == {"HT101"}


def test_json_format(site):
    code, out, _ = run("lint", "--format", "json", "--select", "HT101", str(site))
    [record] = json.loads(out)
    assert record["code"] == "HT101" and record["line"] == 2 and record["file"] == f"{site}/httpd.conf"
    assert record["fix"]["applicability"] == "safe"


def test_migrate_prints_writes_and_keeps_crlf(site):
    code, out, err = run("migrate", "--select", "HT101", str(site / "httpd.conf"))
    assert out == "ServerName x\r\nMaxRequestWorkers 150\r\nInclude conf.d/*.conf\r\n"
    assert "fixed 1 finding(s) (HT101 x1)" in err
    code, out, err = run("migrate", "--write", "--select", "HT10", str(site))
    assert (site / "httpd.conf").read_bytes() == b"ServerName x\r\nMaxRequestWorkers 150\r\nInclude conf.d/*.conf\r\n"
    assert (site / "conf.d" / "a.conf").read_text() == "MaxConnectionsPerChild 0\n"
    assert not list(site.rglob("*.httpd24.tmp"))


def test_migrate_check_and_diff(site):
    code, out, _ = run("migrate", "--check", "--select", "HT101", str(site))
    assert code == 1 and out == f"would migrate {site}/httpd.conf\n"
    code, out, _ = run("migrate", "--diff", "--select", "HT101", str(site))
    assert f"--- a/{str(site).lstrip('/')}/httpd.conf" in out and "-MaxClients 150\r\n" in out and "+MaxRequestWorkers 150\r\n" in out
    run("migrate", "--write", "--select", "HT101", str(site))
    assert run("migrate", "--check", "--select", "HT101", str(site))[0] == 0


def test_configmap_manifest_input(tmp_path):
    manifest = tmp_path / "cm.yaml"
    manifest.write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: web, namespace: shop}
        data:
          httpd.conf: |
            Include extra.conf
          extra.conf: |
            MaxClients 10
        """))
    code, out, _ = run("lint", "--select", "HT101", "--fail-on", "warning", str(manifest))
    assert out.startswith(f"{manifest}[shop/web]:extra.conf:1:1: HT101 ")
    code, out, err = run("migrate", "--select", "HT101", str(manifest))
    assert "kind: ConfigMap" in out and "MaxRequestWorkers 10" in out
    before = manifest.read_text()
    assert run("migrate", "--write", "--select", "HT101", str(manifest))[0] == 0
    # only the migrated line changed: flow-style metadata, key order and the other value are as written
    assert manifest.read_text() == before.replace("MaxClients 10", "MaxRequestWorkers 10")
    assert run("migrate", "--check", "--select", "HT101", str(manifest))[0] == 0


def test_migrate_write_keeps_a_manifests_crlf_line_endings(tmp_path):
    manifest = tmp_path / "cm.yaml"
    manifest.write_bytes(b"kind: ConfigMap\r\nmetadata: {name: web}\r\ndata:\r\n  httpd.conf: |\r\n    MaxClients 5\r\n    # keep\r\n")
    assert run("migrate", "--write", "--select", "HT101", str(manifest))[0] == 0
    assert manifest.read_bytes() == (b"kind: ConfigMap\r\nmetadata: {name: web}\r\ndata:\r\n  httpd.conf: |\r\n"
                                     b"    MaxRequestWorkers 5\r\n    # keep\r\n")


def test_manifest_that_cannot_be_rewritten_in_place_is_left_alone(tmp_path):
    manifest = tmp_path / "cm.yaml"
    text = "kind: ConfigMap\nmetadata: {name: web}\ndata:\n  httpd.conf: >\n    MaxClients 10\n"
    manifest.write_text(text)
    code, _, err = run("migrate", "--write", "--select", "HT101", str(manifest))
    assert code == 2 and manifest.read_text() == text
    assert f"{manifest}:4: data.httpd.conf: the value is not a literal block (key: |) -> write it as one" in err
    # The summary does not claim what was not written.
    assert ": fixed " not in err and "  fixed " not in err
    assert f"{manifest}[default/web]: nothing written; 1 finding(s) would be fixed (HT101 x1)" in err
    assert "  would fix " in err


def test_a_json_manifest_is_migrated_in_place(tmp_path):
    manifest = tmp_path / "cm.json"
    text = '{\n  "kind": "ConfigMap",\n  "metadata": {"name": "web"},\n  "data": {"httpd.conf": "MaxClients 10\\n"}\n}\n'
    manifest.write_text(text)
    code, _, err = run("migrate", "--write", "--select", "HT101", str(manifest))
    assert code == 0, err
    assert manifest.read_text() == text.replace("MaxClients", "MaxRequestWorkers")


def test_rules_and_explain():
    code, out, _ = run("rules")
    assert code == 0 and any(line.startswith("HT101  max-clients") for line in out.splitlines())
    code, out, _ = run("rules", "--format", "markdown")
    assert "| HT101 | max-clients | warning | always |" in out
    code, out, _ = run("explain", "ht101")
    assert code == 0 and "## What it does" in out and "MaxRequestWorkers" in out
    assert run("explain", "HT999")[0] == 2


def test_every_rule_is_documented():
    from httpd24.engine import all_rules
    from httpd24.engine.registry import missing_doc_sections

    rules = all_rules()
    assert len(rules) >= 2
    for rule in rules:
        assert not missing_doc_sections(rule), f"{rule.code} lacks {missing_doc_sections(rule)}"
        assert rule.summary and rule.name and rule.severity


def test_version():
    from httpd24 import __version__

    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        code = main(["--version"])
    assert code == 0 and out.getvalue().strip() == f"httpd24 {__version__}"


def test_directory_with_manifests_reads_them_as_configmaps(tmp_path):
    (tmp_path / "site.conf").write_text("MaxClients 5\n")
    (tmp_path / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata:\n  httpd.conf: |\n    MaxClients 10\n"
    )
    (tmp_path / "server.yaml").write_text("apiVersion: httpd24.io/v1alpha1\nkind: HttpdServer\nmetadata: {name: web}\n")
    code, out, err = run("lint", "--select", "HT", "--fail-on", "never", str(tmp_path))
    assert code == 0, err
    files = sorted({line.split(":")[0] for line in out.splitlines()})
    assert files == [f"{tmp_path}/cm.yaml[default/web]", f"{tmp_path}/site.conf"]
    assert "HT406" not in out


def test_write_keeps_permissions_and_reports_unwritable_files(tmp_path, monkeypatch):
    conf = tmp_path / "site.conf"
    conf.write_text("MaxClients 5\n")
    conf.chmod(0o640)
    assert run("migrate", "--write", "--select", "HT101", str(conf))[0] == 0
    assert conf.read_text() == "MaxRequestWorkers 5\n" and (conf.stat().st_mode & 0o777) == 0o640

    other = tmp_path / "other.conf"
    other.write_text("MaxClients 5\n")

    def full_disk(*args, **kwargs):  # the temp file's rename fails (as root too)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full_disk)
    code, out, err = run("migrate", "--write", "--select", "HT101", str(other))
    assert code == 2 and f"cannot write {other}" in err and "left as it was" in err
    assert other.read_text() == "MaxClients 5\n"
    assert "internal error" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.conf", "site.conf"]  # no temp file left


def test_binary_and_huge_files(tmp_path, monkeypatch):
    binary = tmp_path / "module.so"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\0\0\0" + b"x" * 100)
    code, out, err = run("lint", str(binary))
    assert code == 2 and f"{binary}: a binary file, not an httpd configuration" in err and out == ""

    import httpd24.config.configset as configset

    monkeypatch.setattr(configset, "MAX_CONFIGURATION_BYTES", 1000)
    site = tmp_path / "site"
    site.mkdir()
    (site / "httpd.conf").write_text("MaxClients 5\n")
    (site / "access_log").write_text("127.0.0.1 - - GET /\n" * 100)
    (site / "mod_x.so").write_bytes(binary.read_bytes())
    code, out, err = run("lint", "--select", "HT101", "--fail-on", "never", str(site))
    assert code == 0 and "HT101" in out
    assert f"{site}/access_log: not read (" in err and "too large for a configuration" in err
    assert f"{site}/mod_x.so: not read (a binary file)" in err


def test_one_configuration_commands_load_and_analyse_with_the_collector_paused(tmp_path, monkeypatch):
    # Parsing makes a million small objects on a large file; the collector's passes over them were a
    # quarter of `httpd24 lint`. It is back on afterwards (the operator command keeps it throughout).
    import gc

    import httpd24.cli as cli

    conf = tmp_path / "httpd.conf"
    conf.write_text("<Directory /srv>\n    Order allow,deny\n    Allow from all\n</Directory>\n")
    seen = []
    original = cli._sources

    def sources(*args, **kwargs):
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(cli, "_sources", sources)
    for command in ("lint", "migrate", "modules"):
        seen.clear()
        main([command, str(conf)], out=io.StringIO(), err=io.StringIO())
        assert seen == [False], command
        assert gc.isenabled()


@pytest.mark.parametrize("command", ["lint", "migrate", "modules"])
def test_an_include_cycle_is_an_error_at_its_line_in_every_command(tmp_path, command):
    conf = tmp_path / "site.conf"
    conf.write_text("MaxClients 5\nInclude *.conf\n")  # includes itself, as httpd would refuse
    code, _, err = run(command, str(conf))
    assert code == 2
    assert f"{conf}:2:1: error: Include cycle: site.conf -> site.conf" in err and "internal error" not in err


def test_lint_does_not_import_what_only_other_commands_use(tmp_path):
    # Start-up time of every CI lint: kopf/aiohttp (operator), http.client (--verify) and PyYAML (manifests).
    import subprocess
    import sys

    conf = tmp_path / "site.conf"
    conf.write_text("MaxClients 5\n")
    code = ("import sys\nfrom httpd24.cli import main\nmain(['lint', sys.argv[1]])\n"
            "print(sorted(m for m in ('kopf', 'aiohttp', 'http.client', 'yaml') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(conf)], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_standard_input_is_a_file_named_by_stdin_filename(monkeypatch):
    stdin(monkeypatch, "KeepAlive 5\nMaxClients 5\n")
    code, out, _ = run("lint", "--stdin-filename", "conf/site.conf", "-")
    assert code == 1  # HT120 is an error
    assert [line.split(" ")[:2] for line in out.splitlines()] == [["conf/site.conf:1:1:", "HT120"], ["conf/site.conf:2:1:", "HT101"]]
    stdin(monkeypatch, "MaxClients 5\n")
    code, out, err = run("migrate", "-")
    assert out == "MaxRequestWorkers 5\n" and "fixed 1 finding(s) (HT101 x1) in -" in err
    code, _, err = run("migrate", "--write", "-")
    assert code == 2 and "--write cannot write standard input back" in err
    assert run("lint", "-", "-")[0] == 2


def test_standard_input_with_a_manifest_name_is_read_as_configmaps(monkeypatch):
    stdin(monkeypatch, "kind: ConfigMap\nmetadata: {name: web, namespace: shop}\ndata:\n  httpd.conf: |\n    MaxClients 5\n")
    code, out, _ = run("lint", "--select", "HT101", "--stdin-filename", "cm.yaml", "-")
    assert out.startswith("cm.yaml[shop/web]:httpd.conf:1:1: HT101 ")


def test_github_format_annotates_each_line_with_escaped_text(tmp_path):
    conf = tmp_path / "a,b.conf"  # a comma in a property must be escaped (%2C), or GitHub cuts the file name
    conf.write_text("KeepAlive 5\nMaxClients 150\n")
    code, out, _ = run("lint", "--format", "github", str(conf))
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2
    escaped = str(conf).replace(",", "%2C")
    assert lines[0].startswith(f"::error file={escaped},line=1,col=1,title=HT120 ")
    assert lines[1].startswith(f"::warning file={escaped},line=2,col=1,title=HT101 max-clients::HT101 MaxClients is renamed")
    assert lines[1].endswith("-> MaxRequestWorkers 150")
    assert run("lint", "--format", "github", "--select", "HT999", str(conf))[1] == ""


def test_modules_why_names_each_reason_once(tmp_path):
    """A Require line needs mod_authz_core twice over (the directive and its provider): one reason shown."""
    conf = tmp_path / "site.conf"
    conf.write_text("<Directory /srv/www>\n    Require all granted\n</Directory>\n")
    code, out, _ = run("modules", "--why", str(conf))
    assert code == 0
    [why] = [line for line in out.splitlines() if line.startswith("# authz_core_module:")]
    reasons = why.split(": ", 1)[1].split("; ")
    assert len(reasons) == len(set(reasons)) and any("site.conf:2 Require all granted" in r for r in reasons), why


def test_modules_json_is_one_document_however_many_configurations(tmp_path):
    # Two configurations printed two JSON objects one after the other: no JSON reader takes that.
    (tmp_path / "a.conf").write_text("<Directory /srv>\n    Require all granted\n</Directory>\n")
    (tmp_path / "b.conf").write_text("RewriteEngine on\n")
    (tmp_path / "broken.conf").write_text("<Directory /srv>\n")
    code, out, _ = run("modules", "--format", "json", "a.conf", "b.conf", cwd=tmp_path)
    assert code == 0
    a, b = json.loads(out)
    assert (a["source"], b["source"]) == ("a.conf", "b.conf")
    assert "authz_core_module" in [m["name"] for m in a["modules"]]
    assert "rewrite_module" in [m["name"] for m in b["modules"]]
    code, out, _ = run("modules", "--format", "json", "a.conf", cwd=tmp_path)
    [alone] = json.loads(out)  # the same shape for one: a script need not count its arguments
    assert alone == a
    code, out, _ = run("modules", "--format", "json", "broken.conf", cwd=tmp_path)
    assert code == 2 and json.loads(out) == []


def test_modules_for_debians_binary_read_the_blocks_of_what_it_builds_in(tmp_path):
    """Debian's apache2 builds mod_logio in: `--builtin debian` (or Debian's --module-dir) reads a whole
    configuration's `<IfModule mod_logio.c>`, so SetEnv there needs mod_env; on the image it is not read."""
    conf = tmp_path / "httpd.conf"
    conf.write_text("LoadModule mpm_event_module modules/mod_mpm_event.so\n<IfModule mod_logio.c>\n    SetEnv A 1\n"
                    "</IfModule>\n")
    for args in (["--builtin", "debian"], ["--module-dir", "/usr/lib/apache2/modules"]):
        assert "LoadModule env_module " in run("modules", *args, str(conf))[1]
    assert "env_module" not in run("modules", str(conf))[1]


def test_modules_loaded_before_the_configuration_are_not_asked_for(tmp_path):
    """A build with mod_unixd compiled in (Debian's): ``--module mod_unixd.c`` says so, and HT404 must
    not ask for a LoadModule that such a server refuses."""
    conf = tmp_path / "httpd.conf"
    conf.write_text("LoadModule mpm_event_module modules/mod_mpm_event.so\nUser www-data\n")
    code, out, _err = run("lint", "--select", "HT404", str(conf))
    assert "needs unixd_module" in out
    for name in ("mod_unixd.c", "unixd_module"):
        code, out, _err = run("lint", "--select", "HT404", "--module", name, str(conf))
        assert "unixd_module" not in out, out


def test_debians_own_directory_is_read_as_httpd_reads_it():
    """`httpd24 lint /etc/apache2` on Debian's 2.4 configuration as installed (read, never written): its
    mod_mime_magic data (`magic`, named by MIMEMagicFile) and `envvars` are not configuration."""
    import os

    if not os.path.isfile("/etc/apache2/magic"):
        pytest.skip("Debian's apache2 configuration is not installed")
    code, out, err = run("lint", "--fail-on", "never", "/etc/apache2")
    assert code == 0
    assert "/etc/apache2/magic: not read (data read by MIMEMagicFile at mods-available/mime_magic.conf:" in err
    assert "/etc/apache2/envvars: not read (a shell script apache2ctl reads, which no Include names)" in err
    assert "/magic:" not in out and "HT001" not in out


@pytest.mark.parametrize("blocked, why", [
    ("  extra.conf: >\n    MaxClients 5\n", "the value is not a literal block (key: |)"),
    ("binaryData:\n  extra.conf: TWF4Q2xpZW50cyA1Cg==\n", "a binaryData value, which --write does not edit in place"),
])
def test_write_writes_every_value_it_can_and_names_each_it_cannot(tmp_path, blocked, why):
    """As ruff writes the fixes it can: one value written as a folded scalar (or base64) no longer keeps
    the other values of the ConfigMap from being migrated. The run still fails, naming that value."""
    manifest = tmp_path / "cm.yaml"
    text = ("kind: ConfigMap\nmetadata: {name: web}\ndata:\n  httpd.conf: |\n    Include extra.conf\n"
            "    MaxClients 10\n" + blocked)
    manifest.write_text(text)
    code, _, err = run("migrate", "--write", "--select", "HT101", str(manifest))
    assert code == 2, err
    assert manifest.read_text() == text.replace("MaxClients 10", "MaxRequestWorkers 10")
    assert f"{manifest}[default/web]:extra.conf: not written: " in err and why in err, err
    assert f"{manifest}[default/web]: fixed 1 finding(s) (HT101 x1) in {manifest}[default/web]:httpd.conf" in err
    assert f"{manifest}[default/web]: not written; 1 finding(s) would be fixed (HT101 x1) in " \
           f"{manifest}[default/web]:extra.conf" in err
    assert f"  fixed   {manifest}[default/web]:httpd.conf:2:1: HT101" in err
    assert f"  would fix {manifest}[default/web]:extra.conf:1:1: HT101" in err
    code, out, _ = run("migrate", "--check", "--select", "HT101", str(manifest))
    assert code == 1 and out == f"would migrate {manifest}[default/web]:extra.conf\n"

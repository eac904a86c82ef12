"""CI passes what admission admits: ``httpd24 lint|migrate`` on a manifest of ConfigMaps decides what the
admission webhook (:mod:`httpd24.k8s.review`) decides on the same object, whatever its annotations say
about where the keys lie (``config-dir``, ``server-root``, ``entry``) and how to judge them
(``defaults``, ``source-version``)."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from clirun import run
from httpd24.k8s import review

CORPUS = Path("/work/shared/corpus/files")

CONFIG_DIR, SERVER_ROOT, ENTRY = review.ANN_CONFIG_DIR, review.ANN_SERVER_ROOT, review.ANN_ENTRY
DEFAULTS, SOURCE_VERSION = review.ANN_DEFAULTS, review.ANN_SOURCE_VERSION


# -- building ConfigMaps ---------------------------------------------------------------------------------------------
class _Block(str):
    """A value written as a literal block (``key: |``), as people write ConfigMaps and ``--write`` edits them."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Block, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|"))


def manifest(data: dict[str, str], annotations: dict | None = None, name: str = "web") -> str:
    meta: dict = {"name": name}
    if annotations:
        meta["annotations"] = dict(annotations)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
            "data": {key: _Block(value) for key, value in data.items()}}
    return yaml.dump(body, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def corpus_text(name: str) -> str:
    """A corpus file as a literal block can hold it: LF lines without trailing blanks, no tabs."""
    text = (CORPUS / name).read_bytes().decode("utf-8", "replace").replace("\r\n", "\n").expandtabs(4)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n") + "\n"


def split_top_level(text: str, parts: int) -> list[str]:
    """``text`` cut into ``parts`` pieces at lines outside every section (as Includes may cut a file)."""
    lines = text.splitlines(keepends=True)
    cuts, depth, continued = [], 0, False
    for number, line in enumerate(lines):
        stripped = line.strip()
        if depth == 0 and not continued and number:
            cuts.append(number)
        if not continued and stripped.startswith("</"):
            depth -= 1
        elif not continued and stripped.startswith("<") and not stripped.startswith("<!"):
            depth += 1
        continued = stripped.endswith("\\")
    chosen = sorted({min(cuts, key=lambda c: abs(c - len(lines) * i // parts)) for i in range(1, parts)})
    bounds = [0, *chosen, len(lines)]
    return ["".join(lines[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


#: Where the keys lie: (annotations, how an Include names a key, relative or absolute, as httpd opens it).
LAYOUTS = {
    "default": ({}, ["", "/etc/httpd24/"]),
    "config-dir conf": ({CONFIG_DIR: "conf"}, ["conf/", "/etc/httpd24/conf/"]),
    "server-root and config-dir conf": ({SERVER_ROOT: "/usr/local/apache2", CONFIG_DIR: "conf"},
                                        ["conf/", "/usr/local/apache2/conf/"]),
    "config-dir inside, absolute": ({CONFIG_DIR: "/etc/httpd24/conf.d"}, ["conf.d/", "/etc/httpd24/conf.d/"]),
    "config-dir outside the server root": ({CONFIG_DIR: "/srv/httpd/conf"}, ["/srv/httpd/conf/"]),
    "server-root only": ({SERVER_ROOT: "/opt/web"}, ["", "/opt/web/"]),
}

POLICIES = [
    {},
    {DEFAULTS: "adopt-2.4"},
    {DEFAULTS: "keep-2.2"},
    {SOURCE_VERSION: "2.4"},
    {SOURCE_VERSION: "2.2", DEFAULTS: "keep-2.2"},
    {SOURCE_VERSION: "auto", DEFAULTS: "keep-2.2"},
]


def group_centos(at: list[str]) -> tuple[dict[str, str], dict]:
    """CentOS 6's httpd.conf cut in three keys that Include each other, and ssl.conf by a wildcard."""
    first, second, third = split_top_level(corpus_text("centos6-httpd.conf"), 3)
    data = {
        "httpd.conf": first + f"Include {at[0]}main-2.conf\n",
        "main-2.conf": second + f"Include {at[-1]}main-3.conf\n",
        "main-3.conf": third + f"IncludeOptional {at[0]}ssl-*.conf\n",
        "ssl-default.conf": corpus_text("centos6-conf.d-ssl.conf"),
    }
    return data, {}


def group_debian(at: list[str]) -> tuple[dict[str, str], dict]:
    """Debian squeeze's apache2.conf as the entry (it includes httpd.conf, which the ConfigMap lacks), its
    site and a module's configuration by absolute and relative Includes, and a key it never includes."""
    head, tail = split_top_level(corpus_text("debian6-squeeze-apache2.conf"), 2)
    data = {
        "apache2.conf": head + f"Include {at[-1]}status.conf\n" + tail + f"Include {at[0]}site-default\n",
        "status.conf": corpus_text("debian7-wheezy-mods-status.conf"),
        "site-default": corpus_text("debian7-wheezy-sites-available-default"),
        "koha.conf": corpus_text("koha-3.x-koha-httpd.conf"),
    }
    return data, {ENTRY: "apache2.conf"}


def group_openshift(at: list[str]) -> tuple[dict[str, str], dict]:
    """OpenShift's broker configuration (it loads a module: the source version is decided from it), nagios
    by an Include, a key that is missing, and a page no Include reaches (not configuration: left alone)."""
    data = {
        "httpd.conf": corpus_text("openshift-broker-httpd.conf.apache-2.3") + f"Include {at[0]}nagios.conf\n"
                      + f"Include {at[-1]}gone.conf\n",
        "nagios.conf": corpus_text("nagios-3.x-httpd.conf.in"),
        "backuppc.conf": corpus_text("backuppc-debian-apache.conf"),
        "index.html": "<html>\n<body>hello</body>\n</html>\n",
    }
    return data, {}


def group_vhosts(at: list[str]) -> tuple[dict[str, str], dict]:
    """Virtual hosts whose findings are warnings and notes: what the webhook admits, and CI must pass."""
    data = {
        "httpd.conf": corpus_text("debian7-wheezy-ports.conf") + f"Include {at[-1]}vhosts.conf\n"
                      + f"IncludeOptional {at[0]}site-*.conf\n",
        "vhosts.conf": corpus_text("apache-2.2.15-httpd-vhosts.conf.in"),
        "site-icinga.conf": corpus_text("icinga-1.x-httpd.conf.in"),
        "site-logs.conf": corpus_text("iem-2016-vhost-rotatelogs.conf"),
    }
    return data, {}


GROUPS = {"centos": group_centos, "debian": group_debian, "openshift": group_openshift, "vhosts": group_vhosts}

#: Every group in every layout, each group meeting the policies in another order.
CASES = [
    pytest.param(group, layout, POLICIES[(g + n) % len(POLICIES)], id=f"{group}-{layout}-{(g + n) % len(POLICIES)}")
    for g, group in enumerate(GROUPS) for n, layout in enumerate(LAYOUTS)
]


def webhook_findings(body: dict) -> Counter:
    analysis = review.analyze(body)
    return Counter((f.code, f.file, f.line, f.column, f.severity.value, f.message) for f in analysis.findings)


def cli_findings(out: str) -> Counter:
    return Counter((r["code"], r["file"].split("]:", 1)[1], r["line"], r["column"], r["severity"], r["message"])
                   for r in json.loads(out))


# -- the property ----------------------------------------------------------------------------------------------------
@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not here")
@pytest.mark.parametrize("group, layout, policy", CASES)
def test_lint_and_migrate_decide_what_the_webhook_decides(tmp_path, group, layout, policy):
    annotations, at = LAYOUTS[layout]
    data, more = GROUPS[group](at)
    text = manifest(data, {**annotations, **more, **policy})
    body = yaml.safe_load(text)
    (tmp_path / "cm.yaml").write_text(text)

    analysis = review.analyze(copy.deepcopy(body))
    enforce = review.review(copy.deepcopy(body), mode=review.Mode.ENFORCE, stage="validate")
    code, out, err = run("lint", "--isolated", "--format", "json", "cm.yaml", cwd=tmp_path)
    assert "internal error" not in err, err
    if analysis.problems:  # httpd cannot read it: the webhook denies, and the CLI says why, exit 2
        assert not enforce.allowed and code == 2, (code, err)
        for problem in analysis.problems:
            assert f"cm.yaml[default/web]:{problem}".replace(f": {problem.reason}", f": error: {problem.reason}") \
                in err, (str(problem), err)
    else:
        assert cli_findings(out) == webhook_findings(body), err
        assert (code == 1) == (not enforce.allowed) and code in (0, 1), (code, enforce.message, err)
        assert analysis.findings, "a corpus configuration with nothing to report tests nothing"

    migrated = review.analyze(copy.deepcopy(body), migrate=True)
    code, _, err = run("migrate", "--isolated", "--write", "-q", "cm.yaml", cwd=tmp_path)
    assert "internal error" not in err, err
    written = yaml.safe_load((tmp_path / "cm.yaml").read_text())
    expected = dict(body["data"])
    expected.update({key: value.decode() for key, value in migrated.migrated.items()})
    assert written["data"] == expected, err
    assert analysis.problems or migrated.migrated, "nothing migrated: the case tests nothing"


# -- where the keys lie -----------------------------------------------------------------------------------------------
def lint_lines(tmp_path: Path, text: str, *args: str) -> tuple[int, list[str], str]:
    (tmp_path / "cm.yaml").write_text(text)
    code, out, err = run("lint", "--isolated", *args, "cm.yaml", cwd=tmp_path)
    return code, [" ".join(line.split(" ")[:2]) for line in out.splitlines()], err


def test_includes_resolve_in_the_config_dir_as_the_webhook_resolves_them(tmp_path):
    """Mounted at conf/ of /usr/local/apache2, the keys are conf/*: `Include conf/gone.conf` opens no file
    (HT408), and modules.conf, in the server root around conf/, may be the image's. The CLI read the keys
    as the server root itself: it said nothing of gone.conf and called modules.conf missing."""
    text = manifest({"main.conf": "ServerName x\nInclude modules.conf\nInclude conf/extra.conf\nInclude conf/gone.conf\n",
                      "extra.conf": "KeepAlive 5\n"},
                     {ENTRY: "main.conf", SERVER_ROOT: "/usr/local/apache2", CONFIG_DIR: "conf"})
    code, lines, err = lint_lines(tmp_path, text)
    assert lines == ["cm.yaml[default/web]:extra.conf:1:1: HT120", "cm.yaml[default/web]:main.conf:4:1: HT408"], err
    assert code == 1 and not review.review(yaml.safe_load(text), mode=review.Mode.ENFORCE, stage="validate").allowed


def test_a_config_dir_outside_the_server_root_holds_the_keys(tmp_path):
    """`Include /srv/conf/extra.conf` names a key when the keys are mounted at /srv/conf: the CLI linted
    extra.conf on its own and never saw that /srv/conf/gone.conf is missing."""
    text = manifest({"httpd.conf": "ServerName x\nInclude /srv/conf/extra.conf\nInclude /srv/conf/gone.conf\n",
                     "extra.conf": "<IfModule mod_ssl.c>\nKeepAlive 5\n</IfModule>\n"}, {CONFIG_DIR: "/srv/conf/"})
    code, lines, err = lint_lines(tmp_path, text)
    assert lines == ["cm.yaml[default/web]:extra.conf:2:1: HT120", "cm.yaml[default/web]:httpd.conf:3:1: HT408"], err
    assert "HT403" not in err


def test_every_place_that_names_a_key_names_it_without_the_config_dir(tmp_path):
    """--diff, --check, --write, modules and SARIF name the ConfigMap's keys, not conf/KEY."""
    text = manifest({"httpd.conf": "ServerName x\nInclude conf/extra.conf\n", "extra.conf": "KeepAlive 5\nDav On\n"},
                    {CONFIG_DIR: "conf"})
    (tmp_path / "cm.yaml").write_text(text)
    code, out, err = run("migrate", "--isolated", "--diff", "cm.yaml", cwd=tmp_path)
    assert "--- a/cm.yaml[default/web]:extra.conf\n" in out and "conf/extra.conf" not in out + err, out
    code, out, err = run("migrate", "--isolated", "--check", "cm.yaml", cwd=tmp_path)
    assert out == "would migrate cm.yaml[default/web]:extra.conf\n", out
    code, out, err = run("modules", "--isolated", "--why", "--format", "json", "cm.yaml", cwd=tmp_path)
    files = {reason["file"] for module in json.loads(out)[0]["modules"] for reason in module["reasons"]}
    assert "extra.conf" in files and not any(f.startswith("conf/") for f in files), files
    code, out, err = run("lint", "--isolated", "--format", "sarif", "cm.yaml", cwd=tmp_path)
    [result] = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "HT120"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == text.splitlines().index("    KeepAlive 5") + 1, (region, text)
    code, out, err = run("migrate", "--isolated", "--write", "cm.yaml", cwd=tmp_path)
    assert yaml.safe_load((tmp_path / "cm.yaml").read_text())["data"]["extra.conf"].startswith("KeepAlive On\n"), err
    assert "conf/extra.conf" not in err, err


@pytest.mark.parametrize("command", ["lint", "migrate", "modules"])
def test_an_include_cycle_names_the_keys_as_the_webhook_does(tmp_path, command):
    """The chain named conf/httpd.conf -> conf/extra.conf -> ..., names no key has."""
    text = manifest({"httpd.conf": "ServerName x\nInclude conf/extra.conf\n", "extra.conf": "Include conf/httpd.conf\n"},
                    {CONFIG_DIR: "conf"})
    (tmp_path / "cm.yaml").write_text(text)
    code, out, err = run(command, "--isolated", "cm.yaml", cwd=tmp_path)
    cycle = "Include cycle: httpd.conf -> extra.conf -> httpd.conf; remove one of these Include lines"
    assert code == 2 and f"cm.yaml[default/web]:extra.conf:1:1: error: {cycle}\n" in err, err
    denial = review.review(yaml.safe_load(text), mode=review.Mode.ENFORCE, stage="validate").message
    assert f"extra.conf:1:1: {cycle}" in denial.splitlines(), denial


def test_a_key_nothing_includes_that_does_not_parse_is_left_alone_as_the_webhook_leaves_it(tmp_path):
    text = manifest({"httpd.conf": "ServerName x\n", "index.html": "<html>\n<body>hi</body>\n</html>\n"},
                    {CONFIG_DIR: "conf"})
    code, lines, err = lint_lines(tmp_path, text)
    assert code == 0 and lines == [], err
    assert "cm.yaml[default/web]:index.html: not read (" in err and "error" not in err, err
    assert review.review(yaml.safe_load(text), mode=review.Mode.ENFORCE, stage="validate").allowed


# -- how the keys are judged: the command line, then the ConfigMap, then the settings file ---------------------------
SITE = "ServerName x\nDocumentRoot /srv/www\nKeepAlive 5\n"  # HT302/HT303: 2.2's defaults; HT120 on any source


def codes(tmp_path: Path, annotations: dict, *args: str) -> tuple[list[str], str]:
    (tmp_path / "cm.yaml").write_text(manifest({"httpd.conf": SITE}, annotations))
    code, out, err = run("lint", *args, "cm.yaml", cwd=tmp_path)
    assert code == 1 and "internal error" not in err, err
    return [line.split(" ")[1] + ("*" if line.endswith("[*]") else "") for line in out.splitlines()], err


def test_the_source_version_annotation_is_read_and_a_flag_wins_over_it(tmp_path):
    said = {SOURCE_VERSION: "2.4"}
    assert codes(tmp_path, said, "--isolated")[0] == ["HT120*"]  # the CLI reported HT302 and HT303 here
    assert codes(tmp_path, said, "--isolated", "--source-version", "2.2")[0] == ["HT302", "HT303", "HT120*"]
    (tmp_path / "httpd24.toml").write_text('source-version = "2.2"\n')
    assert codes(tmp_path, said)[0] == ["HT120*"]  # the ConfigMap says more about itself than the repository
    assert codes(tmp_path, {})[0] == ["HT302", "HT303", "HT120*"]
    (tmp_path / "httpd24.toml").write_text('source-version = "2.4"\n')
    assert codes(tmp_path, {})[0] == ["HT120*"]
    assert codes(tmp_path, {SOURCE_VERSION: "auto"})[0] == ["HT302", "HT303", "HT120*"]


def test_the_defaults_annotation_is_read_and_a_flag_wins_over_it(tmp_path):
    keep = {DEFAULTS: "keep-2.2"}
    assert codes(tmp_path, keep, "--isolated")[0] == ["HT302*", "HT303*", "HT120*"]  # fixable: 2.2's kept
    assert codes(tmp_path, keep, "--isolated", "--defaults", "adopt-2.4")[0] == ["HT302", "HT303", "HT120*"]
    (tmp_path / "httpd24.toml").write_text('defaults = "adopt-2.4"\n')
    assert codes(tmp_path, keep)[0] == ["HT302*", "HT303*", "HT120*"]
    assert codes(tmp_path, {})[0] == ["HT302", "HT303", "HT120*"]
    (tmp_path / "httpd24.toml").write_text('defaults = "keep-2.2"\n')
    assert codes(tmp_path, {DEFAULTS: "adopt-2.4"})[0] == ["HT302", "HT303", "HT120*"]
    assert codes(tmp_path, {})[0] == ["HT302*", "HT303*", "HT120*"]


def test_migrate_follows_the_annotations_too(tmp_path):
    (tmp_path / "cm.yaml").write_text(manifest({"httpd.conf": SITE}, {DEFAULTS: "keep-2.2"}))
    run("migrate", "--isolated", "--write", "cm.yaml", cwd=tmp_path)
    written = yaml.safe_load((tmp_path / "cm.yaml").read_text())["data"]["httpd.conf"]
    assert "EnableSendfile On" in written and "KeepAlive On" in written, written


@pytest.mark.parametrize("annotations", [{DEFAULTS: "keep"}, {SOURCE_VERSION: "2.3"},
                                         {DEFAULTS: "2.2", SOURCE_VERSION: "two"}])
def test_an_annotation_value_the_webhook_ignores_is_said_and_ignored(tmp_path, annotations):
    notes: list[str] = []
    review.layout_of({"metadata": {"annotations": annotations}}, notes)
    found, err = codes(tmp_path, annotations, "--isolated")
    assert found == ["HT302", "HT303", "HT120*"], err
    for note in notes:  # the webhook's admission warning, word for word
        assert f"httpd24: cm.yaml[default/web]: {note}\n" in err, (note, err)
    assert notes and len(err.splitlines()) == len(notes) + 1, err  # and the summary


@pytest.mark.parametrize("annotations, said", [
    ({SOURCE_VERSION: 2.4}, "annotation httpd24.io/source-version must be a string, not float, or the apiserver "
                            'refuses the manifest; fix the manifest: httpd24.io/source-version: "2.4"\n'),
    ({DEFAULTS: True}, "annotation httpd24.io/defaults must be a string, not bool, or the apiserver refuses the "
                       "manifest; fix the manifest\n"),
    ({CONFIG_DIR: ["conf"]}, "annotation httpd24.io/config-dir must be a string, not list"),
    ({SERVER_ROOT: 7}, "annotation httpd24.io/server-root must be a string, not int"),
])
def test_an_annotation_that_is_not_a_string_is_the_manifests_error(tmp_path, annotations, said):
    """Kubernetes keeps annotations as strings: the apiserver refuses the object, so CI must not pass it."""
    (tmp_path / "cm.yaml").write_text(manifest({"httpd.conf": SITE}, annotations))
    for command in ("lint", "migrate", "modules"):
        code, out, err = run(command, "--isolated", "cm.yaml", cwd=tmp_path)
        assert code == 2 and "internal error" not in err and "Traceback" not in err, err
        assert f"httpd24: cm.yaml[default/web]: {said}" in err and "fix the manifest" in err, err


@pytest.mark.parametrize("config_dir", ["../conf", "conf/../..", "/etc/httpd24/../conf", "conf/.."])
def test_a_config_dir_that_climbs_with_dot_dot_is_a_problem_for_both(tmp_path, config_dir):
    """A config-dir with `..` names no mount point httpd24 can place the keys at; the webhook read the keys
    under names no Include resolves to, and passed them unread."""
    text = manifest({"httpd.conf": "ServerName x\n"}, {CONFIG_DIR: config_dir})
    decision = review.review(yaml.safe_load(text), mode=review.Mode.ENFORCE, stage="validate")
    assert not decision.allowed
    [line] = decision.message.splitlines()[1:]
    assert line.startswith(f"{CONFIG_DIR}: ") and ".." in line, line
    (tmp_path / "cm.yaml").write_text(text)
    for command in ("lint", "migrate"):
        code, out, err = run(command, "--isolated", "cm.yaml", cwd=tmp_path)
        assert code == 2 and "internal error" not in err, err
        assert f"cm.yaml[default/web]:{line.replace(': ', ': error: ', 1)}\n" in err, err


# -- --format json: the key's line, and the manifest's -------------------------------------------------------------------
def test_json_names_the_key_and_line_and_where_that_is_in_the_manifest(tmp_path):
    text = manifest({"httpd.conf": "ServerName x\nInclude conf/extra.conf\n", "extra.conf": "# extra\nKeepAlive 5\n"},
                    {CONFIG_DIR: "conf"})
    (tmp_path / "cm.yaml").write_text(text)
    code, out, err = run("lint", "--isolated", "--format", "json", "cm.yaml", cwd=tmp_path)
    [record] = json.loads(out)
    line = text.splitlines().index("    KeepAlive 5") + 1
    assert (record["file"], record["line"], record["column"]) == ("cm.yaml[default/web]:extra.conf", 2, 1)
    assert record["manifest"] == {"file": "cm.yaml", "line": line, "column": 5, "exact": True,
                                  "configmap": "default/web", "key": "extra.conf", "section": "data"}


def test_json_of_a_value_that_does_not_map_line_for_line_points_at_its_first_character(tmp_path):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web", "namespace": "shop"},
            "data": {"httpd.conf": "ServerName x\nKeepAlive 5\n"}}
    (tmp_path / "cm.json").write_text(json.dumps(body, indent=2))
    code, out, err = run("lint", "--isolated", "--format", "json", "cm.json", cwd=tmp_path)
    [record] = json.loads(out)
    line = next(n for n, text in enumerate(json.dumps(body, indent=2).splitlines(), 1) if "KeepAlive" in text)
    assert (record["file"], record["line"]) == ("cm.json[shop/web]:httpd.conf", 2)
    assert record["manifest"] == {"file": "cm.json", "line": line, "column": re.search(
        r'"ServerName', json.dumps(body, indent=2).splitlines()[line - 1]).start() + 1, "exact": False,
        "configmap": "shop/web", "key": "httpd.conf", "section": "data"}


def test_json_of_a_file_has_no_manifest(tmp_path):
    (tmp_path / "httpd.conf").write_text("KeepAlive 5\n")
    code, out, err = run("lint", "--isolated", "--format", "json", "httpd.conf", cwd=tmp_path)
    [record] = json.loads(out)
    assert record["file"] == "httpd.conf" and record["manifest"] is None

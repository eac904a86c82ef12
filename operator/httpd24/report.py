"""Findings as text (like ruff), JSON, SARIF 2.1.0 for code scanning, and GitHub Actions annotations."""

from __future__ import annotations

import json
import urllib.parse
from typing import Iterable

from . import __version__
from .engine import Finding, Rule, Severity, all_rules

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def text_line(finding: Finding, file: str) -> str:
    """``file:line:col: CODE message -> replacement`` (the replacement only when there is one)."""
    line = f"{file}:{finding.line}:{finding.column}: {finding.code} {finding.message}"
    if finding.replacement:
        line += f" -> {finding.replacement}"
    if finding.fixable:
        line += " [*]"
    return line


def as_json(findings: Iterable[tuple[str, Finding]], in_manifest: Iterable[dict | None] = ()) -> str:
    """One list, an object per finding: ``file``, ``line`` and ``column`` where the finding is (a ConfigMap's:
    ``manifest.yaml[namespace/name]:key`` and the key's own line, as the admission webhook names it), and
    ``manifest``, for each finding in turn: where that is in its Kubernetes manifest (see
    :meth:`httpd24.inputs.Source.in_manifest`), for a CI tool to point at the manifest's line; null for a file."""
    out = []
    places = iter(in_manifest)
    for file, finding in findings:
        record = finding.to_dict()
        record["file"] = file
        record["manifest"] = next(places, None)
        out.append(record)
    return json.dumps(out, indent=2)


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _github_escape(text: str, prop: bool = False) -> str:
    """GitHub's workflow-command escaping (``%``, CR, LF; and ``:`` ``,`` in properties)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def as_github(findings: Iterable[tuple[str, Finding]]) -> str:
    """One ``::error file=...,line=...::message`` line per finding: GitHub Actions shows each on the line
    of the pull request's diff, as ruff's ``--output-format github`` does."""
    lines = []
    for file, f in findings:
        props = ",".join(f"{k}={_github_escape(str(v), prop=True)}" for k, v in (
            ("file", file), ("line", f.line), ("col", f.column), ("title", f"{f.code} {f.rule}")))
        message = f.message + (f" -> {f.replacement}" if f.replacement else "")
        lines.append(f"::{_GITHUB_LEVEL[f.severity]} {props}::{_github_escape(f'{f.code} {message}')}")
    return "\n".join(lines)


def _rule_descriptor(rule: Rule) -> dict:
    doc = rule.documentation()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": doc.split("## Why is this bad?")[0].replace("## What it does", "").strip() or rule.summary},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
        "properties": {"tags": [rule.severity.value], "fixAvailability": rule.fix_availability},
    }


def _uri(file: str) -> str:
    """A file as SARIF's ``artifactLocation.uri``, which is a URI reference: a space, ``#`` or ``%`` in
    a name is percent-encoded (code scanning decodes it back to the path)."""
    return urllib.parse.quote(file.replace("\\", "/"), safe="/", errors="surrogateescape")


def as_sarif(findings: Iterable[tuple[str, Finding]], silenced: Iterable[tuple[str, Finding]] = ()) -> str:
    """A SARIF 2.1.0 log with one run; every registered rule is described. ``silenced`` findings (an
    ``# httpd24: ignore`` mark) are results with an in-source suppression, as code scanning expects."""
    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    results = []
    quiet = [(file, finding, True) for file, finding in silenced]
    for file, finding, suppressed in [(file, finding, False) for file, finding in findings] + quiet:
        message = finding.message + (f" -> {finding.replacement}" if finding.replacement else "")
        result = {
            "ruleId": finding.code,
            "level": _SARIF_LEVEL[finding.severity],
            "message": {"text": message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(file)},
                        "region": {"startLine": finding.line, "startColumn": finding.column},
                    }
                }
            ],
        }
        if finding.code in index:
            result["ruleIndex"] = index[finding.code]
        if suppressed:
            result["suppressions"] = [{"kind": "inSource", "justification": "# httpd24: ignore mark"}]
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "httpd24",
                        "version": __version__,
                        "informationUri": "https://httpd24.io/rules",
                        "rules": [_rule_descriptor(rule) for rule in rules],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2)

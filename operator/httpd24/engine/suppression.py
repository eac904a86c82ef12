"""Findings a person has looked at and chose to keep, marked in the configuration itself.

httpd has no end-of-line comments (a ``#`` after a directive is an argument), so the marks are
comment lines, as hadolint's are in a Dockerfile:

* ``# httpd24: ignore=HT406,HT3`` on the lines just above a directive or section (no blank line
  between) silences those codes, or code prefixes, on that line;
* ``# httpd24: ignore-file=HT302`` anywhere in a file silences them in the whole file.

A silenced finding is not reported and its fix is not applied. The admission webhooks count
them in their answer, so an ``ignore`` in a ConfigMap is never invisible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from ..config import Comment, ConfigSet, Directive
from .finding import Finding

PRAGMA = b"httpd24:"
_MARK = re.compile(r"^httpd24:\s*(ignore|ignore-file)\s*=\s*([A-Za-z0-9,\s]+?)\s*$")


@dataclass
class Marks:
    """The ignore marks of one file: codes (or prefixes) by directive line, and for the whole file."""

    lines: dict[int, tuple[str, ...]] = field(default_factory=dict)
    file: tuple[str, ...] = ()

    def silences(self, finding: Finding) -> bool:
        codes = self.file + self.lines.get(finding.line, ())
        return any(finding.code.startswith(code) for code in codes)


def marks(configset: ConfigSet) -> dict[str, Marks]:
    """The marks of every file that has any (none: an empty dict, without walking the trees)."""
    if not any(PRAGMA in data for data in configset.sources.values()):
        return {}
    found: dict[str, Marks] = {}
    for name, document in configset.documents.items():
        file_marks = Marks()
        pending: list[str] = []
        for node in document.walk():
            if isinstance(node, Comment):
                match = _MARK.match(node.text)
                if match:
                    codes = [c.upper() for c in re.split(r"[\s,]+", match.group(2)) if c]
                    if match.group(1) == "ignore-file":
                        file_marks.file += tuple(codes)
                    else:
                        pending += codes
                continue
            if isinstance(node, Directive) and pending:
                file_marks.lines[node.location.line] = tuple(pending)
            pending = []  # a blank line or a directive ends the marks above it
        if file_marks.lines or file_marks.file:
            found[name] = file_marks
    return found


def split(findings: Iterable[Finding], configset: ConfigSet) -> tuple[list[Finding], list[Finding]]:
    """(the findings to report, those an ignore mark silences)."""
    by_file = marks(configset)
    if not by_file:
        return list(findings), []
    kept: list[Finding] = []
    silenced: list[Finding] = []
    for finding in findings:
        file_marks = by_file.get(finding.file)
        (silenced if file_marks is not None and file_marks.silences(finding) else kept).append(finding)
    return kept, silenced

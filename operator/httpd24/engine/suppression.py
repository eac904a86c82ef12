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


@dataclass(frozen=True)
class Mark:
    """One ``# httpd24: ignore`` comment: its codes (or prefixes), and the directive line it is for
    (None for ``ignore-file``, 0 when no directive follows it directly)."""

    comment: Comment
    codes: tuple[str, ...]
    line: int | None

    def covers(self, finding: Finding) -> bool:
        return (self.line is None or self.line == finding.line) and any(finding.code.startswith(c) for c in self.codes)


@dataclass
class Marks:
    """The ignore marks of one file."""

    marks: list[Mark] = field(default_factory=list)

    def silences(self, finding: Finding) -> bool:
        return any(mark.covers(finding) for mark in self.marks)


def marks(configset: ConfigSet) -> dict[str, Marks]:
    """The marks of every file that has any (none: an empty dict, without walking the trees)."""
    if not any(PRAGMA in data for data in configset.sources.values()):
        return {}
    found: dict[str, Marks] = {}
    for name, document in configset.documents.items():
        file_marks = Marks()
        pending: list[tuple[Comment, tuple[str, ...]]] = []
        for node in document.walk():
            if isinstance(node, Comment):
                match = _MARK.match(node.text)
                if match:
                    codes = tuple(c.upper() for c in re.split(r"[\s,]+", match.group(2)) if c)
                    if match.group(1) == "ignore-file":
                        file_marks.marks.append(Mark(node, codes, None))
                    else:
                        pending.append((node, codes))
                continue
            # a blank line or a directive ends the marks above it; on a blank line they are for no line (0)
            line = node.location.line if isinstance(node, Directive) else 0
            file_marks.marks.extend(Mark(comment, codes, line) for comment, codes in pending)
            pending = []
        file_marks.marks.extend(Mark(comment, codes, 0) for comment, codes in pending)
        if file_marks.marks:
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

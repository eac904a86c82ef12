"""Findings, fixes and their safety levels (modelled on Ruff's diagnostics)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Callable, Sequence

from ..config import Node


class Severity(str, Enum):
    """``error``: 2.4 refuses to start, or access control changes; ``warning``: it starts
    but behaves differently; ``info``: an upgrade step outside the configuration."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Applicability(IntEnum):
    """How far a fix can be trusted, ordered so ``>=`` selects.

    * ``SAFE``: the server behaves the same on 2.4 as the original did on 2.2;
    * ``PRESERVE``: writes out a 2.2 default or behaviour explicitly (for example
      ``|cmd`` -> ``|$cmd`` for piped logs), so the result keeps 2.2's behaviour
      where 2.4 changed a default;
    * ``DISPLAY_ONLY``: shown as a suggestion, never applied automatically.
    """

    DISPLAY_ONLY = 0
    PRESERVE = 1
    SAFE = 2


@dataclass(eq=False)
class Fix:
    """Edits to the tree, applied by calling :meth:`apply`.

    ``nodes`` are the nodes whose text the fix rewrites (a fix that restructures
    a section names the section): two fixes naming the same node are not applied
    in the same pass.
    """

    description: str
    applicability: Applicability
    edit: Callable[[], None]
    nodes: Sequence[Node] = ()

    def apply(self) -> None:
        self.edit()

    def detached(self) -> "Fix":
        """What the fix does, for reports, without the edit and the nodes: they keep a whole tree alive."""
        return self if self.edit is _detached else Fix(self.description, self.applicability, _detached)


def _detached() -> None:
    raise RuntimeError("this fix is detached from its tree (applied, or kept only for a report)")


@dataclass(frozen=True)
class Finding:
    """A rule applied at a location, with a message that names the replacement."""

    code: str
    rule: str
    severity: Severity
    message: str
    file: str
    line: int
    column: int
    replacement: str = ""
    fix: Fix | None = field(default=None, compare=False, hash=False)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def detached(self, file: str | None = None) -> "Finding":
        """The finding without the tree its fix edits (see :meth:`Fix.detached`), in ``file`` if given.

        Built directly, not with ``dataclasses.replace``: a review detaches every finding, and
        replace costs three times as much. A detached finding is its own detached form."""
        if (self.fix is None or self.fix.edit is _detached) and (file is None or file == self.file):
            return self
        return Finding(self.code, self.rule, self.severity, self.message, self.file if file is None else file,
                       self.line, self.column, self.replacement, None if self.fix is None else self.fix.detached())

    @property
    def fixable(self) -> bool:
        return self.fix is not None and self.fix.applicability > Applicability.DISPLAY_ONLY

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "replacement": self.replacement,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "fix": None
            if self.fix is None
            else {"description": self.fix.description, "applicability": self.fix.applicability.name.lower()},
        }

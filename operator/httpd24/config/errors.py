"""The one exception the configuration engine raises."""

from __future__ import annotations


class ParseError(Exception):
    """A configuration httpd would refuse to read, with where and why.

    ``str(error)`` is ``file:line:column: reason``, the shape compilers and
    linters use, so editors and CI logs can jump to it.
    """

    def __init__(self, file: str, line: int, column: int, reason: str) -> None:
        super().__init__(f"{file}:{line}:{column}: {reason}")
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason

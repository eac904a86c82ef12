"""The one exception the configuration engine raises."""

from __future__ import annotations

from typing import Callable


class ParseError(Exception):
    """A configuration httpd would refuse to read, with where and why.

    ``str(error)`` is ``file:line:column: reason``, the shape compilers and
    linters use, so editors and CI logs can jump to it.

    ``names``: files of the set the reason names (an Include chain), written in ``reason`` as
    ``{0}``, ``{1}``...: a ConfigMap's files are named in the set by the directory its keys lie in
    (``conf/httpd.conf``), and its reader shows them as keys (:meth:`shown`). With ``names``, the
    reason is a :meth:`str.format` template: braces of anything else in it are doubled.
    """

    def __init__(self, file: str, line: int, column: int, reason: str, names: tuple[str, ...] = ()) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.names = names
        self.template = reason
        self.reason = reason.format(*names) if names else reason
        super().__init__(f"{file}:{line}:{column}: {self.reason}")

    def shown(self, name: Callable[[str], str]) -> str:
        """The reason, each file it names as ``name`` shows it."""
        return self.template.format(*map(name, self.names)) if self.names else self.reason

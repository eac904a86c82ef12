"""The lossless tree of one configuration file.

Every node owns the exact text of the physical lines it came from (indentation,
quoting, continuations, line endings), so rendering an unchanged tree gives back
the input. Decoded views (``name``, ``key``, ``args``) sit beside the raw text;
edits in :mod:`httpd24.config.edit` rewrite the raw text of the nodes they touch
and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, NamedTuple, Union

#: Text is decoded with this codec so that bytes that are not UTF-8 (latin-1
#: configs exist) survive the round trip unchanged.
ENCODING = "utf-8"
ERRORS = "surrogateescape"


class Location(NamedTuple):
    """Where a node stands in its file: 1-based lines and columns (characters).

    A named tuple rather than a dataclass: one is made per line, and this is the
    parser's hot path.
    """

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Node:
    """Base of every tree node; ``raw`` is the node's own source text."""

    __slots__ = ("parent", "location")

    parent: "Section | Document | None"
    location: Location

    def render_into(self, out: list[str]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def document(self) -> "Document":
        node: object = self
        while not isinstance(node, Document):
            node = node.parent  # type: ignore[attr-defined]
        return node

    @property
    def ancestors(self) -> list["Section"]:
        """Enclosing sections, outermost first."""
        chain: list[Section] = []
        node = self.parent
        while isinstance(node, Section):
            chain.append(node)
            node = node.parent
        chain.reverse()
        return chain


class Blank(Node):
    """One or more physical lines holding only whitespace."""

    __slots__ = ("raw",)

    def __init__(self, raw: str, location: Location) -> None:
        self.raw = raw
        self.location = location
        self.parent = None

    def render_into(self, out: list[str]) -> None:
        out.append(self.raw)

    def __repr__(self) -> str:
        return f"Blank({self.raw!r})"


class Comment(Node):
    """A line whose first non-blank character is ``#`` (with its continuations)."""

    __slots__ = ("raw",)

    def __init__(self, raw: str, location: Location) -> None:
        self.raw = raw
        self.location = location
        self.parent = None

    @property
    def text(self) -> str:
        return self.raw.strip().lstrip("#").strip()

    def render_into(self, out: list[str]) -> None:
        out.append(self.raw)

    def __repr__(self) -> str:
        return f"Comment({self.raw!r})"


#: Names httpd 2.4 knows only as sections (``<Directory /x>``; ``<LuaHook...>`` and ``<MDomain>`` are directives too).
#: To httpd a line ``Directory /x`` is an unknown command, so its key gets :data:`NOT_A_SECTION` in front:
#: nothing that looks sections up by key (``directory``) takes it for one, and rules still see it, by
#: name, as the unknown directive it is. A test in ``tests/rules/test_modules_includes.py`` keeps the
#: list in step with the module table.
SECTION_ONLY_KEYS = frozenset({
    "authnprovideralias", "authzprovideralias", "directory", "directorymatch", "else", "elseif", "files",
    "filesmatch", "if", "ifdefine", "ifdirective", "iffile", "ifmodule", "ifsection", "ifversion", "limit",
    "limitexcept", "location", "locationmatch", "macro", "mdomainset", "proxy", "proxymatch",
    "requireall", "requireany", "requirenone", "virtualhost",
})
NOT_A_SECTION = "not-a-section:"


def _directive_key(name: str, section: bool) -> str:
    key = name.lower()
    return NOT_A_SECTION + key if key in SECTION_ONLY_KEYS and not section else key


class Directive(Node):
    """A directive line: ``Name arg1 "arg 2"``.

    ``raw`` is the whole physical text (indent .. line ending, continuations
    included); ``args`` are the values httpd's tokenizer gives (quotes and
    escapes removed, ``${VAR}`` not yet substituted); ``raw_args`` are the
    arguments as written.
    """

    __slots__ = ("raw", "_name", "key", "args", "raw_args", "indent", "eol", "unterminated_quote")

    def __init__(
        self,
        raw: str,
        name: str,
        args: list[str],
        raw_args: list[str],
        indent: str,
        eol: str,
        location: Location,
        unterminated_quote: bool = False,
    ) -> None:
        self.raw = raw
        self._name = name
        self.key = _directive_key(name, isinstance(self, Section))
        self.args = args
        self.raw_args = raw_args
        self.indent = indent
        self.eol = eol
        self.location = location
        self.unterminated_quote = unterminated_quote
        self.parent = None

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        # ``key`` is what every rule matches on: computed once, not per lookup.
        self._name = value
        self.key = _directive_key(value, isinstance(self, Section))

    def render_into(self, out: list[str]) -> None:
        out.append(self.raw)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.args!r})"


class Section(Directive):
    """A container ``<Name args> ... </Name>``.

    ``raw`` is the opening tag's text; ``close_raw`` the closing tag's text;
    ``raw_body`` holds the untouched body of opaque sections (``<Perl>``,
    ``<Macro>``), whose ``children`` stay empty.
    """

    __slots__ = ("children", "close_raw", "close_location", "raw_body")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.children: list[Node] = []
        self.close_raw = ""
        self.close_location: Location | None = None
        self.raw_body: str | None = None

    def render_into(self, out: list[str]) -> None:
        out.append(self.raw)
        if self.raw_body is not None:
            out.append(self.raw_body)
        else:
            for child in self.children:
                child.render_into(out)
        out.append(self.close_raw)

    def walk(self) -> Iterator[Node]:
        for child in self.children:
            yield child
            if isinstance(child, Section):
                yield from child.walk()


@dataclass(eq=False)
class Document:
    """One parsed file: its nodes plus what belongs to no node (a BOM)."""

    name: str
    children: list[Node] = field(default_factory=list)
    #: A UTF-8 byte order mark, kept so it comes back on render.
    header: str = ""
    #: The line ending most used in the file; new lines get it.
    newline: str = "\n"
    #: The indentation step, once :func:`httpd24.config.edit.indent_unit` has looked for it (a walk of
    #: the whole file when no section body is indented: once per edit was quadratic).
    indent_step: str | None = field(default=None, repr=False)

    def render(self) -> bytes:
        return self.render_text().encode(ENCODING, ERRORS)

    def render_text(self) -> str:
        out: list[str] = [self.header]
        for child in self.children:
            child.render_into(out)
        return "".join(out)

    def walk(self) -> Iterator[Node]:
        """Every node, depth first, in document order."""
        for child in self.children:
            yield child
            if isinstance(child, Section):
                yield from child.walk()

    def dispose(self) -> None:
        """Break the tree's cycles (every node's ``parent``) so reference counting frees it at once.

        For long runs with the collector paused (``migrate`` re-parses each pass); the tree is
        unusable afterwards.
        """
        for node in self.walk():
            node.parent = None

    def directives(self) -> Iterator[Directive]:
        """Every directive and section, depth first, in document order."""
        for node in self.walk():
            if isinstance(node, Directive):
                yield node


Parent = Union[Section, Document]

"""A parser that reads configuration text the way httpd's own reader does.

The rules, from httpd's ``server/util.c`` and ``server/config.c`` (research notes
§3.7):

* physical lines end at ``\\n``; a line whose last character before ``\\n`` (or
  ``\\r\\n``) is a backslash is joined with the next one *before* tokenizing, the
  backslash and the line break removed, so a comment can continue onto the next
  line and a word can be split;
* the joined line is trimmed; if it is empty or starts with ``#`` it is skipped
  (``#`` anywhere else is data);
* words are separated by whitespace; a word that starts with ``"`` or ``'`` runs
  to the matching quote, ``\\"``, ``\\'`` and ``\\\\`` being escapes inside it
  (outside quotes only ``\\\\`` is); an unterminated quote runs to the end of the
  line, as httpd reads it;
* directive and section names are case-insensitive; ``<Name args>`` opens a
  section whose arguments end at the last ``>``; ``</Name>`` closes the
  innermost one, in any case.

The parser never raises anything but :class:`ParseError`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import ParseError
from .gcpause import gc_paused
from .nodes import ENCODING, ERRORS, Blank, Comment, Directive, Document, Location, Node, Section

#: apr_isspace in the C locale.
WHITESPACE = " \t\n\r\f\v"

#: Sections whose body is not configuration but code for another interpreter.
OPAQUE_SECTIONS = frozenset({"perl", "macro"})

_TOKEN = re.compile(
    r"""[ \t\n\r\f\v]*(?:
        "((?:[^"\\]++|\\.)*+\\?)("?)      # double-quoted (possessive: no backtracking)
      | '((?:[^'\\]++|\\.)*+\\?)('?)      # single-quoted
      | ([^ \t\n\r\f\v]+)               # bare word
    )""",
    re.S | re.X,
)
_DQ_ESCAPE = re.compile(r'\\([\\"])')
#: Lines without these characters tokenize like str.split(): no quotes, no escapes,
#: no character that str.split() takes for whitespace but httpd does not.
_NEEDS_TOKENIZER = re.compile("[\"'\\\\\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_SQ_ESCAPE = re.compile(r"\\([\\'])")


def decode(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    return data.decode(ENCODING, ERRORS)


def tokenize(text: str) -> tuple[list[str], list[str], bool]:
    """Split an argument string into (values, raw words, has unterminated quote).

    This is ``ap_getword_conf`` applied until the line is used up.
    """
    if _NEEDS_TOKENIZER.search(text) is None:
        words = text.split()
        return words, words[:], False
    values: list[str] = []
    raws: list[str] = []
    unterminated = False
    pos = 0
    end = len(text)
    match = _TOKEN.match
    while pos < end:
        m = match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        dq, dq_close, sq, sq_close, bare = m.groups()
        if dq is not None:
            values.append(_DQ_ESCAPE.sub(r"\1", dq) if "\\" in dq else dq)
            unterminated = unterminated or not dq_close
        elif sq is not None:
            values.append(_SQ_ESCAPE.sub(r"\1", sq) if "\\" in sq else sq)
            unterminated = unterminated or not sq_close
        elif bare is not None:
            values.append(bare.replace("\\\\", "\\") if "\\\\" in bare else bare)
        else:  # pragma: no cover - the pattern always matches one branch
            break
        raws.append(m.group(0).lstrip(WHITESPACE))
        pos = m.end()
    return values, raws, unterminated


class _Line(NamedTuple):
    """One logical line: the physical lines it spans and their joined content."""

    raw: str
    content: str
    first: int
    last: int
    last_len: int
    eol: str


def _logical_lines(text: str):
    """Yield the logical lines of ``text``; every character belongs to exactly one."""
    physical = text.split("\n")
    count = len(physical)
    # The element after the final "\n" is "" when the file ends with a newline.
    last_index = count - 1
    i = 0
    while i < count:
        line = physical[i]
        if i == last_index:
            if line == "":
                return
            eol = ""
            body = line
        elif line.endswith("\r"):
            eol = "\r\n"
            body = line[:-1]
        else:
            eol = "\n"
            body = line
        first = i
        if not (eol and body.endswith("\\")):
            yield _Line(line + "\n" if eol else line, body, first + 1, first + 1, len(body), eol)
            i += 1
            continue
        raw_parts = [line + "\n"]
        content_parts = [body[:-1]]
        i += 1
        while True:
            if i >= count or (i == last_index and physical[i] == ""):
                # A continuation at the very end of the file: nothing to join.
                # httpd reads an empty rest; keep the backslash out of the content.
                yield _Line("".join(raw_parts), "".join(content_parts), first + 1, i, len(body), eol)
                break
            line = physical[i]
            if i == last_index:
                eol, body = "", line
            elif line.endswith("\r"):
                eol, body = "\r\n", line[:-1]
            else:
                eol, body = "\n", line
            raw_parts.append(line + "\n" if eol else line)
            i += 1
            if eol and body.endswith("\\"):
                content_parts.append(body[:-1])
                continue
            content_parts.append(body)
            yield _Line("".join(raw_parts), "".join(content_parts), first + 1, i, len(body), eol)
            break


def _indent_of(raw: str) -> str:
    return raw[: len(raw) - len(raw.lstrip(" \t"))]


def parse(data: bytes | str, name: str = "<string>") -> Document:
    """Parse one configuration file into a lossless :class:`Document`.

    ``Document.render()`` of the result gives back ``data`` byte for byte.
    Raises :class:`ParseError` (with file, line and column) for an unterminated
    or mismatched section.
    """
    with gc_paused():
        return _parse(data, name)


def _parse(data: bytes | str, name: str) -> Document:
    text = decode(data)
    doc = Document(name=name)
    if text.startswith("\ufeff"):
        doc.header, text = "\ufeff", text[1:]
    crlf = text.count("\r\n")
    if crlf and crlf * 2 >= text.count("\n"):
        doc.newline = "\r\n"

    stack: list[tuple[Section, list[Node]]] = []
    children = doc.children
    parent: Section | Document = doc
    lines = _logical_lines(text)
    for line in lines:
        content = line.content
        lstripped = content.lstrip(WHITESPACE)
        stripped = lstripped.rstrip(WHITESPACE)
        column = len(content) - len(lstripped) + 1
        location = Location(name, line.first, column, line.last, line.last_len + 1)
        if not stripped:
            node: Node = Blank(line.raw, location)
        elif stripped[0] == "#":
            node = Comment(line.raw, location)
        elif stripped[0] == "<":
            if stripped.startswith("</"):
                _close(stack, stripped, line, location, name)
                section, children = stack.pop()
                parent = stack[-1][0] if stack else doc
                continue
            node = _open_section(stripped, line, location, name)
            node.parent = parent
            children.append(node)
            if node.key in OPAQUE_SECTIONS:
                _read_opaque_body(node, lines, name)
                continue
            stack.append((node, children))
            parent, children = node, node.children
            continue
        else:
            values, raws, unterminated = tokenize(stripped)
            indent = content[: column - 1]
            if indent.strip(" \t"):  # leading \f or \v, or whitespace carried over a continuation
                indent = _indent_of(line.raw)
            node = Directive(line.raw, values[0], values[1:], raws[1:], indent, line.eol, location, unterminated)
        node.parent = parent
        children.append(node)
    if stack:
        section = stack[-1][0]
        raise ParseError(
            name,
            section.location.line,
            section.location.column,
            f"<{section.name}> was not closed; add </{section.name}> where the section ends",
        )
    return doc


def _open_section(stripped: str, line: _Line, location: Location, name: str) -> Section:
    word_end = 1
    while word_end < len(stripped) and stripped[word_end] not in WHITESPACE:
        word_end += 1
    word = stripped[1:word_end]
    rest = stripped[word_end:]
    if word.endswith(">"):
        word, rest = word[:-1], ""
        has_close = True
    else:
        has_close = ">" in rest
        rest = rest[: rest.rfind(">")] if has_close else rest
    if not word:
        raise ParseError(name, location.line, location.column, "'<' without a section name")
    if not has_close:
        raise ParseError(
            name, location.line, location.column, f"<{word} directive missing closing '>'; end the line with '>'"
        )
    values, raws, unterminated = tokenize(rest)
    return Section(line.raw, word, values, raws, _indent_of(line.raw), line.eol, location, unterminated)


def _close(stack: list[tuple[Section, list[Node]]], stripped: str, line: _Line, location: Location, name: str) -> None:
    word_end = 2
    while word_end < len(stripped) and stripped[word_end] not in WHITESPACE:
        word_end += 1
    word = stripped[2:word_end]
    if not word.endswith(">"):
        raise ParseError(name, location.line, location.column, f"</{word} directive missing closing '>'")
    word = word[:-1]
    if not stack:
        raise ParseError(
            name, location.line, location.column, f"</{word}> without matching <{word}> section; remove it"
        )
    section = stack[-1][0]
    if word.lower() != section.key:
        raise ParseError(
            name,
            location.line,
            location.column,
            f"expected </{section.name}> (opened at line {section.location.line}) but saw </{word}>",
        )
    section.close_raw = line.raw
    section.close_location = location


def _read_opaque_body(section: Section, lines, name: str) -> None:
    """Keep the body of ``<Perl>``-like sections as text, up to the matching close tag."""
    depth = 0
    body: list[str] = []
    for line in lines:
        stripped = line.content.strip(WHITESPACE)
        lowered = stripped.lower()
        if lowered.startswith("</" + section.key) and lowered[2 + len(section.key) :][:1] in (">", ""):
            if depth == 0:
                section.raw_body = "".join(body)
                section.close_raw = line.raw
                column = len(line.content) - len(line.content.lstrip(WHITESPACE)) + 1
                section.close_location = Location(name, line.first, column, line.last, line.last_len + 1)
                return
            depth -= 1
        elif lowered.startswith("<" + section.key) and lowered[1 + len(section.key) :][:1] in (">", " ", "\t", ""):
            depth += 1
        body.append(line.raw)
    raise ParseError(
        name,
        section.location.line,
        section.location.column,
        f"<{section.name}> was not closed; add </{section.name}> where the section ends",
    )

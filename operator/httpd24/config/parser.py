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

#: How deep sections may nest, counting those around an Include. httpd has no limit; the engine's walks
#: recurse once per level, and no configuration needs more than a handful (the deepest in the corpus: 9).
MAX_SECTION_DEPTH = 128

#: One word as ap_getword_conf reads it, after the whitespace before it (group 1: the word as written).
TOKEN = re.compile(
    r"""[ \t\n\r\f\v]*((?:
        "((?:[^"\\]++|\\.)*+\\?)("?)      # double-quoted (possessive: no backtracking)
      | '((?:[^'\\]++|\\.)*+\\?)('?)      # single-quoted
      | ([^ \t\n\r\f\v]+)               # bare word
    ))""",
    re.S | re.X,
)
_WORDS = TOKEN.findall
_DQ_ESCAPE = re.compile(r'\\([\\"])')
#: Lines without these characters tokenize like str.split(): no quotes, no escapes,
#: no character that str.split() takes for whitespace but httpd does not.
_NEEDS_TOKENIZER = re.compile("[\"'\\\\\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_SQ_ESCAPE = re.compile(r"\\([\\'])")
#: Where a section's name ends: the first whitespace character (or the end of the line).
_WORD_END = re.compile("[^" + re.escape(WHITESPACE) + "]*").match


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
    # One findall, in C, for the whole line. The pattern cannot match empty and matches at any
    # position that is not followed by whitespace only, so the words are contiguous, as httpd
    # reads them. Unmatched groups are "", so the first character tells which branch matched.
    for raw, dq, dq_close, sq, sq_close, bare in _WORDS(text):
        first = raw[0]
        if first == '"':
            values.append(_DQ_ESCAPE.sub(r"\1", dq) if "\\" in dq else dq)
            if not dq_close:
                unterminated = True
        elif first == "'":
            values.append(_SQ_ESCAPE.sub(r"\1", sq) if "\\" in sq else sq)
            if not sq_close:
                unterminated = True
        else:
            values.append(bare.replace("\\\\", "\\") if "\\\\" in bare else bare)
        raws.append(raw)
    return values, raws, unterminated


class _Line(NamedTuple):
    """One logical line: the physical lines it spans and their joined content.

    ``last`` is 1-based, so it is also the index of the physical line after this one.
    """

    raw: str
    content: str
    first: int
    last: int
    last_len: int
    eol: str


def _line_at(physical: list[str], i: int) -> _Line | None:
    """The logical line that starts at physical line ``i`` of ``text.split("\\n")``; None at the end."""
    last_index = len(physical) - 1
    if i > last_index:
        return None
    line = physical[i]
    if i == last_index:
        # The element after the final "\n" is "" when the file ends with a newline.
        if line == "":
            return None
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
        return _Line(line + "\n" if eol else line, body, first + 1, first + 1, len(body), eol)
    raw_parts = [line + "\n"]
    content_parts = [body[:-1]]
    i += 1
    while True:
        if i > last_index or (i == last_index and physical[i] == ""):
            # A continuation at the very end of the file: nothing to join.
            # httpd reads an empty rest; keep the backslash out of the content.
            return _Line("".join(raw_parts), "".join(content_parts), first + 1, i, len(body), eol)
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
        return _Line("".join(raw_parts), "".join(content_parts), first + 1, i, len(body), eol)


def _logical_lines(text: str):
    """Yield the logical lines of ``text``; every character belongs to exactly one."""
    physical = text.split("\n")
    i = 0
    while (line := _line_at(physical, i)) is not None:
        yield line
        i = line.last


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

    # The hot loop: one pass over the physical lines. A line that ends in a backslash (a
    # continuation) is joined by _line_at, which is also the reference for this fast path.
    stack: list[tuple[Section, list[Node]]] = []
    children = doc.children
    parent: Section | Document = doc
    physical = text.split("\n")
    last_index = len(physical) - 1
    new_location = tuple.__new__  # Location(...) without the named tuple's Python-level __new__
    needs_tokenizer = _NEEDS_TOKENIZER.search
    has_cr = "\r" in text
    has_continuation = "\\\n" in text or "\\\r\n" in text
    i = 0
    while i <= last_index:
        line = physical[i]
        if i == last_index:
            if not line:
                break
            eol = ""
            content = line
        elif has_cr and line.endswith("\r"):
            eol = "\r\n"
            content = line[:-1]
        else:
            eol = "\n"
            content = line
        if has_continuation and eol and content.endswith("\\"):
            logical = _line_at(physical, i)
            assert logical is not None
            raw, content, first, last, last_len, eol = logical
            i = last
        else:
            i += 1
            raw = line + "\n" if eol else line
            first = last = i
            last_len = len(content)
        lstripped = content.lstrip(WHITESPACE)
        column = len(content) - len(lstripped) + 1
        location = new_location(Location, (name, first, column, last, last_len + 1))
        if not lstripped:
            node: Node = Blank(raw, location)
        elif lstripped[0] == "#":
            node = Comment(raw, location)
        elif lstripped[0] == "<":
            stripped = lstripped.rstrip(WHITESPACE)
            if stripped.startswith("</"):
                _close(stack, stripped, raw, location, name)
                section, children = stack.pop()
                parent = stack[-1][0] if stack else doc
                continue
            node = _open_section(stripped, raw, eol, location, name)
            if len(stack) == MAX_SECTION_DEPTH:
                raise too_deep(node)
            node.parent = parent
            children.append(node)
            if node.key in OPAQUE_SECTIONS:
                i = _read_opaque_body(node, physical, i, name)
                continue
            stack.append((node, children))
            parent, children = node, node.children
            continue
        else:
            stripped = lstripped.rstrip(WHITESPACE)
            if needs_tokenizer(stripped) is None:  # tokenize()'s own fast path, without its copy
                words = stripped.split()
                values, raws, unterminated = words, words, False
            else:
                values, raws, unterminated = tokenize(stripped)
            indent = content[: column - 1]
            if indent.strip(" \t"):  # leading \f or \v, or whitespace carried over a continuation
                indent = _indent_of(raw)
            node = Directive(raw, values[0], values[1:], raws[1:], indent, eol, location, unterminated)
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


def too_deep(section: Section, include: Location | None = None) -> ParseError:
    """The error for a section nested more than :data:`MAX_SECTION_DEPTH` deep (``include``: the Include
    through which the sections around it count)."""
    name = section.name
    around, names = "", ()
    if include is not None:  # the reason is a template: braces of the section's name are doubled
        name = name.replace("{", "{{").replace("}", "}}")
        around, names = f", counting the sections around the Include at {{0}}:{include.line}", (include.file,)
    return ParseError(
        section.location.file,
        section.location.line,
        section.location.column,
        f"<{name}> is nested more than {MAX_SECTION_DEPTH} deep{around}; httpd24 reads sections "
        f"{MAX_SECTION_DEPTH} levels deep at most: flatten the nesting (merge the conditions)",
        names,
    )


def _open_section(stripped: str, raw: str, eol: str, location: Location, name: str) -> Section:
    word_end = _WORD_END(stripped, 1).end()
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
    return Section(raw, word, values, raws, _indent_of(raw), eol, location, unterminated)


def _close(stack: list[tuple[Section, list[Node]]], stripped: str, raw: str, location: Location, name: str) -> None:
    word_end = _WORD_END(stripped, 2).end()
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
    section.close_raw = raw
    section.close_location = location


def _read_opaque_body(section: Section, physical: list[str], i: int, name: str) -> int:
    """Keep the body of ``<Perl>``-like sections as text, up to the matching close tag.

    Reads logical lines from physical line ``i``; returns the index of the line after the close tag.
    """
    depth = 0
    body: list[str] = []
    while (line := _line_at(physical, i)) is not None:
        i = line.last
        stripped = line.content.strip(WHITESPACE)
        lowered = stripped.lower()
        if lowered.startswith("</" + section.key) and lowered[2 + len(section.key) :][:1] in (">", ""):
            if depth == 0:
                section.raw_body = "".join(body)
                section.close_raw = line.raw
                column = len(line.content) - len(line.content.lstrip(WHITESPACE)) + 1
                section.close_location = Location(name, line.first, column, line.last, line.last_len + 1)
                return i
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

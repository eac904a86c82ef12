"""Edits for fixes: each one rewrites the nodes it touches and no other byte.

New lines take their indentation from their neighbours and the file's own line
ending. Locations of edited and inserted nodes are not recomputed: the fix loop
re-parses the rendered text before it looks at locations again.
"""

from __future__ import annotations

import difflib
import re
from typing import Iterable, Sequence

from .nodes import Blank, Comment, Directive, Document, Node, Section
from .parser import TOKEN, WHITESPACE, parse, tokenize

_SPECIAL_START = ('"', "'")


#: A character of WHITESPACE: such a value needs quotes.
_SPACE = re.compile("[" + re.escape(WHITESPACE) + "]")


def quote(value: str) -> str:
    """Write ``value`` so that httpd's tokenizer reads it back unchanged.

    A value that ends in a backslash is quoted too: written bare as the last word of a line, its
    backslash would join the next line to it (a continuation)."""
    if (
        value
        and _SPACE.search(value) is None
        and not value.startswith(_SPECIAL_START)
        and "\\\\" not in value
        and not value.endswith("\\")
        and not (value.startswith("<") or value.endswith(">"))
    ):
        return value
    return _quoted(value, '"')


def _quoted(value: str, mark: str) -> str:
    """``value`` between ``mark`` quotes, escaped as ``ap_getword_conf`` unescapes it."""
    out = [mark]
    for i, char in enumerate(value):
        if char == mark:
            out.append("\\" + mark)
        elif char == "\\" and (i + 1 == len(value) or value[i + 1] in mark + "\\"):
            out.append("\\\\")
        else:
            out.append(char)
    out.append(mark)
    return "".join(out)


def _quoted_like(value: str, word: str) -> str:
    """``value`` in the quotes ``word`` was written with, if any."""
    return _quoted(value, word[0]) if word.startswith(_SPECIAL_START) else quote(value)


def _container(node: Node) -> list[Node]:
    parent = node.parent
    if parent is None:
        raise ValueError(f"{node!r} is not attached to a document")
    return parent.children


def _newline(node: Node) -> str:
    try:
        return node.document.newline
    except AttributeError:  # detached
        return "\n"


def set_args(node: Directive, values: Sequence[str]) -> None:
    """Replace the arguments, and only them, as tomlkit replaces a value.

    The name as written, the indentation, the spacing between the words and after them stay;
    a word whose value is unchanged keeps its spelling, a replaced word keeps the quotes it had.
    A line continued with a backslash is written anew on one line (its words cannot be
    placed back across the break)."""
    values = list(values)
    if values == node.args and not node.unterminated_quote:
        return  # nothing to change: keep the line exactly as written
    cut = _cut(node)
    if cut is None:
        _write(node, values)
        return
    head, seps, words, tail = cut
    # A quote left open runs to the end of the line: it stays as written only while its word stays last.
    open_quote = len(words) - 1 if node.unterminated_quote else None
    placed: list[tuple[int | None, str]] = []
    opcodes = difflib.SequenceMatcher(None, node.args, values, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        for k, value in enumerate(values[j1:j2]):
            old = i1 + k if tag in ("equal", "replace") and i1 + k < i2 else None
            if old is None:
                placed.append((None, quote(value)))
            elif tag == "equal" and (old != open_quote or j1 + k == len(values) - 1):
                placed.append((old, words[old]))
            else:
                placed.append((old, _quoted_like(value, words[old])))
    if placed and placed[-1][1].endswith("\\") and not placed[-1][1].startswith(_SPECIAL_START) \
            and not tail.startswith((" ", "\t")):
        # A bare word ending in a backslash, last on the line: it would join the next line to this one.
        placed[-1] = (placed[-1][0], _quoted(values[-1], '"'))
    text = []
    for n, (old, word) in enumerate(placed):
        # The first word takes the spacing after the name; a word moved to the front gets one space.
        text.append((seps[0] if seps else " ") if n == 0 else (seps[old] if old else " "))
        text.append(word)
    node.raw = head + "".join(text) + tail
    node.args = values
    _, node.raw_args, node.unterminated_quote = tokenize("".join(text))


def _cut(node: Directive) -> tuple[str, list[str], list[str], str] | None:
    """The line around its words: (text before the first, the whitespace before each, the words,
    text after the last); None when the line is continued or its name is not written as is."""
    raw, eol = node.raw, node.eol
    body = raw[: len(raw) - len(eol)]
    if "\n" in body:
        return None
    lead = node.indent + ("<" if isinstance(node, Section) else "") + node.name
    if not body.startswith(lead):
        return None
    start = len(lead)
    end = body.rfind(">") if isinstance(node, Section) else len(body.rstrip(WHITESPACE))
    if end < start:
        return None
    region = body[start:end]
    seps, words, pos = [], [], 0
    for match in TOKEN.finditer(region):
        seps.append(region[pos : match.start(1)])
        words.append(match.group(1))
        pos = match.end()
    if words != node.raw_args:
        return None
    return body[:start], seps, words, region[pos:] + body[end:] + eol


def _write(node: Directive, values: list[str]) -> None:
    """Write the line anew from the name and ``values`` (unchanged values keep their spelling)."""
    old_values, old_raws = node.args, node.raw_args
    words = [
        old_raws[i] if i < len(old_values) and old_values[i] == value and i < len(old_raws) else quote(value)
        for i, value in enumerate(values)
    ]
    if words and words[-1].endswith("\\") and not words[-1].startswith(_SPECIAL_START):
        words[-1] = _quoted(values[-1], '"')  # bare, last on the line, it would continue the line
    text = " ".join(words)
    if isinstance(node, Section):
        node.raw = f"{node.indent}<{node.name}{' ' + text if text else ''}>{node.eol}"
    else:
        node.raw = f"{node.indent}{node.name}{' ' + text if text else ''}{node.eol}"
    node.args = values
    node.raw_args = tokenize(text)[1]


def rename(node: Directive, new_name: str) -> None:
    """Rename a directive or section (its closing tag too), keeping its arguments as written."""
    old = node.name
    body = node.raw[len(node.indent) :]
    prefix = "<" if isinstance(node, Section) else ""
    if body.startswith(prefix + old):
        node.raw = node.indent + prefix + new_name + body[len(prefix + old) :]
    else:  # the name was quoted or split by a continuation: write the line anew
        node.name = new_name
        _write(node, node.args)
    node.name = new_name
    if isinstance(node, Section) and node.close_raw:
        close_indent = node.close_raw[: len(node.close_raw) - len(node.close_raw.lstrip(" \t"))]
        rest = node.close_raw[len(close_indent) :]
        end = rest.find(">")
        node.close_raw = f"{close_indent}</{new_name}{rest[end:]}" if end >= 0 else f"{close_indent}</{new_name}>{node.eol}"


def comments_above(node: Node) -> list[Comment]:
    """The comment lines right above ``node``, no blank line between: the block that speaks of it
    (LibCST's leading lines), which must go where the line goes."""
    siblings = _container(node)
    start = end = siblings.index(node)
    while start > 0 and isinstance(siblings[start - 1], Comment):
        start -= 1
    return siblings[start:end]  # type: ignore[return-value]


def remove(node: Node) -> None:
    """Remove a node together with its line(s); a section goes with its body."""
    siblings = _container(node)
    index = siblings.index(node)
    ended_file = index == len(siblings) - 1 and not _raw_of(node).endswith("\n")
    del siblings[index]
    if ended_file and index > 0:
        # The file ended without a newline; the new last line must not gain one.
        _strip_final_newline(siblings[index - 1])
    node.parent = None


def _raw_of(node: Node) -> str:
    if isinstance(node, Section):
        return node.close_raw
    return node.raw  # type: ignore[attr-defined]


def _strip_final_newline(node: Node) -> None:
    if isinstance(node, Section):
        node.close_raw = node.close_raw.rstrip("\r\n")
    elif isinstance(node, Directive):
        node.raw = node.raw.rstrip("\r\n")
        node.eol = ""
    elif isinstance(node, (Comment, Blank)):
        node.raw = node.raw.rstrip("\r\n")


def _ensure_final_newline(node: Node, newline: str) -> None:
    if isinstance(node, Section):
        if not node.close_raw.endswith("\n"):
            node.close_raw += newline
    elif isinstance(node, Directive):
        if not node.raw.endswith("\n"):
            node.raw += newline
            node.eol = newline
    elif isinstance(node, (Comment, Blank)):
        if not node.raw.endswith("\n"):
            node.raw += newline


def _indent_for(anchor: Node) -> str:
    if isinstance(anchor, Directive):
        return anchor.indent
    raw = getattr(anchor, "raw", "")
    if raw.strip():
        return raw[: len(raw) - len(raw.lstrip(" \t"))]
    for sibling in _container(anchor):
        if isinstance(sibling, Directive):
            return sibling.indent
    parent = anchor.parent
    if isinstance(parent, Section):
        return parent.indent + indent_unit(parent.document)
    return ""


def indent_unit(doc: Document) -> str:
    """The indentation step the file uses (a section's body against its tag), or four spaces.

    Found once per document: the edits indent what they write by it, so it does not change."""
    if doc.indent_step is None:
        doc.indent_step = _find_indent_unit(doc)
    return doc.indent_step


def _find_indent_unit(doc: Document) -> str:
    for node in doc.walk():
        if isinstance(node, Section):
            for child in node.children:
                if isinstance(child, Directive) and child.indent.startswith(node.indent):
                    step = child.indent[len(node.indent) :]
                    if step:
                        return step
    return "    "


def fragment(text: str, indent: str, newline: str) -> list[Node]:
    """Parse ``text`` (lines without indentation) into nodes indented by ``indent``."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    source = "".join(f"{indent}{line}{newline}" if line.strip() else newline for line in lines)
    doc = parse(source, "<fix>")
    return doc.children


def _insert(anchor: Node, text: str, offset: int) -> list[Node]:
    siblings = _container(anchor)
    index = siblings.index(anchor) + offset
    newline = _newline(anchor)
    nodes = fragment(text, _indent_for(anchor), newline)
    if offset == 1 and index == len(siblings) and not _raw_of(anchor).endswith("\n"):
        # Appending after a last line that has no newline: it gets one, the new last line does not.
        _ensure_final_newline(anchor, newline)
        if nodes:
            _strip_final_newline(nodes[-1])
    for node in nodes:
        node.parent = anchor.parent
    siblings[index:index] = nodes
    return nodes


def insert_before(anchor: Node, text: str) -> list[Node]:
    """Insert the lines of ``text`` before ``anchor``, indented like it."""
    return _insert(anchor, text, 0)


def insert_after(anchor: Node, text: str) -> list[Node]:
    """Insert the lines of ``text`` after ``anchor``, indented like it."""
    return _insert(anchor, text, 1)


def replace(node: Node, text: str) -> list[Node]:
    """Replace one node by the lines of ``text`` (several nodes, or none)."""
    nodes = insert_before(node, text) if text.strip() else []
    if nodes and not _raw_of(node).endswith("\n"):
        _strip_final_newline(nodes[-1])
    siblings = _container(node)
    siblings.remove(node)
    node.parent = None
    return nodes


def append_child(section: Section, text: str) -> list[Node]:
    """Add lines at the end of a section's body, indented like its other children."""
    newline = _newline(section)
    indent = next(
        (c.indent for c in reversed(section.children) if isinstance(c, Directive)),
        section.indent + indent_unit(section.document),
    )
    nodes = fragment(text, indent, newline)
    for node in nodes:
        node.parent = section
    section.children.extend(nodes)
    return nodes


def _reindent(node: Node, extra: str) -> None:
    if isinstance(node, Directive):
        node.raw = extra + node.raw
        node.indent = extra + node.indent
        if isinstance(node, Section):
            if node.close_raw:
                node.close_raw = extra + node.close_raw
            for child in node.children:
                _reindent(child, extra)
    elif isinstance(node, Comment):
        node.raw = extra + node.raw


def wrap(nodes: Iterable[Node], name: str, args: Sequence[str] = ()) -> Section:
    """Wrap contiguous sibling nodes in a new ``<name args>`` section, one level deeper."""
    nodes = list(nodes)
    if not nodes:
        raise ValueError("nothing to wrap")
    siblings = _container(nodes[0])
    start = siblings.index(nodes[0])
    if siblings[start : start + len(nodes)] != nodes:
        raise ValueError("wrap() takes contiguous siblings")
    first = nodes[0]
    parent = first.parent
    indent = _indent_for(first)
    newline = _newline(first)
    unit = indent_unit(first.document)
    head = " ".join(quote(a) for a in args)
    last_has_newline = _raw_of(nodes[-1]).endswith("\n")
    source = f"{indent}<{name}{' ' + head if head else ''}>{newline}{indent}</{name}>{newline}"
    section = parse(source, "<fix>").children[0]
    assert isinstance(section, Section)
    for node in nodes:
        _reindent(node, unit)
        node.parent = section
    if not last_has_newline:
        _ensure_final_newline(nodes[-1], newline)
        section.close_raw = section.close_raw.rstrip("\r\n")
    section.children = nodes
    section.parent = parent
    siblings[start : start + len(nodes)] = [section]
    return section

"""Rewriting ConfigMap values inside a YAML manifest without touching any other byte.

``httpd24 migrate --write`` on a manifest kept in Git must change the migrated
configuration and nothing else: not the comments, the key order, the quoting or
the other objects of the file. A YAML library that loads and dumps the file
would normalise all of those, so the value's own bytes are replaced instead, the
way tomlkit and LibCST edit their documents: the composer gives the span of
each value, and a literal block scalar (``key: |``, the form nearly every
ConfigMap uses for files) is re-emitted with the same header style and indent.
A double-quoted value (and so every value of a JSON manifest, which YAML reads
as flow style) is re-emitted double-quoted, as JSON writes strings.

An anchored value and its aliases are one node, rewritten once when every key
sharing it gets the same text; an anchor or a tag on a value stays. Every edit
is checked: the new manifest must load to the same objects with only the edited
values changed. Anything else (a plain, single-quoted or folded value, text YAML
cannot hold in a block) raises :class:`ManifestEditError` with what to do, or is
left as it was and named, the other values being written.
"""

from __future__ import annotations

import json
import re
from typing import Mapping

import yaml

from .inputs import load_manifest_objects, members

#: Characters a YAML literal block can hold (the printable set of YAML 1.1, tab and line feed).
_UNPRINTABLE = re.compile("[^\x09\x0a\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: A block's header: its properties (an anchor ``&name``, a tag ``!!str``), ``|``, the indicators, a comment.
_HEADER = re.compile(r"^(?P<properties>(?:[&!]\S*\s+)*)\|(?P<indicators>[-+0-9]*)(?P<rest>.*)$")


class ManifestEditError(Exception):
    """A value that cannot be rewritten in place; the message says which and what to do."""


def _object_nodes(path: str, text: str) -> list[yaml.MappingNode]:
    """The nodes of the manifest's objects, numbered as :func:`inputs.load_manifest_objects` numbers them
    (both ask :func:`inputs.members`, and keep the mappings): a List without items before a ConfigMap must
    not shift the index to another object."""
    out: list[yaml.MappingNode] = []
    for doc in yaml.compose_all(text, Loader=yaml.SafeLoader):
        value = yaml.SafeLoader("").construct_document(doc) if doc is not None else None
        listed = members(value, path)
        if len(listed) == 1 and listed[0] is value:
            nodes = [doc]
        else:
            items = doc if isinstance(doc, yaml.SequenceNode) else _get(doc, "items")
            nodes = items.value if isinstance(items, yaml.SequenceNode) else []
            if len(nodes) != len(listed):  # items from a merge key (<<: *list): which node is which is unknown
                raise ManifestEditError(f"{path}:{doc.start_mark.line + 1}: the list's items cannot be found in its "
                                        "text -> write them out under items:, or print the ConfigMap without --write")
        out.extend(node for node, member in zip(nodes, listed) if isinstance(member, dict))
    return out


def _get(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _block(old: str, value: str, where: str, parent: int) -> str:
    """``value`` as a literal block scalar replacing ``old`` (the text of the original one, header included),
    with the same line endings (a CRLF file stays CRLF; YAML reads either as a line break). ``parent``: the
    indentation of the mapping that holds it, which an indentation indicator counts from."""
    eol = "\r\n" if "\r\n" in old else "\n"
    return _lf_block(old.replace("\r\n", "\n"), value, where, parent).replace("\n", eol)


def _lf_block(old: str, value: str, where: str, parent: int) -> str:
    header, _, body = old.partition("\n")
    match = _HEADER.match(header)
    if match is None:
        raise ManifestEditError(f"{where}: the value is not a literal block (key: |) -> write it as one, then run again")
    indicators, rest = match.group("indicators"), match.group("rest")
    opening = match.group("properties") + "|"
    lines = body.split("\n")
    content = [line for line in lines if line.strip()]
    if not content:
        raise ManifestEditError(f"{where}: the value is an empty block -> write the configuration into it, then run again")
    digits = "".join(c for c in indicators if c.isdigit())
    indent = _indent(digits, content, parent)
    # What follows the last content line (blank lines) belongs to the file, not to the value, unless "keep" (|+).
    last = max(i for i, line in enumerate(lines) if line.strip())
    tail = "" if "+" in indicators else "\n".join(lines[last + 1:])
    if _UNPRINTABLE.search(value) or "\r" in value:
        raise ManifestEditError(f"{where}: the migrated text holds characters a YAML block cannot -> print the "
                                f"ConfigMap without --write and apply it with kubectl")
    first = next((line for line in value.split("\n") if line.strip()), None)
    if first is None:
        raise ManifestEditError(f"{where}: the migrated text is blank -> print the ConfigMap without --write")
    leading = value.split("\n")[:value.split("\n").index(first)]
    if (first[:1] == " " or any(leading)) and not digits:
        # YAML would take the first line's spaces for the block's indentation: say where it is.
        if not 1 <= indent - parent <= 9:
            raise ManifestEditError(f"{where}: the migrated text starts with spaces, and the block is indented "
                                    f"too far for an indentation indicator -> print the ConfigMap without --write")
        digits = str(indent - parent)
        indicators = digits + indicators
    stripped = value.rstrip("\n")
    trailing = len(value) - len(stripped)
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    blank = trailing - 1
    if chomp == "+":  # "keep" makes the blank lines after the block, the file's too, part of the value
        blank -= tail.count("\n")
        if blank < 0:
            raise ManifestEditError(f"{where}: the migrated text ends in fewer blank lines than follow the block -> "
                                    f"print the ConfigMap without --write")
    text_lines = stripped.split("\n") + [""] * max(blank, 0)
    new_body = "\n".join((" " * indent + line) if line else "" for line in text_lines)
    if trailing == 0 and not old.endswith("\n"):
        # The file ended inside the block, without a line break: still so.
        return f"{opening}{indicators}{rest}\n{new_body}"
    return f"{opening}{digits}{chomp}{rest}\n{new_body}\n{tail}"


def _indent(digits: str, content: list[str], parent: int) -> int:
    """A literal block's indentation: with an indicator (`|2`, as kubectl writes a value whose first line is
    indented) the parent's plus it, not the first line's."""
    return parent + int(digits) if digits else len(content[0]) - len(content[0].lstrip(" "))


def value_positions(path: str, text: str, index: int) -> dict[str, tuple[str, int, int, bool]]:
    """Where each value of the ``index``-th object is in ``text``, for reports on the manifest's own lines:
    key -> (``data`` or ``binaryData``, line, column of the value's first character, 1-based; whether the
    value's lines and columns map one to one onto the file's). Only a literal block (``key: |``) does: its
    line n is the file's line + n - 1, shifted by the block's indentation. Any other value (quoted, folded,
    base64) is found at its first character. A manifest that cannot be composed has none."""
    try:
        nodes = _object_nodes(path, text)
    except (yaml.YAMLError, ManifestEditError):
        return {}
    if index >= len(nodes):
        return {}
    found: dict[str, tuple[str, int, int, bool]] = {}
    for field in ("data", "binaryData"):
        mapping = _get(nodes[index], field)
        for key, node in mapping.value if isinstance(mapping, yaml.MappingNode) else ():
            line, column = node.start_mark.line + 1, node.start_mark.column + 1
            found[str(key.value)] = (field, line, column, False)
            if not (isinstance(node, yaml.ScalarNode) and node.style == "|"):
                continue
            header, _, body = text[node.start_mark.index:node.end_mark.index].replace("\r\n", "\n").partition("\n")
            match = _HEADER.match(header)
            content = [row for row in body.split("\n") if row.strip()]
            if match and content:
                digits = "".join(c for c in match.group("indicators") if c.isdigit())
                found[str(key.value)] = (field, line + 1, _indent(digits, content, key.start_mark.column) + 1, True)
    return found


#: What a key not being rewritten "gets": never equal to a new text.
_KEPT = object()


def rewrite(path: str, text: str, index: int, values: Mapping[str, str],
            refused: dict[str, str] | None = None) -> str:
    """``text`` (the manifest at ``path``) with ``data`` values of its ``index``-th object replaced by ``values``.

    ``refused``: where each value that cannot be edited in place goes (key -> why), the others being
    replaced, as a fixer writes the fixes it can; without it, the first such value raises. What no value
    can be edited for (the file does not parse, the object has no data mapping) always raises."""
    try:
        nodes = _object_nodes(path, text)
    except yaml.YAMLError as error:
        if path.endswith(".json"):  # JSON that YAML 1.1 does not read (tabs for indentation, say)
            raise ManifestEditError(f"{path}: this JSON cannot be edited in place ({error}) -> print the "
                                    f"ConfigMap without --write") from None
        raise ManifestEditError(f"{path}: not valid YAML ({error})") from None
    if index >= len(nodes) or not isinstance(_get(nodes[index], "data"), yaml.MappingNode):
        raise ManifestEditError(f"{path}: the ConfigMap has no data mapping here -> print it without --write")
    data = _get(nodes[index], "data")
    spans = []
    written: dict[str, str] = {}
    done: set[int] = set()
    for key, value in values.items():
        node = _get(data, key)  # type: ignore[arg-type]
        # An anchor and its aliases are one node, edited once for every key that shares it.
        owners = [k for k, v in data.value if v is node]  # type: ignore[union-attr]  # the anchor's key first
        if len(owners) > 1:
            if id(node) in done:
                continue
            done.add(id(node))
        keys = [str(k.value) for k in owners if str(k.value) in values] or [key]
        try:
            spans.append(_span(path, text, node, owners, values, key))
        except ManifestEditError as error:
            if refused is None:
                raise
            refused.update((k, str(error)) for k in keys)
            continue
        written.update((k, values[k]) for k in keys)
    out = text
    for start, end, new in sorted(spans, reverse=True):
        out = out[:start] + new + out[end:]
    _check(path, text, out, index, written)
    return out


def _span(path: str, text: str, node: yaml.Node | None, owners: list, values: Mapping[str, str],
          key: str) -> tuple[int, int, str]:
    """(start, end, new text) of the value of ``key``; ``owners``: the keys whose value ``node`` is."""
    value = values[key]
    where = f"{path}:{(node.start_mark.line + 1) if node else '?'}: data.{key}"
    sharing = sorted(str(k.value) for k in owners)
    # An anchor and its aliases are one node: its one text must be what each of their keys gets.
    if len(sharing) > 1 and any(values.get(k, _KEPT) != value for k in sharing):
        keys = ", ".join("data." + k for k in sharing)
        raise ManifestEditError(f"{path}:{node.start_mark.line + 1}: {keys}: one value (an anchor and its "  # type: ignore[union-attr]
                                f"alias), which would get different texts -> write each out in full, then "
                                f"run again")
    if not isinstance(node, yaml.ScalarNode) or node.style not in ("|", '"'):
        raise ManifestEditError(f"{where}: the value is not a literal block (key: |) -> write it as one "
                                f"(or print the ConfigMap without --write), then run again")
    start, end = node.start_mark.index, node.end_mark.index
    if node.style == '"':
        old = text[start:end]
        return start, end, old[: old.index('"')] + json.dumps(value, ensure_ascii=False)  # an anchor or a tag stays
    return start, end, _block(text[start:end], value, where, owners[0].start_mark.column)


def _check(path: str, before: str, after: str, index: int, values: Mapping[str, str]) -> None:
    """The rewritten manifest loads to the same objects, but for the new values."""
    expected = load_manifest_objects(path, before.encode("utf-8"))
    expected[index] = dict(expected[index], data=dict(expected[index]["data"], **values))
    try:
        got = load_manifest_objects(path, after.encode("utf-8"))
    except Exception as error:  # InputError: not valid YAML any more
        got = [str(error)]
    if got != expected:
        raise ManifestEditError(f"{path}: the rewritten manifest would not hold exactly the migrated values "
                                f"(a bug in httpd24: please report it) -> nothing was written; print the ConfigMap "
                                f"without --write")

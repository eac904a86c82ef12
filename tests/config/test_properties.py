"""Property tests: the parser either round-trips exactly or raises its own located error."""

from __future__ import annotations

import glob

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from httpd24.config import ConfigSet, ParseError, parse

CORPUS = [open(p, "rb").read() for p in sorted(glob.glob("/work/shared/corpus/files/*"))]

names = st.sampled_from(["ServerName", "Options", "RewriteRule", "Allow", "require", "SetEnvIf", "X-Custom"])
bare = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=' \t\r\n"\'\\'), min_size=1, max_size=8)
quoted = st.builds(lambda s, q: q + s.replace("\\", "\\\\").replace(q, "\\" + q) + q, st.text(max_size=8), st.sampled_from(['"', "'"]))
argument = st.one_of(bare, quoted)
space = st.sampled_from([" ", "\t", "  ", " \\\n  ", "\\\r\n\t"])
newline = st.sampled_from(["\n", "\r\n"])


@st.composite
def directive(draw, indent=""):
    args = draw(st.lists(argument, max_size=4))
    text = draw(names) + "".join(draw(space) + a for a in args)
    return indent + text + draw(st.sampled_from(["", " ", "\t"])) + draw(newline)


@st.composite
def block(draw, depth=0):
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["directive", "comment", "blank", "section"] if depth < 3 else ["directive", "comment", "blank"]))
        indent = "    " * depth
        if kind == "directive":
            parts.append(draw(directive(indent)))
        elif kind == "comment":
            parts.append(indent + "#" + draw(st.text(alphabet="abc #\\", max_size=10)).rstrip("\\") + draw(newline))
        elif kind == "blank":
            parts.append(draw(st.sampled_from(["", " ", "\t"])) + draw(newline))
        else:
            name = draw(st.sampled_from(["Directory", "IfModule", "VirtualHost", "Location", "Files"]))
            arg = draw(argument)
            close = draw(st.sampled_from([name, name.upper(), name.lower()]))
            parts.append(f"{indent}<{name} {arg}>{draw(newline)}{draw(block(depth + 1))}{indent}</{close}>{draw(newline)}")
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(text=block(), bom=st.booleans(), final_newline=st.booleans())
def test_generated_configs_round_trip(text, bom, final_newline):
    if not final_newline:
        text = text.rstrip("\r\n")
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass")
    try:
        doc = parse(data, "gen.conf")
    except ParseError as error:
        assert error.file == "gen.conf" and error.line >= 1 and error.column >= 1 and error.reason
        return
    assert doc.render() == data


mutations = st.sampled_from(["cut", "quote", "continuation", "stray_open", "stray_close", "bytes", "swap", "truncate"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    index=st.integers(0, max(len(CORPUS) - 1, 0)),
    ops=st.lists(st.tuples(mutations, st.integers(0, 10**9), st.binary(min_size=1, max_size=6)), min_size=1, max_size=4),
)
def test_mutated_corpus_round_trips_or_fails_cleanly(index, ops):
    data = bytearray(CORPUS[index])
    for op, where, payload in ops:
        pos = where % (len(data) + 1)
        if op == "cut":
            end = data.find(b"\n", pos)
            del data[pos : end + 1 if end >= 0 else len(data)]
        elif op == "quote":
            data[pos:pos] = b'"'
        elif op == "continuation":
            data[pos:pos] = b"\\\n"
        elif op == "stray_open":
            data[pos:pos] = b"\n<Directory /x>\n"
        elif op == "stray_close":
            data[pos:pos] = b"\n</Location>\n"
        elif op == "bytes":
            data[pos:pos] = payload
        elif op == "swap":
            data[pos : pos + len(payload)] = payload
        else:
            del data[pos:]
    data = bytes(data)
    try:
        doc = parse(data, "mutant.conf")
    except ParseError as error:
        assert error.file == "mutant.conf" and error.line >= 1 and error.column >= 1 and error.reason
        return
    assert doc.render() == data
    # The rest of the engine accepts whatever the parser accepts.
    ConfigSet({"mutant.conf": doc}, entry="mutant.conf").view()

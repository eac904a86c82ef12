"""The fast paths taken for large configurations give what the plain code gives.

The parser's inlined line loop and its split() shortcut, the view's live-item list and
the memoized pure functions of the access analysis must not change a byte of output:
these tests pin each against the reference it replaces.
"""

from __future__ import annotations

import random

import pytest

from httpd24.access import expr as X
from httpd24.access.hosts import AddressError, parse_entry
from httpd24.config import DEFAULT_TARGET, ConfigSet, Directive, ParseError, Section, parse, tokenize
from httpd24.config.edit import quote
from httpd24.config.parser import WHITESPACE, _line_at, _logical_lines
from httpd24.config.target import Liveness
from httpd24.engine.context import Context

PIECES = [
    "Directive", "arg", '"quoted arg"', "'sq'", "\\", "\\\\", "#", "<If", "<IfModule x>", "</IfModule>",
    "<Perl>", "</Perl>", "<Macro m>", "</macro>", " ", "\t", "\f", "\v", "\r", "\n", "\r\n", "\\\n", "\\\r\n",
    ">", "<", "</", "\xa0", "\u2028", '"', "'", "${X}", "x",
]


def _random_texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))


def _reference_directive(raw: str, content: str) -> tuple[list[str], list[str], bool, str]:
    """What the parser built before its loop was inlined: tokenize() on the stripped content."""
    lstripped = content.lstrip(WHITESPACE)
    values, raws, unterminated = tokenize(lstripped.rstrip(WHITESPACE))
    indent = content[: len(content) - len(lstripped)]
    if indent.strip(" \t"):
        indent = raw[: len(raw) - len(raw.lstrip(" \t"))]
    return values, raws, unterminated, indent


@pytest.mark.parametrize("seed", range(3))
def test_directives_match_the_line_by_line_reference(seed):
    for text in _random_texts(seed, 3000):
        try:
            doc = parse(text, "f")
        except ParseError:
            continue
        assert doc.render_text() == text
        lines = list(_logical_lines(text))
        by_line = {line.first: line for line in lines}
        for node in doc.walk():
            line = by_line[node.location.line]
            assert node.location.end_line == line.last
            assert node.location.end_column == line.last_len + 1
            if type(node) is Directive:
                values, raws, unterminated, indent = _reference_directive(line.raw, line.content)
                assert node.raw == line.raw
                assert [node.name, *node.args] == values
                assert node.raw_args == raws[1:]
                assert node.args is not node.raw_args
                assert node.unterminated_quote == unterminated
                assert node.indent == indent
                assert node.eol == line.eol


def test_line_at_walks_every_character_once():
    for text in _random_texts(7, 2000):
        physical = text.split("\n")
        i, pieces = 0, []
        while (line := _line_at(physical, i)) is not None:
            assert line.last > i
            pieces.append(line.raw)
            i = line.last
        assert "".join(pieces) == text


@pytest.mark.parametrize(
    "text",
    ['"a b" c', "'a' \"b\"", '"unterminated', "'un", '""', "a\\\\b", '"a\\"b"', "  \t x  ", "\xa0x", '"a"b'],
)
def test_tokenize_words_are_contiguous(text):
    values, raws, unterminated = tokenize(text)
    assert len(values) == len(raws)
    position = 0
    for raw in raws:  # in order, separated by whitespace only
        start = text.index(raw, position)
        assert not text[position:start].strip(WHITESPACE)
        position = start + len(raw)
    assert not text[position:].strip(WHITESPACE)
    assert tokenize(" ".join(raws)) == (values, raws, unterminated)


def test_live_items_are_the_view_without_dead_items():
    text = "LoadModule a_module x.so\n<IfModule nope_module>\nA 1\n</IfModule>\n<IfModule a_module>\nB 2\n</IfModule>\n"
    configset = ConfigSet.from_mapping({"httpd.conf": text})
    ctx = Context.build(configset, DEFAULT_TARGET)
    expected = [i for i in ctx.view.items if i.live is not Liveness.DEAD]
    assert list(ctx.live_items()) == expected
    assert list(ctx.live_items()) == expected  # a fresh iterator each call
    built = Context(configset, ctx.view, DEFAULT_TARGET)
    assert list(built.live_items()) == expected


@pytest.mark.parametrize(
    "value", ["", "a", "a b", "a\tb", '"a', "'a", "<a", "a>", "a\\\\b", "a\\", 'a"b', "a\x0bb", "a\xa0b"]
)
def test_quote_matches_the_character_test(value):
    plain = (
        value
        and not any(c in WHITESPACE for c in value)
        and not value.startswith(('"', "'"))
        and "\\\\" not in value
        and not value.endswith("\\")  # bare, it would continue the line
        and not (value.startswith("<") or value.endswith(">"))
    )
    assert (quote(value) == value) == bool(plain)
    assert tokenize(quote(value))[0] == ([value] if value or not plain else [])


def test_memoized_expression_functions_give_the_plain_results():
    leaves = [X.Leaf("ip", ("10.0.0.1", "10.1")), X.Leaf("host", ("a b",)), X.Leaf("env", ("X",), True), X.TRUE]
    trees = [
        X.All((leaves[0], X.AnyOf((leaves[1], leaves[2])))),
        X.AnyOf((X.All((X.TRUE, leaves[2])), leaves[0], leaves[0])),
        X.All((X.AnyOf((leaves[0],), negate=True),)),
    ]
    for _ in range(2):  # the second round is answered from the caches
        for leaf in leaves:
            assert X.leaf_text(leaf) == X._leaf_text.__wrapped__(leaf)
        for tree in trees:
            assert X.simplify(tree) == X._simplify(tree)
            assert X.render(tree) == X._render.__wrapped__(tree, "    ")
            assert X.render(tree, "\t") == X._render.__wrapped__(tree, "\t")


def test_unhashable_expressions_are_not_memoized():
    leaf = X.Leaf("ip", ["10.0.0.1", "10.0.0.2"])  # type: ignore[arg-type]
    assert X.leaf_text(leaf) == "Require ip 10.0.0.1 10.0.0.2"
    assert X.render(X.AnyOf((leaf, X.FALSE))) == "Require ip 10.0.0.1 10.0.0.2"
    assert X.simplify(X.All((leaf,))) == leaf


def test_parse_entry_is_shared_and_errors_are_not_remembered():
    assert parse_entry("10.0.0.0/8") is parse_entry("10.0.0.0/8")
    for _ in range(2):
        with pytest.raises(AddressError):
            parse_entry("10.0.0.0/99")
        with pytest.raises(AddressError):
            parse_entry("a#b")


def test_sections_are_untouched_by_the_split_shortcut():
    doc = parse('<VirtualHost *:80 "x y">\n  A b\n</VirtualHost>\n', "f")
    section = doc.children[0]
    assert isinstance(section, Section)
    assert section.args == ["*:80", "x y"] and section.raw_args == ["*:80", '"x y"']
    assert section.args is not section.raw_args

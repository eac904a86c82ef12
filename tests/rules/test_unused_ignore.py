"""HT002: `# httpd24: ignore=` marks that silence nothing (Ruff's RUF100)."""

from __future__ import annotations

import pytest

from httpd24.engine import lint, migrate
from ruletest import configset

JUDGED = ["HT002", "HT1", "HT4"]


def ht002(text: str, select=JUDGED) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in lint(configset(text), select=select) if f.code == "HT002"]


def fixed(text: str) -> str:
    out = migrate(configset(text), select=JUDGED).files["httpd.conf"].decode()
    assert migrate(configset(out), select=JUDGED).files["httpd.conf"].decode() == out, "not idempotent"
    return out


@pytest.mark.parametrize("text", [
    "# httpd24: ignore=HT101\nMaxClients 5\n",
    "# httpd24: ignore=HT1\nMaxClients 5\n",
    "MaxClients 5\n# httpd24: ignore-file=HT101\n",
    "# httpd24: ignore=HT101\n# and a reason, after the mark\nMaxClients 5\n",
])
def test_a_mark_that_silences_something_is_used(text):
    assert ht002(text) == []


def test_codes_of_rules_that_did_not_run_are_not_judged():
    assert ht002("# httpd24: ignore=HT406\nMaxRequestWorkers 5\n", select=["HT002", "HT1"]) == []


def test_dead_branches_report_no_finding_so_their_marks_are_unused():
    text = "<IfModule !mod_authz_core.c>\n    # httpd24: ignore=HT101\n    MaxClients 5\n</IfModule>\n"
    assert [line for line, _ in ht002(text)] == [2]


def test_each_kind_of_unused_mark_is_found_and_fixed():
    text = (
        "# httpd24: ignore=HT101\n"              # a blank line between: for no directive
        "\n"
        "MaxRequestWorkers 150\n"
        "    # httpd24: ignore=HT101, HT406\n"   # HT406 silences nothing
        "    MaxClients 5\n"
        "# httpd24: ignore-file=HT102\n"         # nothing of HT102 in the file
    )
    assert ht002(text) == [
        (1, "`httpd24: ignore=HT101`: HT101 silences nothing here: no directive follows it directly "
            "(a blank line between?); remove the mark"),
        (4, "`httpd24: ignore=HT101, HT406`: HT406 silences nothing on the next directive; remove it from the mark"),
        (6, "`httpd24: ignore-file=HT102`: HT102 silences nothing in this file; remove the mark"),
    ]
    assert fixed(text) == "\nMaxRequestWorkers 150\n    # httpd24: ignore=HT101\n    MaxClients 5\n"


def test_a_code_that_names_no_rule_is_reported_whatever_ran():
    """A typo (a letter O in HT1O1) silences nothing, and no --select makes it mean something: like
    Ruff's RUF100 for unknown codes, it is reported even when the rule it was meant for did not run."""
    text = "# httpd24: ignore=HT1O1,HT101\nMaxClients 5\n"
    for select in (JUDGED, ["HT002"]):
        assert ht002(text, select) == [
            (1, "`httpd24: ignore=HT1O1,HT101`: HT1O1 names no rule (`httpd24 rules` lists them); remove it from the mark")]
    # no fix: "HT1O1" may be a typo of the code meant, and words that name no rule may be a reason
    assert fixed(text) == text
    assert [c for _, c in ht002("# httpd24: ignore=HT101 legacy\nMaxClients 5\n")] == [
        "`httpd24: ignore=HT101 legacy`: LEGACY names no rule (`httpd24 rules` lists them); remove it from the mark"]

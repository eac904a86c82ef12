"""Every rule's documented example is what the rule does: `httpd24 explain` shows it to people.

The 2.2 example (``## Example``) must be reported by the rule, and fixed by it when the rule has
fixes at all; the 2.4 form (``## Use instead``) must not be reported. HT103 once documented a
removal that it refused for that very example.
"""

from __future__ import annotations

import re

import pytest
from ruletest import configset

from httpd24.engine import all_rules, lint

_BLOCK = re.compile(r"^## (Example|Use instead)\n(?:.*?\n)??```apache\n(.*?)^```", re.M | re.S)


def _examples(rule) -> dict[str, str]:
    return {heading: text for heading, text in _BLOCK.findall(rule.documentation())}


def findings(text: str, code: str):
    """The rule's findings with every rule run: a mark is judged unused only for the codes that ran (HT002)."""
    return [f for f in lint(configset(text)) if f.code == code]


RULES = sorted(all_rules(), key=lambda r: r.code)
#: Examples that need what one file cannot show: HT505 judges the server file by an .htaccess it names.
NEEDS_MORE_FILES = {"HT505"}
#: The others describe their 2.4 form in words: a person writes it.
WITH_2_4_FORM = [rule for rule in RULES if "Use instead" in _examples(rule)]


@pytest.mark.parametrize("rule", [r for r in RULES if r.code not in NEEDS_MORE_FILES], ids=lambda r: r.code)
def test_documented_example_is_reported_and_fixed(rule):
    example = _examples(rule).get("Example")
    assert example, f"{rule.code}: no ```apache block under ## Example"
    found = findings(example, rule.code)
    assert found, f"{rule.code}: its documented example is not reported:\n{example}"
    if rule.fix_availability != "never":
        assert any(f.fix for f in found), f"{rule.code}: documents a fix it does not offer for its own example"


@pytest.mark.parametrize("rule", WITH_2_4_FORM, ids=lambda r: r.code)
def test_documented_2_4_form_is_not_reported(rule):
    instead = _examples(rule)["Use instead"]
    assert findings(instead, rule.code) == [], f"{rule.code}: its documented 2.4 form is reported:\n{instead}"

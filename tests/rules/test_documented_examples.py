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
#: Documented 2.4 forms the rule still reports, left for their owners (each is a doc or rule defect):
#: HT402/HT406 warn that a loaded third-party module's 2.4 build "may" provide the directive, HT404 asks
#: for authz_core_module beside the documented LoadModule lines, HT211 and HT506 report their own advice.
REPORTS_ITS_OWN_2_4_FORM = {"HT211", "HT402", "HT404", "HT406", "HT506"}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_documented_example_is_reported_and_fixed(rule):
    if rule.code in NEEDS_MORE_FILES:
        pytest.skip("the example needs an .htaccess file beside it")
    example = _examples(rule).get("Example")
    assert example, f"{rule.code}: no ```apache block under ## Example"
    found = findings(example, rule.code)
    assert found, f"{rule.code}: its documented example is not reported:\n{example}"
    if rule.fix_availability != "never":
        assert any(f.fix for f in found), f"{rule.code}: documents a fix it does not offer for its own example"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_documented_2_4_form_is_not_reported(rule, request):
    instead = _examples(rule).get("Use instead")
    if not instead:
        pytest.skip("the 2.4 form is described in words (a person writes it)")
    if rule.code in REPORTS_ITS_OWN_2_4_FORM:
        request.applymarker(pytest.mark.xfail(strict=True, reason="known: the rule reports its documented 2.4 form"))
    assert findings(instead, rule.code) == [], f"{rule.code}: its documented 2.4 form is reported:\n{instead}"

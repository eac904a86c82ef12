"""Every rule's documented examples are configurations httpd accepts: `httpd24 explain` shows them to people,
who copy them.

The 2.4 form (``## Use instead``) passes the real ``apache2 -t`` as written, with the modules ``httpd24
modules`` names; the 2.2 example (``## Example``) does once ``httpd24 migrate`` has rewritten it, unless a
finding that needs a person stands at the line apache2 refuses. HT108, HT207, HT218 and HT104 once showed
their directives at the top level, where httpd refuses them (``SSLRequire not allowed here``).
"""

from __future__ import annotations

import re

import pytest
from apache_env import STUBS, neutralise, pki  # noqa: F401
from apache_fixture import httpd  # noqa: F401
from test_documented_examples import RULES, _examples

from httpd24 import api
from httpd24.apache import configtest, run_user
from httpd24.apache.table import modules as standard_modules
from httpd24.config import ConfigSet
from httpd24.engine import Severity
from httpd24.engine.modules import required_modules

pytestmark = pytest.mark.apache

#: The rules whose findings say a module must come from elsewhere (rebuilt for 2.4): not one httpd ships.
THIRD_PARTY = {"HT402", "HT406"}

BLOCKS = [(rule.code, heading) for rule in RULES for heading in _examples(rule)]


def judge(text: str, httpd, pki) -> tuple[bool, int | None, str, list[str]]:  # noqa: F811
    """(whether apache2 -t passes, the line it refuses, its output, the modules named)."""
    names = required_modules(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")).names()
    user, group = run_user()
    runnable, _notes = neutralise(text, user=user, group=group)
    result = configtest({"site.conf": runnable, **STUBS, **pki}, "site.conf", names, httpd=httpd)
    refused = re.search(r"line (\d+) of site\.conf", result.output)
    return result.ok, int(refused.group(1)) if refused else None, result.output, names


@pytest.mark.parametrize(("code", "heading"), BLOCKS, ids=[f"{c}-{h.split()[0]}" for c, h in BLOCKS])
def test_documented_example_passes_apache2_t(code, heading, httpd, pki):  # noqa: F811
    text = _examples(next(r for r in RULES if r.code == code))[heading]
    migration = api.migrate(api.load_mapping({"httpd.conf": text.encode()}, entry="httpd.conf"))
    ok, line, output, names = judge(text if heading == "Use instead" else migration.files["httpd.conf"].decode(),
                                    httpd, pki)
    if ok:
        return
    found = {f.code for f in [*migration.remaining, *migration.applied]}
    if foreign := [name for name in names if name not in standard_modules()]:
        # the 2.4 form of those rules loads the rebuilt module: not one this machine has
        assert found & THIRD_PARTY or code in THIRD_PARTY, f"{code} {heading}: loads {foreign}, not an httpd module"
        return
    people = [f for f in migration.remaining if not f.fixable and f.severity != Severity.INFO and f.line == line]
    assert heading == "Example" and people, f"{code} {heading}: apache2 -t refuses it:\n{text}\n{output}"

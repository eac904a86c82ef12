"""The access-control analysis stays linear in the size of the configuration.

Properties: the indexed search for the sections that may merge before a
section finds exactly what a scan of every section finds (on random nested
configurations, with and without virtual hosts, aliases and wildcards);
linting 4x as many virtual hosts costs at most ~4x (asserted < 8x; the
quadratic search took 16x); and a section that hundreds of others may meet
(a ``<Files>`` under every user directory) is planned from the distinct
contexts, which include every context the subsets of those sections make.
"""

from __future__ import annotations

import random
import time

import pytest

from httpd24 import access
from httpd24.access import build
from httpd24.access import plan as plan_module
from httpd24.access.model import fold
from httpd24.access.plan import _distinct_chains, _predecessors_scan, chains, predecessors
from httpd24.access.worlds import make_plan
from httpd24.apache.differential import random_config
from httpd24.config import ConfigSet
from httpd24.engine import lint, migrate


def _vhosts(rng: random.Random, text: str) -> str:
    """The sections of a random configuration spread over the main server and two virtual hosts."""
    lines = text.splitlines()
    out, blocks, current = [lines[0]], [], []
    for line in lines[1:]:
        current.append(line)
        if line.startswith("</"):
            blocks.append(current)
            current = []
    hosts: dict[int, list[str]] = {0: [], 1: [], 2: []}
    for block in blocks:
        hosts[rng.randrange(3)].extend(block)
    out += hosts[0]
    out += ["Alias /static/ /srv/static/", "<Directory /srv/*/a>", "    Order deny,allow", "    Deny from 10.9", "</Directory>"]
    for n in (1, 2):
        out += ["<VirtualHost *:80>", f"    ServerName h{n}.test", f"    DocumentRoot /srv/www{n if n == 2 else ''}"]
        out += ["    " + line for line in hosts[n]]
        out += ["</VirtualHost>"]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("seed", [1, 7, 11])
def test_index_finds_what_a_scan_finds(seed):
    rng = random.Random(seed)
    checked = 0
    for i in range(150):
        text = random_config(random.Random(f"{seed}:{i}"), max_sections=6)
        if i % 2:
            text = _vhosts(rng, text)
        model = build(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        for scope in model.scopes:
            assert predecessors(scope, model) == _predecessors_scan(scope, model), (i, scope.label, text)
            checked += 1
    assert checked > 500


def _config(hosts: int) -> str:
    parts = ["DocumentRoot /srv/www\n<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n"]
    for n in range(hosts):
        name = f"site{n}.example.com"
        parts.append(
            f"""<VirtualHost *:80>
    ServerName {name}
    DocumentRoot /srv/www/{name}/htdocs
    Alias /static/ /srv/www/{name}/static/
    <Directory "/srv/www/{name}/htdocs">
        Options Indexes FollowSymLinks
        Order allow,deny
        Allow from all
    </Directory>
    <Directory "/srv/www/{name}/private">
        Order deny,allow
        Deny from all
        Allow from 10.{n % 250}.0.0/16 192.168.{n % 250}
        AuthType Basic
        AuthName "Private area"
        AuthUserFile /etc/httpd/passwd
        Require valid-user
        Satisfy Any
    </Directory>
    <Location /server-status-{n}>
        SetHandler server-status
        Order deny,allow
        Deny from all
        Allow from 127.0.0.1
    </Location>
</VirtualHost>
"""
        )
    return "".join(parts)


def _lint_seconds(text: str) -> float:
    configset = ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
    start = time.process_time()
    found = lint(configset, select=["HT5"])
    seconds = time.process_time() - start
    assert len(found) > 0
    return seconds


def test_lint_time_grows_linearly():
    small, large = _config(150), _config(600)
    _lint_seconds(small)  # warm up (imports, caches)
    times_small, times_large = [], []
    for _ in range(3):  # interleaved, best of three: load on the machine hits both sizes alike
        times_small.append(_lint_seconds(small))
        times_large.append(_lint_seconds(large))
    ratio = min(times_large) / max(min(times_small), 1e-3)
    assert ratio < 8, f"4x the virtual hosts took {ratio:.1f}x the time ({min(times_small):.2f}s -> {min(times_large):.2f}s)"


def test_every_section_is_translated_in_a_large_configuration():
    text = _config(300)
    result = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"), select=["HT5"])
    out = result.files["httpd.conf"].decode()
    assert "Order" not in out and "Allow from" not in out and "Satisfy" not in out
    assert out.count("Require all granted") == 300
    assert out.count("Require ip 127.0.0.1") == 300
    assert not [f for f in result.remaining if f.code.startswith("HT5")]


def test_chains_are_computed_once_per_section():
    model = build(ConfigSet.from_mapping({"httpd.conf": _config(3)}, entry="httpd.conf"))
    scope = next(s for s in model.scopes if s.kind == "location")
    assert chains(scope, model) is chains(scope, model)


def _contexts(found, d) -> set:
    return {(fold([*chain, d], "2.2"), fold([*chain, d], "compat"), fold(chain, "2.2"), fold(chain, "compat"),
             any(p.own.has_access for p in chain), any(p.own.has_compat for p in chain)) for chain in found}


@pytest.mark.parametrize("seed", [3, 5])
def test_distinct_chains_hold_every_context_of_the_subsets(seed):
    """What a request meets before and at a section, for every subset of the sections that may meet it,
    is among the contexts of the distinct chains (which may hold more: a context too many is careful)."""
    checked = 0
    for i in range(120):
        text = random_config(random.Random(f"{seed}:{i}"), max_sections=8)
        model = build(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        for d in model.scopes:
            certain, uncertain = predecessors(d, model)
            if not uncertain:
                continue
            every = chains(d, model)
            distinct = _distinct_chains(d, certain, uncertain, model)
            assert distinct is not None and every is not None
            assert _contexts(every, d) <= _contexts(distinct, d), (i, d.label, text)
            checked += 1
    assert checked > 20


def _shared_hosting(users: int, satisfy_any_every: int = 0) -> str:
    text = ("DocumentRoot /srv/www\n<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n"
            "<Files ~ \"^\\.ht\">\n    Order allow,deny\n    Deny from all\n</Files>\n")
    for n in range(users):
        text += f"<Directory /srv/www/u{n}>\n    Order deny,allow\n    Deny from all\n    Allow from 10.0.{n % 250}\n"
        if satisfy_any_every and n % satisfy_any_every == 0:
            text += "    AuthType Basic\n    AuthName u\n    AuthUserFile /etc/p\n    Require valid-user\n    Satisfy Any\n"
        text += "</Directory>\n"
    return text


def test_a_files_section_under_hundreds_of_user_directories_is_translated():
    result = migrate(ConfigSet.from_mapping({"httpd.conf": _shared_hosting(300)}, entry="httpd.conf"), select=["HT5"])
    assert result.remaining == []
    out = result.files["httpd.conf"].decode()
    assert out.count("Require all denied") == 2 and out.count("Require ip 10.0.") == 300


def test_a_files_section_whose_meaning_depends_on_the_directory_names_the_sections_it_depends_on():
    """Under a directory with ``Satisfy Any`` + ``Require valid-user``, 2.2 lets a user read its .htaccess
    (the Files section sets no Satisfy): no single 2.4 form, and the message says which sections matter."""
    result = migrate(ConfigSet.from_mapping({"httpd.conf": _shared_hosting(300, 3)}, entry="httpd.conf"),
                     select=["HT501"])
    files = [f for f in result.remaining if f.line == 7]  # its Order line
    assert len(files) == 1
    assert "depends on which other sections apply" in files[0].message
    assert "<Directory /srv/www/u0>" in files[0].message and "and 293 more" in files[0].message


def _copies(n: int) -> str:
    return "DocumentRoot /srv/www\n" + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n" * n


def test_past_the_pair_budget_no_section_is_planned_and_every_one_says_why(monkeypatch):
    """n copies of one section make n(n-1)/2 pairs that may meet, each planned: 2,000 copies took minutes.
    Past MAX_PAIRS the analysis stops before planning, and HT501 says why on every section."""
    monkeypatch.setattr(plan_module, "MAX_PAIRS", 100)
    result = migrate(ConfigSet.from_mapping({"httpd.conf": _copies(20)}, entry="httpd.conf"), select=["HT5"])
    assert result.applied == []
    assert len(result.remaining) == 20
    for finding in result.remaining:
        assert finding.code == "HT501" and finding.fix is None
        assert "the configuration's 20 sections make more than 100 pairs that may apply to one request" in finding.message
        assert "merge the sections repeated for the same path" in finding.message
    assert access.normalize_notes(ConfigSet.from_mapping({"httpd.conf": _copies(20)}, entry="httpd.conf"))[1] == [
        result.remaining[0].message.split("no exact 2.4 form: ")[1].split(", a person must decide")[0]]

    within = migrate(ConfigSet.from_mapping({"httpd.conf": _copies(14)}, entry="httpd.conf"), select=["HT5"])  # 91 pairs
    assert within.remaining == [] and len(within.applied) == 14


def test_a_configuration_with_nothing_to_plan_does_not_count_its_pairs(monkeypatch):
    """The budget counts the pairs of every section: a pure 2.4 configuration (the common admission
    review) has nothing to plan and pays nothing for it, however many sections repeat."""
    monkeypatch.setattr(plan_module, "MAX_PAIRS", 100)
    text = "".join(f"<Directory /srv/www>\n    Require all granted\n</Directory>\nMaxClients {n}\n" for n in range(20))
    configset = ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
    model = build(configset)
    assert make_plan(model).scopes == []
    assert "plan.index" not in model.cache
    assert [f.code for f in lint(configset, select=["HT5"])] == []
    two_two = text.replace("Require all granted", "Order allow,deny\n    Allow from all")
    assert {f.code for f in lint(ConfigSet.from_mapping({"httpd.conf": two_two}, entry="httpd.conf"), select=["HT5"])} == {"HT501"}

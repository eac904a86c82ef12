"""The requests a section's candidate 2.4 forms are checked on come from those forms alone.

A sample built from every Allow line of the configuration is their product, so each line elsewhere
multiplied the work of every section whose meaning depends on its context: four lines of
`Allow from env=... / Deny from host / Allow from net` in one virtual host of a 700-line corpus file
took lint from 0.2 s to 10 s. Counted in evaluations, not seconds (machines here are noisy)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from httpd24.access import expr, plan
from httpd24.access.model import Methods, Request
from httpd24.apache.differential import random_config
from httpd24.config import ConfigSet
from httpd24.engine import lint

CORPUS = Path("/work/shared/corpus/files")

# Access lines at the level of a virtual host that holds a <Location>: the sections inside it mean
# different things with the sections around them, and their 2.4 forms are checked on the sample.
VHOST_ACCESS = ["Allow from env=FOO", "Deny from .example.com", "Allow from 192.168"]


def _with_vhost_access() -> str:
    lines = (CORPUS / "httpd-tests-2011-extra-ifversion.conf.in").read_text().split("\n")
    at = lines.index("    <VirtualHost mod_headers>") + 1
    # the DocumentRoot its includer sets: otherwise its Locations may meet every <Directory> (of the other
    # virtual hosts too), as tests/access/test_fragment_location_aliased.py shows they may
    return "\n".join(["DocumentRoot @SERVERROOT@/htdocs"] + lines[:at] + VHOST_ACCESS + lines[at:])


def _unrelated_hosts(count: int) -> str:
    return "".join(
        f"<VirtualHost *:80>\n    ServerName o{i}.test\n    <Directory /other/{i}>\n        Order allow,deny\n"
        f"        Allow from 172.{i}.0.0/16 .h{i}.test env=E{i}\n    </Directory>\n</VirtualHost>\n"
        for i in range(count)
    )


def _evaluations(text: str, monkeypatch) -> int:
    count = 0
    decide = expr.decide24

    def counted(*args):
        nonlocal count
        count += 1
        return decide(*args)

    with monkeypatch.context() as patch:
        patch.setattr(expr, "decide24", counted)
        lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    return count


def test_lines_in_other_virtual_hosts_do_not_grow_a_sections_check(monkeypatch):
    text = _with_vhost_access()
    alone = _evaluations(text, monkeypatch)
    assert alone > 0, "the sections of that virtual host are checked on a sample"
    assert _evaluations(text + _unrelated_hosts(20), monkeypatch) == alone


def _access_lines(count: int) -> list[str]:
    """``count`` lines of the kinds a virtual host holds: each names its own network, domain or variable."""
    kinds = [lambda i: f"Allow from 10.0.{i}.0/24", lambda i: f"Deny from .h{i}.example.com",
             lambda i: f"Allow from env=V{i}", lambda i: f"Deny from 192.168.{i}.1"]
    return ["Order deny,allow", "Satisfy any"] + [kinds[i % 4](i) for i in range(count)]


def _work(text: str, monkeypatch) -> int:
    """Evaluations of a whole tree plus answers of one Require line: what a check of the forms costs."""
    count = 0
    decide, leaf = expr.decide24, expr._leaf_result

    def counted(function):
        def call(*args):
            nonlocal count
            count += 1
            return function(*args)
        return call

    with monkeypatch.context() as patch:
        patch.setattr(expr, "decide24", counted(decide))
        patch.setattr(expr, "_leaf_result", counted(leaf))
        lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    return count


def test_a_check_grows_linearly_with_the_access_lines_of_a_virtual_host(monkeypatch):
    """The sample is the product of the addresses, domains and variables the forms name: checked on every
    request of it, 16 lines at virtual-host level cost 16 times what 4 did (1.7 million evaluations, 3.5 s
    of lint; 64 lines 59 million). Fixed one value at a time, the forms' work grows as the values do."""
    lines = (CORPUS / "httpd-tests-2011-extra-ifversion.conf.in").read_text().split("\n")
    at = lines.index("    <VirtualHost mod_headers>") + 1
    work = {n: _work("\n".join(lines[:at] + _access_lines(n) + lines[at:]), monkeypatch) for n in (4, 16)}
    assert work[4] > 0
    assert work[16] <= 6 * work[4], work


def _random_tree(rng: random.Random, depth: int = 0) -> expr.Expr:
    """A tree of every kind of part whose answer depends on its context: negations, <Limit>, empty containers."""
    if depth > 2 or rng.random() < 0.45:
        return replace(rng.choice(_LEAVES), negate=rng.random() < 0.3)
    if rng.random() < 0.15:
        return expr.Limited(rng.choice(_LIMITS), _random_tree(rng, depth + 1))
    items = tuple(_random_tree(rng, depth + 1) for _ in range(rng.choice((0, 1, 2, 2, 3, 3))))
    return rng.choice((expr.All, expr.AnyOf))(items, negate=rng.random() < 0.2)


_LEAVES = [
    expr.Leaf("ip", ("10.0.0.0/8",)), expr.Leaf("ip", ("10.1.0.0/16", "192.168.1.1")), expr.Leaf("local"),
    expr.Leaf("host", (".example.com",)), expr.Leaf("host", ("a.example.com",)),
    expr.Leaf("env", ("A",)), expr.Leaf("env", ("B", "C")), expr.Leaf("method", ("POST",)),
    expr.Leaf("valid-user"), expr.Leaf("user", ("alice",)), expr.Leaf("group", ("g",)), expr.Leaf("expr", ("x",)),
    expr.TRUE, expr.FALSE, expr.NEUTRAL_LEAF,
]
_LIMITS = [Methods(frozenset({"GET"}), inverted=False), Methods(frozenset({"GET"}))]
_STEPS = [(frozenset({"ip", "local", "all"}), "client",
           ["10.0.0.1", "10.1.2.3", "192.168.1.1", "127.0.0.1", "8.8.8.8"]),
          (frozenset({"host"}), "hostname", [None, "a.example.com", "b.example.com", "other.test"]),
          (frozenset({"env"}), "env", [frozenset(), frozenset({"A"}), frozenset({"C"}), frozenset({"A", "B"})])]
_REST = [dict(method=m, user=u, password_ok=ok, groups=frozenset(g)) for m in ("GET", "POST")
         for u, ok, g in ((None, True, ()), ("alice", True, ()), ("bob", True, ("g",)), ("bob", False, ()))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_restricted_tree_answers_as_the_tree_does(seed):
    """Fixing the client, then the host name, then the variables leaves trees that answer every request
    agreeing on them exactly as the whole tree: whoever asks, with any method, with or without AuthType."""
    rng = random.Random(seed)
    for _ in range(150):
        tree = _random_tree(rng)

        def check(e, step, fixed):
            if step == len(_STEPS):
                for rest in _REST:
                    request = Request("/", **fixed, **rest)
                    for authtype in (None, "Basic"):
                        assert expr.decide24(e, authtype, request) == expr.decide24(tree, authtype, request), (
                            tree, e, request, authtype)
                return
            providers, name, values = _STEPS[step]
            for value in values:
                check(expr.restrict(e, providers, Request("/", **{name: value})), step + 1, {**fixed, name: value})

        check(tree, 0, {})


def test_forms_are_told_apart_as_on_every_request_of_the_sample(monkeypatch):
    """Two forms get the same number exactly when they answer every request of the sample alike."""
    told = {True: 0, False: 0}

    class Checked(plan._Answers):
        def equivalent(self, a, b, authtype):
            same = super().equivalent(a, b, authtype)
            requests = self.sample.requests()
            assert same == all(expr.decide24(a, authtype, r) == expr.decide24(b, authtype, r) for r in requests)
            told[same] += 1
            return same

    monkeypatch.setattr(plan, "_Answers", Checked)
    lines = _access_lines(3)
    for i in range(60):
        text = random_config(random.Random(f"sample:{i}"), max_sections=6)
        if i % 3 == 0:
            text = text.replace("\n<", "\n<VirtualHost *:80>\n" + "\n".join(lines) + "\n<", 1) + "</VirtualHost>\n"
        lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"), select=["HT5"])
    assert told[True] > 20 and told[False] > 20, told

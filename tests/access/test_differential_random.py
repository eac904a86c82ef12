"""At least 300 random nested 2.2 access-control configurations per run, translated and proven on apache2.

The seed is printed (and named in every failure); replay with
``HTTPD24_SEED=<seed> python -m pytest tests/access/test_differential_random.py`` or one
configuration with ``hack/differential.py --seed <seed> --index <i>``.
``HTTPD24_RANDOM_COUNT`` changes the count.  Zero mismatches allowed.
"""

from __future__ import annotations

import os
import random
import re
import time

import pytest

from httpd24.apache import differential

pytestmark = pytest.mark.apache

SEED = int(os.environ.get("HTTPD24_SEED") or random.SystemRandom().randrange(2**31))
COUNT = int(os.environ.get("HTTPD24_RANDOM_COUNT") or 300)


def test_generator_is_seeded_and_varied():
    a = differential.random_configs(SEED, 50)
    assert a == differential.random_configs(SEED, 50)
    assert differential.random_configs(SEED, 3, start=7) == a[7:10]
    text = "\n".join(t for _i, t in a)
    for needle in ("<Directory", "<Location", "<Files", "Order deny,allow", "Allow from", "Deny from", "Satisfy",
                   "Require valid-user", "AuthType Basic", "AuthUserFile"):
        assert needle in text, needle
    assert len({t for _i, t in a}) >= 45
    # every generated configuration is valid 2.2 syntax that 2.4 + mod_access_compat accepts
    texts = [t for _i, t in differential.random_configs(SEED, 200)]
    assert any("<Limit" in t for t in texts) and any("env=" in t for t in texts) and any("/255." in t for t in texts)
    # fragments that set no DocumentRoot, run under an including configuration's as well
    assert any(differential.INCLUDER_UNIT in label for t in texts if "DocumentRoot" not in t
               for label in differential.prepare(t))


def test_some_fragments_that_set_their_document_root_run_under_an_includers_alias():
    """Sections moved outside the DocumentRoot (:func:`differential.outside_the_document_root`): where a <Location>
    is named as such a directory, the harness runs it under an Alias that puts it there as well. (A seed of its own:
    a few configurations in two hundred are such.)"""
    texts = [t for _i, t in differential.random_configs(108, 600)]
    moved = [t for t in texts if "<Directory /srv/a" in t]  # from /srv/www/a
    assert len(moved) >= 40
    aliased = [t for t in moved if "DocumentRoot" in t and any(
        label.startswith(f"{differential.INCLUDER_UNIT} Alias /a") for label in differential.prepare(t))]
    assert len(aliased) >= 5


def test_generated_configurations_start_on_compat_and_answer_as_its_model(httpd, access):
    """The model of 2.4 + mod_access_compat, which HT503 reports from and mixed 2.2/2.4 sections are
    translated with, answers every request as the real server does (virtual hosts are not modelled)."""
    items = [(f"seed={SEED} index={i}", t) for i, t in differential.random_configs(SEED, 100)]
    wrong = {}
    for (label, text), r in zip(items, differential.compare_many(
            [differential.Case(label, t, t) for label, t in items], httpd=httpd, candidate_compat=True)):
        assert r.ok, r.format()
        if "<VirtualHost" in text:
            continue
        model = access.build(differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        bad = [f"{q.describe()}: server {status}" for q, (status, _same) in r.statuses.items()
               if differential.access_answer(status) != access.decide_compat(model, differential.model_request(q, r))]
        if bad:
            wrong[f"{label}\n{text}"] = bad[:3]
    assert wrong == {}


def test_random_translations_match(httpd, access, capsys):
    """Every translated configuration answers like 2.2, request by request.

    Three outcomes per configuration, counted and printed:

    * refused: the translator says it cannot write an exact 2.4 form (``TranslationError``);
      ``httpd24 lint`` then reports HT501 without a fix, for a person to decide;
    * checked against the model: ``normalize_notes`` says it could not make 2.2's inheritance
      explicit, so the reference (2.4 + mod_access_compat) is not 2.2 there; every answer of
      the migrated configuration must then be the 2.2 model's (``differential.against_model``),
      the model being held to the real servers' answers on every request of the proven ones;
    * proven: everything else. Zero mismatches are allowed among these, and they must be
      the majority (a translator that refused everything would otherwise pass).
    """
    refused: set[int] = set()
    unproven: set[int] = set()
    configs = dict(differential.random_configs(SEED, COUNT))
    for index, text in configs.items():
        cs = differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
        if access.normalize_notes(cs)[1]:
            unproven.add(index)
        try:
            access.translate(cs)
        except access.TranslationError:
            refused.add(index)

    with capsys.disabled():
        print(f"\n[differential] HTTPD24_SEED={SEED} HTTPD24_RANDOM_COUNT={COUNT}")
    t0 = time.monotonic()
    results = differential.random_run(SEED, COUNT, access.translate, access.normalize_22, httpd=httpd)
    assert len(results) == COUNT
    proven = [(i, t, r) for i, t, r in results if i not in refused and i not in unproven]
    # A request that timed out is no answer (host rules make httpd do reverse DNS, slow on a loaded
    # machine): run that configuration again on its own with a longer timeout before judging it.
    for position, (i, t, r) in enumerate(proven):
        if not r.ok and "timed out" in f"{r.reference_error or ''} {r.candidate_error or ''}":
            cs = differential.ConfigSet.from_mapping({"httpd.conf": t}, entry="httpd.conf")
            case = differential.Case(f"seed={SEED} index={i} (again)", access.normalize_22(cs), access.translate(cs))
            [again] = differential.compare_many([case], httpd=httpd, timeout=60)
            proven[position] = (i, t, again)
    bad = [(i, t, r) for i, t, r in proven if not r.ok]
    # Where the reference is not 2.2, the model of 2.2 judges every answer; it is trusted because it
    # answers as the real servers on every request of the proven configurations.
    model_wrong = [(i, m) for i, t, r in proven if r.ok for m in differential.against_model(r, t)]
    checked = [(i, t, r) for i, t, r in results if i in unproven - refused]
    unexplained = [(i, t, r) for i, t, r in checked
                   if r.reference_error or r.candidate_error or differential.against_model(r, t)]
    with capsys.disabled():
        print(f"[differential] {COUNT} configurations in {time.monotonic() - t0:.0f}s: {len(proven)} proven "
              f"({sum(r.requests for *_x, r in proven)} request pairs), {len(refused)} refused (HT501 without a fix), "
              f"{len(checked)} proven against the 2.2 model only (reference not 2.2; "
              f"{sum(1 for *_x, r in checked if not r.ok)} differ from it, {len(unexplained)} not as the model says)")
    assert not model_wrong, f"seed={SEED}: the 2.2 model disagrees with real answers: {model_wrong[:10]}"
    if unexplained:
        parts = [f"configuration {i} (hack/differential.py --seed {SEED} --index {i}):\n{t}\n"
                 + (r.format(limit=10) if not r.statuses else "requests the 2.2 model answers otherwise:\n"
                    + "\n".join(str(m) for m in differential.against_model(r, t)[:10]))
                 for i, t, r in unexplained[:5]]
        pytest.fail(f"seed={SEED}: {len(unexplained)} unproven configurations answer otherwise than the 2.2 model:\n\n"
                    + "\n\n".join(parts), pytrace=False)
    if bad:
        parts = [f"configuration {i} (hack/differential.py --seed {SEED} --index {i}):\n{t}\n{r.format(limit=10)}"
                 for i, t, r in bad[:5]]
        pytest.fail(f"seed={SEED}: {len(bad)} of {len(proven)} proven configurations differ "
                    f"(indexes {[i for i, *_x in bad][:50]}):\n\n" + "\n\n".join(parts), pytrace=False)
    assert len(proven) * 2 > COUNT, f"only {len(proven)} of {COUNT} configurations could be proven"


def test_refused_translations_are_reported_for_a_person(access):
    """A configuration the translator refuses gets a finding without a fix for every section it refused,
    saying why: HT501, HT507 when only Require lines of different 2.2 modules stand in the way, or HT504
    for an AuthType section without an exact 2.4 form. Only such an AuthType section lets the other
    sections be rewritten (on 2.2 it holds none of them back: `_PlanRule.check_config`; seed 1497404088,
    index 6, where the rest of the migration answers as 2.2 on real apache2 and /c keeps 2.4's 500 until a
    person writes its Require)."""
    from httpd24.engine import lint

    for index, text in differential.random_configs(SEED, 60):
        cs = differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
        try:
            access.translate(cs)
        except access.TranslationError as error:
            findings = lint(cs, select=["HT501", "HT504", "HT507"])
            refused = re.findall(r"httpd\.conf:\d+: (<[^>]*>): ", str(error))
            assert refused, str(error)
            for label in refused:
                assert any(f.message.startswith(f"{label}:") and not f.fixable for f in findings), (
                    f"index {index}: {label} was refused but not reported for a person")
            if any(f.fixable for f in findings):
                assert all(any(f.code == "HT504" and f.message.startswith(f"{label}:") for f in findings)
                           for label in refused), f"index {index}: a refused translation offers a fix"


def in_a_virtual_host(rng: random.Random, text: str) -> str:
    """``text`` with about half of its top-level sections moved into a <VirtualHost>, where they merge
    with the server-level sections left outside."""
    head, rest = _document_root(text)
    server: list[str] = []
    vhost: list[str] = []
    i = 0
    while i < len(rest):
        end = rest.index("</" + rest[i][1:].split()[0] + ">", i)
        if rng.random() < 0.5:
            vhost += ["    " + line for line in rest[i:end + 1]]
        else:
            server += rest[i:end + 1]
        i = end + 1
    return "\n".join([*head, *server, "<VirtualHost *:80>", "    ServerName v.example", *vhost, "</VirtualHost>"]) + "\n"


def _document_root(text: str) -> tuple[list[str], list[str]]:
    """The generated DocumentRoot line (none in a fragment), and the sections after it."""
    lines = text.splitlines()
    return (lines[:1], lines[1:]) if lines[0].startswith("DocumentRoot ") else ([], lines)


#: Aliases onto the generated directories (and one past a Location), so Location sections meet other
#: Directory sections than their URL says.
ALIASES = ("Alias /d/ /srv/www/a/", "Alias /d /srv/www/c", "Alias /a/b /srv/www/c", "Alias /c/ /srv/www/a/b/",
           "Alias /x /srv/www/a")


def with_aliases(rng: random.Random, text: str) -> str:
    head, rest = _document_root(text)
    return "\n".join([*head, *rng.sample(ALIASES, rng.choice((1, 1, 2))), *rest]) + "\n"


@pytest.mark.parametrize("variant", [in_a_virtual_host, with_aliases], ids=["virtual host", "aliases"])
def test_random_translations_in_other_shapes_match(httpd, access, variant):
    """The same proof with sections split between the server and a virtual host (each runs as a unit),
    and with Aliases that map URLs onto other directories."""
    cases = []
    for index in range(100):
        # the configurations of random_configs before it puts one in five in a virtual host of its own
        text = differential.outside_the_document_root(random.Random(f"{SEED}:{index}:outside"),
                                                      differential.random_config(random.Random(f"{SEED}:{index}")))
        text = variant(random.Random(f"{SEED}:{index}"), text)
        cs = differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
        reference, notes = access.normalize_notes(cs)
        if notes:
            continue
        try:
            candidate = access.translate(cs)
        except access.TranslationError:
            continue
        cases.append(differential.Case(f"seed={SEED} index={index} ({variant.__name__})\n{text}", reference, candidate))
    bad = [r for r in differential.compare_many(cases, httpd=httpd) if not r.ok]
    assert not bad, "\n\n".join(f"{r.name}\n{r.format(limit=5)}" for r in bad[:3])
    assert len(cases) * 2 > 100, f"only {len(cases)} of 100 configurations could be proven"

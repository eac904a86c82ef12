"""At least 300 random nested 2.2 access-control configurations per run, translated and proven on apache2.

The seed is printed (and named in every failure); replay with
``HTTPD24_SEED=<seed> python -m pytest tests/access/test_differential_random.py`` or one
configuration with ``hack/differential.py --seed <seed> --index <i>``.
``HTTPD24_RANDOM_COUNT`` changes the count.  Zero mismatches allowed.
"""

from __future__ import annotations

import os
import random
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


def test_generated_configurations_start_on_compat(httpd):
    cases = [differential.Case(f"seed={SEED} index={i}", t, t) for i, t in differential.random_configs(SEED, 25)]
    for r in differential.compare_many(cases, httpd=httpd, candidate_compat=True):
        assert r.ok, r.format()


def test_random_translations_match(httpd, access, capsys):
    with capsys.disabled():
        print(f"\n[differential] HTTPD24_SEED={SEED} HTTPD24_RANDOM_COUNT={COUNT}")
    t0 = time.monotonic()
    results = differential.random_run(SEED, COUNT, access.translate, access.normalize_22, httpd=httpd)
    with capsys.disabled():
        print(f"[differential] {COUNT} configurations, {sum(r.requests for *_x, r in results)} request pairs, "
              f"{time.monotonic() - t0:.0f}s")
    bad = [(i, t, r) for i, t, r in results if not r.ok]
    if bad:
        parts = [f"configuration {i} (hack/differential.py --seed {SEED} --index {i}):\n{t}\n{r.format(limit=10)}"
                 for i, t, r in bad[:5]]
        pytest.fail(f"seed={SEED}: {len(bad)} of {COUNT} random configurations differ "
                    f"(indexes {[i for i, *_x in bad][:50]}):\n\n" + "\n\n".join(parts), pytrace=False)
    assert len(results) == COUNT

"""Random access-control configurations under <IfModule> conditions nothing decides, proven on apache2.

The random configurations of ``differential.random_config`` get ``<IfModule>`` wrappers around whole
sections, around single access lines, and around an ``Alias``, on two modules: ``mod_setenvif.c``,
which the differential servers load, and ``mod_ssl.c``, which they do not. httpd24 knows neither, so
a translation it writes must hold whichever way they fall (``httpd24.access.worlds``). Each
configuration runs in both worlds: as generated, and with the two names swapped in the original and
the translation alike. The reference is 2.2's inheritance made explicit for the server that runs it.

The seed is shared with test_differential_random (``HTTPD24_SEED``); ``HTTPD24_CONDITIONS_COUNT``
changes the count. Zero mismatches allowed.
"""

from __future__ import annotations

import os
import random

import pytest
from httpd24.apache import differential
from test_differential_random import SEED

pytestmark = pytest.mark.apache

COUNT = int(os.environ.get("HTTPD24_CONDITIONS_COUNT") or 100)
LOADED, NOT_LOADED = "mod_setenvif.c", "mod_ssl.c"
CONDITIONS = (LOADED, "!" + LOADED, NOT_LOADED, "!" + NOT_LOADED)


#: For configurations under many conditions: modules the differential servers load, then modules they do not.
MANY = ("mod_setenvif.c", "mod_status.c", "mod_mime.c", "mod_ssl.c", "mod_info.c", "mod_dav.c")


def with_conditions(rng: random.Random, text: str, conditions=CONDITIONS, rate: float = 1.0) -> str:
    """``text`` with random <IfModule> wrappers: whole top-level sections, all the lines inside one,
    single lines inside them, and sometimes a conditional Alias that maps /d/ onto one of the generated
    directories. ``rate`` scales how often a section or a line gets one."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("<") and not line.startswith("</"):
            end = lines.index("</" + line[1:].split()[0] + ">", i)
            draw = rng.random()
            if draw < 0.3 * rate:
                out += [f"<IfModule {rng.choice(conditions)}>", *lines[i:end + 1], "</IfModule>"]
                i = end + 1
                continue
            if draw < 0.45 * rate:
                out += [line, f"    <IfModule {rng.choice(conditions)}>", *("    " + body for body in lines[i + 1:end]),
                        "    </IfModule>", lines[end]]
                i = end + 1
                continue
        if line.startswith("    ") and not line.lstrip().startswith("<") and rng.random() < 0.15 * rate:
            indent = line[:len(line) - len(line.lstrip())]
            out += [f"{indent}<IfModule {rng.choice(conditions)}>", "    " + line, f"{indent}</IfModule>"]
        else:
            out.append(line)
        i += 1
    if rng.random() < 0.25:
        target = rng.choice(("a/", "c/"))
        at = 1 if out and out[0].startswith("DocumentRoot ") else 0  # after it; before the first section
        out.insert(at, f"<IfModule {rng.choice(conditions)}>\nAlias /d/ /srv/www/{target}\n</IfModule>")
    return "\n".join(out) + "\n"


def swapped(text: str) -> str:
    return text.replace(LOADED, "\0").replace(NOT_LOADED, LOADED).replace("\0", NOT_LOADED)


def test_the_conditions_are_varied():
    texts = [with_conditions(random.Random(f"{SEED}:{i}"), t) for i, t in differential.random_configs(SEED, 60)]
    joined = "\n".join(texts)
    assert "<IfModule mod_ssl.c>\n<" in joined and "    <IfModule !mod_setenvif.c>\n" in joined
    assert "Alias /d/" in joined
    assert sum("IfModule" in t for t in texts) > 40


def renamed(text: str, names: dict[str, str]) -> str:
    """``text`` with module names replaced all at once (``names``: old -> new)."""
    for i, old in enumerate(names):
        text = text.replace(old, f"\0{i}\0")
    for i, new in enumerate(names.values()):
        text = text.replace(f"\0{i}\0", new)
    return text


def prove(httpd, access, configurations, worlds) -> tuple[list, int, int, int]:
    """Translate each configuration once and run it in each of its ``worlds`` (text -> text, applied to the
    original and the translation alike) against 2.2's inheritance made explicit for the server that runs it.

    Returns (mismatch reports, configurations proven, refused, without a 2.2 reference)."""
    target = differential.reference_target(httpd)
    cases, refused, unproven, proven = [], 0, 0, 0
    for index, text in configurations:
        original = differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
        try:
            translated = access.translate(original).render()["httpd.conf"].decode()
        except access.TranslationError:
            refused += 1
            continue
        pairs = [(world(text), world(translated)) for world in worlds(index)]
        references = []
        for world_text, _ in pairs:
            cs = differential.ConfigSet.from_mapping({"httpd.conf": world_text}, entry="httpd.conf")
            reference, notes = access.normalize_notes(cs, target)
            references.append(None if notes else reference)
        if None in references:
            unproven += 1  # 2.4 + mod_access_compat cannot be made to mean 2.2 here
            continue
        proven += 1
        for world, ((world_text, candidate), reference) in enumerate(zip(pairs, references)):
            cases.append(differential.Case(f"seed={SEED} index={index} world={world}\n{world_text}",
                                           reference, {"httpd.conf": candidate}))
    reports = differential.compare_many(cases, httpd=httpd)
    return [r for r in reports if not r.ok], proven, refused, unproven


def _report(bad) -> str:
    return "\n\n".join(f"{r.name}\n{r.format(limit=5)}" for r in bad[:3])


def test_translations_under_conditions_answer_as_2_2_in_both_worlds(httpd, access, capsys):
    configurations = [(i, with_conditions(random.Random(f"{SEED}:{i}"), t))
                      for i, t in differential.random_configs(SEED, COUNT)]
    bad, proven, refused, unproven = prove(httpd, access, configurations, lambda index: (str, swapped))
    with capsys.disabled():
        print(f"\n[conditions] HTTPD24_SEED={SEED}: {COUNT} configurations, {proven} proven in both worlds, "
              f"{refused} refused, {unproven} without a 2.2 reference")
    assert not bad, _report(bad)
    assert proven * 4 > COUNT, "fewer than a quarter of the configurations were proven"


def test_translations_under_many_conditions_answer_as_2_2_in_three_worlds(httpd, access, capsys):
    """Six modules, three loaded, so a configuration often depends on more conditions than one
    section is tried under: each runs as generated and in two random renamings of the six."""
    conditions = [p + name for name in MANY for p in ("", "!")]
    configurations = [(i, with_conditions(random.Random(f"{SEED}:many:{i}"), t, conditions, rate=1.6))
                      for i, t in differential.random_configs(SEED, COUNT, start=COUNT)]
    many = sum(len({c.lstrip("!") for c in conditions if f"<IfModule {c}>" in t}) > 3 for _, t in configurations)

    def worlds(index):
        rng = random.Random(f"{SEED}:worlds:{index}")
        return [str] + [lambda text, names=dict(zip(MANY, rng.sample(MANY, len(MANY)))): renamed(text, names)
                        for _ in range(2)]

    bad, proven, refused, unproven = prove(httpd, access, configurations, worlds)
    with capsys.disabled():
        print(f"\n[many conditions] HTTPD24_SEED={SEED}: {COUNT} configurations ({many} under more than three "
              f"modules), {proven} proven in three worlds, {refused} refused, {unproven} without a 2.2 reference")
    assert not bad, _report(bad)
    assert proven * 5 > COUNT, "fewer than a fifth of the configurations were proven"

"""Random configurations that mix 2.2 and 2.4 access control, migrated and proven on apache2.

A mixed configuration runs today on 2.4 with mod_access_compat (2.2 has no `Require ip`), so its
migration must answer every request as the original does there: reference = the original as it is
on 2.4 + mod_access_compat, candidate = the output of ``migrate`` on 2.4 without it. The configurations are the
random 2.2 ones of test_differential_random (same ``HTTPD24_SEED``) with 2.4 lines put into some
of their sections: `Require` with 2.4 providers, `<RequireAll>`/`<RequireAny>`, `AuthMerging`,
`<Limit>`'d `Require`. Writing this check found three errors (a `<Limit>`'d Require, AuthMerging
without Require, a sample that missed the variables of Require lines inside containers).

A section that sets AuthType where no Require applies answers 500 there today (AH01627): the
migration must keep that answer in all of its passes, or leave the mixed sections to a person. So
must the migration of a configuration written for 2.4 alone (the same ones without their
Order/Allow/Deny/Satisfy lines), where HT504 once wrote `Require all granted` and opened the section.
"""

from __future__ import annotations

import os
import random
import re

import pytest

from httpd24.apache import differential
from httpd24.engine import migrate
from test_differential_random import SEED

pytestmark = pytest.mark.apache

COUNT = int(os.environ.get("HTTPD24_MIXED_COUNT") or 150)

LINES_24 = [
    "Require ip 127.0.0.2", "Require ip 127.0.0.0/30", "Require all granted", "Require env HTTPD24_A",
    "Require local", "AuthMerging And", "AuthMerging Or",
    "<RequireAll>\n    Require all granted\n    Require not ip 127.0.0.9\n</RequireAll>",
    "<RequireAll>\n    Require ip 127.0.0.0/8\n    Require not env HTTPD24_B\n</RequireAll>",
    "<RequireAny>\n    Require ip 127.0.0.2\n    Require env HTTPD24_A\n</RequireAny>",
    "<Limit POST>\n    Require ip 127.0.0.1\n</Limit>",
    "<LimitExcept GET>\n    Require env HTTPD24_A\n</LimitExcept>",
]
SECTION = re.compile(r"\s*<(Directory|DirectoryMatch|Location|LocationMatch|Files|FilesMatch)\b")


def mixed(rng: random.Random, text: str) -> str:
    """``text`` with a 2.4 line at the top of about half of its sections."""
    out = []
    for line in text.splitlines():
        out.append(line)
        if SECTION.match(line) and rng.random() < 0.5:
            out.append(rng.choice(LINES_24))
    return "\n".join(out) + "\n"


def case(index: int, kind: str, text: str, result) -> differential.Case:
    """Configuration ``index`` as it runs today (the reference) against what ``migrate`` made of it."""
    return differential.Case(f"seed={SEED} index={index} ({kind})\n{text}", text,
                             {"httpd.conf": result.files["httpd.conf"].decode()})


def assert_answers_kept(cases: list[differential.Case], httpd) -> None:
    bad = [r for r in differential.compare_many(cases, httpd=httpd) if not r.ok]
    assert not bad, "\n\n".join(f"{r.name}\n{r.format(limit=5)}" for r in bad[:3])


def test_mixed_migrations_answer_as_2_4_with_compat(httpd, access, capsys):
    """Through the whole ``migrate`` (every rule, pass after pass), as the CLI and the webhook run it."""
    cases, refused, held_for_500 = [], 0, 0
    for index, text in differential.random_configs(SEED, COUNT):
        text = mixed(random.Random(f"{SEED}:mixed:{index}"), text)
        model = access.build(differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        if model.mode != "compat":
            continue
        result = migrate(differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        if any(f.code == "HT502" for f in result.remaining):  # its Order/Allow/Deny wait for a person
            if any(f.code == "HT504" and "would not answer 500 any more" in f.message for f in result.remaining):
                held_for_500 += 1  # a section's answer today is 500, which a person must replace first
            else:
                refused += 1
            continue
        cases.append(case(index, "mixed", text, result))
    with capsys.disabled():
        print(f"\n[mixed] HTTPD24_SEED={SEED}: {len(cases)} mixed configurations, {refused} refused, "
              f"{held_for_500} left for a person to replace a 500")
    assert_answers_kept(cases, httpd)
    assert len(cases) > 2 * refused, "most mixed configurations must be migrated"


#: The mixed test at HTTPD24_SEED=303997424, index 22, minimized: with the <Directory> (the includer's DocumentRoot
#: /srv/www puts /c there), 2.4 ANDs its `Require user bob carol` onto the Location group (AuthMerging And of the
#: last), so alice may not DELETE. The translation dropped AuthMerging, taking `Require user bob carol alice` and
#: that AND `Require user bob carol` for alike: the request sample had no named user in a named group.
NAMED_USER_IN_A_GROUP = (
    '<Location />\n'
    '    Require group staff\n'
    '</Location>\n'
    '<Location /c>\n'
    'AuthMerging And\n'
    '    Require user bob carol\n'
    '    <LimitExcept GET POST>\n'
    '        AuthGroupFile /etc/httpd/groups\n'
    '        Allow from 127.0.0.9\n'
    '        Require user alice\n'
    '    </LimitExcept>\n'
    '</Location>\n'
    '<Directory /srv/www/c>\n'
    '    AuthType Basic\n'
    '    AuthName "restricted"\n'
    '    AuthUserFile /etc/httpd/users\n'
    '    Require user bob carol\n'
    '</Directory>\n'
)


#: Three AuthMerging And levels of two groups each under /c/sub, two elsewhere under /c. The translation
#: wrote the two-level form into <Location /c> (dropping g5 g6 under /c/sub): past three groups the request
#: sample held none, each one alone and all, and on those the two forms answer alike.
GROUP_CLAUSES = (
    'DocumentRoot /srv/www\n'
    '<Directory /srv/www>\n'
    '    AuthType Basic\n'
    '    AuthName "r"\n'
    '    AuthUserFile /etc/httpd/users\n'
    '    AuthGroupFile /etc/httpd/groups\n'
    '    Require group g1 g2\n'
    '</Directory>\n'
    '<Directory /srv/www/c/sub>\n'
    '    AuthMerging And\n'
    '    Require group g5 g6\n'
    '</Directory>\n'
    '<Location /c>\n'
    '    AuthMerging And\n'
    '    Require group g3 g4\n'
    '    Order allow,deny\n'
    '    Allow from all\n'
    '</Location>\n'
)


@pytest.mark.parametrize("index, name, text", [(22, "named user in a group", NAMED_USER_IN_A_GROUP),
                                               (0, "member of two of many groups", GROUP_CLAUSES)])
def test_the_request_sample_tells_forms_apart_by_who_is_in_which_group(index, name, text, httpd):
    result = migrate(differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert not [f for f in result.remaining if f.code.startswith("HT5")], result.remaining
    assert_answers_kept([case(index, name, text, result)], httpd)


#: A section with AuthType and no Require, for about half of the configurations written for 2.4.
AUTH_ONLY = "<Location /c>\n    AuthType Basic\n    AuthName c\n    AuthUserFile /etc/httpd24-none\n</Location>\n"
COMPAT_LINE = re.compile(r"\s*(Order|Allow|Deny|Satisfy)\b", re.I)


def test_configurations_written_for_2_4_keep_their_answers(httpd, capsys):
    cases, kept_500 = [], 0
    for index, text in differential.random_configs(SEED, COUNT):
        rng = random.Random(f"{SEED}:for-2.4:{index}")
        written = mixed(rng, text)
        if written.splitlines() == text.splitlines():  # no 2.4 line (and no <IfModule>): it could be 2.2
            continue
        text = "".join(line for line in written.splitlines(keepends=True) if not COMPAT_LINE.match(line))
        text += AUTH_ONLY if rng.random() < 0.5 else ""
        result = migrate(differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        kept_500 += any(f.code == "HT504" and f.fix is None for f in result.remaining)
        cases.append(case(index, "written for 2.4", text, result))
    with capsys.disabled():
        print(f"\n[written for 2.4] HTTPD24_SEED={SEED}: {len(cases)} configurations, {kept_500} with a 500 "
              f"kept for a person")
    assert_answers_kept(cases, httpd)
    assert kept_500 and len(cases) > COUNT // 2


def test_22_access_control_that_ran_on_2_4_keeps_the_answers_it_gives_there(httpd, capsys):
    """The random 2.2 configurations, loading an MPM: 2.2 could not have started them, so they ran on 2.4 +
    mod_access_compat, which does not answer as 2.2 (research notes §5). The reference is the original as
    it is there (the harness drops its LoadModule line), not 2.2's answers."""
    cases, refused = [], 0
    for index, text in differential.random_configs(SEED, COUNT):
        text = "LoadModule mpm_event_module modules/mod_mpm_event.so\n" + text
        result = migrate(differential.ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        assert result.source is not None and result.source.ran_on_24
        if any(f.code.startswith("HT50") and f.fix is None and f.severity.value == "error" for f in result.remaining):
            refused += 1  # left for a person
            continue
        cases.append(case(index, "ran on 2.4", text, result))
    with capsys.disabled():
        print(f"\n[ran on 2.4] HTTPD24_SEED={SEED}: {len(cases)} configurations migrated, {refused} left for a person")
    assert_answers_kept(cases, httpd)
    assert len(cases) > 2 * refused, "most configurations must be migrated"

"""normalize_22 on the cases of research notes §5, run on apache2 + mod_access_compat.

For each case: the 2.2 answers the notes give (httpd 2.2.34, measured) must come
back from the normalised configuration; and, so that each case is known to test
something, the configuration as written answers differently on 2.4 + compat
(the 2.4 column of the notes).
"""

from __future__ import annotations

import pytest

from httpd24.apache import differential
from httpd24.config import ConfigSet

pytestmark = pytest.mark.apache

AUTH = '    AuthType Basic\n    AuthName "restricted"\n    AuthUserFile /etc/httpd/users\n'
DOC = "DocumentRoot /srv/www\n"
ALICE = ("alice", "alice-pw")
ANON = (None, None)

# name -> (config, {(path, source, credentials): 2.2 status}, {(path, source, credentials): 2.4+compat status as written})
CASES = {
    "child holds only Satisfy": (
        DOC + f"<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1\n{AUTH}"
        "    Require valid-user\n</Directory>\n<Directory /srv/www/a>\n    Satisfy Any\n</Directory>\n",
        # 2.2: /a keeps deny-all-but-127.0.0.1, so .2 must authenticate; .1 passes on address
        {("/a/", "127.0.0.1", ANON): 200, ("/a/", "127.0.0.2", ANON): 401, ("/a/", "127.0.0.2", ALICE): 200},
        {("/a/", "127.0.0.2", ANON): 200},
    ),
    "child Order/Allow without Satisfy, parent Satisfy Any": (
        DOC + f"<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0.1\n    Satisfy Any\n{AUTH}"
        "    Require valid-user\n</Directory>\n<Directory /srv/www/a>\n    Order allow,deny\n    Allow from 127.0.0.2\n"
        "</Directory>\n",
        # 2.2: Satisfy Any still holds in /a: .2 passes on address, .1 must authenticate
        {("/a/", "127.0.0.2", ANON): 200, ("/a/", "127.0.0.1", ANON): 401, ("/a/", "127.0.0.1", ALICE): 200,
         ("/", "127.0.0.1", ANON): 200, ("/", "127.0.0.2", ANON): 401},
        {("/a/", "127.0.0.2", ANON): 401},
    ),
    "Deny from all + Satisfy Any, no Require": (
        DOC + "<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n    Satisfy Any\n</Directory>\n",
        {("/", "127.0.0.1", ANON): 403, ("/f.html", "127.0.0.2", ALICE): 403},
        {("/", "127.0.0.1", ANON): 200},
    ),
    "AuthType without Require": (
        DOC + f"<Directory /srv/www>\n{AUTH}</Directory>\n",
        {("/", "127.0.0.1", ANON): 200, ("/f.html", "127.0.0.9", ALICE): 200},
        {("/", "127.0.0.1", ANON): 500},
    ),
    "parent denies by address, child adds Require": (
        DOC + "<Directory /srv/www>\n    Order deny,allow\n    Deny from 127.0.0.2\n</Directory>\n"
        f"<Directory /srv/www/a>\n{AUTH}    Require valid-user\n</Directory>\n",
        # same on 2.2 and 2.4+compat (the trap is in a native translation): address rules still apply
        {("/a/", "127.0.0.2", ALICE): 403, ("/a/", "127.0.0.1", ALICE): 200, ("/a/", "127.0.0.1", ANON): 401,
         ("/", "127.0.0.2", ANON): 403, ("/", "127.0.0.1", ANON): 200},
        {},
    ),
}


def _statuses(cfg) -> dict[tuple, int]:
    return {(q.path, q.source, (q.user, q.password)): s
            for q, s in differential.run(cfg).items() if q.method == "GET" and not q.env}


def _cs(text: str) -> ConfigSet:
    return ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_differs_on_compat_as_written(httpd, name):
    """The notes' 2.4 + mod_access_compat column: proves each case exercises a real difference."""
    text, answers_22, answers_24 = CASES[name]
    got = _statuses(text)
    for key, status in answers_24.items():
        assert got[key] == status, (key, got[key])
    if answers_24:
        assert any(got[k] != v for k, v in answers_22.items())
    else:
        assert all(got[k] == v for k, v in answers_22.items())


@pytest.mark.parametrize("name", sorted(CASES))
def test_normalized_gives_22_answers(httpd, access, name):
    text, answers_22, _answers_24 = CASES[name]
    normalized = access.normalize_22(_cs(text))
    got = _statuses(normalized)
    wrong = {k: (got[k], v) for k, v in answers_22.items() if got[k] != v}
    assert not wrong, f"(path, source, credentials): (got, 2.2) {wrong}\n" + "\n".join(
        differential.prepare(normalized).values())


def test_normalize_is_identity_when_explicit(httpd, access):
    """Every section states Order and Satisfy: 2.4 + compat already answered as 2.2 (notes §5)."""
    text = (DOC + "<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0\n    Satisfy All\n</Directory>\n"
            "<Directory /srv/www/a>\n    Order deny,allow\n    Deny from 127.0.0.2\n    Satisfy All\n</Directory>\n")
    assert _statuses(access.normalize_22(_cs(text))) == _statuses(text)

"""Random fragments of 2.2 configurations through every command and the admission review: each answers
with an exit code and a message, never an exception (found: an Include cycle in `modules` and `migrate`).
`Include /` read from disk must end too: the listing stops at the file limit."""

from __future__ import annotations

import io
import random

import pytest

from httpd24.cli import main
from httpd24.k8s import review
from httpd24.k8s.review import Mode

PIECES = [
    "<Directory /x>", "</Directory>", "Order allow,deny", "Order deny,allow", "Allow from all", "Deny from 1.2.3.4",
    "Satisfy any", "Require valid-user", "Include *.conf", "Include b.conf", "<IfModule", ">", "\\\n", '"', "'", "é",
    "MaxClients 5", "RewriteLog /x", "<VirtualHost *:80>", "</VirtualHost>", "AuthType Basic", "AuthGroupFile /g",
    "Require group a", "<Location />", "</Location>", "FilterProvider a b c d", "SSLProtocol +SSLv2", "\n", "\n", "  ",
    "#", "Use M", "<Macro M>", "</Macro>", "AuthDBMGroupFile /d", "AuthzGroupFileAuthoritative Off", "Require user bob",
    "<Files x>", "</Files>", "<LocationMatch ^/a>", "</LocationMatch>", "Alias /a /b", "<IfVersion < 2.3>",
    "</IfVersion>", "KeepAlive 5", "<Limit GET>", "</Limit>", "AuthMerging Or", '<If "true">', "</If>",
    "# httpd24: ignore=HT1,HT5", "# httpd24: ignore-file=HT501", "# httpd24: ignore=", "Define X", "UnDefine X",
    "<IfDefine !X>", "</IfDefine>", "<IfModule mod_x.c>", "</IfModule>", "LoadModule x_module modules/mod_x.so",
    "Include /", "IncludeOptional ../*", "Directory /x", "RequireAll", "VirtualHost *:80",
]


def _random_files(rnd: random.Random) -> dict[str, str]:
    names = rnd.sample(["httpd.conf", "b.conf", "c.conf"], rnd.randrange(1, 4))
    return {n: "".join(rnd.choice(PIECES) + rnd.choice([" ", "\n", "", "\n"]) for _ in range(rnd.randrange(1, 40)))
            for n in names}


@pytest.mark.parametrize("seed", range(4))
def test_random_configurations_get_an_answer_not_an_exception(tmp_path, monkeypatch, seed):
    monkeypatch.setenv("HTTPD24_DEBUG", "1")  # an exception escapes instead of "internal error"
    rnd = random.Random(seed)
    for i in range(40):
        files = _random_files(rnd)
        folder = tmp_path / str(i)
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
        for command in ("lint", "migrate", "modules"):
            assert main([command, str(folder)], io.StringIO(), io.StringIO()) in (0, 1, 2)
            # one file, with what its Includes reach on disk
            assert main([command, str(folder / next(iter(files)))], io.StringIO(), io.StringIO()) in (0, 1, 2)
        body = {"metadata": {"name": "x", "namespace": "n"}, "data": files}
        for mode in (Mode.ENFORCE, Mode.MIGRATE):
            decision = review.review(body, mode=mode, stage="validate")
            assert isinstance(decision.allowed, bool)

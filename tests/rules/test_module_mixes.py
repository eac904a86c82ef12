"""Random module structures judged by the real ``apache2 -t``: directives of many modules under nested
``<IfModule>`` (some negated) and ``<IfDefine>`` blocks, and ``LoadModule`` lines, some of them inside
those blocks. The module list decides which ``<IfModule>`` blocks httpd reads, and what those blocks
hold decides the list: :func:`test_rule_mixes.judge` checks that the list, loaded as a whole, passes
``apache2 -t`` and that each module it says ``-t`` needs is needed. These mixes found the modules another
one cannot do without added after the blocks were decided, needs under ``<IfModule !mod_x.c>`` claimed
for ``-t`` while the list loads mod_x, and Debian's built-in modules not counted as loaded.

``HTTPD24_SEED`` and ``HTTPD24_MODULE_MIXES_COUNT`` replay or lengthen a run.
"""

from __future__ import annotations

import os
import random
import re

import pytest
from apache_env import pki  # noqa: F401
from apache_fixture import httpd  # noqa: F401
from test_rule_mixes import SEED, judge

from httpd24.config import DEFAULT_TARGET, Target

pytestmark = pytest.mark.apache

COUNT = int(os.environ.get("HTTPD24_MODULE_MIXES_COUNT") or 150)

#: A directive of each module that ``-t`` accepts as written (None: the module has none to write).
DIRECTIVES = {
    "rewrite": "RewriteEngine on", "headers": "Header set X-A 1", "ssl": "SSLProtocol all",
    "alias": "Alias /a /tmp", "mime": "AddType text/plain .txt", "expires": "ExpiresActive On",
    "deflate": "DeflateCompressionLevel 5", "proxy": "ProxyTimeout 5", "cache_disk": "CacheRoot /tmp",
    "dir": "DirectoryIndex index.html", "setenvif": "BrowserMatch x y", "status": "ExtendedStatus On",
    "autoindex": "IndexOptions FancyIndexing", "negotiation": "LanguagePriority en", "userdir": "UserDir disabled",
    "env": "SetEnv A 1", "include": "SSIErrorMsg x", "cgid": "ScriptSock /tmp/cgisock",
    "filter": "FilterDeclare f", "cache": "CacheDefaultExpire 5", "proxy_http": "ProxyPass /p http://127.0.0.1:9/",
    "remoteip": "RemoteIPHeader X-Real-IP", "reqtimeout": "RequestReadTimeout header=20",
    "unique_id": None, "logio": 'LogFormat "%I %O" io',
}


def _block(rng: random.Random, depth: int = 0) -> list[str]:
    """Lines at one depth. A directive of mod_x may land inside ``<IfModule !mod_x.c>``: the list must
    then load mod_x, which keeps that block dormant."""
    out: list[str] = []
    for _ in range(rng.randrange(1, 5)):
        r = rng.random()
        if r < 0.45 or depth >= 2:
            module = rng.choice(list(DIRECTIVES))
            if DIRECTIVES[module]:
                out.append(DIRECTIVES[module])
        elif r < 0.7:
            module = rng.choice([*DIRECTIVES, "nosuch"])
            negated = rng.random() < 0.3
            inner = _block(rng, depth + 1)
            test = f"{'!' if negated else ''}mod_{module}.c"
            out += [f"<IfModule {test}>", *("    " + line for line in inner), "</IfModule>"]
        elif r < 0.8:
            define = ("!" if rng.random() < 0.3 else "") + rng.choice(("SSL", "PROXY", "FOREGROUND"))
            out += [f"<IfDefine {define}>", *("    " + line for line in _block(rng, depth + 1)), "</IfDefine>"]
        else:
            module = rng.choice(list(DIRECTIVES))
            out.append(f"LoadModule {module}_module modules/mod_{module}.so")
    return out


def mix(seed: int, index: int) -> dict[str, bytes]:
    rng = random.Random(f"{seed}:modules:{index}")
    lines = ["LoadModule mpm_event_module modules/mod_mpm_event.so"] if rng.random() < 0.4 else []
    for _ in range(rng.randrange(1, 4)):
        lines += _block(rng)
    return {"httpd.conf": ("\n".join(lines) + "\n").encode()}


def test_module_mixes_load_what_apache2_reads(httpd, pki, capsys):  # noqa: F811
    bad = []
    for index in range(COUNT):
        files = mix(SEED, index)
        # the list for undecided defines (`httpd24 modules`), and for apache2 -t as it runs here (no -D)
        target = (DEFAULT_TARGET, Target(defines=frozenset()))[index % 2]
        if problems := judge(files, httpd, pki, None, target):
            bad.append(f"mix {index} (defines {target.defines}):\n" + "\n".join(problems) + "\n"
                       + files["httpd.conf"].decode())
    with capsys.disabled():
        print(f"\n[module mixes] HTTPD24_SEED={SEED} HTTPD24_MODULE_MIXES_COUNT={COUNT}: {len(bad)} wrong")
    assert not bad, f"seed {SEED}: {len(bad)} of {COUNT} module mixes:\n\n" + "\n\n".join(bad[:3])


def test_module_mixes_are_not_vacuous():
    texts = [mix(SEED, index)["httpd.conf"] for index in range(200)]
    for marker in (b"<IfModule !mod_", b"<IfDefine !", b"    LoadModule ", b"LoadModule mpm_event_module"):
        assert any(marker in text for text in texts), marker
    # and a block that holds a directive of the very module whose absence it tests
    negated = [m for text in texts for m in re.finditer(rb"<IfModule !mod_(\w+)\.c>\n((?:    .*\n)*)", text)]
    assert any(DIRECTIVES.get(m[1].decode()) and DIRECTIVES[m[1].decode()].encode() in m[2] for m in negated)

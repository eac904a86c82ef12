"""The test environment around a configuration judged by ``apache2 -t`` on this machine.

A configuration names its own machine's files (log directories, certificates, RewriteMap files, mutex
directories); ``-t`` checks many of them. :func:`neutralise` points those lines at files of the temporary
server root, line by line (the line count is kept, so apache2's messages name the configuration's own
lines), and :func:`pki` is a throw-away self-signed certificate for them. Shared by the corpus proof
(tests/engine/test_corpus_apache.py) and the rule documentation's (tests/rules/test_documented_examples_apache.py).
"""

from __future__ import annotations

import re

import pytest
from apache_fixture import self_signed

#: Files the server root holds beside the configuration and :func:`pki`'s: what :func:`neutralise` points at.
STUBS: dict[str, bytes] = {"logs/.keep": b"", "htdocs/.keep": b"", "stub/empty.txt": b""}

_SSL_FILES = {
    "sslcertificatefile": "pki/server.crt",
    "sslcertificatekeyfile": "pki/server.key",
    "sslcertificatechainfile": "pki/server.crt",
    "sslcacertificatefile": "pki/server.crt",
    "sslproxycacertificatefile": "pki/server.crt",
    "sslcarevocationfile": "pki/server.crt",  # -t only checks that it exists and is not empty
    "sslcacertificatepath": "pki",
    "sslcarevocationpath": "pki",
}
#: ``LDAPTrustedClientCert``/``LDAPTrustedGlobalCert TYPE PATH``: mod_ldap opens PATH during -t.
_LDAP_CERTS = ("ldaptrustedclientcert", "ldaptrustedglobalcert")

_LOGS = ("errorlog", "customlog", "transferlog", "scriptlog", "globallog")
_WILDCARD = re.compile(r"[*?\[]")


def neutralise(text: str, *, user: str | None, group: str | None) -> tuple[str, list[str]]:
    """The test environment's edits, line by line (the line count is kept).

    They only replace what names this machine's file system (paths httpd checks during
    ``-t``: log directories, the DocumentRoot, certificates, RewriteMap files, mutex
    directories, files the single corpus file includes but the corpus does not hold).
    """
    out, notes = [], []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        body = line.rstrip("\r\n")
        eol = line[len(body):]
        words = body.split()
        key = words[0].lower() if words and not words[0].startswith("#") else ""
        indent = body[: len(body) - len(body.lstrip())]
        arg = words[1].strip("\"'") if len(words) > 1 else ""
        if key in ("loadmodule", "loadfile", "serverroot"):
            out.append("# [test] " + body + eol)
            notes.append(f"{number}: {key} commented out")
        elif key in ("include", "includeoptional") and (arg.startswith("/") or not _WILDCARD.search(arg)):
            # an absolute path reads this machine's /etc; a plain file name is another file of the
            # original installation that the corpus does not hold (it fails on 2.2 as well)
            out.append("# [test] " + body + eol)
            notes.append(f"{number}: include of a file outside the corpus commented out")
        elif key in ("user", "group"):
            name = user if key == "user" else group
            out.append((f"{words[0]} {name}" if name else "# [test] " + body) + eol)
        elif key in _SSL_FILES and len(words) > 1:
            out.append(f"{indent}{words[0]} {_SSL_FILES[key]}{eol}")
        elif key in _LDAP_CERTS and len(words) > 2:
            path = "pki/server.key" if words[1].upper().startswith("KEY_") else "pki/server.crt"
            out.append(f"{indent}{' '.join([*words[:2], path, *words[3:]])}{eol}")
        elif key in _LOGS and len(words) > 1 and not arg.startswith("|") and not arg.startswith("syslog"):
            rest = " ".join(words[2:])
            out.append(f"{indent}{words[0]} logs/{number}.log{(' ' + rest) if rest else ''}{eol}")
        elif key == "documentroot" and len(words) > 1:
            out.append(f"{indent}{words[0]} htdocs{eol}")
        elif key == "rewritemap" and len(words) > 2 and words[2].split(":", 1)[0].split("=", 1)[0].lower() in ("txt", "rnd", "prg", "dbm"):
            kind = words[2].split(":", 1)[0]
            out.append(f"{indent}{words[0]} {words[1]} {kind}:stub/empty.txt {' '.join(words[3:])}".rstrip() + eol)
        elif key == "mutex" and len(words) > 1 and ":" in words[1]:
            mech = words[1].split(":", 1)[0]
            out.append(f"{indent}{words[0]} {mech}:logs {' '.join(words[2:])}".rstrip() + eol)
        else:
            out.append(line)
    return "".join(out), notes


@pytest.fixture(scope="session")
def pki(tmp_path_factory) -> dict[str, bytes]:
    crt, key = self_signed(tmp_path_factory.mktemp("pki"))
    with open(crt, "rb") as c, open(key, "rb") as k:
        return {"pki/server.crt": c.read(), "pki/server.key": k.read()}

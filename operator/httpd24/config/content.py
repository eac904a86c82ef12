"""Which files of a configuration directory are not configuration.

A directory holds more than httpd's configuration: the pages a DocumentRoot serves, the password
file AuthUserFile reads, Debian's mod_mime_magic data (``/etc/apache2/magic``), logs. httpd never
reads those as configuration, and reading them as if it did reports nonsense: an HTML page is a
section that never closes, a magic file is full of unterminated quotes. A file that an Include names
is configuration whatever it is called. Of the others, a file that a directive reads as data, a file
under a directory the configuration serves (but its ``.htaccess`` files), and a file whose name says
it is content are left out, each with the reason (:attr:`ConfigSet.skipped`), as Ruff leaves out
what is not Python.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .configset import ConfigSet

#: Directives whose argument at this position is a file httpd reads or writes as data.
DATA_FILE_ARGUMENT = {
    **dict.fromkeys((
        "authuserfile", "authgroupfile", "authdbmuserfile", "authdbmgroupfile", "authdigestfile",
        "mimemagicfile", "typesconfig", "errorlog", "customlog", "transferlog", "scriptlog", "rewritelog",
        "cookielog", "forensiclog", "pidfile", "lockfile", "rewritelock", "scoreboardfile", "davlockdb",
        "sslcertificatefile", "sslcertificatekeyfile", "sslcertificatechainfile", "sslcacertificatefile",
        "sslcarevocationfile", "sslproxycacertificatefile", "sslproxycarevocationfile",
        "sslproxymachinecertificatefile", "sslproxymachinecertificatechainfile", "sslsessionticketkeyfile",
        "sslpassphrasedialog",
    ), 0),
    **dict.fromkeys(("ldaptrustedglobalcert", "ldaptrustedclientcert", "rewritemap", "sslrandomseed"), 1),
}
#: Directives whose path argument names a directory of content (its files are served, not read at start-up).
SERVED_DIRECTORY_ARGUMENT = {"documentroot": 0, "alias": 1, "scriptalias": 1}
#: Names of content: what a server serves or a program runs, never httpd configuration.
CONTENT_SUFFIXES = (
    ".html", ".htm", ".shtml", ".xhtml", ".var", ".css", ".js", ".xml", ".svg", ".txt", ".md",
    ".rst", ".php", ".py", ".pl", ".cgi", ".sh", ".rb", ".pem", ".crt", ".key", ".csr", ".htpasswd",
    ".htdigest", ".types", ".log",
)
#: Files that are not configuration by name: mod_mime_magic's data (Red Hat's conf/magic, Debian's
#: /etc/apache2/magic) and Debian's environment script for apache2ctl.
CONTENT_NAMES = {"magic": "mod_mime_magic data", "envvars": "a shell script apache2ctl reads"}


def content_and_data(configset: ConfigSet) -> dict[str, str]:
    """Files of ``configset`` that no Include names and that are not configuration: name -> why."""
    included: set[str] = set()
    data: dict[str, str] = {}
    served: dict[str, str] = {}  # directory prefix -> why
    access_names = {".htaccess"}
    for document in configset.documents.values():
        for node in document.directives():
            key, args = node.key, node.args
            where = f"{document.name}:{node.location.line}"
            if key in ("include", "includeoptional") and args:
                included.update(configset.resolve_include(args[0])[0])
            elif key == "accessfilename":
                access_names.update(args)
            elif key in DATA_FILE_ARGUMENT and len(args) > DATA_FILE_ARGUMENT[key]:
                name = configset.name_of(_path(args[DATA_FILE_ARGUMENT[key]]))
                if name:
                    data.setdefault(name, f"data read by {node.name} at {where}")
            elif key in SERVED_DIRECTORY_ARGUMENT and len(args) > SERVED_DIRECTORY_ARGUMENT[key]:
                name = configset.name_of(args[SERVED_DIRECTORY_ARGUMENT[key]])
                if name and name != ".":
                    served.setdefault(name.rstrip("/") + "/", f"content served by {node.name} at {where}")
    found: dict[str, str] = {}
    for name in [*configset.documents, *(error.file for error in configset.errors)]:
        if name == configset.entry or name in included:
            continue
        base = posixpath.basename(name)
        if base in access_names:
            continue
        why = data.get(name) or next((why for prefix, why in served.items() if name.startswith(prefix)), "")
        if not why and base in CONTENT_NAMES:
            why = f"{CONTENT_NAMES[base]}, which no Include names"
        if not why and base.lower().endswith(CONTENT_SUFFIXES):
            why = f"a {base.rsplit('.', 1)[-1]} file, which no Include names"
        if why:
            found[name] = why
    return found


def _path(argument: str) -> str:
    """The file of a data argument: ``txt:/etc/map`` (RewriteMap), ``file:/dev/urandom`` (SSLRandomSeed),
    ``"|/usr/bin/rotatelogs ..."`` (a piped log: no file)."""
    if argument.startswith("|"):
        return ""
    head, sep, rest = argument.partition(":")
    if sep and head.isalpha() and len(head) > 1 and not rest.startswith("//"):
        return rest
    return argument

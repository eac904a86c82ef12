"""Differential proof for access control: two real servers, one request matrix, every status compared.

The REFERENCE is a configuration that still uses 2.2 syntax, run on 2.4 *with*
mod_access_compat; the CANDIDATE is the migrated configuration, run on 2.4
*without* mod_access_compat, so a leftover ``Order``/``Allow``/``Deny``/
``Satisfy`` makes it fail at start-up (reported with httpd's message).  Both
run at once on loopback, each with its own ServerRoot, PidFile, port and logs
(:class:`httpd24.apache.Instance`), and answer the same matrix of requests:

* every source address of :data:`SOURCES` (the client socket is bound inside
  127.0.0.0/8, and to ``::1`` where the machine has IPv6 loopback), with the
  host names of the harness's own hosts table (:mod:`._hosts`);
* no credentials, each valid user (Basic), a wrong password;
* with and without headers that set, through ``SetEnvIf``, every variable the
  configurations test (``Allow from env=X``, ``Require env X``);
* every path the configurations name (Directory/DirectoryMatch paths mapped to
  URLs, Location/LocationMatch paths, Files/FilesMatch names inside each
  directory), the path itself and a path below it;
* the methods ``<Limit>``/``<LimitExcept>``/``Require method`` name, plus GET
  and one method none of them names.

The feature ``httpd24 migrate --verify`` calls::

    from httpd24.apache import differential
    report = differential.verify(original_cs, migrated_cs)   # -> VerifyReport
    print(report.format())            # the printable difference ("" lines when equal)
    sys.exit(0 if report.ok else 1)

:func:`verify` makes 2.2's inheritance explicit first
(``httpd24.access.normalize_22``, research notes §5: 2.4 + mod_access_compat
only stands in for 2.2 after that).  When no httpd binary is installed the
report has ``skipped`` set and ``format()`` says so clearly; ``ok`` is then
False (nothing was proven).  :func:`compare` runs two configurations as given
(no normalisation) and :func:`compare_many` runs many pairs batched into one
server pair (one name-based virtual host per configuration, so batching does
not change what a request meets: nothing lives outside the virtual hosts).

How a configuration is made runnable (identically for both sides, so the
comparison is fair): Includes are inlined, then only what decides access is
kept -- the sections (Directory, Files, Location and their Match forms, Limit,
LimitExcept, Require containers, IfModule/IfDefine/IfVersion) and the
directives of :data:`KEEP` (Order/Allow/Deny/Satisfy/Require, Auth*,
SetEnvIf/BrowserMatch, SetHandler server-status, Alias, ScriptAlias (run as
an Alias: no CGI runs, and access is decided before any handler), DocumentRoot,
AllowOverride, and the Options lines 2.4 reads: whether the directory walk
follows symlinks decides which <Directory> sections a file meets).  Each
VirtualHost becomes a unit of its own (server-level content plus that host's
content); a fragment whose server (main or virtual host) has no DocumentRoot runs under the harness's and
also, as units of their own, under those an including configuration may have (:func:`includer_roots`);
one whose server has one, under Aliases the including configuration may have (:func:`includer_aliases`).
A set of .htaccess files alone runs as
the DocumentRoot's ``<Directory>``; .htaccess files beside a server
configuration are written where they lie (their directory as the access model
places them) under an ``AccessFileName`` of each side and unit, so httpd reads
them per request under the configuration's ``AllowOverride``; one the model
cannot place (no ``<Directory>``, DocumentRoot or Alias target names its directory or a parent) is not
written: the model applies it nowhere, and so do the servers.  Every absolute file system path is moved below a temporary root
(``/var/www/x`` -> ``<tmp>/fs/var/www/x``; ``<Directory />`` stays ``/``),
``AuthUserFile``/``AuthGroupFile`` point to generated files holding the users
and groups the configurations name plus :data:`BASE_USERS`, and the document
tree gets an ``index.html`` in every directory and every file requested.
Directories outside the DocumentRoot and Aliases are reached through an added
``Alias /__fs <tmp>/fs``.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import os
import posixpath
import re
import shutil
import socket
import tempfile
import time
try:  # Python >= 3.11
    import re._constants as _sre_constants
    import re._parser as _sre_parser
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as _sre_constants  # type: ignore[no-redef]
    import sre_parse as _sre_parser  # type: ignore[no-redef]
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from ..access.model import alias_rest, build, dirs_may_meet, fnmatch_pathname, htaccess_dir, normalize_dir
from ..config import ConfigSet, Directive, Section, Target, is_wildcard, module_identifier
from ..config.errors import ParseError
from ..config.options import known, refusal_24
from ..config.placement import is_htaccess
from ._auth import htgroup_file, htpasswd_line
from ._hosts import double_reverse
from ._httpd import Httpd, HttpdError, find_httpd
from ._instance import Instance

__all__ = [
    "BASE_USERS",
    "COMMON_MODULES",
    "Case",
    "Mismatch",
    "Req",
    "IPV6_UNAVAILABLE",
    "SOURCES",
    "VerifyReport",
    "compare",
    "compare_many",
    "prepare",
    "random_config",
    "random_config_htaccess",
    "random_config_wide",
    "reference_target",
    "run",
    "verify",
]



def _ipv6_loopback() -> str | None:
    """Why ``::1`` cannot be a client on this machine; None when it can."""
    if not socket.has_ipv6:
        return "this Python has no IPv6 support"
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError as e:
        return f"IPv6 loopback ::1 is unavailable on this machine ({e.strerror or e}); IPv6 clients are not judged"
    return None


#: None, or why the requests cannot come from ``::1`` here (so IPv6 clients go unjudged).
IPV6_UNAVAILABLE = _ipv6_loopback()
#: Client source addresses: inside 127.0.0.0/8, and ``::1`` where the machine has IPv6 loopback, so
#: ``Allow from ::1``, IPv6 networks and IPv4 entries are judged against an IPv6 client too.
SOURCES = ("127.0.0.1", "127.0.0.2", "127.0.0.9", "127.1.2.3") + (() if IPV6_UNAVAILABLE else ("::1",))

#: user -> (password, groups).  Users and groups named by Require lines are added.
BASE_USERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "alice": ("alice-pw", ("staff", "admins")),
    "bob": ("bob-pw", ("staff",)),
    "carol": ("carol-pw", ()),
}
WRONG_PASSWORD = "not-the-password"

#: Loaded on both sides; the reference adds access_compat_module.
COMMON_MODULES = (
    "mpm_event_module",
    "authz_core_module",
    "authz_host_module",
    "authz_user_module",
    "authz_groupfile_module",
    "authn_core_module",
    "authn_file_module",
    "auth_basic_module",
    "setenvif_module",
    "status_module",
    "alias_module",
    "mime_module",
    "dir_module",
    "ldap_module",
    "authnz_ldap_module",
)
COMPAT_MODULE = "access_compat_module"

_SECTIONS = {
    "directory", "directorymatch", "files", "filesmatch", "location", "locationmatch",
    "limit", "limitexcept", "requireall", "requireany", "requirenone",
    "ifmodule", "ifdefine", "ifversion", "if", "elseif", "else",
}
#: Directives kept from the configurations (everything else does not decide access).
KEEP = {
    "order", "allow", "deny", "satisfy", "require",
    "authtype", "authname", "authuserfile", "authgroupfile", "authbasicprovider", "authmerging",
    "authzsendforbiddenonfailure", "authbasicauthoritative",
    "setenvif", "setenvifnocase", "browsermatch", "browsermatchnocase",
    "sethandler", "alias", "aliasmatch", "scriptalias", "documentroot", "options", "allowoverride",
}
_KEPT_HANDLERS = {"server-status", "none", "default-handler"}
_FILE_SAMPLES = (
    "f.html", "secret.txt", "data.log", "x.php", "index.html", "a.cgi", "b.pl", "c.py", "img.png", "style.css",
    ".htpasswd", ".htaccess", "README", "file.inc", "x.bak", "doc.pdf", "x.conf", "a.sh", "x.ini", "y.sql",
)
#: Caps that keep a run bounded on big configurations (the most telling requests come first).
MAX_URLS = 120
MAX_NAMED_USERS = 6
_REGEX_META = set(".^$*+?()[]{}|\\")


# --- requests, mismatches, reports -------------------------------------------------------------


@dataclass(frozen=True)
class Req:
    """One request of the matrix."""

    unit: str
    method: str
    path: str
    source: str
    user: str | None = None
    password: str | None = None
    env: tuple[str, ...] = ()

    def sort_key(self) -> tuple:
        return (self.unit, self.path, self.method, self.user or "", self.password or "", self.env, self.source)

    def describe(self) -> str:
        who = "anonymous" if self.user is None else (
            f"{self.user} (wrong password)" if self.password == WRONG_PASSWORD else self.user
        )
        env = f" env={','.join(self.env)}" if self.env else ""
        return f"{self.method} {self.path} from {self.source} as {who}{env}"


@dataclass(frozen=True)
class Mismatch:
    request: Req
    reference: int
    candidate: int

    def __str__(self) -> str:
        return f"{self.request.describe()}: reference {self.reference}, candidate {self.candidate}"


@dataclass
class VerifyReport:
    """What one comparison found.

    ``ok`` is True only when both servers started and every status matched.
    ``skipped`` says why nothing ran (no httpd binary); ``reference_error`` /
    ``candidate_error`` hold httpd's start-up messages; ``mismatches`` list
    (request, reference status, candidate status); ``statuses`` maps every
    request to its (reference, candidate) status; ``reference_config`` /
    ``candidate_config`` are the runnable fragments per unit.
    """

    name: str = ""
    mismatches: list[Mismatch] = field(default_factory=list)
    requests: int = 0
    skipped: str | None = None
    reference_error: str | None = None
    candidate_error: str | None = None
    statuses: dict[Req, tuple[int, int]] = field(default_factory=dict)
    reference_config: dict[str, str] = field(default_factory=dict)
    candidate_config: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    #: The users the requests authenticated as, with their groups.
    users: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Lines of the original left out of both servers because they send URLs elsewhere (ProxyPass,
    #: RewriteRule, UserDir...): the requests they map were answered from files, so not compared as mapped.
    unserved: list[str] = field(default_factory=list)
    #: (unit, URL) of the requests whose path is a directory of the tree served (asked for with or without
    #: its slash), which the model cannot tell from the configuration alone (:func:`model_request`).
    directories: set[tuple[str, str]] = field(default_factory=set)
    #: (unit, URL) -> the file it maps to, in the units that run a fragment under an including configuration's
    #: DocumentRoot or Alias (:func:`includer_roots`, :func:`includer_aliases`), which the model does not see
    #: (:func:`model_request`).
    filenames: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not (self.skipped or self.reference_error or self.candidate_error or self.mismatches)

    def format(self, limit: int = 40, configs: bool = True) -> str:
        """A printable account: the verdict, every difference (up to ``limit``), the fragments run."""
        head = f"[{self.name}] " if self.name else ""
        if self.skipped:
            return f"{head}verify skipped: {self.skipped}"
        lines: list[str] = []
        if self.reference_error:
            lines.append(f"{head}the reference (original, 2.2 inheritance made explicit, on 2.4 + mod_access_compat) did not start:")
            lines += ["  " + line for line in self.reference_error.strip().splitlines()]
        if self.candidate_error and self.candidate_error.startswith("translation raised"):
            lines.append(f"{head}the translation failed:")
            lines += ["  " + line for line in self.candidate_error.strip().splitlines()]
        elif self.candidate_error:
            lines.append(f"{head}the migrated configuration did not start on 2.4 without mod_access_compat:")
            lines += ["  " + line for line in self.candidate_error.strip().splitlines()]
        if not lines:
            if not self.mismatches:
                return f"{head}verify: {self.requests} requests, every status matched ({self.seconds:.1f}s)" + self._unserved()
            lines.append(f"{head}verify: {len(self.mismatches)} of {self.requests} requests answered differently:")
            by_unit: dict[str, list[Mismatch]] = {}
            for m in self.mismatches:
                by_unit.setdefault(m.request.unit, []).append(m)
            shown = 0
            for unit, items in by_unit.items():
                lines.append(f"  {unit}:")
                for m in items:
                    if shown >= limit:
                        break
                    lines.append(f"    {m.request.describe():<70} original {m.reference}  migrated {m.candidate}")
                    shown += 1
            if len(self.mismatches) > shown:
                lines.append(f"  ... and {len(self.mismatches) - shown} more")
            if self.unserved:
                lines.append(self._unserved().lstrip("\n"))
        if configs:
            units = sorted({m.request.unit for m in self.mismatches}) or sorted(self.reference_config)
            for unit in units:
                if unit in self.reference_config:
                    lines.append(f"--- {unit}: reference (as run)")
                    lines.append(self.reference_config[unit].rstrip())
                if unit in self.candidate_config:
                    lines.append(f"+++ {unit}: candidate (as run)")
                    lines.append(self.candidate_config[unit].rstrip())
        return "\n".join(lines)

    def _unserved(self) -> str:
        """The lines left out, said after the verdict."""
        if not self.unserved:
            return ""
        return ("\nnot verified: both servers ran without these lines and answered the URLs they send elsewhere "
                "from files,\nso what they do to a request (and any <Proxy> section) was not compared:\n"
                + "\n".join(f"  {line}" for line in self.unserved))


# --- making a configuration runnable -----------------------------------------------------------


def _as_configset(cfg: ConfigSet | str | bytes | Mapping[str, bytes | str]) -> ConfigSet:
    if isinstance(cfg, ConfigSet):
        return cfg
    if isinstance(cfg, (str, bytes)):
        return ConfigSet.from_mapping({"httpd.conf": cfg}, entry="httpd.conf")
    return ConfigSet.from_mapping(dict(cfg), entry="httpd.conf" if "httpd.conf" in cfg else next(iter(cfg)))


def _inline(cs: ConfigSet, skip: Sequence[str] = (), document: str | None = None) -> list:
    """The nodes of the configuration in reading order, Includes replaced by the files they reach:
    from its entry, else from every document but those ``skip`` names (its .htaccess files); or
    from ``document`` alone (one .htaccess file)."""
    if cs.errors:
        raise cs.errors[0]

    def expand(nodes, stack):
        out = []
        for node in nodes:
            if isinstance(node, Section):
                out.append((node, expand(node.children, stack)))
            elif isinstance(node, Directive):
                if node.key in ("include", "includeoptional") and node.args:
                    names, _outside = cs.resolve_include(node.args[0])
                    for name in names:
                        if name in stack or name not in cs.documents:
                            continue
                        out += expand(cs.documents[name].children, stack + [name])
                else:
                    out.append((node, None))
        return out

    first = document or cs.entry
    if first is not None:
        return expand(cs.documents[first].children, [first])
    out = []
    for name, doc in cs.documents.items():
        if name not in skip:
            out += expand(doc.children, [name])
    return out


def _quote(arg: str) -> str:
    if arg and not re.search(r'[\s"\'\\]', arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class _Unit:
    """One runnable virtual host: the kept text plus what the request matrix needs."""

    text: str
    docroot: str = "/var/www/html"
    dirs: set[str] = field(default_factory=set)  # absolute fs paths (before moving under the fs root)
    #: Directories a regex or wildcard <Directory> matches (asked beside too: ``/a`` -> ``/ax/``).
    pattern_dirs: set[str] = field(default_factory=set)
    dir_regexes: list[str] = field(default_factory=list)
    locations: set[str] = field(default_factory=set)
    location_regexes: list[str] = field(default_factory=list)
    handler_locations: set[str] = field(default_factory=set)
    file_names: set[str] = field(default_factory=set)
    file_regexes: list[str] = field(default_factory=list)
    aliases: list[tuple[str, str]] = field(default_factory=list)  # (url, fs path)
    users: set[str] = field(default_factory=set)
    groups: set[str] = field(default_factory=set)
    env: set[str] = field(default_factory=set)
    methods: set[str] = field(default_factory=set)
    #: Directory (before moving) -> the kept text of the .htaccess file(s) there.
    htaccess: dict[str, str] = field(default_factory=dict)
    #: A whole server configuration: no request reaches a directory its DocumentRoot and Aliases do not map
    #: (a fragment's may: an Alias of the configuration that includes it), so none is asked through /__fs.
    whole_server: bool = False

    def shown(self) -> str:
        """The text as run, with its .htaccess files (for reports)."""
        return self.text + "".join(f"# .htaccess of {d} (read per request):\n{text}"
                                   for d, text in sorted(self.htaccess.items()))


_WILDCARD_TOKEN = re.compile(r"\[[!^]?\]?[^\]]*\]|\\.|.", re.S)
#: Characters tried for a wildcard or a regex set: those the generators' names use first.
_SAMPLE_CHARS = "wvq0x"


def _concretes(path: str) -> list[str]:
    """Two concrete paths a wildcard one matches (``/home/*/www`` -> ``/home/w/www``, ``/home/v/www``;
    the first and the last member of a ``[...]`` set): the sample reaches inside the section, and
    tells it from a section naming one of its paths."""
    first, last = [], []
    for tok in _WILDCARD_TOKEN.findall(path):
        if tok == "*":
            opts = ["w", "v"]
        elif tok == "?":
            opts = ["q", "r"]
        elif tok.startswith("[") and len(tok) > 1:
            members = "" if tok[1:2] in ("!", "^") else tok[1:-1]
            opts = [c for c in dict.fromkeys(members + _SAMPLE_CHARS) if fnmatch_pathname(tok, c)] or ["w"]
        else:
            opts = [tok[-1]]
        first.append(opts[0])
        last.append(opts[-1])
    return list(dict.fromkeys(["".join(first), "".join(last)]))


def _regex_examples(regex: str, limit: int = 3) -> list[str]:
    """Up to ``limit`` texts ``regex`` matches, one per alternative where it has several (``^/(a|c)``
    -> ``/a``, ``/c``; ``^/a/?`` -> ``/a``, ``/a/``), so the sample reaches every branch of a regex
    section and not only the literal text its branches share. Found by walking Python's parse of it
    (the PCRE syntax sections use); an example Python's re does not see match is dropped."""
    try:
        tree = _sre_parser.parse(regex)
    except (re.error, RecursionError, OverflowError):
        return []
    c = _sre_constants

    def in_set(items, ch: str) -> bool:
        hit, negate = False, False
        for op, av in items:
            if op is c.NEGATE:
                negate = True
            elif op is c.LITERAL:
                hit = hit or ord(ch) == av
            elif op is c.RANGE:
                hit = hit or av[0] <= ord(ch) <= av[1]
            elif op is c.CATEGORY:
                hit = hit or re.fullmatch(_CATEGORY.get(str(av), "(?!)"), ch) is not None
        return hit != negate

    def one(op, av) -> list[str] | None:
        if op is c.LITERAL:
            return [chr(av)]
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return [""]
        if op in (c.NOT_LITERAL, c.ANY, c.IN):
            items = av if op is c.IN else [(c.NEGATE, None), (c.LITERAL, av)] if op is c.NOT_LITERAL else []
            pool = [chr(v) for o, v in items if o is c.LITERAL] + [chr(v[0]) for o, v in items if o is c.RANGE]
            found = [ch for ch in dict.fromkeys(pool + list(_SAMPLE_CHARS + "/.-_")) if op is c.ANY or in_set(items, ch)]
            return [found[0], found[-1]] if found and op is c.IN and len(found) > 1 and not any(
                o is c.NEGATE for o, _v in items) else found[:1] or None
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            body = seq(sub)
            counts = [low] + ([1] if low == 0 and high != 0 else [])
            return [b * n for n in counts for b in body] if body else None
        if op is c.SUBPATTERN:
            return seq(av[-1])
        if op is c.BRANCH:
            return [x for branch in av[1] for x in (seq(branch) or [])] or None
        return None  # a back reference, a conditional group: no example

    def seq(items) -> list[str]:
        outs = [""]
        for op, av in items:
            alts = one(op, av)
            if alts is None:
                return []
            outs = list(dict.fromkeys(a + b for a in outs for b in alts))[: limit * 4]
        return outs

    try:
        found = [x for x in seq(tree) if re.search(regex, x)]
    except re.error:
        return []
    return found[:limit]


_CATEGORY = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_WORD": r"\w",
             "CATEGORY_NOT_WORD": r"\W", "CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S"}


def _literal_prefix(regex: str) -> str:
    """The literal text a regex starts with (``^/private/.*`` -> ``/private/``)."""
    s = regex[1:] if regex.startswith("^") else regex
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and not s[i + 1].isalnum():
            out.append(s[i + 1])
            i += 2
            continue
        if c in _REGEX_META:
            # an optional previous character must not be kept
            if c in "?*{" and out:
                out.pop()
            break
        out.append(c)
        i += 1
    return "".join(out)


def _walk(nodes, *, directives: bool = False):
    """Every section of inlined nodes, depth first (and every directive, with ``directives``)."""
    for node, children in nodes:
        if isinstance(node, Section):
            yield node
            yield from _walk(children or [], directives=directives)
        elif directives:
            yield node


class _Extractor:
    """Keeps what decides access; records paths, users, groups, env vars and methods."""

    def __init__(self, fs_root: str, user_file: str, group_file: str):
        self.fs_root = fs_root.rstrip("/")
        self.user_file = user_file
        self.group_file = group_file

    def fs(self, path: str) -> str:
        if not path.startswith("/") or path == "/":
            return path
        return self.fs_root + path

    def fs_regex(self, regex: str) -> str:
        """The regex of a <DirectoryMatch> for paths moved below the fs root.

        httpd merges regex sections in the order of the "/" written in them (then reading order), so a
        regex left as it is gets, ahead of it, a lookahead that always holds and holds as many "/" as
        the root added to the anchored ones: the order stays the original's."""
        if regex.startswith("^/"):
            return "^" + re.escape(self.fs_root) + regex[1:]
        return "(?=|" + "/" * self.fs_root.count("/") + ")" + regex

    def units(self, cs: ConfigSet) -> list[tuple[str, _Unit]]:
        names = [cs.entry] if cs.entry is not None else list(cs.documents)
        htaccess = bool(names) and all(is_htaccess(n) for n in names)
        # .htaccess files beside a server configuration: each unit reads them where they lie
        files = [] if htaccess else [n for n in cs.documents if is_htaccess(n) and n != cs.entry]
        nodes = _inline(cs, skip=files)
        main = [n for n in nodes if not (isinstance(n[0], Section) and n[0].key == "virtualhost")]
        vhosts = [n for n in nodes if isinstance(n[0], Section) and n[0].key == "virtualhost"]
        dirs = {normalize_dir(posixpath.join(cs.server_root, node.args[-1])) for node in _walk(nodes, directives=True)
                if node.key in ("directory", "documentroot") and len(node.args) == 1
                or node.key in ("alias", "scriptalias") and len(node.args) == 2}
        # one the model does not place applies nowhere (access.model.htaccess_dir): not written either
        placed = [(where, _inline(cs, document=n)) for n in files
                  if (where := htaccess_dir(n, cs.server_root, dirs)) is not None]
        model = build(cs)
        # where the virtual hosts take every Listen of a whole configuration no request meets the main server
        reached = not vhosts or model.main_reachable
        out = [("main", self.unit(main, htaccess=htaccess, files=placed))] if reached else []
        for i, (node, children) in enumerate(vhosts, 1):
            # no line number: the migrated file may have more lines, the units must still pair up
            label = f"vhost{i} <VirtualHost {' '.join(node.args)}> ({node.location.file})"
            out.append((label, self.unit(main + children, files=placed)))
        for _label, unit in out:
            unit.whole_server = model.whole_server
        if not model.whole_server:
            # A fragment runs under its includer's DocumentRoot where it sets none: also under those that put one of
            # its <Location> URLs on one of its <Directory> paths; and under its includer's Aliases: also under
            # those that put one on a <Directory> its own mapping does not reach. Each is a unit of its own, for
            # the main server and for each virtual host (which inherits both from the includer's main server).
            servers = ([None] if reached else []) + list(model.vhosts)
            if len(servers) == len(out):  # else a virtual host the model reads differently: no pairing
                roots = [(model.document_root.get(id(s)) if s is not None else None) or model.document_root.get(None)
                         for s in servers]
                out = [run for (label, unit), root in zip(out, roots)
                       for run in [(label, unit), *self._under_includer(label, unit, root is not None)]]
        return out

    def _under_includer(self, label: str, unit: _Unit, sets_root: bool) -> list[tuple[str, _Unit]]:
        """The units that run ``unit`` under its includer's DocumentRoots (where its server sets none) or Aliases."""
        if not sets_root:
            return [(f"{label} {INCLUDER} DocumentRoot {root})", replace(unit, docroot=root))
                    for root in includer_roots(unit)]
        return [(f"{label} {INCLUDER} Alias {url} {target})",
                 replace(unit, text=f"Alias {_quote(url)} {_quote(self.fs(target))}\n" + unit.text,
                         aliases=[(url, target), *unit.aliases]))
                for url, target in includer_aliases(unit)]

    def unit(self, nodes, *, htaccess: bool = False, files: Sequence[tuple[str, list]] = ()) -> _Unit:
        """The kept text; a set of .htaccess files alone is run as a ``<Directory>`` of the DocumentRoot.
        ``files``: (directory, nodes) of the .htaccess files beside the server configuration, kept in
        :attr:`_Unit.htaccess`."""
        unit = _Unit(text="")
        lines: list[str] = []
        self._emit(nodes, lines, 1 if htaccess else 0, unit, in_location=None)
        if htaccess:
            unit.dirs.add(unit.docroot)
            lines = [f"<Directory {_quote(self.fs(unit.docroot))}>", *lines, "</Directory>"]
        unit.text = "\n".join(lines) + "\n"
        for directory, file_nodes in files:
            where = directory.rstrip("/") or "/"
            body: list[str] = []
            self._emit(file_nodes, body, 0, unit, in_location=None)
            unit.dirs.add(where)
            unit.htaccess[where] = unit.htaccess.get(where, "") + "\n".join(body) + "\n"
        return unit

    def _emit(self, nodes, lines, depth, unit, in_location):
        pad = "    " * depth
        for node, children in nodes:
            key = node.key
            if isinstance(node, Section):
                if key == "virtualhost" or key not in _SECTIONS:
                    continue
                args = list(node.args)
                loc = in_location
                if key in ("directory", "directorymatch"):
                    if key == "directorymatch" or (args and args[0] == "~"):
                        rx = args[-1] if args else ""
                        unit.dir_regexes.append(rx)
                        pref = _literal_prefix(rx)
                        if pref.startswith("/"):
                            unit.dirs.add(pref.rsplit("/", 1)[0] if not pref.endswith("/") else pref.rstrip("/") or "/")
                        for ex in _regex_examples(rx):
                            # unanchored (`/b$`): below the DocumentRoot too, where requests reach it
                            for d in [ex] + ([unit.docroot.rstrip("/") + ex] if ex.startswith("/") and not rx.startswith("^") else []):
                                if d.startswith("/") and d.rstrip("/"):
                                    unit.pattern_dirs.add(d.rstrip("/"))
                        args = args[:-1] + [self.fs_regex(rx)] if args else args
                    elif args:
                        concrete = [c.rstrip("/") or "/" for c in _concretes(args[0])]
                        unit.dirs.add(concrete[0])
                        if concrete[1:] or concrete[0] != args[0].rstrip("/"):
                            unit.pattern_dirs.update(concrete)
                        args = [self.fs(args[0])]
                elif key in ("location", "locationmatch"):
                    if key == "locationmatch" or (args and args[0] == "~"):
                        rx = args[-1] if args else ""
                        unit.location_regexes.append(rx)
                        pref = _literal_prefix(rx)
                        if pref.startswith("/"):
                            unit.locations.add(pref)
                            loc = pref
                        for ex in _regex_examples(rx):
                            url = ex if ex.startswith("/") else "/" + ex
                            if re.search(rx, url):
                                unit.locations.add(url)
                    elif args:
                        unit.locations.update(_concretes(args[0]))
                        loc = _concretes(args[0])[0]
                elif key in ("files", "filesmatch"):
                    if key == "filesmatch" or (args and args[0] == "~"):
                        unit.file_regexes.append(args[-1] if args else "")
                    elif args:
                        unit.file_names.update(_concretes(args[0]))
                elif key in ("limit", "limitexcept"):
                    unit.methods.update(a.upper() for a in args)
                lines.append(f"{pad}<{' '.join([node.name] + [_quote(a) for a in args])}>")
                self._emit(children or [], lines, depth + 1, unit, loc)
                lines.append(f"{pad}</{node.name}>")
                continue
            if not isinstance(node, Directive) or not (key in KEEP or key.startswith("authldap")):
                continue
            name, args = node.name, list(node.args)
            if key == "sethandler":
                if not args or args[0].lower() not in _KEPT_HANDLERS:
                    continue
                if in_location and args[0].lower() == "server-status":
                    unit.handler_locations.add(in_location)
            elif key == "options" and (not known(args) or refusal_24(args) is not None):
                continue  # a line 2.4 refuses would stop both servers (HT121 says what 2.2 made of it)
            elif key == "documentroot" and args:
                unit.docroot = args[0].rstrip("/") or "/"
                args = [self.fs(args[0])]
            elif key in ("alias", "scriptalias") and len(args) == 2:
                # a ScriptAlias runs as an Alias: no CGI here, and access is decided before any handler
                name = "Alias"
                unit.aliases.append((args[0], args[1]))
                unit.locations.add(args[0])
                unit.dirs.add(args[1].rstrip("/") or "/")
                args = [args[0], self.fs(args[1])]
            elif key == "aliasmatch" and len(args) == 2:
                args = [args[0], self.fs(args[1])]
            elif key == "authldapurl" and args:
                # no directory server here: a closed local port fails at once instead of a DNS/connect wait
                args = [re.sub(r"^(ldaps?://)[^/]*", r"\g<1>127.0.0.1:9", args[0])] + args[1:]
            elif key == "authuserfile":
                args = [self.user_file]
            elif key == "authgroupfile":
                args = [self.group_file]
            elif key in ("allow", "deny"):
                for a in args[1:]:
                    m = re.match(r"(?i)env=!?(.+)", a)
                    if m:
                        unit.env.add(m.group(1))
            elif key == "require" and args:
                kind = args[0].lower()
                rest = args[1:]
                if kind == "not" and rest:
                    kind, rest = rest[0].lower(), rest[1:]
                if kind == "user":
                    unit.users.update(rest)
                elif kind == "group":
                    unit.groups.update(rest)
                elif kind == "env":
                    unit.env.update(rest)
                elif kind == "method":
                    unit.methods.update(r.upper() for r in rest)
            lines.append(pad + " ".join([name] + [_quote(a) for a in args]))


#: What the label of a unit that runs a fragment under an including configuration's DocumentRoot
#: (:func:`includer_roots`) or Alias (:func:`includer_aliases`) holds after the label of the server it runs.
INCLUDER = "(the including configuration's"
#: How such a unit of the main server begins.
INCLUDER_UNIT = f"main {INCLUDER}"


def includer_roots(unit: _Unit, limit: int = 2) -> list[str]:
    """DocumentRoots the configuration including a fragment that sets none may have, other than the harness's
    own: first those that put one of its <Location> URLs on one of its <Directory> paths (Debian's /var/www, for
    `<Location /admin>` and `<Directory /var/www/admin>`), then its <Directory> paths themselves, which put
    every <Location> under them. At most ``limit``, in that order."""
    urls = [url for location in unit.locations if (url := location.rstrip("/"))]
    directories = sorted({d.rstrip("/") for d in unit.dirs if d.rstrip("/")}) if urls else []
    aligned = sorted({d[: -len(url)] for d in directories for url in urls if len(d) > len(url) and d.endswith(url)})
    found = [root for root in dict.fromkeys(aligned + directories) if root != unit.docroot.rstrip("/")]
    return found[:limit]


def includer_aliases(unit: _Unit, limit: int = 2) -> list[tuple[str, str]]:
    """Aliases the configuration including a fragment that sets its DocumentRoot may have: (URL, directory) of its
    <Location> URLs its own Aliases do not map and its <Directory> paths neither its DocumentRoot nor its Aliases
    reach (what else would serve them?), where the directory is named after the URL or a leading part of it, as
    aliases are (`Alias /phpmyadmin /usr/share/phpmyadmin`: what the access model foresees). At most ``limit``."""
    mapped = [normalize_dir(path) for path in [unit.docroot, *(target for _url, target in unit.aliases)]]
    unreached = sorted(d for d in map(normalize_dir, unit.dirs) if not any(dirs_may_meet(d, there) for there in mapped))
    urls = sorted(url for location in unit.locations
                  if (url := location.rstrip("/")) and all(alias_rest(url, prefix) is None for prefix, _ in unit.aliases))
    found: dict[tuple[str, str], None] = {}
    for url in urls:
        parts = [part for part in url.split("/") if part]
        for prefix in ("/" + "/".join(parts[:n]) for n in range(1, len(parts) + 1)):
            for d in unreached:
                target = d[: d.rfind(prefix + "/") + len(prefix)] if prefix + "/" in d else None
                if target is not None and not is_wildcard(target):
                    found.setdefault((prefix, target))
    return list(found)[:limit]


def _user_table(names: Iterable[str], groups: Iterable[str]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """BASE_USERS plus every named user; every named group gets a member of its own and alice.

    With three named groups or more, each pair of them gets a member too: `<RequireAll>` of
    `Require group a b`, `Require group c d` and `Require group e f` and the same without its last
    line refuse every member of one group and admit a member of all; only {a, c} tells them apart."""
    users = {u: (p, tuple(g)) for u, (p, g) in BASE_USERS.items()}
    for name in sorted(set(names))[:MAX_NAMED_USERS]:
        if name not in users and re.fullmatch(r"[\w.@-]{1,64}", name):
            users[name] = (f"{name}-pw", ())
    named = [g for g in sorted(set(groups))[:MAX_NAMED_USERS] if re.fullmatch(r"[\w.@-]{1,64}", g)]
    for i, group in enumerate(named):
        if any(group in g for _p, g in users.values()):
            continue
        member = f"member{i}-{group}"[:64]
        users[member] = (f"{member}-pw", (group,))
        pw, gs = users["alice"]
        users["alice"] = (pw, gs + (group,))
    if len(named) >= 3:
        for i, j in itertools.combinations(range(len(named)), 2):
            users[f"member{i}-{j}"] = (f"member{i}-{j}-pw", (named[i], named[j]))
    return users


# --- the request matrix ------------------------------------------------------------------------


def _urls(unit: _Unit, alias_fs: str = "/__fs") -> list[str]:
    """Every URL the unit's configuration names, and one below each."""
    docroot = unit.docroot.rstrip("/")

    def dir_url(d: str) -> str | None:
        d = d.rstrip("/")
        for url, target in sorted(unit.aliases, key=lambda a: -len(a[1])):
            t = target.rstrip("/")
            if d == t or d.startswith(t + "/"):
                return url.rstrip("/") + d[len(t):]
        if docroot and (d == docroot or d.startswith(docroot + "/")):
            return d[len(docroot):]
        if d == "" or d == "/" or unit.whole_server:
            return None
        return alias_fs + d

    urls: list[str] = ["/", "/f.html"]
    names = set(unit.file_names)
    for rx in unit.file_regexes:
        try:
            pat = re.compile(rx)
        except re.error:
            continue
        hits = [s for s in _FILE_SAMPLES if pat.search(s)] or [
            x for x in _regex_examples(rx) if x and "/" not in x and pat.search(x)]
        names.update(hits[:2])
    names = {n for n in names if "/" not in n and n not in ("", ".", "..")}
    dir_urls = []
    for d in sorted(unit.dirs | unit.pattern_dirs):
        u = dir_url(d)
        if u is not None:
            dir_urls.append(u)
    dir_urls.append("")
    dir_urls = sorted(set(dir_urls))
    pattern_urls = sorted({u for u in map(dir_url, unit.pattern_dirs) if u})
    locs = [loc for loc in sorted(unit.locations) if loc.startswith("/")]
    # most telling first (the named paths, then below them, then beside them, then files in them), so a
    # cap keeps those. Beside: `<Location /a>` and a regex meet /ax, `<Location /a/>` does not meet /a.
    tiers: list[list[str]] = [[], [], [], []]
    for u in dir_urls:
        tiers[0].append(u + "/")
        tiers[1] += [u + "/f.html"]
        tiers[2] += [u + "/sub/f.html"]
        tiers[3] += [u + "/" + n for n in sorted(names)]
    tiers[2] += [u + "x/" for u in pattern_urls]
    for loc in locs:
        base = loc.rstrip("/")
        tiers[0].append(loc if base else "/")
        if not base:
            continue
        if "." in base.rsplit("/", 1)[-1] and not loc.endswith("/"):
            tiers[2].append(base + "x")  # a file's name (`<Location /a/f.html>`, `f\.html$`): kept a file
            continue
        tiers[1] += [base + "/f.html"] + ([] if loc.endswith("/") else [base + "/"])
        tiers[2] += [base + "x"] + ([base] if loc.endswith("/") else [])
    for tier in tiers:
        urls += tier
    seen: dict[str, None] = {}
    for u in urls:
        u = re.sub(r"/+", "/", u)
        if u.startswith("/"):
            seen.setdefault(u, None)
    return list(seen)[:MAX_URLS]


def _fs_for_url(unit: _Unit, url: str, alias_fs: str = "/__fs") -> str | None:
    for prefix, target in sorted(unit.aliases, key=lambda a: -len(a[0])):
        rest = alias_rest(url, prefix)
        if rest is not None:
            return target.rstrip("/") + rest
    if url.startswith(alias_fs + "/"):
        return url[len(alias_fs):]
    return unit.docroot.rstrip("/") + url


def _build_tree(fs_root: Path, plans: Sequence[tuple[_Unit, Sequence[str]]]) -> set[str]:
    """Create directories (with index.html) and files for the URLs of every unit under ``fs_root``.

    A path that one URL needs as a directory and another as a file is a
    directory (the file URL then gets 301/403/404 on both sides alike).
    Nothing is created below a Location that has a handler (mod_dir would redirect).
    """
    dirs: set[str] = set()
    files: set[str] = set()
    for unit, urls in plans:
        # What a <Directory> names is a directory, as on a real server, even where no URL needs it as one
        # (under `Alias /c/ …`, /c still maps to the DocumentRoot's c, and <Directory …/c> applies to it).
        dirs.update(unit.dirs)
        handler = [h.rstrip("/") for h in unit.handler_locations if h.rstrip("/")]
        for url in urls:
            if any(url == h or url.startswith(h + "/") for h in handler):
                continue
            target = _fs_for_url(unit, url)
            if target is None:
                continue
            if url.endswith("/"):
                dirs.add(target.rstrip("/") or "/")
            else:
                files.add(target)
    dirs = {d for d in dirs if d.startswith("/")}
    files = {f for f in files if f.startswith("/")}
    for f in list(files) + list(dirs):
        parent = f.rsplit("/", 1)[0]
        while parent.startswith("/"):
            dirs.add(parent)
            parent = parent.rsplit("/", 1)[0]
    for d in sorted(dirs):
        p = fs_root / d.lstrip("/")
        p.mkdir(parents=True, exist_ok=True)
        idx = p / "index.html"
        if not idx.exists():
            idx.write_text(f"# index of {d}\n")
    for f in sorted(files - dirs):
        p = fs_root / f.lstrip("/")
        if not p.exists():
            p.write_text(f"# file {f}\n")  # a comment: harmless even when read as .htaccess
    return dirs


def _env_states(names: Sequence[str]) -> list[tuple[str, ...]]:
    """Which variables a request sets: every combination of up to three names (`Require env A B` in a
    `<RequireAll>` with `Require env C` tells {A, C} from {A} and {C}), else none, each one and all."""
    names = sorted(names)
    if len(names) <= 3:
        return [c for n in range(len(names) + 1) for c in itertools.combinations(names, n)]
    return [(), *((n,) for n in names), tuple(names)]


def _methods(unit_methods: set[str]) -> list[str]:
    if not unit_methods:
        return ["GET"]
    named = sorted(m for m in unit_methods if re.fullmatch(r"[A-Z][A-Z-]*", m) and m not in ("HEAD", "CONNECT", "OPTIONS", "TRACE"))
    extra = next(m for m in ("DELETE", "POST", "PUT", "PATCH", "PROPFIND") if m not in unit_methods)
    return list(dict.fromkeys(["GET", *named, extra]))


def _creds(users: Mapping[str, tuple[str, tuple[str, ...]]]) -> list[tuple[str | None, str | None]]:
    out: list[tuple[str | None, str | None]] = [(None, None)]
    out += [(u, p) for u, (p, _g) in users.items()]
    out.append(("alice", WRONG_PASSWORD))
    return out


def _creds_for(creds: list[tuple[str | None, str | None]], users: Mapping[str, tuple[str, tuple[str, ...]]],
               groups: set[str]) -> list[tuple[str | None, str | None]]:
    """``creds`` a unit naming ``groups`` is asked with: a member of a pair of groups (:func:`_user_table`) only
    where it names both. The table serves a whole batch, and six groups named anywhere in it made fifteen pair
    members, which multiplied every unit's requests."""
    return [(u, pw) for u, pw in creds
            if u is None or u in BASE_USERS or len(users[u][1]) < 2 or set(users[u][1]) <= groups]


# --- a pipelining client -----------------------------------------------------------------------


class _Conn:
    def __init__(self, port: int, source: str, timeout: float):
        v6 = ":" in source  # the servers listen on ::1 too (Instance(ipv6=True)): the same port
        self.sock = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.bind((source, 0))
        self.sock.connect(("::1" if v6 else "127.0.0.1", port))
        self.file = self.sock.makefile("rb")

    def close(self) -> None:
        try:
            self.file.close()
        finally:
            self.sock.close()

    def read_status(self, method: str) -> tuple[int, bool] | None:
        """(status, connection closes after it) of the next response, None at EOF."""
        line = self.file.readline(65537)
        if not line:
            return None
        parts = line.split()
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/"):
            raise HttpdError(f"bad status line {line!r}")
        status = int(parts[1])
        length = None
        chunked = False
        close = False
        while True:
            h = self.file.readline(65537)
            if not h:
                return None
            if h in (b"\r\n", b"\n"):
                break
            k, _, v = h.partition(b":")
            k = k.strip().lower()
            v = v.strip().lower()
            if k == b"content-length":
                length = int(v)
            elif k == b"transfer-encoding" and b"chunked" in v:
                chunked = True
            elif k == b"connection" and b"close" in v:
                close = True
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return status, close
        if chunked:
            while True:
                size_line = self.file.readline(65537)
                if not size_line:
                    return None
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.file.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                self.file.read(size + 2)
        elif length is not None:
            self.file.read(length)
        else:
            self.file.read()
            close = True
        return status, close


def _raw(req: Req, host: str, env_headers: Mapping[str, str]) -> bytes:
    import base64

    lines = [f"{req.method} {req.path} HTTP/1.1", f"Host: {host}"]
    if req.user is not None:
        token = base64.b64encode(f"{req.user}:{req.password or ''}".encode()).decode("ascii")
        lines.append(f"Authorization: Basic {token}")
    for name in req.env:
        lines.append(f"{env_headers[name]}: 1")
    if req.method in ("POST", "PUT", "PATCH"):
        lines.append("Content-Length: 0")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


#: Connections each side is asked on at once per client address. The requests are independent, and an answer
#: that closes the connection (500) makes every request a new connection, and a new host lookup of the client:
#: instant from the harness's own hosts table (:mod:`._hosts`), but where nss_wrapper is missing the machine's
#: resolver may stall each one for seconds (seed 1002 vhosts index 130 took 98 s on one stream, 71 on four).
_STREAMS = 4


def _send_all(port: int, source: str, reqs: Sequence[Req], hosts: Mapping[str, str],
              env_headers: Mapping[str, str], timeout: float, deadline: float) -> dict[Req, int]:
    """Pipeline ``reqs`` from ``source``; reconnect when the server closes the connection."""
    out: dict[Req, int] = {}
    pending = list(reqs)
    batch = 200
    stalls = 0
    while pending:
        if time.monotonic() > deadline:
            raise HttpdError(f"request matrix did not finish in time ({len(pending)} requests left)")
        conn = _Conn(port, source, timeout)
        chunk = pending[:batch]
        try:
            conn.sock.sendall(b"".join(_raw(r, hosts[r.unit], env_headers) for r in chunk))
            got = 0
            for r in chunk:
                res = conn.read_status(r.method)
                if res is None:
                    break
                out[r] = res[0]
                got += 1
                if res[1]:
                    break
        except (ConnectionResetError, BrokenPipeError):
            got = sum(1 for r in chunk if r in out)
        finally:
            conn.close()
        # the server closes after some answers (500, 400...): send fewer at once, more again when it keeps up
        batch = min(200, batch * 2) if got == len(chunk) else max(1, min(batch, 2 * got))
        pending = pending[got:]
        stalls = stalls + 1 if got == 0 else 0
        if stalls >= 3:
            raise HttpdError(f"the server answered nothing to {pending[0].describe()}")
    return out


# --- running -----------------------------------------------------------------------------------


@dataclass
class Case:
    """One configuration pair for :func:`compare_many`: runnable as given (no normalisation).

    Either side may be an exception (the normaliser or translator raised): the
    case then fails with its message and nothing is started for it.
    """

    name: str
    reference: ConfigSet | str | bytes | Mapping[str, bytes | str]
    candidate: ConfigSet | str | bytes | Mapping[str, bytes | str]


@dataclass
class _Prepared:
    name: str
    ref_units: list[tuple[str, _Unit]]
    cand_units: list[tuple[str, _Unit]]
    error: str | None = None
    failure: tuple[str, BaseException] | None = None  # the normaliser or translator raised


class _Workspace:
    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="httpd24-differential-"))
        self.fs = self.tmp / "fs"
        self.fs.mkdir()
        self.user_file = str(self.tmp / "users.htpasswd")
        self.group_file = str(self.tmp / "groups.htgroup")

    def open_up(self) -> None:
        if os.geteuid() != 0:
            return
        for dirpath, _dirnames, filenames in os.walk(self.tmp):
            os.chmod(dirpath, 0o755)
            for f in filenames:
                os.chmod(os.path.join(dirpath, f), 0o644)

    def cleanup(self) -> None:
        if not os.environ.get("HTTPD24_KEEP_TMP"):
            shutil.rmtree(self.tmp, ignore_errors=True)


def prepare(cfg: ConfigSet | str | bytes | Mapping[str, bytes | str], fs_root: str = "/FS",
            user_file: str = "/USERS", group_file: str = "/GROUPS") -> dict[str, str]:
    """The runnable fragment(s) of a configuration, per unit (for reading and for tests)."""
    ex = _Extractor(fs_root, user_file, group_file)
    return {label: unit.text for label, unit in ex.units(_as_configset(cfg))}


def _vhost(host: str, unit: _Unit, fs_root: str, access_file: str) -> str:
    """One unit as a name-based virtual host; ``access_file``: the name its .htaccess files are written
    under (one per side and unit: both servers and every unit of a batch share one file tree)."""
    docroot = fs_root + unit.docroot if unit.docroot != "/" else fs_root
    body = "\n".join("    " + line if line else line for line in unit.text.rstrip("\n").splitlines())
    access = f"    AccessFileName {access_file}\n" if unit.htaccess else ""
    return (
        f"<VirtualHost *:*>\n    ServerName {host}\n    DocumentRoot {_quote(docroot)}\n"
        f"    Alias /__fs {_quote(fs_root)}\n{access}{body}\n</VirtualHost>\n"
    )


def _write_htaccess(fs_root: Path, unit: _Unit, access_file: str) -> None:
    for directory, text in unit.htaccess.items():
        (fs_root / directory.lstrip("/") / access_file).write_text(text)


def compare_many(
    cases: Sequence[Case],
    *,
    httpd: Httpd | None = None,
    timeout: float = 10,
    budget: float = 300,
    sources: Sequence[str] = SOURCES,
    isolate_failures: bool = True,
    candidate_compat: bool = False,
) -> list[VerifyReport]:
    """Run every pair in one server pair (one virtual host per unit); one report per case.

    When a server does not start, each case is run again on its own so the
    failure is reported against the case that causes it.
    """
    httpd = httpd or find_httpd()
    if httpd is None:
        return [VerifyReport(name=c.name, skipped=_NO_HTTPD) for c in cases]
    t0 = time.monotonic()
    ws = _Workspace()
    try:
        prepared: list[_Prepared] = []
        ex = _Extractor(str(ws.fs), ws.user_file, ws.group_file)
        for c in cases:
            if isinstance(c.reference, BaseException) or isinstance(c.candidate, BaseException):
                p = _Prepared(c.name, [], [])
                p.failure = ("reference", c.reference) if isinstance(c.reference, BaseException) else ("candidate", c.candidate)
                prepared.append(p)
                continue
            try:
                prepared.append(_Prepared(c.name, ex.units(_as_configset(c.reference)), ex.units(_as_configset(c.candidate))))
            except (ParseError, ValueError) as e:
                prepared.append(_Prepared(c.name, [], [], f"cannot read the configuration: {e}"))
        reports = _run_prepared(prepared, ws, httpd, timeout=timeout, budget=budget, sources=sources, candidate_compat=candidate_compat)
        if isolate_failures and len(cases) > 1:
            # a server that did not start fails the whole batch: find the case(s) responsible
            for i, (p, r) in enumerate(zip(prepared, reports)):
                if p.error is None and p.failure is None and (r.reference_error or r.candidate_error):
                    reports[i] = _run_prepared([p], ws, httpd, timeout=timeout, budget=budget, sources=sources,
                                               candidate_compat=candidate_compat)[0]
        for r in reports:
            r.seconds = time.monotonic() - t0
        return reports
    finally:
        ws.cleanup()


_NO_HTTPD = (
    "no Apache httpd 2.4 binary found (install Debian's apache2, /usr/sbin/apache2, "
    "or set HTTPD24_HTTPD=/path/to/httpd[:/path/to/modules]); nothing was verified"
)


def _run_prepared(prepared: Sequence[_Prepared], ws: _Workspace, httpd: Httpd, *, timeout: float,
                  budget: float, sources: Sequence[str], candidate_compat: bool = False) -> list[VerifyReport]:
    reports = [VerifyReport(name=p.name) for p in prepared]
    runnable = []
    for p, r in zip(prepared, reports):
        if p.failure:
            side, exc = p.failure
            text = f"{'normalisation' if side == 'reference' else 'translation'} raised {type(exc).__name__}: {exc}"
            if side == "reference":
                r.reference_error = text
            else:
                r.candidate_error = text
        elif p.error:
            r.reference_error = p.error
        else:
            runnable.append((p, r))
    if not runnable:
        return reports

    # users, groups, env variables over every unit of the batch
    all_units = [u for p, _r in runnable for _l, u in p.ref_units + p.cand_units]
    users = _user_table(itertools.chain.from_iterable(u.users for u in all_units),
                        itertools.chain.from_iterable(u.groups for u in all_units))
    Path(ws.user_file).write_text("".join(htpasswd_line(u, pw, scheme="sha") + "\n" for u, (pw, _g) in users.items()))
    groups: dict[str, list[str]] = {}
    for u, (_pw, gs) in users.items():
        for g in gs:
            groups.setdefault(g, []).append(u)
    Path(ws.group_file).write_bytes(htgroup_file(groups))
    env_names = sorted(set(itertools.chain.from_iterable(u.env for u in all_units)))
    env_headers = {n: f"X-Httpd24-Env-{i}" for i, n in enumerate(env_names)}
    setenv = "\n".join(f"SetEnvIf {h} ^1$ {_quote(n)}" for n, h in env_headers.items())
    creds = _creds(users)
    for _p, r in runnable:
        r.users = {u: gs for u, (_pw, gs) in users.items()}

    ref_text, cand_text = [], []
    hosts: dict[str, str] = {}
    matrix: list[Req] = []
    owner: dict[str, int] = {}
    plans: list[tuple[_Unit, list[str]]] = []
    served: list[tuple[VerifyReport, str, _Unit, list[str]]] = []
    htaccess: list[tuple[_Unit, str]] = []
    for idx, (p, r) in enumerate(runnable):
        cand = dict(p.cand_units)
        for n, (label, ref_unit) in enumerate(p.ref_units):
            cand_unit = cand.get(label)
            if cand_unit is None:
                r.candidate_error = f"the migrated configuration has no unit {label!r} (virtual hosts differ)"
                break
            uname = f"{p.name}: {label}" if p.name else label
            host = f"u{idx}-{n}.test"
            hosts[uname] = host
            owner[uname] = idx
            r.reference_config[uname] = ref_unit.shown()
            r.candidate_config[uname] = cand_unit.shown()
            access = {side: f".httpd24-{side}-{idx}-{n}" for side in ("ref", "cand")}
            ref_text.append(_vhost(host, ref_unit, str(ws.fs), access["ref"]))
            cand_text.append(_vhost(host, cand_unit, str(ws.fs), access["cand"]))
            htaccess += [(ref_unit, access["ref"]), (cand_unit, access["cand"])]
            merged = _Unit(text="", docroot=ref_unit.docroot,
                           whole_server=ref_unit.whole_server and cand_unit.whole_server)
            for u in (ref_unit, cand_unit):
                merged.dirs |= u.dirs
                merged.pattern_dirs |= u.pattern_dirs
                merged.locations |= u.locations
                merged.handler_locations |= u.handler_locations
                merged.file_names |= u.file_names
                merged.file_regexes += u.file_regexes
                merged.dir_regexes += u.dir_regexes
                merged.location_regexes += u.location_regexes
                merged.aliases += u.aliases
                merged.env |= u.env
                merged.methods |= u.methods
            urls = _urls(merged)
            plans.append((merged, urls))
            served.append((r, uname, merged, urls))
            unit_creds = _creds_for(creds, users, ref_unit.groups | cand_unit.groups)
            for url, method, env, (user, pw), src in itertools.product(
                urls, _methods(merged.methods), _env_states(sorted(merged.env)), unit_creds, sources
            ):
                matrix.append(Req(uname, method, url, src, user, pw, env))
    dirs = _build_tree(ws.fs, plans)
    for r, uname, unit, urls in served:
        r.directories |= {(uname, url) for url in urls if (_fs_for_url(unit, url) or "").rstrip("/") in dirs}
        if INCLUDER in uname:
            r.filenames.update({(uname, url): found for url in urls if (found := _fs_for_url(unit, url))})
    for unit, access_file in htaccess:
        _write_htaccess(ws.fs, unit, access_file)
    ws.open_up()

    common = "\n".join([
        "AccessFileName .httpd24-no-such-file",
        "KeepAlive On", "MaxKeepAliveRequests 0", "KeepAliveTimeout 10", "DirectoryIndex index.html",
        "Timeout 20", setenv,
    ])
    ref_files = {"differential.conf": common + "\n" + "\n".join(ref_text)}
    cand_files = {"differential.conf": common + "\n" + "\n".join(cand_text)}
    ipv6 = any(":" in s for s in sources)
    ref = Instance(ref_files, "differential.conf", [*COMMON_MODULES, COMPAT_MODULE], httpd=httpd, ipv6=ipv6)
    cand_modules = [*COMMON_MODULES, COMPAT_MODULE] if candidate_compat else list(COMMON_MODULES)
    cand = Instance(cand_files, "differential.conf", cand_modules, httpd=httpd, ipv6=ipv6)

    def start(inst: Instance) -> str | None:
        try:
            inst.start()
            return None
        except HttpdError as e:
            return _clean(str(e), ws)

    with concurrent.futures.ThreadPoolExecutor(max_workers=2 * len(sources) * _STREAMS + 2) as pool:
        errs = list(pool.map(start, [ref, cand]))
        try:
            if errs[0] or errs[1]:
                for p, r in runnable:
                    r.reference_error = r.reference_error or errs[0]
                    r.candidate_error = r.candidate_error or errs[1]
                return reports
            deadline = time.monotonic() + budget
            by_source: dict[str, list[Req]] = {}
            for q in matrix:
                by_source.setdefault(q.source, []).append(q)
            futs = {}
            for side, inst in (("ref", ref), ("cand", cand)):
                for src, reqs in by_source.items():
                    for stream in range(_STREAMS):
                        futs[pool.submit(_send_all, inst.port, src, reqs[stream::_STREAMS], hosts, env_headers,
                                         timeout, deadline)] = side
            results: dict[str, dict[Req, int]] = {"ref": {}, "cand": {}}
            for fut, side in futs.items():
                try:
                    results[side].update(fut.result())
                except (HttpdError, OSError) as e:
                    for p, r in runnable:
                        err = f"requests failed: {e}"
                        if side == "ref":
                            r.reference_error = r.reference_error or err
                        else:
                            r.candidate_error = r.candidate_error or err
            for q in matrix:
                r = runnable[owner[q.unit]][1]
                a, b = results["ref"].get(q), results["cand"].get(q)
                if a is None or b is None:
                    continue
                r.requests += 1
                r.statuses[q] = (a, b)
                if a != b:
                    r.mismatches.append(Mismatch(q, a, b))
            for _p, r in runnable:
                r.mismatches.sort(key=lambda m: m.request.sort_key())
            # keep the logs for callers that check them
            _LAST_LOGS.update(ref_error=ref.error_log(), cand_error=cand.error_log(),
                              ref_access=ref.access_log(), cand_access=cand.access_log())
        finally:
            for inst in (ref, cand):
                try:
                    inst.stop()
                except HttpdError:
                    pass
    return reports


def against_model(report: VerifyReport, original: ConfigSet | str) -> list[Mismatch]:
    """Requests the candidate (the migrated configuration, on real 2.4) answers otherwise than
    the model of 2.2 (:func:`httpd24.access.decide_22`) says 2.2 answers the original (for an original
    that ran on 2.4, :func:`~httpd24.access.decide_compat`: 2.4 + mod_access_compat's answers).

    The proof for configurations whose 2.2 inheritance the normalisation cannot make explicit:
    there the reference (2.4 + mod_access_compat) is not 2.2, and agreeing with it would prove
    nothing. The model is held to the real servers on the proven configurations (the random
    differential test requires this list to be empty for them too). Host names are the ones httpd
    finds (:func:`double_reverse`).

    A virtual host's requests are asked of the model as that host's (by its ServerName, or by none for
    the first host); a host the model cannot tell so is not judged: every request of it is returned. Beside virtual hosts
    the main server answers no request on httpd (the first host answers a name no host has, as the model
    says), so the main unit's answers are held to the reference only.
    """
    from ..access import build, decide_22, decide_compat

    cs = _as_configset(original)
    model = build(cs)
    decide = decide_compat if model.mode == "compat" else decide_22
    #: unit -> (whether the model can tell its server, the ServerName to ask by: None for the main server,
    #: and for the first host, which answers a request no host is named for)
    hosts: dict[str, tuple[bool, str | None]] = {}
    prefix = f"{report.name}: " if report.name else ""  # how _run_prepared names a case's units
    out = []
    for q, (a, b) in report.statuses.items():
        label = q.unit[len(prefix):] if q.unit.startswith(prefix) else q.unit
        if label.startswith("main") and model.vhosts:
            continue
        if label not in hosts:
            hosts[label] = (True, None) if label.startswith("main") else _server_name(model, label)
        judged, name = hosts[label]
        if not judged or access_answer(b) != access_answer(decide(model, model_request(q, report, name))):
            out.append(Mismatch(q, a, b))
    return out


def _server_name(model, unit: str) -> tuple[bool, str | None]:
    """Whether the model can tell the virtual host of harness unit ``vhostN ...`` (:meth:`_Extractor.units`
    numbers the hosts in reading order, as the model lists them), and the name to ask it by: one of its
    ServerNames, or None for the first host (it answers a request for no name, as on httpd)."""
    from ..access import Request

    m = re.match(r"vhost(\d+) ", unit)
    if m is None or not 0 < int(m.group(1)) <= len(model.vhosts):
        return False, None
    host = model.vhosts[int(m.group(1)) - 1]
    for name in [*model.server_names.get(id(host), []), None]:
        if model.vhost_of(Request(vhost=name)) is host:
            return True, name
    return False, None


def model_request(q: Req, report: VerifyReport, vhost: str | None = None):
    """The :class:`httpd24.access.Request` the model sees for one request of the matrix (``vhost``: the
    ServerName of the virtual host it is sent to)."""
    from ..access import Request

    return Request(
        q.path, q.method, q.source, hostname=double_reverse(q.source),
        env=frozenset(q.env), user=q.user, password_ok=q.password != WRONG_PASSWORD,
        groups=frozenset(report.users.get(q.user or "", ())),
        filename=report.filenames.get((q.unit, q.path)) or (q.path[len("/__fs"):] if q.path.startswith("/__fs/") else None),
        is_dir=True if q.path.endswith("/") or (q.unit, q.path) in report.directories else None,
        index="index.html",  # every directory of the tree has one, and mod_dir looks it up (_build_tree)
        vhost=vhost,
    )


def access_answer(status: int) -> int:
    """What access control decided: its refusals as they are, anything else (served, redirected, not found) as 200."""
    return status if status in (401, 403, 500) else 200


#: Error and access logs of the last server pair run (for tests that check log lines).
_LAST_LOGS: dict[str, str] = {}


def last_logs() -> dict[str, str]:
    """``ref_error``, ``cand_error``, ``ref_access``, ``cand_access`` of the last server pair run."""
    return dict(_LAST_LOGS)


def _clean(text: str, ws: _Workspace) -> str:
    return text.replace(str(ws.fs), "<fs>").replace(str(ws.tmp), "<tmp>")


def compare(reference, candidate, *, name: str = "", httpd: Httpd | None = None, **kw) -> VerifyReport:
    """Run ``reference`` (on 2.4 + mod_access_compat) and ``candidate`` (without) as given; compare."""
    return compare_many([Case(name, reference, candidate)], httpd=httpd, **kw)[0]


def run(cfg, *, compat: bool = True, httpd: Httpd | None = None, **kw) -> dict[Req, int]:
    """The status of every request of the matrix on one configuration (with mod_access_compat by default).

    Raises :class:`HttpdError` when the server does not start or httpd is missing.
    """
    rep = compare_many([Case("", cfg, cfg)], httpd=httpd, candidate_compat=compat, **kw)[0]
    if rep.skipped or rep.reference_error or rep.candidate_error:
        raise HttpdError(rep.format(configs=True))
    return {q: a for q, (a, _b) in rep.statuses.items()}


def verify(
    original_cs: ConfigSet | str | bytes | Mapping[str, bytes | str],
    migrated_cs: ConfigSet | str | bytes | Mapping[str, bytes | str],
    *,
    httpd: Httpd | None = None,
    normalize: Callable[[ConfigSet], ConfigSet] | None = None,
    name: str = "",
    on_24: bool | None = None,
    **kw,
) -> VerifyReport:
    """``httpd24 migrate --verify``: prove ``migrated_cs`` answers every request as ``original_cs`` did on 2.2.

    The reference is ``normalize(original_cs)`` (default
    ``httpd24.access.normalize_22``, reading each ``<IfModule>``/``<IfDefine>``
    as the reference server will: :func:`reference_target`) on 2.4 with
    mod_access_compat, the candidate ``migrated_cs`` on 2.4 without it.
    Returns a :class:`VerifyReport`; ``report.format()`` is the printable
    difference. Without an httpd binary the report is ``skipped`` with the reason. ``on_24``: what
    the migration found ``original_cs`` ran on (``Migration.source``; None: judge it again), since a
    configuration that ran on 2.4 is its own reference.
    """
    httpd = httpd or find_httpd()
    if httpd is None:
        return VerifyReport(name=name, skipped=_NO_HTTPD)
    original = _as_configset(original_cs)
    if normalize is None:
        from ..access import normalize_22  # noqa: PLC0415 (access is optional at import time)

        reference = normalize_22(original, reference_target(httpd), on_24=on_24)
    else:
        reference = normalize(original)
    report = compare(reference, migrated_cs, name=name, httpd=httpd, **kw)
    report.unserved = unserved_lines(original)
    return report


def unserved_lines(configset: ConfigSet) -> list[str]:
    """``file:line: directive`` of each line that sends URLs elsewhere (a proxy, a rewrite, a user's
    directory): the servers run without them (they are not in :data:`KEEP`)."""
    from ..access.remap import KEYS  # noqa: PLC0415 (access is optional at import time)

    return [f"{name}:{node.location.line}: {' '.join([node.name, *node.raw_args])}"
            for name, doc in configset.documents.items()
            for node in doc.directives() if node.key in KEYS - KEEP]


def reference_target(httpd: Httpd) -> Target:
    """What the reference server loads and defines: its configuration keeps the ``<IfModule>`` and
    ``<IfDefine>`` sections and drops every LoadModule (:data:`KEEP`), and it is started without ``-D``."""
    builtin = {module_identifier(source) for source in httpd.builtin_modules}
    return Target(version=tuple(httpd.version[:3]), modules=frozenset({*COMMON_MODULES, COMPAT_MODULE, *builtin}),
                  defines=frozenset({"FOREGROUND"}))


# --- random 2.2 access-control configurations -----------------------------------------------------

#: Host names (matched against the client's double reverse lookup: :data:`._hosts.NAMES`): a name no client
#: has, a domain, the same without its dot and in other cases (127.0.0.2's), a suffix that is not one at a dot.
HOST_ITEMS = ("nohost.invalid", ".example.invalid", "localhost", "example.invalid", "Client2.Example.INVALID",
              "ample.invalid")
#: Allow/Deny ``from`` items: every form 2.2 accepts, chosen to split :data:`SOURCES` differently.
ADDRESS_ITEMS = (
    "all", "127.0.0.1", "127.0.0.2", "127.0.0.9", "127.1.2.3",
    "127.0.0", "127.1", "127", "127.0.0.", "127.1.2",                 # partial addresses
    "127.0.0.0/30", "127.0.0.8/29", "127.0.0.0/8", "127.1.0.0/16", "127.0.0.1/32",  # CIDR
    "127.0.0.0/255.255.255.252", "127.1.0.0/255.255.0.0", "127.0.0.8/255.255.255.248",  # netmask
    "10.0.0.0/8", "192.168.2", "2001:db8::/32",                       # never a source here
    "::1",                                                            # the IPv6 source (where there is one)
    "env=HTTPD24_A", "env=!HTTPD24_A", "env=HTTPD24_B", "env=!HTTPD24_B",
) + HOST_ITEMS
_DOCROOT = "/srv/www"
_GEN_DIRS = ("/", _DOCROOT, _DOCROOT + "/a", _DOCROOT + "/a/b", _DOCROOT + "/c")
_GEN_LOCATIONS = ("/", "/a", "/a/b", "/c", "/d")
_GEN_REQUIRES = ("valid-user", "user alice", "user bob carol", "group staff", "group admins", "user carol", "valid-user")


def _document_root(rng) -> list[str]:
    """The generated DocumentRoot line; none in one configuration of five, a fragment served under its
    includer's (the harness runs it under those :func:`includer_roots` finds as well)."""
    return [f"DocumentRoot {_DOCROOT}"] if rng.random() < 0.8 else []


def random_config(rng, *, max_sections: int = 4) -> str:
    """One random nested 2.2 access-control configuration (text), drawn from ``rng`` (random.Random).

    Directory/Location/Files/FilesMatch/DirectoryMatch/LocationMatch sections,
    Files nested in Directory, Limit/LimitExcept, Order (all three), Allow/Deny
    with every ``from`` form of :data:`ADDRESS_ITEMS`, Satisfy All/Any, AuthType
    Basic with AuthUserFile/AuthGroupFile, Require valid-user/user/group.
    """
    out = _document_root(rng)
    pool = [("Directory", d) for d in _GEN_DIRS] + [("Location", loc) for loc in _GEN_LOCATIONS] + [
        ("Files", "secret.txt"), ("FilesMatch", r"\.log$"), ("DirectoryMatch", f"^{_DOCROOT}/a/"),
        ("LocationMatch", "^/c/"),
    ]
    n = rng.randint(1, max_sections)
    chosen = rng.sample(pool, n)
    order = {"Directory": 0, "DirectoryMatch": 1, "Files": 2, "FilesMatch": 2, "Location": 3, "LocationMatch": 3}
    if rng.random() < 0.5:
        chosen.sort(key=lambda s: order[s[0]])  # usual reading order; otherwise any order
    auth_outer = rng.random() < 0.3
    for i, (kind, arg) in enumerate(chosen):
        q = f'"{arg}"' if kind.endswith("Match") else arg
        out.append(f"<{kind} {q}>")
        body = _random_body(rng, auth=(auth_outer and i == 0), indent="    ")
        out += body
        if kind == "Directory" and rng.random() < 0.25:
            fk, fa = rng.choice([("Files", "secret.txt"), ("FilesMatch", r"\.log$"), ("Files", "f.html")])
            fq = f'"{fa}"' if fk.endswith("Match") else fa
            out.append(f"    <{fk} {fq}>")
            out += _random_body(rng, auth=False, indent="        ")
            out.append(f"    </{fk}>")
        out.append(f"</{kind}>")
    return "\n".join(out) + "\n"


def _allow_line(rng, verb: str) -> str:
    k = rng.choice((1, 1, 1, 2, 3))
    items = []
    for _ in range(k):
        item = rng.choice(ADDRESS_ITEMS)
        if item in HOST_ITEMS and rng.random() < 0.7:
            item = rng.choice(ADDRESS_ITEMS[:10])
        items.append(item)
    return f"{verb} from {' '.join(dict.fromkeys(items))}"


def _host_block(rng, indent: str) -> list[str]:
    lines = []
    if rng.random() < 0.8:
        lines.append(indent + "Order " + rng.choice(("deny,allow", "allow,deny", "Deny,Allow", "Allow,Deny", "mutual-failure")))
    for _ in range(rng.choice((0, 1, 1, 2))):
        lines.append(indent + _allow_line(rng, "Allow"))
    for _ in range(rng.choice((0, 1, 1, 2))):
        lines.append(indent + _allow_line(rng, "Deny"))
    return lines


def _auth_block(rng, indent: str, require: bool = True) -> list[str]:
    lines = [indent + "AuthType Basic", indent + 'AuthName "restricted"', indent + "AuthUserFile /etc/httpd/users"]
    req = rng.choice(_GEN_REQUIRES)
    if "group" in req or rng.random() < 0.3:
        lines.append(indent + "AuthGroupFile /etc/httpd/groups")
    if require:
        lines.append(indent + "Require " + req)
    return lines


def _random_body(rng, *, auth: bool, indent: str) -> list[str]:
    lines: list[str] = []
    if rng.random() < 0.6:
        lines += _host_block(rng, indent)
    if rng.random() < 0.35:
        lines.append(indent + "Satisfy " + rng.choice(("Any", "All", "any")))
    r = rng.random()
    if auth or r < 0.35:
        lines += _auth_block(rng, indent)
    elif r < 0.45:
        # Require only: AuthType comes from an enclosing section (or is missing)
        req = rng.choice(_GEN_REQUIRES)
        if "group" in req:
            lines.append(indent + "AuthGroupFile /etc/httpd/groups")
        lines.append(indent + "Require " + req)
    elif r < 0.5:
        lines += _auth_block(rng, indent, require=False)
    if rng.random() < 0.15:
        kind = rng.choice(("Limit", "LimitExcept"))
        methods = rng.choice(("POST", "POST PUT", "GET", "DELETE", "GET POST"))
        lines.append(f"{indent}<{kind} {methods}>")
        inner = indent + "    "
        body: list[str] = []
        if rng.random() < 0.6:
            body += _host_block(rng, inner)
        if rng.random() < 0.5:
            body.append(inner + "Require " + rng.choice(("valid-user", "user alice", "group admins")))
            if "AuthType Basic" not in "\n".join(lines):
                body[:0] = [x.replace(indent, inner, 1) for x in _auth_block(rng, indent, require=False)]
        if rng.random() < 0.2:
            body.append(inner + "Satisfy " + rng.choice(("Any", "All")))
        lines += body or [inner + "Order deny,allow", inner + "Deny from all"]
        lines.append(f"{indent}</{kind}>")
    rng.shuffle(lines) if rng.random() < 0.2 and not any("<" in x for x in lines) else None
    return lines


# --- the wide generator: shapes real 2.2 configurations have that random_config leaves out ------------

#: Sections random_config does not name: trailing slashes, wildcards (`*`, `?`, `[]`), the `~` forms,
#: regexes (anchored or not) whose number of "/" orders their merge, a Location naming a file, Files wildcards.
_WIDE_SECTIONS = (
    ("Directory", "/"), ("Directory", _DOCROOT), ("Directory", _DOCROOT + "/a"), ("Directory", _DOCROOT + "/a/b"),
    ("Directory", _DOCROOT + "/c"), ("Directory", _DOCROOT + "/a/"), ("Directory", _DOCROOT + "/*"),
    ("Directory", _DOCROOT + "/*/b"), ("Directory", _DOCROOT + "/[ac]"), ("Directory", "/srv/w*"),
    ("Directory", _DOCROOT + "/?"), ("Directory ~", f"^{_DOCROOT}/a"), ("Directory ~", "/b$"),
    ("DirectoryMatch", f"^{_DOCROOT}/(a|c)"), ("DirectoryMatch", f"^{_DOCROOT}/a/"), ("DirectoryMatch", f"{_DOCROOT}/c"),
    ("Location", "/"), ("Location", "/a"), ("Location", "/a/"), ("Location", "/a/b"), ("Location", "/c"),
    ("Location", "/d"), ("Location", "/a/b/f.html"), ("Location", "/c/*"), ("Location ~", "^/a/b"),
    ("LocationMatch", "^/c/"), ("LocationMatch", "^/(a|c)"), ("LocationMatch", r"f\.html$"),
    ("Files", "secret.txt"), ("Files", "*.txt"), ("Files", "secret.*"), ("Files", "f.html"),
    ("Files ~", r"\.(txt|log)$"), ("FilesMatch", r"\.log$"), ("FilesMatch", r"^f\."),
)
_WIDE_NESTED_FILES = (("Files", "secret.txt"), ("FilesMatch", r"\.log$"), ("Files", "f.html"), ("Files", "*.txt"),
                      ("Files ~", r"^f\."))
#: More ``from`` words: keywords in other cases, a host name httpd reads as one ("none", as corpus files
#: write it), masks that keep host bits, the halves of the address space.
WIDE_ADDRESS_ITEMS = ADDRESS_ITEMS + (
    "All", "ALL", "none", "ENV=HTTPD24_A", "Env=!HTTPD24_B", "127.0.0.1/255.255.255.255", "127.0.0.2/31",
    "127.0.0.0/24", "LOCALHOST", "127.0.0.1/8", "env=HTTPD24_C", "env=!HTTPD24_C", "127.1.2.3/32", "0.0.0.0/1",
    "128.0.0.0/1", "::1/128", "::/1", "0:0:0:0:0:0:0:1", "::/127", "fe80::/10",
)
_WIDE_HOSTS = frozenset({*HOST_ITEMS, "LOCALHOST", "none"})
_WIDE_REQUIRES = _GEN_REQUIRES + ("user alice bob", "group staff admins")
_WIDE_ORDERS = ("deny,allow", "allow,deny", "Deny,Allow", "Allow,Deny", "mutual-failure", "DENY,ALLOW", "allow,Deny")
_WIDE_METHODS = ("POST", "POST PUT", "GET", "DELETE", "GET POST", "GET POST OPTIONS", "PUT DELETE")
_COMPAT_LINE = re.compile(r"\s*(order|allow|deny|satisfy)\b", re.I)


def _cased(rng, word: str, p: float = 0.2) -> str:
    """``word`` as written, sometimes in another case: httpd reads directive names, section names,
    ``from``, Order and Satisfy values in any case, and 2.2 read ``valid-user``/``user``/``group`` so."""
    if rng.random() >= p:
        return word
    return rng.choice((word.lower(), word.upper(), word[:1].lower() + word[1:].upper()))


#: Options lines for :func:`with_options`: whether the walk follows symlinks where a file lies decides which
#: <Directory> sections meet it (`Indexes` and `None` turn FollowSymLinks off, `+Indexes` keeps it).
_WIDE_OPTIONS = ("-FollowSymLinks", "SymLinksIfOwnerMatch", "+SymLinksIfOwnerMatch", "None", "Indexes", "+Indexes",
                 "FollowSymLinks", "+FollowSymLinks", "All", "FollowSymLinks SymLinksIfOwnerMatch")
_PLAIN_DIRECTORY = re.compile(r"<directory\s+(?!~)", re.I)


def with_options(rng, text: str) -> str:
    """``text`` with Options lines at the server level and in some plain <Directory> sections, in about a
    third of the configurations (the others unchanged). ``rng`` is a stream of its own, so the rest of a
    configuration is what its generator drew without it."""
    if rng.random() >= 0.3:
        return text
    lines = text.splitlines()
    out = []
    for n, line in enumerate(lines):
        out.append(line)
        if n == 0 and rng.random() < 0.4:
            out.append(f"Options {rng.choice(_WIDE_OPTIONS)}")
        elif _PLAIN_DIRECTORY.match(line) and rng.random() < 0.5:
            out.append(f"    Options {rng.choice(_WIDE_OPTIONS)}")
    return "\n".join(out) + "\n"


_UNDER_THE_DOCUMENT_ROOT_A = re.compile(r'(<Directory(?:Match)?\s+"?\^?)' + re.escape(_DOCROOT) + r"/a(?=[/\">])", re.I)


def outside_the_document_root(rng, text: str) -> str:
    """``text`` with its sections of /srv/www/a moved to /srv/a in about one configuration of four (the others
    unchanged): a directory its DocumentRoot does not reach, which an Alias of an including configuration may
    (the harness runs such units: :func:`includer_aliases`). ``rng`` is a stream of its own, as for
    :func:`with_options`."""
    if rng.random() >= 0.25:
        return text
    return _UNDER_THE_DOCUMENT_ROOT_A.sub(lambda m: m.group(1) + posixpath.dirname(_DOCROOT) + "/a", text)


#: The groups :func:`with_more_groups` draws from: past three, the request samples (the plan's and the harness's)
#: stop holding every set of them.
_MORE_GROUPS = ("staff", "admins", "g1", "g2", "g3", "g4")
_REQUIRE_GROUP = re.compile(r"(?im)^(\s*Require\s+group)\s[^\n]*$")


def with_more_groups(rng, text: str) -> str:
    """``text`` with each `Require group` line naming one or two of :data:`_MORE_GROUPS` instead, in about one
    configuration of four (the others unchanged): the generators name two groups only, and forms that tell
    apart members of two of many groups (`<RequireAll>` of group lines, AuthMerging And) went unexercised.
    ``rng`` is a stream of its own, as for :func:`with_options`."""
    if rng.random() >= 0.25:
        return text
    return _REQUIRE_GROUP.sub(lambda m: m.group(1) + " " + " ".join(rng.sample(_MORE_GROUPS, rng.choice((1, 2)))),
                              text)


def as_one_virtual_host(rng, text: str) -> str:
    """``text`` as the one <VirtualHost> of a fragment in about one configuration of five (the others
    unchanged), as Debian's sites-available files are: the host inherits its includer's DocumentRoot and Aliases,
    and the harness runs it under those too (:meth:`_Extractor.units`). ``rng`` is a stream of its own, as for
    :func:`with_options`."""
    if rng.random() >= 0.2:
        return text
    body = "".join("    " + line if line.strip() else line for line in text.splitlines(keepends=True))
    return "<VirtualHost *:80>\n    ServerName fragment.test\n" + body + "</VirtualHost>\n"


def random_config_wide(rng, *, max_sections: int = 5, explicit: bool = False) -> str:
    """One random 2.2 access-control configuration with the shapes :func:`random_config` leaves out.

    Wildcard and ``~`` sections, trailing slashes, the same section written twice (merged in reading
    order), keywords in any case, several Order/Satisfy lines (the last counts), Order after Allow,
    more ``from`` words (:data:`WIDE_ADDRESS_ITEMS`), several or nested ``<Limit>``/``<LimitExcept>``
    per section, Files nested in any Directory form, ``AuthType None`` (alone, or beside a Require),
    AuthType Basic without an AuthName or an AuthUserFile of its own (inherited, or none: 500).

    ``explicit``: every section holding any of Order/Allow/Deny/Satisfy also states an Order and a
    Satisfy of its own, ``Satisfy Any`` and AuthType only stand beside a Require of the section's own,
    and no Require sits in a ``<Limit>``. 2.4 + mod_access_compat then answers as 2.2 (research notes
    §5) with the original as it is: a reference that owes nothing to ``normalize_22``, whose reading of
    the merge order the translation shares.
    """
    out = _document_root(rng)
    chosen = rng.sample(_WIDE_SECTIONS, rng.randint(1, max_sections))
    if rng.random() < 0.25:  # the same section twice: httpd merges both, in reading order
        chosen.insert(rng.randrange(len(chosen) + 1), rng.choice(chosen))
    auth_outer = rng.random() < 0.3
    for i, (kind, arg) in enumerate(chosen):
        name, tag = _wide_tag(rng, kind, arg)
        out.append(tag)
        out += _wide_body(rng, auth=auth_outer and i == 0, indent="    ", explicit=explicit)
        if kind.startswith("Directory") and rng.random() < 0.25:
            inner, inner_tag = _wide_tag(rng, *rng.choice(_WIDE_NESTED_FILES))
            out.append("    " + inner_tag)
            out += _wide_body(rng, auth=False, indent="        ", explicit=explicit)
            out.append(f"    </{inner}>")
        out.append(f"</{name}>")
    return "\n".join(out) + "\n"


def _wide_tag(rng, kind: str, arg: str) -> tuple[str, str]:
    if kind.endswith(" ~"):
        name = _cased(rng, kind[:-2], 0.1)
        return name, f'<{name} ~ "{arg}">'
    name = _cased(rng, kind, 0.1)
    return name, f'<{name} "{arg}">' if kind.endswith("Match") or rng.random() < 0.2 else f"<{name} {arg}>"


def _wide_from(rng, verb: str) -> str:
    items = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        item = rng.choice(WIDE_ADDRESS_ITEMS)
        if item in _WIDE_HOSTS and rng.random() < 0.7:
            item = rng.choice(ADDRESS_ITEMS[:10])  # host names make httpd look names up: fewer of them
        items.append(item)
    return f"{_cased(rng, verb)} {_cased(rng, 'from')} {' '.join(dict.fromkeys(items))}"


def _wide_hosts(rng, indent: str) -> list[str]:
    lines = []
    if rng.random() < 0.8:
        lines.append(f"{indent}{_cased(rng, 'Order')} {rng.choice(_WIDE_ORDERS)}")
        if rng.random() < 0.1:
            lines.append(f"{indent}{_cased(rng, 'Order')} {rng.choice(_WIDE_ORDERS)}")
    lines += [indent + _wide_from(rng, "Allow") for _ in range(rng.choice((0, 1, 1, 2, 3)))]
    lines += [indent + _wide_from(rng, "Deny") for _ in range(rng.choice((0, 1, 1, 2)))]
    return lines


def _wide_auth(rng, indent: str, require: bool = True) -> list[str]:
    lines = [f"{indent}{_cased(rng, 'AuthType')} {rng.choice(('Basic', 'Basic', 'basic', 'None'))}"]
    if rng.random() < 0.85:  # else the realm comes from an enclosing section, or none applies (500, AH01615)
        lines.append(f'{indent}AuthName "restricted"')
    if rng.random() < 0.9:  # else so does the user file (credentials then get 500, AH01619)
        lines.append(f"{indent}AuthUserFile /etc/httpd/users")
    req = rng.choice(_WIDE_REQUIRES)
    if "group" in req or rng.random() < 0.3:
        lines.append(indent + "AuthGroupFile /etc/httpd/groups")
    if require:
        word, _, rest = req.partition(" ")
        lines.append(f"{indent}{_cased(rng, 'Require', 0.15)} {' '.join(x for x in (_cased(rng, word, 0.1), rest) if x)}")
    return lines


def _wide_limit(rng, indent: str, has_authtype: bool, explicit: bool) -> list[str]:
    kind = _cased(rng, rng.choice(("Limit", "LimitExcept")), 0.15)
    inner = indent + "    "
    body: list[str] = []
    if rng.random() < 0.6:
        body += _wide_hosts(rng, inner)
    if rng.random() < 0.4 and not explicit:
        body.append(inner + "Require " + rng.choice(("valid-user", "user alice", "group admins")))
        if not has_authtype:
            body[:0] = _wide_auth(rng, inner, require=False)
    if rng.random() < 0.25:
        body.append(f"{inner}{_cased(rng, 'Satisfy')} {rng.choice(('Any', 'All', 'any'))}")
    if not body:
        body = [inner + "Order deny,allow", inner + "Deny from all"]
    return [f"{indent}<{kind} {rng.choice(_WIDE_METHODS)}>", *body, f"{indent}</{kind}>"]


def _wide_body(rng, *, auth: bool, indent: str, explicit: bool) -> list[str]:
    lines: list[str] = []
    if rng.random() < 0.6:
        lines += _wide_hosts(rng, indent)
    if rng.random() < 0.35:
        lines.append(f"{indent}{_cased(rng, 'Satisfy')} {rng.choice(('Any', 'All', 'any', 'ALL'))}")
        if rng.random() < 0.1:
            lines.append(f"{indent}Satisfy {rng.choice(('Any', 'All'))}")
    r = rng.random()
    if auth or r < 0.35:
        lines += _wide_auth(rng, indent)
    elif r < 0.45:  # Require only: AuthType comes from an enclosing section (or is missing)
        req = rng.choice(_WIDE_REQUIRES)
        if "group" in req:
            lines.append(indent + "AuthGroupFile /etc/httpd/groups")
        lines.append(indent + "Require " + req)
    elif r < 0.5:
        lines += _wide_auth(rng, indent, require=False)
    elif r < 0.56:  # switches off the AuthType the section inherits (2.2 kept "None" as a type's name)
        lines.append(f"{indent}{_cased(rng, 'AuthType')} None")
    if rng.random() < 0.2:
        rng.shuffle(lines)  # Order after Allow, Require before AuthType ...
    if rng.random() < 0.2:
        has_authtype = any(line.strip().lower().startswith("authtype") for line in lines)
        for _ in range(rng.choice((1, 1, 2))):
            lines += _wide_limit(rng, indent, has_authtype, explicit)
    return _explicit(rng, lines, indent) if explicit else lines


def _explicit(rng, lines: list[str], indent: str) -> list[str]:
    """A section's lines with what 2.2 inherited stated (see :func:`random_config_wide`)."""
    top = [line for line in lines if line.startswith(indent) and not line.startswith(indent + " ")]
    has_require = any(re.match(r"\s*require\b", line, re.I) for line in top)
    out = []
    for line in lines:
        if not has_require and re.match(r"\s*authtype\b", line, re.I):
            continue
        if not has_require and re.match(r"\s*satisfy\s+any", line, re.I):
            line = re.sub(r"(?i)any", "All", line)
        out.append(line)
    if any(_COMPAT_LINE.match(line) for line in out):
        if not any(re.match(r"\s*order\b", line, re.I) for line in top):
            out.insert(0, f"{indent}Order {rng.choice(_WIDE_ORDERS)}")
        if not any(re.match(r"\s*satisfy\b", line, re.I) for line in top):
            out.insert(0, f"{indent}Satisfy {'Any' if has_require and rng.random() < 0.4 else 'All'}")
    return out


#: Where the "htaccess" shape puts its files (relative names: a mapping's absolute paths).
_GEN_HTACCESS = ("srv/www/.htaccess", "srv/www/a/.htaccess", "srv/www/a/b/.htaccess", "srv/www/c/.htaccess")


def _random_htaccess_files(rng) -> dict[str, str]:
    """One or two .htaccess files of :data:`_GEN_HTACCESS`."""
    return {name: _random_htaccess(rng) for name in rng.sample(_GEN_HTACCESS, rng.choice((1, 1, 2)))}


def _random_htaccess(rng) -> str:
    """What a section body holds, sometimes with a ``<Files>`` or ``<Limit>`` section of its own."""
    body = _wide_body(rng, auth=rng.random() < 0.3, indent="", explicit=False)
    if rng.random() < 0.25:
        kind, arg = rng.choice(_WIDE_NESTED_FILES)
        tag_name, tag = _wide_tag(rng, kind, arg)
        body += [tag, *_wide_body(rng, auth=False, indent="    ", explicit=False), f"</{tag_name}>"]
    return "\n".join(body or ["Order deny,allow", "Deny from all"]) + "\n"


#: The Aliases the htaccess and vhosts shapes add: to a directory no section names, read by 2.2's compiled-in
#: `AllowOverride All` alone, with an .htaccess file of its own; to one below the DocumentRoot, which then has two
#: URLs, only one of them under the <Location> sections named after it.
_GEN_ALIASES = (("/ext", "/srv/ext"), ("/x", _DOCROOT + "/a"))


def _with_alias(rng, files: dict[str, str]) -> dict[str, str]:
    """``files``, sometimes with an Alias of :data:`_GEN_ALIASES` (drawn after the rest of the configuration)."""
    r = rng.random()
    if r < 0.3:
        url, target = _GEN_ALIASES[0 if r < 0.2 else 1]
        files["httpd.conf"] += f"Alias {url} {target}\n"
        if not target.startswith(_DOCROOT + "/"):
            files[target.lstrip("/") + "/.htaccess"] = _random_htaccess(rng)
    return files


def _top(lines: list[str]) -> int:
    """Where a server-level section goes in a generated configuration: after its DocumentRoot line, or first where
    it has none (:func:`_document_root`), not inside the section that then begins it (seed 109, htaccess 480:
    `<Directory>` inside `<DirectoryMatch>`, which httpd refuses)."""
    return 1 if lines and lines[0].startswith("DocumentRoot") else 0


def random_config_htaccess(rng) -> dict[str, str]:
    """A :func:`random_config_wide` configuration with an ``AllowOverride`` that lets access lines through
    and one or two .htaccess files below its DocumentRoot (what a section body holds, ``<Files>`` and
    ``<Limit>`` included): the server sections and the files merge per request. Some are whole configurations
    (:data:`_WHOLE_SERVERS`), some have an Alias (:func:`_with_alias`)."""
    lines = random_config_wide(rng).splitlines(keepends=True)
    override = rng.choice(("All", "All", "AuthConfig Limit", "Limit AuthConfig Options"))
    lines.insert(_top(lines), f"<Directory {_DOCROOT}>\n    AllowOverride {override}\n</Directory>\n")
    files = {"httpd.conf": "".join(lines)}
    files.update(_random_htaccess_files(rng))
    r = rng.random()  # drawn last: the rest of each configuration is the one drawn before this line was added
    if r < 0.4:
        files["httpd.conf"] = _WHOLE_SERVERS[0 if r < 0.3 else 1] + files["httpd.conf"]
    return _with_alias(rng, files)


#: The first lines of a whole server configuration (a PidFile: a fragment has none) whose virtual hosts take
#: every Listen, so that no request reaches the main server, and of one where port 8080 still does.
_WHOLE_SERVERS = ("PidFile run/httpd.pid\nListen 80\n", "PidFile run/httpd.pid\nListen 80\nListen 8080\n")


#: The AllowOverride lines the "vhosts" shape writes: those that open an .htaccess file to access lines, to
#: part of them (a file's `AuthType` or its `Order` then answers 500), or keep it closed.
_GEN_OVERRIDES = ("None", "All", "AuthConfig", "Limit", "AuthConfig Limit", "Options")


def random_config_vhosts(rng) -> dict[str, str]:
    """A :func:`random_config_wide` configuration with one to three ``<VirtualHost *:80>`` sections, each with
    <Directory> sections of its own (AllowOverride and access lines), sometimes a DocumentRoot of its own, and
    one or two .htaccess files as :func:`random_config_htaccess` writes them. Some are whole configurations
    whose hosts take every Listen, where no request reaches the main server (:data:`_WHOLE_SERVERS`). httpd
    merges a host's <Directory> sections over the main server's (the host's last among those of the same
    depth), so whether a host's requests read a file is its own affair; the main server has an AllowOverride
    of its own, ``<Directory /> AllowOverride None`` or none at all. A host may stand between the main
    server's sections: it merges after them all the same. Some have an Alias (:func:`_with_alias`)."""
    lines = random_config_wide(rng, max_sections=3).splitlines(keepends=True)
    r = rng.random()
    if r < 0.3:
        lines.insert(_top(lines), "<Directory />\n    AllowOverride None\n</Directory>\n")
    elif r < 0.65:
        where = rng.choice(_GEN_DIRS)
        lines.insert(_top(lines), f"<Directory {where}>\n    AllowOverride {rng.choice(_GEN_OVERRIDES)}\n</Directory>\n")
    tops = [n for n, line in enumerate(lines) if n and line.startswith("<") and not line.startswith("</")]
    hosts = []
    for n in range(1, rng.choice((1, 1, 2, 3)) + 1):
        host = ["<VirtualHost *:80>\n", f"    ServerName v{n}.example\n"]
        if rng.random() < 0.4:
            host.append(f"    DocumentRoot {rng.choice((_DOCROOT, _DOCROOT, _DOCROOT + '/a', _DOCROOT + '/c'))}\n")
        for where in rng.sample(_GEN_DIRS, rng.choice((1, 1, 2, 3))):
            body = []
            if rng.random() < 0.8:
                body.append(f"        AllowOverride {rng.choice(_GEN_OVERRIDES)}")
            if rng.random() < 0.5:
                body += _wide_body(rng, auth=False, indent="        ", explicit=False)
            host += [f"    <Directory {where}>\n", *(line + "\n" for line in body), "    </Directory>\n"]
        host.append("</VirtualHost>\n")
        hosts.append((rng.choice(tops) if tops and rng.random() < 0.3 else len(lines), n, "".join(host)))
    for at, _n, host in sorted(hosts, reverse=True):  # from the end: the places drawn stay where they were
        lines.insert(at, host)
    files = {"httpd.conf": "".join(lines)}
    files.update(_random_htaccess_files(rng))
    r = rng.random()  # drawn last: the rest of each configuration is the one drawn before this line was added
    if r < 0.4:
        files["httpd.conf"] = _WHOLE_SERVERS[0 if r < 0.3 else 1] + files["httpd.conf"]
    return _with_alias(rng, files)


def with_nonfatal(rng, files: dict[str, str]) -> dict[str, str]:
    """One "htaccess" or "vhosts" configuration in five with 2.4's ``Nonfatal=Override`` on one of its
    AllowOverride lines that keep some class out: httpd skips the .htaccess lines that line keeps out (a
    skipped Order/Allow/Deny/Satisfy still resets what the directory inherits of them) instead of answering
    500. 2.2 refuses the word, so the configuration ran on 2.4, whose Require providers have their names in
    lower case alone."""
    lines = list(re.finditer(r"(?m)^ *AllowOverride (?!None$|All$).*$", files["httpd.conf"]))
    if not lines or rng.random() >= 0.2:
        return files
    from ..access.apply import providers_as_24  # noqa: PLC0415 (access is optional at import time)

    line = rng.choice(lines)
    conf = files["httpd.conf"]
    configset = _as_configset({**files, "httpd.conf": conf[:line.end()] + " Nonfatal=Override" + conf[line.end():]})
    providers_as_24(configset)  # 2.4 refuses `Require uSER`, which 2.2 read (:func:`_cased`)
    return {name: data.decode() for name, data in configset.render().items()}


def random_configs(seed: int, count: int, start: int = 0, *, shapes: str = "narrow") -> list[tuple[int, str | dict[str, str]]]:
    """``count`` configurations; number ``i`` depends only on (seed, i, shapes).

    ``shapes``: "narrow" (:func:`random_config`), "wide" or "explicit" (:func:`random_config_wide`, with
    :func:`with_options` drawn from a stream of its own: the configurations it leaves alone are those of
    before it); both with :func:`outside_the_document_root`, :func:`as_one_virtual_host` and
    :func:`with_more_groups`, each from a stream of its own as well: text;
    "htaccess" (:func:`random_config_htaccess`) and "vhosts" (:func:`random_config_vhosts`), both with
    :func:`with_nonfatal` from a stream of its own: file name -> text, ``httpd.conf`` the entry.
    """
    import random

    if shapes == "narrow":
        return [(i, with_more_groups(random.Random(f"{seed}:{i}:groups"), as_one_virtual_host(
                    random.Random(f"{seed}:{i}:vhost"),
                    outside_the_document_root(random.Random(f"{seed}:{i}:outside"),
                                              random_config(random.Random(f"{seed}:{i}"))))))
                for i in range(start, start + count)]
    if shapes in ("htaccess", "vhosts"):
        make = random_config_htaccess if shapes == "htaccess" else random_config_vhosts
        return [(i, with_nonfatal(random.Random(f"{seed}:{shapes}:{i}:nonfatal"), make(random.Random(f"{seed}:{shapes}:{i}"))))
                for i in range(start, start + count)]
    if shapes not in ("wide", "explicit"):
        raise ValueError(f"unknown shapes {shapes!r}")
    return [(i, with_more_groups(random.Random(f"{seed}:{shapes}:{i}:groups"), as_one_virtual_host(
                random.Random(f"{seed}:{shapes}:{i}:vhost"), outside_the_document_root(
                    random.Random(f"{seed}:{shapes}:{i}:outside"),
                    with_options(random.Random(f"{seed}:{shapes}:{i}:options"),
                                 random_config_wide(random.Random(f"{seed}:{shapes}:{i}"),
                                                    explicit=shapes == "explicit"))))))
            for i in range(start, start + count)]


def with_override_default(translate: Callable[[ConfigSet], ConfigSet]) -> Callable[[ConfigSet], ConfigSet]:
    """``translate`` followed by HT301's fix, as ``httpd24 migrate`` writes it: 2.2's default ``AllowOverride
    All`` where no AllowOverride reaches a <Directory> of a configuration with .htaccess files. translate()
    leaves that line to HT301, and normalize_22 writes it (2.2 read the files there; 2.4 answers 500): the
    candidate of the "vhosts" shape, whose servers are drawn with and without an AllowOverride of their own.
    Where HT301 has no <Directory> to write it in, HT505 leaves it to a person: refused, as the translator
    refuses (:class:`httpd24.access.TranslationError`)."""
    from ..access import TranslationError
    from ..engine import lint, migrate

    def run(configset: ConfigSet) -> ConfigSet:
        migrated = migrate(translate(configset), select=["HT301"])
        out = ConfigSet.from_mapping({name: data.decode() for name, data in migrated.files.items()},
                                     entry=configset.entry)
        left = [f for f in lint(out, select=["HT505"]) if "no AllowOverride applies" in f.message]
        if left:
            raise TranslationError("; ".join(f"{f.file}:{f.line}: HT505 {f.message}" for f in left))
        return out

    return run


def random_run(
    seed: int,
    count: int,
    translate: Callable[[ConfigSet], ConfigSet],
    normalize: Callable[[ConfigSet], ConfigSet],
    *,
    start: int = 0,
    batch: int = 25,
    httpd: Httpd | None = None,
    progress: Callable[[int, int], None] | None = None,
    shapes: str = "narrow",
) -> list[tuple[int, str | dict[str, str], VerifyReport]]:
    """Translate and verify random configurations; returns (index, original, report) of every one.

    A translator or normaliser that raises counts as a failure of that
    configuration (its message becomes the start-up error). ``shapes``: see :func:`random_configs`.
    """
    items = random_configs(seed, count, start, shapes=shapes)
    out: list[tuple[int, str | dict[str, str], VerifyReport]] = []
    for b in range(0, len(items), batch):
        chunk = items[b:b + batch]
        reports = run_configs([(f"seed={seed} index={i}", text) for i, text in chunk], translate, normalize, httpd=httpd)
        out += [(i, text, r) for (i, text), r in zip(chunk, reports)]
        if progress:
            progress(min(b + batch, len(items)), len(items))
    return out


def run_configs(
    items: Sequence[tuple[str, str | Mapping[str, str]]],
    translate: Callable[[ConfigSet], ConfigSet],
    normalize: Callable[[ConfigSet], ConfigSet],
    *,
    httpd: Httpd | None = None,
) -> list[VerifyReport]:
    """(label, configuration) -> the report of its reference ``normalize(original)`` against its candidate
    ``translate(original)``, all in one server pair. A translator or normaliser that raises counts as a
    failure of that configuration (its message becomes the start-up error)."""
    cases = []
    for label, text in items:
        try:
            reference: object = normalize(_as_configset(text))
        except Exception as e:  # noqa: BLE001 - reported per configuration
            reference = e
        try:
            candidate: object = translate(_as_configset(text))
        except Exception as e:  # noqa: BLE001
            candidate = e
        cases.append(Case(label, reference, candidate))  # type: ignore[arg-type]
    return compare_many(cases, httpd=httpd)

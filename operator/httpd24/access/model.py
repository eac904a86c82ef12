"""The model of httpd 2.2 access control (and of 2.4 + mod_access_compat), pure.

A configuration is read into :class:`Scope` objects, one per place that can
hold per-directory settings (server, virtual host, ``<Directory>``,
``<DirectoryMatch>``, ``<Files>``, ``<FilesMatch>``, ``<Location>``,
``<LocationMatch>``, ``<Proxy>``, an ``.htaccess`` file). Each scope holds the
access settings written in it (:class:`Own`), per method where ``<Limit>`` /
``<LimitExcept>`` restrict them.

Merging (research notes §2(d)) follows one of two rule sets:

* ``"2.2"``: Order/Allow/Deny reset together (mod_authz_host has no merger),
  ``Satisfy`` is a core setting merged per method on its own, ``Require``
  lines are replaced by a child that has any, ``AuthType`` is replaced;
* ``"compat"`` (2.4 with mod_access_compat): Order/Allow/Deny/Satisfy share one
  struct that a child holding any of them replaces whole; the ``Require``
  tree merges per ``AuthMerging`` (mod_authz_core).

:func:`decide` gives the status httpd answers one :class:`Request` with.
"""

from __future__ import annotations

import fnmatch
import functools
import posixpath
import re
from dataclasses import dataclass, field, replace
from typing import Collection, Iterator, Literal, Sequence

from ..config import ConfigSet, Item, Liveness, Section, Target, glob_match, module_identifier
from ..config.addresses import main_server_reachable
from ..config.gcpause import gc_paused
from ..config.options import SERVER_DEFAULT, UNSET, Read22, follows_symlinks, known, merged, read_22
from ..apache.table import override_classes
from ..config.placement import JUDGED as PLACED_KEYS, Refusal, is_htaccess, misplaced
from ..engine.source import SourceVersion, judge
from . import authz22, remap
from . import expr as X
from .remap import Remap
from .hosts import AddressError, Entry, in_domain, parse_from

Mode = Literal["2.2", "compat"]

# -- methods -------------------------------------------------------------------------------

#: Methods httpd knows by number (HEAD is GET's number).
KNOWN_METHODS = (
    "GET", "PUT", "POST", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "PROPFIND", "PROPPATCH",
    "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "VERSION-CONTROL", "CHECKOUT", "UNCHECKOUT", "CHECKIN",
    "UPDATE", "LABEL", "REPORT", "MKWORKSPACE", "MKACTIVITY", "BASELINE-CONTROL", "MERGE",
)
#: A method no <Limit> names: stands for every method outside the named ones.
OTHER = "*"


def method_name(name: str) -> str:
    """The method as httpd numbers it: names are case-sensitive (``<Limit get>`` registers a method
    ``get`` of its own, and leaves GET alone), and HEAD is GET."""
    return "GET" if name == "HEAD" else name


def registered(name: str) -> bool:
    """Whether httpd knows the method without a ``<Limit>`` registering it: 2.4's ``Require method``
    refuses any other ("Invalid Method")."""
    return name in KNOWN_METHODS or name == "HEAD"


@dataclass(frozen=True)
class Methods:
    """A set of methods: ``names``, or every method but ``names`` when ``inverted``."""

    names: frozenset[str] = frozenset()
    inverted: bool = True  # default: all methods

    def __contains__(self, method: str) -> bool:
        method = method_name(method) if method != OTHER else OTHER
        if method == OTHER:
            return self.inverted
        return (method in self.names) != self.inverted

    @property
    def is_all(self) -> bool:
        return self.inverted and not self.names

    def intersect(self, other: "Methods") -> "Methods":
        if self.is_all:
            return other
        if other.is_all:
            return self
        if not self.inverted and not other.inverted:
            return Methods(self.names & other.names, False)
        if self.inverted and other.inverted:
            return Methods(self.names | other.names, True)
        pos, neg = (self, other) if not self.inverted else (other, self)
        return Methods(pos.names - neg.names, False)


ALL_METHODS = Methods()


# -- settings ------------------------------------------------------------------------------

Order = Literal["deny,allow", "allow,deny", "mutual-failure"]


@dataclass(frozen=True)
class Rule:
    """An Allow or Deny entry with the methods it applies to, and where it was written."""

    entry: Entry
    methods: Methods = ALL_METHODS


@dataclass(frozen=True)
class Host:
    """mod_authz_host's (2.2) / mod_access_compat's per-directory lists."""

    orders: tuple[tuple[str, Methods], ...] = ()
    allows: tuple[Rule, ...] = ()
    denys: tuple[Rule, ...] = ()

    def order(self, method: str) -> str:
        result = "deny,allow"
        for value, methods in self.orders:
            if method in methods:
                result = value
        return result

    def entries(self, which: str, method: str) -> list[Entry]:
        rules = self.allows if which == "allow" else self.denys
        return [r.entry for r in rules if method in r.methods]

    def passes(self, method: str, request: "Request") -> bool:
        allowed = any(_match(e, request) for e in self.entries("allow", method))
        denied = any(_match(e, request) for e in self.entries("deny", method))
        order = self.order(method)
        if order == "deny,allow":
            return allowed or not denied
        return allowed and not denied  # allow,deny and mutual-failure

    @property
    def mentioned_methods(self) -> set[str]:
        out: set[str] = set()
        for _, m in self.orders:
            out |= m.names
        for r in self.allows + self.denys:
            out |= r.methods.names
        return out


DEFAULT_HOST = Host()


@dataclass(frozen=True)
class RequireLine:
    """One ``Require`` line (2.2 form or 2.4 provider form) and the methods it applies to.

    ``words`` as 2.2's authorization modules read them: 2.2's Require kept its line as written (core.c,
    RAW_ARGS) and each module took the first word with ``ap_getword_white``, quotes and all, the names
    after it with ``ap_getword_conf`` (quotes off). 2.4 reads the provider without its quotes
    (:attr:`Own.authz`)."""

    words: tuple[str, ...]
    methods: Methods = ALL_METHODS

    @property
    def provider(self) -> str:
        """The first word as 2.2 compared it (in quotes where it was written so)."""
        return self.words[0].lower() if self.words else ""

    @property
    def quoted(self) -> bool:
        """Whether the first word was written in quotes: no 2.2 module knew it (`"valid-user"` is none of
        their words), so the line asked for a login and admitted nobody; 2.4 takes the quotes off (HT509)."""
        return bool(self.words) and self.words[0][:1] in ("\"", "'")

    @property
    def text(self) -> str:
        return " ".join(("Require",) + self.words)


def quoted_provider(node) -> bool:
    """Whether a Require line's provider word is written in quotes, which no 2.2 module read (:attr:`RequireLine.quoted`)."""
    return bool(node.raw_args) and node.raw_args[0][:1] in ("\"", "'")


@dataclass
class Own:
    """Access settings written in one scope. ``None``: not written there."""

    host: Host | None = None
    satisfy: tuple[tuple[str, Methods], ...] | None = None
    requires: tuple[RequireLine, ...] | None = None
    #: 2.4 authorization written in the scope (Require lines and containers), for compat mode.
    authz: X.Expr | None = None
    authmerging: str | None = None
    #: As written, ``None`` among them: ``AuthType None`` replaces the parent's AuthType as any other does.
    authtype: str | None = None
    #: Whether an AuthName is written here (the realm Basic and Digest authentication need).
    authname: bool = False
    #: Whether an AuthUserFile, or an AuthBasicProvider (which may name another provider), is written here.
    user_source: bool = False
    #: 2.2 authorization modules with a record of their own here (any of their directives).
    authz22: dict[str, authz22.ModuleConf] = field(default_factory=dict)
    #: Items of each kind, for locations and edits.
    items: dict[str, list[Item]] = field(default_factory=dict)
    errors: list[tuple[Item, str]] = field(default_factory=list)

    @property
    def has_compat(self) -> bool:
        return self.host is not None or self.satisfy is not None

    @property
    def authenticates(self) -> bool:
        """Whether the section names a type that authenticates: ``AuthType None`` does not, and with no
        Require applying it asks for nothing (no AH01627 on 2.4, which keeps no type for it)."""
        return authenticating(self.authtype) is not None

    @property
    def has_access(self) -> bool:
        return self.has_compat or self.requires is not None or self.authz is not None

    @property
    def authz_record(self) -> "AuthzRecord | None":
        """This section's mod_authz_core record; None when it has neither Require lines nor AuthMerging."""
        if self.authz is None and self.authmerging is None:
            return None
        return self.authz, self.authmerging


def authenticating(authtype: str | None) -> str | None:
    """The type a written AuthType authenticates with; None for ``None``.

    The research notes say when 2.2 and 2.4 authenticate (§2c: only where a Require line needs a user;
    2.2's ``server/request.c`` L190-237) and what AuthType without Require does (§5: 2.2 200, 2.4 500
    AH01627), but nothing of ``AuthType None``; what follows is httpd's source as read for this, and the
    2.4 side is measured (tests/access/test_differential_cases.py). 2.4's mod_authn_core keeps no type for
    ``None`` but marks it set, so it replaces the parent's (``set_authtype``, merged as a whole); with no
    type a request that needs a user gets 500 (mod_authn_core ``authenticate_no_user``) and with no
    Require no AH01627. 2.2's core stored "None" as any other word and replaced the parent's with it; no
    2.2 authentication module owns that word (mod_auth_basic declines unless ``strcasecmp(ap_auth_type(r),
    "Basic")`` is 0, mod_auth_digest likewise for "Digest"), so there too a request that needs a user
    ends in 500 ("couldn't check user.  No user file?"), and one that needs none was never authenticated."""
    return None if authtype is None or authtype.lower() == "none" else authtype


@dataclass(frozen=True)
class Effective:
    """The merged settings a request meets (one rule set)."""

    host: Host = DEFAULT_HOST
    satisfy: tuple[tuple[str, Methods], ...] = ()
    requires: tuple[RequireLine, ...] = ()
    authz: X.Expr | None = None
    #: The type that authenticates (None: none written, or ``AuthType None``: :func:`authenticating`).
    authtype: str | None = None
    #: Whether an AuthName applies: inherited on its own, whatever the AuthType (2.2 core.c, 2.4
    #: mod_authn_core: ``new->ap_auth_name ? new : base``).
    authname: bool = False
    #: Whether an AuthUserFile or an AuthBasicProvider applies, inherited on its own as well.
    user_source: bool = False
    #: 2.2's authorization module records in effect (module, record), see :mod:`.authz22`.
    authz22: tuple[tuple[str, authz22.ModuleConf], ...] = ()

    def satisfy_for(self, method: str) -> str:
        result = "all"
        for value, methods in self.satisfy:
            if method in methods:
                result = value
        return result

    def requires_for(self, method: str) -> list[RequireLine]:
        return [r for r in self.requires if method in r.methods]

    @property
    def realmless(self) -> bool:
        """Whether authentication here ends in 500 before it looks at credentials: mod_auth_basic and
        mod_auth_digest refuse a request they authenticate without an AuthName ("need AuthName",
        AH01615 / AH01780 on 2.4; the same check in 2.2's modules), measured on apache2 for both
        (tests/access/test_differential_cases.py)."""
        return not self.authname and (self.authtype or "").lower() in ("basic", "digest")

    @property
    def no_user_file(self) -> bool:
        """Whether Basic credentials end in 500: the default provider, mod_authn_file, has no file to open
        ("AuthUserFile not specified", AH01619 on 2.4; 2.2 fails to open it), measured on apache2
        (tests/access/test_differential_cases.py). A request without credentials still gets 401."""
        return not self.user_source and (self.authtype or "").lower() == "basic"


def _satisfy_after(parent: tuple[tuple[str, Methods], ...], own: tuple[tuple[str, Methods], ...]):
    """2.2's Satisfy lines in merge order, less those a later line overrides for every method they
    name: :meth:`Effective.satisfy_for` answers the same, and states that answer the same compare
    equal (a hundred user directories with ``Satisfy Any`` are one context, not a hundred)."""
    if own and own[-1][1].is_all:
        return own[-1:]
    if not parent:
        return own
    lines = parent + own
    return tuple(line for i, line in enumerate(lines) if not any(_covers(later[1], line[1]) for later in lines[i + 1:]))


def _covers(wide: Methods, narrow: Methods) -> bool:
    """Whether every method of ``narrow`` is one of ``wide``."""
    if wide.is_all:
        return True
    if not narrow.inverted:
        return narrow.names <= wide.names if not wide.inverted else not (narrow.names & wide.names)
    return wide.inverted and wide.names <= narrow.names


def _merged_authtype(parent: Effective, own: Own) -> str | None:
    """A written AuthType replaces the parent's, ``AuthType None`` too (2.2 core.c and 2.4
    mod_authn_core alike merge it as a whole): only a section without one inherits it."""
    return parent.authtype if own.authtype is None else authenticating(own.authtype)


def merge(parent: Effective, own: Own, mode: Mode) -> Effective:
    if mode == "2.2":
        return Effective(
            host=own.host if own.host is not None else parent.host,
            satisfy=_satisfy_after(parent.satisfy, own.satisfy) if own.satisfy is not None else parent.satisfy,
            requires=own.requires if own.requires is not None else parent.requires,
            authz=None,
            authtype=_merged_authtype(parent, own),
            authname=own.authname or parent.authname,
            user_source=own.user_source or parent.user_source,
            authz22=authz22.merged(parent.authz22, own.authz22),
        )
    # compat: the four directives share one struct without merger.
    if own.has_compat:
        host = own.host or DEFAULT_HOST
        satisfy = own.satisfy or ()
    else:
        host, satisfy = parent.host, parent.satisfy
    authz = merge_authz((parent.authz, None), own.authz_record)[0]
    return Effective(host=host, satisfy=satisfy, requires=(), authz=authz, authtype=_merged_authtype(parent, own),
                     authname=own.authname or parent.authname, user_source=own.user_source or parent.user_source,
                     authz22=authz22.merged(parent.authz22, own.authz22))


#: Sections httpd 2.4 merges among themselves before merging the result onto what came before
#: (request.c: file_walk, location_walk); Directory sections are merged one by one.
WALK_GROUPS = {"files": "files", "location": "location", "proxy": "proxy"}


def fold(chain: Sequence[Scope], mode: Mode) -> Effective:
    """The settings of a request that meets ``chain`` (sorted by :meth:`Scope.merge_key`).

    One merge after the other, except for the Require tree on 2.4 (mode "compat"): there httpd
    merges the Files sections that apply among themselves first and the result onto the
    directory's configuration, and likewise the Location sections, so the AuthMerging of the
    last section of such a group decides how the whole group combines with what came before
    (measured on apache2 2.4: tests/access/test_differential_harness.py). Replacing merges
    (Order/Allow/Deny/Satisfy, AuthType, 2.2's Require) come out the same either way.
    """
    if mode == "2.2":  # Folding.then's 2.2 case, without an object per step: this loop is hot
        state = Effective()
        for scope in chain:
            state = merge(state, scope.own, mode)
        return state
    folding = Folding()
    for scope in chain:
        folding = folding.then(scope, mode)
    return folding.state


@dataclass(frozen=True)
class Folding:
    """:func:`fold` part way along a chain: two equal foldings give equal states for any rest of it."""

    state: Effective = Effective()
    group: str | None = None  # the walk group (:data:`WALK_GROUPS`) of the last scope, compat only
    before: X.Expr | None = None  # the Require tree before the current group
    inside: AuthzRecord | None = None  # the group's own record, merged so far

    def then(self, scope: Scope, mode: Mode) -> Folding:
        if mode == "2.2":
            return Folding(merge(self.state, scope.own, mode))
        group, before, inside = self.group, self.before, self.inside
        kind = WALK_GROUPS.get(scope.kind)
        if kind != group:
            group, before, inside = kind, self.state.authz, None
        state = merge(self.state, scope.own, mode)
        record = scope.own.authz_record
        if group is not None and record is not None:
            inside = merge_authz(inside, record)
            state = replace(state, authz=merge_authz((before, None), inside)[0])
        return Folding(state, group, before, inside)


#: mod_authz_core's per-directory record: the Require tree and the AuthMerging (None: not set).
AuthzRecord = tuple[X.Expr | None, str | None]


def merge_authz(base: AuthzRecord | None, new: AuthzRecord | None) -> AuthzRecord | None:
    """``merge_authz_core_dir_config``: ``new`` (a section's record, or a group's) merged onto ``base``.

    Without AuthMerging, or with `AuthMerging Off`, the newer record replaces the older whole, so an
    explicit `Off` with no Require line drops the inherited ones; with `And`/`Or` the trees combine (one
    missing: the other), and the record takes the newer AuthMerging, which decides how a Location or
    Files group joins what came before it. A record with neither (only AuthzSendForbiddenOnFailure)
    leaves the older one as it is.
    """
    if new is None:
        return base
    if base is None:
        return new
    (old_tree, _), (tree, op) = base, new
    if op is None and tree is None and old_tree is not None:
        return base
    if op not in ("and", "or") or (old_tree is None and tree is None):
        return new
    if old_tree is not None and tree is not None:
        return (X.All((old_tree, tree)) if op == "and" else X.AnyOf((old_tree, tree))), op
    return (old_tree if tree is None else tree), op


# -- requests ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One request as the access checks see it.

    ``user`` with ``password_ok`` False means credentials with a wrong password;
    ``hostname`` is the double-reverse lookup result (None: lookup fails);
    ``env`` the variables set for the request (SetEnvIf ...); ``filename`` the
    file system path (default: mapped from DocumentRoot / Alias); ``vhost`` the
    ServerName of the virtual host (None: the first one, or the main server).
    """

    path: str = "/"
    method: str = "GET"
    client: str = "127.0.0.1"
    hostname: str | None = None
    env: frozenset[str] = frozenset()
    user: str | None = None
    password_ok: bool = True
    groups: frozenset[str] = frozenset()
    #: Groups in the AuthDBMGroupFile (mod_authz_dbm), when they differ from ``groups`` (None: the same).
    dbm_groups: frozenset[str] | None = None
    filename: str | None = None
    is_dir: bool | None = None
    vhost: str | None = None
    #: The DirectoryIndex file mod_dir looks up for a request ending in "/" where it is there (the test
    #: harness loads mod_dir and writes one in every directory); None: no lookup (no mod_dir, no such file).
    index: str | None = None


def _match(entry: Entry, request: Request) -> bool:
    if entry.kind == "all":
        return True
    if entry.kind == "ip":
        return entry.matches_ip(request.client)
    if entry.kind == "host":
        return request.hostname is not None and in_domain(entry.name, request.hostname)
    if entry.kind == "env":
        return entry.name in request.env
    if entry.kind == "nenv":
        return entry.name not in request.env
    return False


# -- scopes --------------------------------------------------------------------------------

SCOPE_KEYS = frozenset(
    {"directory", "directorymatch", "files", "filesmatch", "location", "locationmatch", "proxy", "proxymatch"}
)
TRANSPARENT = frozenset({"ifmodule", "ifdefine", "ifversion", "limit", "limitexcept"})
COMPAT_KEYS = frozenset({"order", "allow", "deny", "satisfy"})
#: Access lines take directory context (OR_LIMIT, OR_AUTHCFG), which httpd never grants outside these
#: sections: server/config.c reads the top level with ``override = (RSRC_CONF | OR_ALL) & ~(OR_AUTHCFG | OR_LIMIT)``.
OUTSIDE_A_SECTION = ("not allowed here: httpd reads it only in <Directory>, <Location>, <Files> and <Proxy> "
                     "sections and .htaccess files (2.2 too); move it into the section it was meant for")
AUTHZ_CONTAINERS = frozenset({"requireall", "requireany", "requirenone"})
#: Require providers that exist only in 2.4 (a 2.2 server refuses them).
NATIVE_24_PROVIDERS = frozenset({"all", "ip", "host", "env", "local", "method", "expr", "not", "forward-dn"})
#: The conditional sections 2.2 has: a 2.4-only line inside one may sit in a branch that 2.2 skipped.
CONDITIONS_22_KNOWS = ("ifmodule", "ifdefine", "ifversion")

#: <Proxy> takes <Directory>'s place for proxied requests (research notes §2(d)): the two never meet one request.
PHASES = {"server": 0, "vhost": 1, "directory": 2, "htaccess": 2, "proxy": 2, "directorymatch": 3, "files": 4,
          "location": 5}


@dataclass(eq=False)
class Scope:
    """A place holding per-directory settings."""

    kind: str  # server, vhost, directory, directorymatch, files, location, proxy, htaccess
    node: Section | None
    file: str
    index: int
    pattern: str = ""
    regex: re.Pattern[str] | None = None
    parent: "Scope | None" = None
    vhost: Section | None = None
    own: Own = field(default_factory=Own)
    #: Directory path (normalized, trailing slash) for directory / htaccess scopes.
    dirpath: str | None = None
    #: ``AllowOverride`` written in the scope (the item), for .htaccess checks.
    allowoverride: Item | None = None
    #: Of an .htaccess file: every line httpd reads in it (its sections' too), which its directory's
    #: AllowOverride must let in (:meth:`Model.htaccess_refusal`).
    lines: list[Item] = field(default_factory=list, repr=False, compare=False)
    #: The record its ``Options`` lines set (None: none), read for the scopes that decide whether the
    #: directory walk follows symlinks (:meth:`Model.follows_symlinks`): server, virtual host, a plain
    #: <Directory>, an .htaccess file.
    options: Read22 | None = None
    live: Liveness = Liveness.LIVE
    #: The undecided conditions around the section itself, each as (kind, name, the answer under which
    #: the scope exists) with the section that asks it: ``<IfModule !mod_ssl.c>`` around a ``<Directory>``
    #: is ``("module", "ssl_module", False)``.
    around: dict[tuple[str, str, bool], Section] = field(default_factory=dict, repr=False, compare=False)
    #: The undecided conditions of branches inside the section that hold some of its own access lines
    #: (its translation is written outside them, so it must hold whichever way they fall).
    inside: dict[tuple[str, str], Section] = field(default_factory=dict, repr=False, compare=False)
    #: For each of its own access lines, the outermost undecided branch inside the section that holds
    #: it (None: the line is read whenever the section is).
    branches: list[Section | None] = field(default_factory=list, repr=False, compare=False)

    @property
    def branched(self) -> bool:
        """Some of its own access lines sit in an undecided branch inside it."""
        return any(branch is not None for branch in self.branches)

    @property
    def branch(self) -> Section | None:
        """The undecided branch inside the section that holds all of its own access lines, if one does:
        its translation is written inside it, and where the branch is not read the section has none."""
        first = self.branches[0] if self.branches else None
        return first if first is not None and all(b is first for b in self.branches) else None

    @property
    def label(self) -> str:
        if self.node is not None:
            args = " ".join(self.node.args)
            return f"<{self.node.name} {args}>".replace(" >", ">")
        if self.kind == "htaccess":
            return self.file
        return "server level" if self.kind == "server" else "virtual host level"

    @property
    def line(self) -> int:
        return self.node.location.line if self.node is not None else 1

    def components(self) -> int:
        return (self.dirpath or "/").count("/")

    def merge_key(self) -> tuple:
        """Where httpd merges this scope, earlier first (research notes §2(d))."""
        phase = PHASES.get(self.kind, 6)
        in_vhost = 1 if self.vhost is not None else 0
        if self.kind in ("directory", "htaccess"):
            return (phase, self.components(), 1 if self.kind == "htaccess" else 0, in_vhost, self.index)
        if self.kind == "directorymatch":
            # core_reorder_directories sorts the regex sections as well by their number of components,
            # which for a regex is the number of "/" written in it: "^/srv/www/(a|c)" merges before
            # "^/srv/www/a/" wherever it is written (2.2 and 2.4 alike).
            return (phase, self.pattern.count("/"), in_vhost, self.index)
        if self.kind == "files":
            outer = self.parent
            if outer is None or outer.kind in ("server", "vhost"):
                return (phase, 0, in_vhost, self.index)
            # Nested: core's merge appends a section's <Files> to those merged before it, so they merge
            # in the order of the sections holding them (a <DirectoryMatch>'s after every <Directory>'s).
            return (phase, 1, outer.merge_key(), self.index)
        return (phase, in_vhost, self.index)


@dataclass(frozen=True)
class Override:
    """What an ``AllowOverride`` line lets the .htaccess files under it do. Its words are read in order, as
    core.c does (measured on apache2: tests/access/test_allowoverride_nonfatal.py): ``None`` and ``All``
    start again, a class or ``Nonfatal=`` adds to what came before."""

    #: The classes it lets in (lower case, without ``=...``; ``all``: every one).
    classes: frozenset[str]
    #: httpd opens the files (what the line ends on is not a bare ``None``).
    read: bool
    #: ``Nonfatal=Override`` or ``Nonfatal=All`` (2.4): a line it keeps out is skipped (with what it holds)
    #: instead of answering 500. ``Nonfatal=Unknown`` skips only directives httpd does not know.
    nonfatal: bool


def override_of(item: Item) -> Override:
    """The :class:`Override` of an ``AllowOverride`` line."""
    classes: set[str] = set()
    read, nonfatal = True, False
    for word in item.args:
        key, _, value = word.lower().partition("=")
        if key in ("none", "all"):
            classes, read, nonfatal = ({"all"} if key == "all" else set()), key == "all", False
        else:
            read = True
            if key == "nonfatal":
                nonfatal = nonfatal or value in ("override", "all")
            else:
                classes.add(key)
    return Override(frozenset(classes), read, nonfatal)


def keeps_out(allowoverride: Item, key: str) -> bool:
    """Whether the AllowOverride line keeps directive ``key`` (lower case; a section with its ``<``) out of an
    .htaccess file (2.2 and 2.4 give each directive the same class: tests/access/test_allowoverride.py)."""
    override = override_of(allowoverride)
    if not override.read or "all" in override.classes:
        return False
    classes = override_classes().get(key)
    return bool(classes) and not any(c.lower() in override.classes for c in classes)


def htaccess_home(scope: Scope) -> Scope | None:
    """The .htaccess file ``scope`` stands in (itself, or the file holding its section); None: none."""
    while scope is not None and scope.kind != "htaccess":
        scope = scope.parent
    return scope


def normalize_dir(path: str) -> str:
    path = re.sub(r"/+", "/", path.strip() or "/")
    if not path.endswith("/"):
        path += "/"
    return path


def _dir_under(child: str, parent: str) -> bool:
    """``child`` (a directory path, may have wildcards) lies at or under ``parent`` (wildcards allowed)."""
    if not _has_wildcard(parent):  # the same comparison, without fnmatch
        c, p = child.strip("/"), parent.strip("/")
        return not p or c == p or c.startswith(p + "/")
    cparts = child.strip("/").split("/") if child.strip("/") else []
    pparts = parent.strip("/").split("/") if parent.strip("/") else []
    if len(pparts) > len(cparts):
        return False
    return all(c == p or fnmatch.fnmatchcase(c, p) for c, p in zip(cparts, pparts))


def dirs_may_meet(a: str, b: str) -> bool:
    """Whether some directory lies at or under both ``a`` and ``b`` (either may have wildcards):
    ``/srv/www/*/b/`` and ``/srv/www/a/`` share /srv/www/a/b/, though neither lies under the other."""
    aparts = a.strip("/").split("/") if a.strip("/") else []
    bparts = b.strip("/").split("/") if b.strip("/") else []
    for x, y in zip(aparts, bparts):
        if x == y or (_has_wildcard(x) and _has_wildcard(y)):
            continue  # two wildcards: taken as meeting (a context too many, never one too few)
        if not (_has_wildcard(x) and fnmatch.fnmatchcase(y, x) or _has_wildcard(y) and fnmatch.fnmatchcase(x, y)):
            return False
    return True


def _has_wildcard(text: str) -> bool:
    return any(c in text for c in "*?[")


@functools.lru_cache(maxsize=1024)
def _pathname_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[" and (end := pattern.find("]", i + (3 if pattern[i + 1:i + 2] in ("!", "^") else 2))) > i:
            # a "]" right after "[" (or "[!") belongs to the set; a "[" without its "]" is itself
            body = pattern[i + 1:end]
            negate = body[:1] in ("!", "^")
            body = "".join("\\" + ch if ch in "\\^[]" else ch for ch in (body[1:] if negate else body))
            out.append(f"[^/{body}]" if negate else f"(?!/)[{body}]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.S)


def fnmatch_pathname(pattern: str, text: str) -> bool:
    """apr_fnmatch(pattern, text, APR_FNM_PATHNAME), which a wildcard <Location> is matched with: the whole
    text, and no wildcard matches a "/" (`/c/*` meets /c/w, not /c/w/f.html)."""
    return _pathname_regex(pattern).match(text) is not None


def alias_rest(url: str, prefix: str) -> str | None:
    """What follows an Alias ``prefix`` in ``url`` (None: it does not map it), as mod_alias's alias_matches:
    the prefix's last component matches whole, and a prefix ending in "/" only URLs that go on after it
    (`Alias /c/` maps /c/x, not /c)."""
    p = prefix.rstrip("/")
    if url.startswith(prefix) if prefix.endswith("/") else (url == p or url.startswith(p + "/")):
        return url[len(p):]
    return None


#: Why a fragment's URLs may lie where it does not say, and where that is said (:attr:`Model.unseen`).
FRAGMENT_UNSEEN = ("this file is part of a server, with no ServerRoot, PidFile or User", "the configuration including it")


@dataclass
class Model:
    """Every scope of a configuration, with what the mapping from URLs to files needs."""

    scopes: list[Scope]
    mode: Mode
    document_root: dict[int | None, str]
    aliases: dict[int | None, list[tuple[str, str]]]
    vhosts: list[Section]
    server_names: dict[int, list[str]]
    #: Some request reaches the main server (:attr:`servers`).
    main_reachable: bool = True
    #: The set is a whole server configuration, all of it shown (:attr:`Builder.whole_server`): its Aliases are
    #: all there are.
    whole_server: bool = False
    #: Where it is not: (why, what else of the server there is), as messages say it (:meth:`unseen_may_map`).
    unseen: tuple[str, str] = FRAGMENT_UNSEEN
    #: URLs each server (None: the main one) proxies or maps elsewhere (:mod:`.remap`), in reading order.
    remaps: dict[int | None, list[Remap]] = field(default_factory=dict)
    #: Some ``RewriteOptions`` inherits rules, so main-server RewriteRules may apply in virtual hosts.
    rewrite_inherited: bool = False
    has_compat: bool = False
    #: 2.4-only access syntax (Require all/ip/.../dbm-group, containers, AuthMerging), which 2.2 could not read.
    has_24_syntax: bool = False
    access_file_names: list[str] = field(default_factory=lambda: [".htaccess"])
    has_entry: bool = False
    #: What :func:`build` was told of the configuration (its ``on_24``): None, nothing.
    on_24: bool | None = None
    #: Modules of live LoadModule lines, in reading order ("authz_user_module", ...).
    load_order: tuple[str, ...] = ()
    #: Derived data computed once per model (the plan's scope index, chains per scope).
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    #: What the model was read from, so the plan can read it again under assumptions (:mod:`.worlds`).
    configset: ConfigSet | None = field(default=None, repr=False, compare=False)
    target: Target | None = field(default=None, repr=False, compare=False)
    #: The undecided conditions around what the model read: ("module", "ssl_module") or ("define", "SSL") ->
    #: the first section that asks it.
    undecided: dict[tuple[str, str], Section] = field(default_factory=dict, repr=False, compare=False)
    #: Something read in a branch no assumption settles (an <IfVersion> httpd24 cannot compare, a LoadModule
    #: or Define in an undecided branch).
    unsettled: Item | None = field(default=None, repr=False, compare=False)
    #: The undecided conditions around DocumentRoot/Alias/ScriptAlias lines, which decide where a URL
    #: maps: (kind, name, the answer under which the line is read) -> [(the section that asks it, the
    #: line's virtual host (None: server), the Alias prefix (None: DocumentRoot))].
    mapping_undecided: dict[tuple[str, str, bool], list[tuple[Section, Section | None, str | None]]] = field(
        default_factory=dict, repr=False, compare=False)
    #: The first section httpd refuses where it stands (HT409), with why: the configuration never
    #: started, so it has no answers of today for a translation to keep.
    misplaced: tuple[Item, Refusal] | None = field(default=None, repr=False, compare=False)
    #: The .htaccess lines (sections with what they hold) httpd skips because an ``AllowOverride ...
    #: Nonfatal=Override`` keeps them out (:meth:`override_refusal`): the model reads the files without what
    #: they set, but for the reset an Order/Allow/Deny/Satisfy line makes all the same (:meth:`Builder._reset_compat`).
    skipped: tuple[Item, ...] = field(default=(), repr=False, compare=False)
    #: A skipped line (as above) the model cannot follow, with why (:func:`skip_problem` says where): one server
    #: skips it and another reads it, or answers 500 for it (no one text of the file answers as today under
    #: both), or it resets a record the model does not keep (:data:`_RESET_BY_SKIPPING`). A person's decision.
    unmodelled_skip: tuple[Item, str] | None = field(default=None, repr=False, compare=False)
    #: (.htaccess file, server: id of its <VirtualHost>, None: the main one) -> the first line of the file
    #: that server's AllowOverride keeps out, with why: httpd answers 500 to its requests under the file.
    override_errors: dict[tuple[str, int | None], tuple[Item, str]] = field(
        default_factory=dict, repr=False, compare=False)

    # -- mapping ---------------------------------------------------------------------------
    @property
    def hybrid(self) -> bool:
        """Order/Allow/Deny/Satisfy in a configuration that runs on 2.4 (next to a 2.4-only line, or ``on_24``)."""
        return self.mode == "compat" and self.has_compat

    @property
    def servers(self) -> list[Section | None]:
        """Every server a request may reach: each virtual host, and the main one (None) unless the virtual
        hosts take every Listen of a whole configuration (``*:80`` beside ``Listen 80``; a `_default_:443`
        beside Listen 80 and 443 leaves it port 80: :func:`~httpd24.config.addresses.main_server_reachable`;
        a fragment's Listen lines are not all there are: :attr:`Builder.whole_server`)."""
        return [None, *self.vhosts] if self.main_reachable or not self.vhosts else list(self.vhosts)

    def vhost_of(self, request: Request) -> Section | None:
        if not self.vhosts:
            return None
        if request.vhost is not None:
            for v in self.vhosts:
                if request.vhost.lower() in (n.lower() for n in self.server_names.get(id(v), [])):
                    return v
        return self.vhosts[0]

    def aliases_of(self, vhost: Section | None) -> list[tuple[str, str]]:
        """``vhost``'s (prefix, target) Aliases in the order mod_alias tries them: its own, then the main server's."""
        return (self.aliases.get(id(vhost), []) if vhost is not None else []) + self.aliases.get(None, [])

    def filename(self, url: str, vhost: Section | None) -> str:
        for prefix, target in self.aliases_of(vhost):
            rest = alias_rest(url, prefix)
            if rest is not None:
                return target.rstrip("/") + rest if rest else target
        root = self.own_root(vhost) or "/usr/local/apache2/htdocs"
        return root.rstrip("/") + url

    def unseen_may_map(self, url: str, vhost: Section | None) -> bool:
        """Whether ``url`` may lie where lines of the server the set does not show map it (:attr:`unseen`): in a
        fragment, or a configuration including files it does not hold, a URL none of its own Aliases cover,
        which a DocumentRoot there (where the set sets none) or an Alias (Debian's apache2.conf has /icons/) may
        put in any directory."""
        return not self.whole_server and all(alias_rest(url, prefix) is None for prefix, _ in self.aliases_of(vhost))

    def guesses_root(self, url: str, vhost: Section | None) -> bool:
        """Whether :meth:`filename` maps ``url`` through a DocumentRoot the configuration does not set: a
        fragment's, which the configuration including it sets (Debian's /var/www, where a fragment's
        `<Directory /var/www/admin>` meets its `<Location /admin>`)."""
        return self.own_root(vhost) is None and self.unseen_may_map(url, vhost)

    def own_root(self, vhost: Section | None) -> str | None:
        """The DocumentRoot the configuration sets for ``vhost`` (its own, else the main server's)."""
        return (self.document_root.get(id(vhost)) if vhost is not None else None) or self.document_root.get(None)

    def mapped_dirs(self, vhost: Section | None) -> list[str]:
        """The directories the configuration's own DocumentRoot and Aliases put ``vhost``'s URLs in."""
        root = self.own_root(vhost)
        return [normalize_dir(path) for path in ([root] if root else []) + [target for _, target in self.aliases_of(vhost)]]

    # -- which scopes a request meets --------------------------------------------------------
    def chain(self, request: Request, index: str | None = None) -> list[Scope]:
        """The scopes ``request`` meets, in merge order; ``index``: those of mod_dir's subrequest for that file of
        the directory ``request`` asks for. That subrequest reuses the directory walk of the request (request.c:
        the walk cache of the same directory), so only its <Files> and <Location> sections differ."""
        vhost = self.vhost_of(request)
        url = request.path.split("?")[0]
        filename = request.filename or self.filename(url, vhost)
        is_dir = request.is_dir
        dir_paths = {s.dirpath for s in self.scopes if s.dirpath}
        if is_dir is None:
            is_dir = filename.endswith("/") or normalize_dir(filename) in dir_paths
        directory = normalize_dir(filename) if is_dir else normalize_dir(posixpath.dirname(filename.rstrip("/")) or "/")
        # Where the directory walk follows symlinks at the file's directory (FollowSymLinks without
        # SymLinksIfOwnerMatch, the default of 2.2 and 2.4) it does not stat a file's own name: it takes it
        # for one more directory and tests the <Directory> sections of that depth against "<file>/" as
        # well, so `<Directory /srv/www/*>` applies to /srv/www/f.html. Elsewhere it lstat()s the name,
        # finds a file and stops (measured on apache2 2.4: tests/access/test_options_walk.py; request.c,
        # "First optimization"). Not .htaccess: "<file>/.htaccess" is never there.
        walked = normalize_dir(filename) if is_dir or self.follows_symlinks(directory, vhost) else directory
        # A <DirectoryMatch> regex is matched against the request's whole file name, not its
        # directory (measured on apache2 2.4: `^/srv/www/a/` does not apply to /a while
        # `<Directory /srv/www/a>` does; `^/srv/www/a/$` applies to /a/ but not to /a/f.html).
        matched_dir = filename
        # <Files> sections meet what follows the last "/" (request.c, file_walk): "" for /f.html/, whatever
        # f.html is (measured on apache2: tests/access/test_files_on_a_directory.py).
        basename = posixpath.basename(filename) if index is None else index
        location_url = url if index is None else url + index
        applied: list[Scope] = []
        for scope in self.scopes:
            if scope.vhost is not None and scope.vhost is not vhost:
                continue
            if self._applies(scope, location_url if scope.kind == "location" else url,
                             walked if scope.kind == "directory" else directory, matched_dir, basename, vhost):
                applied.append(scope)
        # Nested scopes apply only when their parent does.
        chosen = [s for s in applied if s.parent is None or s.parent in applied or s.parent.kind in ("server", "vhost")]
        return sorted(chosen, key=Scope.merge_key)

    def follows_symlinks(self, directory: str, vhost: Section | None) -> bool:
        """Whether the walk follows symlinks at ``directory``, where it decides how to look at the names in
        it: by the options of the server, the virtual host, and every plain <Directory> and .htaccess file
        of ``directory`` and above, merged in the walk's order. Those of sections below, of <Files>,
        <Location> and regex sections are merged after that decision and change nothing of it."""
        scopes = self.cache.get("options")
        if scopes is None:
            scopes = self.cache["options"] = sorted((s for s in self.scopes if s.options is not None),
                                                    key=Scope.merge_key)
        record = SERVER_DEFAULT
        for scope in scopes:
            if scope.vhost is not None and scope.vhost is not vhost:
                continue
            if scope.kind in ("server", "vhost") or scope.dirpath is not None and _dir_under(directory, scope.dirpath):
                record = merged(record, scope.options)
        return follows_symlinks(record)

    def _applies(self, scope: Scope, url: str, directory: str, matched_dir: str, basename: str,
                 vhost: Section | None) -> bool:
        """``directory``: the request's directory with its slash; ``matched_dir``: the path a
        <DirectoryMatch> regex is matched against (the file name)."""
        kind = scope.kind
        if kind in ("server", "vhost"):
            return True
        if kind == "htaccess" and scope.dirpath is not None and not self.reads_htaccess(scope.dirpath, vhost):
            return False  # httpd never opens it (measured: tests/access/test_allowoverride.py)
        if kind in ("directory", "htaccess"):
            return scope.dirpath is not None and _dir_under(directory, scope.dirpath)
        if kind == "directorymatch":
            return bool(scope.regex and scope.regex.search(matched_dir))
        if kind == "files":
            if scope.regex is not None:
                return bool(scope.regex.search(basename))
            return fnmatch.fnmatchcase(basename, scope.pattern)
        if kind == "location":
            if scope.regex is not None:
                return bool(scope.regex.search(url))
            if _has_wildcard(scope.pattern):
                return fnmatch_pathname(scope.pattern, re.sub("/+", "/", url))
            p = scope.pattern
            if p in ("", "/"):
                return True
            return url == p or url.startswith(p.rstrip("/") + "/") or (p.endswith("/") and url.startswith(p))
        return False  # proxy: proxied requests only

    def allowoverride_at(self, dirpath: str, vhost: Section | None = None) -> Item | None:
        """The AllowOverride line in effect for a directory in a server (``vhost``; None: the main one): that
        of the deepest plain <Directory> above it that has one, a virtual host's after the main server's of
        the same depth (httpd appends a host's sections to the main server's, then sorts them by depth);
        None: none is written."""
        memo = self.cache.setdefault("allowoverride", {})
        server = id(vhost) if vhost is not None else None
        if (dirpath, server) not in memo:
            if (by_server := self.cache.get("allowoverride_sections")) is None:  # few, against every scope
                by_server = self.cache["allowoverride_sections"] = {}
                for scope in self.scopes:
                    if scope.kind == "directory" and scope.allowoverride is not None and scope.dirpath is not None:
                        by_server.setdefault(id(scope.vhost) if scope.vhost is not None else None, []).append(scope)
            sections = by_server.get(None, []) + (by_server.get(server, []) if server is not None else [])
            best = max((scope for scope in sections if _dir_under(dirpath, scope.dirpath)),
                       key=lambda s: (s.components(), s.vhost is not None, s.index), default=None)
            memo[(dirpath, server)] = best.allowoverride if best is not None else None
        return memo[(dirpath, server)]

    def reads_htaccess(self, dirpath: str, vhost: Section | None = None) -> bool:
        """Whether httpd opens the .htaccess file of a directory in a server: not under an ``AllowOverride None``."""
        item = self.allowoverride_at(dirpath, vhost)
        return item is None or override_of(item).read

    def reads_lines(self, scope: Scope, vhost: Section | None = None) -> bool:
        """Whether a server (``vhost``; None: the main one) reads the lines of the .htaccess file holding
        ``scope``: it opens the file, an AllowOverride applies (2.4 refuses every line where none does), and
        no line of the file is refused (a 500 for every request under it)."""
        home = htaccess_home(scope)
        if home is None or home.dirpath is None or not self.reads_htaccess(home.dirpath, vhost):
            return False
        if self.allowoverride_at(home.dirpath, vhost) is None and self.mode != "2.2":
            return False
        return (scope.file, id(vhost) if vhost is not None else None) not in self.override_errors

    def server_label(self, server: Section | None) -> str:
        """A server as a message names it: the main server, or a virtual host by its ServerName (else its address)."""
        if server is None:
            return "the main server"
        names = self.server_names.get(id(server))
        return f"<VirtualHost> {names[0]}" if names else f"<VirtualHost {' '.join(server.args)}>"

    def override_refusal(self, scope: Scope, key: str, vhost: Section | None = None) -> Item | None:
        """The AllowOverride line that keeps directive ``key`` (lower case; a section with its ``<``) out of the
        .htaccess file holding ``scope`` in a server (``vhost``; None: the main one): httpd answers 500 to every
        request under the file ("<key> not allowed here"; 2.2 and 2.4 give each directive the same class:
        tests/access/test_allowoverride.py), or skips the line where the AllowOverride says
        ``Nonfatal=Override`` (:attr:`Override.nonfatal`, :attr:`Model.skipped`). None when it lets it in, when
        ``scope`` is in no placed .htaccess file, or when no AllowOverride applies there (:meth:`htaccess_refusal`)."""
        home = htaccess_home(scope)
        if home is None or home.dirpath is None or (item := self.allowoverride_at(home.dirpath, vhost)) is None:
            return None
        return item if keeps_out(item, key) else None

    def allowoverrides_at(self, dirpath: str) -> list[Item | None]:
        """The AllowOverride lines in effect for a directory in some server, each once (None: in some server
        none applies): what a line written into its .htaccess file must get past, thousands of virtual
        hosts or not."""
        memo = self.cache.setdefault("allowoverrides", {})
        if dirpath not in memo:
            found = {id(item): item for item in (self.allowoverride_at(dirpath, server) for server in self.servers)}
            memo[dirpath] = list(found.values())
        return memo[dirpath]

    def htaccess_refusal(self, scope: Scope, mode: Mode, vhost: Section | None = None) -> tuple[Item, str] | None:
        """Why httpd answers 500 to every request of a server (``vhost``; None: the main one) under the .htaccess
        file ``scope`` (the first line it refuses, with why); None: it reads the file. A line it refuses anywhere
        in the file does it (httpd parses the whole file per request, its sections too). With no AllowOverride
        in effect 2.2 let every line in (its default All) and 2.4 opens the file and refuses every line
        (measured: tests/access/test_allowoverride.py)."""
        memo = self.cache.setdefault("htaccess_refusal", {})
        server = id(vhost) if vhost is not None else None
        key = (scope.file, mode, server)
        if key not in memo:
            found = next((error for s in self.scopes if s.file == scope.file for error in s.own.errors),
                         self.override_errors.get((scope.file, server)))
            if (found is None and mode != "2.2" and scope.lines and scope.dirpath is not None
                    and self.allowoverride_at(scope.dirpath, vhost) is None):
                found = (scope.lines[0], f"not allowed here: no AllowOverride applies to {scope.dirpath} "
                                         "(2.4 reads that as letting no line in; 2.2's default was All)")
            memo[key] = found
        return memo[key]

    def invalid_lines(self) -> Iterator[tuple[Scope, Item, str]]:
        """Every line httpd refuses, with its scope and why: where it stands (it does not start, or an
        .htaccess file answers 500), or in an .htaccess file some server's AllowOverride keeps it out of."""
        for scope in self.scopes:
            for item, message in scope.own.errors:
                yield scope, item, message
        refused = {id(item.node): (item, message) for item, message in self.override_errors.values()}
        for scope in self.scopes:
            for item in scope.lines:
                if (found := refused.pop(id(item.node), None)) is not None:
                    yield scope, *found

    def decided(self, request: Request, mode: Mode, index: str | None = None) -> Effective | None:
        """The settings ``request`` (``index``: mod_dir's subrequest for it, :meth:`chain`) meets; None when an
        .htaccess file on its way answers 500 before any access check (:meth:`htaccess_refusal`)."""
        chain = self.chain(request, index)
        vhost = self.vhost_of(request)
        if any(s.kind == "htaccess" and self.htaccess_refusal(s, mode, vhost) is not None for s in chain):
            return None
        return fold(chain, mode)

    def effective(self, request: Request, mode: Mode | None = None) -> Effective:
        return fold(self.chain(request), mode or self.mode)


# -- building ------------------------------------------------------------------------------


def _limit_methods(item: Item) -> Methods:
    methods = ALL_METHODS
    for section in item.context:
        if section.key == "limit":
            methods = methods.intersect(Methods(frozenset(method_name(a) for a in section.args), False))
        elif section.key == "limitexcept":
            methods = methods.intersect(Methods(frozenset(method_name(a) for a in section.args), True))
    return methods


def written(item: Item) -> str:
    """The line as a person finds it in the file: ``Order deny,allow``, ``<Limit GET>``."""
    text = " ".join((item.node.name, *item.args))
    return f"<{text}>" if isinstance(item.node, Section) else text


def limit_refusal(item: Item) -> str | None:
    """Why httpd refuses the <Limit>/<LimitExcept> section ``item``, in its words (None: it takes it).

    Core reads a section's methods as a set: it must name one, TRACE is answered before any access check
    (TraceEnable decides it), and a section inside another must narrow the set around it. 2.4 refuses
    the rest at start-up, so there is no answer of today for a translation to keep.
    """
    name = f"<{item.node.name}>"
    if not item.args:
        return f"{name} directive requires additional arguments: name the methods it applies to"
    inverted = item.key == "limitexcept"
    if not inverted and "TRACE" in item.args:
        return "TRACE cannot be controlled by <Limit>, see TraceEnable: drop TRACE from the section"
    around = _limit_methods(item)
    narrowed = around.intersect(Methods(frozenset(method_name(a) for a in item.args), inverted))
    if not narrowed.inverted and not narrowed.names:
        return f"{name} directive excludes all methods: none of its methods is among those of the section around it"
    if narrowed == around:
        return (f"{name} directive specifies methods already excluded: it does not narrow the methods of the "
                "section around it, so write its lines there")
    return None


def _scope_section(item: Item) -> tuple[Section | None, Section | None]:
    """(innermost scope section, the virtual host) of an item."""
    inner = None
    vhost = None
    for section in item.context:
        if section.key in SCOPE_KEYS:
            inner = section
        elif section.key == "virtualhost":
            vhost = section
    return inner, vhost


def _outside_a_section(scope: Scope, item: Item) -> bool:
    """Whether an access line stands where httpd refuses it (:data:`OUTSIDE_A_SECTION`); <If> grants directory context."""
    return scope.kind in ("server", "vhost") and not any(s.key in ("if", "elseif", "else") for s in item.context)


def _compile(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _open_question(section: Section, target: Target) -> tuple[str, str] | None:
    """What an <IfModule>/<IfDefine> asks when the target alone does not answer it: ("module", id) or ("define", name)."""
    name = section.args[0].lstrip("!")
    if section.key == "ifmodule":
        identifier = module_identifier(name)
        return ("module", identifier) if target.if_module(identifier, set()) is Liveness.UNKNOWN else None
    return ("define", name) if target.if_define(name, set()) is Liveness.UNKNOWN else None


def _holds(condition: Section) -> bool:
    """The answer under which an <IfModule>/<IfDefine> branch is read: False for ``<IfModule !mod_ssl.c>``."""
    return not condition.args[0].startswith("!")


#: An undecided condition, ("module", "ssl_module") or ("define", "SSL"), with the section that asks it.
Question = tuple[tuple[str, str], Section]


def _questions(sections, target: Target) -> list[Question]:
    """The undecided conditions among ``sections``, each with the section that asks it; none when one
    of them is a version httpd24 cannot compare (no assumption settles that)."""
    questions: list[Question] = []
    for section in sections:
        if section.key == "ifversion" and target.if_version(list(section.args)) is Liveness.UNKNOWN:
            return []
        if section.key in ("ifmodule", "ifdefine") and section.args:
            question = _open_question(section, target)
            if question is not None:
                questions.append((question, section))
    return questions


class Builder:
    def __init__(self, configset: ConfigSet, target: Target | None, view=None, on_24: bool | None = None,
                 source_version: SourceVersion = "auto", skip: frozenset[int] = frozenset()) -> None:
        self.configset = configset
        #: Nodes (ids) of the lines httpd skips, with what they hold (:attr:`Model.skipped`).
        self.skip = skip
        self.on_24 = on_24
        self.source_version = source_version
        self.module_loads: list[Item] = []
        self.view = view if view is not None else configset.view(target or Target(version=(2, 4, 62), modules=None))
        self.scopes: dict[object, Scope] = {}
        self.order: list[Scope] = []
        self.document_root: dict[int | None, str] = {}
        self.aliases: dict[int | None, list[tuple[str, str]]] = {}
        self.remaps: dict[int | None, list[Remap]] = {}
        self.rewrite_inherited = False
        self.vhosts: list[Section] = []
        self.vhost_items: list[Item] = []
        self.listens: list[Item] = []
        #: A line only a whole server configuration has (ServerRoot, PidFile, User): its Listen lines are
        #: all there are, where a fragment's (ssl.conf's `Listen 443`) sit beside others it cannot see --
        #: unless it includes files the set does not show (:meth:`ConfigSet.shows_all_of`).
        self.whole_server = False
        self.server_names: dict[int, list[str]] = {}
        self.hybrid_items: list[Item] = []
        self.allowoverrides: list[Item] = []  # with the LoadModule lines, what tells 2.4 ran it (engine.source)
        self.dbm_24_names = False
        self.compat_items: list[Item] = []
        self.server_root = configset.server_root
        self.access_file_names = [".htaccess"]
        self.load_order: list[str] = []
        self.undecided: dict[tuple[str, str], Section] = {}
        self.unsettled: Item | None = None
        self.mapping_undecided: dict[tuple[str, str, bool], list[tuple[Section, Section | None, str | None]]] = {}
        self.misplaced: tuple[Item, Refusal] | None = None

    def scope_for(self, section: Section | None, vhost: Section | None, item: Item) -> Scope:
        if section is None:
            if is_htaccess(item.file, item.via) and vhost is None:
                # Its lines inside <Limit> or <IfModule> are its own too (item.context holds those).
                key: object = ("htaccess", item.file)
                if key not in self.scopes:
                    self._add(Scope("htaccess", None, item.file, len(self.order), dirpath=self._htaccess_dir(item.file)), key)
                return self.scopes[key]
            key = ("vhost", id(vhost)) if vhost is not None else ("server",)
            if key not in self.scopes:
                kind = "vhost" if vhost is not None else "server"
                self._add(Scope(kind, None, item.file, -1 if kind == "server" else len(self.order), vhost=vhost), key)
            return self.scopes[key]
        key = id(section)
        if key not in self.scopes:
            # A section of an .htaccess file applies only where the file is read: under its directory.
            outer = self.scope_for(None, None, item) if vhost is None and is_htaccess(item.file, item.via) else None
            parent_section = None
            for s in reversed(section.ancestors):
                if s.key in SCOPE_KEYS:
                    parent_section = s
                    break
            parent = self.scopes.get(id(parent_section)) if parent_section is not None else outer
            if parent_section is not None and parent is None:
                parent = self._section_scope(parent_section, vhost, item.file, outer)
            scope = self._make(section, vhost, item.file, parent)
            self._add(scope, key)
        return self.scopes[key]

    def _section_scope(self, section: Section, vhost: Section | None, file: str, outer: Scope | None = None) -> Scope:
        key = id(section)
        if key not in self.scopes:
            parent_section = next((s for s in reversed(section.ancestors) if s.key in SCOPE_KEYS), None)
            parent = self._section_scope(parent_section, vhost, file, outer) if parent_section is not None else outer
            self._add(self._make(section, vhost, file, parent), key)
        return self.scopes[key]

    def _add(self, scope: Scope, key: object) -> None:
        self.scopes[key] = scope
        self.order.append(scope)

    def _make(self, section: Section, vhost: Section | None, file: str, parent: Scope | None) -> Scope:
        key = section.key
        args = section.args
        regex = None
        pattern = args[0] if args else ""
        if key in ("directorymatch", "filesmatch", "locationmatch", "proxymatch") or (args and args[0] == "~" and len(args) > 1):
            text = args[1] if args and args[0] == "~" and len(args) > 1 else pattern
            regex = _compile(text)
            pattern = text
            kind = {"directory": "directorymatch", "directorymatch": "directorymatch", "files": "files",
                    "filesmatch": "files", "location": "location", "locationmatch": "location"}.get(key, "proxy")
        else:
            kind = {"directory": "directory", "files": "files", "location": "location"}.get(key, "proxy")
        scope = Scope(kind, section, file, len(self.order), pattern=pattern, regex=regex, parent=parent, vhost=vhost)
        if kind == "directory":
            scope.dirpath = normalize_dir(self._absolute(pattern))
        if kind == "files" and regex is None and parent is not None and parent.kind == "directory":
            pass
        return scope

    def _absolute(self, path: str) -> str:
        if path.startswith("/"):
            return path
        return posixpath.join(self.server_root, path)

    def _htaccess_dir(self, name: str) -> str | None:
        directory = posixpath.dirname(name)
        if not directory:
            return None
        candidate = normalize_dir("/" + directory.lstrip("/"))
        for scope in self.order:
            if scope.kind == "directory" and scope.dirpath == candidate:
                return candidate
        # A Directory appearing later in the set is matched in finish().
        return candidate

    def read(self) -> None:
        wanted = _READ_KEYS
        htaccess: dict[tuple[str, bool], bool] = {}  # is_htaccess by (file, read through an Include): asked of every item
        for item in self.view.items:
            key = item.key
            where = (item.file, bool(item.via))
            in_htaccess = htaccess.get(where)
            if in_htaccess is None:
                in_htaccess = htaccess[where] = is_htaccess(item.file, item.via)
            if item.live is not Liveness.DEAD and in_htaccess and item.in_section("virtualhost") is None:
                self.scope_for(None, None, item).lines.append(item)
            if (key in PLACED_KEYS and self.misplaced is None and item.live is not Liveness.DEAD
                    and isinstance(item.node, Section)):
                found = misplaced(item.node, item.context, in_htaccess)
                self.misplaced = (item, found) if found is not None else None
            if self.skip and any(id(node) in self.skip for node in (item.node, *item.node.ancestors)):
                if id(item.node) in self.skip and key in COMPAT_KEYS and item.live is not Liveness.DEAD:
                    self._reset_compat(item, self._access_scope(item, *_scope_section(item)))
                continue
            if (key not in wanted and not key.startswith("authldap")) or item.live is Liveness.DEAD:
                continue
            section, vhost = _scope_section(item)
            if key == "virtualhost":
                self.vhosts.append(item.node)  # type: ignore[arg-type]
                self.vhost_items.append(item)
                continue
            if key == "listen":
                self.listens.append(item)
                continue
            if key in _WHOLE_SERVER_KEYS:
                self.whole_server = self.whole_server or (section is None and vhost is None)
                continue
            if key in ("servername", "serveralias") and vhost is not None:
                self.server_names.setdefault(id(vhost), []).extend(item.args)
                continue
            if key == "documentroot" and item.args and section is None:
                self._note_mapping(item, vhost, None)
                self.document_root[id(vhost) if vhost is not None else None] = self._absolute(item.args[0])
                continue
            if key in ("alias", "scriptalias") and len(item.args) >= 2 and section is None:
                self._note_mapping(item, vhost, item.args[0])
                self.aliases.setdefault(id(vhost) if vhost is not None else None, []).append(
                    (item.args[0], self._absolute(item.args[1]))
                )
                continue
            if key in remap.KEYS or key == "rewriteoptions":
                self._note_remap(item, key, section, vhost)
                continue
            if key == "loadmodule":
                if item.args and not item.unread:
                    self.module_loads.append(item)
                    if section is None and vhost is None:
                        self.load_order.append(item.args[0])
                continue
            if key in ("authname", "authuserfile", "authbasicprovider"):
                if item.args:
                    own = self._access_scope(item, section, vhost).own
                    if key == "authname":
                        own.authname = True
                    else:
                        own.user_source = True
                continue
            module = authz22.module_of(key)
            if module is not None:
                own = self._access_scope(item, section, vhost).own
                where = f"{item.node.name} {' '.join(item.args)} ({item.file}:{item.node.location.line})"
                own.authz22[module] = authz22.record(own.authz22.get(module), key, item.args, where)
                continue
            if key == "options":
                self._read_options(item, section, vhost)
                continue
            if key == "allowoverride" and section is not None:
                self.scope_for(section, vhost, item).allowoverride = item
                self.allowoverrides.append(item)
                continue
            if key == "accessfilename" and section is None and item.args:
                self.access_file_names = [a for a in item.args]
                continue
            if key in ("limit", "limitexcept"):
                if (refused := limit_refusal(item)) is not None:
                    self.scope_for(section, vhost, item).own.errors.append((item, refused))
                continue
            if key in SCOPE_KEYS and isinstance(item.node, Section):
                self.scope_for(item.node, vhost, item).live = item.live
                continue
            if key in COMPAT_KEYS or key in ("require", "authtype", "authmerging") or key in AUTHZ_CONTAINERS:
                self._read_access(item, self._access_scope(item, section, vhost))

    def _read_options(self, item: Item, section: Section | None, vhost: Section | None) -> None:
        """An Options line of a scope that decides whether the walk follows symlinks (:attr:`Scope.options`);
        every line of one scope changes the same record, as httpd's set_options does. A line 2.4 refuses and
        2.2 read (HT121) is read as 2.2 did; one with an unknown word, which neither reads, is left out."""
        if section is not None and (section.key != "directory" or (len(section.args) > 1 and section.args[0] == "~")):
            return
        words = list(item.args)
        if not words or not known(words):
            return
        scope = self.scope_for(section, vhost, item)
        start = scope.options or (SERVER_DEFAULT if scope.kind in ("server", "vhost") else UNSET)
        scope.options = read_22(words, start)

    def _access_scope(self, item: Item, section: Section | None, vhost: Section | None) -> Scope:
        """The scope of an access line, noting where httpd would refuse it and what leaves it undecided."""
        around, inside = (), ()
        if item.live is Liveness.UNKNOWN:
            around, inside = self._note_undecided(item, section or vhost)
        scope = self.scope_for(section, vhost, item)
        scope.branches.append(inside[0][1] if inside else None)
        scope.inside.update(inside)
        for (kind, name), condition in around:
            scope.around.setdefault((kind, name, _holds(condition)), condition)
        if _outside_a_section(scope, item):
            scope.own.errors.append((item, OUTSIDE_A_SECTION))
        return scope

    def _note_undecided(self, item: Item, outer: Section | None) -> tuple[list[Question], list[Question]]:
        """Record the undecided conditions between an access line and its section (``outer``; None: the
        server), or the line itself when none of them can be tried (:mod:`.worlds`).

        Returns the conditions around the section itself (its lines stay inside them, translated or not,
        and they matter only to the sections that may merge with it: :func:`.worlds.settle`) and those
        between the line and its section, outermost first.
        """
        target = self.view.target
        context = item.context
        start = context.index(outer) + 1 if outer is not None and outer in context else 0
        around = _questions(context[:start], target)
        questions = _questions(context[start:], target)
        for question, section in questions:
            self.undecided.setdefault(question, section)
        if questions or self.unsettled is not None:
            return around, questions
        # Undecided from outside the section (it sits in a branch, or in a file nothing includes) only.
        orphan = not item.via and item.file != self.configset.entry
        liveness = self.view.liveness(outer) if outer is not None else (Liveness.UNKNOWN if orphan else Liveness.LIVE)
        if liveness is Liveness.LIVE:
            self.unsettled = item
        return around, []

    def _note_remap(self, item: Item, key: str, section: Section | None, vhost: Section | None) -> None:
        if key == "rewriteoptions":
            self.rewrite_inherited |= any("inherit" in a.lower() for a in item.args)
            return
        location = None
        if section is not None:
            if section.key not in ("location", "locationmatch") or not key.startswith("proxypass"):
                return  # per-directory rewriting runs after access control (see .remap)
            args = section.args
            is_regex = section.key == "locationmatch" or (len(args) > 1 and args[0] == "~")
            location = (args[-1] if args else "/", is_regex)
        found = remap.read(key, item.args, location)
        if found is None:
            return
        if found.target is not None:
            found = replace(found, target=normalize_dir(self._absolute(found.target)))
        self.remaps.setdefault(id(vhost) if vhost is not None else None, []).append(found)

    def _note_mapping(self, item: Item, vhost: Section | None, prefix: str | None) -> None:
        """Record the undecided conditions around a line that decides where URLs map (read as if httpd
        read it): the Location sections it maps are checked in each world (:mod:`.worlds`)."""
        if item.live is Liveness.UNKNOWN:
            for (kind, name), section in _questions(item.context, self.view.target):
                self.mapping_undecided.setdefault((kind, name, _holds(section)), []).append((section, vhost, prefix))

    def _reset_compat(self, item: Item, scope: Scope) -> None:
        """An Order/Allow/Deny/Satisfy line httpd skips (:attr:`Model.skipped`) still resets what the section
        inherits of them: httpd makes mod_access_compat's record for the section before it asks the
        AllowOverride (config.c: ap_set_config_vectors, then invoke_cmd), and a record of that module, which
        has no merger, replaces the inherited one (research notes §2d): Order deny,allow and nothing listed.
        Measured on apache2 (the harness's vhosts shape, seed 131 index 197: a skipped `Order` under an
        `Order allow,deny` directory let everyone through). The line is the section's, to be rewritten."""
        scope.own.items.setdefault(item.key, []).append(item)
        scope.own.host = scope.own.host or Host()
        self.compat_items.append(item)

    def _read_access(self, item: Item, scope: Scope) -> None:
        key = item.key
        in_container = any(s.key in AUTHZ_CONTAINERS for s in item.context)
        own = scope.own
        if not in_container:
            own.items.setdefault(key, []).append(item)
        methods = _limit_methods(item)
        args = item.args
        if key in COMPAT_KEYS:
            self.compat_items.append(item)
        if key == "order":
            value = (args[0].lower() if args else "")
            if value not in ("deny,allow", "allow,deny", "mutual-failure"):
                own.errors.append((item, "unknown order"))
                return
            if len(args) > 1:  # a trailing `# comment` too: httpd has no comments after a directive
                own.errors.append((item, "Order takes one argument, 'allow,deny', 'deny,allow', or 'mutual-failure'"))
                return
            host = own.host or Host()
            own.host = replace(host, orders=host.orders + ((value, methods),))
        elif key in ("allow", "deny"):
            host = own.host or Host()
            try:
                entries = parse_from(args)
            except AddressError as error:
                own.errors.append((item, str(error)))
                own.host = host
                return
            rules = tuple(Rule(e, methods) for e in entries)
            own.host = replace(host, allows=host.allows + rules) if key == "allow" else replace(host, denys=host.denys + rules)
        elif key == "satisfy":
            value = args[0].lower() if args else ""
            if value not in ("all", "any"):
                own.errors.append((item, "Satisfy either 'any' or 'all'."))
                return
            own.satisfy = (own.satisfy or ()) + ((value, methods),)
        elif key == "authtype":
            if args:
                own.authtype = args[0]
        elif key == "authmerging":
            if args:
                own.authmerging = args[0].lower()
            self.hybrid_items.append(item)
        elif key in AUTHZ_CONTAINERS:
            if not in_container:
                self.hybrid_items.append(item)
                section_node = item.node
                assert isinstance(section_node, Section)
                tree = X.limited(methods, X.from_section(section_node, item.args))
                own.authz = tree if own.authz is None else X.AnyOf((own.authz, tree))
        elif key == "require":
            if in_container:
                return  # part of a container read above
            words = (item.node.raw_args[0], *args[1:]) if args and quoted_provider(item.node) else tuple(args)
            own.requires = (own.requires or ()) + (RequireLine(words, methods),)
            leaf = X.limited(methods, X.from_require(args))
            own.authz = leaf if own.authz is None else X.AnyOf((own.authz, leaf))
            provider = args[0].lower() if args else ""  # as 2.4 reads it: what says the line was written for 2.4
            if provider in NATIVE_24_PROVIDERS:
                self.hybrid_items.append(item)
            elif provider in ("dbm-group", "dbm-user"):
                self.dbm_24_names = True  # 2.4's names for mod_authz_dbm (2.2: `group` with AuthDBMGroupFile)

    def finish(self) -> Model:
        dirs = {s.dirpath for s in self.order if s.kind == "directory" and s.dirpath is not None}
        dirs |= {normalize_dir(root) for root in self.document_root.values()}
        dirs |= {normalize_dir(target) for aliases in self.aliases.values() for _url, target in aliases}
        for scope in self.order:
            if scope.kind == "htaccess":
                scope.dirpath = htaccess_dir(scope.file, self.server_root, dirs)
        # 2.2 could not read 2.4's lines, so a configuration with both runs on 2.4 + mod_access_compat, and
        # one with such a line outside every branch 2.2 may skip runs on 2.4 (with or without the module);
        # so does one that loads a module 2.2 never had or says `AllowOverride ... Nonfatal=` (httpd24.engine.source).
        # A migration's later passes read the text as its first pass read the input (``self.on_24``).
        on_24 = self.on_24 if self.on_24 is not None else bool(self.hybrid_items and self.compat_items) or any(
            item.in_section(*CONDITIONS_22_KNOWS) is None for item in self.hybrid_items
        ) or judge([*self.module_loads, *self.allowoverrides], self.source_version).ran_on_24
        mode: Mode = "compat" if on_24 else "2.2"
        # An Include of files the set does not show may hold Listen lines, Aliases or a DocumentRoot of the server.
        unseen = next((u for u in self.view.unresolved
                       if u.live is not Liveness.DEAD and not self.configset.shows_all_of(u.pattern)), None)
        whole_server = self.whole_server and unseen is None
        model = Model(
            scopes=sorted(self.order, key=lambda s: s.index),
            mode=mode,
            document_root=self.document_root,
            aliases=self.aliases,
            remaps=self.remaps,
            rewrite_inherited=self.rewrite_inherited,
            vhosts=self.vhosts,
            server_names=self.server_names,
            main_reachable=not whole_server or main_server_reachable(self.listens, self.vhost_items),
            whole_server=whole_server,
            unseen=(f"{unseen.document.name}:{unseen.node.location.line} includes {unseen.pattern}, which httpd24 "
                    "did not read", "that file") if self.whole_server and unseen else FRAGMENT_UNSEEN,
            has_compat=bool(self.compat_items),
            has_24_syntax=bool(self.hybrid_items) or self.dbm_24_names,
            access_file_names=self.access_file_names,
            has_entry=self.configset.entry is not None,
            on_24=self.on_24,
            load_order=tuple(self.load_order),
            configset=self.configset,
            target=self.view.target,
            undecided=self.undecided,
            unsettled=self.unsettled,
            mapping_undecided=self.mapping_undecided,
            misplaced=self.misplaced,
        )
        # node -> (the line, the AllowOverride that skips it, its scope, the first server that skips it)
        skipped: dict[int, tuple[Item, Item, Scope, Section | None]] = {}
        skipped_by: dict[int, set[int | None]] = {}  # node -> the servers (keys) that skip it
        htaccess_lines = [scope for scope in self.order if scope.lines]  # only an .htaccess file's scopes have any
        for server in model.servers if htaccess_lines else ():
            key = id(server) if server is not None else None
            for scope in htaccess_lines:
                if (scope.file, key) in model.override_errors:
                    continue
                for item in scope.lines:  # httpd stops at the first line it refuses: its error log names that one
                    if any(key in skipped_by.get(id(node), ()) for node in item.node.ancestors):
                        skipped_by.setdefault(id(item.node), set()).add(key)  # skipped with its section
                        continue
                    written_key = ("<" if isinstance(item.node, Section) else "") + item.key
                    if (at := model.override_refusal(scope, written_key, server)) is None:
                        continue
                    if override_of(at).nonfatal:  # skipped with what it holds, and httpd reads on
                        skipped.setdefault(id(item.node), (item, at, scope, server))
                        skipped_by.setdefault(id(item.node), set()).add(key)
                        continue
                    model.override_errors[(scope.file, key)] = (item, override_refused(item, at))
                    break
        model.skipped = tuple(item for item, _, _, _ in skipped.values())
        model.unmodelled_skip = next(filter(None, (
            _unmodelled_skip(model, *found, skipped_by[node]) for node, found in skipped.items())), None)
        return model


def skip_problem(model: Model) -> str | None:
    """:attr:`Model.unmodelled_skip` as a message that says where (None: no such line)."""
    if model.unmodelled_skip is None:
        return None
    item, why = model.unmodelled_skip
    return f"{item.file}:{item.node.location.line}: {why}"


#: Skipped lines whose module httpd still makes a record for (:meth:`Builder._reset_compat`) and that, having no
#: merger either, replaces the inherited one: the user or group file a directory inherits is gone. The model
#: keeps no such record (``user_source`` says only whether one applies), so these are left to a person.
_RESET_BY_SKIPPING = {"authuserfile": "mod_authn_file", "authgroupfile": "mod_authz_groupfile",
                      "authdbmuserfile": "mod_authn_dbm", "authdbmtype": "mod_authn_dbm",
                      "authdbmgroupfile": "mod_authz_dbm", "authzdbmtype": "mod_authz_dbm"}


def _unmodelled_skip(model: Model, item: Item, at: Item, scope: Scope, skipper: Section | None,
                     skipped_by: set[int | None]) -> tuple[Item, str] | None:
    """Why the model cannot follow a skipped line (:attr:`Model.unmodelled_skip`): a server that opens the
    file reads a line another skips, or answers 500 under it (its lines refused); or the line resets a record
    the model does not keep. None when every server that opens the file skips the line, and that is all."""
    if (module := _RESET_BY_SKIPPING.get(item.key)) is not None:
        return item, (f"{written(item)} is skipped (`{written(at)}`, {at.file}:{at.node.location.line}, keeps it out), "
                      f"but httpd still makes {module}'s record for the directory, which replaces the one it inherits "
                      f"(that module merges none): httpd24 does not follow that; let the line in, or move it into "
                      "the <Directory>, then migrate again")
    home = htaccess_home(scope)
    others = [((not model.reads_lines(scope, server), n), server) for n, server in enumerate(model.servers)
              if (id(server) if server is not None else None) not in skipped_by
              and model.reads_htaccess(home.dirpath, server)]
    if not others:
        return None
    (refused, _), server = min(others, key=lambda other: other[0])  # one that reads it says more than a 500
    how = "refused (every request under it answers 500)" if refused else "read"
    return item, (f"{written(item)} is skipped under {model.server_label(skipper)} (`{written(at)}`, {at.file}:"
                  f"{at.node.location.line}, keeps it out) but {how} under {model.server_label(server)}: no one text "
                  "of the file answers as today under both; give both the same AllowOverride for this directory, "
                  "then migrate again")


def override_refused(item: Item, at: Item) -> str:
    """Why httpd refuses ``item`` of an .htaccess file that the AllowOverride line ``at`` keeps out."""
    section = at.in_section("directory")
    where = f", <{section.name} {' '.join(section.args)}>" if section is not None else ""
    classes = override_classes().get(("<" if isinstance(item.node, Section) else "") + item.key, ())
    return (f"not allowed here: it needs AllowOverride {' or '.join(classes)}, and {written(at)} "
            f"({at.file}:{at.node.location.line}{where}) does not let it in")


#: Directives of the main server configuration only (:attr:`Builder.whole_server`).
_WHOLE_SERVER_KEYS = frozenset({"serverroot", "pidfile", "user"})

_READ_KEYS = (
    SCOPE_KEYS | COMPAT_KEYS | AUTHZ_CONTAINERS
    | {"virtualhost", "listen", "servername", "serveralias", "documentroot", "alias", "scriptalias", "allowoverride",
       "options", "accessfilename", "require", "authtype", "authname", "authuserfile", "authbasicprovider",
       "authmerging", "authgroupfile", "authdbmgroupfile", "loadmodule",
       "rewriteoptions", "limit", "limitexcept"} | _WHOLE_SERVER_KEYS | remap.KEYS
    | frozenset(authz22.AUTHORITATIVE_KEYS) | {"authzdbmtype"}
)


def htaccess_dir(name: str, server_root: str, dirs: Collection[str]) -> str | None:
    """The directory (normalized, with its slash) the .htaccess file ``name`` of a set lies in; None when
    unknown. Known when a <Directory> (a wildcard one too), a DocumentRoot or an Alias target (``dirs``: their
    normalized paths) names it or one of its parents (other than `/`, which every path is under). A set read from disk names its files
    relative to the server root (the directory given); a mapping's names may be absolute paths without
    their leading slash."""
    directory = posixpath.dirname(name)
    parents = tuple(d for d in dirs if d != "/" and not _has_wildcard(d))
    wildcards = [d.rstrip("/") for d in dirs if _has_wildcard(d)]

    def placed(path: str) -> bool:
        # a wildcard <Directory /srv/*/pub> covers what lies below each directory it matches (glob_match)
        return path in dirs or path.startswith(parents) or any(glob_match(w, path.rstrip("/")) for w in wildcards)

    on_disk = normalize_dir(posixpath.join(server_root, directory))
    mapped = normalize_dir("/" + directory.lstrip("/")) if directory else None
    return on_disk if placed(on_disk) else mapped if mapped is not None and placed(mapped) else None


def build(configset: ConfigSet, target: Target | None = None, view=None, *, on_24: bool | None = None,
          source_version: SourceVersion = "auto") -> Model:
    """Read the access-control settings of a configuration set (``view``: its view for ``target``, if built).

    ``on_24``: what a migration's first pass found, for its later passes (None: read the text alone).
    True: the input ran on 2.4 (it mixed 2.2 and 2.4 access control, or had a 2.4-only line 2.2 could
    not skip), so what it holds is read as 2.4 + mod_access_compat reads it, even once no 2.4-only line
    is left to tell, never as 2.2 would have read it. False: the input was 2.2, and the 2.4 lines the
    migration wrote do not make it a 2.4 configuration. ``source_version``: whether a LoadModule of a
    module 2.2 never had says it ran on 2.4 (``auto``), or what it ran on (:mod:`httpd24.engine.source`)."""
    with gc_paused():
        builder = Builder(configset, target, view, on_24, source_version)
        builder.read()
        model = builder.finish()
        if model.skipped:  # read again without the lines httpd skips: what they set never applies
            first = model
            builder = Builder(configset, target, builder.view, on_24, source_version,
                              skip=frozenset(id(item.node) for item in first.skipped))
            builder.read()
            model = builder.finish()
            model.skipped, model.unmodelled_skip = first.skipped, first.unmodelled_skip
        return model


# -- the decision ----------------------------------------------------------------------------

OK, UNAUTHORIZED, FORBIDDEN, SERVER_ERROR = 200, 401, 403, 500


def _user_status(request: Request) -> int | None:
    """Authentication: None when the user is authenticated, else the status."""
    if request.user is None or not request.password_ok:
        return UNAUTHORIZED
    return None


def _require_ok(lines: Sequence[RequireLine], state: Effective, request: Request, order: authz22.Order) -> bool:
    """2.2's authorization modules in hook order: the first that does not decline decides
    (an authoritative module refuses a user only another module's line admits)."""
    return authz22.admits([line.words for line in lines], dict(state.authz22), order, request.user or "",
                          request.groups, request.dbm_groups)


def decide_effective(state: Effective, request: Request, mode: Mode = "2.2", order: authz22.Order | None = None) -> int:
    """The status for a request meeting merged settings ``state``; ``order``: what the
    configuration's LoadModule lines say about 2.2's module order (default: nothing, the
    stock order)."""
    method = method_name(request.method)
    host_ok = state.host.passes(method, request)
    satisfy = state.satisfy_for(method)
    if mode == "2.2":
        lines = state.requires_for(method)
        if satisfy == "any" and host_ok:
            return OK
        if not host_ok and (satisfy == "all" or not lines):
            return FORBIDDEN
        if not lines:
            return OK
        if state.authtype is None or state.realmless:
            return SERVER_ERROR
        if request.user is not None and state.no_user_file:
            return SERVER_ERROR
        status = _user_status(request)
        if status is not None:
            return status
        return OK if _require_ok(lines, state, request, order or authz22.Order()) else UNAUTHORIZED
    # 2.4 + mod_access_compat
    if satisfy == "any" and host_ok:
        return OK
    if satisfy == "all" and not host_ok:
        return FORBIDDEN
    return X.decide24(state.authz, state.authtype, _groups_24(request, state), realm=not state.realmless,
                      user_file=not state.no_user_file)


def _groups_24(request: Request, state: Effective) -> Request:
    """``request`` as 2.4's group providers see it: where no AuthGroupFile (AuthDBMGroupFile) applies,
    mod_authz_groupfile (mod_authz_dbm) finds the user in no group (AH01664: "No group file was specified")."""
    confs = dict(state.authz22)
    groupfile = authz22.is_configured(confs, "authz_groupfile")
    dbm = authz22.is_configured(confs, "authz_dbm")
    if groupfile and dbm:
        return request
    groups = request.groups if groupfile else frozenset()
    dbm_groups = (request.groups if request.dbm_groups is None else request.dbm_groups) if dbm else frozenset()
    return replace(request, groups=groups, dbm_groups=dbm_groups)


def decide_22(configset_or_model: ConfigSet | Model, request: Request) -> int:
    """The status httpd 2.2 answers ``request`` with (200, 401, 403 or 500) on this configuration."""
    model = configset_or_model if isinstance(configset_or_model, Model) else build(configset_or_model)
    order = authz22.Order.from_load_order(model.load_order)
    return _decide(model, request, "2.2", lambda state, r: decide_effective(state, r, "2.2", order))


def decide_compat(configset_or_model: ConfigSet | Model, request: Request) -> int:
    """The status httpd 2.4 with mod_access_compat answers ``request`` with."""
    model = configset_or_model if isinstance(configset_or_model, Model) else build(configset_or_model)
    return _decide(model, request, "compat", lambda state, r: decide_effective(state, r, "compat"))


def decide_24(configset_or_model: ConfigSet | Model, request: Request) -> int:
    """The status of pure 2.4 (no mod_access_compat): only the Require tree counts."""
    model = configset_or_model if isinstance(configset_or_model, Model) else build(configset_or_model)
    return _decide(model, request, "compat",
                   lambda state, r: X.decide24(state.authz, state.authtype, _groups_24(r, state),
                                               realm=not state.realmless, user_file=not state.no_user_file))


def _decide(model: Model, request: Request, mode: Mode, answer) -> int:
    """``answer`` (settings, request -> status) for ``request``: 500 where an .htaccess file on its way is refused
    (:meth:`Model.decided`); for a directory asked with its slash that it admits, what mod_dir's subrequest for
    the DirectoryIndex file answers: fixup_dir (2.2 as 2.4) answers with that refusal (401, 403, 500)."""
    state = model.decided(request, mode)
    status = SERVER_ERROR if state is None else answer(state, request)
    if status != OK or request.index is None or not request.path.split("?")[0].endswith("/"):
        return status
    state = model.decided(request, mode, request.index)
    return SERVER_ERROR if state is None else answer(state, request)

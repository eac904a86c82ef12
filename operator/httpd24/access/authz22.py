"""httpd 2.2's authorization modules, and what several ``Require`` lines of one section meant there.

2.4 reads the ``Require`` lines of a section as an implicit ``<RequireAny>``: a user any
line admits gets in. 2.2 had no such rule; each authorization module looked at its own
lines (httpd 2.2 source, ``modules/aaa``; citations in HT507's documentation):

* every module is an ``auth_checker`` hook, run "first": the first that does not return
  DECLINED decides (``server/request.c``, ``AP_IMPLEMENT_HOOK_RUN_FIRST(int,auth_checker,...)``);
* mod_authz_user (``user``, ``valid-user``), mod_authz_groupfile (``group`` with
  ``AuthGroupFile``), mod_authz_dbm (``group`` with ``AuthDBMGroupFile``), mod_authz_owner
  (``file-owner``, ``file-group``) and mod_authnz_ldap (``ldap-*`` with ``AuthLDAPURL``) hook
  at ``APR_HOOK_MIDDLE``; mod_authz_groupfile and mod_authz_dbm ask to run after
  ``mod_authz_owner.c``, mod_authnz_ldap before ``mod_authz_user.c``; mod_authz_default
  (``APR_HOOK_LAST``) refuses whatever nobody granted;
* a module that has no line of its own for the request's method declines; one whose lines
  admit the user grants; otherwise it answers 401 when authoritative (``Authz*Authoritative
  On``, the default) and declines when ``Off`` -- so an authoritative module that runs first
  refuses a user only another module's line admits;
* hooks of one priority run in the order the modules registered them: static modules
  first, then ``LoadModule`` order (``ap_add_module`` -> ``ap_register_hooks``), sorted by
  APR's ``apr_hook_sort_all`` (``qsort`` on the priority -- glibc's is a stable merge sort --
  then predecessors dragged in front; apr-util of 2003 took the first ready hook instead,
  which differs only when mod_authz_owner is loaded after the group modules);
* none of these modules has a per-directory merger: a section holding any directive of a
  module replaces that module's whole record (flag back to ``On``, no group file unless
  set there) -- ``AuthGroupFile`` alone in a child section makes mod_authz_groupfile
  authoritative again.

:func:`judge` says whether a section's lines meant "any of" (what 2.4 does) and, if not,
which lines 2.2 in effect ignored; :func:`admits` is 2.2's answer for one user (the model's
2.2 evaluator).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from ..engine.modules import AUTHZ22_CONFIGURING_KEYS, require_family

#: The 2.2 authorization modules whose lines can shadow each other.
MODULES = ("authz_user", "authz_groupfile", "authz_dbm", "authz_owner", "authnz_ldap")

NAMES = {
    "authz_user": "mod_authz_user",
    "authz_groupfile": "mod_authz_groupfile",
    "authz_dbm": "mod_authz_dbm",
    "authz_owner": "mod_authz_owner",
    "authnz_ldap": "mod_authnz_ldap",
}

#: ``Authz*Authoritative`` directive -> module.
AUTHORITATIVE_KEYS = {
    "authzuserauthoritative": "authz_user",
    "authzgroupfileauthoritative": "authz_groupfile",
    "authzdbmauthoritative": "authz_dbm",
    "authzownerauthoritative": "authz_owner",
    "authzldapauthoritative": "authnz_ldap",
}
#: Directives without which the module declines (no group file, no LDAP URL).
CONFIGURING_KEYS = AUTHZ22_CONFIGURING_KEYS

#: ``modules/aaa/config.m4`` of 2.2 lists the modules in this order; httpd's own httpd.conf
#: loads them so (``--enable-mods-shared=most``), and builds without that link them statically
#: in the same order. Used when the configuration does not say.
STOCK_LOAD_ORDER = ("authz_groupfile", "authz_user", "authz_dbm", "authz_owner", "authnz_ldap")

#: Ordering constraints of the hooks (module -> modules its hook runs after).
_PREDECESSORS = {
    "authz_groupfile": ("authz_owner",),  # aszPre = { "mod_authz_owner.c" }
    "authz_dbm": ("authz_owner",),  # aszPre = { "mod_authz_owner.c" }
    "authz_user": ("authnz_ldap",),  # mod_authnz_ldap: aszPost = { "mod_authz_user.c" }
}


def module_of(key: str) -> str | None:
    """The 2.2 authorization module whose per-directory record a directive creates (lower-case key)."""
    if key in AUTHORITATIVE_KEYS:
        return AUTHORITATIVE_KEYS[key]
    if key in CONFIGURING_KEYS:
        return CONFIGURING_KEYS[key]
    if key == "authzdbmtype":
        return "authz_dbm"
    if key.startswith("authldap") and key != "authldapcharsetconfig":  # the charset file is per server
        return "authnz_ldap"
    return None


@dataclass(frozen=True)
class ModuleConf:
    """One module's per-directory record (2.2)."""

    authoritative: bool = True
    #: AuthGroupFile / AuthDBMGroupFile / AuthLDAPURL set (always True for mod_authz_user and _owner).
    configured: bool = False
    #: The Authz*Authoritative line that set the flag ("AuthzUserAuthoritative Off (httpd.conf:12)").
    set_by: str = ""


def record(conf: ModuleConf | None, key: str, args: Sequence[str], where: str) -> ModuleConf:
    """``conf`` after one more directive of its module, read in the same section."""
    conf = conf or ModuleConf()
    if key in AUTHORITATIVE_KEYS and args:
        value = args[0].lower()
        if value in ("on", "off"):
            return replace(conf, authoritative=value == "on", set_by=f"{where}")
    if key in CONFIGURING_KEYS and args:
        return replace(conf, configured=True)
    return conf


def merged(parent: tuple[tuple[str, ModuleConf], ...], own: dict[str, ModuleConf]) -> tuple[tuple[str, ModuleConf], ...]:
    """No merger in any of these modules: a section's record replaces the inherited one whole."""
    if not own:
        return parent
    out = dict(parent)
    out.update(own)
    return tuple(sorted(out.items()))


def _conf(confs: dict[str, ModuleConf], module: str) -> ModuleConf:
    return confs.get(module) or ModuleConf()


def is_configured(confs: dict[str, ModuleConf], module: str) -> bool:
    return module in ("authz_user", "authz_owner") or _conf(confs, module).configured


# -- hook order ------------------------------------------------------------------------------


def run_order(registration: Iterable[str]) -> list[str]:
    """The order APR runs the hooks of ``registration`` (module names, registration order).

    ``apr_hook_sort_all``: a sort on the priority (all APR_HOOK_MIDDLE here: registration
    order kept), then a topological sort that takes the first item not placed yet and,
    when it has a predecessor not placed yet, jumps to that predecessor ("dragging
    out-of-order items to the front", apr ``hooks/apr_hooks.c``).
    """
    items = [m for m in dict.fromkeys(registration) if m in MODULES]
    waiting = {m: [p for p in _PREDECESSORS.get(m, ()) if p in items] for m in items}
    placed: list[str] = []
    while len(placed) < len(items):
        n = 0
        while True:
            m = items[n]
            if m not in placed:
                if waiting[m]:
                    n = items.index(waiting[m][0])
                    continue
                break
            n += 1
        placed.append(m)
        for other in items:
            if m in waiting[other]:
                waiting[other].remove(m)
    return placed


@dataclass(frozen=True)
class Order:
    """What the configuration says about the order of the hooks."""

    #: Modules the configuration loads with LoadModule, in run order.
    known: tuple[str, ...] = ()

    @classmethod
    def from_load_order(cls, identifiers: Iterable[str]) -> "Order":
        names = [i[: -len("_module")] for i in identifiers if i.endswith("_module")]
        return cls(tuple(run_order(names)))

    def before(self, first: str, then: str) -> bool | None:
        """Whether ``first``'s hook runs before ``then``'s (None: not known)."""
        if first in _PREDECESSORS.get(then, ()):
            return True
        if then in _PREDECESSORS.get(first, ()):
            return False
        if first in self.known and then in self.known:
            return self.known.index(first) < self.known.index(then)
        return None

    def full(self) -> list[str]:
        """A complete run order: modules the configuration does not load come first (built in,
        registered before any LoadModule), in the stock order."""
        missing = [m for m in STOCK_LOAD_ORDER if m not in self.known]
        return run_order(missing + list(self.known))


# -- lines -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One applicable ``Require`` line: its words and the modules that can grant it."""

    words: tuple[str, ...]

    @property
    def kind(self) -> str:
        return self.words[0].lower() if self.words else ""

    @property
    def text(self) -> str:
        return " ".join(("Require",) + self.words)


def group_checkers(confs: dict[str, ModuleConf], order: Order) -> tuple[str, ...]:
    """The modules that judged a ``Require group`` line, in run order: the group modules with a
    group file, up to and including the first authoritative one (it refused whom its file
    does not admit, so the next never saw the request)."""
    out: list[str] = []
    for module in order.full():
        if module in ("authz_groupfile", "authz_dbm") and _conf(confs, module).configured:
            out.append(module)
            if _conf(confs, module).authoritative:
                break
    return tuple(out)


#: The first words of a ``Require`` line these modules read (mod_authnz_ldap: ``ldap-*``). A module compared the
#: word as ``ap_getword_white`` gives it, quotes and all: written in quotes, none of them is any module's word.
WORDS = frozenset({"valid-user", "user", "group", "file-owner", "file-group", "ldap-user", "ldap-group", "ldap-dn",
                   "ldap-attribute", "ldap-filter"})


def grantors(kind: str, confs: dict[str, ModuleConf]) -> tuple[str, ...]:
    """The modules that grant a line of this kind (none: nobody reads it on 2.2)."""
    if kind in ("user", "valid-user"):
        return ("authz_user",)
    if kind in ("group", "file-group"):
        return tuple(m for m in ("authz_groupfile", "authz_dbm") if _conf(confs, m).configured)
    if kind == "file-owner":
        return ("authz_owner",)
    if kind.startswith("ldap-"):
        return ("authnz_ldap",) if _conf(confs, "authnz_ldap").configured else ()
    return ()


def refuses(module: str, kinds: set[str], confs: dict[str, ModuleConf]) -> bool:
    """Whether the module answers 401 to a user none of its own lines admits."""
    if not _conf(confs, module).authoritative or not is_configured(confs, module):
        return False
    if module == "authz_user":
        return "user" in kinds and "valid-user" not in kinds  # valid-user: OK for anyone
    if module in ("authz_groupfile", "authz_dbm"):
        return bool(kinds & {"group", "file-group"})
    if module == "authz_owner":
        return "file-owner" in kinds  # file-group alone: it declines and lets the group modules judge
    return any(k.startswith("ldap-") for k in kinds)  # authnz_ldap: when an ldap-* line applies


def mixed(kinds: Iterable[str]) -> bool:
    """Whether lines of these kinds belong to different 2.2 modules."""
    return len({require_family(k.lower()) for k in kinds} - {None}) > 1


@dataclass(frozen=True)
class Shadow:
    """``refuser`` (authoritative) answered 401 to users only ``line`` admits, when it ran before ``grantor``."""

    refuser: str
    line: Line
    grantor: str
    certain: bool  # the configuration's LoadModule order puts ``refuser`` first


@dataclass(frozen=True)
class Judgement:
    lines: tuple[Line, ...]
    shadows: tuple[Shadow, ...]

    @property
    def any_of(self) -> bool:
        return not self.shadows

    @property
    def ignored(self) -> list[Line]:
        out: list[Line] = []
        for s in self.shadows:
            if s.line not in out:
                out.append(s.line)
        return out

    @property
    def refusers(self) -> list[str]:
        return list(dict.fromkeys(s.refuser for s in self.shadows))


def judge(words: Iterable[Sequence[str]], confs: dict[str, ModuleConf], order: Order) -> Judgement:
    """Whether 2.2 admitted exactly the users any of these lines admits (the lines of one method)."""
    lines = tuple(Line(tuple(w)) for w in words if w)
    kinds = {line.kind for line in lines}
    shadows: list[Shadow] = []
    for module in MODULES:
        if not refuses(module, kinds, confs):
            continue
        for line in lines:
            for grantor in grantors(line.kind, confs):
                if grantor == module:
                    continue
                first = order.before(grantor, module)
                if first is True:
                    continue
                shadows.append(Shadow(module, line, grantor, certain=first is False))
    return Judgement(lines, tuple(shadows))


def who(line: Line) -> str:
    """The users a line admits, in words."""
    kind, args = line.kind, list(line.words[1:])
    names = ", ".join(args)
    if kind == "valid-user":
        return "every authenticated user"
    if kind == "user":
        return f"user{'s' if len(args) > 1 else ''} {names}"
    if kind == "group":
        return f"members of group{'s' if len(args) > 1 else ''} {names}"
    if kind == "file-owner":
        return "the owner of the requested file"
    if kind == "file-group":
        return "members of the requested file's group"
    if kind == "ldap-user":
        return f"LDAP user{'s' if len(args) > 1 else ''} {names}"
    if kind == "ldap-group":
        return f"members of LDAP group {names}"
    return f"users `{line.text}` admits"


# -- 2.2's answer for one user ----------------------------------------------------------------


def admits(words: Iterable[Sequence[str]], confs: dict[str, ModuleConf], order: Order, user: str,
           groups: Iterable[str], dbm_groups: Iterable[str] | None = None) -> bool:
    """Whether 2.2 authorizes ``user`` (in ``groups``) with these lines (all applicable to the method).

    ``dbm_groups``: the user's groups in the AuthDBMGroupFile, when they differ from the
    AuthGroupFile's (None: the same).

    The modules run in :meth:`Order.full`; the first that does not decline decides;
    mod_authz_default refuses what nobody granted (``AuthzDefaultAuthoritative On``).
    File ownership is not modelled: ``file-owner``/``file-group`` never admit.
    """
    lines = [Line(tuple(w)) for w in words if w]
    kinds = {line.kind for line in lines}
    member = set(groups)
    dbm_member = member if dbm_groups is None else set(dbm_groups)
    for module in order.full():
        if not is_configured(confs, module):
            continue
        mine = [line for line in lines if module in grantors(line.kind, confs)]
        if module == "authz_user":
            if any(line.kind == "valid-user" for line in mine):
                return True
            if any(line.kind == "user" and user in line.words[1:] for line in mine):
                return True
        elif module in ("authz_groupfile", "authz_dbm"):
            theirs = member if module == "authz_groupfile" else dbm_member
            if any(line.kind == "group" and theirs & set(line.words[1:]) for line in mine):
                return True
        elif module == "authnz_ldap":
            if any(line.kind == "ldap-user" and user in line.words[1:] for line in mine):
                return True
            if any(line.kind == "ldap-group" and " ".join(line.words[1:]) in member for line in mine):
                return True
        if refuses(module, kinds, confs):
            return False
    return False

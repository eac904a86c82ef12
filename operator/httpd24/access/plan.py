"""What every access-control scope means, and what to write in it.

For a scope D the settings it inherits depend on which other scopes apply to
the same request. :func:`chains` lists the possible sets of earlier scopes
(research notes §2(d) merge order; scopes that certainly apply are always in,
scopes that may apply are tried in and out, scopes that exclude each other are
never together). A scope whose meaning is the same for every such set can be
written out in full; otherwise it needs a person (or, for a scope that only
adds ``Require`` lines, ``AuthMerging And`` keeps the inherited address rules
exactly).
"""

from __future__ import annotations

import bisect
import itertools
import posixpath
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator

from ..apache.table import override_classes
from ..config import Item, Section
from ..config.gcpause import gc_paused
from ..config.parser import tokenize
from . import authz22, remap
from . import expr as X
from .hosts import Entry, ipsubnet
from .model import (
    DEFAULT_HOST,
    OTHER,
    Effective,
    Folding,
    Host,
    Mode,
    Model,
    Own,
    Scope,
    WALK_GROUPS,
    _dir_under,
    _has_wildcard,
    authenticating,
    dirs_may_meet,
    fold,
    htaccess_home,
    keeps_out,
    merge,
    method_name,
    normalize_dir,
    override_of,
    registered,
    skip_problem,
    written,
)
from .remap import literal_prefix

MAX_UNCERTAIN = 8
#: Beyond MAX_UNCERTAIN, the most distinct contexts tried (:func:`_distinct_chains`).
MAX_CONTEXTS = 64
#: The most sections a message names.
MAX_NAMED = 8
#: The most (section, earlier section that may meet it) pairs analysed in one configuration: past it,
#: httpd24 does not plan its access control (:func:`too_complex`). Each pair costs ~10 us of planning;
#: the 100,000-line benchmark has 2,222, 8,000 user directories under a <Files> 16,003; 2,000 copies of
#: one <Directory> (2 million) took minutes.
MAX_PAIRS = 250_000
#: Try AuthMerging / equivalent forms for context-dependent sections. Its 3 mismatches in 120 random
#: configurations came from expressions that meant something else in memory than as written (a bare
#: ``Require not`` evaluated NEUTRAL where the renderer writes ``RequireAll`` + ``all granted``); fixed in
#: :func:`negate`. Measured after the fix (seeds 1, 7, 11 x 120): no mismatch on real httpd wherever the
#: reference (normalize_22) could make 2.2 inheritance explicit, none against the 2.2 model anywhere.
RESOLVE = True


# -- which scopes meet -------------------------------------------------------------------------


def _fs(scope: Scope, model: Model) -> tuple[str | None, list[str] | None]:
    """(a directory every request of the scope lies under, the directories its requests may lie under)."""
    memo = model.cache.setdefault("plan.fs", {})
    found = memo.get(id(scope))
    if found is None:
        found = memo[id(scope)] = _fs_uncached(scope, model)
    return found


def _fs_uncached(scope: Scope, model: Model) -> tuple[str | None, list[str] | None]:
    kind = scope.kind
    if kind in ("directory", "htaccess"):
        if scope.dirpath is None:
            return "/", None
        return (None if _has_wildcard(scope.dirpath) else scope.dirpath), [scope.dirpath]
    if kind == "files":
        if scope.parent is not None and scope.parent.kind not in ("server", "vhost"):
            return _fs(scope.parent, model)
        return "/", None
    url = location_url(scope)
    remapped_to: tuple[str, ...] = ()
    if kind == "location":
        found = remapped(scope, model)
        if found.all_proxied:
            return None, []  # it meets <Proxy> sections, never a <Directory> or <Files>
        if found.proxied:
            return None, None
        if found.elsewhere:
            if found.targets is None or url is None:
                return "/", None
            remapped_to = found.targets
    if kind == "location" and url is not None:
        # A server-level Location applies in every virtual host too, each mapping URLs by its own
        # DocumentRoot and Aliases.
        servers = _servers(scope, model)
        roots: list[str] = []
        certain: str | None = None
        for vhost in servers:
            mapped = model.filename(url, vhost)
            roots.append(normalize_dir(mapped))
            for prefix, target in model.aliases_of(vhost):
                if prefix.startswith(url.rstrip("/") + "/") or url in ("", "/"):
                    roots.append(normalize_dir(target))
            # Its own path is a directory its requests lie in only when it is the DocumentRoot: another name
            # may be a file (/a/f.html/x is f.html's path info) or not be there, and then the walk meets no
            # <Directory> named after it, slash or not (tests/access/test_file_named_directory.py).
            here = normalize_dir(mapped) if url == "/" else normalize_dir(posixpath.dirname(mapped.rstrip("/")) or "/")
            certain = here if certain in (None, here) else "/"
        guessing = [vhost for vhost in servers if model.guesses_root(url, vhost)]
        aliased = [vhost for vhost in servers if vhost not in guessing and model.unseen_may_map(url, vhost)]
        if not model.whole_server and url in ("", "/"):
            # A fragment's Location / also meets what the configuration including it maps elsewhere (an Alias
            # of Debian's apache2.conf: /icons/): under the DocumentRoot is not certain (campaign htaccess 91,
            # index 20: the DocumentRoot's .htaccess Require was written into it, and applied under such an Alias).
            roots.append("/")
        elif guessing or aliased:
            # Where a fragment sets no DocumentRoot, the including configuration's decides where its URLs lie:
            # in any directory of the fragment that such a server reads (tests/access/test_fragment_location_aliased.py),
            # not in those of a virtual host that sets its own. Where it sets one, an Alias the set does not show
            # (Model.unseen) may still put them in a directory the set's own mapping does not reach.
            met = _directories_met(scope, model, guessing, aliased)
            if guessing or met is not None:  # not under the DocumentRoot for certain, even where none is met
                roots.extend(met or ())
                certain = "/"
        roots = list(dict.fromkeys(roots + list(remapped_to)))
        if len(roots) > 1:
            certain = "/"  # an Alias below the path, or another virtual host, maps some of its URLs elsewhere
        return certain, roots
    if kind == "directorymatch" and (found := regex_prefix(scope.pattern)) is not None:
        directory = normalize_dir(found[0])
        return directory, [directory]
    return "/", None


#: Why a Location of a fragment whose 2.4 form needs AuthMerging is left to a person: the sections it may meet where
#: what the set does not show maps it were not all weighed (:func:`_directories_met`, :attr:`Model.unseen`).
MERGES_WITH_UNSEEN = ("its 2.4 form needs AuthMerging {merging}, which would also merge it with the 2.4 form of "
                      "{label} where the DocumentRoot or an Alias of {where} puts its URLs there")

#: Past this many directories a guessed Location is taken to lie anywhere ("/"): listing them costs more, per pair
#: of sections, than the few sections of other virtual hosts that "/" adds.
MAX_GUESSED_DIRS = 16


def _directories_met(location: Scope, model: Model, guessing: list, aliased: list) -> list[str] | None:
    """Where ``location`` may lie in the servers that map it through a DocumentRoot the configuration does not
    set (``guessing``), or through an Alias it does not show (``aliased``, which set one; :attr:`Model.unseen`): the
    directories of the file-system sections (<Directory>, an anchored <DirectoryMatch>, <Files> inside them)
    and .htaccess files they read (the main server's in every one of them) that hold access control the
    Location does not replace -- for ``aliased`` servers only those their own DocumentRoot and Aliases do not
    reach (what else would map URLs there?) and that are named after its URL (:func:`_named_after`). (Those
    with no directory of their own may meet any request already.) Its own Order/Allow/Deny replace a section's
    (2.2's mod_authz_host, and 2.4's mod_access_compat, merge nothing), so a section with only those changes
    nothing under it (a fragment of 1,500 such <Directory> and <Location> pairs stayed translatable) -- unless
    its 2.4 form merges with what it inherits (AuthMerging), which :func:`make_plan` then refuses
    (:data:`MERGES_WITH_UNSEEN`). None where ``aliased`` servers have no directory so named at all (with access
    control or none), so that it lies under their DocumentRoot for certain."""
    by_server = model.cache.get("plan.dirs")
    if by_server is None:
        by_server = model.cache["plan.dirs"] = {}
        for scope in model.scopes:
            if _in_a_directory(scope):
                by_server.setdefault(_vhost_key(scope), []).append(scope)
    url = location_url(location) or "/"
    every = {None, *(id(vhost) for vhost in guessing if vhost is not None)} if guessing else set()
    mapped = [path for vhost in aliased for path in model.mapped_dirs(vhost)]
    replaces_host = location.own.host is not None
    found: list[str] = []
    candidates = False
    for key in dict.fromkeys([None, *every, *(id(vhost) for vhost in aliased if vhost is not None)]):
        for scope in by_server.get(key, ()):
            if key in every:
                if not _relevant(scope):
                    continue
                paths = _fs(scope, model)[1] or []
            else:
                # Named so, it may be where the URLs lie instead of the DocumentRoot, whatever it holds.
                paths = [path for path in _fs(scope, model)[1] or () if _named_after(path, url)
                         and not any(dirs_may_meet(path, there) for there in mapped)]
                candidates = candidates or bool(paths)
                if not paths or not _relevant(scope):
                    continue
            if replaces_host and _host_only(scope.own):
                model.cache.setdefault("plan.left_out", {}).setdefault(id(location), scope)
                continue
            model.cache.setdefault("plan.unseen_dirs", {}).setdefault(id(location), scope)
            found.extend(paths)
            if len(found) > MAX_GUESSED_DIRS:
                model.cache.get("plan.left_out", {}).pop(id(location), None)  # "/": none is left out
                return ["/"]
    return found if candidates or found else None


def _named_after(path: str, url: str) -> bool:
    """Whether directory ``path`` holds a directory named as ``url`` or one of its leading parts is
    (/usr/share/phpmyadmin/setup/ for /phpmyadmin/setup): where an Alias of the including configuration would
    put that URL (`Alias /phpmyadmin /usr/share/phpmyadmin`), as aliases are named."""
    parts, path = [part for part in url.split("/") if part], normalize_dir(path)
    return any(f"/{'/'.join(parts[:n])}/" in path for n in range(1, len(parts) + 1))


def _in_a_directory(scope: Scope) -> bool:
    """A <Directory>, <DirectoryMatch> or .htaccess file, or a section inside one (<Files>): never inside a
    <Location>, whose directories are what is being found."""
    while scope.kind == "files" and scope.parent is not None:
        scope = scope.parent
    return scope.kind in ("directory", "htaccess", "directorymatch")


def _host_only(own: Own) -> bool:
    return own.host is not None and own.satisfy is None and own.requires is None and own.authz is None and (
        own.authmerging is None and own.authtype is None and not own.authname and not own.user_source
        and not own.authz22)


@dataclass(frozen=True)
class Remapped:
    """How the URLs of a `<Location>` may leave the DocumentRoot/Alias mapping (:mod:`.remap`)."""

    proxied: bool = False
    #: Every URL of it is proxied, in every server it applies in.
    all_proxied: bool = False
    #: The directories the files of its URLs mapped elsewhere lie under (None: they may be anywhere).
    targets: tuple[str, ...] | None = ()

    @property
    def elsewhere(self) -> bool:
        return self.targets is None or bool(self.targets)


def _servers(scope: Scope, model: Model) -> list:
    """The servers whose requests a scope applies to: a main-server section applies in every virtual host,
    and in the main server where some request reaches it (:attr:`Model.servers`)."""
    return [scope.vhost] if scope.vhost is not None else model.servers


def _remaps_in(vhost, model: Model) -> list[remap.Remap]:
    if vhost is None:
        return model.remaps.get(None, [])
    # mod_proxy and mod_alias append the main server's lines to each virtual host's; mod_rewrite only
    # where RewriteOptions inherits them.
    main = model.cache.get("plan.main_remaps")
    if main is None:
        main = model.cache["plan.main_remaps"] = [
            r for r in model.remaps.get(None, []) if model.rewrite_inherited or not r.rewrite]
    own = model.remaps.get(id(vhost))
    return own + main if own else main


def remapped(scope: Scope, model: Model) -> Remapped:
    """Which of a Location's URLs may be proxied or mapped elsewhere."""
    memo = model.cache.setdefault("plan.remapped", {})
    found = memo.get(id(scope))
    if found is None:
        found = memo[id(scope)] = _remapped_uncached(scope, model)
    return found


def _remapped_uncached(scope: Scope, model: Model) -> Remapped:
    if not model.remaps:
        return Remapped()
    url, exact = location_url(scope), _url_exact(scope)
    proxied = False
    all_proxied = True
    targets: list[str | None] = []
    for vhost in _servers(scope, model):
        met = [r for r in _remaps_in(vhost, model) if remap.overlaps(url, r)]
        proxied = proxied or any(r.kind == "proxy" for r in met)
        targets += [r.target for r in met if r.kind == "elsewhere"]
        all_proxied = all_proxied and exact is not None and all(r.kind == "proxy" for r in met) and any(
            remap.covers(exact, r) for r in met)
    known = None if None in targets else tuple(dict.fromkeys(t for t in targets if t is not None))
    return Remapped(proxied, all_proxied, known)


def regex_prefix(pattern: str) -> tuple[str, bool] | None:
    """(the path every match of an anchored regex starts with, up to its last ``/``; whether the
    regex is exactly that path, so that everything below it matches). ``^/c/`` -> ``("/c/", True)``,
    ``^/c/.*\\.php$`` -> ``("/c/", False)``; None when the regex is not anchored or has no ``/``."""
    found = literal_prefix(pattern)
    if found is None:
        return None
    text, whole = found
    cut = text.rfind("/")
    if cut < 0:
        return None
    return text[: cut + 1], whole and text.endswith("/")


def location_url(scope: Scope) -> str | None:
    """A URL path every request of the scope lies under (a prefix of a LocationMatch's regex)."""
    if scope.kind != "location":
        return None
    if scope.regex is None:
        return None if _has_wildcard(scope.pattern) else (scope.pattern or "/")
    found = regex_prefix(scope.pattern)
    return found[0] if found is not None else None


def _url_exact(scope: Scope) -> str | None:
    """:func:`_url` when the scope meets every request under that path, else None."""
    if scope.kind == "location" and scope.regex is not None:
        found = regex_prefix(scope.pattern)
        return found[0] if found is not None and found[1] else None
    return location_url(scope)


def _url_under(child: str, parent: str) -> bool:
    """Whether every URL ``<Location child>`` meets also meets ``<Location parent>``: httpd
    compares the path as a prefix, and one that ends with ``/`` does not meet the bare name
    (``<Location /c/>`` does not apply to ``/c``)."""
    if parent in ("", "/"):
        return True
    if parent.endswith("/"):
        return child.startswith(parent)
    return child == parent or child.startswith(parent + "/")


def _vhost_ok(a: Scope, b: Scope) -> bool:
    return a.vhost is None or b.vhost is None or a.vhost is b.vhost


def _reading_servers(scope: Scope, model: Model) -> set[int | None]:
    """The servers (id of a <VirtualHost>, None: the main one) whose requests a scope applies to: those that
    read it for a placed .htaccess file (its AllowOverride is per server: Model.reads_htaccess)."""
    memo = model.cache.setdefault("plan.reading_servers", {})
    found = memo.get(id(scope))
    if found is None:
        if scope.kind == "htaccess" and scope.dirpath is not None:
            servers = [s for s in model.servers if model.reads_htaccess(scope.dirpath, s)]
        else:
            servers = _servers(scope, model)
        found = memo[id(scope)] = {id(s) if s is not None else None for s in servers}
    return found


def may_meet(a: Scope, b: Scope, model: Model) -> bool:
    """Whether one request can meet both scopes."""
    if not _vhost_ok(a, b):
        return False
    if "htaccess" in (a.kind, b.kind) and not _reading_servers(a, model) & _reading_servers(b, model):
        return False  # no server that reads the file (under an AllowOverride None) serves the other's requests
    if "proxy" in (a.kind, b.kind):
        other = b if a.kind == "proxy" else a
        return other.kind == "proxy" or other.kind == "location" and remapped(other, model).proxied
    if a.kind in ("server", "vhost") or b.kind in ("server", "vhost"):
        return True
    ua, ub = location_url(a), location_url(b)
    if ua is not None and ub is not None:
        return _url_under(ua, ub) or _url_under(ub, ua)
    if a.kind == "files" and b.kind == "files" and a.regex is None and b.regex is None:
        if not _has_wildcard(a.pattern) and not _has_wildcard(b.pattern) and a.pattern != b.pattern:
            return False
    _, ra = _fs(a, model)
    _, rb = _fs(b, model)
    if ra == [] or rb == []:
        return False  # a proxied Location meets no file-system section
    if ra is None or rb is None:
        return True
    return any(dirs_may_meet(x, y) for x in ra for y in rb)


def certainly_meets(p: Scope, d: Scope, model: Model) -> bool:
    """Whether every request of ``d`` also meets ``p``."""
    if p.kind == "server":
        return d.kind != "proxy"
    if p.kind == "vhost":
        return d.vhost is p.vhost
    if p.vhost is not None and p.vhost is not d.vhost:
        return False
    if p.kind == "proxy":
        return p.regex is None and p.pattern == "*" and d.kind == "location" and remapped(d, model).all_proxied
    if p.kind == "htaccess" and not _reading_servers(d, model) <= _reading_servers(p, model):
        return False  # a server that serves d's requests does not read the file
    if p.kind in ("directory", "htaccess") and p.dirpath is not None and not _has_wildcard(p.dirpath):
        certain, _ = _fs(d, model)
        return certain is not None and _dir_under(certain, p.dirpath)
    if p.kind == "directorymatch" and (found := regex_prefix(p.pattern)) is not None and found[1]:
        # The regex sees the file name: the directory itself asked for without its slash
        # (/srv/www/a for ^/srv/www/a/) does not match, anything below it does.
        certain, _ = _fs(d, model)
        return certain is not None and _dir_under(certain, found[0]) and normalize_dir(certain) != found[0]
    up, ud = _url_exact(p), location_url(d)
    if up is not None and ud is not None:
        return _url_under(ud, up)
    return False


def _relevant(scope: Scope) -> bool:
    # 2.2 authorization module records (Authz*Authoritative, AuthGroupFile ...) decide what the
    # Require lines of the sections below meant (authz22), and an AuthMerging alone changes what
    # 2.4 inherits (model.merge_authz), so their sections count as well.
    own = scope.own
    return own.has_access or own.authtype is not None or bool(own.authz22) or own.authmerging is not None


class _Group:
    """The access-holding scopes of one server (main server or one virtual host), indexed by path."""

    def __init__(self) -> None:
        self.all: list[Scope] = []
        #: Scopes that may meet any request (server, vhost, regex, wildcard, top-level Files ...).
        self.always: list[Scope] = []
        #: Scopes by each file system directory their requests may lie under (no wildcard).
        self.by_dir: dict[str, list[Scope]] = {}
        #: URL locations by their normalized prefix (no trailing slash).
        self.by_url: dict[str, list[Scope]] = {}
        self.dir_keys: list[str] = []
        self.url_keys: list[str] = []

    def add(self, scope: Scope, model: Model) -> None:
        self.all.append(scope)
        url = location_url(scope)
        _, roots = _fs(scope, model)
        if scope.kind in ("server", "vhost", "proxy") or roots is None or any(_has_wildcard(r) for r in roots):
            self.always.append(scope)
            return
        if url is not None:
            key = url.rstrip("/")
            if not key:
                self.always.append(scope)
                return
            self.by_url.setdefault(key, []).append(scope)
        for root in dict.fromkeys(roots):
            self.by_dir.setdefault(root, []).append(scope)

    def finish(self) -> None:
        self.dir_keys = sorted(self.by_dir)
        self.url_keys = sorted(self.by_url)

    def overlapping(self, d: Scope, model: Model, out: dict[int, Scope]) -> None:
        """Add every scope of the group that may meet ``d`` (a superset; :func:`may_meet` decides)."""
        for s in self.always:
            out[id(s)] = s
        _, roots = _fs(d, model)
        if d.kind in ("server", "vhost", "proxy") or roots is None or any(_has_wildcard(r) for r in roots):
            for s in self.all:
                out[id(s)] = s
            return
        for root in roots:
            _prefixes(root, "/", self.by_dir, out)
            _under(root, self.dir_keys, self.by_dir, out)
        url = location_url(d)
        if url is not None:
            key = url.rstrip("/")
            _prefixes(key + "/", "/", self.by_url, out, strip=True)
            _under(key + "/", self.url_keys, self.by_url, out)


def _prefixes(path: str, sep: str, table: dict[str, list[Scope]], out: dict[int, Scope], strip: bool = False) -> None:
    """Entries of ``table`` keyed by ``path`` or one of its ancestors (``/a/b/`` -> ``/``, ``/a/``, ``/a/b/``)."""
    i = path.find(sep)
    while i != -1:
        key = path[: i] if strip else path[: i + 1]
        for s in table.get(key, ()):
            out[id(s)] = s
        i = path.find(sep, i + 1)


def _under(prefix: str, keys: list[str], table: dict[str, list[Scope]], out: dict[int, Scope]) -> None:
    """Entries of ``table`` whose key starts with ``prefix``."""
    i = bisect.bisect_left(keys, prefix)
    while i < len(keys) and keys[i].startswith(prefix):
        for s in table[keys[i]]:
            out[id(s)] = s
        i += 1


class _Index:
    """Access-holding scopes grouped by server and path, built once per model.

    Candidates for a scope's predecessors come only from its own virtual host and
    the main server (every virtual host for a main-server scope), and only from
    scopes whose paths can overlap it; :func:`may_meet` then decides exactly, as
    the full scan did.
    """

    def __init__(self, model: Model) -> None:
        self.keys: dict[int, tuple] = {}
        self.groups: dict[int | None, _Group] = {}
        for s in model.scopes:
            self.keys[id(s)] = s.merge_key()
            if not _relevant(s):
                continue
            group = self.groups.get(_vhost_key(s))
            if group is None:
                group = self.groups[_vhost_key(s)] = _Group()
            group.add(s, model)
        for group in self.groups.values():
            group.finish()
        self.found: dict[int, list[Scope]] = {}
        self.too_complex = self._within_budget(model)

    def _within_budget(self, model: Model) -> str | None:
        """None, or why the pairs of sections that may meet are more than :data:`MAX_PAIRS`."""
        total = 0
        for d in model.scopes:
            total += len(self.candidates(d, model))
            if total > MAX_PAIRS:
                worst = max(model.scopes, key=lambda s: len(self.found.get(id(s), ())))
                return (f"the configuration's {len(model.scopes):,} sections make more than {MAX_PAIRS:,} pairs "
                        f"that may apply to one request ({worst.label} at {worst.file}:{worst.line} alone may meet "
                        f"{len(self.found[id(worst)]):,} earlier ones), more than httpd24 analyses; merge the "
                        f"sections repeated for the same path (or split the configuration) and run it again")
        return None

    def candidates(self, d: Scope, model: Model) -> list[Scope]:
        found = self.found.get(id(d))
        if found is None:
            found = self.found[id(d)] = self._candidates(d, model)
        return found

    def _candidates(self, d: Scope, model: Model) -> list[Scope]:
        out: dict[int, Scope] = {}
        if d.vhost is None:
            groups = list(self.groups.values())
        else:
            groups = [g for g in (self.groups.get(None), self.groups.get(id(d.vhost))) if g is not None]
        unknown_htaccess = d.kind == "htaccess" and d.dirpath is None
        for group in groups:
            if unknown_htaccess:
                for s in group.all:
                    out[id(s)] = s
            else:
                group.overlapping(d, model, out)
        key = self.keys[id(d)]
        found = [s for s in out.values() if s is not d and (self.keys[id(s)] < key or _may_precede_unplaced(s, d))]
        found.sort(key=lambda s: s.index)
        return found


def _vhost_key(scope: Scope) -> int | None:
    return id(scope.vhost) if scope.vhost is not None else None


def _index(model: Model) -> _Index:
    index = model.cache.get("plan.index")
    if index is None:
        index = model.cache["plan.index"] = _Index(model)
    return index


def too_complex(model: Model) -> str | None:
    """Why httpd24 does not analyse the access control of ``model`` (:data:`MAX_PAIRS`), or None.

    Then no section is planned and :func:`predecessors` finds none: the rules that read them stay
    quiet, and HT501 gives this reason for every section instead of answering after minutes."""
    return _index(model).too_complex


def predecessors(d: Scope, model: Model) -> tuple[list[Scope], list[Scope]]:
    """(certain, uncertain) earlier scopes with access settings that may meet ``d``."""
    memo = model.cache.setdefault("plan.predecessors", {})
    found = memo.get(id(d))
    if found is None:
        index = _index(model)
        found = memo[id(d)] = ([], []) if index.too_complex else _classify(index.candidates(d, model), d, model)
    return found


def _predecessors_scan(d: Scope, model: Model) -> tuple[list[Scope], list[Scope]]:
    """The same as :func:`predecessors` by a scan of every scope (the reference for the index's tests)."""
    key = d.merge_key()
    candidates = (p for p in model.scopes
                  if p is not d and _relevant(p) and (p.merge_key() < key or _may_precede_unplaced(p, d)))
    return _classify(candidates, d, model)


def _may_precede_unplaced(p: Scope, d: Scope) -> bool:
    """An .htaccess whose directory is unknown may lie under any <Directory>, however deep, and under
    any other .htaccess (placed or not)."""
    return d.kind == "htaccess" and d.dirpath is None and (
        p.kind == "htaccess" or p.kind == "directory" and p.dirpath is not None)


def _classify(candidates, d: Scope, model: Model) -> tuple[list[Scope], list[Scope]]:
    """Split candidate earlier scopes into those certainly and those possibly merged before ``d``."""
    certain: list[Scope] = []
    uncertain: list[Scope] = []
    unknown_htaccess = d.kind == "htaccess" and d.dirpath is None
    for p in candidates:
        if unknown_htaccess:
            # What applies everywhere (server, vhost, <Directory />) precedes it; any other directory's
            # sections and .htaccess files may, as it may lie anywhere.
            if p.kind in ("server", "vhost") and certainly_meets(p, d, model):
                certain.append(p)
            elif p.kind == "directory" and p.dirpath == "/" and _vhost_ok(p, d):
                certain.append(p)
            elif (p.kind == "htaccess" or p.kind == "directory" and p.dirpath is not None) and _vhost_ok(p, d):
                uncertain.append(p)  # an unplaced .htaccess too: either file may lie below the other
            continue
        if not may_meet(p, d, model):
            continue
        (certain if certainly_meets(p, d, model) else uncertain).append(p)
    return certain, uncertain


GROUP_MERGE_REASON = (
    "an AuthMerging here would also combine with the sections before the other Files/Location sections "
    "that apply (httpd 2.4 merges those among themselves first)"
)


def merges_in_order(d: Scope, model: Model) -> bool:
    """Whether an ``AuthMerging And|Or`` written into ``d`` combines with exactly what precedes it.

    httpd 2.4 merges the Files sections that apply among themselves first and the result onto the
    directory's configuration, and likewise the Location sections: the AuthMerging of the last
    section of such a group decides how the whole group combines with what came before it. So
    when an earlier section of ``d``'s own group and a section of an earlier walk may both hold
    access control, ``AuthMerging And`` in ``d`` would also AND the earlier walk's rules with that
    section's, which 2.2 (and 2.4 without the AuthMerging) replaced. Measured on apache2 2.4:
    seed 1, index 265 of the random differential run.
    """
    group = WALK_GROUPS.get(d.kind)
    if group is None:
        return True
    certain, uncertain = predecessors(d, model)
    relevant = [p for p in certain + uncertain if _relevant(p)]
    same = any(WALK_GROUPS.get(p.kind) == group for p in relevant)
    earlier = any(WALK_GROUPS.get(p.kind) != group for p in relevant)
    return not (same and earlier)


def _gets_require_all_granted(scope: Scope) -> bool:
    """A section with AuthType or AuthMerging but no access lines, which the translation may give
    ``Require all granted`` (HT504; the hybrid plan of an AuthMerging alone): on 2.4 it has a Require
    tree the meaning of what precedes a later section does not show, so an AuthMerging written there
    would combine with it (seed 5, index 83 of the random run; seed 605110615, index 345 of the mixed one)."""
    own = scope.own
    return (own.authenticates or own.authmerging is not None) and not own.has_access


def chains(d: Scope, model: Model) -> list[list[Scope]] | None:
    """Every possible list of earlier scopes (merge order); None when there are too many to try."""
    memo = model.cache.setdefault("plan.chains", {})
    if id(d) in memo:
        return memo[id(d)]
    certain, uncertain = predecessors(d, model)
    if len(uncertain) > MAX_UNCERTAIN:
        memo[id(d)] = _distinct_chains(d, certain, uncertain, model)
        return memo[id(d)]
    out = []
    for n in range(len(uncertain) + 1):
        for subset in itertools.combinations(uncertain, n):
            if any(not may_meet(a, b, model) for a, b in itertools.combinations(subset, 2)):
                continue
            if any(not may_meet(a, b, model) for a in subset for b in certain):
                continue
            out.append(sorted(certain + list(subset), key=Scope.merge_key))
    memo[id(d)] = out
    return out


def _distinct_chains(d: Scope, certain: list[Scope], uncertain: list[Scope], model: Model) -> list[list[Scope]] | None:
    """One chain for each distinct context, where the subsets of ``uncertain`` are too many to try one
    by one (a ``<Files>`` under a hundred user directories); None beyond :data:`MAX_CONTEXTS`.

    Built along the merge order, each uncertain scope taken and left out; chains that fold to the same
    settings in both modes, with the same answers to what the callers ask of a chain's members, are
    kept once. Two uncertain scopes that cannot meet each other may be taken together: a context too
    many, never one too few, so a plan made from them can only be more careful.

    When the contexts differ in their Order/Allow/Deny beyond the limit and ``d`` has its own (which
    replace them, in 2.2 and on 2.4 + mod_access_compat alike), the inherited ones are left out of the
    comparison: the chains then stand for what a request meets *at* ``d``, not before it, and
    :func:`inherited_hosts_unknown` says so.
    """
    uncertain = [p for p in uncertain if all(may_meet(p, c, model) for c in certain)]
    members = sorted(certain + uncertain, key=Scope.merge_key)
    found = _contexts(members, {id(c) for c in certain}, project=False)
    if found is None and d.own.host is not None:
        found = _contexts(members, {id(c) for c in certain}, project=True)
        if found is not None:
            model.cache.setdefault("plan.hosts_unknown", set()).add(id(d))
    return found


def _contexts(members: list[Scope], sure: set[int], project: bool) -> list[list[Scope]] | None:
    def step(f: Folding, p: Scope, mode: Mode) -> Folding:
        f = f.then(p, mode)
        return replace(f, state=replace(f.state, host=DEFAULT_HOST)) if project else f

    partial: dict[tuple, list[Scope]] = {(Folding(), Folding(), False, False, False, False): []}
    for p in members:
        grown: dict[tuple, list[Scope]] = {}
        for (f22, fc, access, compat, requires, granted), chain in partial.items():
            if id(p) not in sure:
                grown.setdefault((f22, fc, access, compat, requires, granted), chain)
            own = p.own
            key = (step(f22, p, "2.2"), step(fc, p, "compat"), access or own.has_access, compat or own.has_compat,
                   requires or own.requires is not None, granted or _gets_require_all_granted(p))
            grown.setdefault(key, [*chain, p])
        if len(grown) > MAX_CONTEXTS:
            return None
        partial = grown
    return list(partial.values())


def inherited_hosts_unknown(d: Scope, model: Model) -> bool:
    """Whether :func:`chains` of ``d`` left the inherited Order/Allow/Deny out (:func:`_distinct_chains`):
    then what they fold to before ``d`` is not what a request met there, only what it meets at ``d``."""
    return id(d) in model.cache.get("plan.hosts_unknown", ())


def inherited(chain: list[Scope], mode: Mode) -> Effective:
    """What a request meets before the scope ``chain`` precedes (see :func:`fold`)."""
    return fold(chain, mode)


# -- 2.4 expressions of a merged state ---------------------------------------------------------


def entry_expr(entry: Entry) -> X.Expr:
    if entry.kind == "all":
        return X.TRUE
    if entry.kind == "ip":
        return X.Leaf("ip", (entry.text,))
    if entry.kind == "host":
        return X.Leaf("host", (entry.name,))
    if entry.kind == "env":
        return X.Leaf("env", (entry.name,))
    return _not(X.Leaf("env", (entry.name,)))  # env=!NAME


def _not(leaf: X.Leaf) -> X.Expr:
    """"Not ``leaf``" as a GRANTED/DENIED expression: mod_authz_core never grants on a bare
    ``Require not``, so it stands next to ``Require all granted`` in a ``<RequireAll>``
    (what the renderer writes; the in-memory expression must mean the same when evaluated)."""
    return X.All((X.TRUE, X.Leaf(leaf.provider, leaf.args, True)))


def negate(e: X.Expr) -> X.Expr:
    """The boolean negation of an address expression (ip/host/env leaves, all granted/denied)."""
    if e == X.TRUE:
        return X.FALSE
    if e == X.FALSE:
        return X.TRUE
    if isinstance(e, X.Leaf):
        return X.Leaf(e.provider, e.args) if e.negate else _not(e)
    if e.negate:
        raise ValueError(f"negated container in an address expression: {e!r}")
    if isinstance(e, X.AnyOf):
        return X.simplify(X.All((X.TRUE,) + tuple(negate(i) for i in e.items)))
    # All: TRUE items drop out; not (a and b) = (not a) or (not b)
    items = [i for i in e.items if i != X.TRUE]
    if not items:
        return X.FALSE
    return X.simplify(X.AnyOf(tuple(negate(i) for i in items)))


def host_expr(host: Host, method: str) -> X.Expr:
    allows = X.AnyOf(tuple(entry_expr(e) for e in host.entries("allow", method)))
    denys = X.AnyOf(tuple(entry_expr(e) for e in host.entries("deny", method)))
    not_denied = X.simplify(negate(X.simplify(denys)))
    if host.order(method) == "deny,allow":
        return X.simplify(X.AnyOf((allows, not_denied)))
    return X.simplify(X.All((allows, not_denied)))


#: The 2.4 provider of each 2.2 group module's ``Require group`` (spec §5.1: DBM is ``dbm-group``).
_GROUP_PROVIDER = {"authz_groupfile": "group", "authz_dbm": "dbm-group"}


#: What a Require line no 2.2 module read meant there: mod_authz_default answered 401 when nobody granted, so it
#: asked for a login and admitted nobody. 2.4's ``Require user`` with no names does the same (DENIED without a
#: user, then DENIED for every user; apache2 accepts it: tests/access/test_ht509.py).
NOBODY = X.Leaf("user", ())


def quoted_reason(line) -> str:
    """Why a section whose 2.2 Require lines include a quoted provider word is left to a person."""
    return (f"`{line.text}`: 2.2 read no quoted provider word (its modules compared it with its quotes), so the line "
            f"let nobody in, and 2.4 takes the quotes off (HT509); whether it is meant is a person's choice "
            f"(`Require user`, with no names, keeps 2.2's answer)")


def require_expr_22(state: Effective, method: str, order: authz22.Order) -> X.Expr | None:
    """2.2's Require lines in 2.4 form. ``Require group`` was judged by mod_authz_groupfile
    (AuthGroupFile) and mod_authz_dbm (AuthDBMGroupFile) in hook order, and the first that is
    authoritative refused whom its own file does not admit: the later one counts only after an
    ``Authz*Authoritative Off`` (:func:`.authz22.group_checkers`)."""
    lines = state.requires_for(method)
    if not lines:
        return None
    checkers = authz22.group_checkers(dict(state.authz22), order)
    leaves: list[X.Expr] = []
    for line in lines:
        if line.quoted:  # no module read it: a login asked for, nobody admitted (:attr:`RequireLine.quoted`)
            leaves.append(NOBODY)
            continue
        leaf = X.from_require(line.words)
        if isinstance(leaf, X.Leaf) and leaf.provider == "group" and checkers:
            leaves += [X.Leaf(_GROUP_PROVIDER[m], leaf.args, leaf.negate) for m in checkers]
        else:
            leaves.append(leaf)
    return X.simplify(X.AnyOf(tuple(leaves)))


class Inexact(Exception):
    """The state cannot be written in pure 2.4 with the same answers."""


def state_expr(state: Effective, method: str, mode: Mode, order: authz22.Order) -> X.Expr:
    """The 2.4 authorization that answers as ``state`` does for ``method``."""
    h = host_expr(state.host, method)
    satisfy = state.satisfy_for(method)
    if mode == "2.2":
        r = require_expr_22(state, method, order)
        if r is None:
            return h
    else:
        r = X.for_method(state.authz, method) if state.authz is not None else None
        if r is None:
            if satisfy == "all":
                if state.authtype is None or h == X.FALSE:
                    return h
            elif state.authtype is None or h == X.TRUE:
                return X.TRUE
            raise Inexact("AuthType without any Require answers 500 on 2.4 with mod_access_compat")
    if satisfy == "any":
        return X.simplify(X.AnyOf((r, h)))
    return X.simplify(X.All((r, h)))


def methods_of(model: Model) -> list[str]:
    names: set[str] = {"GET"}
    for scope in model.scopes:
        own = scope.own
        if own.host is not None:
            names |= own.host.mentioned_methods
        for _, m in own.satisfy or ():
            names |= m.names
        if own.authz is not None:
            names |= X.limited_names(own.authz)
    return sorted(names) + [OTHER]


_FULL_MEMO: dict[tuple, X.Expr | Inexact] = {}


def full_expr(state: Effective, mode: Mode, methods: list[str], order: authz22.Order) -> X.Expr:
    """One expression for every method (``Require method`` branches where they differ).

    Memoized by value: large configurations repeat the same few policies.
    """
    key = (state, mode, tuple(methods), order)
    found = _FULL_MEMO.get(key)
    if found is None:
        try:
            found = _full_expr(state, mode, methods, order)
        except Inexact as error:
            found = error
        if len(_FULL_MEMO) > 20000:
            _FULL_MEMO.clear()
        _FULL_MEMO[key] = found
    if isinstance(found, Inexact):
        raise Inexact(str(found))
    return found


def _full_expr(state: Effective, mode: Mode, methods: list[str], order: authz22.Order) -> X.Expr:
    return _joined({m: X.simplify(state_expr(state, m, mode, order)) for m in methods}, methods)


def _joined(by_method: dict[str, X.Expr], methods: list[str]) -> X.Expr:
    """One expression from one per method: ``Require method`` branches where they differ."""
    distinct: list[X.Expr] = []
    for e in by_method.values():
        if e not in distinct:
            distinct.append(e)
    if len(distinct) == 1:
        return distinct[0]
    named = [m for m in methods if m != OTHER]
    branches: list[X.Expr] = []
    for e in distinct:
        group = [m for m, v in by_method.items() if v == e]
        if e == X.FALSE:
            continue
        if OTHER in group:
            excluded = tuple(sorted(set(named) - set(group)))
            branches.append(X.All((e, X.Leaf("method", excluded, True))))
        else:
            branches.append(X.All((X.Leaf("method", tuple(sorted(group))), e)))
    return X.simplify(X.AnyOf(tuple(branches)))


def one_line(text: str) -> str:
    """A Require block as one line of a message."""
    return "; ".join(line.strip() for line in text.splitlines())


def render_key(e: X.Expr) -> str:
    return X.render(e)


# -- several Require lines: "any of" on 2.2? (authz22) ----------------------------------------


def load_order(model: Model) -> authz22.Order:
    order = model.cache.get("plan.order")
    if order is None:
        order = model.cache["plan.order"] = authz22.Order.from_load_order(model.load_order)
    return order


def not_any_of(state: Effective, model: Model, methods: list[str]) -> tuple[str, authz22.Judgement] | None:
    """(method, judgement) where 2.2 did not admit everyone any applicable Require line admits.

    2.4 reads the lines as an implicit ``<RequireAny>``; on 2.2 an authoritative module
    that ran first refused users only another module's line admits (:mod:`.authz22`).
    """
    if not state.requires:
        return None
    confs = dict(state.authz22)
    order = load_order(model)
    for method in methods:
        lines = state.requires_for(method)
        if len(lines) < 2:
            continue
        verdict = authz22.judge([line.words for line in lines], confs, order)
        if not verdict.any_of:
            return method, verdict
    return None


def shadowed_in_some_context(d: Scope, model: Model, methods: list[str]) -> tuple[tuple[str, authz22.Judgement], Effective] | None:
    """Where the scope's own Require lines were not "any of them" on 2.2, in some context it
    may be merged in: ((method, judgement), the merged 2.2 state) of the first such context."""
    own = d.own
    if not own.requires or len(own.requires) < 2 or not authz22.mixed(line.provider for line in own.requires):
        return None
    possible = chains(d, model)
    if possible is None:
        possible = [predecessors(d, model)[0]]
    for chain in possible:
        found = shadowed_with_later(merge(inherited(chain, "2.2"), own, "2.2"), d, model, methods)
        if found is not None:
            return found
    return None


def shadowed_with_later(state: Effective, d: Scope, model: Model, methods: list[str]):
    """:func:`not_any_of` for ``state`` (what a request meets at ``d``), and for it with each section
    merged later that keeps ``d``'s lines but configures 2.2's authorization modules (a ``<Files>``
    with an AuthGroupFile, :func:`records_after`): ((method, judgement), that state). The later
    sections are looked for only where the lines are mixed."""
    found = not_any_of(state, model, methods)
    if found is not None:
        return found, state
    if not state.requires or not authz22.mixed(line.provider for line in state.requires):
        return None
    for after in records_after(d, model):
        merged = merge(state, after.own, "2.2")
        found = not_any_of(merged, model, methods)
        if found is not None:
            return found, merged
    return None


def shadowed_reason(found: tuple[str, authz22.Judgement]) -> str:
    _method, verdict = found
    lines = ", ".join(f"`{line.text}`" for line in verdict.lines)
    return (f"its Require lines ({lines}) are read by different 2.2 modules, and an authoritative one "
            f"refused what only another's line admits: 2.2 did not mean \"any of them\" as 2.4 does (HT507)")


# -- the plan for one scope --------------------------------------------------------------------


@dataclass
class ScopePlan:
    scope: Scope
    #: "translate" (compat directives), "require" (Require lines that lose inherited rules),
    #: "authtype" (AuthType with possibly no Require), "hybrid".
    kind: str
    text: str | None = None  # the Require block to write (None: no exact translation)
    authmerging: str | None = None
    reason: str = ""
    expr: X.Expr | None = None
    states: list[Effective] = field(default_factory=list)
    #: An AuthType section that answers 500 today on 2.4 + mod_access_compat and keeps that answer
    #: however the others are rewritten: reported, but it holds no other section's rewrite back.
    stays: bool = False
    #: What the translation took for granted of the lines the set does not show (:func:`_assumption`).
    assumes: str = ""


def plan_kind(own: Own, mode: Mode) -> str | None:
    """What a section's plan is about (:attr:`ScopePlan.kind`); None: it has no access control of its own."""
    if own.has_compat:
        return "hybrid" if mode == "compat" else "translate"
    if own.requires is not None or own.authz is not None or own.authmerging is not None:
        # An AuthMerging alone changes what 2.4 inherits too (model.merge_authz): once the sections
        # around it hold Require lines, it would combine them otherwise than mod_access_compat did.
        return "hybrid" if mode == "compat" else "require"
    # `AuthType None` alone asks for no Require: 2.4 answers as it inherits, 200 where nothing applies.
    return "authtype" if own.authenticates else None


def plan_scope(d: Scope, model: Model, mode: Mode, methods: list[str]) -> ScopePlan | None:
    own = d.own
    kind = plan_kind(own, mode)
    if kind is None:
        return None
    possible = chains(d, model)
    if possible is None:
        return ScopePlan(d, kind, reason=f"the sections that may apply together with it make more than "
                                         f"{MAX_CONTEXTS} different contexts")
    if kind == "authtype" and mode == "compat":
        return _authtype_on_24(d, model, methods, possible)
    if kind == "authtype":
        certain, uncertain = predecessors(d, model)
        has_access_pred = [p for p in certain + uncertain if p.own.has_access]
        if any(p.own.has_access for p in certain):
            return None  # something with Require (after translation) always applies
        if has_access_pred and not merges_in_order(d, model):
            return ScopePlan(d, kind, reason=GROUP_MERGE_REASON)
        return ScopePlan(d, kind, text="Require all granted", authmerging="And" if has_access_pred else None)
    texts: dict[str, X.Expr] = {}
    later: list[Scope] = []  # sections whose AuthType refused a form that answers as 2.2 at ``d`` itself
    states: list[Effective] = []
    inherited_states: list[Effective] = []
    try:
        for chain in possible:
            inh = inherited(chain, mode)
            state = fold([*chain, d], mode)
            if mode == "2.2":
                shadowed = shadowed_with_later(state, d, model, methods)
                if shadowed is not None:
                    return ScopePlan(d, kind, reason=shadowed_reason(shadowed[0]))
                if (quoted := next((line for line in state.requires if line.quoted), None)) is not None:
                    return ScopePlan(d, kind, reason=quoted_reason(quoted))
            inherited_states.append(inh)
            states.append(state)
            e = full_expr(state, mode, methods, load_order(model))
            texts.setdefault(render_key(e), e)
    except Inexact as error:
        return ScopePlan(d, kind, reason=str(error))
    if len(texts) == 1:
        e = next(iter(texts.values()))
        return ScopePlan(d, kind, text=X.render(e), expr=e, states=states)
    if RESOLVE and len(possible) <= 64:
        e, found = _resolve(d, model, mode, methods, possible, inherited_states, states, list(texts.values()))
        if e is not None:
            return ScopePlan(d, kind, text=X.render(e), authmerging=found, expr=e, states=states)
        later = list({id(s): s for s in found}.values())
    # Several meanings. A scope that only adds Require lines under Satisfy All, where no
    # Require is inherited, keeps the inherited address rules with AuthMerging And.
    # (Not for `Require group` under a DBM group file: which module judged it is a matter of context.)
    group_by_context = uses_dbm_groups(model) and any(line.provider == "group" for line in own.requires or ())
    if kind == "require" and mode == "2.2" and not group_by_context and merges_in_order(d, model):
        if all(
            not inh.requires and all(inh.satisfy_for(m) == "all" for m in methods) for inh in inherited_states
        ):
            own_state = Effective(requires=own.requires or ())
            try:
                e = full_expr(own_state, mode, methods, load_order(model))
            except Inexact:
                e = None
            if e is not None:
                return ScopePlan(d, kind, text=X.render(e), authmerging="And", expr=e, states=states)
    certain, uncertain = predecessors(d, model)
    # Past MAX_UNCERTAIN the chains are one per context (_distinct_chains), not every section that may apply.
    members = certain + uncertain if len(uncertain) > MAX_UNCERTAIN else [p for chain in possible for p in chain]
    labels = sorted({p.label for p in members if p.kind != "server"})
    where = ", ".join(labels[:MAX_NAMED]) + (f" and {len(labels) - MAX_NAMED} more" if len(labels) > MAX_NAMED else "")
    reason = f"its meaning depends on which other sections apply to the request ({where or '?'})"
    if d.kind == "directorymatch" and regex_prefix(d.pattern) is None and (anchored := regex_prefix("^" + d.pattern)):
        # Debian's moodle package: `<DirectoryMatch /usr/share/moodle/>` also matches /var/www/usr/share/moodle/,
        # under every other <Directory>, so it held back every section of the whole server.
        reason += (f" (its regex is not anchored, so it also matches below every other directory: if it means "
                   f"{anchored[0]} only, anchor it as `^{d.pattern}`)")
    why, where = model.unseen
    if d.kind == "location" and any(model.guesses_root(location_url(d) or "/", v) for v in _servers(d, model)):
        reason += f" ({why}: the DocumentRoot of {where} decides which <Directory> its URLs lie in)"
    elif (unreached := model.cache.get("plan.unseen_dirs", {}).get(id(d))) is not None:
        reason += (f" ({why}: an Alias of {where} may put its URLs in {unreached.label}, which this file's "
                   "DocumentRoot and Aliases do not reach)")
    if later:
        named = ", ".join(f"{s.label} ({s.file}:{s.line})" for s in later[:MAX_NAMED])
        reason += (f", and what answers as 2.2 in it would answer otherwise where {named} also "
                   f"{'applies and sets' if len(later) == 1 else 'apply and set'} an AuthType")
    return ScopePlan(d, kind, reason=reason, states=states)


ADD_REQUIRE = ("add the Require lines it needs (`Require all granted` to ask for no authentication, "
               "`Require valid-user` to ask for a user)")


def _authtype_on_24(d: Scope, model: Model, methods: list[str], possible: list[list[Scope]]) -> ScopePlan | None:
    """The plan of a section whose only access line is AuthType, in a configuration that runs on 2.4
    + mod_access_compat: where no Require line applies it answers 500 there (AH01627), and that is
    the answer the migration keeps (2.2's, no authentication, was never this configuration's). A
    rewrite of a section with Order/Allow/Deny/Satisfy that meets it would give it Require lines, so
    that rewrite waits for a person to decide what the section should ask for."""
    try:
        for chain in possible:
            full_expr(fold([*chain, d], "compat"), "compat", methods, load_order(model))
    except Inexact:
        certain, uncertain = predecessors(d, model)
        met = next((p for p in certain + uncertain if p.own.has_compat), None)
        met = met or next(_merged_after(d, model, lambda s: s.own.has_compat), None)
        if met is None:
            return ScopePlan(d, "authtype", reason=ADD_REQUIRE, stays=True)
        return ScopePlan(d, "authtype", reason=f"the 2.4 form of {met.label} ({met.file}:{met.line}) would give it "
                                               f"Require lines, and it would not answer 500 any more; {ADD_REQUIRE}")
    return None  # it answers as what it inherits, and the rewrite of that keeps the answers


REGROUPED_REASON = ("a section merged after it sets a group file or a group module's Authz*Authoritative, "
                    "which changes which 2.2 module judged its Require group lines there")


def _merged_after(d: Scope, model: Model, holds) -> Iterator[Scope]:
    """The sections that may be merged after ``d`` for some request and ``holds(section)``, in order."""
    for s in model.scopes:
        if s is not d and holds(s):
            certain, uncertain = predecessors(s, model)
            if any(p is d for p in certain + uncertain):
                yield s


def regrouped_later(d: Scope, model: Model) -> bool:
    """Whether, with an AuthDBMGroupFile in the configuration, a section merged after ``d`` may hold a
    record of mod_authz_groupfile or mod_authz_dbm (a group file, or only an ``Authz*Authoritative``
    line, which resets the file: :mod:`.authz22`): on 2.2 that changed which module judged the
    ``Require group`` lines ``d`` passes on, which ``d``'s own translation cannot say."""
    return uses_dbm_groups(model) and next(_merged_after(
        d, model, lambda s: any(m in s.own.authz22 for m in ("authz_groupfile", "authz_dbm"))
    ), None) is not None


def later_authtypes(d: Scope, model: Model) -> list[Scope]:
    """The sections that may be merged after ``d`` for some request and set an AuthType, in order.

    Where such a section adds no Require tree of its own (an AuthType alone, or Require lines
    written with ``AuthMerging And|Or``), 2.4 still answers with the form written into ``d``, but
    under that AuthType: a form checked only under the AuthType of ``d``'s own contexts may answer
    otherwise there. Without any AuthType, ``Require valid-user`` and ``Require user carol`` both
    answer 500, so one form looks right for both; a ``<Location>`` that brings ``AuthType Basic``
    tells them apart (seed 30301, index 923 of the random differential run). Sections with Require
    lines of their own count too: whether their translation replaces the inherited tree or joins it
    with an AuthMerging is their own plan's choice, made apart from this one.
    """
    table = model.cache.get("plan.later_authtypes")
    if table is None:
        table = model.cache["plan.later_authtypes"] = {}
        for s in model.scopes:
            if s.own.authtype is not None:
                certain, uncertain = predecessors(s, model)
                for p in certain + uncertain:
                    table.setdefault(id(p), []).append(s)
    return table.get(id(d), [])


def records_after(d: Scope, model: Model) -> Iterator[Scope]:
    """The sections that may be merged after ``d`` for some request and hold a 2.2 authorization
    module's record (an ``Authz*Authoritative``, a group file, an LDAP URL) but no Require lines of their
    own: there ``d``'s lines still apply, judged with that record (no merger, :mod:`.authz22`)."""
    return _merged_after(d, model, lambda s: bool(s.own.authz22) and s.own.requires is None and s.own.authz is None)


def recorded_after(d: Scope, model: Model) -> Scope | None:
    """The first of :func:`records_after`."""
    return next(records_after(d, model), None)


def uses_dbm_groups(model: Model) -> bool:
    """Whether an AuthDBMGroupFile is set anywhere: then 2.2's ``Require group`` may have been judged by
    mod_authz_dbm, which 2.4 names ``Require dbm-group`` (spec §5.1), with or without Order/Allow/Deny."""
    found = model.cache.get("plan.dbm")
    if found is None:
        found = model.cache["plan.dbm"] = any(
            s.own.authz22.get("authz_dbm", authz22.ModuleConf()).configured for s in model.scopes
        )
    return found


def own_expr_24(d: Scope, methods: list[str]) -> X.Expr | None:
    """What the scope's own Require lines mean on pure 2.4 (they replace what is inherited), in the
    plan's form (:func:`full_expr`), so that lines already 2.4 compare equal to what the plan writes."""
    authz = d.own.authz
    if authz is None:
        return None
    return _joined({m: X.simplify(X.for_method(authz, m)) for m in methods}, methods)


@dataclass
class Plan:
    model: Model
    mode: Mode
    methods: list[str]
    scopes: list[ScopePlan]

    @property
    def exact(self) -> bool:
        return all(p.text is not None for p in self.scopes)


def plan_as_read(model: Model) -> Plan:
    """The plan of the model as read: undecided branches count as read (:func:`.worlds.make_plan` checks them)."""
    with gc_paused():
        return _make_plan(model)


def _planned(d: Scope, model: Model, dbm: bool) -> bool:
    """Whether the plan looks at ``d`` at all."""
    if d.kind == "proxy" and not d.own.has_access:
        return False
    if model.has_compat or (d.own.authenticates and d.own.requires is None and d.own.authz is None):
        return True
    # Pure 2.4 (or 2.2 without Order/Allow/Deny/Satisfy): only AuthType needs care, and a
    # `Require group` that 2.2 may have judged with mod_authz_dbm (HT508).
    return dbm and any(line.provider == "group" for line in d.own.requires or ())


def _make_plan(model: Model) -> Plan:
    mode = model.mode
    methods = methods_of(model)
    plans: list[ScopePlan] = []
    invalid = list(model.invalid_lines())
    # Only a configuration still all in 2.2 syntax: once HT508 wrote `Require dbm-group` (2.4 syntax) its
    # other `Require group` lines are 2.4's, and reading them as 2.2 again would translate them twice.
    dbm = mode == "2.2" and not model.has_compat and not model.has_24_syntax and uses_dbm_groups(model)
    asked = [d for d in model.scopes if _planned(d, model, dbm)]
    # The budget counts every pair of sections: not worth it for a configuration with nothing to plan
    # (pure 2.4, the common case of an admission review).
    reason = too_complex(model) if asked else None
    if reason is not None:
        plans = [ScopePlan(d, kind, reason=reason) for d in model.scopes
                 if (kind := plan_kind(d.own, mode)) is not None and (model.has_compat or kind == "authtype")]
        return Plan(model, mode, methods, plans)
    for d in asked:
        p = plan_scope(d, model, mode, methods)
        if p is None:
            continue
        if p.text is not None and p.authmerging is not None and (
                unseen := model.cache.get("plan.left_out", {}).get(id(d))) is not None:
            p.text, p.expr = None, None
            p.reason = MERGES_WITH_UNSEEN.format(merging=p.authmerging, label=unseen.label, where=model.unseen[1])
        if p.text is not None and "group" in p.text and mode == "2.2" and regrouped_later(d, model):
            p.text, p.expr = None, None
            p.reason = REGROUPED_REASON
        if p.kind in ("require", "hybrid") and not d.own.has_compat and p.text is not None and p.authmerging is None:
            # Already 2.4: leave it alone when pure 2.4 gives the same answers.
            own = own_expr_24(d, methods)
            if own is not None and X.render(own) == p.text and not d.own.authmerging:
                continue
        if invalid and p.text is not None:
            _, item, message = invalid[0]
            p.text, p.expr = None, None
            p.reason = f"{item.file}:{item.node.location.line}: {written(item)} is invalid ({message})"
        if p.text is not None and (named := _unregistered_in(p.text, model)):
            method, where = named
            p.text, p.expr = None, None
            known = method_name(method.upper())
            case = f" (method names are case-sensitive: {method} is not {known})" if registered(known) else ""
            p.reason = (f"{where}: <Limit> names {method}, a method httpd registers only because that section "
                        f"names it{case}; 2.4's `Require method {method}` refuses it (\"Invalid Method\") once "
                        "the <Limit> is gone: write the method httpd knows if that was meant, or keep the <Limit> "
                        "section")
        if p.text is not None:
            p.assumes = _assumption(p, model, methods)
        plans.append(p)
    plan = Plan(model, mode, methods, plans)
    check_places(plan)
    return plan


#: :attr:`ScopePlan.assumes` of a section with Require lines that no address rule of the set reaches.
ASSUMES_NO_HOST_RULES = {
    "any": ("this assumes {where} sets no Order/Allow/Deny for its URLs: with Satisfy Any, 2.2 let in without a "
            "password whoever those let in; if it restricts addresses there, write `AuthMerging Or` and the "
            "Require lines instead (it keeps that configuration's 2.4 form)"),
    "all": ("this assumes {where} sets no Order/Allow/Deny for its URLs: 2.2 also required them (Satisfy All), "
            "but 2.4's Require lines here replace that configuration's; if it restricts addresses there, add "
            "`AuthMerging And` (it keeps that configuration's 2.4 form)"),
}


def _assumption(p: ScopePlan, model: Model, methods: list[str]) -> str:
    """What a translation of a file the rest of its server does not show took for granted, for its message.

    A request that meets a Require line and no Order/Allow/Deny in the set met, on 2.2, the address rules in
    effect there: the includer's, inherited; with Satisfy Any they let in without a password, with Satisfy
    All they were required too. The translation writes them as none, which is right under the operator's main
    configuration and under Debian's `Allow from all`; under an includer that restricts addresses, `AuthMerging
    Or` (Any) or `And` (All) keeps them -- and under one with Require lines of its own, which the section's
    replaced on 2.2, would combine with those: no form is right for every includer, so the message says which
    one was assumed (tests/access/test_fragment_satisfy_any.py proves each on apache2).
    """
    if model.whole_server:  # (on 2.4 + mod_access_compat, Require lines are Effective.authz: no note)
        return ""
    satisfied = {state.satisfy_for(m) for state in p.states if state.host == DEFAULT_HOST
                 for m in methods if state.requires_for(m)}
    where = "the server configuration" if htaccess_home(p.scope) is not None else model.unseen[1]
    for value in ("any", "all"):
        if value in satisfied:
            return ASSUMES_NO_HOST_RULES[value].format(where=where)
    return ""


def check_places(plan: Plan) -> None:
    """Take each translation away that no edit can write as planned (a branch inside a <Limit>, a file other
    sections include), saying why. Again once the undecided branches are settled: the worlds' consensus
    gives a section a translation back, and may take one of the sections sharing a file away."""
    misplaced, uneven = plan.model.misplaced, plan.model.unmodelled_skip
    for p in plan.scopes:
        if p.text is not None and uneven is not None:  # the model is not the configuration for some server
            p.text, p.expr = None, None
            p.reason = uneven[1] if uneven[0].file == p.scope.file else skip_problem(plan.model)
        if p.text is not None and misplaced is not None:
            item, refusal = misplaced
            p.text, p.expr = None, None
            p.reason = (f"{item.file}:{item.node.location.line}: {written(item)} stands where httpd refuses it "
                        f"(\"{refusal.says}\", HT409), so there are no answers of today to keep: move it first")
        if p.text is not None and (limited := limited_branch(p.scope)) is not None:
            p.text, p.expr, p.reason = None, None, limited
        if p.text is not None and (refused := refused_by_override(p.scope, p.text, plan.model)) is not None:
            p.text, p.expr, p.reason = None, None, refused
    agree_on_shared(plan)


def refused_by_override(d: Scope, text: str, model: Model) -> str | None:
    """Why ``text`` cannot be written in ``d``: it stands in an .htaccess file whose AllowOverride keeps one of
    its lines out, so httpd would answer 500 to every request under the file. 2.4's Require lines, their
    containers and AuthMerging need AuthConfig, where the Order/Allow/Deny they replace needed Limit (measured:
    tests/access/test_allowoverride.py). Widening the AllowOverride lets the file set more than its access
    control (authentication: AuthConfig), so the change is a person's."""
    home = htaccess_home(d)
    if home is None or home.dirpath is None:
        return None
    directory = home.dirpath
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("</"):
            continue
        key = words[0].rstrip(">").lower()
        at = next((at for at in model.allowoverrides_at(directory) if at is not None and keeps_out(at, key)), None)
        if at is not None:
            section = at.in_section("directory")
            where = f", <{section.name} {' '.join(section.args)}>" if section is not None else ""
            needs = " or ".join(override_classes().get(key, ()))
            name = words[0].lstrip("<")
            outcome = (f"httpd would skip it (Nonfatal=Override) and its access control would not apply under {directory}"
                       if override_of(at).nonfatal else
                       f"every request under {directory} would answer 500 (\"{name} not allowed here\")")
            return (f"{name} needs AllowOverride {needs} in an .htaccess file (2.4's Require, its "
                    f"containers and AuthMerging, as 2.2's Require and Satisfy), and {written(at)} ({at.file}:"
                    f"{at.node.location.line}{where}) does not let it in: written here, {outcome}; add {needs} to "
                    f"that AllowOverride if this file may set authentication too, then migrate again")
    return None


def limited_branch(d: Scope) -> str | None:
    """Why the translation of ``d`` has no place, when all its access lines sit in an undecided branch inside a
    <Limit>: it is written in the branch (it holds only where the branch is read), where the <Limit> would
    keep it from every other method, while the translation says for itself which methods it is for."""
    branch = d.branch
    for items in d.own.items.values():
        for item in items:
            inside = item.context[next((n + 1 for n, s in enumerate(item.context) if s is d.node), 0):]
            at = next((n for n, s in enumerate(inside) if s is branch), None)
            limit = next((s for s in inside[:at] if s.key in ("limit", "limitexcept")), None) if at else None
            if limit is not None:
                return (f"{item.file}:{limit.location.line}: its access lines sit in {_label(branch)} inside "
                        f"{_label(limit)}: their translation belongs inside the first (it holds only where that is "
                        f"read) but outside the second (it names its methods itself); put the {_label(branch)} "
                        f"around the {_label(limit)} first")
    return None


def _label(section: Section) -> str:
    return f"<{' '.join((section.name, *section.args))}>"


@dataclass
class Sharing:
    """Sections that read the same access lines: a file each of them includes, which one edit changes for all."""

    scopes: list[Scope]
    #: The first line they share, as "file:line", and the Include lines that read it.
    line: str
    includes: str

    def problem(self, texts: list[str | None]) -> str | None:
        """Why one edit cannot write the translation ``texts`` (one per section) for all of them, or None: every
        section's access lines are the shared ones and no section reads them twice, and it is one text."""
        lines = [[id(i.node) for items in s.own.items.values() for i in items] for s in self.scopes]
        if len(self.scopes) < 2 or any(len(set(mine)) != len(mine) for mine in lines):
            return "and the same section reads its lines more than once"
        if any(set(mine) != set(lines[0]) for mine in lines):
            return "and the sections that include it have access lines of their own besides it"
        if len(set(texts)) > 1:  # None: a section left as it is, or one that needs a person
            return "and they need different translations"
        return None

    def reason(self, problem: str) -> str:
        return (f"{self.line}: a file included by more than one section ({self.includes}), {problem}, while one "
                "edit there changes all of them: copy its lines into each section first")


def sharings(model: Model) -> list[Sharing]:
    """The groups of sections that read the same access lines (a file several sections include)."""
    readers: dict[int, list[tuple[Scope, Item]]] = {}
    for scope in model.scopes:
        for items in scope.own.items.values():
            for item in items:
                readers.setdefault(id(item.node), []).append((scope, item))
    groups: list[Sharing] = []
    for found in readers.values():
        if len(found) < 2:
            continue
        joined = [g for g in groups if any(s is t for s, _ in found for t in g.scopes)]
        if joined:
            group = joined[0]
            for other in joined[1:]:
                group.scopes += other.scopes
                groups.remove(other)
        else:
            first = found[0][1]
            group = Sharing([], f"{first.file}:{first.node.location.line}", ", ".join(dict.fromkeys(
                f"{i.via[-1].document.name}:{i.via[-1].location.line}" if i.via else i.file for _, i in found)))
            groups.append(group)
        group.scopes += [s for s, _ in found if all(s is not t for t in group.scopes)]
    return groups


def agree_on_shared(plan: Plan) -> None:
    """Keep the translation of sections that read the same access lines only where one edit of those lines
    writes it for all of them (:meth:`Sharing.problem`): the sections that need a person say why."""
    by_scope = {id(p.scope): p for p in plan.scopes}
    for sharing in sharings(plan.model):
        plans = [by_scope.get(id(s)) for s in sharing.scopes]
        if all(p is None or p.text is None for p in plans):
            continue
        texts = [None if p is None or p.text is None else f"{p.authmerging}\n{p.text}" for p in plans]
        problem = sharing.problem(texts)
        for p in plans:
            if problem is not None and p is not None and p.text is not None:
                p.text, p.expr, p.reason = None, None, sharing.reason(problem)


def _unregistered_in(text: str, model: Model) -> tuple[str, str] | None:
    """(method, where a <Limit> names it) for a ``Require method`` line of ``text`` naming a method
    httpd does not know by itself."""
    for line in text.splitlines():
        words, raws, _ = tokenize(line)  # a quoted method name (`<Limit "GET POST">`) is one word
        if "method" not in words[:3] or words[0].lower() != "require":
            continue
        at = words.index("method") + 1
        for name, raw in zip(words[at:], raws[at:]):
            if not registered(name):
                return raw, _limit_naming(name, model)
    return None


def _limit_naming(method: str, model: Model) -> str:
    for scope in model.scopes:
        for items in scope.own.items.values():
            for item in items:
                for section in item.context:
                    if section.key in ("limit", "limitexcept") and method in section.args:
                        return f"{item.file}:{section.location.line}"
    return "a <Limit> section"


# -- semantic comparison (used when renderings differ) ------------------------------------------


@dataclass(frozen=True)
class _Sample:
    """Requests that tell apart every combination of the Require lines of the forms compared: every
    client address, host name, variable set, user and method of :func:`_sample`, in every combination.

    The combinations are :meth:`requests`; :class:`_Answers` checks them one value at a time."""

    clients: tuple[str, ...]
    hostnames: tuple[str | None, ...]
    envs: tuple[frozenset[str], ...]
    #: (user, password ok, groups, DBM groups: None for the same as groups)
    who: tuple[tuple[str | None, bool, frozenset[str], frozenset[str] | None], ...]
    methods: tuple[str, ...]

    def requests(self) -> list:
        """Every combination, one request each: what :class:`_Answers` stands for, to check it by."""
        from .model import Request

        return [Request("/", method=method, client=client, hostname=hostname, env=env, user=user,
                        password_ok=ok, groups=grp, dbm_groups=dbm)
                for client in self.clients for hostname in self.hostnames for env in self.envs
                for user, ok, grp, dbm in self.who for method in self.methods]


def _sample(exprs: Iterable[X.Expr | None], methods: list[str], dbm_groups: bool) -> _Sample:
    """The requests that tell apart every combination of the Require lines of ``exprs``: the forms compared.

    Only their own addresses, names, variables and users: one built from every line of the configuration
    grew with each Allow line elsewhere (seconds per section). A value no compared line names answers as
    the sample's own "other" ones do."""
    import ipaddress

    from .model import KNOWN_METHODS

    clients = {"127.0.0.1", "203.0.113.77", "2001:db8:ffff::9"}
    hosts: set[str | None] = {None, "unrelated.test"}
    envs: set[str] = set()
    users: set[str] = {"zz-other"}
    groups: set[str] = set()
    named_methods: set[str] = set()

    def network(family: int, net: int, mask: int) -> None:
        """Its first and last address and those just outside it."""
        bits = 32 if family == 4 else 128
        full = (1 << bits) - 1
        last = net | (full & ~mask)
        for value in (net, last, (net - 1) & full, (last + 1) & full):
            clients.add(str(ipaddress.IPv4Address(value) if family == 4 else ipaddress.IPv6Address(value)))

    def domain(name: str) -> None:
        hosts.add(name.lstrip("."))
        hosts.add("x." + name.lstrip("."))

    for expr in exprs:
        for leaf in X.leaves(expr):
            provider, args = leaf.provider, leaf.args
            if provider == "ip":
                for word in args:
                    left, _, right = word.partition("/")
                    try:
                        network(*ipsubnet(left, right or None))
                    except Exception:  # noqa: BLE001 - not an address: httpd refuses the line at start-up
                        continue
            elif provider == "host":
                for name in args:
                    domain(name)
            elif provider == "env":
                envs.update(args)
            elif provider == "method":
                named_methods.update(method_name(a) for a in args)
            elif provider in ("user", "ldap-user", "dbm-user"):
                users.update(args)
            elif provider in ("group", "dbm-group", "ldap-group"):
                groups.update(args)
    env_sets = _some_subsets(envs)
    named = sorted({m for m in methods if m != OTHER} | named_methods)
    other = next((m for m in KNOWN_METHODS if m not in named), "MKCOL")
    method_names = named + [other]
    # (user, password ok, groups, DBM groups: None for the same as groups). Every user in the groups too: a named
    # user may be a member (the mixed test, seed 303997424 index 22: `Require user bob carol alice` and the same
    # AND `Require user bob carol` told apart only by an alice in group staff).
    group_sets = _some_subsets(groups)
    nobody: frozenset[str] = frozenset()
    who = [(None, True, nobody, None)] + [(u, True, gs, None) for u in sorted(users) for gs in group_sets]
    who += [("zz-other", False, nobody, None)]
    if dbm_groups:  # a member of only one of the two files tells `group` from `dbm-group`
        who += [("zz-other", True, frozenset({g}), nobody) for g in sorted(groups)]
        who += [("zz-other", True, nobody, frozenset({g})) for g in sorted(groups)]
    return _Sample(tuple(sorted(clients)), tuple(hosts), tuple(env_sets), tuple(who), tuple(method_names))


#: Up to this many names, every set of them is in the request sample (64 sets).
_ALL_SUBSETS_UP_TO = 6


def _some_subsets(names: set[str]) -> list[frozenset[str]]:
    """Sets of ``names`` a request may hold (variables set, groups a user is in): every one of them up to
    :data:`_ALL_SUBSETS_UP_TO` names, else those of at most two names and all but at most two.

    None, each alone and all were once enough past three names, but `<RequireAll>` of `Require group g1 g2`,
    `Require group g3 g4` and `Require group g5 g6` and the same without its last line answer those alike
    (tests/access/test_differential_mixed.py GROUP_CLAUSES: the shorter one was written for both)."""
    ordered = sorted(names)
    if len(ordered) <= _ALL_SUBSETS_UP_TO:
        sizes = range(len(ordered) + 1)
    else:
        sizes = sorted({0, 1, 2, len(ordered) - 2, len(ordered) - 1, len(ordered)})
    return [frozenset(c) for n in sizes for c in itertools.combinations(ordered, n)]


#: The Require providers each step of :class:`_Answers` answers, with the request field they read.
_STEPS = (
    (frozenset({"ip", "local", "all"}), "client"),
    (frozenset({"host"}), "hostname"),
    (frozenset({"env"}), "env"),
)


class _Answers:
    """Each form's answers to the sample, computed once: a section compares a few candidate forms
    with the form wanted in each of its contexts, and each pair recomputed both sides.

    The sample is the product of the addresses, host names and variables the forms name (and their
    users and methods): checked one request at a time, 16 Allow/Deny lines in a virtual host cost 16
    times what 4 did (1.7 million evaluations, 3.5 s of lint). So the client address is fixed first,
    each value turning the form into what is left of it (:func:`.expr.restrict`), then the host name,
    then the variables; what is left is the same tree for most values, and each distinct tree is
    answered on the rest of the sample once. Answers are numbered at each step (equal numbers: equal
    answers to every request below), so two forms answer the whole sample alike exactly when their
    numbers are equal."""

    def __init__(self, sample: _Sample) -> None:
        from .model import Request

        self.sample = sample
        self._known: dict[tuple[int, str | None], int] = {}
        self._kept: list[X.Expr | None] = []  # the forms keyed by id(), alive as long as their answers
        self._steps = [(providers, [Request("/", **{name: value}) for value in getattr(sample, name + "s")])
                       for providers, name in _STEPS]
        self._last = [Request("/", method=method, user=user, password_ok=ok, groups=grp, dbm_groups=dbm)
                      for user, ok, grp, dbm in sample.who for method in sample.methods]
        self._left: list[dict[tuple, int]] = [{} for _ in range(len(_STEPS) + 1)]
        self._numbers: list[dict[tuple, int]] = [{} for _ in range(len(_STEPS) + 1)]

    def of(self, e: X.Expr | None, authtype: str | None) -> int:
        key = (id(e), authtype)
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = self._number(e, authtype, 0)
            self._kept.append(e)
        return found

    def _number(self, e: X.Expr | None, authtype: str | None, step: int) -> int:
        """The number of the answers of ``e`` (what is left of a form once the steps before are fixed)."""
        key = (e, authtype)
        left = self._left[step]
        try:
            found = left.get(key)
        except TypeError:  # a tree built with unhashable parts (as expr.simplify allows): not kept
            left, found = {}, None
        if found is None:
            if step == len(self._steps):
                answers = tuple(X.decide24(e, authtype, r) for r in self._last)
            else:
                providers, requests = self._steps[step]
                answers = tuple(self._number(X.restrict(e, providers, r), authtype, step + 1) for r in requests)
            numbers = self._numbers[step]
            found = numbers.setdefault(answers, len(numbers))
            if left is self._left[step]:
                left[key] = found
        return found

    def equivalent(self, a: X.Expr | None, b: X.Expr | None, authtype: str | None) -> bool:
        return self.of(a, authtype) == self.of(b, authtype)


def _resolve(d, model, mode, methods, possible, inherited_states, states, candidates):
    """A single 2.4 form for a scope whose meaning differs with the sections around it:
    (the form, its AuthMerging), or (None, the later sections whose AuthType alone refused a form).

    Tried in order: one of the full forms if every context gives equivalent answers;
    ``AuthMerging And`` / ``Or`` with the scope's own settings over what 2.4 inherits
    (the inherited full form of the context, or nothing when no access section applies).
    Each candidate is checked on every context against a request sample covering every
    address, host, variable, user and method the configuration names, under the context's
    AuthType and under each one a later section may bring (:func:`later_authtypes`): the
    form written here is what those sections' requests meet too, and their plans count on
    it answering as 2.2's settings do.
    """
    try:
        order = load_order(model)
        wanted = [full_expr(s, mode, methods, order) for s in states]
        previous = []
        for chain, inh in zip(possible, inherited_states):
            if any(p.own.has_access for p in chain):
                previous.append(full_expr(inh, mode, methods, order))
            else:
                previous.append(None)
        own_only = full_expr(merge(Effective(), d.own, mode), mode, methods, order)
    except Inexact:
        return None, []
    answers = _Answers(_sample([*candidates, *wanted, *previous, own_only], methods, uses_dbm_groups(model)))
    authtypes = [s.authtype for s in states]
    later = later_authtypes(d, model)
    blocking: list[Scope] = []

    def alike(e: X.Expr | None, w: X.Expr | None, a: str | None) -> bool:
        if not answers.equivalent(e, w, a):
            return False
        for s in later:
            b = authenticating(s.own.authtype)  # `AuthType None` counts: it leaves no type
            if b != a and not answers.equivalent(e, w, b):
                blocking.append(s)
                return False
        return True

    for e in candidates:
        if all(alike(e, w, a) for w, a in zip(wanted, authtypes)):
            return e, None
    if not merges_in_order(d, model) or any(_gets_require_all_granted(p) for chain in possible for p in chain):
        return None, blocking
    if inherited_hosts_unknown(d, model):
        return None, blocking  # what 2.4 inherits is not known here
    for op, combine in (("And", X.All), ("Or", X.AnyOf)):
        ok = True
        for prev, w, a in zip(previous, wanted, authtypes):
            got = own_only if prev is None else combine((prev, own_only))
            if not alike(got, w, a):
                ok = False
                break
        if ok:
            return own_only, op
    return None, blocking

"""The modules a configuration needs on httpd 2.4, exactly.

``required_modules(configset)`` reads the configuration as httpd would on the
target (the :class:`~httpd24.config.View`) and names every module a live
directive needs: the directive -> module table generated from the real binary
(``engine/data/directives.tsv``), plus the requirements the table cannot show
because they hide in arguments or in other modules' start-up code:

* an MPM (the one the configuration loads, else the one its unconditional MPM
  directives need -- 2.2's prefork-only ``MinSpareServers``/``MaxSpareServers``,
  a ``Mutex`` for ``mpm-accept`` (prefork, or worker with threaded settings)
  -- else prefork when it loads mod_php (not thread-safe: the 2.2 server ran
  prefork) -- else the one MPM it tunes in ``<IfModule prefork.c>``-style blocks, as
  2.2 compiled its MPM in and ran that one -- else ``event``, under which
  HT407 reports the MPM blocks nothing reads);
* providers named in arguments: ``Require user|group|ip|...``,
  ``AuthBasicProvider file|dbm|ldap...``, ``AuthType Basic|Digest|Form`` (and
  the default ``file`` provider), ``Dav On`` (provider ``filesystem``),
  socache types of ``SSLSessionCache shmcb:...`` and friends, filters of
  ``AddOutputFilterByType`` / ``SetOutputFilter`` / ``AddOutputFilter``,
  handlers of ``SetHandler`` / ``AddHandler``, proxy schemes of ``ProxyPass``,
  ``BalancerMember`` and ``RewriteRule [P]`` URLs, balancers (mod_proxy_balancer,
  an lbmethod module -- the one ``lbmethod=`` names, default ``byrequests`` --
  and mod_slotmem_shm), ``%I``/``%O``/``%S`` in log formats (mod_logio),
  mutex names of ``Mutex`` (a module registers its names at start-up; ``Mutex
  default rewrite-map`` fails "Mutex type rewrite-map is not valid" without
  mod_rewrite; ``mpm-accept`` exists only under prefork and worker, so it
  chooses one of them);
* mod_authz_core, always: without it every request fails with 500 (AH00025
  "configuration error: couldn't check user"), whatever the configuration;
* modules other modules cannot load or start without (mod_cache for
  mod_cache_disk, mod_proxy for every mod_proxy_*, mod_ldap for
  mod_authnz_ldap, ...).

Every requirement carries its reasons: where, which directive, and *when* its
absence shows:

* ``"configtest"`` -- ``apache2 -t`` fails without the module (Invalid command,
  Unknown Authz provider, unknown socache, a shared object that cannot load);
* ``"startup"`` -- ``-t`` passes but the server does not start (post-config
  checks, e.g. mod_proxy_balancer without mod_slotmem_shm, AH01177);
* ``"runtime"`` -- the server starts but requests fail or behave differently
  (a handler or filter name, a proxy scheme, the default authn provider, an
  ``<IfModule>`` that tests the module: httpd reads the other branch, which
  ``-t`` notices only where that branch does not parse).

Files of the set named like ``AccessFileName`` (``.htaccess``) that nothing includes
count too, as ``runtime`` reasons: httpd reads them per request.

A reason is ``guarded`` when the directive sits inside ``<IfModule>`` of the
very module it needs: without the module httpd skips the block silently, so
``-t`` cannot notice, but the block's settings are lost. Its ``guards`` name
every module whose positive ``<IfModule>`` encloses the directive (for a module
another one cannot do without, that other module): the reason holds only where
all of them are loaded. ``<IfModule mod_cache.c> CacheRoot /tmp`` needs
mod_cache_disk only where mod_cache is loaded, so a configuration that
chooses its own modules and does not load mod_cache needs neither (HT404). A reason is
``conditional`` when the directive sits in a branch this analysis cannot
decide (``<IfDefine X>`` without known defines): it is needed when the server
is started with that define. Such a module is still listed, and loading it wakes
its own ``<IfModule>`` blocks up: what they need then is listed too, conditional
as well; and what its ``<IfModule !...>`` blocks need only without it is conditional
too (``--define`` decides them all).

How ``<IfModule>`` is decided (a fixpoint): httpd decides each ``<IfModule>``
by what is loaded, and what is loaded is what we are computing. We start from
the modules loaded before the configuration (the target's), those the
configuration loads itself, the chosen MPM, ``mod_authz_core`` (a 2.4
configuration's ``<IfModule !mod_authz_core.c>`` is its 2.2 branch) and every
module a positive ``<IfModule>`` tests; compute the requirements of what is
then live; and repeat with exactly the required modules until nothing changes.
So an ``<IfModule mod_x.c>`` block requires mod_x only if it uses mod_x
itself (an ``<IfModule mod_php5.c> DirectoryIndex index.php`` requires neither
mod_php5 nor mod_dir), and the final list makes every ``<IfModule>`` come out
exactly as the analysis read it. A module the configuration loads with
``LoadModule`` and tests with ``<IfModule>`` stays required (dropping it would
change what httpd reads); one it loads but never uses is listed in
``unused``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Iterable, NamedTuple

from ..apache import table
from ..config import DEFAULT_TARGET, ConfigSet, Directive, Item, Liveness, Section, Target, module_identifier, options
from ..config.gcpause import gc_paused
from ..config.target import REMOVED_IN_24

__all__ = [
    "CONFIGTEST",
    "DEBIAN_BUILTIN",
    "DEBIAN_MODULE_DIR",
    "IMAGE_BUILTIN",
    "Module",
    "ModuleRequirements",
    "Reason",
    "RUNTIME",
    "STARTUP",
    "required_modules",
]

CONFIGTEST = "configtest"
STARTUP = "startup"
RUNTIME = "runtime"
_WHEN_RANK = {RUNTIME: 0, STARTUP: 1, CONFIGTEST: 2}

#: Compiled into every httpd 2.4 (never LoadModule'd).
ALWAYS = frozenset({"core_module", "http_module", "so_module"})
DEFAULT_MPM = "mpm_event_module"
_MPMS = ("mpm_event_module", "mpm_prefork_module", "mpm_worker_module")


def _builtin(which: str) -> frozenset[str]:
    mods = table.modules()
    if which == "debian":
        return frozenset(m.identifier for m in mods.values() if m.debian_builtin)
    return frozenset(m.identifier for m in mods.values() if m.image_builtin)


#: Modules compiled into the official ``httpd:2.4`` image (core, mod_so, http_core).
IMAGE_BUILTIN = _builtin("image")
#: Modules compiled into Debian's ``apache2`` (those plus log_config, logio, unixd, version, watchdog).
DEBIAN_BUILTIN = _builtin("debian")
#: Where Debian's (and Ubuntu's) apache2 keeps its modules: LoadModule lines from there are for that build.
DEBIAN_MODULE_DIR = "/usr/lib/apache2/modules"


class Reason(NamedTuple):
    """Why a module is needed: ``(file, line, directive, when, note)``.

    ``directive`` is the directive as written with its arguments, shortened;
    ``when`` is ``"configtest"``, ``"startup"`` or ``"runtime"`` (see the module
    docstring); ``note`` says what exactly needs the module.
    """

    file: str
    line: int
    directive: str
    when: str = CONFIGTEST
    note: str = ""
    guarded: bool = False
    conditional: bool = False
    #: The modules that must all be loaded for this reason to hold: those of the positive ``<IfModule>``
    #: sections around the directive; for a module another one needs, that one. Sorted.
    guards: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file else ""
        extra = []
        if self.guarded:
            extra.append("inside <IfModule> of this module")
        if self.conditional:
            extra.append("conditional branch")
        tail = f" [{self.when}{'; ' + '; '.join(extra) if extra else ''}]"
        return f"{where}{self.directive}{' -- ' + self.note if self.note else ''}{tail}"


@dataclass
class Module:
    """One module to load: identifier, source file, shared object, and why."""

    name: str  # "unixd_module" (the LoadModule identifier)
    file: str  # "mod_unixd.c" (what <IfModule> and -l use); "" when unknown
    so: str  # "mod_unixd.so"
    reasons: list[Reason] = field(default_factory=list)
    #: Not part of httpd 2.4 (loaded by the configuration's own LoadModule): rebuild it for 2.4.
    third_party: bool = False

    @property
    def when(self) -> str:
        """The earliest moment the module's absence shows (see :data:`Reason.when`)."""
        best = RUNTIME
        for reason in self.reasons:
            if _WHEN_RANK[reason.when] > _WHEN_RANK[best]:
                best = reason.when
        return best

    @property
    def checked_by_configtest(self) -> bool:
        """True when ``apache2 -t`` fails without this module (an unguarded, unconditional configtest reason)."""
        return any(r.when == CONFIGTEST and not r.guarded and not r.conditional for r in self.reasons)

    @property
    def is_mpm(self) -> bool:
        return self.name.startswith("mpm_")


@dataclass
class ModuleRequirements:
    """The result of :func:`required_modules`."""

    modules: list[Module]
    #: Modules the configuration loads with LoadModule (live) that nothing uses, in load order.
    unused: list[str] = field(default_factory=list)
    #: Live directives no 2.4 module provides (removed in 2.4, or third-party): (file, line, directive).
    unknown: list[Reason] = field(default_factory=list)
    mpm: str = DEFAULT_MPM

    def names(self) -> list[str]:
        return [m.name for m in self.modules]

    def get(self, name: str) -> Module | None:
        name = module_identifier(name)
        return next((m for m in self.modules if m.name == name), None)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self):
        return iter(self.modules)

    def __len__(self) -> int:
        return len(self.modules)

    def to_load(self, *, builtin: Iterable[str] | str | None = None) -> list[Module]:
        """The modules to LoadModule, in load order, without those compiled into the binary.

        ``builtin``: None or ``"image"`` for the official ``httpd:2.4`` image
        (only core.c, mod_so.c, http_core.c built in); ``"debian"`` for
        Debian's apache2; or the identifiers (``unixd_module``) / source files
        (``mod_unixd.c``) ``httpd -l`` lists.
        """
        skip = _builtin_set(builtin)
        return [m for m in self.modules if m.name not in skip and m.file not in skip]

    def load_lines(self, module_dir: str = "modules", *, builtin: Iterable[str] | str | None = None) -> str:
        """``LoadModule`` lines, the MPM first, each module after those it depends on."""
        module_dir = module_dir.rstrip("/")
        lines = []
        for m in self.to_load(builtin=builtin):
            path = f"{module_dir}/{m.so}" if module_dir else m.so
            if any(c.isspace() for c in path) or '"' in path:
                path = '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'
            lines.append(f"LoadModule {m.name} {path}")
        return "\n".join(lines) + ("\n" if lines else "")


def _builtin_set(builtin: Iterable[str] | str | None) -> frozenset[str]:
    if builtin is None or builtin == "image":
        return IMAGE_BUILTIN | ALWAYS
    if builtin == "debian":
        return DEBIAN_BUILTIN | ALWAYS
    if isinstance(builtin, str):
        builtin = [builtin]
    out = set(ALWAYS)
    for name in builtin:
        out.add(name)
        out.add(module_identifier(name))
    return frozenset(out)


# ---------------------------------------------------------------------------------------------
# knowledge that is not in the directive table

#: Modules that cannot be loaded (undefined symbols) or cannot start without another one.
#: (dependent, dependency, when, why) -- the configtest ones were measured with apache2 -t.
DEPENDENCIES: tuple[tuple[str, str, str, str], ...] = (
    ("cache_disk_module", "cache_module", CONFIGTEST, "mod_cache_disk.so needs symbols of mod_cache"),
    ("cache_socache_module", "cache_module", CONFIGTEST, "mod_cache_socache.so needs symbols of mod_cache"),
    ("dav_fs_module", "dav_module", CONFIGTEST, "mod_dav_fs.so needs symbols of mod_dav"),
    ("dav_lock_module", "dav_module", CONFIGTEST, "mod_dav_lock.so needs symbols of mod_dav"),
    ("session_cookie_module", "session_module", CONFIGTEST, "mod_session_cookie.so needs symbols of mod_session"),
    ("session_crypto_module", "session_module", CONFIGTEST, "mod_session_crypto.so needs symbols of mod_session"),
    ("session_dbd_module", "session_module", CONFIGTEST, "mod_session_dbd.so needs symbols of mod_session"),
    ("authnz_ldap_module", "ldap_module", STARTUP, "mod_authnz_ldap refuses to start without mod_ldap (AH01749)"),
    ("proxy_balancer_module", "slotmem_shm_module", STARTUP,
     "mod_proxy_balancer looks up the 'shm' slotmem provider at start-up (AH01177)"),
    ("proxy_hcheck_module", "watchdog_module", STARTUP, "mod_proxy_hcheck runs on mod_watchdog"),
    ("auth_form_module", "session_module", RUNTIME, "mod_auth_form keeps the login in a mod_session session"),
    ("auth_form_module", "request_module", RUNTIME, "mod_auth_form reads the login form body with mod_request"),
    ("proxy_html_module", "xml2enc_module", RUNTIME, "mod_proxy_html uses mod_xml2enc for character sets"),
    ("lbmethod_heartbeat_module", "heartmonitor_module", RUNTIME, "lbmethod=heartbeat reads mod_heartmonitor's data"),
)
_PROXY_SUBMODULES = (
    "proxy_ajp_module", "proxy_balancer_module", "proxy_connect_module", "proxy_express_module", "proxy_fcgi_module",
    "proxy_fdpass_module", "proxy_ftp_module", "proxy_hcheck_module", "proxy_http_module", "proxy_http2_module",
    "proxy_scgi_module", "proxy_uwsgi_module", "proxy_wstunnel_module",
)
DEPENDENCIES += tuple(
    (m, "proxy_module", CONFIGTEST, f"mod_{m[:-7]}.so needs symbols of mod_proxy") for m in _PROXY_SUBMODULES
)

#: Proxy URL scheme -> the module that handles it (looked up per request).
PROXY_SCHEMES = {
    "http": "proxy_http_module",
    "https": "proxy_http_module",
    "ajp": "proxy_ajp_module",
    "fcgi": "proxy_fcgi_module",
    "scgi": "proxy_scgi_module",
    "ws": "proxy_wstunnel_module",
    "wss": "proxy_wstunnel_module",
    "ftp": "proxy_ftp_module",
    "uwsgi": "proxy_uwsgi_module",
    "h2": "proxy_http2_module",
    "h2c": "proxy_http2_module",
    "balancer": "proxy_balancer_module",
}

#: Authz providers of ``Require`` (looked up while reading the config: "Unknown Authz provider").
AUTHZ_PROVIDERS = {
    "all": "authz_core_module",
    "env": "authz_core_module",
    "method": "authz_core_module",
    "expr": "authz_core_module",
    "user": "authz_user_module",
    "valid-user": "authz_user_module",
    "group": "authz_groupfile_module",
    "ip": "authz_host_module",
    "host": "authz_host_module",
    "local": "authz_host_module",
    "forward-dns": "authz_host_module",
    "file-owner": "authz_owner_module",
    "file-group": "authz_owner_module",
    "dbm-group": "authz_dbm_module",
    "dbm-file-group": "authz_dbm_module",
    "dbd-group": "authz_dbd_module",
    "dbd-login": "authz_dbd_module",
    "dbd-logout": "authz_dbd_module",
    "ldap-user": "authnz_ldap_module",
    "ldap-group": "authnz_ldap_module",
    "ldap-dn": "authnz_ldap_module",
    "ldap-attribute": "authnz_ldap_module",
    "ldap-filter": "authnz_ldap_module",
    "ldap-search": "authnz_ldap_module",
    "ssl": "ssl_module",
    "ssl-verify-client": "ssl_module",
}


#: The 2.2 authorization modules that decline without one directive (no group file, no LDAP URL):
#: directive key -> module. A section holding any of their directives had a record of its own
#: without that setting (no merger): HT103 and the access model (:mod:`httpd24.access.authz22`).
AUTHZ22_CONFIGURING_KEYS = {
    "authgroupfile": "authz_groupfile",
    "authdbmgroupfile": "authz_dbm",
    "authldapurl": "authnz_ldap",
}


def require_family(kind: str) -> str | None:
    """Which kind of 2.2 authorization module reads a ``Require`` line of this kind (2.4 names included).

    2.2 ran one module per family as an ``auth_checker`` hook; lines of different families in one
    section were not "any of them" there (HT103, HT507).
    """
    if kind in ("user", "valid-user", "dbm-user"):
        return "user"
    if kind in ("group", "dbm-group"):
        return "group"
    if kind in ("file-owner", "file-group"):
        return "owner"
    if kind.startswith("ldap-"):
        return "ldap"
    return None


#: Authn providers of ``AuthBasicProvider`` / ``AuthDigestProvider`` / ``AuthFormProvider``.
AUTHN_PROVIDERS = {
    "file": "authn_file_module",
    "dbm": "authn_dbm_module",
    "dbd": "authn_dbd_module",
    "anon": "authn_anon_module",
    "ldap": "authnz_ldap_module",
    "socache": "authn_socache_module",
}

#: ``AuthType`` value -> the module that implements it (checked per request: "couldn't check user").
AUTH_TYPES = {"basic": "auth_basic_module", "digest": "auth_digest_module", "form": "auth_form_module"}

#: socache provider names (``SSLSessionCache shmcb:...``; looked up while reading the config).
SOCACHE = {
    "shmcb": "socache_shmcb_module",
    "shm": "socache_shmcb_module",  # 2.2 name (HT2xx rewrites it to shmcb)
    "shmht": "socache_shmcb_module",  # 2.2 name
    "dbm": "socache_dbm_module",
    "dc": "socache_dc_module",
    "memcache": "socache_memcache_module",
    "redis": "socache_redis_module",
}
_SOCACHE_DIRECTIVES = frozenset(
    {"sslsessioncache", "sslstaplingcache", "authncachesocache", "cachesocache", "sslocspresponsecache"}
)

#: Output/input filter names registered by standard modules (upper-case; httpd compares case-insensitively).
FILTERS = {
    "DEFLATE": "deflate_module",
    "INFLATE": "deflate_module",
    "BROTLI_COMPRESS": "brotli_module",
    "INCLUDES": "include_module",
    "SUBSTITUTE": "substitute_module",
    "SED": "sed_module",
    "PROXY-HTML": "proxy_html_module",
    "XML2ENC": "xml2enc_module",
    "XLATEOUT": "charset_lite_module",
    "XLATEIN": "charset_lite_module",
    "BUFFER": "buffer_module",
    "RATE_LIMIT": "ratelimit_module",
    "DATA": "data_module",
    "KEPT_BODY": "request_module",
    "KEEP_BODY": "request_module",
    "BUCKETEER": "bucketeer_module",
    "CASE_FILTER": "case_filter_module",
    "CASE_FILTER_IN": "case_filter_in_module",
    "DUMPIO_OUT": "dumpio_module",
    "DUMPIO_IN": "dumpio_module",
    "SSL/TLS FILTER": "ssl_module",
    "DIALUP": "dialup_module",
}
_CORE_FILTERS = frozenset(
    {"BYTERANGE", "CONTENT_LENGTH", "HTTP_HEADER", "HTTP_OUTERROR", "CHUNK", "NET_TIME", "CORE", "CORE_IN",
     "OLD_WRITE", "PROTOCOLS", "HTTP_IN", "EOR", "REQTIMEOUT"}
)

#: Handler names registered by standard modules.
HANDLERS = {
    "server-status": "status_module",
    "server-info": "info_module",
    "ldap-status": "ldap_module",
    "balancer-manager": "proxy_balancer_module",
    "cgi-script": None,  # mod_cgi or mod_cgid, by MPM
    "imap-file": "imagemap_module",
    "type-map": "negotiation_module",
    "send-as-is": "asis_module",
    "server-parsed": "include_module",
    "lua-script": "lua_module",
    "reflector": None,  # needs ReflectorHeader (mod_reflector's directive) anyway
    "http2-status": "http2_module",
    "md-status": "md_module",
    "webdav": "dav_module",
}
_NO_MODULE_HANDLERS = frozenset({"default-handler", "none", "", "default"})

#: MPM directives only one kind of MPM has (the table: prefork vs event/worker).
_PREFORK_ONLY = frozenset({"minspareservers", "maxspareservers"})
_THREADED_ONLY = frozenset({"threadsperchild", "minsparethreads", "maxsparethreads", "threadlimit"})

#: ``Mutex`` names -> the module that registers them (measured on Debian's 2.4.71: each shared module
#: loaded alone, every name ``apache2 -t`` then accepts). Names are case-sensitive; ``default`` needs none.
MUTEX_NAMES = {
    "rewrite-map": "rewrite_module",
    "ssl-cache": "ssl_module",
    "ssl-stapling": "ssl_module",
    "ssl-stapling-refresh": "ssl_module",
    "authdigest-client": "auth_digest_module",
    "authn-socache": "authn_socache_module",
    "cache-socache": "cache_socache_module",
    "ldap-cache": "ldap_module",
    "lua-ivm-shm": "lua_module",
    "proxy": "proxy_module",
    "proxy-balancer-shm": "proxy_balancer_module",
    "watchdog-callback": "watchdog_module",
}
#: The MPMs that register the ``mpm-accept`` mutex (event has no accept mutex).
_ACCEPT_MUTEX_MPMS = ("mpm_prefork_module", "mpm_worker_module")

_LOGIO_FORMAT = re.compile(r"%(?:\{[^}]*\})?[<>]?[IOS]|%\^F[BU]")
_BALANCER_URL = re.compile(r"balancer://([^/\s]+)", re.IGNORECASE)
_LBMETHOD = re.compile(r"^lbmethod=(.+)$", re.IGNORECASE)


def _options_turned_on(args: list[str]) -> set[str]:
    """The module-backed options (``indexes``, ``multiviews``) an ``Options`` line leaves on, read as httpd's
    set_options reads it (:mod:`httpd24.config.options`: ``All -Indexes`` leaves Indexes off, ``None +Indexes``
    on; 2.4's All holds Indexes, not MultiViews). A word that names no option is left out: httpd refuses the
    line ("Illegal option"), and the other words still say what was meant."""
    record = options.read_22([word for word in args if options.known([word])])
    return {name for name, bit in (("indexes", options.INDEXES), ("multiviews", options.MULTI)) if record.opts & bit}


# ---------------------------------------------------------------------------------------------
# the computation


def _short(item: Item) -> str:
    node = item.node
    text = node.name if not isinstance(node, Section) else f"<{node.name}"
    args = " ".join(item.args)
    if args:
        text += " " + (args if len(args) <= 60 else args[:57] + "...")
    if isinstance(node, Section):
        text += ">"
    return text


class _Collector:
    """Requirements of the live items of one view."""

    def __init__(self, configset: ConfigSet, view, mpm: str, loaded: set[str]) -> None:
        self.configset = configset
        self.view = view
        self.mpm = mpm
        self.loaded = loaded
        self.dm = table.directive_modules()
        self.reasons: dict[str, list[Reason]] = {}
        self._seen: set[tuple[str, Reason]] = set()
        #: .htaccess files of a set with an entry file (read per request, never at start-up).
        self.htaccess: set[str] = set()
        self._last_item: Item | None = None
        self._last_base: tuple[str, int, str] = ("", 0, "")
        self._last_guards: frozenset[str] = frozenset()  # membership in O(1): configs have thousands of reasons
        self._last_guard_list: tuple[str, ...] = ()
        self.unknown: list[Reason] = []
        self.items: list[Item] = []
        self.tested: dict[str, list[Item]] = {}  # module -> live <IfModule> sections testing it (non-empty)
        self.filter_names: set[str] = set()
        self.authn_aliases: dict[str, str] = {}
        self.authz_aliases: dict[str, str] = {}

    # -- which items count
    def _counts(self, item: Item) -> bool:
        if item.live is Liveness.DEAD:
            return False
        if item.unread:
            root = item.via[0].document.name if item.via else item.document.name
            return root in self.htaccess  # httpd reads those per request (where AllowOverride allows)
        return True

    def run(self) -> None:
        names = {".htaccess"}
        for item in self.view.items:
            if item.key == "accessfilename" and item.live is not Liveness.DEAD:
                names.update(item.args)
        if self.configset.entry is not None:
            self.htaccess = {
                name for name in self.configset.documents
                if name != self.configset.entry and (name.rsplit("/", 1)[-1] in names or name.endswith(".htaccess"))
            }
        self.items = [item for item in self.view.items if self._counts(item)]
        # Names the configuration defines itself (filters, provider aliases).
        for item in self.items:
            key, args = item.key, item.args
            if key in ("filterdeclare", "extfilterdefine") and args:
                self.filter_names.add(args[0].upper())
            elif key == "authnprovideralias" and len(args) >= 2:
                self.authn_aliases[args[1].lower()] = args[0].lower()
            elif key == "authzprovideralias" and len(args) >= 2:
                self.authz_aliases[args[1].lower()] = args[0].lower()
        balancers: dict[str, list[tuple[Item, str | None]]] = {}
        for item in self.items:
            self._item(item, balancers)
        self._balancers(balancers)

    def add(self, item: Item | None, module: str, when: str, note: str = "", label: str = "",
            guards: tuple[str, ...] = ()) -> None:
        """Record that ``module`` is needed; ``label`` names the need when no directive does, and ``guards``
        the modules it holds with (a directive's come from its ``<IfModule>`` sections)."""
        if module in ALWAYS:
            return
        if item is None:
            reason = Reason("", 0, label, when, note, guards=guards)
        else:
            if item is not self._last_item:  # several requirements of one directive share this
                self._last_item = item
                self._last_base = (item.file, item.node.location.line, _short(item))
                self._last_guards = frozenset(
                    module_identifier(s.args[0]) for s in item.context
                    if s.key == "ifmodule" and s.args and not s.args[0].startswith("!")
                )
                self._last_guard_list = tuple(sorted(self._last_guards))
            file, line, short = self._last_base
            conditional = item.live is Liveness.UNKNOWN
            if file in self.htaccess:
                when, conditional = RUNTIME, False
                note = (note + "; " if note else "") + "an .htaccess file: httpd reads it per request"
            reason = Reason(file, line, short, when, note, module in self._last_guards, conditional,
                            self._last_guard_list)
        lst = self.reasons.setdefault(module, [])
        if (module, reason) not in self._seen:
            self._seen.add((module, reason))
            lst.append(reason)

    # -- one directive
    def _item(self, item: Item, balancers) -> None:
        node, key, args = item.node, item.key, item.args
        is_section = isinstance(node, Section)
        lookup = "<" + key if is_section else key
        sources = self.dm.get(lookup)
        if key == "ifmodule" and args and node.children:
            if any(isinstance(c, Directive) for c in node.children):
                self.tested.setdefault(module_identifier(args[0].lstrip("!")), []).append(item)
        if sources is None:
            if key not in ("loadmodule",):
                self.unknown.append(Reason(item.file, node.location.line, _short(item), CONFIGTEST,
                                           "no httpd 2.4 module provides this directive"))
        else:
            module = self._choose(key, sources)
            if module is None:
                self.unknown.append(Reason(item.file, node.location.line, _short(item), CONFIGTEST,
                                           f"only {', '.join(sources)} provide(s) it, not {self.mpm}"))
            else:
                self.add(item, module, CONFIGTEST)
        self._hidden(item, key, args, balancers)

    def _choose(self, key: str, sources: list[str]) -> str | None:
        idents = _identifiers(tuple(sources))
        if len(idents) == 1:
            return idents[0]
        if any(i.startswith("mpm_") for i in idents):
            return self.mpm if self.mpm in idents else None
        if set(idents) == {"cgi_module", "cgid_module"}:
            return self._cgi()
        for ident in idents:  # prefer one that is loaded anyway
            if ident in self.loaded:
                return ident
        return sorted(idents)[0]

    def _cgi(self) -> str:
        if "cgi_module" in self.loaded and "cgid_module" not in self.loaded:
            return "cgi_module"
        if "cgid_module" in self.loaded:
            return "cgid_module"
        return "cgi_module" if self.mpm == "mpm_prefork_module" else "cgid_module"

    # -- requirements hidden in arguments
    def _hidden(self, item: Item, key: str, args: list[str], balancers) -> None:
        add = self.add
        if key == "require" and args:
            words = list(args)
            if words[0].lower() == "not" and len(words) > 1:
                words = words[1:]
            name = words[0].lower()
            name = self.authz_aliases.get(name, name)
            module = AUTHZ_PROVIDERS.get(name)
            if module:
                add(item, module, CONFIGTEST, f"Authz provider '{words[0]}'")
                if name == "file-group":
                    add(item, "authz_groupfile_module", RUNTIME, "file-group reads the group file")
                if module == "authnz_ldap_module":
                    add(item, "ldap_module", STARTUP, "mod_authnz_ldap needs mod_ldap")
        elif key == "loglevel":
            # Per-module levels (`LogLevel warn rewrite:trace3`): httpd looks the module up while
            # reading ("Cannot find module rewrite"). It accepts rewrite, mod_rewrite.c or rewrite_module.
            for word in args:
                name = word.split(":", 1)[0] if ":" in word else ""
                if not name or name.lower() == "core":
                    continue
                module = module_identifier(name) if name.endswith((".c", "_module")) else f"{name}_module"
                add(item, module, CONFIGTEST, f"a log level for module {name}")
        elif key in ("authbasicprovider", "authdigestprovider", "authformprovider"):
            for word in args:
                name = word.lower()
                alias = self.authn_aliases.get(name)
                module = AUTHN_PROVIDERS.get(alias or name)
                if module:
                    add(item, module, CONFIGTEST, f"Authn provider '{word}'")
        elif key == "authtype" and args:
            kind = args[0].lower()
            module = AUTH_TYPES.get(kind)
            if module:
                add(item, module, RUNTIME, f"AuthType {args[0]} is implemented by mod_{module[:-7]}")
                provider = {"basic": "authbasicprovider", "digest": "authdigestprovider",
                            "form": "authformprovider"}[kind]
                add(item, "authz_core_module", RUNTIME,
                    "who may pass after authentication is decided by mod_authz_core (Require)")
                if not self._set_nearby(item, provider):
                    add(item, "authn_file_module", RUNTIME,
                        f"the default authn provider of AuthType {args[0]} is 'file'")
        elif key in _SOCACHE_DIRECTIVES and args:
            kind = args[0].split(":", 1)[0].split("(", 1)[0].lower()
            module = SOCACHE.get(kind)
            if module:
                add(item, module, CONFIGTEST, f"socache provider '{kind}'")
        elif key == "mutex":
            for name in args[1:]:
                if name == "mpm-accept" and self.mpm not in _ACCEPT_MUTEX_MPMS:
                    self.unknown.append(Reason(item.file, item.node.location.line, _short(item), CONFIGTEST,
                                               f"only prefork and worker register the mpm-accept mutex, not {self.mpm}"))
                elif name in MUTEX_NAMES:
                    add(item, MUTEX_NAMES[name], CONFIGTEST, f"the mutex name '{name}'")
        elif key == "addoutputfilterbytype" and args:
            self._filters(item, args[0], CONFIGTEST)
        elif key in ("setoutputfilter", "setinputfilter", "addoutputfilter", "addinputfilter") and args:
            self._filters(item, args[0], RUNTIME)
        elif key == "filterprovider" and len(args) >= 2:
            self._filters(item, args[1], CONFIGTEST)
        elif key in ("sethandler", "addhandler") and args:
            self._handler(item, args[0])
        elif key == "dav" and args:
            value = args[0].lower()
            if value in ("on", "filesystem"):
                add(item, "dav_fs_module", CONFIGTEST, "Dav On uses the 'filesystem' provider of mod_dav_fs")
        elif key == "cacheenable" and args:
            kind = args[0].lower()
            module = {"disk": "cache_disk_module", "socache": "cache_socache_module"}.get(kind)
            if module:
                add(item, module, RUNTIME, f"cache type '{kind}'")
        elif key in ("logformat", "customlog", "transferlog") and args:
            fmt = args[0] if key == "logformat" else (args[1] if len(args) > 1 else "")
            if _LOGIO_FORMAT.search(fmt):
                add(item, "logio_module", CONFIGTEST, "%I, %O, %S or %^FB in a log format need mod_logio")
        elif key in ("scriptlog", "scriptlogbuffer", "scriptloglength"):
            pass  # handled by _choose
        elif key in ("scriptalias", "scriptaliasmatch"):
            add(item, self._cgi(), RUNTIME, "ScriptAlias runs the files it maps as CGI scripts (cgi-script)")
        elif key == "options":
            turned_on = _options_turned_on(args)
            if "multiviews" in turned_on:
                add(item, "negotiation_module", RUNTIME, "Options MultiViews is implemented by mod_negotiation")
            if "indexes" in turned_on:
                add(item, "autoindex_module", RUNTIME,
                    "Options Indexes lists a directory through mod_autoindex (without it: 404)")
        elif key == "rewriterule" and len(args) >= 3:
            flags = args[2].strip("[]").lower().split(",")
            if any(f.strip() in ("p", "proxy") for f in flags):
                add(item, "proxy_module", RUNTIME, "RewriteRule [P] proxies through mod_proxy")
                self._url(item, args[1], balancers)
        if key in ("proxypass", "proxypassmatch", "balancermember", "proxyset", "proxyremote",
                   "proxyremotematch", "proxy", "proxymatch", "proxypassreverse"):
            urls = [a for a in args if "://" in a or a.lower().startswith("unix:")]
            inside = item.in_section("proxy", "proxymatch")
            for url in urls:
                if key == "proxypassreverse":
                    continue
                if key in ("proxy", "proxymatch") and not url.lower().startswith("balancer://"):
                    continue  # <Proxy http://...> only scopes settings
                self._url(item, url, balancers, scheme_needed=key not in ("proxyset", "proxy", "proxymatch"))
            if key in ("balancermember", "proxyset") and inside is not None and inside.args:
                match = _BALANCER_URL.search(inside.args[0])
                if match:
                    balancers.setdefault(match.group(1).lower(), [])
            lbmethods = [m.group(1) for a in args if (m := _LBMETHOD.match(a))]
            for lbmethod in lbmethods:
                target = None
                for url in urls:
                    match = _BALANCER_URL.search(url)
                    if match:
                        target = match.group(1).lower()
                if target is None and inside is not None and inside.args:
                    match = _BALANCER_URL.search(inside.args[0])
                    if match:
                        target = match.group(1).lower()
                balancers.setdefault(target or "", []).append((item, lbmethod))
        if key == "proxyrequests" and args and args[0].lower() == "on":
            add(item, "proxy_http_module", RUNTIME, "a forward proxy fetches http:// URLs with mod_proxy_http")

    def _set_nearby(self, item: Item, key: str) -> bool:
        """Whether ``key`` is set in the same section as ``item`` or an enclosing one (or globally)."""
        scopes = [item.node.parent, *item.context]
        for scope in scopes:
            children = getattr(scope, "children", ())
            if any(getattr(c, "key", None) == key and self.view.is_live(c) for c in children):
                return True
        return False

    def _filters(self, item: Item, names: str, when: str) -> None:
        for name in names.split(";"):
            name = name.strip()
            upper = name.upper()
            if not name or upper in self.filter_names or upper in _CORE_FILTERS:
                continue
            module = FILTERS.get(upper)
            if module:
                self.add(item, module, when, f"filter '{name}'")
            else:
                self.unknown.append(Reason(item.file, item.node.location.line, _short(item), when,
                                           f"no standard module provides the filter '{name}'"))

    def _handler(self, item: Item, name: str) -> None:
        lower = name.lower()
        if lower in _NO_MODULE_HANDLERS:
            return
        if lower.startswith("proxy:"):
            self.add(item, "proxy_module", RUNTIME, f"handler '{name}'")
            self._url(item, name[6:], {}, scheme_needed=True)
            return
        if lower in HANDLERS:
            module = HANDLERS[lower]
            if lower == "cgi-script":
                module = self._cgi()
            if module:
                self.add(item, module, RUNTIME, f"handler '{name}'")
            return
        if "/" in lower:
            return  # a MIME type used as handler name (e.g. application/x-httpd-php): third-party
        self.unknown.append(Reason(item.file, item.node.location.line, _short(item), RUNTIME,
                                   f"no standard module provides the handler '{name}'"))

    def _url(self, item: Item, url: str, balancers, *, scheme_needed: bool = True) -> None:
        lower = url.lower()
        if lower.startswith("unix:"):
            bar = lower.find("|")
            if bar < 0:
                return
            lower = lower[bar + 1 :]
        scheme = lower.split("://", 1)[0] if "://" in lower else ""
        if scheme == "balancer":
            match = _BALANCER_URL.search(url)
            if match:
                balancers.setdefault(match.group(1).lower(), [])
            self.add(item, "proxy_balancer_module", RUNTIME, "balancer:// URLs are served by mod_proxy_balancer")
            return
        module = PROXY_SCHEMES.get(scheme)
        if module and scheme_needed:
            self.add(item, module, RUNTIME, f"{scheme}:// URLs are proxied by mod_{module[:-7]}")
            if scheme in ("https", "wss", "h2"):
                self.add(item, "ssl_module", RUNTIME, f"{scheme}:// backends need SSLProxyEngine (mod_ssl)")

    def _balancers(self, balancers: dict[str, list[tuple[Item, str | None]]]) -> None:
        if not balancers:
            return
        defaults = []
        for name, settings in balancers.items():
            named = [(item, method) for item, method in settings if method]
            for item, method in named:
                self.add(item, f"lbmethod_{method.lower()}_module", CONFIGTEST, f"lbmethod={method}")
            if not named and name:
                defaults.append(name)
        if defaults:
            first = next((i for i in self.items if _BALANCER_URL.search(" ".join(i.args))), None)
            self.add(first, "lbmethod_byrequests_module", STARTUP,
                     "balancer(s) " + ", ".join(sorted(defaults)) + " use the default lbmethod=byrequests")
            self.add(first, "proxy_balancer_module", RUNTIME, "balancer:// URLs are served by mod_proxy_balancer")


@functools.lru_cache(maxsize=None)
def _identifiers(sources: tuple[str, ...]) -> tuple[str, ...]:
    out = []
    for source in sources:
        info = table.module_by_source(source)
        out.append(info.identifier if info else module_identifier(source))
    return tuple(out)


class MpmChoice(NamedTuple):
    """The MPM 2.4 will run, on what ``basis`` it was chosen (one of the ``BY_*`` values), and the
    lines that chose it."""

    module: str
    basis: str
    reasons: list[Reason]


BY_TARGET = "the target server's MPM"
BY_LOAD = "the MPM the configuration loads"
BY_SETTINGS = "the MPM its other settings need"
BY_MODULES = "the MPM its modules need"
BY_TUNING = "the only MPM the configuration tunes"
BY_DEFAULT = "2.4's default"


def _choose_mpm(view, target: Target) -> MpmChoice:
    """The MPM: the target's, else the one the configuration loads, else the one its MPM settings need."""
    if target.modules is not None:
        for mpm in _MPMS:
            if mpm in target.modules:
                return MpmChoice(mpm, BY_TARGET, [Reason("", 0, "(the target's MPM)", STARTUP,
                                                         f"{mpm} is loaded by the target")])
    prefork: list[Item] = []
    threaded: list[Item] = []
    accept: list[Item] = []  # Mutex ... mpm-accept: prefork or worker
    unsafe: list[Item] = []  # modules that refuse to start under a threaded MPM
    tuned: dict[str, Item] = {}  # MPM -> the first <IfModule> block for it that holds settings
    for item in view.items:
        if item.key == "ifmodule" and item.live is not Liveness.DEAD:
            mpm = tuned_mpm(item)
            if mpm is not None:
                tuned.setdefault(mpm, item)
        if item.live is not Liveness.LIVE:
            continue
        if item.key == "loadmodule" and item.args and item.args[0] in _MPMS:
            return MpmChoice(item.args[0], BY_LOAD, [Reason(item.file, item.node.location.line, _short(item),
                                                            STARTUP, "the configuration loads this MPM")])
        if item.key in _PREFORK_ONLY:
            prefork.append(item)
        elif item.key in _THREADED_ONLY:
            threaded.append(item)
        elif item.key == "mutex" and "mpm-accept" in item.args[1:]:
            accept.append(item)
        elif item.key == "loadmodule" and _needs_prefork(item.args):
            unsafe.append(item)
    accept_reasons = [Reason(i.file, i.node.location.line, _short(i), CONFIGTEST,
                             "only prefork and worker register the mpm-accept mutex") for i in accept]
    threaded_reasons = [Reason(i.file, i.node.location.line, _short(i), CONFIGTEST,
                               "only threaded MPMs have this directive") for i in threaded]
    prefork_reasons = [Reason(i.file, i.node.location.line, _short(i), CONFIGTEST,
                              "only the prefork MPM has this directive") for i in prefork]
    if accept and threaded and not prefork:
        return MpmChoice("mpm_worker_module", BY_SETTINGS, accept_reasons + threaded_reasons)
    if (accept or prefork) and not threaded:
        return MpmChoice("mpm_prefork_module", BY_SETTINGS, accept_reasons + prefork_reasons)
    if unsafe and not threaded:
        # Loaded for sure (not under an <IfModule> of an MPM, like CentOS's php.conf): the 2.2 server ran prefork.
        return MpmChoice("mpm_prefork_module", BY_MODULES, [
            Reason(i.file, i.node.location.line, _short(i), STARTUP, _THREAD_UNSAFE[i.args[0]]) for i in unsafe])
    if len(tuned) == 1 and not threaded:
        # 2.2 compiled its MPM in: a configuration that tunes only one ran that one (else its tuning
        # did nothing); under any other MPM 2.4 would skip the block and fall back to its defaults.
        [(mpm, block)] = tuned.items()
        return MpmChoice(mpm, BY_TUNING, [Reason(block.file, block.node.location.line, _short(block), STARTUP,
                                                 "the configuration tunes this MPM only (2.2 compiled its MPM in)")])
    note = "httpd needs one MPM; the configuration does not choose one, so the 2.4 default (event)"
    basis = BY_SETTINGS if threaded else BY_DEFAULT
    return MpmChoice(DEFAULT_MPM, basis, [Reason("", 0, "(an MPM: 2.4's default)", STARTUP, note)] + threaded_reasons)


#: Modules whose usual build refuses to start under a threaded MPM, and what they say then.
_THREAD_UNSAFE = dict.fromkeys(
    ("php4_module", "php5_module", "php7_module", "php_module"),
    "mod_php, unless built thread-safe (a -zts library), stops the server under a threaded MPM "
    "(\"Apache is running a threaded MPM, but your PHP Module is not compiled to be threadsafe\")",
)


def _needs_prefork(args: list[str]) -> bool:
    return len(args) > 1 and args[0] in _THREAD_UNSAFE and "zts" not in args[1].lower()


def choose_mpm(configset: ConfigSet, target: Target, view=None) -> MpmChoice:
    """The MPM :func:`required_modules` names for the configuration, and why, without the rest of its
    work. ``view``: the configuration's view for ``target``, reused when it reads as the choice does
    (no modules decided)."""
    if view is None or view.target.modules is not None:
        view = configset.view(Target(target.version, None, target.defines, target.environment))
    return _choose_mpm(view, target)


def tuned_mpm(item: Item) -> str | None:
    """The loadable MPM a positive ``<IfModule>`` tests, when the block holds a setting."""
    node = item.node
    if not isinstance(node, Section) or not node.args or node.args[0].startswith("!"):
        return None
    mpm = module_identifier(node.args[0])
    if mpm not in _MPMS or not any(isinstance(n, Directive) for n in node.walk()):
        return None
    return mpm


def _config_loads(view) -> dict[str, list[Item]]:
    """The LoadModule lines httpd may read: a module that only an unread file loads is not loaded."""
    out: dict[str, list[Item]] = {}
    for item in view.items:
        if item.key == "loadmodule" and item.args and item.live is not Liveness.DEAD and not item.unread:
            out.setdefault(item.args[0], []).append(item)
    return out


def _positively_tested(configset: ConfigSet) -> set[str]:
    out = set()
    for doc in configset.documents.values():
        for node in doc.directives():
            if isinstance(node, Section) and node.key == "ifmodule" and node.args and not node.args[0].startswith("!"):
                out.add(module_identifier(node.args[0]))
    return out


def _dependencies(modules: set[str]) -> set[str]:
    """The modules ``modules`` cannot load or start without (:data:`DEPENDENCIES`), transitively."""
    found: set[str] = set()
    todo = list(modules)
    while todo:
        module = todo.pop()
        for dependent, dependency, _when, _why in DEPENDENCIES:
            if dependent == module and dependency not in modules and dependency not in found:
                found.add(dependency)
                todo.append(dependency)
    return found


def required_modules(configset: ConfigSet, *, target: Target = DEFAULT_TARGET,
                     builtin: Iterable[str] = ()) -> ModuleRequirements:
    """The modules ``configset`` needs on ``target`` (see the module docstring).

    ``builtin``: the modules the binary compiles in (:data:`DEBIAN_BUILTIN` for Debian's apache2), always
    loaded: an ``<IfModule>`` on one of them is read even where the configuration does not load it.

    Raises :class:`~httpd24.config.ParseError` on an Include cycle.
    """
    with gc_paused():
        return _required_modules(configset, target, frozenset(builtin))


def _required_modules(configset: ConfigSet, target: Target, builtin: frozenset[str]) -> ModuleRequirements:
    known = table.modules()
    first = configset.view(Target(target.version, None, target.defines, target.environment))
    mpm, _, mpm_reasons = _choose_mpm(first, target)
    config_loads = _config_loads(first)
    loaded_by_config = {m for m in config_loads if m not in _MPMS}
    base = set(ALWAYS) | set(target.modules or ()) | builtin | {mpm}
    base -= {m for m in _MPMS if m != mpm}
    seed = {m for m in _positively_tested(configset) if m in known and not m.startswith("mpm_")}
    if any(m in _MPMS for m in config_loads):
        # A whole 2.4 server configuration (2.2 had no MPM to load): its LoadModule lines are its choice, so an
        # <IfModule> of a module it does not load (nor any known binary builds in) is a branch it keeps dormant
        # (Debian's mime.conf has mod_include's, serve-cgi-bin.conf mod_cgid's). Loading that module would
        # wake the branch up, so it is not assumed.
        seed &= loaded_by_config | IMAGE_BUILTIN | DEBIAN_BUILTIN
    seed.add("authz_core_module")

    def compute(assumed: set[str]) -> _Collector:
        modules = frozenset(base | assumed)
        view = configset.view(Target(target.version, modules, target.defines, target.environment))
        collector = _Collector(configset, view, mpm, set(modules) | loaded_by_config)
        collector.run()
        return collector

    assumed = set(seed) | loaded_by_config
    collector = compute(assumed)
    seen: list[frozenset[str]] = []
    for _ in range(12):
        # A module only possibly needed is assumed loaded for the next round only where the seed
        # assumes it anyway: otherwise loading it turns its own dormant <IfModule> branches on, which
        # can make the need certain (Debian's serve-cgi-bin.conf: a Define inside <IfModule mod_cgid.c>
        # read by the <IfDefine> around a ScriptAlias).
        required = {m for m, reasons in collector.reasons.items() if m in seed or any(not r.conditional for r in reasons)}
        required.add("authz_core_module")
        # Modules the configuration loads and tests with a live, non-empty <IfModule> stay.
        required |= {m for m in loaded_by_config if m in collector.tested}
        # And the modules those cannot do without: loaded, they make their <IfModule> blocks read too.
        required |= _dependencies(required)
        state = frozenset(required)
        if state == frozenset(assumed) or state in seen:
            break
        seen.append(state)
        assumed = set(required)
        collector = compute(assumed)
    reasons = collector.reasons
    # The list is loaded as a whole, and it is not always what was assumed: modules needed only in a branch
    # nothing decides (<IfDefine SSL>) were not assumed loaded, yet they are listed, and loading them wakes
    # their own <IfModule> blocks up. Read again with exactly what the list loads until that adds nothing:
    # what the blocks need is listed as well, as needed in the same condition (conditional).
    loaded, woken, tested = frozenset(assumed), None, dict(collector.tested)
    for _ in range(12):
        # mod_authz_core is always listed, and so is a module the configuration loads and tests (below)
        listed = {*reasons, "authz_core_module", *(m for m in loaded_by_config if m in tested)}
        listed = frozenset(listed | _dependencies(listed))
        if listed == loaded:
            break
        loaded = listed
        woken = compute(set(loaded))
        tested = {**woken.tested, **tested}
        for module, found in woken.reasons.items():
            if module not in reasons:
                reasons[module] = [r._replace(conditional=True) for r in found]
    if woken is not None:
        # ... and what they switch off (<IfModule !mod_x.c>) is needed only where they are not loaded
        still = {(module, r.file, r.line, r.directive) for module, found in woken.reasons.items() for r in found}
        for module, found in reasons.items():
            reasons[module] = [r if r.conditional or (module, r.file, r.line, r.directive) in still
                               else r._replace(conditional=True) for r in found]
    # mod_authz_core was assumed (so <IfModule !mod_authz_core.c> is the dead 2.2 branch): keep it
    # if something tests it, since the analysis read those blocks that way.
    if "authz_core_module" not in reasons and "authz_core_module" in collector.tested:
        for item in collector.tested["authz_core_module"]:
            collector.add(item, "authz_core_module", RUNTIME,
                          "the configuration tests mod_authz_core; without it the 2.2 branch of "
                          "<IfModule !mod_authz_core.c> is read instead")
    # (also where only a block the list wakes up tests it: dropping it would turn that test around)
    for module in sorted(loaded_by_config):
        if module in tested and module not in reasons:
            for load in config_loads[module]:
                collector.add(load, module, STARTUP, "loaded by the configuration and tested by <IfModule>")
            for item in tested[module]:
                collector.add(item, module, RUNTIME, "an <IfModule> of a loaded module (its block is read)")
    # Every request passes mod_authz_core: without it httpd answers 500 to all of them.
    collector.add(
        None, "authz_core_module", RUNTIME,
        "without mod_authz_core httpd answers 500 to every request "
        "(AH00025 \"configuration error: couldn't check user\")",
        label="(every request)",
    )
    # Modules that others cannot do without.
    changed = True
    while changed:
        changed = False
        for dependent, dependency, when, why in DEPENDENCIES:
            if dependent in reasons and dependency not in reasons:
                collector.add(None, dependency, when, why, label=f"(needed by {dependent})", guards=(dependent,))
                changed = True
    reasons.pop("core_module", None)
    mod_list: list[Module] = [Module(mpm, table.modules().get(mpm).source if mpm in known else "", _so(mpm), mpm_reasons)]
    for name in sorted(reasons):
        if name == mpm or name in _MPMS:
            continue
        info = known.get(name)
        if info is None:
            continue  # e.g. lbmethod_nonsense_module: reported by unknown below
        mod_list.append(Module(name, info.source, info.so, reasons[name]))
    unknown = list(collector.unknown)
    for name in sorted(reasons):
        if name not in known and name not in _MPMS:
            for r in reasons[name]:
                unknown.append(Reason(r.file, r.line, r.directive, r.when, f"no httpd 2.4 module {name}"))
    # Third-party modules the configuration loads: kept (we cannot know what uses them).
    unused: list[str] = []
    for name, loads in config_loads.items():
        if name in _MPMS:
            if name != mpm:
                unused.append(name)
            continue
        if name in reasons and name in known:
            continue
        if name in known or name in REMOVED_IN_24:
            unused.append(name)
            continue
        path = loads[0].args[1] if len(loads[0].args) > 1 else f"mod_{name[:-7]}.so"
        mod_list.append(Module(
            name, "", path.rsplit("/", 1)[-1],
            [Reason(i.file, i.node.location.line, _short(i), STARTUP,
                    "third-party module loaded by the configuration: rebuild it for httpd 2.4") for i in loads],
            third_party=True,
        ))
    return ModuleRequirements(_ordered(mod_list), unused, unknown, mpm)


def _so(identifier: str) -> str:
    info = table.modules().get(identifier)
    return info.so if info else f"mod_{identifier[:-7]}.so"


def _ordered(mods: list[Module]) -> list[Module]:
    """MPM first, then by shared object name, each module after the ones it needs to load."""
    by_name = {m.name: m for m in mods}
    deps: dict[str, set[str]] = {}
    for dependent, dependency, when, _ in DEPENDENCIES:
        if when == CONFIGTEST and dependent in by_name and dependency in by_name:
            deps.setdefault(dependent, set()).add(dependency)
    rest = sorted((m for m in mods if not m.is_mpm), key=lambda m: (m.third_party, m.so))
    out = [m for m in mods if m.is_mpm]
    placed = {m.name for m in out}
    while rest:
        for i, m in enumerate(rest):
            if deps.get(m.name, set()) <= placed:
                out.append(m)
                placed.add(m.name)
                del rest[i]
                break
        else:  # a cycle cannot happen with the table above; keep going anyway
            out.extend(rest)
            break
    return out

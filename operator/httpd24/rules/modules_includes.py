"""Modules and includes (HT4xx): LoadModule of modules 2.4 does not have, third-party
modules, Include wildcards that match nothing, modules 2.4 needs that a configuration
managing its own LoadModule lines does not load, and <IfModule> on renamed modules."""

from __future__ import annotations

import posixpath
import re

from ..apache import table
from ..config import Item, Node, edit, is_wildcard, module_identifier
from ..config.nodes import NOT_A_SECTION
from ..config.target import REMOVED_IN_24
from ..engine import Applicability, Rule, Severity, register
from ..engine.modules import (
    ALWAYS,
    CONFIGTEST,
    DEBIAN_BUILTIN,
    DEBIAN_MODULE_DIR,
    DEPENDENCIES,
    RUNTIME,
    STARTUP,
    Reason,
    required_modules,
)
from ..engine.source import MIGRATION_LOADS, loaded_by_migration

#: 2.2 module -> (what to do, 2.4 module to load instead or None).
REMOVED_MODULES = {
    "authn_alias_module": ("its AuthnProviderAlias is provided by mod_authn_core in 2.4", "authn_core_module"),
    "authn_default_module": ("2.4's mod_authn_core does its job (refuse when no authn module answers)", None),
    "authz_default_module": ("2.4's mod_authz_core does its job (refuse when no authz module answers)", None),
    "mem_cache_module": ("mod_mem_cache is gone: cache with mod_cache_disk (CacheEnable disk) or "
                         "mod_cache_socache (CacheEnable socache, CacheSocache shmcb)", None),
    "disk_cache_module": ("mod_disk_cache is renamed mod_cache_disk", "cache_disk_module"),
    "example_module": ("mod_example is replaced by mod_example_hooks (a developer's example)", None),
}

#: Modules named in <IfModule> that were renamed: the 2.2 name is never loaded on 2.4.
RENAMED_MODULES = {"disk_cache_module": "cache_disk_module", "authn_alias_module": "authn_core_module"}


def requirements_of(ctx):
    """``required_modules`` of the context's configuration, computed once per context: for Debian's
    apache2 (its built-in modules loaded) where its LoadModule lines load from Debian's directory."""
    cached = ctx.__dict__.get("_httpd24_required_modules")
    if cached is None:
        debian = any(len(load.args) > 1 and _module_dir(load.args[1]) == DEBIAN_MODULE_DIR
                     for load in ctx.module_loads())
        cached = required_modules(ctx.configset, target=ctx.target, builtin=DEBIAN_BUILTIN if debian else ())
        ctx.__dict__["_httpd24_required_modules"] = cached
    return cached


def _every_directive_known(ctx) -> bool:
    """True when a 2.4 module provides every directive that may be read (a dictionary lookup each)."""
    known = table.directive_modules()
    for item in ctx.live_items():
        key = item.key
        if key not in known and "<" + key not in known and key != "loadmodule":
            return False
    return True


def load_path(module_dir: str, identifier: str) -> str:
    """Where the LoadModule line of ``identifier`` points in ``module_dir`` (the official build's .so name)."""
    info = table.modules().get(identifier)
    so = info.so if info else f"mod_{identifier[: -len('_module')]}.so"
    return f"{module_dir}/{so}" if module_dir else so


def _module_dir(path: str) -> str:
    return posixpath.dirname(path)


def _after_loads(last: Item) -> Node:
    """Where added LoadModule lines go: after ``last``, unless it sits in a conditional block (``<IfDefine
    SSL>``, Gentoo's and SUSE's 2.2 layout: the MPM would load only with -D SSL), then after the outermost
    one, so that httpd reads them whatever the block decides, and after the modules the block loads; or
    unless its file is one of those an Include wildcard reads (Debian's mods-enabled/*.load, links into
    mods-available/), where a line would go with that file's module (``a2dismod mpm_event``, the usual
    step to change MPM, would drop it): then after that Include."""
    if last.context:
        return last.context[0]
    include = last.via[-1] if last.via else None
    if include is not None and include.args and is_wildcard(include.args[0]):
        return include
    return last.node


@register
class RemovedModule(Rule):
    """
    ## What it does
    Finds `LoadModule` of modules that 2.4 does not have: mod_authn_alias,
    mod_authn_default, mod_authz_default, mod_mem_cache, mod_disk_cache
    (renamed mod_cache_disk) and mod_example.

    ## Why is this bad?
    2.4 refuses to start: `Cannot load modules/mod_authn_alias.so into server`.

    ## Example
    ```apache
    LoadModule authn_alias_module modules/mod_authn_alias.so
    LoadModule authz_default_module modules/mod_authz_default.so
    LoadModule disk_cache_module modules/mod_disk_cache.so
    ```

    ## Use instead
    ```apache
    LoadModule authn_core_module modules/mod_authn_core.so
    LoadModule cache_disk_module modules/mod_cache_disk.so
    ```

    ## Fix safety
    Safe for mod_authn_alias (its directive moved to mod_authn_core, which
    is loaded instead unless it already is or nothing needs it), mod_authn_default and
    mod_authz_default (their job is built into mod_authn_core/mod_authz_core:
    the line is removed), mod_disk_cache (renamed: the line loads
    mod_cache_disk from the same directory) and mod_example. For
    mod_mem_cache the line is removed too (preserve: 2.4 cannot load it; the
    cache it configured must be replaced, which HT115 reports).
    """

    code = "HT401"
    name = "removed-module"
    severity = Severity.ERROR
    summary = "LoadModule of a module 2.4 does not have (authn_alias, authn/authz_default, mem_cache, disk_cache)"
    directives = ("loadmodule",)
    fix_availability = "always"

    def check(self, ctx, item):
        if not item.args:
            return
        identifier = item.args[0]
        if identifier not in REMOVED_MODULES:
            return
        why, instead = REMOVED_MODULES[identifier]
        node = item.node
        path = item.args[1] if len(item.args) > 1 else ""
        already = instead is not None and any(
            other.args and other.args[0] == instead for other in ctx.items("loadmodule")
        )
        if identifier == "authn_alias_module" and instead not in requirements_of(ctx):
            already = True  # nothing uses mod_authn_core: just drop the line
        if instead and not already:
            new_path = load_path(_module_dir(path), instead)
            text = f"LoadModule {instead} {new_path}"
            fix = self.fix(f"load {instead} instead", Applicability.SAFE,
                           lambda: edit.set_args(node, [instead, new_path]), node)
            replacement = text
        else:
            safety = Applicability.PRESERVE if identifier == "mem_cache_module" else Applicability.SAFE
            fix = self.fix(f"remove the LoadModule of {identifier}", safety, lambda: edit.remove(node), node)
            replacement = ""
        yield self.finding(item, f"{identifier} does not exist in 2.4 (start-up fails): {why}",
                           replacement=replacement, fix=fix)


#: Well-known third-party modules and what to know about them on 2.4.
THIRD_PARTY_NOTES = {
    "php5_module": "mod_php is not thread-safe: it needs the prefork MPM (or use PHP-FPM with mod_proxy_fcgi)",
    "php7_module": "mod_php is not thread-safe: it needs the prefork MPM (or use PHP-FPM with mod_proxy_fcgi)",
    "python_module": "mod_python is unmaintained; mod_wsgi replaces it",
    "fastcgi_module": "mod_fastcgi does not build for 2.4; use mod_proxy_fcgi or mod_fcgid",
    "gzip_module": "mod_gzip is a 1.3-era module; use mod_deflate",
}


@register
class ThirdPartyModule(Rule):
    """
    ## What it does
    Finds `LoadModule` of a module that is not part of httpd 2.4 (not in the
    directive table generated from the real binary and not a removed 2.2
    module): mod_php, mod_perl, mod_wsgi, mod_security, Passenger, ...

    ## Why is this bad?
    Modules are built against one server API: a module built for 2.2 does not
    load into 2.4 ("API module structure ... is garbled"); it must be rebuilt
    (and some need source changes) or installed in its 2.4 version.

    ## Example
    ```apache
    LoadModule php5_module modules/libphp5.so
    ```

    ## Use instead
    Install the module's 2.4 build (for mod_php: with the prefork MPM, or
    PHP-FPM), then mark the line as checked:
    ```apache
    # httpd24: ignore=HT402
    LoadModule php5_module modules/libphp5.so
    ```

    ## Fix safety
    No fix: installing the module's 2.4 build is outside the configuration.
    """

    code = "HT402"
    name = "third-party-module"
    severity = Severity.WARNING
    summary = "A third-party module must be rebuilt (or reinstalled) for 2.4"
    directives = ("loadmodule",)

    def check(self, ctx, item):
        if not item.args:
            return
        identifier = item.args[0]
        if identifier in table.modules() or identifier in REMOVED_IN_24 or identifier in REMOVED_MODULES:
            return
        note = THIRD_PARTY_NOTES.get(identifier, "")
        path = item.args[1] if len(item.args) > 1 else ""
        message = (f"{identifier} ({path or 'no file'}) is not part of httpd 2.4: install its 2.4 build "
                   "(a 2.2 build does not load)" + (f"; {note}" if note else ""))
        yield self.finding(item, message)


@register
class IncludeNoMatch(Rule):
    """
    ## What it does
    Finds `Include` whose wildcard matches no file; and, with a wildcard
    before the last component (`conf.d/*/x.conf`, new in 2.4), one that
    matches a directory without what follows: conf.d/b without x.conf, a
    directory where `*.conf` of `conf.d/*/*.conf` matches nothing, or
    without the directory `sub` of `conf.d/*/sub/*.conf`, however many
    other directories have it.

    ## Why is this bad?
    2.2 accepted a wildcard that matched nothing; 2.4 refuses to start
    ("No matches for the wildcard '*.conf' in '/etc/httpd/conf.d', failing").
    `IncludeOptional` (new in 2.4) behaves as 2.2's `Include` did. httpd
    walks a wildcard before the last component into each directory it
    matches (real directories: not a link), and fails on the first that
    lacks what follows ("Could not open configuration file
    /etc/httpd/conf.d/b/x.conf"); `IncludeOptional` passes over it.

    A pattern that points outside the files of this configuration (for
    example a ConfigMap that includes `/etc/httpd/conf.d/*.conf` from the
    image) may well match on the server: then it is reported as a warning
    that does not claim a failure.

    ## Example
    ```apache
    Include conf.d/*.conf
    ```

    ## Use instead
    ```apache
    IncludeOptional conf.d/*.conf
    ```

    ## Fix safety
    Safe: for a wildcard, `IncludeOptional` includes exactly what `Include`
    includes and, like 2.2's `Include`, accepts no match.
    """

    code = "HT403"
    name = "include-no-match"
    severity = Severity.ERROR
    summary = ("Include with a wildcard that matches nothing, or a directory without what follows it, fails in 2.4; "
               "use IncludeOptional")
    fix_availability = "always"

    def check_config(self, ctx):
        said: set[int] = set()  # the Include lines judged by the walk of their files (gaps or not)
        for item in ctx.items("include"):
            pattern = item.args[0] if item.args else ""
            if id(item.node) in said or "${" in pattern or not is_wildcard(posixpath.dirname(pattern)):
                continue
            gaps = ctx.configset.include_gaps(pattern)
            if gaps is not None:
                # No gap, no file (`conf.d/*/` of empty directories): httpd starts, reading nothing.
                said.add(id(item.node))
            if gaps:
                yield self.finding(item.node, _gaps_message(pattern, gaps, ctx.configset.server_root),
                                   replacement=f"IncludeOptional {' '.join(item.node.raw_args)}",
                                   fix=self._fix(item.node))
        for unresolved in ctx.view.unresolved:
            if unresolved.optional or not ctx.view.is_live(unresolved.node) or id(unresolved.node) in said:
                continue
            pattern = unresolved.pattern
            if not any(c in pattern for c in "*?["):
                continue  # a missing plain file fails in 2.2 too: HT408
            node = unresolved.node
            fix = self._fix(node)
            replacement = f"IncludeOptional {' '.join(node.raw_args)}"
            if unresolved.external:
                yield self.finding(
                    node,
                    f"Include {pattern} points outside this configuration: if nothing matches there on the "
                    "server, 2.4 refuses to start (2.2 accepted it); IncludeOptional behaves as 2.2 did",
                    replacement=replacement, fix=fix, severity=Severity.WARNING,
                )
            else:
                yield self.finding(
                    node,
                    f"Include {pattern} matches no file: 2.4 refuses to start (\"No matches for the wildcard\"), "
                    "2.2 accepted it; use IncludeOptional",
                    replacement=replacement, fix=fix,
                )

    def _fix(self, node):
        return self.fix("use IncludeOptional", Applicability.SAFE, lambda: edit.rename(node, "IncludeOptional"), node)


def _gaps_message(pattern: str, gaps, server_root: str) -> str:
    """What the first place httpd fails on is, what httpd says there, how many more there are, and what to
    do. Places are named as the pattern names files; httpd's words name them from /, as it does."""

    def full(name: str) -> str:
        return posixpath.join(server_root, name) if name else server_root

    def below(gap) -> str:
        return posixpath.relpath(gap.path, gap.matched) if gap.matched else gap.path

    first = gaps[0]
    if first.kind == "file":
        what = f"{first.matched} has no {below(first)}" if first.matched else f"there is no {first.path}"
        says = f"Could not open configuration file {full(first.path)}"
        add = f"add {first.path}"
    elif first.kind == "directory":
        what = (f"{first.matched} has no directory {below(first)}" if first.matched else
                f"there is no directory {first.path}")
        says = f"Could not open directory {full(first.path)}"
        add = f"add {first.path}/"
    else:
        shown = first.path or "."
        what = f"{'no directory' if first.directories else 'nothing'} in {shown} matches {first.wildcard}"
        says = f"No matches for the wildcard '{first.wildcard}' in '{full(first.path)}', failing"
        add = f"add {'a directory' if first.directories else f'a file matching {first.wildcard}'} to {shown}"
    more = ""
    if len(gaps) > 1:
        others = [gap.matched or gap.path for gap in gaps[1:]]
        more = f" ({len(others)} more: {', '.join(others[:3])}{', ...' if len(others) > 3 else ''})"
    return (f"Include {pattern}: {what}, and httpd refuses to start (\"{says}\"){more}; use IncludeOptional, "
            f"which reads what there is and passes over the rest, or {add}")


#: Why a module is news to a 2.2 configuration that loads its own modules.
MOVED = {
    "unixd_module": "User/Group/ChrootDir/Suexec moved from the core to mod_unixd",
    "filter_module": "AddOutputFilterByType moved from the core to mod_filter",
    "authn_core_module": "AuthType/AuthName/AuthnProviderAlias moved to mod_authn_core, new in 2.4",
    "authz_core_module": "Require is mod_authz_core's, new in 2.4, and without it every request fails with 500",
    "access_compat_module": "Order/Allow/Deny/Satisfy moved to mod_access_compat, new in 2.4",
    "cache_disk_module": "mod_disk_cache is renamed mod_cache_disk",
    "socache_shmcb_module": "2.4's shared-memory caches are the socache provider mod_socache_shmcb",
    "socache_dbm_module": "2.4's dbm caches are the socache provider mod_socache_dbm",
    "slotmem_shm_module": "mod_proxy_balancer keeps its state in mod_slotmem_shm, new in 2.4",
    "lbmethod_byrequests_module": "load-balancing methods are modules of their own in 2.4",
    "lbmethod_bytraffic_module": "load-balancing methods are modules of their own in 2.4",
    "lbmethod_bybusyness_module": "load-balancing methods are modules of their own in 2.4",
    "lbmethod_heartbeat_module": "load-balancing methods are modules of their own in 2.4",
    "mpm_event_module": "the MPM is a loadable module in 2.4; 2.2 compiled it in",
    "mpm_prefork_module": "the MPM is a loadable module in 2.4; 2.2 compiled it in",
    "mpm_worker_module": "the MPM is a loadable module in 2.4; 2.2 compiled it in",
}


#: Modules HT404 reports without a fix: other rules' fixes usually make them unnecessary.
DEFERRED = frozenset({"access_compat_module"})

#: Modules a configuration that chooses its own may leave out on purpose: 2.2 without them answered as 2.4
#: does (no directory listing, no content negotiation), and loading them would change what the server
#: sends (leaving out mod_autoindex is the usual way to turn listings off). Loaded only where a directive
#: of theirs shows 2.2 had them (-t fails without them), never for the runtime needs of `Options`.
OWN_CHOICE = frozenset({"autoindex_module", "negotiation_module"})


@register
class ModuleNotLoaded(Rule):
    """
    ## What it does
    In a configuration that loads its own modules (it has `LoadModule`
    lines), finds modules 2.4 needs for the configuration to start or to
    serve requests that it does not load -- mostly modules that 2.4 split out
    of the core or out of
    other modules: mod_unixd for `User`/`Group`, mod_filter for
    `AddOutputFilterByType`, mod_authn_core/mod_authz_core for any
    authentication and `Require`, mod_cache_disk for `CacheRoot`,
    mod_socache_shmcb for `SSLSessionCache shmcb:`, an MPM, ... The list is
    :func:`httpd24.api.required_modules`'s: one finding per module, at the
    first directive that needs it. A directive inside `<IfModule>` of a module
    the configuration does not load (and nothing else makes it load) is
    skipped by httpd, so it needs nothing: `<IfModule mod_cache.c> CacheRoot
    /tmp </IfModule>` asks for neither mod_cache nor mod_cache_disk. A module
    it asks for comes with the modules it cannot load or start without
    (mod_cache with mod_cache_disk, mod_proxy with mod_proxy_http, ...).
    Not mod_autoindex for `Options Indexes` nor mod_negotiation for `Options
    MultiViews`: a configuration that left them out listed no directories
    and negotiated nothing on 2.2 either (leaving out mod_autoindex is how
    listings are turned off), and loading them would change that; they are
    loaded only where one of their directives shows 2.2 had them.

    ## Why is this bad?
    2.4 refuses to start: "Invalid command 'User', perhaps misspelled or
    defined by a module not included in the server configuration", "No MPM
    loaded", "Unknown Authz provider"; or it starts and answers 500 to every
    request (no mod_authz_core: "couldn't check user") or to some (a handler,
    a proxy scheme, an authentication type whose module is missing).

    ## Example
    ```apache
    LoadModule auth_basic_module modules/mod_auth_basic.so
    User apache
    ```

    ## Use instead
    ```apache
    LoadModule auth_basic_module modules/mod_auth_basic.so
    # httpd24 (HT404): modules httpd 2.4 needs that this configuration did not load
    LoadModule mpm_event_module modules/mod_mpm_event.so
    LoadModule authz_core_module modules/mod_authz_core.so
    <IfModule !unixd_module>
        LoadModule unixd_module modules/mod_unixd.so
    </IfModule>
    User apache
    ```

    ## Fix safety
    Safe: it adds the missing `LoadModule` lines (every missing module at
    once) after the main file's last one (after the whole `<IfDefine>` or
    `<IfModule>` block when that one sits in one; else after the last one httpd reads,
    never in a file nothing includes; if that file is one of those an `Include`
    wildcard reads, such as Debian's `mods-enabled/*.load`, after that
    `Include`, where no `a2dismod` takes them away), never a module that a
    `LoadModule` of a removed module loads once HT401 renames it
    (`authn_alias_module` becomes `authn_core_module`), each after the modules it
    needs to load (2.4 refuses `mod_cache_disk.so` before `mod_cache.so`:
    "undefined symbol"), from the same directory,
    under a comment that says where they come from: a later `httpd24 lint`
    knows by it that they are the migration's, not a sign that the
    configuration ran on 2.4 already (which would leave out the findings
    about what 2.2 did that still need a person). Modules
    some builds compile in (Debian's apache2 has mod_unixd, mod_log_config,
    mod_logio, mod_version and mod_watchdog built in, where a `LoadModule`
    of them fails) are loaded inside `<IfModule !name_module>`, and not asked
    for at all when the configuration loads its modules from Debian's
    `/usr/lib/apache2/modules`. Not for
    mod_access_compat: the HT5xx rules translate Order/Allow/Deny/Satisfy to
    `Require` in the same migration, so its finding has no fix and remains
    only where a person must translate.
    """

    code = "HT404"
    name = "module-not-loaded"
    severity = Severity.INFO
    summary = "A configuration that loads its own modules does not load one 2.4 needs"
    fix_availability = "always"

    def check_config(self, ctx):
        loads = ctx.module_loads()  # a line added after one in an unread file would not be read either
        if not loads:
            return
        loaded = {item.args[0] for item in loads}
        # HT401 makes `LoadModule authn_alias_module` load authn_core_module (disk_cache: cache_disk) in the same
        # migration: loading that module again here made 2.4 log AH01574 "already loaded, skipping" at every start.
        loaded |= {REMOVED_MODULES[name][1] for name in loaded if REMOVED_MODULES.get(name, ("", None))[1]}
        # With the entry file's own LoadModule lines (Red Hat's httpd.conf), not in a file read later
        # (conf.d/ssl.conf goes away with SSL); else after the last one read (Debian's mods-enabled/).
        last = next((i for i in reversed(loads) if i.file == ctx.configset.entry), loads[-1])
        module_dir = _module_dir(last.args[1]) if len(last.args) > 1 else "modules"
        if module_dir == DEBIAN_MODULE_DIR:  # Debian's apache2, which has these compiled in
            loaded |= DEBIAN_BUILTIN
        requirements = requirements_of(ctx)
        why = _modules_to_load(requirements, loaded | set(ctx.target.modules or ()))
        missing = [m for m in requirements.modules if m.name in why]
        if not missing:
            return
        # Order/Allow/Deny/Satisfy are translated to Require by the HT5xx rules in the same
        # migration: loading mod_access_compat for them would leave an unused module behind.
        # Reported without a fix; it stays only if a person must translate them.
        deferred = [m for m in missing if m.name in DEFERRED]
        missing = [m for m in missing if m.name not in DEFERRED]
        for module in deferred:
            reason = why[module.name] or next((r for r in module.reasons if r.file), None)
            where = _item_at(ctx, reason) if reason else None
            yield self.finding(
                where or loads[-1],
                f"{reason.directive if reason else 'the configuration'} needs {module.name}, which the "
                f"configuration does not load ({MOVED[module.name]}): translate the 2.2 access control to "
                "Require (HT5xx), or load it",
                replacement=f"LoadModule {module.name} "
                + load_path(_module_dir(loads[-1].args[1]) if len(loads[-1].args) > 1 else "modules", module.name),
            )
        if not missing:
            return
        lines = []
        for module in missing:
            line = f"LoadModule {module.name} {load_path(module_dir, module.name)}"
            if module.name in DEBIAN_BUILTIN:
                line = f"<IfModule !{module.name}>\n    {line}\n</IfModule>"
            lines.append(line)
        anchor = _after_loads(last)
        if not loaded_by_migration(anchor):  # a later pass adds to the block of an earlier one
            lines.insert(0, MIGRATION_LOADS)
        text = "\n".join(lines)
        fix = self.fix(f"load {', '.join(m.name for m in missing)} after the last LoadModule",
                       Applicability.SAFE, lambda: edit.insert_after(anchor, text), anchor)
        for module in missing:
            reason = why[module.name]
            moved = MOVED.get(module.name, "")
            if reason is not None and not reason.file and reason.guards:  # a module another one cannot do without
                what = f"{reason.guards[0]} needs {module.name}"
                moved = moved or re.sub(r" \((AH\d+)\)$", r", \1", reason.note)  # no parentheses in parentheses
            else:
                what = f"{reason.directive} needs {module.name}" if reason and reason.file else f"2.4 needs {module.name}"
            message = f"{what}, which the configuration does not load" + (f" ({moved})" if moved else "")
            if module_dir == DEBIAN_MODULE_DIR:
                enable = load_path("", module.name).removeprefix("mod_").removesuffix(".so")  # mods-available/NAME.load
                message += f"; on Debian, `a2enmod {enable}` loads it as well"
            where = _item_at(ctx, reason) if reason else None
            yield self.finding(where or last, message,
                               replacement=f"LoadModule {module.name} {load_path(module_dir, module.name)}",
                               fix=fix)


def _modules_to_load(requirements, loaded: set[str]) -> dict[str, Reason | None]:
    """The required modules a configuration that loads ``loaded`` must load too, each with the reason
    that decides it (the first directive, else what needs it).

    A reason counts only where every module of its ``<IfModule>`` sections is loaded, by the
    configuration or by these lines: httpd skips a block on a module nothing loads, and what its
    directives need with it (``<IfModule mod_cache.c> CacheRoot /tmp`` needs mod_cache_disk only under
    mod_cache). So a module used only inside its own ``<IfModule>`` is not loaded, nor what the rest of
    that block needs, unless something else loads it. Every module loaded brings the modules it cannot
    load, start or work without (mod_cache for mod_cache_disk), whatever its other reasons say.
    """
    available = set(loaded) | ALWAYS
    chosen: dict[str, Reason | None] = {}
    candidates = [m for m in requirements.modules if m.name not in available and not m.third_party]

    def holds(module: str, reason: Reason) -> bool:
        if module in OWN_CHOICE and reason.when == RUNTIME:
            return False
        return not reason.conditional and all(g in available or g in chosen for g in reason.guards)

    changed = True
    while changed:
        changed = False
        for module in candidates:
            if module.name in chosen:
                continue
            counting = [r for r in module.reasons if holds(module.name, r)]
            if counting:
                chosen[module.name] = next((r for r in counting if r.file and r.when in (CONFIGTEST, STARTUP)),
                                           None) or next((r for r in counting if r.file), counting[0])
                changed = True
        for dependent, dependency, when, note in DEPENDENCIES:
            if dependent in chosen and dependency not in available and dependency not in chosen:
                chosen[dependency] = Reason("", 0, f"(needed by {dependent})", when, note, guards=(dependent,))
                changed = True
    return chosen


def _item_at(ctx, reason) -> Item | None:
    """The first live item at a reason's file and line (an index built once per context: rules ask
    for thousands of them on a large configuration)."""
    index = ctx.__dict__.get("_httpd24_items_by_line")
    if index is None:
        index = ctx.__dict__["_httpd24_items_by_line"] = {}
        for item in ctx.live_items():
            index.setdefault((item.file, item.node.location.line), item)
    return index.get((reason.file, reason.line))


@register
class IfModuleRenamed(Rule):
    """
    ## What it does
    Finds `<IfModule mod_disk_cache.c>` and `<IfModule mod_authn_alias.c>`
    (or their `_module` names): modules 2.4 renamed or merged.

    ## Why is this bad?
    2.4 never has these modules, so the block is silently skipped: the disk
    cache settings or provider aliases in it no longer apply.

    ## Example
    ```apache
    <IfModule mod_disk_cache.c>
        CacheRoot /var/cache/httpd
        CacheEnable disk /
    </IfModule>
    ```

    ## Use instead
    ```apache
    <IfModule mod_cache_disk.c>
        CacheRoot /var/cache/httpd
        CacheEnable disk /
    </IfModule>
    ```

    ## Fix safety
    Safe: the block applies where it applied on 2.2, under the module's 2.4
    name. Not fixed (reported as a dead 2.2 branch) when the same section
    already has a sibling block for the 2.4 name, as dual 2.2/2.4
    configurations do.
    """

    code = "HT405"
    name = "ifmodule-renamed-module"
    severity = Severity.WARNING
    summary = "<IfModule> on a module 2.4 renamed (mod_disk_cache, mod_authn_alias) is never true"
    directives = ("ifmodule",)
    fix_availability = "sometimes"

    def check(self, ctx, item):
        if not item.args:
            return
        argument = item.args[0]
        negated = argument.startswith("!")
        identifier = module_identifier(argument.lstrip("!"))
        if identifier not in RENAMED_MODULES:
            return
        new = RENAMED_MODULES[identifier]
        new_source = table.modules()[new].source
        new_argument = ("!" if negated else "") + (new_source if argument.lstrip("!").endswith(".c") else new)
        node = item.node
        siblings = getattr(node.parent, "children", [])
        dual = any(
            getattr(s, "key", None) == "ifmodule" and s is not node and getattr(s, "args", None)
            and module_identifier(s.args[0].lstrip("!")) == new
            for s in siblings
        )
        if dual:
            yield self.finding(
                item,
                f"<IfModule {argument}> is never true on 2.4 ({identifier} is {new} there) and a block for "
                f"{new} exists beside it: this is the dead 2.2 branch, remove it when 2.2 is gone",
                severity=Severity.INFO,
            )
            return
        fix = self.fix(f"test {new_argument} instead", Applicability.SAFE,
                       lambda: edit.set_args(node, [new_argument]), node)
        state = "always" if negated else "never"
        yield self.finding(item, f"<IfModule {argument}> is {state} true on 2.4 ({identifier} is {new} there)",
                           replacement=f"<IfModule {new_argument}>", fix=fix)


#: Directive name prefixes of well-known third-party modules.
THIRD_PARTY_PREFIXES = (
    ("passenger", "mod_passenger (Phusion Passenger)"),
    ("rails", "mod_passenger (Phusion Passenger)"),
    ("rack", "mod_passenger (Phusion Passenger)"),
    ("wsgi", "mod_wsgi"),
    ("perl", "mod_perl"),
    ("python", "mod_python"),
    ("php_", "mod_php"),
    ("sec", "mod_security2"),
    ("fcgid", "mod_fcgid"),
    ("fastcgi", "mod_fastcgi"),
    ("jk", "mod_jk"),
    ("mod_gzip", "mod_gzip"),
    ("svn", "mod_dav_svn"),
    ("authzsvn", "mod_authz_svn"),
    ("shib", "mod_shib (Shibboleth)"),
    ("krb", "mod_auth_kerb"),
    ("gssapi", "mod_auth_gssapi"),
    ("oidc", "mod_auth_openidc"),
    ("pagespeed", "mod_pagespeed"),
    ("rpaf", "mod_rpaf (use mod_remoteip in 2.4)"),
    ("suphp", "mod_suphp"),
    ("ruid", "mod_ruid2"),
    ("evasive", "mod_evasive"),
    ("cband", "mod_cband"),
    ("bw", "mod_bw"),
    ("xsendfile", "mod_xsendfile"),
    ("nss", "mod_nss"),
    ("auth_mysql", "mod_auth_mysql"),
    ("authmysql", "mod_auth_mysql"),
)


def _handled_elsewhere() -> frozenset[str]:
    from ..engine import all_rules

    keys = set()
    for rule in all_rules():
        if rule.code != "HT406":
            keys.update(rule.directives)
    return frozenset(keys)


@register
class UnknownDirective(Rule):
    """
    ## What it does
    Finds directives that no module of httpd 2.4 provides (the directive
    table generated from the real binary) and that no other rule explains:
    directives of third-party modules (mod_wsgi, Passenger, mod_perl, ...),
    typos, and a section's name written without its `<` (`Directory /srv`,
    which httpd reads as an unknown command too). Directives inside
    `<IfModule>` of a module the configuration does not load are not
    reported: httpd skips them.

    ## Why is this bad?
    2.4 refuses to start: "Invalid command 'WSGIScriptAlias', perhaps
    misspelled or defined by a module not included in the server
    configuration" -- unless the module that provides it is loaded, in its
    2.4 build.

    ## Example
    ```apache
    WSGIScriptAlias / /srv/app/app.wsgi
    ```

    ## Use instead
    Load the module's 2.4 build, and mark its lines as checked:
    ```apache
    # httpd24: ignore=HT402
    LoadModule wsgi_module modules/mod_wsgi.so
    # httpd24: ignore=HT406
    WSGIScriptAlias / /srv/app/app.wsgi
    ```

    ## Fix safety
    No fix: which module (and which build of it) provides the directive is
    for a person to decide; or guard the lines with `<IfModule mod_wsgi.c>`.
    """

    code = "HT406"
    name = "unknown-directive"
    severity = Severity.ERROR
    summary = "No httpd 2.4 module provides this directive (third-party module, or a typo)"

    def check_config(self, ctx):
        if _every_directive_known(ctx):
            # The module computation judges <IfModule> more precisely, but only ever keeps a
            # subset of the items the lint's view does not rule out: nothing unknown to find.
            return
        requirements = requirements_of(ctx)
        handled = _handled_elsewhere()
        third_party = [m.name for m in requirements.modules if m.third_party]
        for reason in requirements.unknown:
            if reason.note != "no httpd 2.4 module provides this directive":
                continue
            item = _item_at(ctx, reason)
            if item is None or item.key in handled:
                continue
            name = item.node.name
            lower = name.lower().lstrip("<")
            module = next((m for p, m in THIRD_PARTY_PREFIXES if m and lower.startswith(p)), "")
            if item.key.startswith(NOT_A_SECTION):
                hint = f"it is a section: write <{name} ...> and close it with </{name}>"
            else:
                hint = f"it belongs to {module}" if module else "a third-party module or a typo"
            if third_party:
                yield self.finding(
                    item,
                    f"{name}: no httpd 2.4 module provides it ({hint}); the configuration loads "
                    f"{', '.join(third_party)}, whose 2.4 build may",
                    severity=Severity.WARNING,
                )
            else:
                yield self.finding(
                    item,
                    f"{name}: no httpd 2.4 module provides it ({hint}): 2.4 refuses to start "
                    "(\"Invalid command\") unless that module's 2.4 build is loaded",
                )

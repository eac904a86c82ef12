"""The directive -> module table of a real httpd 2.4 build.

The data lives in ``httpd24/engine/data/`` (``directives.tsv`` and
``modules.tsv``) and is generated from Debian's ``apache2`` binary by
``hack/gen_module_table.py`` (every shared module loaded, ``apache2 -L`` once per
MPM, merged).  This module only reads those files; it never runs httpd.

``directives.tsv`` columns: directive (as httpd spells it, containers with their
leading ``<``), module source file (``mod_rewrite.c``; core directives are
``core.c``), contexts (the ``Allowed in`` text of ``-L`` in condensed form, e.g.
``server config, virtual host, directory, .htaccess (AllowOverride FileInfo)``).

``modules.tsv`` columns: module identifier (``rewrite_module``), source file,
shared object (``mod_rewrite.so``; ``-`` for the three modules that are always
compiled in), ``debian_builtin`` (yes/no, per
``apache2 -l``), ``image_builtin`` (yes/no, per ``httpd -l`` of the official
``httpd:2.4`` image, which compiles in only core.c, mod_so.c and http_core.c).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType

__all__ = [
    "ModuleInfo",
    "DirectiveInfo",
    "directive_modules",
    "directives",
    "modules",
    "override_classes",
    "module_by_source",
    "module_by_so",
    "mpm_modules",
    "build",
]

DATA_PACKAGE = "httpd24.engine"
DATA_DIR = "data"


@dataclass(frozen=True)
class ModuleInfo:
    identifier: str  # "rewrite_module" (the LoadModule name)
    source: str  # "mod_rewrite.c" (what -L, -l and <IfModule mod_rewrite.c> use)
    so: str  # "mod_rewrite.so"; "" for core.c, mod_so.c, http_core.c (never shared)
    debian_builtin: bool  # compiled into Debian's apache2
    image_builtin: bool  # compiled into the official httpd:2.4 image

    @property
    def is_mpm(self) -> bool:
        return self.identifier.startswith("mpm_")


@dataclass(frozen=True)
class DirectiveInfo:
    name: str  # as httpd spells it: "RewriteRule", "<IfModule"
    source: str  # module source file
    contexts: str  # condensed -L "Allowed in" text


def _read_text(name: str) -> str:
    try:
        text = resources.files(DATA_PACKAGE).joinpath(DATA_DIR, name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, TypeError, FileNotFoundError):
        # httpd24.engine may be a namespace package (no __init__.py) during development
        text = (Path(__file__).resolve().parent.parent / "engine" / DATA_DIR / name).read_text(encoding="utf-8")
    return text


def _read(name: str) -> list[list[str]]:
    text = _read_text(name)
    rows = []
    for i, line in enumerate(text.splitlines()):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if i == 0 and fields[0] in ("directive", "identifier"):
            continue  # header
        rows.append(fields)
    return rows


@functools.cache
def directives() -> tuple[DirectiveInfo, ...]:
    """Every (directive, module) row of the table, in file order (sorted)."""
    return tuple(DirectiveInfo(r[0], r[1], r[2] if len(r) > 2 else "") for r in _read("directives.tsv"))


@functools.cache
def override_classes() -> Mapping[str, tuple[str, ...]]:
    """Lower-cased directive name -> the AllowOverride classes (as httpd spells them), any one of which lets the
    directive into an .htaccess file: ``"require"`` -> ``("AuthConfig",)``, ``"<limit"`` -> ``("AuthConfig",
    "Limit")``; ``()`` for one any AllowOverride but None lets in (``<IfModule``, ``<Files``). Directives httpd
    never reads in an .htaccess file are absent."""
    marker = ".htaccess (AllowOverride "
    out: dict[str, tuple[str, ...]] = {}
    for d in directives():
        start = d.contexts.find(marker)
        if start < 0:
            continue
        text = d.contexts[start + len(marker):].split(")", 1)[0]
        out[d.name.lower()] = () if text.startswith("any") else tuple(text.split("|"))
    return MappingProxyType(out)


@functools.cache
def _directive_modules() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for d in directives():
        lst = out.setdefault(d.name.lower(), [])
        if d.source not in lst:
            lst.append(d.source)
    return {k: tuple(v) for k, v in out.items()}


@functools.cache
def _directive_modules_view() -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType(_directive_modules())


def directive_modules() -> Mapping[str, tuple[str, ...]]:
    """Lower-cased directive name -> the module source files that provide it.

    Container directives keep their ``<``: ``"<ifmodule"`` -> ``["core.c"]``.
    A directive registered by several modules keeps every one of them (sorted);
    they are alternatives -- any one of them makes the directive valid:

    * MPM directives are registered by each MPM: ``"listen"`` ->
      ``["event.c", "prefork.c", "worker.c"]`` (httpd's ``-L`` names the MPM,
      not core, for Listen, ListenBacklog, SendBufferSize, ...);
    * ``"scriptlog"`` -> ``["mod_cgi.c", "mod_cgid.c"]``,
      ``"heartbeatstorage"`` -> ``["mod_heartbeat.c", "mod_heartmonitor.c"]``.

    Use :func:`module_by_source` for identifiers and shared objects.  Returns
    a read-only view of the cached table (every lint looks directives up here;
    copying the 750 rows each time cost more than the lookups).
    """
    return _directive_modules_view()


@functools.cache
def _modules() -> dict[str, ModuleInfo]:
    out = {}
    for r in _read("modules.tsv"):
        out[r[0]] = ModuleInfo(r[0], r[1], "" if r[2] == "-" else r[2], r[3] == "yes", r[4] == "yes")
    return out


def modules() -> dict[str, ModuleInfo]:
    """Module identifier -> :class:`ModuleInfo` for every module of the build."""
    return dict(_modules())


@functools.cache
def _by_source() -> dict[str, ModuleInfo]:
    return {m.source.lower(): m for m in _modules().values()}


def module_by_source(source: str) -> ModuleInfo | None:
    """The module whose source file is ``source`` (``"mod_rewrite.c"``), or None."""
    return _by_source().get(source.lower())


@functools.cache
def _by_so() -> dict[str, ModuleInfo]:
    return {m.so: m for m in _modules().values()}


def module_by_so(so: str) -> ModuleInfo | None:
    """The module built as ``so`` (``"mod_rewrite.so"``; a path is accepted), or None."""
    return _by_so().get(so.rsplit("/", 1)[-1])


@functools.cache
def build() -> str:
    """The server the table was generated from, e.g. ``"Apache/2.4.71 (Debian)"``."""
    return _read_text("build.txt").strip()


def mpm_modules() -> list[str]:
    """Identifiers of the MPM modules (``mpm_event_module``, ...), sorted."""
    return sorted(m.identifier for m in _modules().values() if m.is_mpm)

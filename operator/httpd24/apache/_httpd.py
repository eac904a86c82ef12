"""Finding the httpd binary, writing a main configuration, ``-t`` runs.

Everything here uses the standard library only.  Nothing touches system
directories: every run gets a fresh temporary directory with two halves::

    <tmp>/root/        ServerRoot; the caller's files, by their relative names
    <tmp>/httpd24/     what this module adds: main.conf, pid file, logs,
                       DefaultRuntimeDir, an empty default DocumentRoot
"""

from __future__ import annotations

import os
import pwd
import grp
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Iterable, Mapping

from . import table

__all__ = [
    "Httpd",
    "HttpdError",
    "ConfigTestResult",
    "find_httpd",
    "server_config",
    "configtest",
    "dump",
    "write_tree",
    "DEFAULT_MPM",
]

DEFAULT_MPM = "mpm_event_module"

# (binary, module dir) candidates, in order of preference.
_CANDIDATES = (
    ("/usr/sbin/apache2", "/usr/lib/apache2/modules"),  # Debian / Ubuntu
    ("/usr/local/apache2/bin/httpd", "/usr/local/apache2/modules"),  # official httpd image
    ("/usr/sbin/httpd", "/usr/lib64/httpd/modules"),  # Fedora / RHEL
    ("/usr/sbin/httpd", "/usr/lib/httpd/modules"),
)


class HttpdError(RuntimeError):
    """httpd could not be run, or a run failed where success was required."""


@dataclass(frozen=True)
class Httpd:
    """A real httpd 2.4 binary.

    ``builtin_modules`` holds the source files ``httpd -l`` lists
    (``core.c``, ``mod_so.c``, ...); ``version`` is ``(2, 4, 71)``.
    """

    binary: str
    module_dir: str
    builtin_modules: frozenset[str]
    version: tuple[int, ...]

    def is_builtin(self, module: str) -> bool:
        """Whether ``module`` (identifier ``unixd_module`` or source ``mod_unixd.c``) is compiled in."""
        return _module_source(module) in self.builtin_modules

    def so_path(self, module: str) -> str:
        """Absolute path of the shared object of the module identifier ``module``."""
        return os.path.join(self.module_dir, _module_so(module))

    def env(self, run_dir: str | os.PathLike[str] | None = None) -> dict[str, str]:
        """A clean environment for running the binary.

        Debian's ``apache2`` itself needs no variables (only its
        ``/etc/apache2/apache2.conf`` reads ``${APACHE_*}`` from
        ``/etc/apache2/envvars``); the Debian ones are set anyway, pointing
        into ``run_dir``, so that Debian-style configurations resolve.
        """
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C", "LC_ALL": "C",
               # Host-based access rules make httpd look the client up in DNS; where no name server
               # answers (a sandbox, CI), glibc's default waits 5 s per query and a request outlasts
               # the test client's timeout. Failing in 1 s gives the same answer (no name), sooner.
               "RES_OPTIONS": "timeout:1 attempts:1"}
        if run_dir is not None:
            run_dir = os.fspath(run_dir)
            # Debian-style configurations write `ErrorLog ${APACHE_LOG_DIR}/error.log`: it must exist.
            os.makedirs(os.path.join(run_dir, "logs"), exist_ok=True)
            user, group = run_user()
            env.update(
                APACHE_RUN_USER=user or "www-data",
                APACHE_RUN_GROUP=group or "www-data",
                APACHE_PID_FILE=os.path.join(run_dir, "httpd.pid"),
                APACHE_RUN_DIR=run_dir,
                APACHE_LOCK_DIR=run_dir,
                APACHE_LOG_DIR=os.path.join(run_dir, "logs"),
            )
        return env


def _parse_version(text: str) -> tuple[int, ...]:
    m = re.search(r"Apache/(\d+(?:\.\d+)*)", text)
    if not m:
        raise HttpdError(f"cannot read the version from {text!r}")
    return tuple(int(x) for x in m.group(1).split("."))


def _probe(binary: str, module_dir: str | None) -> Httpd | None:
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        return None
    try:
        v = subprocess.run([binary, "-v"], capture_output=True, text=True, timeout=20, env={"PATH": "/usr/bin:/bin", "LANG": "C"})
        ll = subprocess.run([binary, "-l"], capture_output=True, text=True, timeout=20, env={"PATH": "/usr/bin:/bin", "LANG": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    if v.returncode != 0 or ll.returncode != 0:
        return None
    builtins = frozenset(line.strip() for line in ll.stdout.splitlines()[1:] if line.strip().endswith(".c"))
    if module_dir is None:
        prefix = Path(binary).resolve().parent.parent
        for cand in (prefix / "modules", prefix / "lib" / "apache2" / "modules", prefix / "lib64" / "httpd" / "modules"):
            if cand.is_dir():
                module_dir = str(cand)
                break
        else:
            module_dir = str(prefix / "modules")
    return Httpd(binary, module_dir, builtins, _parse_version(v.stdout))


def find_httpd() -> Httpd | None:
    """Find a usable httpd 2.4 binary, or None.

    ``HTTPD24_HTTPD`` overrides the search: either ``/path/to/httpd`` or
    ``/path/to/httpd:/path/to/modules``.  Otherwise Debian's
    ``/usr/sbin/apache2`` (modules in ``/usr/lib/apache2/modules``), the
    official image's ``/usr/local/apache2/bin/httpd`` (``modules/`` beside
    it), then Red Hat's ``/usr/sbin/httpd``.
    """
    override = os.environ.get("HTTPD24_HTTPD")
    if override:
        binary, _, mdir = override.partition(":")
        return _probe(binary, mdir or None)
    for binary, mdir in _CANDIDATES:
        if os.path.isdir(mdir):
            found = _probe(binary, mdir)
            if found:
                return found
    for name in ("apache2", "httpd"):
        path = shutil.which(name, path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        if path:
            found = _probe(path, None)
            if found:
                return found
    return None


# --- modules -----------------------------------------------------------------


def _table_info(module: str) -> table.ModuleInfo | None:
    try:
        return table.modules().get(module)
    except FileNotFoundError:  # the table is being (re)generated
        return None


def _module_source(module: str) -> str:
    if module.endswith(".c"):
        return module
    info = _table_info(module)
    if info:
        return info.source
    stem = module[: -len("_module")] if module.endswith("_module") else module
    return f"mod_{stem}.c"


def _module_so(module: str) -> str:
    info = _table_info(module)
    if info:
        return info.so
    stem = module[: -len("_module")] if module.endswith("_module") else module
    return f"mod_{stem}.so"


def _is_mpm(module: str) -> bool:
    return module.startswith("mpm_")


def run_user() -> tuple[str | None, str | None]:
    """The ``User``/``Group`` children run as when httpd is started as root.

    ``www-data`` when it exists, else ``nobody``/``nogroup`` (or ``nobody``).
    (None, None) when not running as root: httpd then keeps the current user.
    """
    if os.geteuid() != 0:
        return None, None
    user = group = None
    for u in ("www-data", "daemon", "nobody"):
        try:
            pwd.getpwnam(u)
            user = u
            break
        except KeyError:
            pass
    for g in ("www-data", "nogroup", "nobody", "daemon"):
        try:
            grp.getgrnam(g)
            group = g
            break
        except KeyError:
            pass
    return user, group


def load_modules(modules: Iterable[str], httpd: Httpd, *, need_mpm: bool = True, need_unixd: bool | None = None) -> list[str]:
    """The module identifiers to LoadModule, in load order (MPM first, then by .so name).

    Built-in modules are dropped; an MPM (:data:`DEFAULT_MPM`) is added when
    none is given and ``need_mpm``; ``unixd_module`` is added when running as
    root (``need_unixd`` None) and it is not built in, since ``User``/``Group``
    need it.  Duplicates are removed.
    """
    mods = list(dict.fromkeys(modules))
    if need_mpm and not any(_is_mpm(m) for m in mods):
        mods.append(DEFAULT_MPM)
    if need_unixd is None:
        need_unixd = os.geteuid() == 0
    if need_unixd and "unixd_module" not in mods:
        mods.append("unixd_module")
    mods = [m for m in mods if not httpd.is_builtin(m)]
    return sorted(mods, key=lambda m: (not _is_mpm(m), _module_so(m)))


def _q(path: str | os.PathLike[str]) -> str:
    s = os.fspath(path)
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def server_config(
    modules: Iterable[str],
    *,
    server_root: str | os.PathLike[str],
    listen: Iterable[str],
    pid_file: str | os.PathLike[str],
    error_log: str | os.PathLike[str],
    extra: str = "",
    include: str | None = None,
    httpd: Httpd | None = None,
    runtime_dir: str | os.PathLike[str] | None = None,
    document_root: str | os.PathLike[str] | None = None,
    types_config: str | os.PathLike[str] | None = None,
) -> str:
    """A minimal main configuration that includes the caller's entry file.

    In order: ``ServerRoot``, ``LoadModule`` for exactly ``modules`` (module
    identifiers; built-ins of ``httpd`` skipped, MPM first; an MPM is added
    when none is given, ``unixd_module`` when running as root), ``ServerName
    localhost``, ``PidFile``, ``DefaultRuntimeDir`` (``runtime_dir``, default:
    the pid file's directory), ``Listen`` lines, ``ErrorLog``, ``User``/
    ``Group`` when running as root, ``DocumentRoot`` when given, ``TypesConfig``
    when given and ``mime_module`` is among ``modules`` (a module loaded by the
    included files themselves gets no TypesConfig: set it there),
    ``extra``, then ``Include <include>`` (relative to ServerRoot) if given.
    Directives of the included file come later and therefore win where httpd
    keeps the last value (ErrorLog, DocumentRoot, ...).
    """
    httpd = httpd or find_httpd()
    if httpd is None:
        raise HttpdError("no httpd binary found")
    runtime_dir = runtime_dir if runtime_dir is not None else os.path.dirname(os.fspath(pid_file))
    lines = [
        "# generated by httpd24.apache.server_config",
        f"ServerRoot {_q(server_root)}",
    ]
    modules = list(modules)
    for m in load_modules(modules, httpd):
        lines.append(f"LoadModule {m} {_q(httpd.so_path(m))}")
    lines += [
        "ServerName localhost",
        f"PidFile {_q(pid_file)}",
        f"DefaultRuntimeDir {_q(runtime_dir)}",
    ]
    lines += [f"Listen {addr}" for addr in listen]
    lines.append(f"ErrorLog {_q(error_log)}")
    user, group = run_user()
    if user:
        lines.append(f"User {user}")
    if group:
        lines.append(f"Group {group}")
    if document_root is not None:
        lines.append(f"DocumentRoot {_q(document_root)}")
    if types_config is not None and ("mime_module" in modules or httpd.is_builtin("mime_module")):
        # mod_mime's default TypesConfig is relative to the ServerRoot
        lines.append(f"TypesConfig {_q(types_config)}")
    if extra:
        lines.append(extra.rstrip("\n"))
    if include is not None:
        lines.append(f"Include {_q(include)}")
    return "\n".join(lines) + "\n"


# --- temporary trees ---------------------------------------------------------


def _safe_rel(name: str) -> PurePosixPath:
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise ValueError(f"file name must be relative and stay inside the server root: {name!r}")
    return p


def write_tree(root: str | os.PathLike[str], files: Mapping[str, bytes | str]) -> None:
    """Write ``files`` (relative name -> content) under ``root``, creating directories."""
    root = Path(root)
    for name, data in files.items():
        rel = _safe_rel(name)
        path = root.joinpath(*rel.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        path.write_bytes(data)


def _open_up(top: Path) -> None:
    """When root, let the unprivileged children read everything under ``top``."""
    if os.geteuid() != 0:
        return
    for dirpath, dirnames, filenames in os.walk(top):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                os.chmod(p, 0o644)


_MIME_TYPES = """\
text/html\thtml htm
text/plain\ttxt
text/css\tcss
application/javascript\tjs
application/json\tjson
image/png\tpng
"""


class _Tree:
    """A temporary ``root/`` + ``httpd24/`` pair; see the module docstring."""

    def __init__(self, files: Mapping[str, bytes | str], prefix: str = "httpd24-"):
        for name in files:
            _safe_rel(name)  # before creating anything
        self.tmp = Path(tempfile.mkdtemp(prefix=prefix))
        self.root = self.tmp / "root"
        self.own = self.tmp / "httpd24"
        self.logs = self.own / "logs"
        self.run = self.own / "run"
        self.htdocs = self.own / "htdocs"
        for d in (self.root, self.logs, self.run, self.htdocs):
            d.mkdir(parents=True)
        try:
            write_tree(self.root, files)
        except BaseException:
            self.cleanup()
            raise
        self.main = self.own / "main.conf"
        self.pid_file = self.run / "httpd.pid"
        self.error_log = self.logs / "error_log"
        self.access_log = self.logs / "access_log"
        self.mime_types = self.own / "mime.types"
        self.mime_types.write_text(_MIME_TYPES)

    def write_main(self, text: str) -> None:
        self.main.write_text(text)
        _open_up(self.tmp)

    def relativize(self, text: str) -> str:
        """Replace ``<tmp>/root/`` by nothing so messages name the caller's files."""
        return text.replace(str(self.root) + "/", "").replace(str(self.root), ".")

    def cleanup(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def _main_config(tree: _Tree, modules: Iterable[str], entry: str | None, httpd: Httpd, listen=(), extra: str = "") -> str:
    if entry is not None:
        _safe_rel(entry)
    return server_config(
        modules,
        server_root=tree.root,
        listen=listen,
        pid_file=tree.pid_file,
        error_log=tree.error_log,
        extra=extra,
        include=entry,
        httpd=httpd,
        runtime_dir=tree.run,
        document_root=tree.htdocs,
        types_config=tree.mime_types,
    )


def _run(httpd: Httpd, args: list[str], tree: _Tree, timeout: float) -> subprocess.CompletedProcess[str]:
    cmd = [httpd.binary, "-d", str(tree.root), "-f", str(tree.main), *args]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
        env=httpd.env(tree.run),
        cwd=str(tree.root),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        raise HttpdError(f"{' '.join(cmd)} did not finish within {timeout}s") from None
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


# --- configtest / dumps ------------------------------------------------------


@dataclass(frozen=True)
class ConfigTestResult:
    """Result of ``httpd -t``.

    ``output`` is stderr then stdout of httpd with the temporary server root
    stripped from paths (``Syntax error on line 3 of httpd.conf: ...``);
    ``raw_output`` keeps the absolute paths.  ``returncode`` is None on a timeout.
    """

    ok: bool
    output: str
    returncode: int | None
    raw_output: str = field(default="", repr=False)
    main_config: str = field(default="", repr=False)


def _defines(extra_defines: Iterable[str]) -> list[str]:
    args: list[str] = []
    for d in extra_defines:
        args += ["-D", d]
    return args


def configtest(
    files: Mapping[str, bytes | str],
    entry: str,
    modules: Iterable[str],
    *,
    timeout: float = 20,
    extra_defines: Iterable[str] = (),
    httpd: Httpd | None = None,
    extra: str = "",
) -> ConfigTestResult:
    """Run ``httpd -t`` on ``files`` (relative name -> content) included from ``entry``.

    ``modules`` are the module identifiers to load (see :func:`server_config`).
    The files are written into a fresh temporary server root which is removed
    afterwards.  ``-t`` opens no sockets and starts no piped loggers or
    RewriteMap programs.  ``extra_defines`` become ``-D NAME`` arguments.
    """
    httpd = httpd or find_httpd()
    if httpd is None:
        raise HttpdError("no httpd binary found")
    tree = _Tree(files)
    try:
        main = _main_config(tree, modules, entry, httpd, extra=extra)
        tree.write_main(main)
        try:
            cp = _run(httpd, ["-t", *_defines(extra_defines)], tree, timeout)
        except HttpdError as e:
            return ConfigTestResult(False, str(e), None, str(e), main)
        raw = cp.stderr + cp.stdout
        return ConfigTestResult(cp.returncode == 0, tree.relativize(raw), cp.returncode, raw, main)
    finally:
        tree.cleanup()


DUMPS = ("DUMP_INCLUDES", "DUMP_RUN_CFG", "DUMP_CONFIG", "DUMP_VHOSTS", "DUMP_MODULES")


def dump(
    files: Mapping[str, bytes | str],
    entry: str,
    modules: Iterable[str],
    what: str = "DUMP_INCLUDES",
    *,
    timeout: float = 20,
    extra_defines: Iterable[str] = (),
    httpd: Httpd | None = None,
    relative: bool = True,
) -> str:
    """``httpd -t -D <what>`` on the given files; returns httpd's stdout.

    ``what`` is one of :data:`DUMPS`.  ``DUMP_CONFIG`` is mod_info's dump
    (IfDefine/IfModule evaluated, variables replaced); ``info_module`` is
    loaded for it automatically.  Note that the main configuration written by
    :func:`server_config` is part of every dump (it is the first file).
    With ``relative`` the temporary server root is stripped from paths.
    Raises :class:`HttpdError` (with httpd's messages) when httpd fails.
    """
    if what not in DUMPS:
        raise ValueError(f"what must be one of {DUMPS}")
    httpd = httpd or find_httpd()
    if httpd is None:
        raise HttpdError("no httpd binary found")
    modules = list(modules)
    if what == "DUMP_CONFIG" and "info_module" not in modules:
        modules.append("info_module")
    tree = _Tree(files)
    try:
        tree.write_main(_main_config(tree, modules, entry, httpd))
        cp = _run(httpd, ["-t", "-D", what, *_defines(extra_defines)], tree, timeout)
        if cp.returncode != 0:
            raise HttpdError(f"httpd -t -D {what} failed ({cp.returncode}):\n{tree.relativize(cp.stderr + cp.stdout)}")
        return tree.relativize(cp.stdout) if relative else cp.stdout
    finally:
        tree.cleanup()

"""The configtest gate: real ``httpd -t`` on exactly the files a pod will mount.

The bundle (user files + ``httpd24-main.conf``) is written into a fresh
temporary ServerRoot by :func:`httpd24.apache.configtest` and checked with
``-D HTTPD24_LOCAL`` plus ``Define`` lines mapping the pod's module directory
to the local one (see :mod:`httpd24.k8s.mainconf`); nothing in the files is
rewritten. The run has a time limit and, where the kernel allows it, no
network (a fresh network namespace via ``unshare``): ``httpd -t`` resolves
names in ``<VirtualHost>`` addresses.

Environment:

* ``HTTPD24_CONFIGTEST_TIMEOUT`` seconds per run (default 20).
* ``HTTPD24_CONFIGTEST_NETNS`` ``auto`` (default: isolate when possible) or ``off``.
* ``HTTPD24_CONFIGTEST`` ``off`` skips the gate (every config passes; for clusters without an
  httpd binary in the operator image - not recommended).
* ``HTTPD24_HTTPD`` which httpd to run (see :func:`httpd24.apache.find_httpd`).
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
import shlex
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .. import apache
from ..config import DEFAULT_TARGET, ConfigSet, Liveness, ParseError
from ..config.parser import tokenize
from . import mainconf
from .models_server import CONTENT_DIR, CONTENT_VARIABLE, MAIN_KEY

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GateResult:
    ok: bool
    output: str  # httpd's messages, temp paths stripped
    hash: str
    seconds: float
    cached: bool = False


#: Where an Include may point: the ServerRoot (the bundle) and the image's own configuration files.
INCLUDE_DIRS = (mainconf.SERVER_ROOT + "/", posixpath.dirname(mainconf.MODULE_DIR) + "/conf/")
#: Where LoadModule / LoadFile may point: read-only code of the image or the system, never the bundle.
CODE_DIRS = (mainconf.MODULE_DIR + "/", "/usr/lib/", "/usr/lib64/", "/lib/", "/lib64/", "/usr/local/lib/")


#: Where a path that httpd checks while reading the configuration (exists? a directory? not empty?) may point:
#: the bundle, and the image's code and public data (``/usr``, which holds the official image's
#: ``/usr/local/apache2``, and the public CA certificates), which the operator's image and the pod's
#: (both ``httpd:2.4``) share ...
PROBE_DIRS = (mainconf.SERVER_ROOT + "/", "/usr/", "/etc/ssl/certs/")
#: ... and, themselves but nothing under them, the pod's emptyDirs (empty when httpd starts), the directory
#: behind ``ErrorLog "/proc/self/fd/2"`` and ``/dev`` (``/dev/stderr``).
PROBE_EXACT = ("/tmp", mainconf.RUN_DIR, "/proc/self/fd", "/dev")

#: Measured on apache2 2.4.71 by running ``-t`` on every directive of the engine's table with its path argument
#: missing, a file and a directory (and its parent directory missing and present). These open and parse the
#: file while httpd reads the configuration; RemoteIP*ProxyList echo its first word in their error, as
#: Include does. The file must be where an Include may point.
READS = frozenset({"remoteipinternalproxylist", "remoteiptrustedproxylist", "sessioncryptopassphrasefile",
                   "mdexternalaccountbinding"})
#: These stat or open a path at ``-t`` and fail or warn depending on what is there, so the answer would tell
#: the namespace whether a path exists on the operator's host. Value: index of the path argument (None: any).
PROBES: dict[str, int | None] = {
    "iffile": 0, "documentroot": 0, "defaultruntimedir": 0, "coredumpdirectory": 0, "chrootdir": 0,
    "cachefile": None, "mmapfile": None, "ldaptrustedglobalcert": 1, "ldaptrustedclientcert": 1,
    "rewritemap": 1, "sslrandomseed": 1, "sslpassphrasedialog": 0, "mutex": None,
    **dict.fromkeys((
        "sslcertificatefile", "sslcertificatekeyfile", "sslcertificatechainfile", "sslcacertificatefile",
        "sslcacertificatepath", "sslcadnrequestfile", "sslcadnrequestpath", "sslcarevocationfile",
        "sslcarevocationpath", "sslocspresponder" + "certificatefile", "sslproxycacertificatefile",
        "sslproxycacertificatepath", "sslproxycarevocationfile", "sslproxycarevocationpath",
        "sslproxymachinecertificatechainfile", "sslproxymachinecertificatefile",
        "sslproxymachinecertificatepath", "sslsessionticketkeyfile", "sslsrpverifierfile"), 0),
}
#: A virtual host's DocumentRoot that does not exist is only a warning (the main server's is an error, and
#: so refused above like the other probes): common in proxy-only hosts, so allowed, and the warning that
#: would tell whether the path exists on the operator's host is dropped from the gate's output.
VHOST_ROOT_WARNING = "AH00112"
#: These check that the directory of their file exists (``Cannot access directory ... for log file``).
LOG_DIRS = frozenset({"errorlog", "customlog", "transferlog", "globallog"})
#: ``RewriteMap name txt:/path``, ``SSLRandomSeed startup file:/path``, ``Mutex file:/dir``: the type goes.
_TYPE = re.compile(r"^(?:txt|rnd|prg|dbm(?:=\w*)?|file|exec|fcntl|flock):", re.IGNORECASE)
#: Arguments naming no file: RewriteMap's int:/dbd:/fastdbd: maps, SSLRandomSeed builtin, Mutex mechanisms.
_NO_PATH = re.compile(r"^(?:int|dbd|fastdbd|builtin|egd|sem|pthread|posixsem|sysvsem|default|none)(?::|$)", re.IGNORECASE)
_EXEC = ("include", "includeoptional", "loadmodule", "loadfile", "serverroot", "authldapbindpassword")


def _checked_paths(key: str, args: list[str]) -> list[str]:
    """The paths httpd stats or opens at ``-t`` for this line (as written, the map or seed type removed)."""
    if key in PROBES:
        index = PROBES[key]
        words = list(args) if index is None else args[index:index + 1]
        if key == "mutex":
            words = [w for w in args if re.match(r"^(?:file|fcntl|flock):", w, re.IGNORECASE)]
        elif key in ("sslrandomseed", "sslpassphrasedialog"):
            words = [w for w in words if re.match(r"^(?:file|exec):", w, re.IGNORECASE)]
        elif key == "iffile":
            words = [w.removeprefix("!") for w in words]
        return [_TYPE.sub("", w, count=1) for w in words if w and not _NO_PATH.match(w)]
    if key in LOG_DIRS and args and not args[0].startswith("|") and not args[0].lower().startswith("syslog"):
        return [posixpath.dirname(posixpath.join(mainconf.SERVER_ROOT, args[0])) or "/"]
    return []


def _line_problem(key: str, args: list[str], main_modules: set[str], where: str, content: tuple[str, ...] = ()) -> str | None:
    """What is wrong with one line httpd acts on (``file:line: what -> what to do``), or None."""
    if key in ("include", "includeoptional"):
        if not _inside(args[0], INCLUDE_DIRS):
            return (f"{where}: points outside the ConfigMap, which the configtest will not read on the "
                    f"operator's host -> put the file into the ConfigMap and include it by its key")
    elif key in ("loadmodule", "loadfile"):
        if key == "loadmodule" and args[0] in main_modules:
            return None  # already loaded: httpd skips the line before opening the file
        paths = args[1:] if key == "loadmodule" else args
        if not paths or not all(_inside(path, CODE_DIRS) for path in paths):
            return (f"{where}: loads code from outside {mainconf.MODULE_DIR} and the system library "
                    f"directories -> remove the line (httpd24 loads the modules the configuration needs) "
                    f'or use "${{HTTPD24_MODULES}}/mod_NAME.so"')
    elif key == "authldapbindpassword":
        if args[0].lower().startswith("exec:"):
            return (f"{where}: runs a program while httpd reads the configuration, which the configtest would "
                    f"do on the operator's host -> write the password itself")
    elif key in READS:
        if key == "mdexternalaccountbinding" and (len(args) != 1 or args[0].lower() == "none"):
            return None  # the "key-id hmac" form names no file
        if not _inside(args[0], INCLUDE_DIRS):
            return (f"{where}: reads a file outside the ConfigMap, which the configtest will not read on the "
                    f"operator's host -> put the file into the ConfigMap and name it by its key")
    else:
        outside = [p for p in _checked_paths(key, args) if not _probe_ok(p, content)]
        if outside:
            return (f"{where}: checks {outside[0]} while httpd reads the configuration; it is neither in the "
                    f"ConfigMap nor in the image, so the pod will not have it, and the configtest will not "
                    f"look for it on the operator's host -> put the file into the ConfigMap and name it by "
                    f"its key (relative to {mainconf.SERVER_ROOT}), or use a path of the image "
                    f"(/usr/local/apache2/..., /etc/ssl/certs/...)")
    return None


def _probe_ok(path: str, content: tuple[str, ...] = ()) -> bool:
    if "${" in path:
        # Defines are substituted already: what is left is an environment variable, and httpd -t gets only
        # APACHE_* ones, which point into its temporary directory (others stay literal text). Only a ".."
        # could climb from there to a host path.
        return ".." not in path.split("/")
    absolute = posixpath.normpath(posixpath.join(mainconf.SERVER_ROOT, path))
    if _content_name(absolute) in content:
        return True  # the gate checks a stand-in (:func:`_content_problem`)
    return absolute in PROBE_EXACT or any((absolute + "/").startswith(prefix) for prefix in PROBE_DIRS)


#: Lines whose checked path must be a directory (log lines: :func:`_checked_paths` gives the file's directory).
DIRECTORY_PROBES = frozenset({
    "documentroot", "defaultruntimedir", "coredumpdirectory", "chrootdir", "mutex", "sslcacertificatepath",
    "sslcarevocationpath", "sslproxycacertificatepath", "sslproxycarevocationpath", "sslcadnrequestpath",
}) | LOG_DIRS


def _content_name(absolute: str) -> str | None:
    """The ``spec.content`` volume an absolute path lies in (``/srv/httpd24/<name>/...``), if it lies in one."""
    if not absolute.startswith(CONTENT_DIR + "/"):
        return None
    return absolute[len(CONTENT_DIR) + 1:].split("/", 1)[0] or None


def _content_problem(key: str, args: list[str], written: list[str], content: tuple[str, ...], where: str,
                     stand_ins: dict[str, bytes]) -> str | None:
    """What is wrong with a line that checks a path under :data:`CONTENT_DIR` at ``-t``, or None after putting
    the stand-in its check needs into ``stand_ins`` (bundle-relative name -> bytes). ``args`` are substituted,
    ``written`` as in the file."""
    for path in _checked_paths(key, args):
        absolute = posixpath.normpath(posixpath.join(mainconf.SERVER_ROOT, path))
        if not (absolute + "/").startswith(CONTENT_DIR + "/"):
            continue
        name, relative = _content_name(absolute), absolute[len(CONTENT_DIR):]  # relative: "" or "/NAME/..."
        if name not in content:
            listed = ", ".join(content) or "none"
            return (f"{where}: checks {absolute}, but no spec.content volume is named {name or '(none)'} (spec.content: "
                    f"{listed}) -> add the volume to spec.content, or name a path of one")
        if key == "iffile":
            return (f"{where}: whether {absolute} exists is known only in the pods (the configtest does not read "
                    f"content volumes) -> test a file of the ConfigMap instead, or remove the <IfFile>")
        if "${" + CONTENT_VARIABLE + "}" not in " ".join(written):
            return (f"{where}: names {absolute} by its path, which the configtest cannot check -> write "
                    f"${{{CONTENT_VARIABLE}}}{relative} (the configtest maps it to stand-ins of the volume)")
        stand_in = mainconf.CONTENT_STAND_INS + relative
        if key in DIRECTORY_PROBES:
            stand_ins[f"{stand_in}/{mainconf.CONTENT_STAND_INS}"] = mainconf.CONTENT_PLACEHOLDER  # makes the directory
        else:
            stand_ins[stand_in] = mainconf.CONTENT_PLACEHOLDER
    return None


def _macro_problems(item, main_modules: set[str], content: tuple[str, ...], stand_ins: dict[str, bytes]) -> list[str]:
    """The lines of a ``<Macro>`` body (``Use`` expands them, then httpd acts on them) that would be refused,
    and any line whose directive, or checked path, is a macro parameter (unknown until each ``Use``).
    Defines are substituted only after ``Use``, so ``${HTTPD24_CONTENT}`` is mapped here, for its stand-ins."""
    params = [p for p in item.args[1:] if p]
    problems = []
    vhosts = 0  # <VirtualHost> sections open in the body
    for offset, raw in enumerate((item.node.raw_body or "").splitlines(), start=1):
        text = raw.strip()
        vhosts += text.lower().startswith("<virtualhost") - text.lower().startswith("</virtualhost")
        if not text or text.startswith(("#", "</")):
            continue
        words = tokenize(text)[0]
        if text.startswith("<"):
            words = [w[:-1] if w.endswith(">") and i == len(words) - 1 else w for i, w in enumerate(words)]
        if not words:
            continue
        key, args = words[0].lstrip("<").lower(), words[1:]
        if key == "documentroot" and vhosts > 0:
            continue  # only a warning there, dropped from the gate's output (VHOST_ROOT_WARNING)
        where = f"{item.file}:{item.node.location.line + offset}: {text}"
        if any(p in words[0] for p in params):
            problems.append(f"{where}: a directive named by a macro parameter cannot be checked before httpd -t "
                            f"runs on the operator's host -> write the directive's name in the macro")
        elif args and (key in _EXEC or key in READS or key in PROBES or key in LOG_DIRS) and any(
                p in a for p in params for a in args):
            problems.append(f"{where}: a path given by a macro parameter cannot be checked before httpd -t runs "
                            f"on the operator's host -> write the path in the macro")
        elif key == "serverroot":
            problems.append(f"{where}: ServerRoot is where httpd24 mounts the ConfigMap "
                            f"({mainconf.SERVER_ROOT}) -> remove the line")
        elif args:
            resolved = [a.replace("${" + CONTENT_VARIABLE + "}", CONTENT_DIR) for a in args] if content else args
            problem = (_content_problem(key, resolved, args, content, where, stand_ins)
                       or _line_problem(key, resolved, main_modules, where, content))
            if problem:
                problems.append(problem)
    return problems


def _absolute_in_root(key: str, args: list[str]) -> str | None:
    """A path this line names absolutely inside the pod's ServerRoot (``/etc/httpd24/x``), if any."""
    if key in ("include", "includeoptional") or key in READS or key in LOG_DIRS:
        paths = args[:1]  # as written (_checked_paths gives a log file's directory, already made absolute)
    else:
        paths = _checked_paths(key, args)
    for path in paths:
        if path.startswith("/") and (posixpath.normpath(path) + "/").startswith(mainconf.SERVER_ROOT + "/"):
            return path
    return None


def outside_reads(files: dict[str, bytes], absolute_root: bool = True, content: tuple[str, ...] | list[str] = (),
                  stand_ins: dict[str, bytes] | None = None) -> list[str]:
    """Lines that would make ``httpd -t`` on the operator's host read or run what is not the user's to read or run.

    ``httpd -t`` echoes the first word of a line it cannot parse, so an ``Include`` of a host file
    (the operator's ServiceAccount token) would put its content into the HttpdServer's status,
    which the namespace can read; ``LoadModule`` / ``LoadFile`` of a ConfigMap key holding a
    shared object would run its code inside the operator. Paths are judged as the pod sees them
    (ServerRoot ``/etc/httpd24``), after ``${VAR}`` substitution, on every line httpd may read.
    A file that does not parse is refused too: httpd would still act on the lines before the error.
    Each entry is ``file:line: what -> what to do``.

    Other directives touch host paths at ``-t`` time too (measured, see :data:`READS`, :data:`PROBES`):
    ``RemoteIPTrustedProxyList`` and friends read and echo a file like Include, so they get Include's rule;
    ``AuthLDAPBindPassword exec:`` runs a program, always refused; ``<IfFile>``, the ``SSL*File``/``Path``
    checks, ``DocumentRoot``, ``ErrorLog``'s directory, ``RewriteMap`` files and the rest only test whether a
    path exists, which would still answer "does the operator have this file?". Their path must be in the
    bundle, the image's public part (:data:`PROBE_DIRS`) or one of the pod's empty directories
    (:data:`PROBE_EXACT`). That refuses no configuration that could work: the pod has only the ConfigMap, the
    image (the same ``httpd:2.4`` as the operator's) and empty directories, so a path elsewhere does not exist
    there either and httpd would refuse to start (``does not exist or is empty``) or take the other branch.
    These checks hold with or without the gate's own mount namespace (:func:`_sandbox_script`), which
    most clusters' seccomp profiles refuse; ``<Macro>`` bodies are checked too, since ``Use`` expands them
    after this check.

    ``absolute_root=False`` (no mount namespace: the bundle cannot be at the pod's ServerRoot) also refuses
    absolute paths into the ServerRoot, which ``httpd -t`` could not find, with the relative form to use.

    ``content`` names the ``spec.content`` volumes: a checked path in one of them is allowed when written
    ``${HTTPD24_CONTENT}/...`` (so the configtest can map it), and ``stand_ins`` (when given) gets the
    stand-in each such check needs; an ``<IfFile>`` there is refused, since only the pods can answer it.
    """
    content = tuple(content)
    stand_ins = {} if stand_ins is None else stand_ins
    configset = ConfigSet.from_mapping(files, entry=MAIN_KEY, server_root=mainconf.SERVER_ROOT)
    problems = [f"{e.file}:{e.line}: {e.reason}" for e in configset.errors]
    if problems:
        return problems
    try:
        view = configset.view(DEFAULT_TARGET)
    except ParseError as error:  # an Include cycle, or sections nested too deep across Includes
        return [f"{error.file}:{error.line}: {error.reason}"]
    main_modules = {i.args[0] for i in view.items if i.file == MAIN_KEY and i.key == "loadmodule" and i.args}
    for item in view.items:
        if item.live is Liveness.DEAD or (item.file != MAIN_KEY and not item.via) or not item.args:
            continue  # httpd never reads it (a file nothing includes is never opened)
        where = f"{item.file}:{item.node.location.line}: {item.node.name} {' '.join(item.args)}"
        if item.key == "serverroot" and item.file != MAIN_KEY:
            if posixpath.normpath(item.args[0]) != mainconf.SERVER_ROOT:
                problems.append(
                    f"{where}: ServerRoot is where httpd24 mounts the ConfigMap ({mainconf.SERVER_ROOT}); "
                    f"relative paths would resolve elsewhere -> remove the line"
                )
        elif item.key == "macro":
            problems += _macro_problems(item, main_modules, content, stand_ins)
        elif item.key == "documentroot" and item.in_section("virtualhost") is not None:
            continue  # a virtual host's missing DocumentRoot is only a warning, which the gate drops (VHOST_ROOT_WARNING)
        else:
            problem = _content_problem(item.key, item.args, item.node.args, content, where, stand_ins) or _line_problem(
                item.key, item.args, main_modules, where, content)
            absolute = None if problem or absolute_root else _absolute_in_root(item.key, item.args)
            if absolute:
                relative = posixpath.relpath(posixpath.normpath(absolute), mainconf.SERVER_ROOT)
                problem = (f"{where}: names {absolute} by its absolute path, which the configtest can only find "
                           f"inside a mount namespace of its own (not available to the operator here) -> write "
                           f"it relative to the ServerRoot: {relative}")
            if problem:
                problems.append(problem)
    for name in [n for n in stand_ins if any(other.startswith(n + "/") for other in stand_ins)]:
        del stand_ins[name]  # a file where another line needs a directory: the directory (httpd -t says what fails)
    return problems


def _inside(path: str, prefixes: tuple[str, ...]) -> bool:
    if "${" in path:
        return False  # an undefined variable: where it points cannot be known
    absolute = posixpath.normpath(posixpath.join(mainconf.SERVER_ROOT, path))
    return any((absolute + "/").startswith(prefix) for prefix in prefixes)


def _unshare_prefix() -> list[str] | None:
    exe = shutil.which("unshare")
    if not exe:
        return None
    for args in ([exe, "--net"], [exe, "--map-root-user", "--net"]):
        try:
            if subprocess.run([*args, "true"], capture_output=True, timeout=10).returncode == 0:
                return args
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


#: What the sandboxed ``httpd -t`` sees of the host besides the bundle (see :func:`_sandbox_script`): system code
#: and public data (the same in the operator's image as in the pod's, both ``httpd:2.4``), and the few files of
#: ``/etc`` that httpd, the C library and OpenSSL read while loading modules and resolving ``User``/``Group``.
SANDBOX_DIRS = ("/usr", "/etc/ssl/certs")
SANDBOX_FILES = (
    "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/gai.conf", "/etc/host.conf",
    "/etc/hosts", "/etc/localtime", "/etc/mime.types", "/etc/ssl/openssl.cnf",
    "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom",
)
#: Top-level directories that are symbolic links into /usr on a merged-/usr system (copied as links), else bound.
SANDBOX_TOP = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _sandbox_script(new_root: str, binary: str, extra_dirs: tuple[str, ...] = ()) -> str | None:
    """A ``/bin/sh`` script that, run inside a fresh mount namespace, builds a root of its own on ``new_root``
    and runs ``binary`` with the script's arguments in it.

    The root is a tmpfs holding read-only bind mounts of :data:`SANDBOX_DIRS`, :data:`SANDBOX_FILES`,
    ``extra_dirs`` (the binary's and the modules' directories when they are not under /usr), the bundle's
    temporary directory (the parent of the ``-d`` argument, at the same path, so httpd's messages name the
    same files; the ``-d`` directory also at the pod's ServerRoot) and a ``/proc/self/fd/`` directory, which
    is all ``ErrorLog "/proc/self/fd/2"`` checks at ``-t`` time. Nothing else of the host exists there: an ``<IfFile>``, ``SSLCertificateFile``,
    ``DocumentRoot`` or ``ErrorLog`` naming the operator's ServiceAccount token or any other host path gets
    the same answer whether that path exists on the host or not. None when ``mount`` is missing.
    """
    mount = shutil.which("mount")
    unshare = shutil.which("unshare")
    if not mount or not unshare:
        return None
    q = shlex.quote
    lines = [
        "#!/bin/sh",
        "# httpd24 configtest gate: httpd -t in a root of its own (run by unshare --mount; see rollout_gate.py)",
        "set -eu",
        f"new={q(new_root)}",
        f"mount={q(mount)}",
        'ro() { "$mount" -o remount,bind,ro "$new$1" 2>/dev/null || :; }',
        'bind_dir() { mkdir -p "$new$1"; "$mount" --bind "$1" "$new$1"; ro "$1"; }',
        'bind_file() { mkdir -p "$new${1%/*}"; : > "$new$1"; "$mount" --bind "$1" "$new$1"; ro "$1"; }',
        '"$mount" -t tmpfs -o mode=0755,size=1m httpd24-gate "$new"',
        f'mkdir -p "$new/proc/self/fd" "$new/tmp" "$new"{q(mainconf.RUN_DIR)} "$new/etc" "$new/dev"',
    ]
    for top in SANDBOX_TOP:
        if os.path.islink(top):
            lines.append(f'ln -s {q(os.readlink(top))} "$new"{q(top)}')
        elif os.path.isdir(top):
            lines.append(f"bind_dir {q(top)}")
    seen: list[str] = []
    for d in (*SANDBOX_DIRS, *extra_dirs):
        d = os.path.realpath(d)
        if os.path.isdir(d) and not any((d + "/").startswith(s + "/") for s in seen):
            seen.append(d)
            lines.append(f"bind_dir {q(d)}")
    for f in SANDBOX_FILES:
        if os.path.exists(f) and not os.path.isdir(f):
            lines.append(f"bind_file {q(f)}")
    lines += [
        "# the bundle: the directory holding the ServerRoot (-d) and httpd24's own main.conf; writable as before",
        "root=/ prev=",
        'for a in "$@"; do',
        '    if [ "$prev" = -d ]; then root=$a; fi',
        "    prev=$a",
        "done",
        'if [ "$root" != / ]; then',
        '    tree=${root%/*}',
        '    mkdir -p "$new$tree"',
        '    "$mount" --bind "$tree" "$new$tree"',
        "    # and at the pod's ServerRoot, so absolute paths into it resolve as in the pod",
        f'    mkdir -p "$new"{q(mainconf.SERVER_ROOT)}',
        f'    "$mount" --bind "$root" "$new"{q(mainconf.SERVER_ROOT)}',
        "fi",
        f'exec {q(unshare)} --root="$new" --wd="$root" -- {q(binary)} "$@"',
    ]
    return "\n".join(lines) + "\n"


def _runs(httpd: apache.Httpd) -> bool:
    """Whether ``httpd -v`` runs through this wrapper (namespaces allowed, binary and libraries visible)."""
    try:
        cp = subprocess.run([httpd.binary, "-v"], check=False, capture_output=True, text=True, timeout=10, env=httpd.env())
    except (OSError, subprocess.TimeoutExpired):
        return False
    if cp.returncode != 0 or "Apache/" not in cp.stdout:
        log.info("configtest gate: %s -v failed: %s", httpd.binary, (cp.stderr or cp.stdout).strip()[:500])
        return False
    return True


class Gate:
    """Runs and caches configtests by bundle hash (thread-safe)."""

    def __init__(self, timeout: float | None = None, cache_size: int = 4096, netns: str | None = None):
        self.timeout = float(timeout if timeout is not None else os.environ.get("HTTPD24_CONFIGTEST_TIMEOUT", "20"))
        self.enabled = os.environ.get("HTTPD24_CONFIGTEST", "on").lower() not in ("off", "0", "false", "no")
        self.netns = (netns or os.environ.get("HTTPD24_CONFIGTEST_NETNS", "auto")).lower()
        self._cache: OrderedDict[str, GateResult] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._httpd: apache.Httpd | None = None
        self._tmp: str | None = None
        self._remove_tmp: Callable[[], object] = lambda: None
        self.isolated = False  # no network (a network namespace)
        self.sandboxed = False  # and a root of its own (a mount namespace)
        self._setup_done = False

    def _setup(self) -> apache.Httpd | None:
        with self._lock:
            if self._setup_done:
                return self._httpd
            self._setup_done = True
            real = apache.find_httpd()
            if real is None:
                return None
            if self.netns != "off":
                real = self._isolate(real)
            self._httpd = real
            return real

    def _wrap(self, name: str, command: list[str], real: apache.Httpd) -> apache.Httpd:
        assert self._tmp
        wrapper = os.path.join(self._tmp, name)
        with open(wrapper, "w") as fh:
            fh.write("#!/bin/sh\nexec " + " ".join(shlex.quote(c) for c in command) + ' "$@"\n')
        os.chmod(wrapper, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        return apache.Httpd(wrapper, real.module_dir, real.builtin_modules, real.version)

    def _isolate(self, real: apache.Httpd) -> apache.Httpd:
        """``real`` behind a wrapper running it in a private mount and network namespace (a root of its own,
        see :func:`_sandbox_script`), else in a private network namespace only, else ``real`` itself."""
        self._tmp = tempfile.mkdtemp(prefix="httpd24-gate-")
        # removed by close(), or when the gate is dropped or the process exits without one
        self._remove_tmp = weakref.finalize(self, shutil.rmtree, self._tmp, ignore_errors=True)
        os.chmod(self._tmp, 0o755)  # the wrapper runs as the operator's user; root's children must read it
        exe = shutil.which("unshare")
        binary = os.path.realpath(real.binary)
        extra = tuple(d for d in (os.path.dirname(os.path.dirname(binary)), real.module_dir) if d not in ("", "/"))
        new_root = os.path.join(self._tmp, "root")
        os.mkdir(new_root)
        script = _sandbox_script(new_root, binary, extra) if exe else None
        if script:
            path = os.path.join(self._tmp, "sandbox.sh")
            with open(path, "w") as fh:
                fh.write(script)
            for i, flags in enumerate((["--mount", "--net"], ["--map-root-user", "--mount", "--net"])):
                candidate = self._wrap(f"httpd-sandbox{i}", [exe, *flags, "--", "/bin/sh", path], real)
                if _runs(candidate):
                    self.isolated = self.sandboxed = True
                    return candidate
        log.warning("configtest gate: no mount namespace available; httpd -t sees the operator's file system "
                    "(the checks before it still refuse every line known to read host files)")
        prefix = _unshare_prefix()
        if prefix:
            self.isolated = True
            return self._wrap("httpd", [*prefix, "--", binary], real)
        log.warning("configtest gate: no network namespace available; httpd -t runs with the host network")
        return real

    def check(self, files: dict[str, bytes], hash_: str, mpm: str, secret_files: tuple[str, ...] | list[str] = (),
              content: tuple[str, ...] | list[str] = ()) -> GateResult:
        """``httpd -t`` on ``files`` (a bundle from :func:`mainconf.bundle`); cached by ``hash_``.

        ``secret_files`` (:func:`mainconf.secret_paths`) are where the pods read Secrets' keys: the run finds
        :data:`mainconf.SECRET_PLACEHOLDER` there, which is all ``-t`` checks of a certificate file.
        ``content`` names the ``spec.content`` volumes: ``${HTTPD24_CONTENT}`` points at stand-ins of the paths
        the configuration checks there (:func:`outside_reads`).
        """
        with self._lock:
            hit = self._cache.get(hash_)
            if hit is not None:
                self._cache.move_to_end(hash_)
                return GateResult(hit.ok, hit.output, hit.hash, hit.seconds, cached=True)
        started = time.monotonic()
        httpd = self._setup() if self.enabled else None
        stand_ins: dict[str, bytes] = {}
        refused = outside_reads(files, absolute_root=self.sandboxed or httpd is None, content=content, stand_ins=stand_ins)
        if refused:
            result = GateResult(
                False, "httpd -t not run: these lines name files the configtest must not or cannot use\n" + "\n".join(refused),
                hash_, time.monotonic() - started,
            )
        elif not self.enabled:
            result = GateResult(True, "configtest disabled (HTTPD24_CONFIGTEST=off)", hash_, 0.0)
        else:
            if httpd is None:
                result = GateResult(False, "no httpd 2.4 binary found for the configtest (set HTTPD24_HTTPD)", hash_, 0.0)
            else:
                mime = "/etc/mime.types" if os.path.exists("/etc/mime.types") else None
                try:
                    res = apache.configtest(
                        {**files, **dict.fromkeys(secret_files, mainconf.SECRET_PLACEHOLDER), **stand_ins},
                        MAIN_KEY,
                        [mpm],
                        timeout=self.timeout,
                        extra_defines=[mainconf.LOCAL_DEFINE],
                        httpd=httpd,
                        # relative: httpd resolves it in the temporary ServerRoot, where the stand-ins are
                        extra=mainconf.local_defines(httpd.module_dir, mime, mainconf.CONTENT_STAND_INS if content else None),
                    )
                    output = "\n".join(line for line in res.output.strip().splitlines()
                                        if VHOST_ROOT_WARNING not in line)
                    if res.returncode is None:
                        output = f"httpd -t did not finish within {self.timeout:g}s"
                    result = GateResult(res.ok, output, hash_, time.monotonic() - started)
                except (apache.HttpdError, OSError, ValueError) as e:
                    result = GateResult(False, f"configtest could not run: {e}", hash_, time.monotonic() - started)
        if result.output.startswith("configtest could not run") or "did not finish" in result.output:
            return result  # transient: do not cache
        with self._lock:
            self._cache[hash_] = result
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return result

    def close(self) -> None:
        self._remove_tmp()

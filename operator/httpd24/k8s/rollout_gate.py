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
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from .. import apache
from ..config import DEFAULT_TARGET, ConfigSet, Liveness
from . import mainconf
from .models_server import MAIN_KEY

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


def outside_reads(files: dict[str, bytes]) -> list[str]:
    """Lines that would make ``httpd -t`` on the operator's host read or run what is not the user's to read or run.

    ``httpd -t`` echoes the first word of a line it cannot parse, so an ``Include`` of a host file
    (the operator's ServiceAccount token) would put its content into the HttpdServer's status,
    which the namespace can read; ``LoadModule`` / ``LoadFile`` of a ConfigMap key holding a
    shared object would run its code inside the operator. Paths are judged as the pod sees them
    (ServerRoot ``/etc/httpd24``), after ``${VAR}`` substitution, on every line httpd may read.
    A file that does not parse is refused too: httpd would still act on the lines before the error.
    Each entry is ``file:line: what -> what to do``.
    """
    configset = ConfigSet.from_mapping(files, entry=MAIN_KEY, server_root=mainconf.SERVER_ROOT)
    problems = [f"{e.file}:{e.line}: {e.reason}" for e in configset.errors]
    if problems:
        return problems
    view = configset.view(DEFAULT_TARGET)
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
        elif item.key in ("include", "includeoptional"):
            if not _inside(item.args[0], INCLUDE_DIRS):
                problems.append(
                    f"{where}: points outside the ConfigMap, which the configtest will not read on the "
                    f"operator's host -> put the file into the ConfigMap and include it by its key"
                )
        elif item.key in ("loadmodule", "loadfile"):
            if item.key == "loadmodule" and item.args[0] in main_modules:
                continue  # already loaded: httpd skips the line before opening the file
            paths = item.args[1:] if item.key == "loadmodule" else item.args
            if not paths or not all(_inside(path, CODE_DIRS) for path in paths):
                problems.append(
                    f"{where}: loads code from outside {mainconf.MODULE_DIR} and the system library "
                    f"directories -> remove the line (httpd24 loads the modules the configuration needs) "
                    f'or use "${{HTTPD24_MODULES}}/mod_NAME.so"'
                )
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
        self.isolated = False
        self._setup_done = False

    def _setup(self) -> apache.Httpd | None:
        with self._lock:
            if self._setup_done:
                return self._httpd
            self._setup_done = True
            real = apache.find_httpd()
            if real is None:
                return None
            prefix = _unshare_prefix() if self.netns != "off" else None
            if prefix:
                self._tmp = tempfile.mkdtemp(prefix="httpd24-gate-")
                wrapper = os.path.join(self._tmp, "httpd")
                with open(wrapper, "w") as fh:
                    fh.write("#!/bin/sh\nexec " + " ".join(prefix) + f' -- "{real.binary}" "$@"\n')
                os.chmod(wrapper, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
                real = apache.Httpd(wrapper, real.module_dir, real.builtin_modules, real.version)
                self.isolated = True
            else:
                log.warning("configtest gate: no network namespace available; httpd -t runs with the host network")
            self._httpd = real
            return real

    def check(self, files: dict[str, bytes], hash_: str, mpm: str) -> GateResult:
        """``httpd -t`` on ``files`` (a bundle from :func:`mainconf.bundle`); cached by ``hash_``."""
        with self._lock:
            hit = self._cache.get(hash_)
            if hit is not None:
                self._cache.move_to_end(hash_)
                return GateResult(hit.ok, hit.output, hit.hash, hit.seconds, cached=True)
        started = time.monotonic()
        refused = outside_reads(files)
        if refused:
            result = GateResult(
                False, "httpd -t not run: the configuration reads or loads files it must not\n" + "\n".join(refused),
                hash_, time.monotonic() - started,
            )
        elif not self.enabled:
            result = GateResult(True, "configtest disabled (HTTPD24_CONFIGTEST=off)", hash_, 0.0)
        else:
            httpd = self._setup()
            if httpd is None:
                result = GateResult(False, "no httpd 2.4 binary found for the configtest (set HTTPD24_HTTPD)", hash_, 0.0)
            else:
                mime = "/etc/mime.types" if os.path.exists("/etc/mime.types") else None
                try:
                    res = apache.configtest(
                        files,
                        MAIN_KEY,
                        [mpm],
                        timeout=self.timeout,
                        extra_defines=[mainconf.LOCAL_DEFINE],
                        httpd=httpd,
                        extra=mainconf.local_defines(httpd.module_dir, mime),
                    )
                    output = res.output.strip()
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
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

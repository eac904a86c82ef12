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
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from .. import apache
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
        if not self.enabled:
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

"""A real httpd serving on a free loopback port, as a context manager."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterable, Mapping

from . import _hosts
from ._client import Response, request
from ._httpd import Httpd, HttpdError, _main_config, _Tree, find_httpd

__all__ = ["Instance", "free_port"]

ACCESS_LOG_FORMAT = '%a %l %u %t \\"%r\\" %>s %b'


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free on ``host`` a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


# process group -> temp dir of started instances: killed and removed at interpreter exit
_RUNNING: dict[int, str] = {}


@atexit.register
def _kill_leftovers() -> None:
    for pgid, tmp in list(_RUNNING.items()):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        shutil.rmtree(tmp, ignore_errors=True)


def _free_ports(n: int, ipv6: bool = False) -> list[int]:
    """``n`` ports free on 127.0.0.1 a moment ago (and, with ``ipv6``, on ::1 as well: the kernel picks a port
    free for IPv4 only, and one another server holds on ::1 made every retry of a busy machine fail)."""
    socks = []
    try:
        ports: list[int] = []
        for _ in range(n * 20):
            if len(ports) == n:
                break
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            if ipv6:
                s6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
                socks.append(s6)
                s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                try:
                    s6.bind(("::1", port))
                except OSError:
                    continue  # taken on ::1: the IPv4 socket stays bound, so the next one is another port
            ports.append(port)
        return ports
    finally:
        for s in socks:
            s.close()


_LISTEN = re.compile(rb"^[ \t]*Listen[ \t]", re.IGNORECASE | re.MULTILINE)


def _refuse_listen(files: Mapping[str, bytes | str]) -> None:
    """A ``Listen`` in the caller's files would bind a real port (often 0.0.0.0:80)."""
    for name, data in files.items():
        raw = data.encode("utf-8") if isinstance(data, str) else data
        m = _LISTEN.search(raw)
        if m:
            line = raw.count(b"\n", 0, m.start()) + 1
            raise HttpdError(
                f"{name}:{line}: the configuration has its own Listen directive; an Instance listens on "
                "127.0.0.1:<free port> only. Remove it (or pass allow_listen=True and listen on loopback; "
                "ports=N reserves N free loopback ports, see Instance.ports)"
            )


def _group_members(pgid: int) -> list[tuple[int, str]]:
    """(pid, state) of every process in process group ``pgid`` (Linux /proc)."""
    out = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        entries = []
    if not entries:  # no /proc: ask the kernel whether the group exists at all
        try:
            os.killpg(pgid, 0)
            return [(pgid, "?")]
        except ProcessLookupError:
            return []
        except PermissionError:
            return [(pgid, "?")]
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may contain spaces and parens
        rest = stat[stat.rfind(")") + 2 :].split()
        if len(rest) >= 3 and int(rest[2]) == pgid:
            out.append((int(e), rest[0]))
    return out


class Instance:
    """A real httpd on ``127.0.0.1:<free port>`` with everything in a temp dir.

    ``files`` (relative name -> content) are written into the server root and
    ``entry`` (if given) is included from the generated main configuration
    (see :func:`httpd24.apache.server_config`); ``modules`` are the module
    identifiers to load.  The main configuration adds an access log in the
    format ``%a %l %u %t "%r" %>s %b`` (``log_config_module`` is loaded for it
    when it is not built in), an empty default DocumentRoot (outside the server
    root) and ``extra``.  Keep document roots free of directories named like
    handler Locations: Debian's mod_dir answers 301 for a real directory even
    under ``SetHandler`` (a ``server-status/`` directory breaks
    ``/server-status``).

    The server runs in the foreground (``-D FOREGROUND``) as a child process in
    its own process group.  ``start()`` returns once the port accepts
    connections, or raises :class:`HttpdError` with the error log.  ``stop()``
    (also on leaving the ``with`` block) sends SIGTERM, waits, and checks that
    no process of the group is left (SIGKILL and an error otherwise).  Any
    number of instances may run at once.

    ``ports`` > 1 adds more ``Listen 127.0.0.1:<free port>`` lines
    (:attr:`ports`; :attr:`port` is the first), e.g. for name- or port-based
    virtual hosts; the main configuration defines ``${HTTPD24_PORT}`` (the
    first) and ``${HTTPD24_PORT_1}``, ``${HTTPD24_PORT_2}``, ... for the
    caller's files (``<VirtualHost 127.0.0.1:${HTTPD24_PORT_2}>``).  A ``Listen`` in the caller's files is refused (it would
    bind a real address such as ``*:80``) unless ``allow_listen``.  ``ipv6`` listens on ``[::1]`` too, on
    the same ports, for IPv6 clients (a port taken there is retried like one taken on 127.0.0.1).

    Example::

        with Instance({"site.conf": b"<Location /s>\\n SetHandler server-status\\n</Location>\\n"},
                      "site.conf", ["status_module", "authz_core_module"]) as srv:
            assert srv.request("/s").status == 200
    """

    def __init__(
        self,
        files: Mapping[str, bytes | str] | None = None,
        entry: str | None = None,
        modules: Iterable[str] = (),
        *,
        httpd: Httpd | None = None,
        extra: str = "",
        start_timeout: float = 20,
        stop_timeout: float = 20,
        access_log: bool = True,
        defines: Iterable[str] = (),
        keep: bool | None = None,
        ports: int = 1,
        allow_listen: bool = False,
        ipv6: bool = False,
    ):
        self.httpd = httpd or find_httpd()
        if self.httpd is None:
            raise HttpdError("no httpd binary found")
        self.files = dict(files or {})
        self.entry = entry
        self.modules = list(modules)
        self.extra = extra
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.want_access_log = access_log
        self.defines = list(defines)
        self.keep = bool(os.environ.get("HTTPD24_KEEP_TMP")) if keep is None else keep
        self.port: int | None = None
        self.ports: list[int] = []
        self.n_ports = ports
        self.ipv6 = ipv6
        if not allow_listen:
            _refuse_listen(self.files)
        self.proc: subprocess.Popen[bytes] | None = None
        self._tree: _Tree | None = None
        self._snapshot = ("", "")

    # --- properties ----------------------------------------------------------

    @property
    def url(self) -> str:
        if self.port is None:
            raise HttpdError("instance is not running")
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def root(self) -> Path:
        """The ServerRoot (the caller's files live here)."""
        if self._tree is None:
            raise HttpdError("instance is not started")
        return self._tree.root

    @property
    def main_config(self) -> str:
        if self._tree is None:
            raise HttpdError("instance is not started")
        return self._tree.main.read_text()

    def _read(self, path: Path) -> str:
        try:
            return path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def error_log(self) -> str:
        """The main server's error log so far (the one the generated config sets).

        Still available after :meth:`stop` (a copy taken before clean-up).
        """
        return self._read(self._tree.error_log) if self._tree else self._snapshot[0]

    def access_log(self) -> str:
        """The access log so far (see :meth:`wait_access_log`); kept after :meth:`stop`."""
        return self._read(self._tree.access_log) if self._tree else self._snapshot[1]

    def wait_access_log(self, lines: int, timeout: float = 5) -> list[str]:
        """Wait until the access log holds at least ``lines`` lines; return them.

        httpd writes the access log line after the response has been sent, so
        a client may see the answer a moment before the line appears.
        """
        deadline = time.monotonic() + timeout
        while True:
            got = self.access_log().splitlines()
            if len(got) >= lines or time.monotonic() > deadline:
                return got
            time.sleep(0.02)

    def request(self, path: str = "/", **kw) -> Response:
        """:func:`httpd24.apache.request` against this instance."""
        if self.port is None:
            raise HttpdError("instance is not running")
        return request(self.port, path, **kw)

    # --- lifecycle -----------------------------------------------------------

    def _modules(self) -> list[str]:
        mods = list(self.modules)
        if self.want_access_log and not self.httpd.is_builtin("log_config_module") and "log_config_module" not in mods:
            mods.append("log_config_module")
        return mods

    def _extra(self) -> str:
        parts = [f"Define HTTPD24_PORT {self.port}"]
        parts += [f"Define HTTPD24_PORT_{i} {p}" for i, p in enumerate(self.ports, 1)]
        if self.want_access_log:
            parts.append(f'LogFormat "{ACCESS_LOG_FORMAT}" httpd24')
            parts.append(f'CustomLog "{self._tree.access_log}" httpd24')
        if self.extra:
            parts.append(self.extra)
        return "\n".join(parts)

    def start(self) -> "Instance":
        if self.proc is not None:
            raise HttpdError("instance already started")
        self._tree = _Tree(self.files, prefix="httpd24-instance-")
        try:
            last = ""
            for _attempt in range(5):
                self.ports = _free_ports(self.n_ports, self.ipv6)
                self.port = self.ports[0]
                listen = [f"127.0.0.1:{p}" for p in self.ports] + [f"[::1]:{p}" for p in self.ports if self.ipv6]
                self._tree.write_main(_main_config(self._tree, self._modules(), self.entry, self.httpd, listen=listen, extra=self._extra()))
                if self._launch():
                    return self
                last = self._failure_text()
                if "Address already in use" not in last:
                    break
                self._tree.error_log.unlink(missing_ok=True)
            raise HttpdError(f"httpd did not start:\n{last}")
        except BaseException:
            self._kill_group()
            self._cleanup()
            raise

    def _failure_text(self) -> str:
        stderr = self._read(self._tree.own / "stderr")
        return (stderr + self.error_log()).strip() or "(no output)"

    def _launch(self) -> bool:
        tree = self._tree
        args = [self.httpd.binary, "-d", str(tree.root), "-f", str(tree.main), "-D", "FOREGROUND"]
        for d in self.defines:
            args += ["-D", d]
        with open(tree.own / "stderr", "wb") as err:
            self.proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
                env={**self.httpd.env(tree.run), **_hosts.environment(tree.run)},
                cwd=str(tree.root),
                start_new_session=True,
            )
        _RUNNING[self.proc.pid] = str(tree.tmp)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._kill_group()
                self.proc = None
                return False
            if not self._configured():
                time.sleep(0.03)
                continue
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    pass
            except OSError:
                time.sleep(0.03)
                continue
            if self.proc.poll() is None:
                return True
        self._kill_group()
        raise HttpdError(f"httpd did not accept connections within {self.start_timeout}s:\n{self._failure_text()}")

    def _configured(self) -> bool:
        """Whether httpd got past configuration (a listening socket alone is not enough:
        httpd binds before the post-config hooks, which may still fail).

        The MPM writes the pid file only once configuration succeeded; when the
        caller's configuration moved the PidFile, the error log's AH00489
        ("configured -- resuming normal operations") is used instead.
        """
        try:
            if self._tree.pid_file.read_text().strip() == str(self.proc.pid):
                return True
        except (OSError, ValueError):
            pass
        return "AH00489" in self.error_log()

    def _kill_group(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        _RUNNING.pop(self.proc.pid, None)

    def stop(self) -> None:
        """Stop the server (SIGTERM) and check that every process of it is gone."""
        if self.proc is None:
            self._cleanup()
            return
        proc, pgid = self.proc, self.proc.pid
        problems = []
        try:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                problems.append(f"httpd (pid {pgid}) did not stop within {self.stop_timeout}s after SIGTERM")
            deadline = time.monotonic() + 5
            left = _group_members(pgid)
            while left and time.monotonic() < deadline:
                # zombies of an exited parent are not ours to reap; count live ones only
                left = [p for p in left if p[1] != "Z"]
                if not left:
                    break
                time.sleep(0.05)
                left = _group_members(pgid)
            left = [p for p in left if p[1] != "Z"]
            if left:
                problems.append(f"processes left after stop: {left}")
            if problems:
                self._kill_group()
                raise HttpdError("; ".join(problems) + "\n" + self.error_log())
            _RUNNING.pop(pgid, None)
        finally:
            self.proc = None
            self.port = None
            self.ports = []
            self._cleanup()

    def _cleanup(self) -> None:
        if self._tree is not None and not self.keep:
            # keep the logs readable after the temporary directory is gone
            self._snapshot = (self.error_log(), self.access_log())
            self._tree.cleanup()
            self._tree = None

    def __enter__(self) -> "Instance":
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.stop()
        except HttpdError:
            if exc_type is None:
                raise

"""The host names of the harness's clients: a hosts table of its own, which httpd reads through nss_wrapper.

`Allow from <name>` and `Require host` make httpd look the client's address up (a double reverse lookup: the
address's name, then that name's addresses). Left to the machine, the answer is whatever its /etc/hosts and
name server say, and a name server that drops queries stalls each lookup for seconds (this machine's resolver
left 1,500 reverse lookups of 127.0.0.2 waiting 145 s in all); a configuration whose answers close the
connection makes every request a new lookup, and a batch of them outruns the harness's time budget.

`nss_wrapper <https://cwrap.org/nss_wrapper.html>`_ (Debian ``libnss-wrapper``), preloaded into httpd with
``NSS_WRAPPER_HOSTS``, answers reverse lookups from a file and nothing else. So every lookup is instant and
the same on every machine, and a client can have a name that a rule matches: ``127.0.0.2`` is
``client2.example.invalid``, which ``Allow from .example.invalid`` lets in (with the machine's names no client
ever matched a domain). Where the library is missing, httpd and :func:`double_reverse` ask the machine, as
before; the answers of the reference and the candidate still agree with each other, only slower.
"""

from __future__ import annotations

import functools
import glob
import ipaddress
import os
import socket

__all__ = ["NAMES", "wrapper", "environment", "double_reverse"]

#: The hosts table httpd reads: every name maps back to its address (the double reverse lookup succeeds).
#: Addresses absent here (127.0.0.9, 127.1.2.3) have no name at all.
NAMES: dict[str, str] = {
    "127.0.0.1": "localhost",
    "127.0.0.2": "client2.example.invalid",
    "::1": "localhost",
}

_WRAPPER_GLOBS = ("/usr/lib/*/libnss_wrapper.so", "/usr/lib64/libnss_wrapper.so", "/usr/lib/libnss_wrapper.so")


@functools.cache
def wrapper() -> str | None:
    """The nss_wrapper library to preload, or None where it is not installed."""
    for pattern in _WRAPPER_GLOBS:
        for path in sorted(glob.glob(pattern)):
            return path
    return None


def environment(run_dir: str | os.PathLike[str]) -> dict[str, str]:
    """The variables that make an httpd started with them read :data:`NAMES` (written into ``run_dir``)
    for its host lookups; empty where nss_wrapper is missing."""
    library = wrapper()
    if library is None:
        return {}
    path = os.path.join(os.fspath(run_dir), "hosts")
    with open(path, "w", encoding="ascii") as f:
        f.writelines(f"{address} {name}\n" for address, name in NAMES.items())
    return {"LD_PRELOAD": library, "NSS_WRAPPER_HOSTS": path}


@functools.lru_cache(maxsize=None)
def double_reverse(address: str) -> str | None:
    """The client's host name as httpd's double reverse lookup finds it (``Allow from`` a name, ``Require
    host``): from :data:`NAMES` where httpd reads them, else as this machine resolves the address."""
    if wrapper() is not None:
        return NAMES.get(address)
    try:
        name = socket.gethostbyaddr(address)[0]
        infos = socket.getaddrinfo(name, None, socket.AF_INET6 if ":" in address else socket.AF_INET)
    except OSError:
        return None
    wanted = ipaddress.ip_address(address)
    return name if any(ipaddress.ip_address(info[4][0].split("%")[0]) == wanted for info in infos) else None

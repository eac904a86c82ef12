"""Server addresses: what ``<VirtualHost>``, ``NameVirtualHost`` and ``Listen`` name, and which
requests the main server still answers once virtual hosts take their addresses."""

from __future__ import annotations

import re
from typing import Iterable, NamedTuple

from .configset import Item
from .target import Liveness

#: Hosts 2.2 put on its list of default servers besides `*` (apr's INADDR_ANY and _default_'s 255.255.255.255).
DEFAULT_HOSTS = frozenset({"_default_", "255.255.255.255", "0.0.0.0", "::", "[::]"})
_ADDRESS = re.compile(r"^(?P<host>\[[^\]]*\]|[^:]*|[0-9A-Fa-f:]*)(?::(?P<port>\d+|\*))?$")
#: Listen hosts that take every address of the machine.
_EVERY_ADDRESS = frozenset({"", "*", "0.0.0.0", "::", "[::]"})


class Address(NamedTuple):
    """A ``<VirtualHost>`` or ``NameVirtualHost`` address: host as written (lower case), port (None: none
    given, ``"*"``: any)."""

    host: str
    port: str | None

    @property
    def wildcard(self) -> bool:
        return self.host == "*"

    @property
    def default_list(self) -> bool:
        """On 2.2's list of default servers (``*``, ``_default_``): matched by port alone."""
        return self.host == "*" or self.host in DEFAULT_HOSTS

    def __str__(self) -> str:
        return self.host if self.port is None else f"{self.host}:{self.port}"


def parse_address(word: str) -> Address | None:
    word = word.strip().lower()
    if word.count(":") > 1 and not word.startswith("["):
        return Address(word, None)  # a bare IPv6 address
    match = _ADDRESS.match(word)
    if match is None or not match.group("host"):
        return None
    return Address(match.group("host"), match.group("port"))


def parse_listen(word: str) -> Address | None:
    """A ``Listen`` line's first word: host (``""``: every address) and port; None: not understood."""
    if word.isdigit():
        return Address("", word)
    address = parse_address(word)
    if address is None or address.port is None or not address.port.isdigit():
        return None
    return Address("" if address.host in _EVERY_ADDRESS else address.host, address.port)


def takes(vhost: Address, listen: Address) -> bool:
    """Whether a virtual host on ``vhost`` gets every request of ``listen``: ``*`` and ``_default_`` take
    every address of their port, a host only the listener's own; no port (or ``*``) is every port on 2.4
    (measured on apache2: tests/access/test_main_server_reachable.py)."""
    if vhost.port not in (None, "*", listen.port):
        return False
    return vhost.host in ("*", "_default_") or (listen.host != "" and vhost.host == listen.host)


def main_server_reachable(listens: Iterable[Item], vhosts: Iterable[Item]) -> bool:
    """Whether some request still reaches the main server: a ``Listen`` that no virtual host takes whole.

    True where unsure (no Listen at all, as in a site file: its main configuration listens elsewhere; a
    Listen not understood). A virtual host that may not be read (an undecided ``<IfModule>``) takes a Listen
    only from inside the same branches, as ssl.conf's ``Listen 443`` and ``<VirtualHost _default_:443>``."""
    listens, vhosts = list(listens), list(vhosts)
    if not listens:
        return True
    for listen in listens:
        address = parse_listen(listen.args[0]) if listen.args else None
        if address is None:
            return True
        around = {id(section) for section in listen.context}
        if not any(
            (vhost.live is Liveness.LIVE or all(id(s) in around for s in vhost.context))
            and any((a := parse_address(word)) is not None and takes(a, address) for word in vhost.args)
            for vhost in vhosts
        ):
            return True
    return False

"""``Allow from`` / ``Deny from`` arguments, classified exactly as httpd does.

The order and the errors are those of ``allow_cmd`` (mod_authz_host 2.2,
mod_access_compat 2.4; research notes §2(b)); IP forms follow APR's
``apr_ipsubnet_create`` (``looks_like_ip``, ``parse_ip``, ``parse_network``,
APR's own ``inet_pton4`` which accepts leading zeros, masks as prefix lengths
or dotted IPv4 netmasks, host bits cleared). The same parser backs 2.4's
``Require ip``, so an IP word is carried into ``Require ip`` exactly as written.
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass
from typing import Literal

Kind = Literal["all", "ip", "host", "env", "nenv"]


class AddressError(ValueError):
    """httpd would refuse to start on this word (the message is httpd's)."""


@dataclass(frozen=True)
class Entry:
    """One word after ``from``: what it matches."""

    kind: Kind
    #: The word as written (``10.1``, ``example.org``, ``env=!X`` ...).
    text: str
    #: ``host``: the domain; ``env``/``nenv``: the variable name.
    name: str = ""
    #: ``ip``: address family (4 or 6), network and mask as integers.
    family: int = 0
    network: int = 0
    mask: int = 0

    def matches_ip(self, address: str) -> bool:
        """Whether a client address is in this IP entry (IPv4 entries also match ::ffff:a.b.c.d)."""
        if self.kind != "ip":
            return False
        addr = ipaddress.ip_address(address)
        if addr.version == 6 and self.family == 4 and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        if addr.version != self.family:
            return False
        return (int(addr) & self.mask) == self.network


def _inet_pton4(text: str) -> int | None:
    """APR's inet_pton4: exactly four dotted decimal octets (leading zeros allowed)."""
    octets: list[int] = []
    saw_digit = False
    value = 0
    for ch in text:
        if ch.isdigit() and ch.isascii():
            value = value * 10 + int(ch)
            if value > 255:
                return None
            if not saw_digit:
                if len(octets) + 1 > 4:
                    return None
                saw_digit = True
        elif ch == "." and saw_digit:
            if len(octets) == 3:
                return None
            octets.append(value)
            value = 0
            saw_digit = False
        else:
            return None
    if not saw_digit:
        return None
    octets.append(value)
    if len(octets) < 4:
        return None
    return (octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]


def _inet_pton6(text: str) -> int | None:
    if "%" in text or not text:
        return None
    try:
        return int(ipaddress.IPv6Address(text))
    except ValueError:
        return None


def _looks_like_ip(text: str) -> bool:
    if not text:
        return False
    if ":" in text:
        return True
    return all(c == "." or (c.isdigit() and c.isascii()) for c in text)


def _parse_network(text: str) -> tuple[int, int]:
    """Legacy partial IPv4 (``10``, ``10.1``, ``192.168.2.``): network and mask."""
    if len(text) >= len("255.255.255.255") + 1:
        raise AddressError("bad IP address")
    network = mask = 0
    shift = 24
    rest = text
    while rest:
        i = 0
        if not rest[0].isdigit():
            raise AddressError("bad IP address")
        while i < len(rest) and rest[i].isdigit():
            i += 1
        octet_text, rest = rest[:i], rest[i:]
        if rest.startswith("."):
            rest = rest[1:]
        elif rest:
            raise AddressError("bad IP address")
        if shift < 0:
            raise AddressError("bad IP address")
        octet = int(octet_text)
        if octet > 255:
            raise AddressError("bad IP address")
        network |= octet << shift
        mask |= 0xFF << shift
        shift -= 8
    return network, mask


class _NotIP(Exception):
    """APR_EINVAL: the word does not look like an IP address."""


def ipsubnet(address: str, mask_text: str | None) -> tuple[int, int, int]:
    """``apr_ipsubnet_create``: (family, network, mask); raises _NotIP or AddressError."""
    if not _looks_like_ip(address):
        raise _NotIP(address)
    family = 0
    value = _inet_pton6(address)
    if value is not None:
        if ipaddress.IPv6Address(value).ipv4_mapped is not None:
            raise AddressError("bad IP address")
        family, bits = 6, 128
        mask = (1 << 128) - 1
    else:
        value = _inet_pton4(address)
        if value is not None:
            family, bits = 4, 32
            mask = 0xFFFFFFFF
        elif mask_text is None:
            value, mask = _parse_network(address)
            family, bits = 4, 32
        else:
            raise AddressError("bad IP address")
    if mask_text is not None:
        number = None
        if mask_text.isdigit() and mask_text.isascii():
            number = int(mask_text)
        if number is not None and 0 < number <= bits:
            mask = ((1 << bits) - 1) ^ ((1 << (bits - number)) - 1)
        else:
            dotted = _inet_pton4(mask_text)
            if dotted is not None and family == 4:
                mask = dotted
            else:
                raise AddressError("bad netmask")
    return family, value & mask, mask


@functools.lru_cache(maxsize=4096)
def parse_entry(word: str) -> Entry:
    """Classify one word after ``from`` (research notes §2(b), in that order).

    Memoized: a pure function of the word and the Entry is frozen, so equal words share one
    (large configurations repeat the same few hosts and networks in every section). Words that
    raise are not remembered.
    """
    lower = word.lower()
    if lower.startswith("env=!"):
        return Entry("nenv", word, name=word[5:])
    if lower.startswith("env="):
        return Entry("env", word, name=word[4:])
    if lower == "all":
        return Entry("all", word)
    if "/" in word:
        left, right = word.split("/", 1)
        try:
            family, network, mask = ipsubnet(left, right)
        except _NotIP:
            raise AddressError("An IP address was expected") from None
        return Entry("ip", word, family=family, network=network, mask=mask)
    try:
        family, network, mask = ipsubnet(word, None)
    except _NotIP:
        pass
    else:
        return Entry("ip", word, family=family, network=network, mask=mask)
    if "#" in word:
        raise AddressError("No comments are allowed here")
    return Entry("host", word, name=word)


def parse_from(args: list[str]) -> list[Entry]:
    """The words of an ``Allow``/``Deny`` line; raises AddressError with httpd's message."""
    if not args or args[0].lower() != "from":
        raise AddressError("allow and deny must be followed by 'from'")
    if len(args) == 1:
        raise AddressError("Allow/Deny requires at least one argument after 'from'")
    return [parse_entry(word) for word in args[1:]]


def in_domain(domain: str, host: str) -> bool:
    """httpd's ``in_domain``: case-insensitive suffix on a dot boundary."""
    if not domain or not host:
        return False
    dl, hl = len(domain), len(host)
    if hl < dl:
        return False
    if host[hl - dl :].lower() != domain.lower():
        return False
    if domain[0] == ".":
        return True
    return hl == dl or host[hl - dl - 1] == "."

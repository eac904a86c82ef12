"""Several ``<VirtualHost>`` on one address without a ``NameVirtualHost`` for it: 2.2 served all of its
requests from the first, 2.4 chooses by name."""

from __future__ import annotations

import re
from typing import NamedTuple

from ..config import Comment, Item, Section
from ..config.addresses import DEFAULT_HOSTS, Address, parse_address, parse_listen
from ..engine import Rule, Severity, register

def _listens(ctx) -> dict[str, set[str]] | None:
    """Port -> the hosts it is listened on (``""``: every address); None when the configuration has no Listen
    (a site file: its server listens elsewhere)."""
    out: dict[str, set[str]] = {}
    for item in ctx.items("listen"):
        if not item.args:
            continue
        address = parse_listen(item.args[0])
        if address is None:
            return None  # not understood: judge nothing by Listen
        out.setdefault(address.port, set()).add(address.host)
    return out if out else None


class _Vhost(NamedTuple):
    item: Item
    addresses: tuple[Address, ...]


#: What HT106 writes where it removes a NameVirtualHost that several virtual hosts use: a lint of the
#: migration's output must still see that 2.2 read the address by name, or it would claim it did not.
REMOVED_NAMEVIRTUALHOST = ("# httpd24 (HT106): NameVirtualHost {} removed: 2.4 makes an address that several "
                           "virtual hosts share name-based by itself")
_REMOVED = re.compile(r"^#\s*httpd24 \(HT106\): NameVirtualHost (\S+) removed\b")


def covers(named: Address, address: Address) -> bool:
    """Whether 2.2 read ``address`` by name because of ``NameVirtualHost named`` (one without a port, or
    for a vhost without one, took the main server's port: counted as covering, to be safe)."""
    return named.host == address.host and (
        named.port == address.port or None in (named.port, address.port) or named.port == "*")


def virtual_hosts(ctx) -> list[_Vhost]:
    """The live (or possibly live) ``<VirtualHost>`` sections whose addresses are all understood."""
    vhosts = []
    for item in ctx.items("virtualhost"):
        if not isinstance(item.node, Section):
            continue
        addresses = [parse_address(w) for w in item.args]
        if all(a is not None for a in addresses):
            vhosts.append(_Vhost(item, tuple(dict.fromkeys(addresses))))
    return vhosts


def shared_addresses(ctx) -> dict[Address, list[_Vhost]]:
    """Addresses that two or more virtual hosts share, with them in reading order (once per pass)."""
    cached = ctx.cache.get("shared_vhost_addresses")
    if cached is not None:
        return cached
    groups: dict[Address, list[_Vhost]] = {}
    for vhost in virtual_hosts(ctx):
        for address in vhost.addresses:
            groups.setdefault(address, []).append(vhost)
    shared = {address: members for address, members in groups.items() if len(members) > 1}
    ctx.cache["shared_vhost_addresses"] = shared
    return shared


def _named(ctx) -> list[Address]:
    """NameVirtualHost addresses: the lines, and the marks HT106 leaves where it removed one."""
    words = [item.args[0] for item in ctx.items("namevirtualhost") if item.args]
    for document in ctx.configset.documents.values():
        for node in document.walk():
            if isinstance(node, Comment) and (match := _REMOVED.match(node.raw.strip())):
                words.append(match.group(1))
    return [a for a in map(parse_address, words) if a is not None]


@register
class VhostOverlap(Rule):
    """
    ## What it does
    Finds `<VirtualHost>` sections that share an address and port with an
    earlier one when no `NameVirtualHost` names that address, and reports
    each later one.

    ## Why is this bad?
    2.2 made an address name-based only with `NameVirtualHost`. Without it,
    the virtual hosts on one address overlapped: 2.2 served every request on
    that address from the first of them, whatever the `Host:` header said,
    and warned at every start ("VirtualHost ... overlaps with VirtualHost
    ..., the first has precedence, perhaps you need a NameVirtualHost
    directive"; for `*`: "_default_ VirtualHost overlap on port 80, the
    first has precedence"; `ap_fini_vhost_config` in server/vhost.c of
    httpd 2.2). 2.4 makes every address shared by several virtual
    hosts name-based by itself: a request for the second one's `ServerName`
    or `ServerAlias` now reaches it, with its own `DocumentRoot`, access
    control and logs. That is usually what the configuration meant, but it
    is a change in what the server sends.

    Only addresses whose overlap is certain are judged: the same `*:port`,
    IP address or host name with the same port (or both without a port);
    not `*` beside `*:80` or a `_default_` virtual host on the port (2.2's
    list of default servers matched those by port, so which one it served
    is not simply the first), nor a port the configuration does not
    `Listen` on (no request reaches it in either version). The comment
    HT106 leaves where it removed a `NameVirtualHost` counts as one, so the
    migrated text is not reported. A configuration that ran on 2.4 already
    is left out.

    ## Example
    ```apache
    <VirtualHost *:80>
        ServerName a.example.org
        DocumentRoot /srv/a
    </VirtualHost>
    <VirtualHost *:80>
        ServerName b.example.org
        DocumentRoot /srv/b
    </VirtualHost>
    ```

    ## Use instead
    Check that `b.example.org` should be served from `/srv/b` (as 2.4 does),
    or remove the second virtual host to keep serving every name from the
    first.

    ## Fix safety
    No fix: keeping 2.2's answers would mean removing the virtual hosts 2.2
    never served, which is seldom what their author wanted; a person
    decides.
    """

    code = "HT220"
    name = "vhost-overlap-without-namevirtualhost"
    severity = Severity.WARNING
    summary = "<VirtualHost> sections sharing an address without NameVirtualHost are name-based in 2.4"
    about_22_behaviour = True

    def check_config(self, ctx):
        groups = shared_addresses(ctx)
        if not groups:
            return
        named = _named(ctx)
        listens = _listens(ctx)
        everywhere = [a for v in virtual_hosts(ctx) for a in v.addresses]
        names_of: dict[int, list[str]] = {}
        for item in ctx.items("servername", "serveralias"):
            vhost = item.in_section("virtualhost")
            if vhost is not None:
                own = names_of.setdefault(id(vhost), [])
                own.extend(a for a in item.args if a not in own)
        for address, members in groups.items():
            if not self._certain(address, everywhere, named, listens):
                continue
            first = members[0]
            names = names_of.get(id(first.item.node), [])
            served = f"{first.item.file}:{first.item.node.location.line}" + (f", ServerName {names[0]}" if names
                                                                              else "")
            for later in members[1:]:
                own = names_of.get(id(later.item.node), [])
                reach = (f"requests for {', '.join(own)} now reach this one" if own
                         else "requests naming it (it has no ServerName of its own) may now reach this one")
                yield self.finding(
                    later.item,
                    f"<VirtualHost {address}> shares its address with an earlier one and no NameVirtualHost "
                    f"{address} exists: 2.2 served every request to {address} from the first <VirtualHost "
                    f"{address}> ({served}); 2.4 chooses among them by name (the Host header), so {reach}",
                )

    @staticmethod
    def _certain(address: Address, everywhere: list[Address], named: list[Address], listens) -> bool:
        if address.host in DEFAULT_HOSTS or address.port == "*":
            return False
        # a NameVirtualHost for it made it name-based in 2.2 already
        if any(covers(n, address) for n in named):
            return False
        if address.wildcard:
            others = [a for a in everywhere if a.default_list and a != address]
            if address.port is None and others:
                return False  # `*` matched every port: its overlap with *:80 or _default_ is not plain
            if any(a.port in (address.port, None, "*") for a in others):
                return False
        elif any(a.host == address.host and a != address and None in (a.port, address.port) for a in everywhere):
            return False  # the same IP with and without a port: 2.2 matched them in its own order
        if listens is not None and address.port is not None:
            hosts = listens.get(address.port)
            if hosts is None or not ("" in hosts or address.wildcard or address.host in hosts):
                return False
        return True

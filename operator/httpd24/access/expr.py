"""2.4 authorization trees (``Require`` lines in ``<RequireAll>``/``<RequireAny>``/``<RequireNone>``).

Evaluation follows mod_authz_core (``apply_authz_sections``,
``authorize_user_core``): results GRANTED / DENIED / DENIED_NO_USER / NEUTRAL,
a negated DENIED becomes NEUTRAL (never GRANTED), NEUTRAL children are
skipped, a top-level NEUTRAL or DENIED is 403 before authentication and 401
after it. Rendering writes the forms the spec's §5.2 rule 6 gives, and never a
negation outside ``<RequireAll>``.
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from ..config import Section
from ..config.edit import quote
from .hosts import in_domain, ipsubnet

if TYPE_CHECKING:
    from .model import Methods, Request


@dataclass(frozen=True)
class Leaf:
    provider: str  # lower-case: all, ip, host, env, method, valid-user, user, group, ...
    args: tuple[str, ...] = ()
    negate: bool = False


@dataclass(frozen=True)
class All:
    items: tuple["Expr", ...]
    negate: bool = False


@dataclass(frozen=True)
class AnyOf:
    items: tuple["Expr", ...]
    negate: bool = False


@dataclass(frozen=True)
class Limited:
    """A Require line or container written in ``<Limit>``/``<LimitExcept>`` (only read from a configuration).

    mod_authz_core skips a section whose methods (for a container: those of all its lines) exclude
    the request's, as GRANTED under an AND (and at the top of a section's tree) and NEUTRAL under an OR:
    no Require expression says that in every context, so :func:`for_method` writes it out for one method.
    """

    methods: "Methods"
    item: "Expr"
    negate: bool = False  # never set: the line's own `not` is the item's


Expr = Union[Leaf, All, AnyOf, Limited]

TRUE = Leaf("all", ("granted",))
FALSE = Leaf("all", ("denied",))

#: Providers whose answer depends on the authenticated user.
USER_PROVIDERS = frozenset(
    {"valid-user", "user", "group", "dbm-group", "dbm-user", "file-owner", "file-group"}
)


def is_user(e: Expr) -> bool:
    if isinstance(e, Leaf):
        return e.provider in USER_PROVIDERS or e.provider.startswith("ldap-") or e.provider.startswith("dbd-")
    if isinstance(e, Limited):
        return is_user(e.item)
    return any(is_user(i) for i in e.items)


def from_require(words) -> Expr:
    words = list(words)
    negate = False
    if words and words[0].lower() == "not":
        negate = True
        words = words[1:]
    if not words:
        return Leaf("", (), negate)
    provider = words[0].lower()
    args = tuple(words[1:])
    if provider == "all" and args:
        args = (args[0].lower(),)
    return Leaf(provider, args, negate)


def from_section(section: Section, args) -> Expr:
    items = []
    for child in section.children:
        if not isinstance(child, Section):
            if getattr(child, "key", "") == "require":
                items.append(from_require(child.args))  # type: ignore[attr-defined]
            continue
        if child.key in ("requireall", "requireany", "requirenone"):
            items.append(from_section(child, child.args))
        elif child.key in ("ifmodule", "ifdefine", "ifversion"):
            inner = from_section(child, ())
            if isinstance(inner, AnyOf):
                items.extend(inner.items)
    key = section.key
    if key == "requireall":
        return All(tuple(items))
    if key == "requirenone":
        return All((AnyOf(tuple(items), negate=True),))
    return AnyOf(tuple(items))


def limited(methods: "Methods", e: Expr) -> Expr:
    """``e`` as written in ``<Limit>``/``<LimitExcept>`` for ``methods`` (itself outside them)."""
    return e if methods.is_all else Limited(methods, e)


def limited_names(e: Expr) -> frozenset[str]:
    """The methods the ``<Limit>``/``<LimitExcept>`` sections around parts of ``e`` name."""
    if isinstance(e, Leaf):
        return frozenset()
    if isinstance(e, Limited):
        return e.methods.names
    return frozenset().union(*(limited_names(i) for i in e.items))


def leaves(e: Expr | None):
    """Every Require line of a tree."""
    if e is None:
        return
    if isinstance(e, Leaf):
        yield e
    elif isinstance(e, Limited):
        yield from leaves(e.item)
    else:
        for item in e.items:
            yield from leaves(item)


def reaches(e: Expr, method: str) -> bool:
    """Whether mod_authz_core evaluates ``e`` for ``method`` (a container: when any of its lines applies)."""
    if isinstance(e, Leaf):
        return True
    if isinstance(e, Limited):
        return method in e.methods
    return any(reaches(i, method) for i in e.items)


def for_method(e: Expr, method: str, under_and: bool = True) -> Expr | None:
    """``e`` without :class:`Limited` parts, as httpd evaluates it for ``method`` (by default at the top
    of a section's tree, which httpd evaluates as under an AND); None for nothing (NEUTRAL).

    A part skipped under an AND is GRANTED (TRUE), under an OR NEUTRAL (left out)."""
    if isinstance(e, Leaf):
        return e
    if not reaches(e, method):
        return TRUE if under_and else None
    if isinstance(e, Limited):
        return for_method(e.item, method, under_and)
    is_and = isinstance(e, All)
    items = tuple(i for i in (for_method(item, method, is_and) for item in e.items) if i is not None)
    return type(e)(items, e.negate)


# -- simplification --------------------------------------------------------------------------


def _positive(e: Expr) -> bool:
    return not e.negate


def _flatten(items: list[Expr], kind: type) -> list[Expr]:
    """Children of un-negated nested containers of the same kind lifted into their parent."""
    flat: list[Expr] = []
    for i in items:
        if isinstance(i, kind) and not i.negate:
            flat.extend(i.items)
        else:
            flat.append(i)
    return flat


def simplify(e: Expr) -> Expr:
    if isinstance(e, Leaf):
        return e
    try:
        return _simplify_cached(e)
    except TypeError:
        return _simplify(e)


# Expressions are frozen and the functions below pure, so their results are memoized (bounded):
# the plan simplifies and renders the same few trees for every section of a large configuration
# (a quarter fewer instructions in HT501/HT503's analysis). A tree with unhashable parts is not.
@functools.lru_cache(maxsize=4096)
def _simplify_cached(e: Expr) -> Expr:
    return _simplify(e)


def _simplify(e: Expr) -> Expr:
    items = [simplify(i) for i in e.items]
    if isinstance(e, All) and not e.negate:
        flat = _flatten(items, All)
        if FALSE in flat:
            return FALSE
        flat = _merge_leaves(flat, negative=True)
        others = [i for i in flat if i != TRUE]
        if any(_positive(i) for i in others):
            flat = others
        elif others:
            flat = [TRUE] + others
        else:
            return TRUE
        flat = _dedupe(flat)
        if len(flat) == 1:
            return flat[0]
        return All(tuple(flat))
    if isinstance(e, AnyOf) and not e.negate:
        flat = _flatten(items, AnyOf)
        if TRUE in flat:
            return TRUE
        flat = [i for i in flat if i != FALSE]
        flat = _merge_leaves(flat, negative=False)
        flat = _dedupe(flat)
        if not flat:
            return FALSE
        if len(flat) == 1:
            return flat[0]
        return AnyOf(tuple(flat))
    return type(e)(tuple(items), e.negate)


def _dedupe(items: list[Expr]) -> list[Expr]:
    out: list[Expr] = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


_MERGEABLE = frozenset({"ip", "host", "env", "user", "group", "dbm-group", "method"})


def _merge_leaves(items: list[Expr], negative: bool) -> list[Expr]:
    """Join leaves of one provider: ``Require ip a`` + ``Require ip b`` -> ``Require ip a b``.

    In an OR positive leaves join (any word matches); in an AND negated leaves join
    (``not ip a b`` = not a and not b).
    """
    out: list[Expr] = []
    index: dict[str, int] = {}
    for i in items:
        if isinstance(i, Leaf) and i.provider in _MERGEABLE and i.negate == negative:
            if i.provider in index:
                j = index[i.provider]
                old = out[j]
                assert isinstance(old, Leaf)
                args = old.args + tuple(a for a in i.args if a not in old.args)
                out[j] = Leaf(old.provider, args, old.negate)
                continue
            index[i.provider] = len(out)
        out.append(i)
    return out


# -- rendering -------------------------------------------------------------------------------


def leaf_text(leaf: Leaf) -> str:
    try:
        return _leaf_text(leaf)
    except TypeError:  # a leaf built with unhashable args
        return _leaf_text.__wrapped__(leaf)


@functools.lru_cache(maxsize=4096)
def _leaf_text(leaf: Leaf) -> str:
    words = (["not"] if leaf.negate else []) + [leaf.provider] + [quote(a) for a in leaf.args]
    return "Require " + " ".join(words)


def render(e: Expr, indent: str = "    ") -> str:
    """Lines for a section body (no indentation at the first level)."""
    try:
        return _render(e, indent)
    except TypeError:
        return _render.__wrapped__(e, indent)


@functools.lru_cache(maxsize=4096)
def _render(e: Expr, indent: str) -> str:
    e = simplify(e)
    return "\n".join(_render_top(e, indent))


def _render_top(e: Expr, indent: str) -> list[str]:
    if isinstance(e, Leaf):
        if e.negate:
            return _render_block(All((TRUE, e)), indent)
        return [leaf_text(e)]
    if isinstance(e, AnyOf) and not e.negate:
        lines: list[str] = []
        for item in e.items:
            if isinstance(item, Leaf) and not item.negate:
                lines.append(leaf_text(item))
            else:
                lines.extend(_render_block(item, indent))
        return lines
    return _render_block(e, indent)


def _render_block(e: Expr, indent: str) -> list[str]:
    if isinstance(e, Leaf):
        if e.negate:
            e = All((TRUE, e))
        else:
            return [leaf_text(e)]
    if isinstance(e, AnyOf) and e.negate:
        name = "RequireNone"
    else:
        name = "RequireAll" if isinstance(e, All) else "RequireAny"
    lines = [f"<{name}>"]
    for item in e.items:
        if isinstance(item, Leaf):
            if item.negate and name != "RequireAll":
                lines.extend(indent + line for line in _render_block(All((TRUE, item)), indent))
            else:
                lines.append(indent + leaf_text(item))
        else:
            lines.extend(indent + line for line in _render_block(item, indent))
    lines.append(f"</{name}>")
    return lines


# -- evaluation (mod_authz_core) --------------------------------------------------------------

GRANTED, DENIED, DENIED_NO_USER, NEUTRAL = "granted", "denied", "denied-no-user", "neutral"


def _leaf_result(leaf: Leaf, request: "Request", user: str | None) -> str:
    from .model import method_name

    p, args = leaf.provider, leaf.args
    if p == "all":
        result = GRANTED if args and args[0] == "granted" else DENIED
    elif p == "ip":
        result = GRANTED if _in_networks(_networks(args), request.client) else DENIED
    elif p == "local":
        result = GRANTED if request.client.startswith("127.") or request.client == "::1" else DENIED
    elif p == "host":
        result = GRANTED if request.hostname and any(in_domain(a, request.hostname) for a in args) else DENIED
    elif p == "env":
        result = GRANTED if any(a in request.env for a in args) else DENIED
    elif p == "method":
        result = GRANTED if method_name(request.method) in {method_name(a) for a in args} else DENIED
    elif p in USER_PROVIDERS or p.startswith("ldap-") or p.startswith("dbd-"):
        if user is None:
            result = DENIED_NO_USER
        elif p == "valid-user":
            result = GRANTED
        elif p in ("user", "ldap-user", "dbm-user") and user in args:
            result = GRANTED
        elif p in ("group", "ldap-group") and any(g in request.groups for g in args):
            result = GRANTED
        elif p == "dbm-group" and any(g in _dbm_groups(request) for g in args):
            result = GRANTED
        else:
            result = DENIED
    else:
        result = DENIED
    if leaf.negate:
        if result == GRANTED:
            return DENIED
        if result in (DENIED, DENIED_NO_USER):
            return NEUTRAL
    return result


@functools.lru_cache(maxsize=4096)
def _networks(words: tuple[str, ...]) -> tuple[tuple[int, int, int], ...]:
    """(family, network, mask) of each word of a ``Require ip`` line that is an address (httpd refuses the
    others at start-up). Cached: a plan evaluates the same lines for thousands of sample requests."""
    out = []
    for word in words:
        left, _, right = word.partition("/")
        try:
            out.append(ipsubnet(left, right or None))
        except Exception:  # noqa: BLE001 - AddressError, or not an address at all
            continue
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _client(address: str) -> tuple[int, int, int | None]:
    """(IP version, value, the IPv4 value of an IPv4-mapped IPv6 address) of a client address."""
    addr = ipaddress.ip_address(address)
    mapped = addr.ipv4_mapped if addr.version == 6 else None
    return addr.version, int(addr), int(mapped) if mapped is not None else None


def _in_networks(networks: tuple[tuple[int, int, int], ...], address: str) -> bool:
    """:meth:`.hosts.Entry.matches_ip` for each network (IPv4 ones also match ::ffff:a.b.c.d)."""
    version, value, mapped = _client(address)
    for family, network, mask in networks:
        if family == 4 and mapped is not None:
            if mapped & mask == network:
                return True
        elif family == version and value & mask == network:
            return True
    return False


def _dbm_groups(request: "Request") -> frozenset[str]:
    return request.groups if request.dbm_groups is None else request.dbm_groups


def evaluate(e: Expr, request: "Request", user: str | None, under_and: bool = True) -> str:
    """``apply_authz_sections``; the top of a section's tree is evaluated as under an AND."""
    if isinstance(e, Leaf):
        return _leaf_result(e, request, user)
    if not reaches(e, request.method):
        return GRANTED if under_and else NEUTRAL
    if isinstance(e, Limited):
        return evaluate(e.item, request, user, under_and)
    is_and = isinstance(e, All)
    result = NEUTRAL
    for item in e.items:
        child = evaluate(item, request, user, is_and)
        if child == NEUTRAL:
            continue
        if is_and:
            if child == DENIED:
                result = child
                break
            if (child == DENIED_NO_USER and result != DENIED) or result == NEUTRAL:
                result = child
        else:
            if child == GRANTED:
                result = child
                break
            if (child == DENIED_NO_USER and result == DENIED) or result == NEUTRAL:
                result = child
    if e.negate:
        if result == GRANTED:
            return DENIED
        if result in (DENIED, DENIED_NO_USER):
            return NEUTRAL
    return result


def decide24(tree: Expr | None, authtype: str | None, request: "Request", realm: bool = True,
             user_file: bool = True) -> int:
    """mod_authz_core's two passes (without user, then after authentication); ``realm``: False where
    authentication answers 500 whatever the credentials (Basic without AuthName); ``user_file``: False
    where credentials get 500 (Basic without AuthUserFile)."""
    if tree is None:
        return 500 if authtype else 200
    first = evaluate(tree, request, None)
    if first == GRANTED:
        return 200
    if first != DENIED_NO_USER:
        return 403
    # Authentication.
    if authtype is None or not realm:
        return 500
    if request.user is not None and not user_file:
        return 500
    if request.user is None or not request.password_ok:
        return 401
    second = evaluate(tree, request, request.user)
    return 200 if second == GRANTED else 401


# -- partial evaluation -----------------------------------------------------------------------

#: A line that answers NEUTRAL for every request (``Require not all denied``).
NEUTRAL_LEAF = Leaf("all", ("denied",), True)
_CONSTANT = {GRANTED: TRUE, DENIED: FALSE, NEUTRAL: NEUTRAL_LEAF}
_NEGATED = {GRANTED: DENIED, DENIED: NEUTRAL, NEUTRAL: NEUTRAL}


def restrict(e: Expr | None, providers: frozenset[str], request: "Request") -> Expr | None:
    """``e`` with its lines of ``providers`` answered for ``request``: the tree :func:`evaluate` answers
    exactly as ``e`` for every request that agrees with ``request`` on what those lines read, whichever
    user and whatever context. A plan checks forms on the product of every address, host name, variable
    set, user and method they name; fixing one of these at a time, trees that become the same are
    evaluated on the rest once, instead of once per value already fixed (:class:`.plan._Answers`).

    ``providers`` read the request alone, never the user (``ip``, ``local``, ``all``, ``host``, ``env``).
    Each such line becomes the constant line of its answer (a line still, so that :func:`reaches` is
    unchanged), and a container whose answer those constants decide becomes one too."""
    if e is None:
        return None
    if isinstance(e, Leaf):
        return _CONSTANT[_leaf_result(e, request, None)] if e.provider in providers else e
    if isinstance(e, Limited):
        item = restrict(e.item, providers, request)
        return e if item is e.item else Limited(e.methods, item, e.negate)
    items = tuple(restrict(i, providers, request) for i in e.items)
    return _fold(e, items)


def _fold(e: All | AnyOf, items: tuple[Expr, ...]) -> Expr:
    """``e`` with ``items``, or the constant line of its answer when its constant items decide it.

    Both containers answer by a precedence that ignores order (AND: DENIED, DENIED_NO_USER, GRANTED,
    NEUTRAL; OR: GRANTED, DENIED_NO_USER, DENIED, NEUTRAL), so one constant item of each answer stands
    for all of them. A container with a line is always evaluated (:func:`reaches`), whatever the method."""
    constants = [i for i in items if i == TRUE or i == FALSE or i == NEUTRAL_LEAF]
    decided = None
    if isinstance(e, All):
        if FALSE in constants:
            decided = DENIED
        elif items and len(constants) == len(items):
            decided = GRANTED if TRUE in constants else NEUTRAL
    else:
        if TRUE in constants:
            decided = GRANTED
        elif items and len(constants) == len(items):
            decided = DENIED if FALSE in constants else NEUTRAL
    if decided is not None:
        return _CONSTANT[_NEGATED[decided] if e.negate else decided]
    if not constants:
        return e if all(a is b for a, b in zip(items, e.items)) else type(e)(items, e.negate)
    kept = [i for i in items if not (i == TRUE or i == FALSE or i == NEUTRAL_LEAF)]
    # A NEUTRAL item changes no answer; it stays only where no other constant keeps the container's line.
    weak = TRUE if isinstance(e, All) else FALSE
    kept += [c for c in (TRUE, FALSE, NEUTRAL_LEAF) if c in constants and (c != NEUTRAL_LEAF or weak not in constants)]
    return type(e)(tuple(kept), e.negate)

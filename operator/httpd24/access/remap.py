"""URLs that something other than DocumentRoot and Alias maps: proxied, or mapped elsewhere.

Which `<Directory>` sections a `<Location>` meets follows from where its URLs land. DocumentRoot and
Alias are read exactly (:meth:`.model.Model.filename`); the directives here are not, because their
targets are regular expressions or other servers. What httpd does with such a URL, in 2.2 as in 2.4
(research notes §2(d): `<Proxy>` takes `<Directory>`'s place for proxied requests):

* proxied (`ProxyPass`, `ProxyPassMatch`, `RewriteRule [P]`, a forward proxy): mod_proxy's
  map_to_storage walks `<Proxy>` sections *instead of* `<Directory>` and `<Files>`, so the request
  meets no directory at all, `<Directory />` included;
* mapped elsewhere (`AliasMatch`, `ScriptAliasMatch`, `RewriteRule` in server context, `UserDir`,
  mod_vhost_alias): the file, hence the `<Directory>` sections met, may be anywhere.

The plan only needs to know which URL prefixes each server sends which way, and reads the rest as
"may": a `<Location>` over such URLs may meet any `<Directory>` and, when proxied, any `<Proxy>`, so
its translation holds for every way they fall or needs a person. Per-directory `RewriteRule`s run
after access control and start a new request for the new URL, which meets its own sections: they do
not change what the first request met. A redirect (`[R]`, `[F]`, `[G]`, `Redirect*`) answers before
access control, on both versions alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RemapKind = Literal["proxy", "elsewhere", "excluded"]


@dataclass(frozen=True)
class Remap:
    """URLs one line takes away from the DocumentRoot/Alias mapping.

    ``prefix``: every URL it may apply to starts with this string (None: any URL); ``exact``: the
    prefix is a URL path it applies to whole (``ProxyPass /app``: /app and everything below it, as
    mod_proxy's alias_match compares), so a `<Location>` under it is certainly remapped.
    ``excluded`` is ``ProxyPass /path !``: those URLs are *not* proxied.
    """

    kind: RemapKind
    prefix: str | None
    exact: bool = False
    #: A main-server RewriteRule, which applies in a virtual host only where rules are inherited.
    rewrite: bool = False
    #: For "elsewhere": a directory every file it maps to lies under (None: it may be anywhere).
    target: str | None = None


#: Lowercase directive names whose lines may remap URLs (read by :func:`read`).
KEYS = frozenset({"proxypass", "proxypassmatch", "rewriterule", "aliasmatch", "scriptaliasmatch", "userdir",
                  "virtualdocumentroot", "virtualdocumentrootip", "proxyrequests"})


def literal_prefix(pattern: str) -> tuple[str, bool] | None:
    """(the literal text every match of an anchored regular expression starts with, whether the regex
    is only that text); None when it is not anchored. ``^/c/.*$`` -> ``("/c/", False)``."""
    if not pattern.startswith("^"):
        return None
    out: list[str] = []
    i, end = 1, len(pattern)
    while i < end:
        c = pattern[i]
        if c == "\\" and i + 1 < end and pattern[i + 1] in "./-_~":
            out.append(pattern[i + 1])
            i += 2
            continue
        if c in ".^$*+?()[]{}|\\":
            if c in "*?{" and out:
                out.pop()  # the character before an optional quantifier may be absent
            break
        out.append(c)
        i += 1
    return "".join(out), i == end


def read(key: str, args: list[str], location: tuple[str, bool] | None) -> Remap | None:
    """The remapping a server-context line makes (None: none). ``location``: the URL path of the
    `<Location>` around a one-argument ``ProxyPass`` and whether it is a regex (`<LocationMatch>`)."""
    if key == "proxypass":
        if location is not None and len(args) >= 1 and (len(args) == 1 or "=" in args[1]):
            path, is_regex = location
            if args[0] == "!":
                return Remap("excluded", _regex_prefix(path) if is_regex else path, exact=not is_regex)
            return Remap("proxy", _regex_prefix(path) if is_regex else path, exact=not is_regex)
        if len(args) >= 2:
            return Remap("excluded" if args[1] == "!" else "proxy", args[0], exact=True)
        return None
    if key == "proxypassmatch":
        if location is not None and args:
            return Remap("excluded" if args[0] == "!" else "proxy", _regex_prefix(location[0]) if location[1] else location[0])
        if len(args) >= 2:
            return Remap("excluded" if args[1] == "!" else "proxy", _regex_prefix(args[0]))
        return None
    if key == "proxyrequests":
        return Remap("proxy", None) if args and args[0].lower() == "on" else None
    if key in ("aliasmatch", "scriptaliasmatch"):
        if len(args) < 2:
            return None
        literal = args[1].split("$", 1)[0]  # up to the first back-reference
        cut = literal.rfind("/")
        return Remap("elsewhere", _regex_prefix(args[0]), target=literal[: cut + 1] if cut >= 0 else None)
    if key == "userdir":
        return Remap("elsewhere", "/~") if args and args[0].lower() not in ("disabled", "enabled") else None
    if key in ("virtualdocumentroot", "virtualdocumentrootip"):
        return Remap("elsewhere", None) if args and args[0].lower() != "none" else None
    if key == "rewriterule" and len(args) >= 2:
        return _rewrite(args)
    return None


def _regex_prefix(pattern: str) -> str | None:
    found = None if pattern.startswith("!") else literal_prefix(pattern)
    return found[0] if found is not None else None


def _rewrite(args: list[str]) -> Remap | None:
    pattern, target = args[0], args[1]
    flags = [f.strip().lower() for f in args[2].strip("[]").split(",")] if len(args) > 2 else []
    names = {f.split("=", 1)[0] for f in flags}
    case_blind = bool(names & {"nc", "nocase"})
    prefix = None if case_blind else _regex_prefix(pattern)
    if names & {"p", "proxy"}:
        return Remap("proxy", prefix, rewrite=True)
    if names & {"r", "redirect", "f", "forbidden", "g", "gone"} or target == "-":
        return None
    # [PT] hands a new URL on: the Location walk after translation reads the new URL, which meets its
    # own sections and maps as usual. A full URL is a redirect unless it names this server: "may".
    if names & {"pt", "passthrough"}:
        return None
    return Remap("elsewhere", prefix, rewrite=True)


def overlaps(url: str | None, remap: Remap) -> bool:
    """Whether a `<Location>` whose URLs start with ``url`` (None: any) may have URLs the line remaps."""
    if url is None or remap.prefix is None:
        return True
    base = url.rstrip("/") or "/"
    return remap.prefix.startswith(base) or base.startswith(remap.prefix) or url.startswith(remap.prefix)


def covers(url: str, remap: Remap) -> bool:
    """Whether every URL of a `<Location url>` is remapped by the line (``ProxyPass /app`` covers /app/x)."""
    if not remap.exact or remap.prefix is None:
        return False
    prefix = remap.prefix
    if prefix in ("", "/"):
        return True
    if prefix.endswith("/"):
        return url.startswith(prefix)
    return url == prefix or url.startswith(prefix + "/")

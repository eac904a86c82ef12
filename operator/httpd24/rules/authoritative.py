"""The ``Authz*Authoritative`` family and ``AuthDefaultAuthoritative``: refused by 2.4.

How 2.2 used them (``auth_checker`` hooks of mod_authz_user, mod_authz_groupfile,
mod_authz_dbm, mod_authz_owner, mod_authnz_ldap, all ``APR_HOOK_MIDDLE`` and so run
in LoadModule order, then mod_authz_default at ``APR_HOOK_LAST``; the first one
that does not decline decides):

* each module looks only at the ``Require`` types it knows (``user``/``valid-user``;
  ``group``/``file-group`` when its group file is set; ``file-owner``; ``ldap-*``
  when ``AuthLDAPURL`` is set). If one of its lines admits the user it grants;
* otherwise, when it *judges* the request (it has lines of its own there; mod_authnz_ldap
  judges as soon as any ``Require`` applies), it refuses with 401 if it is
  authoritative (``On``, the default), or declines (``Off``) so the next module
  may grant with its own lines;
* mod_authz_default finally refuses what nobody granted (``On``), or declines
  (``Off``: 500 "couldn't check access", unless a third-party module decides).

2.4 has no such switch: the ``Require`` lines of a section form an implicit
``<RequireAny>`` (a user any line admits is in). The two agree exactly when no
authoritative module refuses a user that another module's line would admit, i.e.
when every authoritative judging module either grants every line of the section,
or runs after every module that grants the lines it does not (LoadModule order).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import Directive, Document, Section, edit
from ..engine import Applicability, Rule, Severity, get, register
from ..engine.modules import AUTHZ22_CONFIGURING_KEYS, AUTHZ_PROVIDERS, require_family

#: directive key -> the 2.2 module it configured (None: no 2.2 module had it).
AUTHORITATIVE = {
    "authzuserauthoritative": "authz_user",
    "authzgroupfileauthoritative": "authz_groupfile",
    "authzdbmauthoritative": "authz_dbm",
    "authzownerauthoritative": "authz_owner",
    "authzldapauthoritative": "authnz_ldap",
    "authzdefaultauthoritative": "authz_default",
    "authzdbdauthoritative": None,
}
_DIRECTIVE_OF = {module: key for key, module in AUTHORITATIVE.items() if module}

_MODULE_NAMES = {
    "authz_user": "mod_authz_user",
    "authz_groupfile": "mod_authz_groupfile",
    "authz_dbm": "mod_authz_dbm",
    "authz_owner": "mod_authz_owner",
    "authnz_ldap": "mod_authnz_ldap",
    "authz_default": "mod_authz_default",
}

#: Sections that do not start a new per-directory scope of their own.
_TRANSPARENT = frozenset({"ifmodule", "ifdefine", "ifversion", "limit", "limitexcept"})
_LDAP_TYPES = frozenset({"ldap-user", "ldap-group", "ldap-dn", "ldap-attribute", "ldap-filter"})
_GROUP_TYPES = frozenset({"group", "file-group"})


def _scope(node) -> Section | Document:
    parent = node.parent
    while isinstance(parent, Section) and parent.key in _TRANSPARENT:
        parent = parent.parent
    return parent


def _own(scope, view):
    """Live directives of a scope, through transparent sections; nested scopes are yielded as sections."""
    for child in scope.children:
        if not isinstance(child, Directive) or not view.is_live(child):
            continue
        if isinstance(child, Section):
            if child.key in _TRANSPARENT:
                yield from _own(child, view)
            else:
                yield child
        else:
            yield child


def _enclosing(scope) -> list:
    """The scopes around ``scope``, innermost first (a <Directory> in a <VirtualHost>, ...)."""
    out = []
    node = scope
    while isinstance(node, Section):
        node = _scope(node)
        out.append(node)
    return out


@dataclass
class _Verdict:
    same: bool
    reason: str


class _Analysis:
    """Whether the Require lines of a scope mean the same on 2.4 as they did on 2.2."""

    def __init__(self, ctx, scope):
        self.ctx = ctx
        self.view = ctx.view
        self.scope = scope
        self.order = [i.args[0] for i in ctx.module_loads()]

    def _find(self, scope, keys) -> Directive | None:
        found = None
        for node in _own(scope, self.view):
            if not isinstance(node, Section) and node.key in keys:
                found = node
        return found

    def _lookup(self, scope, keys) -> Directive | None:
        for where in [scope, *_enclosing(scope)]:
            found = self._find(where, keys)
            if found is not None:
                return found
        return None

    def authoritative(self, scope, module: str) -> tuple[bool, str]:
        """(authoritative?, how we know) for ``module`` in ``scope``."""
        key = _DIRECTIVE_OF.get(module)
        if key is None:
            return True, "always"
        for where in [scope, *_enclosing(scope)]:
            node = self._find(where, {key})
            if node is not None and node.args:
                how = "set here" if where is scope else "set in an enclosing section"
                return node.args[0].lower() != "off", f"{node.name} {node.args[0]}, {how}"
        return True, "On by default"

    def lines(self, scope) -> list[tuple[str, str]]:
        """(type, whole line) of the Require lines of a scope that a 2.2 authorization module judged:
        not 2.4's own checks (`Require ip`, `all`, `env`, ... of mod_authz_core/_host), which no
        Authz*Authoritative switch ever touched (HT501 writes them for Order/Allow/Deny)."""
        out = []
        for node in _own(scope, self.view):
            if not isinstance(node, Section) and node.key == "require" and node.args:
                kind = node.args[0].lower()
                if AUTHZ_PROVIDERS.get(kind) in ("authz_core_module", "authz_host_module"):
                    continue
                out.append((kind, " ".join(["Require", *node.args])))
        return out

    def grants(self, scope, kind: str) -> set[str]:
        if kind in ("user", "valid-user"):
            return {"authz_user"}
        if kind in _LDAP_TYPES:
            return {"authnz_ldap"}
        if kind == "file-owner":
            return {"authz_owner"}
        if kind == "dbm-group":  # 2.4's name for mod_authz_dbm's check, as HT501/HT508 write it
            return {"authz_dbm"}
        if kind in _GROUP_TYPES:
            providers = set()
            if self._lookup(scope, {"authgroupfile"}) is not None:
                providers.add("authz_groupfile")
            if self._lookup(scope, {"authdbmgroupfile"}) is not None:
                providers.add("authz_dbm")
            return providers or {"authz_groupfile"}
        return {f"?{kind}"}  # a third-party or 2.4-only type

    def judges(self, scope, module: str, kinds: set[str]) -> bool:
        if module == "authz_user":
            return bool(kinds & {"user", "valid-user"})
        if module == "authz_owner":
            return bool(kinds & {"file-owner", "file-group"})
        if module == "authz_groupfile":
            return bool(kinds & _GROUP_TYPES) and self._lookup(scope, {"authgroupfile"}) is not None
        if module == "authz_dbm":
            return bool(kinds & (_GROUP_TYPES | {"dbm-group"})) and self._lookup(scope, {"authdbmgroupfile"}) is not None
        if module == "authnz_ldap":
            return bool(kinds) and (bool(kinds & _LDAP_TYPES) or self._lookup(scope, {"authldapurl"}) is not None)
        return False

    def _position(self, module: str) -> int | None:
        ident = f"{module}_module"
        return self.order.index(ident) if ident in self.order else None

    def verdict(self, scope) -> _Verdict:
        lines = self.lines(scope)
        if not lines:
            return _Verdict(True, "no Require line here")
        kinds = {kind for kind, _ in lines}
        granting = {kind: self.grants(scope, kind) for kind in kinds}
        providers = set().union(*granting.values())
        for module in ("authz_user", "authz_groupfile", "authz_dbm", "authz_owner", "authnz_ldap"):
            if not self.judges(scope, module, kinds):
                continue
            on, how = self.authoritative(scope, module)
            if not on:
                continue
            foreign = [line for kind, line in lines if module not in granting[kind]]
            if not foreign:
                continue
            others = set().union(*(granting[kind] for kind, _ in lines if module not in granting[kind]))
            mine = self._position(module)
            for other in sorted(others):
                theirs = self._position(other) if not other.startswith("?") else None
                if mine is not None and theirs is not None and theirs < mine:
                    continue  # the other module grants first; this one only sees what it left
                name = _MODULE_NAMES[module]
                when = (f"it is loaded before {_MODULE_NAMES.get(other, other)}"
                        if mine is not None and theirs is not None else "it ran first (LoadModule order)")
                return _Verdict(
                    False,
                    f"{name} is authoritative here ({how}) and judged '{foreign[0]}', which it does not grant: "
                    f"on 2.2 it refused a user only that line admits when {when}; 2.4 admits a user any "
                    "Require line admits (implicit <RequireAny>)",
                )
        if len(providers) == 1 and not next(iter(providers)).startswith("?"):
            only = _MODULE_NAMES[next(iter(providers))]
            return _Verdict(True, f"one provider chain: {only} handles every Require line here")
        return _Verdict(True, "every authoritative module here grants all the Require lines it judges, "
                              "or runs after the modules that grant the others")


def _requires_through(scope, view) -> list[Directive]:
    """The scope's live Require lines, through transparent sections (not nested scopes or containers)."""
    return [n for n in _own(scope, view) if not isinstance(n, Section) and n.key == "require" and n.args]


def _direct_requires(scope, view) -> list[Directive]:
    return [c for c in scope.children if isinstance(c, Directive) and not isinstance(c, Section)
            and c.key == "require" and c.args and view.is_live(c)]


def _bare_mixed(scope, view) -> bool:
    if isinstance(scope, Section) and scope.key in ("requireany", "requireall", "requirenone"):
        return False  # written in 2.4 form already
    kinds = {require_family(n.args[0].lower()) for n in _requires_through(scope, view)} - {None}
    return len(kinds) > 1


_SHADOWING = frozenset(k for k, m in AUTHORITATIVE.items() if m not in (None, "authz_default"))


def _remove_and_mark(node: Directive, scope, view) -> None:
    """Remove ``node``; when no Authz*Authoritative line of a module whose lines may shadow another's is
    left around a section with bare Require lines of different modules, put those lines in a <RequireAny>."""
    edit.remove(node)
    for section in [scope, *_nested_scopes(scope, view)]:
        if not _bare_mixed(section, view):
            continue
        if any(_find_key(where, view) for where in [section, *_enclosing(section)]):
            continue
        lines = _direct_requires(section, view)
        if not lines or lines != _requires_through(section, view):
            continue  # changed since the check (another fix of this pass): the next pass judges again
        siblings = section.children
        start, end = siblings.index(lines[0]), siblings.index(lines[-1])
        if siblings[start:end + 1] == lines:
            edit.wrap(lines, "RequireAny")
            continue
        block = "\n".join(["<RequireAny>"] + [edit.indent_unit(lines[0].document) + "Require " + " ".join(n.raw_args)
                                                for n in lines] + ["</RequireAny>"])
        edit.replace(lines[0], block)
        for n in lines[1:]:
            edit.remove(n)


#: module -> the directive without which it declines (no group file, no LDAP URL).
_CONFIGURED_BY = {module: key for key, module in AUTHZ22_CONFIGURING_KEYS.items()}
_NAMES = {"authgroupfile": "AuthGroupFile", "authdbmgroupfile": "AuthDBMGroupFile", "authldapurl": "AuthLDAPURL"}


def _recorded_after(ctx, sections) -> str | None:
    """HT507's model-based look at the sections merged after these (``MixedRequireProviders.recorded_after``)."""
    rule = get("HT507")
    return rule.recorded_after(ctx, sections) if rule is not None else None


def _dbm_groups_pending(ctx) -> bool:
    """With an AuthDBMGroupFile, whether the access rules that read `Require group` lines as 2.2 did (HT501,
    HT508) still have something to translate: they read this line's 2.2 meaning, and a later fix pass
    without it would read the configuration as a different 2.2 one. (Looked up in the registry: the
    access rules sit beside this package, not below it.)"""
    if not ctx.has("authdbmgroupfile"):
        return False
    return any(next(iter(rule.check_config(ctx)), None) is not None for rule in map(get, ("HT501", "HT508")) if rule)


def _would_inherit(ctx, scope, module: str) -> str | None:
    """The directive name when removing the module's only line here would let the section inherit a group
    file or LDAP URL that 2.2 did not use here.

    None of these modules merges per-directory records (:mod:`httpd24.access.authz22`): on 2.2 a section
    holding only ``AuthzGroupFileAuthoritative Off`` had a record with no group file; on 2.4, without
    the line, the section keeps the one set around it.
    """
    if module not in _CONFIGURED_BY:
        return None
    key = _CONFIGURED_BY[module]
    kinds = _LDAP_TYPES if module == "authnz_ldap" else _GROUP_TYPES  # the Require types it reads
    if not ctx.has(key) or not any(i.args and i.args[0].lower() in kinds for i in ctx.items("require")):
        return None
    if any(not isinstance(n, Section) and n.key == key for n in _own(scope, ctx.view)):
        return None
    return _NAMES[key]


def _find_key(where, view) -> bool:
    return any(not isinstance(n, Section) and n.key in _SHADOWING for n in _own(where, view))


def _nested_scopes(scope, view):
    for node in _own(scope, view):
        if isinstance(node, Section):
            yield node
            yield from _nested_scopes(node, view)


@register
class AuthzAuthoritative(Rule):
    """
    ## What it does
    Finds `AuthzUserAuthoritative`, `AuthzGroupFileAuthoritative`,
    `AuthzDBMAuthoritative`, `AuthzOwnerAuthoritative`, `AuthzLDAPAuthoritative`,
    `AuthzDefaultAuthoritative` and `AuthzDBDAuthoritative`, and works out
    whether removing them keeps 2.2's access decisions.

    ## Why is this bad?
    2.4 refuses all of them at start-up (in `.htaccess`: a 500 on every
    request). In 2.2 each authorization module looked only at its own `Require`
    types and, when authoritative (`On`, the default), refused a user none of
    its lines admitted, even if another module's line would have admitted
    him; `Off` let the next module (LoadModule order) try. 2.4 replaces the
    switch by the `<RequireAny>`/`<RequireAll>` containers; the `Require` lines
    of a section are an implicit `<RequireAny>`.

    ## Example
    ```apache
    <Location /private>
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        AuthGroupFile /etc/httpd/groups
        AuthzUserAuthoritative Off
        Require group staff
    </Location>
    ```

    ## Use instead
    ```apache
    <Location /private>
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        AuthGroupFile /etc/httpd/groups
        Require group staff
    </Location>
    ```
    (mod_authz_groupfile alone judged `Require group`, in both versions.
    With `Require user alice` beside it, which line decided in 2.2 depended
    on the LoadModule order; 2.4 admits alice or any member of staff: then
    the rule leaves the line for a person, who writes `<RequireAll>` around
    the lines if a user must match every one.)

    ## Fix safety
    The fix removes the line, and is offered (safe) only when 2.4 then
    decides like 2.2 did: in the line's section (and the sections nested in
    it) every module that is authoritative there and judges the request
    either grants every `Require` line of that section - one provider chain
    such as `AuthzLDAPAuthoritative On` with only `Require ldap-group`, or
    `AuthzLDAPAuthoritative Off` with only `Require valid-user` - or runs
    after every module that grants the other lines, by the configuration's
    LoadModule order (the usual `Off` on the earlier modules). A section
    without `Require` lines is judged where its lines are, so `On` (2.2's
    default) and `Off` there are removed as well. `AuthzDBDAuthoritative`
    never existed in 2.2 and `AuthzDefaultAuthoritative On` is 2.2's
    default: both are simply removed. Otherwise no fix: 2.2 refused users
    that only some lines admit, 2.4 admits them, and whether the lines
    should stay an implicit `<RequireAny>` or become a `<RequireAll>` is a
    person's decision. `AuthzDefaultAuthoritative Off` (2.2 answered 500,
    or let a third-party module decide, where 2.4 answers 401) is also left
    to a person, and so is an `AuthzGroupFileAuthoritative`,
    `AuthzDBMAuthoritative` or `AuthzLDAPAuthoritative` line in a section
    without `AuthGroupFile` / `AuthDBMGroupFile` / `AuthLDAPURL`, where the
    configuration sets one around it: none of these modules merged its
    per-directory record, so on 2.2 the section had no group file (or URL)
    and the module judged nothing there; without the line 2.4 inherits the
    one around it. Also left to a person: a line whose section's `Require`
    lines still apply under a section merged after it for some requests (a
    `<Location>` after a `<Directory>`, say) that holds its own
    `Authz*Authoritative` or group file: that record replaced this one there
    on 2.2 (found with the access model, not by the file's nesting).
    Rewriting the `Require` lines themselves is the access control rules'
    job (HT5xx).
    """

    code = "HT103"
    name = "authz-authoritative"
    severity = Severity.ERROR
    summary = "Authz*Authoritative directives are gone in 2.4 (RequireAny/RequireAll instead)"
    fix_availability = "sometimes"
    directives = tuple(AUTHORITATIVE)

    def check(self, ctx, item):
        node = item.node
        module = AUTHORITATIVE[node.key]
        value = node.args[0].lower() if node.args else ""
        fix = self.fix(f"remove {node.name}", Applicability.SAFE, lambda: edit.remove(node), node)
        refused = f"{node.name} is not in 2.4 (start-up fails)"
        if module is None:
            yield self.finding(item, f"{refused}; no 2.2 module had it either (mod_authz_dbd is new in 2.4): "
                                     "remove it", fix=fix)
            return
        if value not in ("on", "off"):
            yield self.finding(item, f"{refused}, and '{' '.join(node.args)}' is not On/Off: remove it and write "
                                     "<RequireAny>/<RequireAll> as meant")
            return
        if module == "authz_default":
            if value == "on":
                yield self.finding(item, f"{refused}; On is 2.2's default and 2.4 also refuses what no Require line "
                                         "admits: remove it", fix=fix)
            else:
                yield self.finding(
                    item,
                    f"{refused}; with Off, 2.2 answered 500 (or let a third-party authorization module decide) "
                    "where no module granted, 2.4 refuses with 401: remove it, and make any third-party "
                    "module a 2.4 authorization provider named in a Require line",
                )
            return
        scope = _scope(node)
        if _dbm_groups_pending(ctx):
            yield self.finding(
                item,
                f"{refused}; remove it once the `Require group` lines are written in 2.4 form (HT501/HT508 "
                "read them with this line's 2.2 meaning, which decides between `Require group` and "
                "`Require dbm-group`)",
            )
            return
        inherits = _would_inherit(ctx, scope, module)
        if inherits is not None:
            yield self.finding(
                item,
                f"{refused}; on 2.2 this line gave the section a {_MODULE_NAMES[module]} record of its own, "
                f"without {inherits}, so the module judged nothing here; without the line the section would "
                f"inherit the {inherits} set around it and admit its members: remove it and write the "
                "Require lines that should apply here",
            )
            return
        analysis = _Analysis(ctx, scope)
        verdicts = [analysis.verdict(scope)] + [analysis.verdict(s) for s in _nested_scopes(scope, ctx.view)]
        wrong = next((v for v in verdicts if not v.same), None)
        later = _recorded_after(ctx, [scope, *_nested_scopes(scope, ctx.view)]) if wrong is None else None
        if later is not None:
            yield self.finding(
                item,
                f"{refused}; {later}, merged after this section for some requests, holds its own 2.2 "
                "authorization module settings (Authz*Authoritative or a group file), which changed how 2.2 "
                "judged this section's Require lines there: remove it and write <RequireAny>/<RequireAll> as "
                "meant",
            )
            return
        if wrong is None:
            keeps = f"{refused}; removing it keeps 2.2's decisions ({verdicts[0].reason})"
            bare = [s for s in [scope, *_nested_scopes(scope, ctx.view)] if _bare_mixed(s, ctx.view)]
            if not bare:
                yield self.finding(item, keeps, fix=fix)
                return
            # Without any Authz*Authoritative line left, bare Require lines of different modules read
            # as 2.2's authoritative default (HT507): write the "any of them" they meant as <RequireAny>.
            if any(ctx.has(k) for k in ("order", "allow", "deny", "satisfy")):
                yield self.finding(
                    item,
                    f"{keeps}, once its Require lines are written in 2.4 form (HT501 writes them as <RequireAny>); "
                    "until then the line says what they mean",
                )
                return
            if not all(_direct_requires(s, ctx.view) == _requires_through(s, ctx.view) for s in bare):
                yield self.finding(
                    item,
                    f"{keeps}: remove it and write the Require lines in a <RequireAny> (some sit in "
                    "<Limit>/<IfModule> sections, which a person must rearrange)",
                )
                return
            yield self.finding(
                item,
                f"{keeps}; the Require lines are written in a <RequireAny>, which says so in 2.4",
                fix=self.fix(f"remove {node.name}, and write the Require lines in a <RequireAny> once no "
                             "Authz*Authoritative line is left", Applicability.SAFE,
                             lambda: _remove_and_mark(node, scope, ctx.view), node),
            )
            return
        yield self.finding(
            item,
            f"{refused}: {wrong.reason}. Remove this line, then wrap the Require lines in <RequireAny> if any one "
            "should admit a user, or in <RequireAll> if every one must",
        )


@register
class AuthDefaultAuthoritative(Rule):
    """
    ## What it does
    Finds `AuthDefaultAuthoritative` (mod_authn_default, removed in 2.4).

    ## Why is this bad?
    2.4 has no mod_authn_default and refuses the directive at start-up. In
    2.2 the module answered requests whose `AuthType` no authentication
    module handled: 401 when `On` (the default), or it declined when `Off`
    so a third-party module could authenticate, and otherwise httpd
    answered 500. 2.4's mod_authn_core answers that case with 500 (AH01796
    "AuthType ... configured without corresponding module").

    ## Example
    ```apache
    <Location /private>
        AuthType Basic
        AuthDefaultAuthoritative Off
    </Location>
    ```

    ## Use instead
    ```apache
    <Location /private>
        AuthType Basic
    </Location>
    ```

    ## Fix safety
    Safe: the line is removed. Requests that an authentication module
    handles are not affected either way; for an `AuthType` no module
    handles, the request fails on both versions (401 with `On`, 500 with
    `Off` on 2.2; 500 on 2.4). A third-party authentication module that
    relied on `Off` must be rebuilt for 2.4 anyway.
    """

    code = "HT104"
    name = "auth-default-authoritative"
    severity = Severity.ERROR
    summary = "AuthDefaultAuthoritative (mod_authn_default) is gone in 2.4"
    fix_availability = "always"
    directives = ("authdefaultauthoritative",)

    def check(self, ctx, item):
        node = item.node
        yield self.finding(
            item,
            "AuthDefaultAuthoritative is not in 2.4 (mod_authn_default is gone, start-up fails); an AuthType no "
            "module handles fails with 500 on 2.4: remove it",
            fix=self.fix("remove AuthDefaultAuthoritative", Applicability.SAFE, lambda: edit.remove(node), node),
        )

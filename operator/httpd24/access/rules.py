"""The access-control rules HT501-HT506, built on the model and the plan."""

from __future__ import annotations

import posixpath
from typing import Iterable

from ..engine import Applicability, Finding, Rule, Severity, register
from . import expr as X
from .apply import _items, apply_scope_plan, plan_nodes, REMOVED_KEYS
from .model import Effective, Model, Scope, _dir_under, build, merge, quiet_gc
from .plan import Inexact, Plan, ScopePlan, chains, full_expr, inherited, make_plan, methods_of

_CACHE: dict[int, tuple[object, Model, Plan]] = {}


def _analysis(ctx) -> tuple[Model, Plan]:
    """The model and plan of a context (built once per lint pass)."""
    key = id(ctx.view)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is ctx.view:
        return cached[1], cached[2]
    model = build(ctx.configset, ctx.target, ctx.view)
    plan = make_plan(model)
    _CACHE.clear()
    _CACHE[key] = (ctx.view, model, plan)
    return model, plan


def _anchor(scope: Scope):
    items = _items(scope, REMOVED_KEYS + ("authtype",))
    if items:
        return items[0]
    return scope.node


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.splitlines())


def _where(scope: Scope) -> str:
    return scope.label


class _PlanRule(Rule):
    kinds: tuple[str, ...] = ()

    def wanted(self, model: Model) -> bool:
        return True

    def message(self, p: ScopePlan, model: Model) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def check_config(self, ctx) -> Iterable[Finding]:
        with quiet_gc():
            return list(self._check(ctx))

    def _check(self, ctx) -> Iterable[Finding]:
        model, plan = _analysis(ctx)
        if not self.wanted(model):
            return
        mine = [p for p in plan.scopes if p.kind in self.kinds]
        blocked = [p for p in plan.scopes if p.text is None and p.kind != "authtype"]
        for p in mine:
            where = _anchor(p.scope)
            if where is None:
                continue
            message = self.message(p, model)
            fix = None
            if p.text is None:
                message += f"; no exact 2.4 form: {p.reason}, a person must decide"
            elif blocked and p.kind != "authtype":
                first = blocked[0].scope
                message += f"; not rewritten automatically because {first.label} ({first.file}:{first.line}) needs a person"
            else:
                fix = self.fix(
                    f"write {_where(p.scope)} in 2.4 syntax", Applicability.SAFE,
                    lambda p=p: apply_scope_plan(p), *plan_nodes(p),
                )
            yield self.finding(where, message, replacement=_one_line(p.text or ""), fix=fix)


@register
class OrderAllowDeny(_PlanRule):
    """
    ## What it does
    Translates 2.2 access control (`Order`, `Allow`, `Deny`, `Satisfy`, and `Require`
    lines that inherit address rules) into pure 2.4 `Require` directives, keeping the
    answer 2.2 gave to every request: `Order` (deny,allow / allow,deny /
    mutual-failure), every `Allow`/`Deny from` form (IP, partial IP, CIDR, netmask,
    IPv6, host names, `env=`, `env=!`), `Satisfy All|Any`, per-method rules in
    `<Limit>`, and 2.2's inheritance (Order/Allow/Deny reset together, Satisfy and
    Require inherited on their own).

    ## Why is this bad?
    2.4 without mod_access_compat refuses to start on `Order`/`Allow`/`Deny`/`Satisfy`
    ("Invalid command 'Order'"); with mod_access_compat it starts, but does not always
    answer as 2.2 did (see HT503). In 2.4 a section's `Require` lines replace the
    inherited ones, address rules included.

    ## Example
    ```apache
    <Directory "/srv/private">
        Order allow,deny
        Allow from 10.0.0.0/8
        Deny from 10.1.2.3
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory "/srv/private">
        <RequireAll>
            Require ip 10.0.0.0/8
            Require not ip 10.1.2.3
        </RequireAll>
    </Directory>
    ```

    ## Fix safety
    Safe: the fix is offered only when the translation gives every request the 2.2
    answer (it is checked request by request on real httpd in the project's tests).
    Host names become `Require host` (same double-reverse lookup), `127.0.0.1` stays
    `Require ip 127.0.0.1` (never `Require local`). When a section's meaning depends
    on which other sections apply, no fix is offered and the message says why.
    """

    code = "HT501"
    name = "access-order-allow-deny"
    severity = Severity.ERROR
    summary = "2.2 access control (Order/Allow/Deny/Satisfy) must become Require"
    fix_availability = "sometimes"
    kinds = ("translate", "require")

    def wanted(self, model: Model) -> bool:
        return model.has_compat and not model.hybrid

    def message(self, p: ScopePlan, model: Model) -> str:
        if p.kind == "require":
            return (
                f"{_where(p.scope)}: in 2.4 these Require lines replace the inherited address rules "
                f"(2.2 kept Order/Allow/Deny and Satisfy apart from Require)"
            )
        return (
            f"{_where(p.scope)}: Order/Allow/Deny/Satisfy is 2.2 access control; 2.4 without "
            f"mod_access_compat refuses it"
        )


@register
class HybridAccess(_PlanRule):
    """
    ## What it does
    Finds configurations that mix 2.2 access directives (`Order`, `Allow`, `Deny`,
    `Satisfy`) with 2.4 ones (`Require all|ip|host|env|local|method|expr`,
    `<RequireAll>`, `<RequireAny>`, `<RequireNone>`, `AuthMerging`), and rewrites them in
    pure 2.4 so that they answer as they answer today, on the 2.4 server with
    mod_access_compat they are meant for.

    ## Why is this bad?
    The mix is "technically possible but discouraged": mod_access_compat's directives
    take precedence, so a `Require` line may never take effect. The documented example:
    `<Directory />` with `Order deny,allow` and `Deny from all`, and `<Location
    /server-status>` with `Require local`, answers 403 to everyone (AH01797).

    ## Example
    ```apache
    <Directory "/">
        Order deny,allow
        Deny from all
    </Directory>
    <Location "/server-status">
        SetHandler server-status
        Require local
    </Location>
    ```

    ## Use instead
    ```apache
    <Directory "/">
        Require all denied
    </Directory>
    <Location "/server-status">
        SetHandler server-status
        Require all denied
    </Location>
    ```
    (the answers of today; write `Require local` alone if the intent was to allow
    local clients).

    ## Fix safety
    Safe under the stated assumption: the configuration runs on 2.4 with
    mod_access_compat (it uses 2.4 syntax, so it never ran on 2.2). Not offered when
    a section's answer depends on which other sections apply.
    """

    code = "HT502"
    name = "access-hybrid"
    severity = Severity.ERROR
    summary = "2.2 and 2.4 access directives are mixed"
    fix_availability = "sometimes"
    kinds = ("hybrid",)

    def wanted(self, model: Model) -> bool:
        return model.hybrid

    def message(self, p: ScopePlan, model: Model) -> str:
        text = f"{_where(p.scope)}: 2.2 (Order/Allow/Deny/Satisfy) and 2.4 (Require) access directives are mixed"
        own = p.scope.own
        if not own.has_compat and own.authz is not None and p.expr is not None:
            mine = X.render(X.simplify(own.authz))
            if mine != X.render(p.expr):
                text += f"; its own `{_one_line(mine)}` does not decide alone: inherited Order/Allow/Deny/Satisfy take precedence"
        return text + (
            "; rewritten to answer as it does today, assuming the server is 2.4 with mod_access_compat"
        )


@register
class AuthTypeWithoutRequire(_PlanRule):
    """
    ## What it does
    Finds `AuthType` in a section where no `Require` applies to some requests.

    ## Why is this bad?
    2.2 asked for no authentication there (the answer came from the address rules
    alone). 2.4 answers 500 with AH01627 "AuthType configured with no corresponding
    authorization directives".

    ## Example
    ```apache
    <Directory "/srv/www">
        AuthType Basic
        AuthName "site"
        AuthUserFile "/etc/httpd/users"
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory "/srv/www">
        AuthType Basic
        AuthName "site"
        AuthUserFile "/etc/httpd/users"
        Require all granted
    </Directory>
    ```
    (with `AuthMerging And` before it when an enclosing section may hold `Require`
    lines, so those keep applying).

    ## Fix safety
    Safe: `Require all granted` answers as "no Require" did in 2.2, and with
    `AuthMerging And` an inherited `Require` keeps deciding.
    """

    code = "HT504"
    name = "authtype-without-require"
    severity = Severity.ERROR
    summary = "AuthType without Require answers 500 on 2.4"
    fix_availability = "always"
    kinds = ("authtype",)

    def wanted(self, model: Model) -> bool:
        return not model.hybrid

    def message(self, p: ScopePlan, model: Model) -> str:
        return (
            f"{_where(p.scope)}: AuthType without any Require for some requests: 2.2 asked for no "
            f"authentication, 2.4 answers 500 (AH01627)"
        )


# -- HT503: relying on mod_access_compat --------------------------------------------------------


def _describe(d: Scope, inh22: Effective, inhc: Effective, e22: str, ec: str, methods) -> str:
    own = d.own
    label = d.label
    if own.satisfy is not None and own.host is None and inh22.host.orders + inh22.host.allows + inh22.host.denys:
        return (
            f"{label} holds only Satisfy: on 2.4 + mod_access_compat it drops the inherited "
            f"Order/Allow/Deny, so clients those rules denied now pass the address check"
        )
    if own.host is not None and own.satisfy is None and any(inh22.satisfy_for(m) == "any" for m in methods):
        return (
            f"{label} holds Order/Allow/Deny but no Satisfy: on 2.4 + mod_access_compat the inherited "
            f"Satisfy Any falls back to Satisfy All, so clients that passed by address alone (or by password "
            f"alone) are now refused"
        )
    return f"{label}"


@register
class CompatChangesMeaning(Rule):
    """
    ## What it does
    For configurations that keep 2.2 access syntax and rely on mod_access_compat, finds
    the sections where 2.4 + mod_access_compat answers differently from 2.2 (measured,
    research notes §5): a section with only `Satisfy` (drops the inherited
    Order/Allow/Deny), a section with Order/Allow/Deny but no `Satisfy` under a parent's
    `Satisfy Any` (falls back to All), `Deny` + `Satisfy Any` without any `Require`
    (2.2: 403, 2.4: 200), `AuthType` without `Require` (2.2: 200, 2.4: 500).

    ## Why is this bad?
    Loading mod_access_compat keeps the syntax, not the meaning: clients gain or lose
    access silently.

    ## Example
    ```apache
    <Directory "/srv">
        Order deny,allow
        Deny from all
        Allow from 10.0.0.0/8
    </Directory>
    <Directory "/srv/sub">
        Satisfy All
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory "/srv">
        Require ip 10.0.0.0/8
    </Directory>
    ```
    (or run HT501's fix, which writes every section in pure 2.4).

    ## Fix safety
    No fix of its own: HT501 rewrites the configuration in pure 2.4.
    """

    code = "HT503"
    name = "access-compat-changes-meaning"
    severity = Severity.ERROR
    summary = "2.4 + mod_access_compat answers differently from 2.2"

    def check_config(self, ctx) -> Iterable[Finding]:
        with quiet_gc():
            return list(self._check(ctx))

    def _check(self, ctx) -> Iterable[Finding]:
        model, _plan = _analysis(ctx)
        if not model.has_compat or model.hybrid:
            return
        methods = methods_of(model)
        for d in model.scopes:
            own = d.own
            if not own.has_access and own.authtype is None:
                continue
            possible = chains(d, model)
            if not possible:
                continue
            for chain in possible:
                inh22 = inherited(chain, "2.2")
                inhc = inherited(chain, "compat")
                s22 = merge(inh22, own, "2.2")
                sc = merge(inhc, own, "compat")
                e22 = X.render(full_expr(s22, "2.2", methods))
                try:
                    ec = X.render(full_expr(sc, "compat", methods))
                except Inexact:
                    ec = "500 (AH01627) for clients that pass the address check"
                if e22 == ec:
                    continue
                where = _anchor(d)
                if where is None:
                    break
                head = _describe(d, inh22, inhc, e22, ec, methods)
                via = ", ".join(p.label for p in chain if p.kind != "server")
                yield self.finding(
                    where,
                    f"{head}: 2.2 answers as `{_one_line(e22)}`, 2.4 + mod_access_compat as `{_one_line(ec)}`"
                    + (f" (with {via})" if via else ""),
                    replacement=_one_line(e22),
                )
                break


# -- HT505: .htaccess overrides ------------------------------------------------------------------


def _override_at(model: Model, dirpath: str) -> tuple[set[str], object]:
    """AllowOverride effective for a directory (2.4 default None) and the item that set it."""
    best = None
    for scope in model.scopes:
        if scope.kind == "directory" and scope.allowoverride is not None and scope.dirpath is not None:
            if scope.vhost is None and _dir_under(dirpath, scope.dirpath):
                if best is None or scope.components() >= best.components():
                    best = scope
    if best is None:
        return {"none"}, None
    words = {w.lower().split("=")[0] for w in best.allowoverride.args}
    return words, best.allowoverride


@register
class HtaccessOverride(Rule):
    """
    ## What it does
    For `.htaccess` files of the configuration set whose directory the server
    configuration names, checks that `AllowOverride` lets the 2.4 form through:
    `Order`/`Allow`/`Deny` need `AllowOverride Limit`, but `Require` (what they become)
    needs `AuthConfig`.

    ## Why is this bad?
    A migrated `.htaccess` in a directory with only `AllowOverride Limit` is rejected:
    every request there answers 500 ("Require not allowed here"). With `AllowOverride
    None` (the 2.4 default) the file is ignored altogether.

    ## Example
    ```apache
    <Directory "/srv/www">
        AllowOverride Limit
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory "/srv/www">
        AllowOverride Limit AuthConfig
    </Directory>
    ```

    ## Fix safety
    No automatic fix: widening AllowOverride lets the file change more than access
    control; a person must decide.
    """

    code = "HT505"
    name = "htaccess-override"
    severity = Severity.ERROR
    summary = ".htaccess access control needs AllowOverride AuthConfig in 2.4"

    def check_config(self, ctx) -> Iterable[Finding]:
        with quiet_gc():
            return list(self._check(ctx))

    def _check(self, ctx) -> Iterable[Finding]:
        model, _plan = _analysis(ctx)
        if not model.has_entry:
            return
        for scope in model.scopes:
            if scope.kind != "htaccess" or scope.dirpath is None:
                continue
            own = scope.own
            if not own.has_access:
                continue
            name = posixpath.basename(scope.file)
            if model.access_file_names and name not in model.access_file_names:
                yield self.finding(
                    _anchor(scope),
                    f"{scope.file}: httpd reads only {' '.join(model.access_file_names)} (AccessFileName); "
                    f"this file is never read",
                )
                continue
            allowed, where = _override_at(model, scope.dirpath)
            at = f" (AllowOverride at {where.file}:{where.node.location.line})" if where is not None else (
                " (no AllowOverride: 2.4's default is None)"
            )
            if "none" in allowed:
                yield self.finding(
                    _anchor(scope),
                    f"{scope.file}: AllowOverride None for {scope.dirpath}{at}: 2.4 ignores this .htaccess, "
                    f"its access control does not apply; add `AllowOverride AuthConfig Limit` to "
                    f"<Directory {scope.dirpath.rstrip('/') or '/'}> if it should",
                )
                continue
            if "all" in allowed or "authconfig" in allowed:
                continue
            yield self.finding(
                _anchor(scope),
                f"{scope.file}: the migrated Require lines need AllowOverride AuthConfig for {scope.dirpath}{at}; "
                f"without it every request there answers 500 (\"Require not allowed here\"): add AuthConfig "
                f"to that AllowOverride",
            )


# -- HT506: invalid access directives -----------------------------------------------------------


@register
class InvalidAccessArgument(Rule):
    """
    ## What it does
    Finds `Allow`/`Deny`/`Order`/`Satisfy` arguments httpd refuses: a missing `from`,
    `10.1.2.3/40` (bad mask), `::ffff:1.2.3.4` (IPv4-mapped IPv6), `host.name/24` ("An IP
    address was expected"), a `#` inside the list ("No comments are allowed here"), an
    unknown `Order`.

    ## Why is this bad?
    Both 2.2 and 2.4 refuse to start on them; there is nothing to translate.

    ## Example
    ```apache
    Allow from 10.0.0.0/33
    ```

    ## Use instead
    ```apache
    Allow from 10.0.0.0/8
    ```

    ## Fix safety
    No fix: the intended address is unknown.
    """

    code = "HT506"
    name = "access-invalid-argument"
    severity = Severity.ERROR
    summary = "Allow/Deny/Order/Satisfy argument httpd refuses"

    def check_config(self, ctx) -> Iterable[Finding]:
        with quiet_gc():
            return list(self._check(ctx))

    def _check(self, ctx) -> Iterable[Finding]:
        model, _plan = _analysis(ctx)
        for scope in model.scopes:
            for item, message in scope.own.errors:
                yield self.finding(item, f"{item.node.name} {' '.join(item.args)}: {message} (httpd refuses to start)")

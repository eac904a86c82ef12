"""The access-control rules HT501-HT507, built on the model and the plan."""

from __future__ import annotations

import posixpath
from typing import Iterable

from ..apache.table import override_classes
from ..config import Liveness, Section, Target, edit
from ..config.target import module_identifier
from ..engine import Applicability, Finding, Rule, Severity, register
from . import authz22
from . import expr as X
from .apply import _items, apply_scope_plan, plan_nodes, provider_as_24, REMOVED_KEYS
from .model import (COMPAT_KEYS, NATIVE_24_PROVIDERS, Effective, Model, Scope, build, fold, htaccess_home,
                    normalize_dir, override_of, quoted_provider, written)
from .plan import (
    Inexact,
    Plan,
    ScopePlan,
    chains,
    full_expr,
    inherited,
    load_order,
    one_line,
    own_expr_24,
    recorded_after,
    methods_of,
    shadowed_in_some_context,
    too_complex,
    uses_dbm_groups,
)
from .worlds import make_plan

def _analysis(ctx) -> tuple[Model, Plan]:
    """The model and plan of a context, built once per lint pass and kept as long as the context.

    A migration's later passes read the text as its first pass read the input (``on_24``). An input that
    ran on 2.4 (+ mod_access_compat) stays so once the rewrite took the last Order/Allow/Deny away, when
    nothing in the text says any more that an AuthType without Require answers 500 rather than 2.2's
    200; and the Require lines written for a 2.2 input do not make it one that ran on 2.4."""
    cached = ctx.__dict__.get("_httpd24_access_analysis")
    if cached is None:
        model = build(ctx.configset, ctx.target, ctx.view, on_24=ctx.memory.get("access.on_24"),
                      source_version=ctx.source_version)
        ctx.memory.setdefault("access.on_24", model.mode == "compat")
        cached = ctx.__dict__["_httpd24_access_analysis"] = (model, make_plan(model))
    return cached


def _anchor(scope: Scope):
    items = _items(scope, REMOVED_KEYS + ("authtype",))
    if items:
        return items[0]
    return scope.node


def _where(scope: Scope) -> str:
    return scope.label


class _PlanRule(Rule):
    kinds: tuple[str, ...] = ()

    def wanted(self, model: Model) -> bool:
        return True

    def message(self, p: ScopePlan, model: Model) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def anchor(self, p: ScopePlan):
        return _anchor(p.scope)

    def check_config(self, ctx) -> Iterable[Finding]:
        model, plan = _analysis(ctx)
        if not self.wanted(model):
            return
        mine = [p for p in plan.scopes if p.kind in self.kinds]
        # An AuthType section without an exact form holds the others back only on 2.4 + mod_access_compat,
        # where their rewrite would take its 500 away (plan._authtype_on_24).
        blocked = [p for p in plan.scopes if p.text is None and not p.stays
                   and (p.kind != "authtype" or model.mode == "compat")]
        for p in mine:
            where = self.anchor(p)
            if where is None:
                continue
            message = self.message(p, model)
            fix = None
            if p.stays:
                message += f"; {p.reason}"
            elif p.text is None:
                message += f"; no exact 2.4 form: {p.reason}, a person must decide"
            elif blocked and (p.kind != "authtype" or model.has_compat or uses_dbm_groups(model)):
                # HT504's `Require all granted` too: next to Order/Allow/Deny it makes the
                # configuration a 2.2/2.4 mix, which HT502 would then rewrite as 2.4 +
                # mod_access_compat reads it -- not as 2.2 did -- past the section that needs a person.
                first = blocked[0].scope
                message += f"; not rewritten automatically because {first.label} ({first.file}:{first.line}) needs a person"
            else:
                fix = self.fix(
                    f"write {_where(p.scope)} in 2.4 syntax", Applicability.SAFE,
                    lambda p=p: apply_scope_plan(p), *plan_nodes(p),
                )
                if p.assumes:
                    message += f"; {p.assumes}"
            yield self.finding(where, message, replacement=one_line(p.text or ""), fix=fix)


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
    answer (it is checked request by request on real httpd in the project's tests);
    for a configuration that ran on 2.4 already (it loads a module 2.2 never had),
    the answer 2.4 + mod_access_compat gives it today.
    Host names become `Require host` (same double-reverse lookup), `127.0.0.1` stays
    `Require ip 127.0.0.1` (never `Require local`). When a section's meaning depends
    on which other sections apply, or on an `<IfModule>`/`<IfDefine>` inside it that
    nothing decides (`--module`, `--define`), no fix is offered and the message says why.
    A file another configuration includes (no `ServerRoot`, `PidFile` or `User`) and that
    sets no `DocumentRoot` is served under the including one's: its `<Location>` sections
    may meet any of its `<Directory>` sections, so lint it from the including
    configuration where that decides their meaning. One that sets it may still be served
    through the including one's Aliases (`Alias /phpmyadmin /usr/share/phpmyadmin`), and a
    configuration that includes files httpd24 does not read through theirs: a `<Location>`
    may then meet a `<Directory>` named after its URL that its own mapping does not reach;
    lint it with the files it includes (the directory, or `--server-root`). In such a file,
    a section with `Require` lines that no `Allow`/`Deny` of its own reaches met the including
    configuration's on 2.2: the fix takes it to set none, and the message says so and what
    keeps its address rules instead (`AuthMerging Or` for `Satisfy Any`, `And` for `Satisfy All`).
    An .htaccess line that `AllowOverride ... Nonfatal=Override` keeps out is skipped by httpd,
    but a skipped `Order`/`Allow`/`Deny`/`Satisfy` still resets what the section inherits of
    them (httpd makes the module's record before it asks the AllowOverride): the fix writes
    what that means, and the line goes (2.4 without mod_access_compat would refuse it, not
    skip it). Where one server skips a line and another reads it (or answers 500 for it), no
    one text of the file keeps both, and the message names the two servers.
    """

    code = "HT501"
    name = "access-order-allow-deny"
    severity = Severity.ERROR
    summary = "2.2 access control (Order/Allow/Deny/Satisfy) must become Require"
    fix_availability = "sometimes"
    kinds = ("translate", "require", "hybrid")

    def wanted(self, model: Model) -> bool:
        # On 2.4 + mod_access_compat without a 2.4 line (it loads a module 2.2 never had) nothing is mixed.
        return model.has_compat and not (model.hybrid and model.has_24_syntax)

    def check_config(self, ctx) -> Iterable[Finding]:
        yield from super().check_config(ctx)
        model, plan = _analysis(ctx)
        if model.unmodelled_skip is not None and model.has_compat:  # else nothing is rewritten
            item, why = model.unmodelled_skip
            if not any(p.scope.file == item.file for p in plan.scopes):  # said above for a section of its file
                yield self.finding(item, f"{why}; a person must decide")

    def message(self, p: ScopePlan, model: Model) -> str:
        if p.kind == "hybrid":
            return (f"{_where(p.scope)}: Order/Allow/Deny/Satisfy is 2.2 access control, which only "
                    "mod_access_compat keeps on 2.4; judged by the answers it gives today on 2.4 with it")
        if p.kind == "require" and p.scope.own.requires is None:
            return _group_file_message(p)
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
        return model.hybrid and model.has_24_syntax

    def message(self, p: ScopePlan, model: Model) -> str:
        text = f"{_where(p.scope)}: 2.2 (Order/Allow/Deny/Satisfy) and 2.4 (Require) access directives are mixed"
        own = p.scope.own
        if not own.has_compat and own.authz is not None and p.expr is not None:
            mine = X.render(own_expr_24(p.scope, methods_of(model)))
            if mine != X.render(p.expr):
                text += f"; its own `{one_line(mine)}` does not decide alone: inherited Order/Allow/Deny/Satisfy take precedence"
        return text + "; judged by the answers it gives today, assuming the server is 2.4 with mod_access_compat"


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
    `AuthMerging And` an inherited `Require` keeps deciding. Not offered in a
    configuration that mixes 2.2 and 2.4 access control, or that has a 2.4-only
    access line outside `<IfModule>`, `<IfVersion>` and `<IfDefine>`: it runs on 2.4
    already, so the section answers 500 today and a person must say what it should
    ask for; until then the mixed sections that meet it are not rewritten either
    (HT502), since their 2.4 form would give it Require lines.
    """

    code = "HT504"
    name = "authtype-without-require"
    severity = Severity.ERROR
    summary = "AuthType without Require answers 500 on 2.4"
    fix_availability = "sometimes"
    kinds = ("authtype",)

    def message(self, p: ScopePlan, model: Model) -> str:
        if model.mode == "compat":
            return (f"{_where(p.scope)}: AuthType without any Require for some requests: 2.4 answers 500 there "
                    f"today (AH01627)")
        return (
            f"{_where(p.scope)}: AuthType without any Require for some requests: 2.2 asked for no "
            f"authentication, 2.4 answers 500 (AH01627)"
        )


def _group_file_message(p: ScopePlan) -> str:
    return (f"{_where(p.scope)}: the group files set here changed which 2.2 module judged the inherited "
            f"`Require group` lines (mod_authz_dbm for AuthDBMGroupFile, which 2.4 names `Require dbm-group`)")


@register
class RequireGroupDBM(_PlanRule):
    """
    ## What it does
    Finds `Require group` lines that 2.2 judged with mod_authz_dbm (an `AuthDBMGroupFile`
    in effect), in configurations without Order/Allow/Deny/Satisfy (with them, HT501
    translates the same lines), and writes them as 2.4 reads them.

    ## Why is this bad?
    2.4's `Require group` is mod_authz_groupfile's and reads only `AuthGroupFile`; the
    DBM group check is `Require dbm-group` (spec §5.1). Kept as it is, every member of a
    DBM group is refused with 401 on 2.4, and where an `AuthGroupFile` is also set its
    members are admitted instead. With both files, 2.2 asked the modules in hook order
    (mod_authz_groupfile first unless LoadModule says otherwise) and the first one that
    is authoritative (`Authz*Authoritative On`, the default) decided alone.

    ## Example
    ```apache
    <Location "/private">
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        AuthDBMGroupFile /etc/httpd/groups.db
        Require group admins
    </Location>
    ```

    ## Use instead
    ```apache
    <Location "/private">
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        AuthDBMGroupFile /etc/httpd/groups.db
        Require dbm-group admins
    </Location>
    ```

    ## Fix safety
    Safe: each section's lines are written from the merged 2.2 settings of every
    combination of sections that may apply to a request, as HT501 does, and left to a
    person (no fix, saying why) where those combinations mean different things.
    """

    code = "HT508"
    name = "require-group-dbm"
    severity = Severity.ERROR
    summary = "Require group judged by mod_authz_dbm on 2.2 is Require dbm-group on 2.4"
    fix_availability = "sometimes"
    kinds = ("require",)

    def wanted(self, model: Model) -> bool:
        return not model.has_compat and not model.has_24_syntax and uses_dbm_groups(model)

    def anchor(self, p: ScopePlan):
        lines = [i for i in _items(p.scope, ("require",)) if i.args and i.args[0].lower() == "group"]
        return lines[0] if lines else _anchor(p.scope)

    def message(self, p: ScopePlan, model: Model) -> str:
        if p.scope.own.requires is None:
            return _group_file_message(p)
        return (f"{_where(p.scope)}: 2.2 judged `Require group` here with mod_authz_dbm (AuthDBMGroupFile), "
                f"which 2.4 names `Require dbm-group`; 2.4's `Require group` reads only AuthGroupFile")


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
        model, _plan = _analysis(ctx)
        if not model.has_compat or model.hybrid or too_complex(model):
            return
        methods = methods_of(model)
        order = load_order(model)
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
                s22 = fold([*chain, d], "2.2")
                sc = fold([*chain, d], "compat")
                e22 = X.render(full_expr(s22, "2.2", methods, order))
                try:
                    ec = X.render(full_expr(sc, "compat", methods, order))
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
                    f"{head}: 2.2 answers as `{one_line(e22)}`, 2.4 + mod_access_compat as `{one_line(ec)}`"
                    + (f" (with {via})" if via else ""),
                    replacement=one_line(e22),
                )
                break


# -- HT505: .htaccess overrides ------------------------------------------------------------------


@register
class HtaccessOverride(Rule):
    """
    ## What it does
    For `.htaccess` files of the configuration set whose directory the server
    configuration names, finds those 2.4 does not read as 2.2 did: where no
    `AllowOverride` applies (2.2's default was `All`), 2.4 opens the file and refuses
    every line in it, access control or not (measured on 2.4: "... not allowed here",
    500 for every request under its directory). For files that hold access control
    (in their own lines or their sections'), also: with `AllowOverride None` neither
    reads it (its access control never applied); a file other than the
    `AccessFileName` is never read.
    Each server is judged on its own: a `<VirtualHost>`'s `<Directory>` sections merge
    over the main server's, and the main server counts only where some `Listen` reaches
    it (no virtual host takes that port for every address; a set without `Listen` is
    taken to reach it).

    An `AllowOverride` that lets the 2.2 lines in but not their 2.4 form (`Limit`
    without `AuthConfig`: `Require` needs `AuthConfig`) is HT501's: it leaves that file
    to a person and names the line; a line the `AllowOverride` keeps out today is HT506's.

    ## Why is this bad?
    Where no `AllowOverride` applies, every request under the directory answers 500 on
    2.4, where 2.2 applied the file.

    ## Example
    ```apache
    <Directory "/srv/www">
        Options FollowSymLinks
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory "/srv/www">
        Options FollowSymLinks
        AllowOverride AuthConfig
    </Directory>
    ```

    ## Fix safety
    No automatic fix: an AllowOverride lets the file change more than access control;
    a person must decide which classes it gets (HT301 keeps 2.2's `All` where it decides
    the configuration relies on .htaccess files).
    """

    code = "HT505"
    name = "htaccess-override"
    severity = Severity.ERROR
    summary = ".htaccess access control 2.4 does not read as 2.2 did (AllowOverride, AccessFileName)"

    def check_config(self, ctx) -> Iterable[Finding]:
        model, _plan = _analysis(ctx)
        if not model.has_entry:
            return
        # access lines of a file's sections (<Files>, <Limit>) count for the file
        with_access = {id(home) for s in model.scopes if s.own.has_access and (home := htaccess_home(s)) is not None}
        for scope in model.scopes:
            if scope.kind != "htaccess" or scope.dirpath is None or not scope.lines:
                continue
            has_access = id(scope) in with_access
            anchor = _anchor(scope) or scope.lines[0]  # an access line, else the first line
            name = posixpath.basename(scope.file)
            if has_access and model.access_file_names and name not in model.access_file_names:
                yield self.finding(
                    anchor,
                    f"{scope.file}: httpd reads only {' '.join(model.access_file_names)} (AccessFileName); "
                    f"this file is never read",
                )
                continue
            # per server: a virtual host's <Directory> sections merge over the main server's
            wheres = model.allowoverrides_at(scope.dirpath)
            directory = f"<Directory {scope.dirpath.rstrip('/') or '/'}>"
            if None in wheres:
                needs = " ".join(_classes_needed(scope, has_access))
                servers, where = "", directory
                if any(wheres):
                    # Some hosts have their own; the others merge the main server's sections: written there,
                    # it reaches every server that has none (a host's own section reaches that host only).
                    without = [server for server in model.servers
                               if model.allowoverride_at(scope.dirpath, server) is None]
                    labels = [model.server_label(server) for server in without[:3]]
                    if len(without) > 3:
                        labels.append(f"{len(without) - 3} more virtual hosts")
                    servers = " in " + " and ".join(labels)
                    where = f"a {directory} of the main server, outside every <VirtualHost>"
                    kept = _kept_out_above(model, scope.dirpath)
                    if kept:
                        where += (f"; it would override {' and '.join(kept)} (a host's line above the directory"
                                  f" merges before a deeper main-server one): write that line again in a {directory}"
                                  f" of that host to keep it")
                yield self.finding(
                    anchor,
                    f"{scope.file}: no AllowOverride applies to {scope.dirpath}{servers} (2.2's default was All): 2.4 "
                    f"opens this file and refuses every line in it (\"... not allowed here\"), so every request under "
                    f"{scope.dirpath} answers 500; add `AllowOverride {needs}` (what its lines need once migrated) "
                    f"to {where}",
                )
            elif has_access and not any(override_of(at).read for at in wheres):
                where = wheres[0]
                yield self.finding(
                    anchor,
                    f"{scope.file}: {written(where)} for {scope.dirpath} ({where.file}:{where.node.location.line}): "
                    f"httpd (2.2 as 2.4) never reads this file, its access control does not apply; add "
                    f"`AllowOverride AuthConfig` to {directory} if it should",
                )


def _kept_out_above(model: Model, dirpath: str) -> list[str]:
    """The hosts whose own AllowOverride above ``dirpath`` (a shallower <Directory> of the host) decides there:
    a main-server <Directory dirpath> would take its place for them (httpd sorts by depth first)."""
    depth = dirpath.count("/")
    out = []
    for server in model.servers:
        at = model.allowoverride_at(dirpath, server) if server is not None else None
        section = at.in_section("directory") if at is not None else None
        if at is None or section is None or at.in_section("virtualhost") is None:
            continue
        if normalize_dir(section.args[0].strip("\"'")).count("/") < depth:
            out.append(f"{model.server_label(server)}'s `{written(at)}` ({at.file}:{at.node.location.line})")
    return out


def _classes_needed(scope: Scope, access: bool = True) -> list[str]:
    """The AllowOverride classes the lines of the .htaccess file ``scope`` need on 2.4 once migrated: AuthConfig
    for its access control (Require, where it has ``access`` lines), the table's for the rest."""
    needed = {"AuthConfig"} if access else set()
    for item in scope.lines:
        key = ("<" if isinstance(item.node, Section) else "") + item.key
        classes = override_classes().get(key, ())
        if item.key not in COMPAT_KEYS and classes and not needed & set(classes):
            needed.add(classes[0])
    return sorted(needed) or ["All"]


# -- HT506: invalid access directives -----------------------------------------------------------


@register
class InvalidAccessArgument(Rule):
    """
    ## What it does
    Finds `Allow`/`Deny`/`Order`/`Satisfy` arguments httpd refuses: a missing `from`,
    `10.1.2.3/40` (bad mask), `::ffff:1.2.3.4` (IPv4-mapped IPv6), `host.name/24` ("An IP
    address was expected"), a `#` inside the list ("No comments are allowed here"), an
    unknown `Order`; and access lines (`Order`, `Allow`, `Deny`, `Satisfy`, `Require`,
    `AuthType`...) outside `<Directory>`, `<Location>`, `<Files>` and `<Proxy>` sections
    and .htaccess files ("not allowed here"); and the `<Limit>` sections 2.4 refuses: one
    naming no method, `<Limit TRACE>` (TraceEnable's), a `<Limit>` inside another that does
    not narrow its methods ("excludes all methods", "specifies methods already excluded").

    ## Why is this bad?
    Both 2.2 and 2.4 refuse to start on them (in an .htaccess file, they answer
    500 to every request under its directory); there is nothing to translate.

    ## Example
    ```apache
    <Directory /srv/www>
        Allow from 10.0.0.0/33
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory /srv/www>
        Require ip 10.0.0.0/8
    </Directory>
    ```

    ## Fix safety
    No fix: the intended address is unknown.
    """

    code = "HT506"
    name = "access-invalid-argument"
    severity = Severity.ERROR
    summary = "Access line httpd refuses (its argument, or outside a section)"

    def check_config(self, ctx) -> Iterable[Finding]:
        model, _plan = _analysis(ctx)
        for scope, item, message in model.invalid_lines():
            # httpd reads an .htaccess file per request: it starts, and the file's error is a 500.
            refusal = ("httpd answers 500 for every request under this .htaccess's directory"
                       if htaccess_home(scope) is not None else "httpd refuses to start")
            yield self.finding(item, f"{written(item)}: {message} ({refusal})")


# -- HT509: a Require provider in another case --------------------------------------------------


@register
class RequireProviderCase(Rule):
    """
    ## What it does
    Finds `Require` lines whose provider is `valid-user`, `user` or `group` written in
    another case (`Require Valid-User`, `Require USER alice`) and writes it in lower case.

    ## Why is this bad?
    2.2's mod_authz_user and mod_authz_groupfile (and mod_authz_dbm) compared these words
    in any case (strcasecmp). 2.4's mod_authz_core looks a provider up by its exact name
    and refuses to start: "Unknown Authz provider: Valid-User" (in an .htaccess file,
    every request under its directory is answered 500). Whether or not mod_access_compat
    is loaded. The user and group names after the word keep their case: both versions
    compare them case-sensitively.

    ## Example
    ```apache
    <Location "/private">
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        Require Valid-User
    </Location>
    ```

    ## Use instead
    ```apache
    <Location "/private">
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        Require valid-user
    </Location>
    ```

    ## Fix safety
    Safe: the word is the one 2.2 read. Only `valid-user`, `user` and `group`: 2.2 read
    `file-owner`, `file-group` and the `ldap-*` words case-sensitively, so another spelling
    of those never worked and is left for a person.

    A quoted word (`Require "valid-user"`, `Require 'Group' staff`, `Require "file-owner"`,
    `Require "ldap-user" alice`) is found too, in any case, and never rewritten: 2.2 kept the
    line as written (Require takes its raw arguments) and its modules compared the word with its
    quotes, so no module read the line and it let nobody in -- where no other Require line
    applied, mod_authz_default asked for a login and refused every user (401). 2.4 takes the
    quotes off: `Require "valid-user"` then lets every authenticated user in, and
    `Require "Valid-User"` refuses to start. What the line should mean is a person's choice:
    `Require user` with no names keeps 2.2's answer (a login, nobody admitted; removing the line
    keeps it only next to another Require line); the suggestion writes the word in lower case
    inside its quotes (2.4 reads it so). Not said of a configuration that ran on 2.4 already,
    where the quoted word is what it meant.
    """

    code = "HT509"
    name = "require-provider-case"
    severity = Severity.ERROR
    summary = "Require provider in another case (Require Valid-User): 2.2 read it, 2.4 refuses to start"
    directives = ("require",)
    fix_availability = "always"
    since = "0.1.0"

    def check(self, ctx, item):
        node = item.node
        if quoted_provider(node):
            yield from self._quoted(ctx, item)
            return
        args = provider_as_24(item.args)
        if args is None:
            return
        yield self.finding(
            item,
            f"Require {item.args[0]}: 2.2 read the provider in any case, 2.4 refuses to start "
            f"(\"Unknown Authz provider: {item.args[0]}\"); write `{args[0]}`",
            replacement=f"{node.name} {' '.join(edit.quote(a) for a in args)}",
            fix=self.fix(f"write `{args[0]}`", Applicability.SAFE, lambda: edit.set_args(node, args), node),
        )

    def _quoted(self, ctx, item):
        """A provider word in quotes, which no 2.2 module read (see Fix safety)."""
        node, word = item.node, item.args[0]
        if word.lower() not in authz22.WORDS or (word == word.lower() and ctx.source.ran_on_24):
            return
        written = node.raw_args[0]
        lets_in = authz22.who(authz22.Line((word.lower(), *item.args[1:])))
        then = (f"2.4 takes the quotes off and lets {lets_in} in" if word == word.lower() else
                f"2.4 takes the quotes off and refuses to start (\"Unknown Authz provider: {word}\")")
        message = (f"Require {written}: 2.2 never read a quoted provider (its modules compared the word with its "
                   f"quotes), so this line let nobody in (with no other Require line, 2.2 asked for a login and "
                   f"refused every user); {then}; write `Require user` (no names) to keep 2.2's answer")
        if word == word.lower():
            yield self.finding(item, message + ", or the word unquoted to say it is meant")
            return
        args = [word.lower(), *item.args[1:]]
        yield self.finding(
            item, message + f", or `{word.lower()}` in its quotes if that is what it should mean",
            replacement=" ".join([node.name, written.replace(word, word.lower()), *node.raw_args[1:]]),
            fix=self.fix(f"write `{word.lower()}`", Applicability.DISPLAY_ONLY, lambda: edit.set_args(node, args), node),
        )


# -- HT507: Require lines of different 2.2 modules ---------------------------------------------

#: Require providers that 2.2 did not have (a section using one was written for 2.4).
_PROVIDERS_24 = NATIVE_24_PROVIDERS | {"dbm-group", "dbm-user"}
#: Modules only 2.4 has: a section inside ``<IfModule mod_X.c>`` of one of them is read only by 2.4.
_MODULES_24 = frozenset({"authz_core_module", "authn_core_module", "access_compat_module"})
_TARGET_22 = Target(version=(2, 2, 34), modules=None, defines=None)


def _branch_24(item) -> bool:
    """Whether the item sits in a branch httpd 2.2 never reads (``<IfModule mod_authz_core.c>``,
    ``<IfVersion >= 2.3>`` ...): a dual configuration's 2.4 half."""
    for section in item.context:
        if section.key == "ifmodule" and section.args and not section.args[0].startswith("!"):
            if module_identifier(section.args[0]) in _MODULES_24:
                return True
        elif section.key == "ifversion" and _TARGET_22.if_version(list(section.args)) is Liveness.DEAD:
            return True
    return False


def _written_for_24(scope: Scope) -> bool:
    own = scope.own
    if any(own.items.get(k) for k in ("requireall", "requireany", "requirenone", "authmerging")):
        return True
    if any(line.provider in _PROVIDERS_24 or line.provider.startswith("dbd-") for line in own.requires or ()):
        return True
    requires = own.items.get("require", [])
    return bool(requires) and all(_branch_24(item) for item in requires)


#: Sections skipped by transparency when HT103 looks for the scope of an Authz*Authoritative line.
_TRANSPARENT_103 = frozenset({"ifmodule", "ifdefine", "ifversion", "limit", "limitexcept"})


def _ht103_containers(ctx) -> set[int]:
    """Sections (and documents) HT103 judges with its own analysis: those holding an
    ``Authz*Authoritative`` line of a module whose lines may shadow another's, and every
    section inside them. HT507 leaves them to HT103, which reports the same change there."""
    out: set[int] = set()
    for item in ctx.items(*authz22.AUTHORITATIVE_KEYS):
        parent = item.node.parent
        while isinstance(parent, Section) and parent.key in _TRANSPARENT_103:
            parent = parent.parent
        if parent is not None:
            out.add(id(parent))
    return out


def _covered(item, containers: set[int]) -> bool:
    node = item.node.parent
    while node is not None:
        if id(node) in containers:
            return True
        node = node.parent if isinstance(node, Section) else None
    return False


_FLAG = {module: name for name, module in (
    ("AuthzUser", "authz_user"), ("AuthzGroupFile", "authz_groupfile"), ("AuthzDBM", "authz_dbm"),
    ("AuthzOwner", "authz_owner"), ("AuthzLDAP", "authnz_ldap"))}


def _modules(names) -> str:
    return ", ".join(authz22.NAMES[m] for m in names)


def _explain(verdict: authz22.Judgement, confs: dict[str, authz22.ModuleConf]) -> tuple[str, str]:
    """(what 2.2 did, who gets in on 2.4 only)."""
    how = []
    for m in verdict.refusers:
        conf = confs.get(m)
        how.append(f"{authz22.NAMES[m]} ({conf.set_by if conf and conf.set_by else 'no AuthzXAuthoritative Off'})"
                   .replace("AuthzX", _FLAG[m]))
    certain = [s for s in verdict.shadows if s.certain]
    if certain:
        first = certain[0].refuser
        kept = [line for line in verdict.lines if first in authz22.grantors(line.kind, confs)]
        ignored = [s.line for s in certain if s.refuser == first]
        ignored = list(dict.fromkeys(ignored))
        did = (f"{authz22.NAMES[first]} ran before {_modules(dict.fromkeys(s.grantor for s in certain if s.refuser == first))} "
               f"(LoadModule order) and answered 401 to anyone "
               f"{' / '.join(f'`{line.text}`' for line in kept)} does not admit, so "
               f"{' and '.join(f'`{line.text}`' for line in ignored)} had no effect")
        gain = " and ".join(authz22.who(line) for line in ignored)
        return did, gain
    each = "each of " if len(how) > 1 else ""
    involved = {s.refuser for s in verdict.shadows} | {s.grantor for s in verdict.shadows}
    stock = ("; httpd's own httpd.conf loads mod_authz_groupfile before mod_authz_user"
             if {"authz_user", "authz_groupfile"} <= involved else "")
    did = (f"{each}{' and '.join(how)} is authoritative: when it ran first it answered 401 to anyone its own lines "
           f"do not admit, so the lines of the modules after it had no effect (which ran first is LoadModule order, "
           f"not in this configuration{stock})")
    parts = []
    for line in verdict.ignored:
        blockers = dict.fromkeys(s.refuser for s in verdict.shadows if s.line == line)
        parts.append(f"{authz22.who(line)} (refused on 2.2 where {_modules(blockers)} ran first)")
    return did, " and ".join(parts)


@register
class MixedRequireProviders(Rule):
    """
    ## What it does
    Finds a section whose `Require` lines belong to different 2.2 authorization
    modules -- `user`/`valid-user` (mod_authz_user) next to `group`
    (mod_authz_groupfile with `AuthGroupFile`, mod_authz_dbm with
    `AuthDBMGroupFile`), `file-owner`/`file-group` (mod_authz_owner) or `ldap-*`
    (mod_authnz_ldap with `AuthLDAPURL`) -- where an authoritative module (no
    `Authz*Authoritative Off` for it) made 2.2 ignore some of the lines. The
    message names who gets in on 2.4 and did not on 2.2.

    ## Why is this bad?
    2.4 reads the `Require` lines of a section as an implicit `<RequireAny>`:
    anyone any line admits gets in. 2.2 did not (the 2.1/2.2 sources of
    `modules/aaa`: apache/httpd `mod_authz_user.c`@742af25,
    `mod_authz_groupfile.c`@75d68e2, `mod_authz_dbm.c`@4c84c2c,
    `mod_authz_owner.c`@983db32, `mod_authz_default.c`@08f17d1, and
    lkundrak/httpd `mod_authnz_ldap.c`@1391110):

    * each module is an `auth_checker` hook and the first one that does not
      decline decides (`server/request.c`:
      `AP_IMPLEMENT_HOOK_RUN_FIRST(int,auth_checker,...)`). mod_authz_user,
      mod_authz_groupfile, mod_authz_dbm, mod_authz_owner and mod_authnz_ldap hook
      at `APR_HOOK_MIDDLE`; mod_authz_groupfile and mod_authz_dbm name
      `mod_authz_owner.c` as predecessor, mod_authnz_ldap names
      `mod_authz_user.c` as successor; mod_authz_default hooks at
      `APR_HOOK_LAST` and answers 401 when `Require` lines apply and nobody
      granted (`AuthzDefaultAuthoritative Off`: it declines, and httpd answers 500);
    * a module declines when no line of its own applies to the request's method
      (mod_authz_user: no `user`/`valid-user` line; mod_authz_groupfile and
      mod_authz_dbm: no `group` line, or no `AuthGroupFile`/`AuthDBMGroupFile`;
      mod_authnz_ldap: no `AuthLDAPURL`, or -- in the source read -- no `ldap-*`
      line; earlier 2.2 releases judged every line, so that `Require valid-user`
      alone needed `AuthzLDAPAuthoritative Off`). It grants when one of its lines admits
      the user (`valid-user`: anyone authenticated). Otherwise -- including a
      user in no group at all -- it answers 401 when authoritative
      (`conf->authoritative`, 1 by default: "keep the fortress secure by
      default") and declines only with `Authz*Authoritative Off`. A group file
      that cannot be opened is a 500 whatever the setting;
    * hooks of one priority run in registration order: built-in modules first,
      then `LoadModule` order (`server/config.c`: `ap_add_module` calls
      `ap_register_hooks`), sorted by `apr_hook_sort_all` (apache/apr
      `hooks/apr_hooks.c`: by priority, then predecessors dragged to the front;
      the 2003 apr-util `bfd6f6e` took the first ready hook instead, which
      differs only when mod_authz_owner is loaded after the group modules).
      httpd's own build lists `authz_groupfile` before `authz_user`
      (`modules/aaa/config.m4`) and its httpd.conf loads them in that order, so
      mod_authz_groupfile ran first there; distributions differ;
    * none of these modules merges its per-directory record: a section that
      holds any of a module's directives (e.g. only `AuthGroupFile`) replaces the
      inherited record, `Authz*Authoritative` flag included.

    So with `Require user alice` and `Require group admins` and no `Off`, the
    module that ran first refused everyone its own line does not admit: with the
    stock order only members of admins got in, and `Require user alice` was
    ignored (with mod_authz_user first, the reverse). `Require valid-user` next
    to `Require group admins` meant "members of admins" whenever
    mod_authz_groupfile ran first. 2.4 lets all of them in: an access change.

    ## Example
    ```apache
    <Location /private>
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        AuthGroupFile /etc/httpd/groups
        Require user alice
        Require group admins
    </Location>
    ```

    ## Use instead
    ```apache
    <Location /private>
        AuthType Basic
        AuthName private
        AuthUserFile /etc/httpd/users
        AuthGroupFile /etc/httpd/groups
        <RequireAll>
            Require user alice
            Require group admins
        </RequireAll>
    </Location>
    ```
    if a user had to meet every line, or `<RequireAny>` around them if any one
    line was meant to be enough (2.4 then does what was meant; the rule is silent
    on sections written in 2.4 form). Keeping only the line that was in effect
    keeps 2.2's answers.

    ## Fix safety
    No fix: which of the lines was meant is a person's decision. Sections where
    `Authz*Authoritative Off` (or the configuration's `LoadModule` order) made
    2.2 read the lines as "any of them" are not reported; sections holding an
    `Authz*Authoritative` line (or inside one) are HT103's. `.htaccess` files and
    sections that inherit `Require` lines or module settings are judged with
    what they inherit; branches 2.4 never reads (`<IfModule
    !mod_authz_core.c>`, `<IfVersion < 2.3>`) and sections written for 2.4
    (`Require all|ip|host|env|...`, `<RequireAll>`, `<RequireAny>`,
    `AuthMerging`, `<IfModule mod_authz_core.c>`) are not. HT501 does not
    translate a reported section (it would claim "any of them"). A single
    `Require group` line under both `AuthGroupFile` and `AuthDBMGroupFile` is
    not reported, and neither is a configuration that runs on 2.4 already (a
    2.4-only access line outside `<IfModule>`, `<IfVersion>` and `<IfDefine>`, or
    one next to Order/Allow/Deny): its lines mean "any of them" today.
    """

    @staticmethod
    def recorded_after(ctx, sections) -> str | None:
        """For HT103, which reads Authz*Authoritative lines by the file's nesting (it reaches this
        through the registry: the access rules sit beside its package): the label of a section that
        may be merged after one of ``sections`` holding Require lines and changes how 2.2 judged them."""
        model, _plan = _analysis(ctx)
        for d in model.scopes:
            if d.node is not None and any(d.node is s for s in sections) and d.own.requires:
                later = recorded_after(d, model)
                if later is not None:
                    return later.label
        return None

    code = "HT507"
    about_22_behaviour = True
    name = "require-mixed-providers"
    severity = Severity.ERROR
    summary = "Require lines of different 2.2 authorization modules: 2.4 admits anyone any line admits"

    def check_config(self, ctx) -> Iterable[Finding]:
        model, _plan = _analysis(ctx)
        if model.mode == "compat":
            return  # it runs on 2.4 already, which reads the lines as <RequireAny> today
        methods = methods_of(model)
        containers: set[int] | None = None
        for d in model.scopes:
            if _written_for_24(d):
                continue
            requires = sorted(d.own.items.get("require", []), key=lambda i: (i.node.location.line, i.node.location.column))
            if not requires:
                continue
            if containers is None:
                if too_complex(model):
                    return  # HT501 says why
                containers = _ht103_containers(ctx)
            if _covered(requires[0], containers):
                continue
            shadowed = shadowed_in_some_context(d, model, methods)
            if shadowed is None:
                continue
            (method, verdict), state = shadowed
            did, gain = _explain(verdict, dict(state.authz22))
            lines = " and ".join(f"`{line.text}`" for line in verdict.lines)
            modules = _modules(dict.fromkeys(m for line in verdict.lines for m in authz22.grantors(line.kind, dict(state.authz22))))
            per_method = "" if method == methods[0] and len(methods) <= 2 else f" (for {method if method != '*' else 'other methods'})"
            yield self.finding(
                requires[0],
                f"{d.label}: {lines} are read by different 2.2 modules ({modules}){per_method}: on 2.2 {did}; "
                f"2.4 reads them as <RequireAny>, so {gain} would get in as well. Wrap the lines in <RequireAll> if a user "
                f"had to meet every one, or in <RequireAny> if any one was meant to be enough",
            )

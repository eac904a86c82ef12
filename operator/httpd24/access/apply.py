"""Edits that write a plan into the configuration (lossless: comments and layout kept)."""

from __future__ import annotations

from typing import Iterable

from ..config import ConfigSet, Directive, Document, Item, Node, Section, Target, edit
from . import expr as X
from .model import OTHER, Effective, Host, Methods, Model, Scope, build, quoted_provider, skip_problem
from .plan import (
    GROUP_MERGE_REASON, NOBODY, ScopePlan, chains, inherited, limited_branch, merge, merges_in_order, methods_of,
    quoted_reason, refused_by_override, shadowed_in_some_context, shadowed_reason, shadowed_with_later, sharings, too_complex,
)
from .worlds import make_plan

REMOVED_KEYS = ("order", "allow", "deny", "satisfy", "require", "requireall", "requireany", "requirenone", "authmerging")
COMPAT_KEYS = ("order", "allow", "deny", "satisfy")
WRAPPERS = frozenset({"limit", "limitexcept", "ifmodule", "ifdefine", "ifversion"})


def _container(scope: Scope, item: Item) -> Node | Document:
    """The node whose children the scope's own lines are (section, vhost or document), or the undecided
    branch inside it that holds them all: the translation is written there (:mod:`.worlds`)."""
    if scope.branch is not None:
        return scope.branch
    if scope.node is not None:
        return scope.node
    if scope.vhost is not None and item.node.document is scope.vhost.document:
        return scope.vhost
    return item.node.document


def _lift(node: Node, container: Node | Document) -> Node:
    """The ancestor of ``node`` (or itself) that is a direct child of ``container``."""
    while node.parent is not None and node.parent is not container and isinstance(node.parent, Section):
        if node.parent.key not in WRAPPERS:
            break
        node = node.parent
    return node


def _position(item: Item) -> tuple:
    loc = item.node.location
    return (item.file, loc.line, loc.column)


def _items(scope: Scope, keys: Iterable[str]) -> list[Item]:
    out: list[Item] = []
    for key in keys:
        out.extend(scope.own.items.get(key, []))
    return sorted(out, key=_position)


def _cleanup(parents: Iterable[Node]) -> None:
    """Remove wrapper sections (Limit, IfModule ...) left without any directive."""
    for parent in parents:
        node = parent
        while isinstance(node, Section) and node.key in WRAPPERS and node.parent is not None:
            if any(isinstance(c, Directive) for c in node.children):
                break
            up = node.parent
            edit.remove(node)
            node = up


def write_block(scope: Scope, remove: list[Item], text: str, after: Item | None = None) -> list[Node]:
    """Replace the lines ``remove`` of a scope by ``text`` (at the first of them, or after ``after``)."""
    touched: list[Node] = [i.node for i in remove]
    if after is not None:
        anchor = _lift(after.node, _container(scope, after))
        edit.insert_after(anchor, text)
        touched.append(anchor)
    elif remove:
        first = remove[0]
        anchor = _lift(first.node, _container(scope, first))
        edit.insert_before(anchor, text)
    parents = []
    for item in remove:
        node = item.node
        if node.parent is None:
            continue
        parents.append(node.parent)
        edit.remove(node)
    _cleanup(parents)
    return touched


def _indent(scope: Scope, item: Item) -> str:
    return edit.indent_unit(item.node.document)


def translation_text(plan: ScopePlan, item: Item) -> str:
    unit = _indent(plan.scope, item)
    body = X.render(plan.expr, unit) if plan.expr is not None else (plan.text or "")
    if plan.authmerging:
        body = f"AuthMerging {plan.authmerging}\n{body}"
    return body


def apply_scope_plan(plan: ScopePlan) -> None:
    """Write one scope's 2.4 translation."""
    scope = plan.scope
    if plan.kind == "authtype":
        [authtype] = scope.own.items.get("authtype", [])[-1:]
        text = f"AuthMerging {plan.authmerging}\n{plan.text}" if plan.authmerging else plan.text
        write_block(scope, [], text or "", after=authtype)
        return
    remove = _items(scope, REMOVED_KEYS)
    if not remove:
        return
    write_block(scope, remove, translation_text(plan, remove[0]))


def plan_nodes(plan: ScopePlan) -> list[Node]:
    scope = plan.scope
    if plan.kind == "authtype":
        return [i.node for i in scope.own.items.get("authtype", [])[-1:]]
    return [i.node for i in _items(scope, REMOVED_KEYS)]


#: The Require words 2.2 compared in any case (strcasecmp in mod_authz_user for `valid-user`/`user`, in
#: mod_authz_groupfile and mod_authz_dbm for `group`). 2.4 looks a provider up by its exact name and
#: refuses to start on another spelling ("Unknown Authz provider: Valid-User").
CASELESS_22 = frozenset({"valid-user", "user", "group"})


def provider_as_24(args) -> list[str] | None:
    """The arguments of a Require line with its provider written as 2.4 names it; None when it is already."""
    if args and args[0].lower() in CASELESS_22 and args[0] != args[0].lower():
        return [args[0].lower(), *args[1:]]
    return None


def providers_as_24(configset: ConfigSet) -> None:
    """Write every Require provider 2.2 read in any case as 2.4 names it (HT509), in place. Not a quoted one:
    2.2 never read it, and in lower case 2.4 would (the translation leaves it to a person)."""
    for document in configset.documents.values():
        for node in document.directives():
            if node.key == "require" and not quoted_provider(node) and (args := provider_as_24(node.args)) is not None:
                edit.set_args(node, args)


def quoted_as_22(configset: ConfigSet) -> None:
    """Write every Require line whose provider is quoted as 2.2 read it, in place: ``Require user`` with no
    names (a login asked for, nobody admitted: :data:`.plan.NOBODY`), which 2.4 reads so too."""
    for document in configset.documents.values():
        for node in document.directives():
            if node.key == "require" and quoted_provider(node):
                edit.replace(node, X.render(NOBODY, ""))  # anew: the word keeps no quotes


class TranslationError(ValueError):
    """Some access control has no exact pure-2.4 translation (the message says where and why)."""


def translate(configset: ConfigSet, *, strict: bool = True) -> ConfigSet:
    """A copy of the configuration with access control in pure 2.4 (no mod_access_compat).

    Pure 2.2 configurations keep their 2.2 answers; hybrid ones (2.2 and 2.4
    directives mixed) keep the answers they give today on 2.4 with
    mod_access_compat. Raises :class:`TranslationError` (``strict``) when a
    section has no exact translation; with ``strict=False`` those sections are
    left as they are.
    """
    copy = configset.with_files()
    model = build(copy)
    plan = make_plan(model)
    missing = [(p.scope, p.reason) for p in plan.scopes if p.text is None and not p.stays]
    # Sections the plan leaves alone (no Order/Allow/Deny/Satisfy around) whose Require lines
    # 2.2 did not read as "any of them" (HT507) change meaning on 2.4 all the same.
    planned = {id(p.scope) for p in plan.scopes}
    methods = methods_of(model)
    for scope in model.scopes:
        if id(scope) not in planned and (found := shadowed_in_some_context(scope, model, methods)) is not None:
            missing.append((scope, shadowed_reason(found[0])))
        elif id(scope) not in planned and model.mode == "2.2" and (
                quoted := next((line for line in scope.own.requires or () if line.quoted), None)) is not None:
            missing.append((scope, quoted_reason(quoted)))  # 2.4 reads it without its quotes
    problems = [f"{s.file}:{s.line}: {s.label}: {reason}" for s, reason in missing]
    # A line some servers skip and others read: the model is wrong for some, and so may be what it rewrites.
    if (uneven := skip_problem(model)) is not None and model.has_compat and not missing:  # else named above
        problems.append(uneven)
    if problems and strict:
        raise TranslationError("; ".join(problems))
    if problems:
        return copy
    written: set[int] = set()
    for p in plan.scopes:
        nodes = {id(node) for node in plan_nodes(p)}
        if not p.stays and not nodes & written:  # a file several sections include: one text for all (plan.Sharing)
            apply_scope_plan(p)
            written |= nodes
    providers_as_24(copy)  # the lines the plan left alone as already 2.4 too
    return copy.with_files()


# -- normalize_22: 2.2 inheritance made explicit, for 2.4 + mod_access_compat -------------------


def _limit_block(keyword: str, methods: Methods, lines: list[str], unit: str) -> list[str]:
    if methods.is_all:
        return lines
    names = " ".join(sorted(methods.names)) or "GET"
    name = "LimitExcept" if methods.inverted else "Limit"
    return [f"<{name} {names}>"] + [unit + line for line in lines] + [f"</{name}>"]


def host_lines(host: Host, methods: list[str], unit: str) -> list[str]:
    named = [m for m in methods if m != OTHER]
    base = host.order(OTHER)
    lines = [f"Order {base}"]
    overrides: dict[str, list[str]] = {}
    for m in named:
        value = host.order(m)
        if value != base:
            overrides.setdefault(value, []).append(m)
    for value, group in overrides.items():
        lines += _limit_block("Limit", Methods(frozenset(group), False), [f"Order {value}"], unit)
    for keyword, rules in (("Allow", host.allows), ("Deny", host.denys)):
        groups: list[tuple[Methods, list[str]]] = []
        for rule in rules:
            if groups and groups[-1][0] == rule.methods:
                groups[-1][1].append(rule.entry.text)
            else:
                groups.append((rule.methods, [rule.entry.text]))
        for m, words in groups:
            line = f"{keyword} from " + " ".join(edit.quote(w) for w in words)
            lines += _limit_block(keyword, m, [line], unit)
    return lines


def satisfy_lines(values: dict[str, str], unit: str) -> list[str]:
    base = values[OTHER]
    lines = [f"Satisfy {base.capitalize()}"]
    overrides: dict[str, list[str]] = {}
    for m, v in values.items():
        if m != OTHER and v != base:
            overrides.setdefault(v, []).append(m)
    for v, group in overrides.items():
        lines += _limit_block("Limit", Methods(frozenset(group), False), [f"Satisfy {v.capitalize()}"], unit)
    return lines


def normalize_text(state: Effective, methods: list[str], unit: str) -> str:
    values = {m: (state.satisfy_for(m) if state.requires_for(m) else "all") for m in methods}
    return "\n".join(host_lines(state.host, methods, unit) + satisfy_lines(values, unit))


def override_default_22(model: Model) -> None:
    """2.2's compiled-in ``AllowOverride All`` written out (in place) where a placed .htaccess file gets no
    AllowOverride: 2.2 applied the file there, 2.4 reads the missing line as letting none of its lines in and
    answers 500 (tests/access/test_allowoverride.py). Written once, into the main server's ``<Directory />``
    (the one there, else one added at the top of the entry file): every directory that has no AllowOverride of
    its own gets 2.2's, and a directory that has one keeps it, as on 2.2."""
    if not model.has_entry or model.configset is None or not any(
            s.kind == "htaccess" and s.lines and s.dirpath is not None
            and any(model.allowoverride_at(s.dirpath, server) is None for server in model.servers)
            for s in model.scopes):
        return
    root = next((s.node for s in model.scopes if s.kind == "directory" and s.dirpath == "/" and s.vhost is None
                 and isinstance(s.node, Section) and not isinstance(s.node.parent, Section)), None)
    if root is not None:
        edit.append_child(root, "AllowOverride All")
        return
    document = model.configset.documents[model.configset.entry]
    text = f"<Directory />\n{edit.indent_unit(document)}AllowOverride All\n</Directory>"
    if document.children:
        edit.insert_before(document.children[0], text)
    else:
        document.children.extend(edit.fragment(text + "\n", "", "\n"))


def normalize_notes(configset: ConfigSet, target: Target | None = None, *,
                    on_24: bool | None = None) -> tuple[ConfigSet, list[str]]:
    """:func:`normalize_22` and the sections it could not make explicit (with why)."""
    copy = configset.with_files()
    model = build(copy, target, on_24=on_24)
    notes: list[str] = []
    if model.mode == "compat":  # it ran on 2.4 (+ mod_access_compat): as it is, it is the reference, exactly
        return copy, []
    override_default_22(model)
    reason = too_complex(model)
    if reason is not None:
        return copy, [reason]
    methods = methods_of(model)
    for d in model.scopes:
        # 2.4 (with or without mod_access_compat) reads several Require lines as any of them;
        # where 2.2 did not (authz22), the reference is not 2.2 and nothing here makes it so.
        if d.own.requires is None and not d.own.authz22:
            continue
        for chain in chains(d, model) or []:
            if shadowed_with_later(merge(inherited(chain, "2.2"), d.own, "2.2"), d, model, methods) is not None:
                notes.append(f"{d.file}:{d.line}: {d.label}: its Require lines did not mean \"any of them\" on 2.2 "
                             f"(HT507); 2.4 + mod_access_compat reads them so")
                break
    work: list[tuple[Scope, str, Item | None, list[Item]]] = []
    for d in model.scopes:
        own = d.own
        wants_authtype = own.authenticates and own.requires is None
        if not own.has_compat and not wants_authtype and own.requires is None:
            continue
        if (limited := limited_branch(d)) is not None:
            notes.append(f"{d.file}:{d.line}: {d.label}: left as written: {limited}")
            continue
        possible = chains(d, model)
        if possible is None:
            notes.append(f"{d.file}:{d.line}: {d.label}: the sections that may apply with it make too many contexts")
            continue
        if not own.has_compat and not wants_authtype:
            # Require lines only: the inherited Satisfy may have been rewritten above it
            # (Any -> All where no Require applied), so write its own state out when
            # anything of Order/Allow/Deny/Satisfy may be inherited.
            if not any(p.own.has_compat for chain in possible for p in chain):
                continue
        states = [merge(inherited(chain, "2.2"), own, "2.2") for chain in possible]
        no_require = [s for s in states if not s.requires]
        if not own.has_compat and own.requires is None and not no_require:
            continue
        unit = "    "
        some_item = next(
            (i for k in ("order", "allow", "deny", "satisfy", "authtype", "require") for i in own.items.get(k, [])), None
        )
        if some_item is not None:
            unit = edit.indent_unit(some_item.node.document)
        texts = {normalize_text(s, methods, unit) for s in states}
        if len(texts) != 1:
            notes.append(
                f"{d.file}:{d.line}: {d.label}: what it inherits under 2.2 depends on which other sections apply"
            )
            continue
        text = texts.pop()
        if wants_authtype and no_require:
            extra = "Require all granted"
            if len(no_require) != len(states) or any(
                p.own.requires is not None for chain in possible for p in chain
            ):
                if not merges_in_order(d, model):
                    notes.append(f"{d.file}:{d.line}: {d.label}: {GROUP_MERGE_REASON}")
                    continue
                extra = "AuthMerging And\n" + extra
            text = text + "\n" + extra
        if (refused := refused_by_override(d, text, model)) is not None:
            notes.append(f"{d.file}:{d.line}: {d.label}: left as written: {refused}")
            continue
        remove = _items(d, COMPAT_KEYS)
        after = None
        if not remove:
            after = (own.items.get("authtype") or own.items.get("require") or [None])[-1]
        work.append((d, text, after, remove))
    for sharing in sharings(model):
        texts = {id(d): text for d, text, _, _ in work}
        if not any(id(d) in texts for d in sharing.scopes):
            continue
        problem = sharing.problem([texts.get(id(d)) for d in sharing.scopes])
        readers = {id(d) for d in sharing.scopes[0 if problem is not None else 1:]}
        work = [w for w in work if id(w[0]) not in readers]  # written once, with the first of them, or left
        if problem is not None:
            notes += [f"{d.file}:{d.line}: {d.label}: its access lines are left as written: {sharing.reason(problem)}"
                      for d in sharing.scopes]
    for d, text, after, remove in work:
        write_block(d, remove, text, after=after)
    providers_as_24(copy)  # 2.2 read `Require Valid-User` as `valid-user`; 2.4 (with or without compat) refuses it
    quoted_as_22(copy)  # 2.2 read no `Require "valid-user"`; 2.4 (with or without compat) reads it without the quotes
    return copy.with_files(), notes


def normalize_22(configset: ConfigSet, target: Target | None = None, *, on_24: bool | None = None) -> ConfigSet:
    """2.2 inheritance made explicit (research notes §5), to run on 2.4 + mod_access_compat.

    ``target``: the modules and defines of the server that will run it. Without one, undecided
    ``<IfModule>``/``<IfDefine>`` branches are read as if httpd read them, which holds only for a
    server that loads those modules.

    Every section holding any of Order/Allow/Deny/Satisfy gets the Order/Allow/Deny
    and the Satisfy it has under 2.2 written out; ``Satisfy Any`` without an
    effective ``Require`` becomes ``Satisfy All``; ``AuthType`` without an
    effective ``Require`` gets ``Require all granted`` (2.2 asked for no
    authentication there; 2.4 answers 500); where a placed .htaccess file gets no
    AllowOverride, 2.2's default ``AllowOverride All`` is written out
    (:func:`override_default_22`). A configuration that ran on 2.4
    (``on_24``, as :func:`.model.build` reads it) is returned unchanged: 2.2
    never ran it, and 2.4 + mod_access_compat is what its clients know.
    """
    return normalize_notes(configset, target, on_24=on_24)[0]

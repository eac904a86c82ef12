"""Access control under conditions that nothing decides: a translation must hold whichever way they fall.

The model reads an undecided branch (``<IfModule mod_ssl.c>`` when nobody said whether mod_ssl
is loaded, ``<IfDefine SSL>`` without ``-D`` flags) as if httpd read it, and the fix writes its
translation at the section's level, outside the branch. Where the branch decides the answer::

    <Directory /srv/www>
        Order deny,allow
        <IfModule mod_ssl.c>
            Deny from all
        </IfModule>
    </Directory>

that is ``Require all denied`` for every request, while the server without mod_ssl let everyone
in. So the plan is made again for every way the undecided conditions a section depends on can fall
(each module loaded or not, each name defined or not, at most :data:`MAX_CONDITIONS` of them per
section, however many the configuration has). A section depends on the conditions inside it or
inside a section that may merge with it, those around a section that may merge with it and not
around itself, and those around an Alias or DocumentRoot that may map its URLs (a Location).

A section keeps its fix only where, in every world in which it exists, the original means exactly
what the fix writes; a section no world-independent reading can give a fix takes the one all its
worlds agree on, when none of its lines sits in a branch inside it or all of them in one (the fix
goes inside that branch, so where it is not read the section must need nothing); a section some world must
change while the plan as read leaves it alone is reported. Otherwise it needs a person, who can
settle the conditions (``--module``, ``--define``) or write the condition out. The common shapes
keep their fix: a whole ``<Directory>`` or virtual host inside ``<IfModule>`` (the translation
stays inside it), and the 2.2/2.4 dual blocks (``<IfModule !mod_version.c>`` next to
``<IfVersion >= 2.4>``), whose branches agree.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import NamedTuple

from ..config import Liveness, View
from ..config.gcpause import gc_paused
from . import expr as X
from .model import Model, Scope, build
from .plan import (
    Plan, ScopePlan, check_places, location_url, one_line, own_expr_24, plan_as_read, plan_kind, predecessors,
)

#: The undecided conditions one section's meaning may depend on, at most: 2**3 worlds tried for it.
MAX_CONDITIONS = 3
#: Worlds built for one configuration (each a model and a plan, as costly as the first); past that
#: the sections still to check need a person.
MAX_WORLDS = 32
ADVICE = "say what the server loads and defines (httpd24 --module/--define) or write the condition out"


class Verdict(NamedTuple):
    """A section in one world: its plan there and what :func:`_agrees` needs to compare a fix with it."""

    answers: tuple[bool, ...]
    other: ScopePlan | None  # its plan in that world (None: nothing to change there)
    scope: Scope | None  # the section as that world reads it
    methods: list[str]
    unread: bool  # the branch that holds all its lines is not read there
    alone: bool  # no other section with access control meets it there: an AuthMerging changes nothing


def make_plan(model: Model) -> Plan:
    """The plan of a model: each section's translation, or why a person must decide."""
    with gc_paused():
        plan = plan_as_read(model)
        settle(plan)
        check_places(plan)
        return plan


def settle(plan: Plan) -> None:
    """Take the fix away from every section of ``plan`` whose translation some world does not share, and
    add, as needing a person, every section that some world must change while the plan as read leaves it.

    Each section is tried only in the worlds of the conditions it depends on (:func:`_asked`), so many
    conditions that each touch a few sections cost a few worlds each."""
    model = plan.model
    if model.unsettled is not None:
        where = model.unsettled
        _block([p for p in plan.scopes if p.text is not None],
               f"{where.node.name} at {where.file}:{where.node.location.line} sits in a branch httpd24 "
               f"cannot decide (a version it cannot compare, or a module or name only an undecided "
               f"branch loads or defines); {ADVICE}")
        return
    judged = [s for s in model.scopes if s.own.has_access or s.own.authtype is not None]
    asked = _asked(judged, model)
    if not asked:
        return
    worlds = _Worlds(model, {q: c for questions in asked.values() for q, c in questions.items()})
    as_read = {_key(p.scope): p for p in plan.scopes}
    for scope in judged:
        questions = list(asked.get(id(scope), {}).items())
        if questions:
            _settle_scope(plan, scope, as_read.get(_key(scope)), questions, worlds)


def _settle_scope(plan: Plan, scope: Scope, p: ScopePlan | None, questions, worlds: "_Worlds") -> None:
    """Check one section (``p``: its plan as read, if any) in every world of its ``questions``."""
    labels = " and ".join(_label(section) for _, section in questions)
    if len(questions) > MAX_CONDITIONS:
        _needs_a_person(plan, scope, p, f"its access control depends on {len(questions)} undecided conditions "
                                        f"({labels}); {ADVICE}")
        return
    key = _key(scope)
    verdicts = []
    for answers in itertools.product((True, False), repeat=len(questions)):
        world = worlds.get(scope, [q for q, _ in questions], answers)
        if isinstance(world, str):
            _needs_a_person(plan, scope, p, f"its access control depends on {labels}, and {world}; {ADVICE}")
            return
        view, methods, planned, scopes, world_model = world
        if not _exists(scope, view):
            continue
        other = planned.get(key)
        unread = scope.branch is not None and not view.is_live(scope.branch.children[0])
        there = scopes.get(key)
        alone = there is not None and not any(s.own.has_access for found in predecessors(there, world_model) for s in found)
        verdicts.append(Verdict(answers, other, there, methods, unread, alone))
        if p is None and other is not None:
            change = f"it needs `{one_line(other.text)}`" if other.text is not None else "it needs a person"
            p = ScopePlan(scope, other.kind, reason=_depends(labels, questions, answers, change))
            plan.scopes.append(p)
    if p is None:
        return
    if p.text is not None:
        wrong = next((v.answers for v in verdicts if not _agrees(p, v)), None)
        if wrong is None:
            return
        reason = _depends(labels, questions, wrong, "it means something else")
    else:
        reason = p.reason
    agreed = None if scope.branched and scope.branch is None else _consensus(verdicts)
    if agreed is not None:
        p.kind, p.text, p.expr, p.authmerging, p.states, p.reason = (
            agreed.kind, agreed.text, agreed.expr, agreed.authmerging, agreed.states, "")
    else:
        _block([p], reason)


def _needs_a_person(plan: Plan, scope: Scope, p: ScopePlan | None, reason: str) -> None:
    """Block ``p``; a section the plan as read leaves alone is reported when some world might change it:
    where the configuration has 2.2 access lines, or the section an AuthType."""
    if p is not None:
        _block([p], reason)
    elif plan.model.has_compat or scope.own.authenticates:
        plan.scopes.append(ScopePlan(scope, plan_kind(scope.own, plan.mode) or "authtype", reason=reason))


class _Worlds:
    """The models and plans of the configuration for each way its undecided conditions fall, built once each.

    A section is tried in the worlds of its own conditions. The others do not change what it means, but a
    world must settle them all: those around the section fall the way it exists, the rest as holding."""

    def __init__(self, model: Model, questions: dict) -> None:
        self.model = model
        self.questions = list(questions)
        self.built: dict[frozenset, object] = {}

    def get(self, scope: Scope, mine: list, answers) -> tuple | str:
        """(view, methods, plans by section, scopes by section, model) of that world, or why there is none."""
        chosen = dict.fromkeys(self.questions, True)
        chosen.update({(kind, name): holds for kind, name, holds in scope.around if (kind, name) in chosen})
        chosen.update(zip(mine, answers))
        assumptions = frozenset((kind, name, answer) for (kind, name), answer in chosen.items())
        world = self.built.get(assumptions)
        if world is None:
            world = self.built[assumptions] = self._build(assumptions)
        return world

    def _build(self, assumptions: frozenset) -> tuple | str:
        if len(self.built) > MAX_WORLDS:
            return f"more than {MAX_WORLDS} ways the conditions here can fall would have to be tried"
        model = self.model
        target = replace(model.target, assumptions=model.target.assumptions | assumptions)
        view = model.configset.view(target)
        world = build(model.configset, target, view, on_24=model.on_24)
        if world.unsettled is not None or world.undecided:
            return "on more that they decide"
        world_plan = plan_as_read(world)
        plans = {_key(p.scope): p for p in world_plan.scopes}
        return view, world_plan.methods, plans, {_key(s): s for s in world.scopes}, world


def _consensus(verdicts) -> ScopePlan | None:
    """The translation every world in which a section exists gives it, if they all give one.

    For a section none of whose lines sits in an undecided branch inside it, or all of them in one
    (the translation goes inside it): read as a whole, the configuration may put it together with
    sections it never meets (``<IfModule m>`` next to ``<IfModule !m>``), but in each world it has its
    own meaning, which the fix may write."""
    found = [v.other for v in verdicts if v.other is not None and v.other.text is not None]
    if not found or not all(_agrees(found[0], v) for v in verdicts):
        return None
    return found[0]


def _asked(judged, model: Model) -> dict[int, dict[tuple[str, str], object]]:
    """For each section with access control (by id), the undecided conditions its meaning may depend on.

    Those of the branches inside it or inside a section that may merge with it; those around a section
    that may merge with it and not around it too (a ``<Directory /srv>`` inside ``<IfModule mod_ssl.c>``
    keeps its translation inside the condition, but a ``<Directory /srv/www>`` outside it inherits its
    address rules only where mod_ssl is loaded); and, for a Location, those around a DocumentRoot or
    Alias that may map its URLs (with ``Alias /files/ /srv/files/`` inside ``<IfModule mod_ssl.c>``,
    ``<Location /files/>`` meets ``<Directory /srv/files>`` where mod_ssl is loaded and the
    DocumentRoot's sections where it is not).
    """
    conditional = [s for s in model.scopes if s.around or s.inside]
    asked: dict[int, dict[tuple[str, str], object]] = {}
    if not conditional and not model.mapping_undecided:
        return asked
    for scope in judged:
        mine = dict(scope.inside)
        for other in conditional:
            if other is scope:
                continue
            outside = {(kind, name): section for (kind, name, holds), section in other.around.items()
                       if (kind, name, holds) not in scope.around}
            if (outside or other.inside) and _meet(other, scope, model):
                for question, section in {**other.inside, **outside}.items():
                    mine.setdefault(question, section)
        if scope.kind == "location" and model.mapping_undecided:
            for question, section in _mapping_conditions(scope, model).items():
                mine.setdefault(question, section)
        if mine:
            asked[id(scope)] = mine
    return asked


def _mapping_conditions(scope: Scope, model: Model) -> dict[tuple[str, str], object]:
    """The undecided conditions around a DocumentRoot or Alias that may map the URLs of ``scope`` (a Location)."""
    questions: dict[tuple[str, str], object] = {}
    url = location_url(scope)
    for (kind, name, holds), lines in model.mapping_undecided.items():
        if (kind, name, holds) in scope.around:
            continue  # where the line is not read, neither is the Location
        for section, vhost, prefix in lines:
            if vhost is not None and vhost is not scope.vhost:
                continue
            if prefix is None or url is None or _overlap(url, prefix):
                questions.setdefault((kind, name), section)
    return questions


def _overlap(url: str, prefix: str) -> bool:
    """Whether an Alias of ``prefix`` may map URLs under ``url`` (loosely: either is a prefix of the other)."""
    return url.startswith(prefix.rstrip("/")) or prefix.startswith(url.rstrip("/"))


def _meet(other: Scope, scope: Scope, model: Model) -> bool:
    """Whether ``other`` may change what ``scope`` means: it may be merged before it, or after it with a
    2.2 authorization module's record that judges the Require lines ``scope`` passes on (:mod:`.authz22`)."""
    if any(s is other for group in predecessors(scope, model) for s in group):
        return True
    return bool(other.own.authz22) and any(s is scope for group in predecessors(other, model) for s in group)


def _agrees(p, v: Verdict) -> bool:
    """Whether the section means in the world of ``v`` what ``p`` writes for it (where the branch that
    holds all its lines, and so ``p``, is not read, it must need nothing)."""
    if v.unread:
        return v.other is None
    if v.other is not None:
        return v.other.text == p.text and v.other.authmerging == p.authmerging and (
            v.other.kind == "authtype") == (p.kind == "authtype")
    if v.scope is None or v.scope.own.has_compat or (p.authmerging and not v.alone) or p.kind == "authtype":
        return False  # nothing of its own (it inherits), or something the plan left alone
    own = own_expr_24(v.scope, v.methods)
    return own is not None and X.render(own) == p.text


def _block(plans, reason: str) -> None:
    for p in plans:
        if p.text is not None:
            p.text, p.expr, p.reason = None, None, reason


def _key(scope: Scope) -> object:
    if scope.node is not None:
        return id(scope.node)
    if scope.kind == "htaccess":
        return ("htaccess", scope.file)
    return ("vhost", id(scope.vhost)) if scope.vhost is not None else ("server",)


def _exists(scope: Scope, view: View) -> bool:
    node = scope.node if scope.node is not None else scope.vhost
    return node is None or view.liveness(node) is not Liveness.DEAD


def _label(section) -> str:
    return f"<{section.name} {' '.join(section.args)}> ({section.location.file}:{section.location.line})"


def _depends(labels: str, questions, answers, there: str) -> str:
    """Why a section needs a person: what it is in one world (``there``) that the plan as read does not write."""
    world = _world(questions, answers)
    return f"its answer depends on {labels}, which nothing here decides: {world}, {there}; {ADVICE}"


def _world(questions, answers) -> str:
    parts = []
    for ((kind, name), _), answer in zip(questions, answers):
        if kind == "module":
            parts.append(f"{name} {'loaded' if answer else 'not loaded'}")
        else:
            parts.append(f"{name} {'defined' if answer else 'not defined'}")
    return "with " + " and ".join(parts)

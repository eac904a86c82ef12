"""Which mode applies to a ConfigMap: pure, no kopf.

Sources, combined strictest-first (``audit < warn < migrate < enforce``):

1. the namespace label ``httpd24.io/mode``;
2. every cluster-scoped ``HttpdPolicy`` whose ``namespaces`` list or
   ``namespaceSelector`` matches the namespace and whose ``excludedNamespaces``
   does not name it;
3. when neither says anything: the operator's default mode
   (:data:`httpd24.k8s.review.DEFAULT_MODE`, ``warn``; ``--default-mode``).

Then the ConfigMap's own annotation ``httpd24.io/mode`` may make it stricter,
never weaker: a weaker (or unknown) value is ignored and a warning says so.

The defaults policy (``keep-2.2`` / ``adopt-2.4``) comes from the matching
policies (the first by name that sets it), else from the ConfigMap's
``httpd24.io/defaults`` annotation, else each rule's own choice.

A policy's ``ignore`` (rule codes or prefixes, as ``httpd24 lint --ignore``)
leaves a rule out only when every matching policy leaves it out: like the
mode, what one policy asks for another cannot weaken. A left-out rule's
findings are neither reported nor fixed; the validating webhook's warning
counts them, and so does the status of the namespace's HttpdServers. No annotation can leave a rule out (``# httpd24: ignore`` marks
in the configuration can, and are counted likewise).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..engine import all_rules, names_a_rule
from .review import ANN_DEFAULTS, ANN_MODE, DEFAULT_MODE, LABEL_MODE, Ignored, Mode


@dataclass(frozen=True)
class PolicyRule:
    """An HttpdPolicy's spec, reduced to what admission needs."""

    name: str
    mode: Mode | None
    namespaces: tuple[str, ...] | None = None
    selector: Mapping[str, Any] | None = None
    excluded: tuple[str, ...] = ()
    defaults: str | None = None
    #: Rule codes or prefixes, upper case.
    ignore: tuple[str, ...] = ()

    @classmethod
    def from_body(cls, name: str, spec: Mapping[str, Any] | None) -> "PolicyRule":
        spec = spec or {}
        namespaces = spec.get("namespaces")
        return cls(
            name=name,
            mode=Mode.parse(spec.get("mode")),
            namespaces=tuple(namespaces) if isinstance(namespaces, list) else None,
            selector=spec.get("namespaceSelector") if isinstance(spec.get("namespaceSelector"), Mapping) else None,
            excluded=tuple(spec.get("excludedNamespaces") or ()),
            defaults=spec.get("defaults") if spec.get("defaults") in ("keep-2.2", "adopt-2.4") else None,
            ignore=tuple(code.strip().upper() for code in spec.get("ignore") or () if isinstance(code, str)),
        )

    def leaves_out(self, code: str) -> bool:
        return code.startswith(self.ignore)

    def matches(self, namespace: str, labels: Mapping[str, str]) -> bool:
        if namespace in self.excluded:
            return False
        if self.namespaces is not None and namespace not in self.namespaces:
            return False
        if self.selector is not None and not selector_matches(self.selector, labels):
            return False
        return True  # neither namespaces nor a selector: every namespace


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A metav1.LabelSelector: matchLabels AND every matchExpression (an empty selector matches all)."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        key = expression.get("key")
        operator = expression.get("operator")
        values = expression.get("values") or ()
        if operator == "In":
            if labels.get(key) not in values:
                return False
        elif operator == "NotIn":
            if key in labels and labels[key] in values:
                return False
        elif operator == "Exists":
            if key not in labels:
                return False
        elif operator == "DoesNotExist":
            if key in labels:
                return False
        else:
            return False  # unknown operators never match (the CRD schema refuses them)
    return True


@dataclass(frozen=True)
class ServerPolicy:
    """What a namespace's HttpdPolicies decide for its HttpdServers' plans, as they decide it for the
    review of its ConfigMaps: the rules left out and the changed defaults (None: not set by any)."""

    ignored: Ignored = Ignored()
    defaults: str | None = None


@dataclass
class Effective:
    mode: Mode
    defaults: str | None = None
    #: Where the mode came from, for messages and /debug/modes.
    source: str = "default"
    notes: list[str] = field(default_factory=list)
    #: True for namespaces the webhook never reviews (kube-system, the operator's own).
    excluded: bool = False
    ignored: Ignored = field(default_factory=Ignored)

    @property
    def for_servers(self) -> ServerPolicy:
        return ServerPolicy(self.ignored, self.defaults)


def namespace_mode(
    namespace: str,
    labels: Mapping[str, str] | None,
    policies: Iterable[PolicyRule],
    *,
    default: Mode = DEFAULT_MODE,
    excluded: Iterable[str] = (),
) -> Effective:
    """The mode of a namespace (before any ConfigMap annotation)."""
    if namespace in set(excluded):
        return Effective(Mode.AUDIT, source="excluded namespace", excluded=True)
    labels = labels or {}
    candidates: list[tuple[Mode, str]] = []
    notes: list[str] = []
    raw = labels.get(LABEL_MODE)
    if raw is not None:
        mode = Mode.parse(raw)
        if mode is None:
            notes.append(f"namespace label {LABEL_MODE}={raw!r} is not audit|warn|migrate|enforce; ignored")
        else:
            candidates.append((mode, "namespace label"))
    defaults = None
    matching = [policy for policy in sorted(policies, key=lambda p: p.name) if policy.matches(namespace, labels)]
    for policy in matching:
        if policy.mode is not None:
            candidates.append((policy.mode, f"HttpdPolicy {policy.name}"))
        if defaults is None and policy.defaults:
            defaults = policy.defaults
        notes += [f"HttpdPolicy {policy.name}: ignore {code} names no rule (`httpd24 rules` lists them)"
                  for code in policy.ignore if not names_a_rule(code)]
    ignored = _ignored(matching)
    if not candidates:
        return Effective(default, defaults, "default", notes, ignored=ignored)
    mode, source = max(candidates, key=lambda c: c[0])
    return Effective(mode, defaults, source, notes, ignored=ignored)


def _ignored(matching: list[PolicyRule]) -> Ignored:
    """The rules every matching policy leaves out."""
    if not matching or not all(policy.ignore for policy in matching):
        return Ignored()
    codes = tuple(rule.code for rule in all_rules() if all(policy.leaves_out(rule.code) for policy in matching))
    return Ignored(codes, ", ".join(f"HttpdPolicy {policy.name}" for policy in matching)) if codes else Ignored()


def configmap_mode(effective: Effective, annotations: Mapping[str, str] | None) -> tuple[Mode, str | None, list[str]]:
    """(mode, defaults, notes) after the ConfigMap's ``httpd24.io/mode`` annotation (stricter only)."""
    annotations = annotations or {}
    notes = list(effective.notes)
    mode = effective.mode
    raw = annotations.get(ANN_MODE)
    if raw is not None:
        asked = Mode.parse(raw)
        if asked is None:
            notes.append(f"annotation {ANN_MODE}={raw!r} is not audit|warn|migrate|enforce; ignored")
        elif asked < mode:
            notes.append(
                f"annotation {ANN_MODE}={asked} ignored: it may only make the mode stricter than {mode} "
                f"({effective.source})"
            )
        else:
            mode = asked
    defaults = effective.defaults
    if defaults is None:
        value = annotations.get(ANN_DEFAULTS)
        defaults = value if value in ("keep-2.2", "adopt-2.4") else None
    return mode, defaults, notes

"""Choosing the mode: namespace label, HttpdPolicy, ConfigMap annotation (stricter only); the CRD."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from httpd24.engine import all_rules
from httpd24.k8s import models_policy
from httpd24.k8s.review import DEFAULT_MODE, Mode
from httpd24.k8s.review_policy import PolicyRule, configmap_mode, namespace_mode, selector_matches

REPO = Path(__file__).resolve().parents[2]


def policy(name, mode, **spec):
    return PolicyRule.from_body(name, {"mode": mode, **spec})


def test_nothing_configured_gives_the_default_mode():
    effective = namespace_mode("team", {}, [])
    assert effective.mode is DEFAULT_MODE and effective.source == "default"
    assert namespace_mode("team", {}, [], default=Mode.AUDIT).mode is Mode.AUDIT


def test_namespace_label_sets_the_mode():
    effective = namespace_mode("team", {"httpd24.io/mode": "enforce"}, [])
    assert effective.mode is Mode.ENFORCE and effective.source == "namespace label"


def test_unknown_label_value_is_ignored_with_a_note():
    effective = namespace_mode("team", {"httpd24.io/mode": "strict"}, [])
    assert effective.mode is DEFAULT_MODE
    assert effective.notes == ["namespace label httpd24.io/mode='strict' is not audit|warn|migrate|enforce; ignored"]


def test_strictest_of_label_and_policies_wins():
    policies = [policy("a", "migrate"), policy("b", "audit")]
    assert namespace_mode("team", {"httpd24.io/mode": "warn"}, policies).mode is Mode.MIGRATE
    assert namespace_mode("team", {"httpd24.io/mode": "enforce"}, policies).mode is Mode.ENFORCE
    assert namespace_mode("team", {}, policies).source == "HttpdPolicy a"


def test_policy_matching_by_names_selector_and_exclusions():
    by_name = policy("p", "enforce", namespaces=["shop"])
    by_labels = policy("q", "migrate", namespaceSelector={"matchLabels": {"env": "prod"}}, excludedNamespaces=["legacy"])
    assert namespace_mode("shop", {}, [by_name]).mode is Mode.ENFORCE
    assert namespace_mode("blog", {}, [by_name]).mode is DEFAULT_MODE
    assert namespace_mode("blog", {"env": "prod"}, [by_labels]).mode is Mode.MIGRATE
    assert namespace_mode("legacy", {"env": "prod"}, [by_labels]).mode is DEFAULT_MODE


def test_policy_defaults_come_from_the_first_matching_policy_by_name():
    policies = [policy("b", "warn", defaults="adopt-2.4"), policy("a", "audit", defaults="keep-2.2")]
    assert namespace_mode("x", {}, policies).defaults == "keep-2.2"


def test_a_rule_is_left_out_only_when_every_matching_policy_leaves_it_out():
    # The image ships mod_wsgi (HT406) and the info rules (HT9xx) are noise to this team; a stricter
    # policy for production that says nothing of either cannot be weakened by the other.
    everywhere = policy("base", "warn", ignore=["HT406", "ht9"])
    assert namespace_mode("x", {}, [everywhere]).ignored.codes == tuple(
        rule.code for rule in all_rules() if rule.code == "HT406" or rule.code.startswith("HT9"))
    assert namespace_mode("x", {}, [everywhere]).ignored.by == "HttpdPolicy base"
    production = policy("prod", "enforce", namespaces=["shop"], ignore=["HT4"])
    assert namespace_mode("shop", {}, [everywhere, production]).ignored.codes == ("HT406",)
    assert namespace_mode("shop", {}, [everywhere, production]).ignored.by == "HttpdPolicy base, HttpdPolicy prod"
    silent = policy("quiet", "audit")
    assert namespace_mode("x", {}, [everywhere, silent]).ignored.codes == ()
    assert namespace_mode("x", {"httpd24.io/mode": "enforce"}, []).ignored.codes == ()


def test_a_policy_ignoring_a_code_that_names_no_rule_says_so():
    effective = namespace_mode("x", {}, [policy("base", "warn", ignore=["HT406", "HT999"])])
    assert effective.ignored.codes == ("HT406",)
    assert effective.notes == ["HttpdPolicy base: ignore HT999 names no rule (`httpd24 rules` lists them)"]


def test_excluded_namespaces_are_never_reviewed():
    effective = namespace_mode("kube-system", {"httpd24.io/mode": "enforce"}, [], excluded=["kube-system"])
    assert effective.excluded


@pytest.mark.parametrize(
    ("selector", "labels", "matches"),
    [
        ({}, {}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "1", "b": "2"}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]}]}, {"a": "2"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {"a": "1"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": ""}, False),
        ({"matchExpressions": [{"key": "a", "operator": "Bogus"}]}, {"a": ""}, False),
    ],
)
def test_label_selectors(selector, labels, matches):
    assert selector_matches(selector, labels) is matches


@pytest.mark.parametrize(
    ("namespace", "annotation", "mode", "noted"),
    [
        (Mode.WARN, "enforce", Mode.ENFORCE, False),
        (Mode.WARN, "migrate", Mode.MIGRATE, False),
        (Mode.ENFORCE, "audit", Mode.ENFORCE, True),
        (Mode.MIGRATE, "warn", Mode.MIGRATE, True),
        (Mode.MIGRATE, "migrate", Mode.MIGRATE, False),
        (Mode.WARN, "off", Mode.WARN, True),
    ],
)
def test_annotation_may_only_make_the_mode_stricter(namespace, annotation, mode, noted):
    effective = namespace_mode("team", {"httpd24.io/mode": str(namespace)}, [])
    got, _defaults, notes = configmap_mode(effective, {"httpd24.io/mode": annotation})
    assert got is mode
    assert bool(notes) is noted
    if noted and Mode.parse(annotation) is not None:
        assert notes == [
            f"annotation httpd24.io/mode={annotation} ignored: it may only make the mode stricter than "
            f"{namespace} (namespace label)"
        ]
        assert all(len(note) <= 120 for note in notes)


def test_defaults_annotation_applies_only_without_a_policy_choice():
    plain = namespace_mode("x", {}, [])
    assert configmap_mode(plain, {"httpd24.io/defaults": "adopt-2.4"})[1] == "adopt-2.4"
    pinned = namespace_mode("x", {}, [policy("p", "warn", defaults="keep-2.2")])
    assert configmap_mode(pinned, {"httpd24.io/defaults": "adopt-2.4"})[1] == "keep-2.2"


# -- the CRD ----------------------------------------------------------------------------------------------------------
def test_crd_file_is_generated_from_the_models():
    on_disk = yaml.safe_load((REPO / "crds" / "httpdpolicies.yaml").read_text())
    assert on_disk == models_policy.crd(), "regenerate: python -m httpd24.k8s.models_policy > crds/httpdpolicies.yaml"


def _no_refs(node):
    if isinstance(node, dict):
        assert not {"$ref", "anyOf", "allOf", "$defs"} & set(node), node
        for value in node.values():
            _no_refs(value)
    elif isinstance(node, list):
        for value in node:
            _no_refs(value)


def test_crd_schema_is_structural():
    schema = models_policy.crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    _no_refs(schema)
    spec = schema["properties"]["spec"]
    assert spec["required"] == ["mode"]
    assert spec["properties"]["mode"]["enum"] == ["audit", "warn", "migrate", "enforce"]
    operator = spec["properties"]["namespaceSelector"]["properties"]["matchExpressions"]["items"]["properties"]
    assert operator["operator"]["enum"] == ["In", "NotIn", "Exists", "DoesNotExist"]


def test_example_policy_validates_against_the_model():
    spec = models_policy.HttpdPolicySpec.model_validate(
        {"mode": "enforce", "namespaceSelector": {"matchLabels": {"env": "prod"}}, "excludedNamespaces": ["legacy"]}
    )
    rule = PolicyRule.from_body("prod", spec.model_dump(exclude_none=True))
    assert rule.mode is Mode.ENFORCE and rule.excluded == ("legacy",)
    with pytest.raises(Exception):
        models_policy.HttpdPolicySpec.model_validate({"mode": "deny"})
    for code in ("HT", "HT4061", "E501", "HT40 "):  # the CRD refuses these before the webhook sees them
        with pytest.raises(Exception):
            models_policy.HttpdPolicySpec.model_validate({"mode": "warn", "ignore": [code]})

"""The cluster-scoped ``HttpdPolicy`` (httpd24.io/v1alpha1): models and the CRD made from them.

``crds/httpdpolicies.yaml`` is generated from these models
(``python -m httpd24.k8s.models_policy > crds/httpdpolicies.yaml``); a test
checks the file matches.

Example::

    apiVersion: httpd24.io/v1alpha1
    kind: HttpdPolicy
    metadata: {name: production}
    spec:
      mode: enforce                 # audit | warn | migrate | enforce
      namespaceSelector:            # or: namespaces: [shop, blog]; neither: every namespace
        matchLabels: {env: production}
      excludedNamespaces: [legacy]
      defaults: keep-2.2            # keep-2.2 | adopt-2.4 (changed defaults); unset: each rule decides
      ignore: [HT406]               # rules left out (codes or prefixes): here, mod_wsgi is in the image
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

GROUP = "httpd24.io"
VERSION = "v1alpha1"
KIND = "HttpdPolicy"
PLURAL = "httpdpolicies"


class LabelSelectorRequirement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    values: list[str] | None = None


class LabelSelector(BaseModel):
    """A metav1.LabelSelector: every matchLabels pair and every expression must hold."""

    model_config = ConfigDict(extra="forbid")

    matchLabels: dict[str, str] | None = None
    matchExpressions: list[LabelSelectorRequirement] | None = None


class HttpdPolicySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["audit", "warn", "migrate", "enforce"] = Field(
        description="Admission mode for httpd ConfigMaps in the matching namespaces; when several sources "
        "apply (namespace label, policies) the strictest wins: audit < warn < migrate < enforce."
    )
    namespaces: list[str] | None = Field(
        default=None, description="Namespaces this policy applies to (by name)."
    )
    namespaceSelector: LabelSelector | None = Field(
        default=None, description="Namespaces this policy applies to (by labels). Neither field: every namespace."
    )
    excludedNamespaces: list[str] = Field(
        default_factory=list, description="Namespaces this policy never applies to."
    )
    defaults: Literal["keep-2.2", "adopt-2.4"] | None = Field(
        default=None,
        description="Changed defaults (AllowOverride, EnableSendfile, FileETag, ...): keep-2.2 writes the 2.2 "
        "value out, adopt-2.4 accepts 2.4's; unset lets each rule decide.",
    )
    ignore: list[Annotated[str, StringConstraints(pattern=r"^[Hh][Tt][0-9]{1,3}$")]] = Field(
        default_factory=list,
        description="Rule codes or prefixes (HT406, HT9) whose findings are neither reported nor fixed, as "
        "`httpd24 lint --ignore`. When several policies match, a rule is left out only if every one of them "
        "leaves it out. The validating webhook's warning counts the findings left out.",
    )


class HttpdPolicy(BaseModel):
    apiVersion: Literal["httpd24.io/v1alpha1"] = "httpd24.io/v1alpha1"
    kind: Literal["HttpdPolicy"] = "HttpdPolicy"
    metadata: dict[str, Any] = Field(default_factory=dict)
    spec: HttpdPolicySpec


# -- CRD ---------------------------------------------------------------------------------------------------
def _structural(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A pydantic JSON schema turned into a Kubernetes structural schema (no $ref, anyOf null, titles)."""
    if "$ref" in schema:
        target = defs[schema["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _structural(merged, defs)
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        if len(options) == 1:
            return _structural({**options[0], **rest}, defs)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("title", "default", "additionalProperties", "$defs"):
            continue
        if key == "properties":
            out["properties"] = {name: _structural(sub, defs) for name, sub in value.items()}
        elif key == "items":
            out["items"] = _structural(value, defs)
        elif key == "const":
            out["enum"] = [value]
        else:
            out[key] = value
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        out["additionalProperties"] = _structural(extra, defs)
    if "enum" in out and "type" not in out:
        out["type"] = "string"
    return out


def spec_schema() -> dict[str, Any]:
    raw = HttpdPolicySpec.model_json_schema()
    return _structural(raw, raw.get("$defs", {}))


def crd() -> dict[str, Any]:
    """The CustomResourceDefinition of HttpdPolicy."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{PLURAL}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Cluster",
            "names": {
                "kind": KIND,
                "listKind": f"{KIND}List",
                "plural": PLURAL,
                "singular": KIND.lower(),
                "shortNames": ["httpdpol"],
                "categories": ["httpd24"],
            },
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "additionalPrinterColumns": [
                        {"name": "Mode", "type": "string", "jsonPath": ".spec.mode"},
                        {"name": "Defaults", "type": "string", "jsonPath": ".spec.defaults"},
                        {"name": "Ignore", "type": "string", "jsonPath": ".spec.ignore"},
                        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    ],
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "description": "Chooses the httpd24 admission mode for a set of namespaces.",
                            "required": ["spec"],
                            "properties": {
                                "apiVersion": {"type": "string"},
                                "kind": {"type": "string"},
                                "metadata": {"type": "object"},
                                "spec": spec_schema(),
                            },
                        }
                    },
                }
            ],
        },
    }


def crd_yaml() -> str:
    import yaml

    header = "# Generated from httpd24.k8s.models_policy (python -m httpd24.k8s.models_policy); do not edit.\n"
    return header + yaml.safe_dump(crd(), sort_keys=False, width=120)


if __name__ == "__main__":  # pragma: no cover
    print(crd_yaml(), end="")

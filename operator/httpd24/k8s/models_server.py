"""The ``HttpdServer`` custom resource (httpd24.io/v1alpha1): pydantic models and the CRD built from them.

The CRD's structural OpenAPI schema is generated from these models by
:func:`crd` (``hack/gen_crds.py`` writes ``crds/httpdservers.yaml``; a test
checks the committed file equals the generated one). Pure: no I/O.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

GROUP = "httpd24.io"
VERSION = "v1alpha1"
KIND = "HttpdServer"
PLURAL = "httpdservers"
SINGULAR = "httpdserver"
SHORT_NAMES = ["httpd", "hs"]

#: ConfigMap key of the generated main configuration; a user file of that name is refused.
MAIN_KEY = "httpd24-main.conf"

_K8S_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_CM_KEY = r"^[-._a-zA-Z0-9]+$"
_MODULE_ID = r"^[A-Za-z0-9_]+_module$"
_SecretKey = Annotated[str, StringConstraints(pattern=_CM_KEY, max_length=253)]
_ModuleId = Annotated[str, StringConstraints(pattern=_MODULE_ID)]
_QUANTITY = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ConfigMapRef(_Model):
    """Which ConfigMap holds the httpd configuration."""

    name: str = Field(description="Name of a ConfigMap in the HttpdServer's namespace.", max_length=253, pattern=_K8S_NAME)
    entry: str = Field(
        "httpd.conf",
        description="The key of the entry file (included from the generated main configuration).",
        max_length=253,
        pattern=_CM_KEY,
    )


class Port(_Model):
    name: str = Field("http", description="Port name (Service and container).", max_length=15, pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    port: int = Field(description="Port httpd listens on in the pod, and the Service port.", ge=1, le=65535)


#: Where the pods read a Secret's keys, relative to the ServerRoot: ``secrets/<secret>/<key>``.
SECRETS_DIR = "secrets"
#: What kubernetes.io/tls Secrets (cert-manager's, ``kubectl create secret tls``) hold.
TLS_KEYS = ("tls.crt", "tls.key")


class SecretFiles(_Model):
    """A Secret the pods read as files: TLS certificates and keys stay out of the ConfigMap."""

    name: str = Field(
        description="Name of a Secret in the HttpdServer's namespace. Its keys appear as files "
        "secrets/NAME/KEY of the ServerRoot: SSLCertificateFile secrets/NAME/tls.crt.",
        max_length=253,
        pattern=_K8S_NAME,
    )
    keys: list[_SecretKey] = Field(
        default_factory=lambda: list(TLS_KEYS),
        min_length=1,
        max_length=64,
        description="The keys to mount (default: tls.crt and tls.key, as in a kubernetes.io/tls Secret). A key "
        "the Secret lacks keeps new pods from starting; the running ones keep serving.",
        json_schema_extra={"default": list(TLS_KEYS)},
    )


#: Where the pods see ``spec.content``: ``<CONTENT_DIR>/<name>``, named ``${HTTPD24_CONTENT}/<name>`` in the
#: configuration (the generated main configuration defines the variable; the configtest gate maps it).
CONTENT_DIR = "/srv/httpd24"
CONTENT_VARIABLE = "HTTPD24_CONTENT"
_DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"


class ClaimSource(_Model):
    claimName: str = Field(description="Name of a PersistentVolumeClaim in the HttpdServer's namespace "
                           "(ReadOnlyMany or ReadWriteMany for more than one replica).", max_length=253, pattern=_K8S_NAME)


class ConfigMapSource(_Model):
    name: str = Field(description="Name of a ConfigMap in the HttpdServer's namespace; each key is a file.",
                      max_length=253, pattern=_K8S_NAME)


class ContentVolume(_Model):
    """Files the pods serve (a site's documents), which a configuration names but does not hold."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, json_schema_extra={
        "x-kubernetes-validations": [{
            "rule": "has(self.persistentVolumeClaim) != has(self.configMap)",
            "message": "set exactly one of persistentVolumeClaim and configMap",
        }],
    })

    name: str = Field(
        description="The pods see the volume at /srv/httpd24/NAME; write it ${HTTPD24_CONTENT}/NAME in the "
        "configuration (DocumentRoot \"${HTTPD24_CONTENT}/NAME\"), which the configtest gate can check.",
        max_length=50,
        pattern=_DNS_LABEL,
    )
    persistentVolumeClaim: ClaimSource | None = None
    configMap: ConfigMapSource | None = None
    readOnly: bool = Field(True, description="Mount read-only (default). false lets httpd write there (WebDAV).")

    @model_validator(mode="after")
    def _one_source(self) -> "ContentVolume":
        if (self.persistentVolumeClaim is None) == (self.configMap is None):
            raise ValueError("set exactly one of persistentVolumeClaim and configMap")
        return self


class Resources(_Model):
    """Container resources (as in a Pod's ``resources``)."""

    limits: dict[str, int | str] | None = Field(None, json_schema_extra={"additionalProperties": _QUANTITY})
    requests: dict[str, int | str] | None = Field(None, json_schema_extra={"additionalProperties": _QUANTITY})


DefaultsPolicy = Literal["keep-2.2", "adopt-2.4"]
MigrationMode = Literal["asStored", "migrated"]
ServiceMode = Literal["ClusterIP", "Headless", "None"]


class HttpdServerSpec(_Model):
    configMapRef: ConfigMapRef
    replicas: int = Field(1, ge=0, le=1000, description="Number of httpd pods.")
    image: str = Field("httpd:2.4", min_length=1, description="httpd 2.4 image (official layout: /usr/local/apache2).")
    ports: list[Port] | None = Field(
        None,
        max_length=16,
        description="Ports to serve. Default: the ports of the configuration's Listen directives, else 8080. "
        "When the configuration has no Listen, the generated main configuration listens on these.",
    )
    resources: Resources | None = None
    extraModules: list[_ModuleId] | None = Field(
        None,
        max_length=64,
        description="Module identifiers (headers_module) loaded in addition to the ones the configuration needs.",
    )
    defaults: DefaultsPolicy | None = Field(
        None,
        description="Changed defaults (AllowOverride, EnableSendfile, FileETag, SSLProxyCheckPeer*): keep-2.2 writes "
        "out the 2.2 value, adopt-2.4 takes 2.4's. Unset: as admission decides, an HttpdPolicy's defaults, else the "
        "ConfigMap's httpd24.io/defaults, else each rule's documented choice. An HttpdPolicy's defaults win over this.",
    )
    service: ServiceMode = Field(
        "ClusterIP", description="The Service in front of the pods: ClusterIP, Headless (no cluster IP) or None (no Service)."
    )
    secrets: list[SecretFiles] | None = Field(
        None,
        max_length=16,
        description="Secrets (TLS certificates and keys) mounted read-only next to the configuration, at "
        "secrets/NAME/KEY of the ServerRoot. The configtest gate checks the configuration against files of "
        "those names, without reading the Secrets (the operator has no access to them).",
    )
    content: list[ContentVolume] | None = Field(
        None,
        max_length=16,
        description="Volumes of files to serve, each at /srv/httpd24/NAME in the pods (${HTTPD24_CONTENT}/NAME in "
        "the configuration). The configtest gate checks the configuration against empty stand-ins of the paths "
        "it names there, without reading the volumes.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},  # names unique
    )
    migration: MigrationMode = Field(
        "migrated",
        description="asStored deploys the ConfigMap's files as they are; migrated deploys their migrated form "
        "without changing the ConfigMap (for GitOps).",
    )


class Condition(_Model):
    type: str
    status: Literal["True", "False", "Unknown"]
    reason: str
    message: str = ""
    lastTransitionTime: str
    observedGeneration: int | None = None


class FindingsSummary(_Model):
    error: int = 0
    warning: int = 0
    info: int = 0
    audit: int = Field(0, description="Findings admission recorded in audit mode (annotation httpd24.io/audit-findings).")
    total: int = 0
    text: str = Field("", description="Short form for the printer column, e.g. 1E 3W 0I.")
    leftOut: int = Field(0, description="Findings of rules the namespace's HttpdPolicies leave out (spec.ignore): "
                         "not counted above and not fixed; the Migrated condition names the policies.")


class HttpdServerStatus(_Model):
    observedGeneration: int | None = None
    phase: Literal["Pending", "Progressing", "Ready", "Degraded", "Invalid"] | None = None
    conditions: list[Condition] | None = None
    requiredModules: list[str] | None = None
    findings: FindingsSummary | None = None
    configHash: str | None = Field(None, description="Hash of the files the pods mount (deployed).")
    configMap: str | None = Field(None, description="The generated ConfigMap the pods mount.")
    rejectedHash: str | None = Field(None, description="Hash of the last configuration that failed httpd -t.")
    replicas: int | None = None
    readyReplicas: int | None = None
    updatedReplicas: int | None = None
    selector: str | None = None


class HttpdServer(_Model):
    apiVersion: Literal["httpd24.io/v1alpha1"] = "httpd24.io/v1alpha1"
    kind: Literal["HttpdServer"] = "HttpdServer"
    metadata: dict[str, Any] = Field(default_factory=dict)
    spec: HttpdServerSpec
    status: HttpdServerStatus | None = None


# --- structural schema ---------------------------------------------------------------------

_KEEP = {
    "type", "properties", "required", "items", "enum", "default", "description", "minimum", "maximum",
    "minLength", "maxLength", "minItems", "maxItems", "pattern", "additionalProperties", "format",
    "x-kubernetes-int-or-string", "anyOf", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations",
    "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
}


def _structural(node: Any, defs: dict[str, Any]) -> Any:
    """Pydantic's JSON schema -> a Kubernetes structural schema (refs inlined, nulls and titles dropped)."""
    if isinstance(node, list):
        return [_structural(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    node = dict(node)
    if "$ref" in node:
        target = copy.deepcopy(defs[node.pop("$ref").rsplit("/", 1)[-1]])
        target.update({k: v for k, v in node.items() if k in ("description", "default")})
        node = target
    if node.get("x-kubernetes-int-or-string"):
        return {"x-kubernetes-int-or-string": True}
    if "anyOf" in node:
        options = [o for o in node["anyOf"] if o.get("type") != "null"]
        if len(options) == 1:
            merged = dict(options[0])
            merged.update({k: v for k, v in node.items() if k not in ("anyOf",)})
            return _structural(merged, defs)
        elif all(o.get("type") in ("integer", "string") for o in options):
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return {**_structural(rest, defs), "x-kubernetes-int-or-string": True}
    if "const" in node:
        node["enum"] = [node.pop("const")]
    if "enum" in node and "type" not in node:
        node["type"] = "string"
    out = {}
    for key, value in node.items():
        if key not in _KEEP:
            continue
        if key == "properties":
            out[key] = {name: _structural(v, defs) for name, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _structural(value, defs)
        elif key == "additionalProperties" and value is False:
            continue  # not allowed in a structural schema; unknown fields are pruned anyway
        elif key == "default" and value is None:
            continue
        else:
            out[key] = value
    if out.get("type") == "object" and "properties" not in out and "additionalProperties" not in out:
        out["x-kubernetes-preserve-unknown-fields"] = True
    return out


def openapi_schema() -> dict[str, Any]:
    """The structural ``openAPIV3Schema`` of the CRD, from :class:`HttpdServerSpec` and :class:`HttpdServerStatus`."""
    spec = HttpdServerSpec.model_json_schema()
    status = HttpdServerStatus.model_json_schema()
    spec_s = _structural(spec, spec.get("$defs", {}))
    status_s = _structural(status, status.get("$defs", {}))
    spec_s["description"] = "Desired state: which ConfigMap to serve with httpd 2.4 and how."
    status_s["description"] = "Observed state, written by the httpd24 operator."
    return {
        "type": "object",
        "required": ["spec"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec_s,
            "status": status_s,
        },
    }


def crd() -> dict[str, Any]:
    """The CustomResourceDefinition object."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{PLURAL}.{GROUP}", "labels": {"app.kubernetes.io/part-of": "httpd24"}},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"kind": KIND, "listKind": f"{KIND}List", "plural": PLURAL, "singular": SINGULAR, "shortNames": SHORT_NAMES},
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": openapi_schema()},
                    "subresources": {
                        "status": {},
                        "scale": {
                            "specReplicasPath": ".spec.replicas",
                            "statusReplicasPath": ".status.replicas",
                            "labelSelectorPath": ".status.selector",
                        },
                    },
                    "additionalPrinterColumns": [
                        {"name": "Ready", "type": "integer", "jsonPath": ".status.readyReplicas"},
                        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                        {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                        {"name": "Findings", "type": "string", "jsonPath": ".status.findings.text"},
                        {"name": "Mode", "type": "string", "jsonPath": ".spec.migration", "priority": 1},
                        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    ],
                }
            ],
        },
    }


def parse_spec(spec: dict[str, Any]) -> HttpdServerSpec:
    """Validate a spec as the operator reads it (raises pydantic.ValidationError)."""
    return HttpdServerSpec.model_validate(dict(spec or {}))

"""The Validating/MutatingWebhookConfiguration objects for httpd ConfigMaps: pure dicts.

kopf's own managed mode writes no ``namespaceSelector`` and a fixed 30 s
timeout, so httpd24 builds these itself. ``httpd24 operator --manage-webhooks``
applies them (local development, tests); the Helm chart renders the same
shape (mirror :func:`webhook_configurations`).

URL paths are kopf handler ids: ``/<VALIDATE_ID>`` and ``/<MUTATE_ID>``.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal

from .review import LABEL_CONFIG

VALIDATE_ID = "validate-configmap"
MUTATE_ID = "mutate-configmap"
DEFAULT_NAME = "httpd24"
#: Never reviewed, whatever the options say.
ALWAYS_EXCLUDED = ("kube-system",)


def client_config(
    *,
    path: str,
    url: str | None = None,
    service: tuple[str, str, int] | None = None,
    ca_bundle: str | None = None,
) -> dict[str, Any]:
    """A webhook clientConfig: ``url`` (base URL, the handler path is appended) or ``service`` (namespace, name, port)."""
    if (url is None) == (service is None):
        raise ValueError("give exactly one of url and service")
    out: dict[str, Any]
    if url is not None:
        out = {"url": url.rstrip("/") + "/" + path.lstrip("/")}
    else:
        namespace, name, port = service  # type: ignore[misc]
        out = {"service": {"namespace": namespace, "name": name, "port": int(port), "path": "/" + path.lstrip("/")}}
    if ca_bundle:
        out["caBundle"] = ca_bundle
    return out


def webhook_configurations(
    *,
    url: str | None = None,
    service: tuple[str, str, int] | None = None,
    ca_bundle: str | None = None,
    name: str = DEFAULT_NAME,
    failure_policy: Literal["Fail", "Ignore"] = "Fail",
    timeout_seconds: int = 10,
    excluded_namespaces: Iterable[str] = (),
    labels: dict[str, str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(ValidatingWebhookConfiguration, MutatingWebhookConfiguration) for ConfigMaps labelled
    ``httpd24.io/config: "true"`` outside the excluded namespaces (kube-system always)."""
    if not 1 <= int(timeout_seconds) <= 30:
        raise ValueError(f"timeoutSeconds must be 1..30, got {timeout_seconds}")
    if failure_policy not in ("Fail", "Ignore"):
        raise ValueError(f"failurePolicy must be Fail or Ignore, got {failure_policy!r}")
    excluded = sorted(set(ALWAYS_EXCLUDED) | {n for n in excluded_namespaces if n})
    meta_labels = {"app.kubernetes.io/name": "httpd24", "app.kubernetes.io/component": "admission-webhook"}
    meta_labels.update(labels or {})

    def hook(kind: str, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": f"{kind}.configmaps.httpd24.io",
            "clientConfig": client_config(path=path, url=url, service=service, ca_bundle=ca_bundle),
            "rules": [
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "resources": ["configmaps"],
                    "operations": ["CREATE", "UPDATE"],
                    "scope": "Namespaced",
                }
            ],
            "objectSelector": {"matchLabels": {LABEL_CONFIG: "true"}},
            "namespaceSelector": {
                "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": excluded}]
            },
            "failurePolicy": failure_policy,
            "matchPolicy": "Equivalent",
            "sideEffects": "None",
            "timeoutSeconds": int(timeout_seconds),
            "admissionReviewVersions": ["v1"],
        }
        if kind == "mutate":
            out["reinvocationPolicy"] = "Never"
        return out

    validating = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name, "labels": meta_labels},
        "webhooks": [hook("validate", VALIDATE_ID)],
    }
    mutating = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": name, "labels": meta_labels},
        "webhooks": [hook("mutate", MUTATE_ID)],
    }
    return validating, mutating

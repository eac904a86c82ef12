"""What namespaces and HttpdPolicies say, kept in memory by two kopf indexes.

Both halves of ``httpd24 operator`` read them: the webhooks choose a mode per request
(:mod:`.admission`), the operator which rules a policy leaves out of an HttpdServer's status
and migration and which changed defaults it keeps (:mod:`.operator`), as admission does for the
ConfigMap. Importing this module registers the indexes once, whichever half imports it first (``--no-admission`` runs the
operator alone). kopf passes each index to every handler as a keyword argument named after
its function, and runs no handler until every index of a resource that exists is filled.
"""

from __future__ import annotations

from typing import Any, Mapping

import kopf

from . import models_policy
from .review_policy import PolicyRule, ServerPolicy, namespace_mode


@kopf.index("namespaces")
def httpd24_namespaces(name: str, labels: Mapping[str, str], **_: Any) -> dict[str, dict[str, str]]:
    return {name: dict(labels)}


@kopf.index(models_policy.GROUP, models_policy.VERSION, models_policy.PLURAL)
def httpd24_policies(name: str, spec: Mapping[str, Any], **_: Any) -> dict[str, PolicyRule]:
    return {name: PolicyRule.from_body(name, spec)}


def labels_of(namespaces: Any, name: str) -> dict[str, str] | None:
    """A namespace's labels from the index; None when it has not seen the namespace (yet)."""
    try:
        store = namespaces.get(name)
    except Exception:  # an index that is not ready yet
        return None
    return next(iter(store), None) if store is not None else None


def policies_of(policies: Any) -> list[PolicyRule]:
    try:
        return [rule for store in policies.values() for rule in store]
    except Exception:
        return []


def server_policy(namespace: str, namespaces: Any, policies: Any) -> ServerPolicy:
    """What the HttpdPolicies matching ``namespace`` decide for its servers (:func:`.review_policy.namespace_mode`)."""
    return namespace_mode(namespace, labels_of(namespaces, namespace), policies_of(policies)).for_servers

"""``--manage-webhooks``: create or replace the two webhook configurations, delete them on exit."""

from __future__ import annotations

import json
import logging
from typing import Any

from .rollout_api import Kube

log = logging.getLogger("httpd24.webhooks")

ADMISSION_API = "/apis/admissionregistration.k8s.io/v1"
PLURALS = {
    "ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
    "MutatingWebhookConfiguration": "mutatingwebhookconfigurations",
}


async def apply_configurations(kube: Kube, configurations: list[dict[str, Any]]) -> None:
    """Create each configuration, or replace it (keeping its resourceVersion) when it exists."""
    for config in configurations:
        plural = PLURALS[config["kind"]]
        name = config["metadata"]["name"]
        url = f"{ADMISSION_API}/{plural}/{name}"
        current = await kube.get(url)
        if current is None:
            await kube.create(f"{ADMISSION_API}/{plural}", config)
            log.info("created %s %s", config["kind"], name)
        else:
            body = json.loads(json.dumps(config))
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            await kube.request("PUT", url, body=body)
            log.info("replaced %s %s", config["kind"], name)


async def delete_configurations(kube: Kube, name: str) -> None:
    for plural in PLURALS.values():
        await kube.delete(f"{ADMISSION_API}/{plural}/{name}")
        log.info("deleted %s %s", plural, name)

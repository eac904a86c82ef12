"""``--manage-webhooks``: create or replace the two webhook configurations, delete them on exit.

Also a minimal aiohttp API client (kopf's credentials: service account, else kubeconfig) that
the admission bench reuses for real create requests.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import aiohttp
import kopf

from .rollout_api import credentials  # one login for every client of the operator

log = logging.getLogger("httpd24.webhooks")

ADMISSION_API = "/apis/admissionregistration.k8s.io/v1"
PLURALS = {
    "ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
    "MutatingWebhookConfiguration": "mutatingwebhookconfigurations",
}


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class Api:
    """``async with Api() as api: await api.request("GET", "/api/v1/namespaces")``."""

    def __init__(self, info: kopf.ConnectionInfo | None = None, *, limit: int = 100) -> None:
        self.info = info or credentials()
        self.limit = limit
        self.session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> "Api":
        headers = {"Accept": "application/json", "User-Agent": "httpd24"}
        if self.info.token:
            headers["Authorization"] = f"{self.info.scheme or 'Bearer'} {self.info.token}"
        self.session = aiohttp.ClientSession(
            base_url=self.info.server.rstrip("/"),
            headers=headers,
            connector=aiohttp.TCPConnector(ssl=self.info.as_ssl_context(), limit=self.limit),
            timeout=aiohttp.ClientTimeout(total=60),
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.session is not None:
            await self.session.close()

    async def request(self, method: str, path: str, body: Any = None, *, ok_missing: bool = False) -> Any:
        assert self.session is not None
        data = None if body is None else json.dumps(body)
        async with self.session.request(method, path, data=data, headers={"Content-Type": "application/json"}) as resp:
            text = await resp.text()
            if resp.status == 404 and ok_missing:
                return None
            if resp.status >= 400:
                try:
                    message = json.loads(text).get("message", text)
                except ValueError:
                    message = text
                raise ApiError(resp.status, message)
            return json.loads(text) if text else None


async def apply_configurations(api: Api, configurations: list[dict[str, Any]]) -> None:
    """Create each configuration, or replace it (keeping its resourceVersion) when it exists."""
    for config in configurations:
        plural = PLURALS[config["kind"]]
        name = config["metadata"]["name"]
        url = f"{ADMISSION_API}/{plural}/{name}"
        current = await api.request("GET", url, ok_missing=True)
        if current is None:
            await api.request("POST", f"{ADMISSION_API}/{plural}", config)
            log.info("created %s %s", config["kind"], name)
        else:
            body = json.loads(json.dumps(config))
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            await api.request("PUT", url, body)
            log.info("replaced %s %s", config["kind"], name)


async def delete_configurations(api: Api, name: str) -> None:
    for plural in PLURALS.values():
        await api.request("DELETE", f"{ADMISSION_API}/{plural}/{name}", ok_missing=True)
        log.info("deleted %s %s", plural, name)

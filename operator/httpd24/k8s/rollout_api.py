"""A small asyncio Kubernetes REST client for the operator (aiohttp, kopf's credentials).

kopf has no public API client; this one does only what the operator needs:
get, server-side apply, merge-patch of status, create, delete, list with a
label selector, and a metadata-only watch (``PartialObjectMetadata``) so that
watching ConfigMaps never transfers or holds their data.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, AsyncIterator, Mapping
from urllib.parse import quote, urlencode

import aiohttp
import kopf

log = logging.getLogger(__name__)

FIELD_MANAGER = "httpd24-operator"
# A list must ask for the List form; a watch for the object form (with the List form first, the
# apiserver answers 200 and then streams no events at all).
_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
_METADATA_WATCH = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"


class ApiError(Exception):
    def __init__(self, status: int, message: str, body: Any = None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.body = body


def path(api: str, plural: str, namespace: str | None = None, name: str | None = None, sub: str | None = None) -> str:
    """``/api/v1/...`` for the core group (``api="v1"``), ``/apis/<group>/<version>/...`` otherwise."""
    out = "/api/v1" if api == "v1" else f"/apis/{api}"
    if namespace is not None:
        out += f"/namespaces/{quote(namespace, safe='')}"
    out += f"/{plural}"
    if name is not None:
        out += f"/{quote(name, safe='')}"
    if sub:
        out += f"/{sub}"
    return out


def credentials() -> kopf.ConnectionInfo:
    """The same sources kopf's built-in login uses: the pod's service account, else the kubeconfig."""
    settings = kopf.OperatorSettings()
    info = kopf.login_with_service_account(settings=settings) or kopf.login_with_kubeconfig(settings=settings)
    if info is None:
        raise kopf.LoginError("no service account and no kubeconfig (set KUBECONFIG)")
    return info


class Kube:
    def __init__(self, info: kopf.ConnectionInfo | None = None, *, limit: int = 32, timeout: float = 30):
        self._info = info
        self._session: aiohttp.ClientSession | None = None
        self._limit = limit
        self._timeout = timeout

    async def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            info = self._info or credentials()
            self._info = info
            headers = {"User-Agent": "httpd24-operator"}
            if info.token:
                headers["Authorization"] = f"{info.scheme or 'Bearer'} {info.token}"
            auth = aiohttp.BasicAuth(info.username, info.password or "") if info.username else None
            connector = aiohttp.TCPConnector(ssl=info.as_ssl_context(), limit=self._limit)
            self._session = aiohttp.ClientSession(
                base_url=info.server.rstrip("/"), headers=headers, auth=auth, connector=connector,
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=self._timeout),
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def __aenter__(self) -> "Kube":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def request(
        self, method: str, url: str, *, params: Mapping[str, str] | None = None, body: Any = None,
        content_type: str = "application/json", accept: str = "application/json", timeout: float | None = None,
    ) -> Any:
        session = await self._open()
        if params:
            url = f"{url}?{urlencode(params)}"
        data = None if body is None else (body if isinstance(body, (bytes, str)) else json.dumps(body))
        for attempt in range(2):
            async with session.request(
                method, url, data=data, headers={"Content-Type": content_type, "Accept": accept},
                timeout=aiohttp.ClientTimeout(total=timeout or self._timeout),
            ) as resp:
                text = await resp.text()
                if resp.status == 401 and attempt == 0 and self._info is not None:
                    # rotated service-account token: log in again once
                    await session.close()
                    self._info = None
                    session = await self._open()
                    continue
                if resp.status >= 400:
                    try:
                        payload = json.loads(text)
                        message = payload.get("message", text)
                    except ValueError:
                        payload, message = None, text
                    raise ApiError(resp.status, message, payload)
                return json.loads(text) if text else None
        raise ApiError(401, "unauthorized")

    async def get(self, url: str) -> dict | None:
        try:
            return await self.request("GET", url)
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    async def get_metadata(self, url: str) -> dict | None:
        """An object's ``metadata`` only (``PartialObjectMetadata``): a Secret's data never crosses the wire."""
        try:
            return (await self.request("GET", url, accept=_METADATA_WATCH)).get("metadata") or {}
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    async def apply(self, url: str, body: Mapping[str, Any]) -> dict:
        """Server-side apply (create or update) as field manager ``httpd24-operator``."""
        return await self.request(
            "PATCH", url, body=body, content_type="application/apply-patch+yaml",
            params={"fieldManager": FIELD_MANAGER, "force": "true"},
        )

    async def create(self, url: str, body: Mapping[str, Any]) -> dict:
        return await self.request("POST", url, body=body, params={"fieldManager": FIELD_MANAGER})

    async def merge_patch(self, url: str, body: Mapping[str, Any]) -> dict:
        return await self.request("PATCH", url, body=body, content_type="application/merge-patch+json",
                                  params={"fieldManager": FIELD_MANAGER})

    async def delete(self, url: str) -> None:
        try:
            await self.request("DELETE", url, body={"propagationPolicy": "Background"})
        except ApiError as e:
            if e.status != 404:
                raise

    async def list(self, url: str, *, label_selector: str | None = None) -> list[dict]:
        params = {"labelSelector": label_selector} if label_selector else None
        out = await self.request("GET", url, params=params)
        return list((out or {}).get("items") or [])

    async def watch_metadata(self, url: str, *, label_selector: str | None = None, timeout: int = 300) -> AsyncIterator[tuple[str, dict]]:
        """Yield ``(type, object-metadata)`` forever: metadata-only list for a resourceVersion, then watches.

        Only ``metadata`` crosses the wire (``PartialObjectMetadata``), so memory does not
        grow with the size or number of unrelated objects. Restarts from a fresh list on 410.
        """
        session = await self._open()
        rv: str | None = None
        while True:
            if rv is None:
                params = {"limit": "1"}
                if label_selector:
                    params["labelSelector"] = label_selector
                out = await self.request("GET", url, params=params, accept=_METADATA_LIST)
                rv = out["metadata"]["resourceVersion"]
                yield "RESYNC", {}
            params = {"watch": "true", "allowWatchBookmarks": "true", "resourceVersion": rv, "timeoutSeconds": str(timeout)}
            if label_selector:
                params["labelSelector"] = label_selector
            try:
                async with session.get(
                    f"{url}?{urlencode(params)}", headers={"Accept": _METADATA_WATCH},
                    timeout=aiohttp.ClientTimeout(total=timeout + 30, sock_read=timeout + 30),
                ) as resp:
                    if resp.status == 410:
                        rv = None
                        continue
                    if resp.status >= 400:
                        raise ApiError(resp.status, await resp.text())
                    async for line in resp.content:
                        if not line.strip():
                            continue
                        event = json.loads(line)
                        kind = event.get("type")
                        obj = event.get("object") or {}
                        if kind == "ERROR":
                            if obj.get("code") == 410:
                                rv = None
                            break
                        rv = (obj.get("metadata") or {}).get("resourceVersion") or rv
                        if kind != "BOOKMARK":
                            yield kind, obj.get("metadata") or {}
            except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                log.info("watch of %s interrupted (%s); resuming", url, e)
                await asyncio.sleep(1)

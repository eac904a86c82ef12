"""Prometheus metrics, health endpoints and the admission request log, on the metrics port.

Endpoints (``--metrics-port``, default 8080):

* ``/metrics``   Prometheus text format (the process' default registry, so the operator's
  metrics appear here too);
* ``/healthz``   200 while the event loop runs;
* ``/readyz``    200 once the webhook server listens and the namespace/policy indexes are filled;
* ``/debug/requests``  the last admission requests (namespace, name, webhook, mode, result) as JSON:
  proof of which objects reached the webhook, without a Prometheus label per object;
* ``/debug/modes``     the effective mode of every namespace the operator knows, as JSON.
"""

from __future__ import annotations

import collections
import json
import time
from typing import Any, Callable

from aiohttp import web
from prometheus_client import REGISTRY, CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest

ADMISSION_DURATION = Histogram(
    "httpd24_admission_duration_seconds",
    "Time to answer one AdmissionReview (from body read to response), by webhook.",
    ["webhook"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
DECISIONS = Counter(
    "httpd24_admission_decisions_total",
    "Admission decisions by webhook, mode and result (allowed, denied, migrated, skipped, unchanged).",
    ["webhook", "mode", "result", "dry_run"],
)
FINDINGS = Counter(
    "httpd24_admission_findings_total",
    "Findings on admitted or denied ConfigMaps, by rule code and mode (counted by the validating webhook).",
    ["code", "mode"],
)
MIGRATED = Counter(
    "httpd24_admission_migrated_total",
    "Findings rewritten by the migrate mode, by rule code.",
    ["code"],
)
BAD_REQUESTS = Counter(
    "httpd24_admission_bad_requests_total",
    "AdmissionReview bodies refused with HTTP 400 (malformed), and requests for other kinds.",
    ["kind"],
)


class State:
    """What the endpoints report; the admission glue fills it."""

    def __init__(self, log_size: int = 1000) -> None:
        self.ready = False  # the webhook server listens
        self.indexed = False  # kopf filled the namespace and policy indexes
        self.requests: collections.deque[dict[str, Any]] = collections.deque(maxlen=log_size)
        self.modes: Callable[[], dict[str, Any]] = dict

    def log_request(self, **entry: Any) -> None:
        entry["time"] = time.time()
        self.requests.append(entry)


STATE = State()


def app(state: State = STATE) -> web.Application:
    async def metrics(_: web.Request) -> web.Response:
        body = generate_latest(REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthz(_: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(_: web.Request) -> web.Response:
        if state.ready and state.indexed:
            return web.Response(text="ready\n")
        waiting = [what for what, done in (("the webhook server", state.ready), ("the indexes", state.indexed)) if not done]
        return web.Response(status=503, text="waiting for " + " and ".join(waiting) + "\n")

    async def requests(_: web.Request) -> web.Response:
        return web.Response(text=json.dumps(list(state.requests)), content_type="application/json")

    async def modes(_: web.Request) -> web.Response:
        return web.Response(text=json.dumps(state.modes(), sort_keys=True), content_type="application/json")

    application = web.Application()
    application.add_routes(
        [
            web.get("/metrics", metrics),
            web.get("/healthz", healthz),
            web.get("/readyz", readyz),
            web.get("/debug/requests", requests),
            web.get("/debug/modes", modes),
        ]
    )
    return application


async def serve(addr: str, port: int, state: State = STATE) -> web.AppRunner:
    """Start the endpoints; returns the runner (``await runner.cleanup()`` stops them)."""
    runner = web.AppRunner(app(state), handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, addr or None, port, reuse_address=True)
    await site.start()
    return runner


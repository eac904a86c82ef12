"""kopf glue for the admission webhooks: kwargs in, :mod:`httpd24.k8s.review` decision out.

* ``@kopf.on.mutate`` / ``@kopf.on.validate`` on ConfigMaps labelled ``httpd24.io/config: "true"``,
  or labelled before the update under review (:func:`labelled_now_or_before`; handler ids are the
  URL paths, :data:`~httpd24.k8s.webhooks.MUTATE_ID` / ``VALIDATE_ID``);
  no side effects: dry-run requests get the same answer and nothing is written anywhere.
* Namespace labels and HttpdPolicies come from two kopf indexes (:mod:`.indexes`), so a
  request costs no API call.
* :class:`Server`: kopf's WebhookServer (HTTPS from files, re-read when they change) plus
  request validation (400 with a reason for malformed AdmissionReviews), an allow-with-warning
  for other kinds, the duration histogram and readiness.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping

import aiohttp.web
import kopf

from . import metrics, review
from .indexes import labels_of, policies_of  # importing it registers the indexes
from .review import Mode
from .review_policy import configmap_mode, namespace_mode
from .review_workers import Worker, WorkerDied
from .webhooks import MUTATE_ID, VALIDATE_ID

log = logging.getLogger("httpd24.admission")

#: Configs larger than this are reviewed in a thread so the event loop keeps answering probes.
THREAD_THRESHOLD = 256 * 1024


@dataclass
class Config:
    default_mode: Mode = review.DEFAULT_MODE
    excluded_namespaces: frozenset[str] = field(default_factory=lambda: frozenset({"kube-system"}))


CONFIG = Config()


class Reviewer:
    """Runs reviews in worker processes (the engine is CPU-bound Python: one process per core).

    A request goes to the worker with the fewest reviews in flight, except a validating request
    after its mutating one: that goes where the mutating one went, whose cache holds the
    analysis (one review per object instead of two). Hashing every request to a fixed worker
    kept that too, but left one worker with a queue while the other idled: the long tail of
    the latency. ``workers=0`` reviews in the event loop (large configs in a thread).
    """

    #: Objects whose validating request is still to come (a mutating request may be denied, or
    #: the apiserver may give up): bounded, oldest forgotten first.
    PLACED_LIMIT = 1024

    def __init__(self, workers: int = 0) -> None:
        self.workers = max(0, workers)
        self.pool: list[Worker] = []
        self.in_flight: list[int] = []
        self.placed: OrderedDict[str, int] = OrderedDict()

    def start(self) -> None:
        if not self.workers:
            return
        import multiprocessing

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["httpd24.k8s.review", "httpd24.rules"])
        self.pool = [Worker(context, review.review_portable, f"review worker {n}") for n in range(self.workers)]
        self.in_flight = [0] * self.workers
        warm = {"mode": int(Mode.WARN), "stage": "validate"}
        for worker in self.pool:  # start the processes now, not on the first request
            worker.start()
            worker.call_blocking({"data": {"httpd.conf": "ServerName warm\n"}}, warm, timeout=60)

    def stop(self) -> None:
        for worker in self.pool:
            worker.stop()
        self.pool = []
        self.placed.clear()

    def choose(self, route: str, stage: review.Stage) -> int:
        """The worker for a request on the object ``route`` (namespace/name) at ``stage``."""
        if stage == "validate":
            index = self.placed.pop(route, None)
            if index is not None:
                return index
        index = min(range(len(self.in_flight)), key=self.in_flight.__getitem__)
        if stage == "mutate":
            self.placed[route] = index
            self.placed.move_to_end(route)
            while len(self.placed) > self.PLACED_LIMIT:
                self.placed.popitem(last=False)
        return index

    async def review(self, route: str, body: Mapping[str, Any], size: int, **kwargs: Any) -> review.Decision:
        if not self.pool:
            call = lambda: review.review(body, **kwargs)  # noqa: E731
            return await asyncio.to_thread(call) if size > THREAD_THRESHOLD else call()
        index = self.choose(route, kwargs["stage"])
        self.in_flight[index] += 1
        try:
            return await self.pool[index].call(body, dict(kwargs, mode=int(kwargs["mode"])))
        except WorkerDied:  # it is started again; this request runs here
            return await asyncio.to_thread(lambda: review.review(body, **kwargs))
        finally:
            self.in_flight[index] -= 1


REVIEWER = Reviewer()


# -- readiness: kopf fills the indexes (:mod:`.indexes`) first ------------------------------------------
@kopf.on.event("namespaces")
def httpd24_indexed(httpd24_namespaces: Any, httpd24_policies: Any, **_: Any) -> None:
    """kopf runs event handlers only once every index is filled: from then on the webhook is ready."""
    if not metrics.STATE.indexed:
        log.info("namespace and policy indexes are filled")
    metrics.STATE.indexed = True
    metrics.STATE.modes = lambda: modes_snapshot(httpd24_namespaces, httpd24_policies)


_API: Any = None


async def _labels_from_api(namespace: str) -> dict[str, str] | None:
    """A namespace the index has not seen yet (created a moment ago): one GET, rare by design."""
    global _API
    from .rollout_api import Kube

    try:
        if _API is None:
            _API = Kube()
        body = await asyncio.wait_for(_API.get(f"/api/v1/namespaces/{namespace}"), timeout=2)
    except Exception as error:  # no RBAC, no network: fall back to policies and the default
        log.warning("namespace %s is not indexed and could not be read: %s", namespace, error)
        return None
    return dict(((body or {}).get("metadata") or {}).get("labels") or {}) if body else None


async def effective_mode(namespace: str, body: Mapping[str, Any], namespaces: Any, policies: Any):
    labels = labels_of(namespaces, namespace) if namespaces is not None else None
    if labels is None and namespace and namespace not in CONFIG.excluded_namespaces:
        labels = await _labels_from_api(namespace)
    ns = namespace_mode(
        namespace, labels, policies_of(policies) if policies is not None else [],
        default=CONFIG.default_mode, excluded=CONFIG.excluded_namespaces,
    )
    annotations = (body.get("metadata") or {}).get("annotations") or {}
    mode, defaults, notes = configmap_mode(ns, annotations)
    return ns, mode, defaults, notes


def modes_snapshot(namespaces: Any, policies: Any) -> dict[str, Any]:
    out = {}
    try:
        names = list(namespaces.keys())
    except Exception:
        names = []
    for name in names:
        ns = namespace_mode(
            name, labels_of(namespaces, name), policies_of(policies),
            default=CONFIG.default_mode, excluded=CONFIG.excluded_namespaces,
        )
        out[name] = {"mode": str(ns.mode), "source": ns.source, "defaults": ns.defaults, "excluded": ns.excluded,
                     "ignored": list(ns.ignored.codes)}
    return out


# -- handlers --------------------------------------------------------------------------------------------------
async def _decide(stage: review.Stage, body, old, namespace, name, operation, dryrun, indexes) -> review.Decision | None:
    if operation not in ("CREATE", "UPDATE"):
        return None
    ns, mode, defaults, notes = await effective_mode(namespace or "", body, *indexes)
    webhook = VALIDATE_ID if stage == "validate" else MUTATE_ID
    if ns.excluded:
        metrics.DECISIONS.labels(webhook, "excluded", "skipped", str(bool(dryrun)).lower()).inc()
        return None
    record = review.record_of(old if operation == "UPDATE" else None)
    if operation == "UPDATE" and review.unchanged_input(body, old):
        decision = review.unchanged(mode, stage, record)
    else:
        size = sum(len(v) for v in (body.get("data") or {}).values() if isinstance(v, str))
        size += sum(len(v) for v in (body.get("binaryData") or {}).values() if isinstance(v, str))
        decision = await REVIEWER.review(
            f"{namespace}/{name}", body, size,
            mode=mode, stage=stage, notes=notes, defaults=defaults, ignored=ns.ignored, name=name, namespace=namespace,
            record=record,
        )
    dry = str(bool(dryrun)).lower()
    metrics.DECISIONS.labels(webhook, str(mode), decision.result, dry).inc()
    if stage == "validate":
        for code, count in Counter(f.code for f in decision.findings).items():
            metrics.FINDINGS.labels(code, str(mode)).inc(count)
    else:
        for code, count in Counter(f.code for f in decision.applied).items():
            metrics.MIGRATED.labels(code).inc(count)
    metrics.STATE.log_request(
        webhook=webhook, namespace=namespace, name=name, operation=operation, dry_run=bool(dryrun),
        mode=str(mode), mode_source=ns.source, result=decision.result, findings=len(decision.findings),
    )
    return decision


def labelled_now_or_before(body: Any, old: Any = None, **_: Any) -> bool:
    """Whether a request is the webhooks': the ConfigMap has the label, or had it before this update.

    The apiserver sends an update when either object matches the selector, and kopf's ``labels`` filter
    reads only the new one: one ``kubectl apply`` could drop the label and store 2.2 text in an enforce
    namespace, which an HttpdServer naming the ConfigMap then serves. Reviewed as the labelled ConfigMap
    it was, an update that drops only the label passes as any unchanged configuration does."""
    return review.labelled(body) or review.labelled(old)


@kopf.on.mutate("configmaps", id=MUTATE_ID, when=labelled_now_or_before, side_effects=False)
async def mutate_configmap(
    body, old, patch, warnings, dryrun, operation, namespace, name, httpd24_namespaces, httpd24_policies, **_
) -> None:
    raw = dict(body)
    decision = await _decide(
        "mutate", raw, old, namespace, name, operation, dryrun, (httpd24_namespaces, httpd24_policies)
    )
    if decision is None:
        return
    warnings.extend(decision.warnings)
    if not decision.allowed:
        raise kopf.AdmissionError(decision.message, code=403)
    for key, value in decision.data.items():
        patch.setdefault("data", {})[key] = value
    for key, value in decision.binary_data.items():
        patch.setdefault("binaryData", {})[key] = value
    current = ((raw.get("metadata") or {}).get("annotations")) or {}
    changes = {k: v for k, v in decision.annotations.items() if current.get(k) != v}
    if changes:
        patch.setdefault("metadata", {}).setdefault("annotations", {}).update(changes)


@kopf.on.validate("configmaps", id=VALIDATE_ID, when=labelled_now_or_before, side_effects=False)
async def validate_configmap(
    body, old, warnings, dryrun, operation, namespace, name, httpd24_namespaces, httpd24_policies, **_
) -> None:
    decision = await _decide(
        "validate", dict(body), old, namespace, name, operation, dryrun, (httpd24_namespaces, httpd24_policies)
    )
    if decision is None:
        return
    warnings.extend(decision.warnings)
    if not decision.allowed:
        raise kopf.AdmissionError(decision.message, code=403)


# -- serving ---------------------------------------------------------------------------------------------------------
#: The largest body read. aiohttp's default (1 MiB, kopf keeps it) refused the review of a ConfigMap near
#: the apiserver's 1 MiB limit with a bare 413, and an UPDATE's review holds the object twice (object and
#: oldObject, each up to etcd's 1.5 MiB) with JSON escaping on top.
MAX_REVIEW_BYTES = 8 * 1024 * 1024


class Server(kopf.WebhookServer):
    """kopf's HTTPS webhook server with request checks, metrics and readiness.

    ``on_listen`` callbacks (async, given kopf's client config) run each time the server
    (re)starts listening, e.g. after the certificate files changed: ``--manage-webhooks``
    re-applies the configurations there, so a new CA reaches the caBundle.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_listen: list[Any] = []

    async def __call__(self, fn):  # type: ignore[override]
        async for client_config in super().__call__(fn):
            for callback in self.on_listen:
                await callback(dict(client_config))
            metrics.STATE.ready = True
            log.info("webhooks listening at %s", client_config.get("url"))
            yield client_config

    async def _serve(self, fn, request: aiohttp.web.Request) -> aiohttp.web.Response:  # type: ignore[override]
        webhook = request.match_info.get("id") or ""
        started = time.perf_counter()
        try:
            try:
                data = json.loads(await request.clone(client_max_size=MAX_REVIEW_BYTES).text())
            except aiohttp.web.HTTPRequestEntityTooLarge:
                metrics.BAD_REQUESTS.labels("malformed").inc()
                return aiohttp.web.json_response(
                    {"error": f"the body is larger than {MAX_REVIEW_BYTES} bytes: no AdmissionReview of a ConfigMap is"},
                    status=413)
            except (ValueError, UnicodeDecodeError) as error:
                return _bad_request(f"the body is not JSON: {error}")
            except RecursionError:  # "[[[[..." deeper than the parser's stack: not an AdmissionReview
                return _bad_request("the body is not an AdmissionReview: JSON nested too deeply")
            reason = review.check_review(data)
            if reason is not None:
                return _bad_request(reason)
            if webhook not in (VALIDATE_ID, MUTATE_ID):
                metrics.BAD_REQUESTS.labels("unknown-path").inc()
                return aiohttp.web.json_response(
                    {"error": f"no webhook at /{webhook}; use /{VALIDATE_ID} or /{MUTATE_ID}"}, status=404
                )
            if not review.is_configmap_request(data):
                metrics.BAD_REQUESTS.labels("other-kind").inc()
                return aiohttp.web.json_response(review.other_kind_response(data))
            sslpeer = request.transport.get_extra_info("peercert") if request.transport else None
            try:
                answer = await fn(data, webhook=webhook, sslpeer=sslpeer, headers=dict(request.headers))
            except Exception as error:  # kopf's own request errors (resource unknown, data missing)
                log.exception("admission request %s failed", data["request"].get("uid"))
                return aiohttp.web.json_response({"error": f"{type(error).__name__}: {error}"}, status=400)
            return aiohttp.web.json_response(answer)
        finally:
            metrics.ADMISSION_DURATION.labels(webhook or "-").observe(time.perf_counter() - started)


def _bad_request(reason: str) -> aiohttp.web.Response:
    metrics.BAD_REQUESTS.labels("malformed").inc()
    metrics.STATE.log_request(webhook="-", result="bad-request", reason=reason)
    return aiohttp.web.json_response({"error": reason}, status=400, reason="Bad Request")

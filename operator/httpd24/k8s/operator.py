"""The HttpdServer operator: kopf handlers around a level-triggered reconcile loop.

Importing this module registers the handlers with kopf's default registry
(``httpd24 operator`` in :mod:`httpd24.k8s.main` imports it; ``kopf run -m
httpd24.k8s.operator`` works too).

How it works:

* kopf watches HttpdServers and the operator's own Deployments (server-side
  label selector ``app.kubernetes.io/managed-by=httpd24-operator``) with
  stateless ``on.event`` handlers: kopf writes no annotations and adds no
  finalizers anywhere. Each event only puts a key on a work queue.
* An in-memory index ``(namespace, configmap) -> {HttpdServer names}`` is kept
  from the HttpdServer events. ConfigMaps are watched by the operator itself,
  metadata only (``PartialObjectMetadata``): a change to a ConfigMap that the
  index holds queues exactly the HttpdServers that use it; others are dropped
  without their data ever being transferred. Memory is proportional to the
  HttpdServers, not to the ConfigMaps of the cluster. No ConfigMap of the user
  is ever written.
* A reconcile reads the HttpdServer and its ConfigMap, plans the files
  (:func:`httpd24.k8s.rollout.plan`), runs the configtest gate (real
  ``httpd -t``), and only when it passes writes an immutable ConfigMap named
  by the hash of the files, the Deployment (pod template annotated with the
  hash) and the Service, all owned by the HttpdServer. A failing config
  changes nothing that pods use; status and an Event say why.
* The rules the namespace's HttpdPolicies leave out (``spec.ignore``, read from the kopf indexes
  of :mod:`.indexes`) are left out of the plan as admission leaves them out of the ConfigMap's
  review: counted apart in the status, not fixed. A policy or namespace change re-plans the
  servers whose namespace it changes.

Environment (read at start-up):

* ``HTTPD24_OPERATOR_WORKERS`` concurrent reconciles (default 16: the 1,000-server bench meets its targets there).
* ``HTTPD24_OPERATOR_RESYNC`` seconds between full resyncs of every HttpdServer (default 600).
* ``HTTPD24_CONFIGMAP_SELECTOR`` optional label selector limiting the ConfigMap watch
  (e.g. ``httpd24.io/config=true``); default: all ConfigMaps, metadata only.
* ``HTTPD24_WATCH_SECRETS`` ``true``: watch the Secrets of ``spec.secrets`` (metadata only, as the
  ConfigMaps) and roll the pods when one changes, since httpd reads certificates only at start
  (a renewal by cert-manager). Needs get/list/watch on Secrets (chart: ``operator.watchSecrets``).
  Default off: the operator has no access to Secrets and a renewal needs ``kubectl rollout restart``.
  With ``--namespace`` (chart ``operator.watchNamespaces``) only those namespaces' Secrets are watched,
  so Roles there are enough.
* ``HTTPD24_CONFIGTEST_TIMEOUT``, ``HTTPD24_CONFIGTEST_NETNS``, ``HTTPD24_CONFIGTEST``,
  ``HTTPD24_HTTPD``: see :mod:`httpd24.k8s.rollout_gate`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
import os
import time
from typing import Any

import kopf
import pydantic
from prometheus_client import Counter, Histogram

from . import indexes, models_policy, rollout
from .models_server import GROUP, KIND, PLURAL, VERSION, parse_spec
from .review_policy import ServerPolicy
from .rollout_api import ApiError, Kube, path
from .rollout_gate import Gate

log = logging.getLogger("httpd24.operator")

RECONCILE_SECONDS = Histogram(
    "httpd24_operator_reconcile_seconds", "Duration of one HttpdServer reconcile.",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
RECONCILES = Counter("httpd24_operator_reconciles_total", "HttpdServer reconciles by result.", ["result"])
ROLLOUTS = Counter("httpd24_operator_rollouts_total", "New configurations or pod specs written to a Deployment.")
CONFIGTESTS = Counter("httpd24_operator_configtests_total", "httpd -t runs of the configtest gate (cache misses).", ["result"])
CONFIGTEST_FAILURES = Counter("httpd24_operator_configtest_failures_total", "Configurations refused by httpd -t.")

SERVERS = f"{GROUP}/{VERSION}"
#: The namespaces the operator serves (``httpd24 operator --namespace``; empty: all), set before kopf starts.
NAMESPACES: tuple[str, ...] = ()
Key = tuple[str, str]


def _slim(dep: dict | None) -> dict | None:
    """What status and change detection need of a Deployment (keeps memory per server small)."""
    if not dep:
        return None
    meta, spec = dep.get("metadata") or {}, dep.get("spec") or {}
    tmpl = (spec.get("template") or {}).get("metadata") or {}
    return {
        "metadata": {"name": meta.get("name"), "generation": meta.get("generation"), "annotations": dict(meta.get("annotations") or {})},
        "spec": {"replicas": spec.get("replicas"), "template": {"metadata": {"annotations": dict(tmpl.get("annotations") or {})}}},
        "status": dict(dep.get("status") or {}),
    }


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def _version(meta: dict) -> str:
    """What changes whenever an object is replaced or written: ``uid/resourceVersion``."""
    return f"{meta.get('uid')}/{meta.get('resourceVersion')}"


def _unindex(index: dict[Key, set[str]], namespace: str, names, server: str) -> None:
    """Drop ``server`` from the users of ``names`` (and names nobody uses any more)."""
    for name in names:
        users = index.get((namespace, name))
        if users is not None:
            users.discard(server)
            if not users:
                del index[(namespace, name)]


class Controller:
    """The work queue, the ConfigMap (and, with ``watch_secrets``, Secret) index and the reconcile."""

    def __init__(self, kube: Kube, gate: Gate, *, workers: int = 8, configmap_selector: str | None = None,
                 watch_secrets: bool = False, namespaces: tuple[str, ...] = ()):
        self.kube = kube
        self.gate = gate
        self.workers = workers
        self.configmap_selector = configmap_selector
        self.watch_secrets = watch_secrets
        self.namespaces = namespaces
        self.by_configmap: dict[Key, set[str]] = {}  # (namespace, configmap) -> server names
        self.refs: dict[Key, str] = {}  # (namespace, server) -> configmap
        self.by_secret: dict[Key, set[str]] = {}  # (namespace, secret) -> server names (watch_secrets only)
        self.secret_refs: dict[Key, tuple[str, ...]] = {}  # (namespace, server) -> secrets
        self.secret_versions: dict[Key, str] = {}  # (namespace, secret) -> uid/resourceVersion
        self.queue: asyncio.Queue[Key] = asyncio.Queue()
        self.queued: set[Key] = set()
        self.running: set[Key] = set()
        self.dirty: set[Key] = set()
        self.failures: dict[Key, int] = {}
        #: (ns, server) -> (digest of the spec and what policies leave out, ConfigMap uid+resourceVersion,
        #: audit count, Plan | PlanError)
        self.plans: dict[Key, tuple[str, str, int, Any]] = {}
        #: Latest bodies seen on the watches (HttpdServers; Deployments slimmed to what status needs),
        #: and the resourceVersion of each referenced ConfigMap from the metadata watch: a reconcile
        #: caused by a Deployment status change costs one status PATCH, not four requests.
        self.bodies: dict[Key, dict] = {}
        self.deps: dict[Key, dict] = {}
        self.cm_versions: dict[Key, str] = {}
        #: per server and topic, the last event posted (reason + tag), to emit each decision once
        self.announced: dict[Key, dict[str, str]] = {}
        self.cleaned: dict[Key, str] = {}
        #: url -> digest of the body this process last wrote there (ConfigMaps, Services): skips a GET
        #: and a no-op apply on every status-driven reconcile; cleared by each resync.
        self.written: dict[str, str] = {}
        #: kopf's namespace and HttpdPolicy indexes (:mod:`.indexes`), handed over by the first event;
        #: and per namespace, what its policies decide for servers as the last plans there read it.
        self.policy_indexes: tuple[Any, Any] | None = None
        self.policies: dict[str, ServerPolicy] = {}
        self.tasks: list[asyncio.Task] = []
        # plans (pure Python) and httpd -t runs (subprocesses) run here, not in kopf's executor
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="httpd24-plan")

    # -- index and queue ------------------------------------------------------------------
    def observe_server(self, namespace: str, name: str, spec: dict | None, deleted: bool = False,
                       body: dict | None = None) -> None:
        key = (namespace, name)
        if body is not None:
            meta = body.get("metadata") or {}
            self.bodies[key] = {  # without managedFields: what a reconcile reads, a fraction of the size
                "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "generation", "annotations",
                                                  "deletionTimestamp", "resourceVersion") if k in meta},
                "spec": body.get("spec") or {},
                "status": body.get("status") or {},
            }
        old = self.refs.pop(key, None)
        _unindex(self.by_configmap, namespace, () if old is None else (old,), name)
        _unindex(self.by_secret, namespace, self.secret_refs.pop(key, ()), name)
        if deleted:
            for table in (self.plans, self.announced, self.cleaned, self.failures, self.bodies, self.deps):
                table.pop(key, None)
            self.written.pop(path("v1", "services", namespace, name), None)
            self.written.pop(path("policy/v1", "poddisruptionbudgets", namespace, name), None)
            cm_prefix = path("v1", "configmaps", namespace, f"{name}-")
            for url in [u for u in self.written if u.startswith(cm_prefix)]:
                del self.written[url]
            if not any(ns == namespace for ns, _ in self.refs):
                self.policies.pop(namespace, None)
            return
        cm = ((spec or {}).get("configMapRef") or {}).get("name")
        if cm:
            self.refs[key] = cm
            self.by_configmap.setdefault((namespace, cm), set()).add(name)
        secrets = tuple(s["name"] for s in (spec or {}).get("secrets") or () if isinstance(s, dict) and s.get("name"))
        if secrets and self.watch_secrets:
            self.secret_refs[key] = secrets
            for secret in secrets:
                self.by_secret.setdefault((namespace, secret), set()).add(name)
        self.enqueue(key)

    def observe_configmap(self, namespace: str, name: str, version: str | None = None) -> None:
        self._observe(self.by_configmap, self.cm_versions, namespace, name, version)

    def observe_secret(self, namespace: str, name: str, version: str | None = None) -> None:
        self._observe(self.by_secret, self.secret_versions, namespace, name, version)

    def _observe(self, index: dict[Key, set[str]], versions: dict[Key, str], namespace: str, name: str,
                 version: str | None) -> None:
        """A referenced object changed (``version`` None: deleted): queue the servers that use it."""
        users = index.get((namespace, name))
        if not users:
            return
        if version:
            versions[(namespace, name)] = version
        else:
            versions.pop((namespace, name), None)
        for server in users:
            self.enqueue((namespace, server))

    def policy_in(self, namespace: str) -> ServerPolicy:
        if self.policy_indexes is None:
            return ServerPolicy()
        return indexes.server_policy(namespace, *self.policy_indexes)

    def observe_policies(self, namespaces: Any, policies: Any, namespace: str | None = None) -> None:
        """An HttpdPolicy (``namespace`` None) or a namespace's labels changed: queue the servers of the
        namespaces where what the policies decide (rules left out, defaults) is no longer what their plans read."""
        self.policy_indexes = (namespaces, policies)
        served = {ns for ns, _ in self.refs}
        for ns in served if namespace is None else served & {namespace}:
            if self.policy_in(ns) != self.policies.get(ns, ServerPolicy()):
                for key in [k for k in self.refs if k[0] == ns]:
                    self.enqueue(key)

    def enqueue(self, key: Key, delay: float = 0) -> None:
        if delay > 0:
            asyncio.get_running_loop().call_later(delay, self.enqueue, key)
            return
        if key in self.running:
            self.dirty.add(key)
        elif key not in self.queued:
            self.queued.add(key)
            self.queue.put_nowait(key)

    async def worker(self) -> None:
        while True:
            key = await self.queue.get()
            self.queued.discard(key)
            self.running.add(key)
            started = time.monotonic()
            try:
                await self.reconcile(*key)
                self.failures.pop(key, None)
                RECONCILES.labels("ok").inc()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # keep the worker alive; retry with backoff
                n = self.failures[key] = self.failures.get(key, 0) + 1
                self.written.pop(path("v1", "services", key[0], key[1]), None)
                delay = min(60.0, 0.5 * 2 ** min(n, 7))
                level = logging.INFO if isinstance(e, ApiError) and e.status == 409 else logging.WARNING
                log.log(level, "reconcile of %s/%s failed (%s: %s); retry in %.1fs", *key, type(e).__name__, e, delay)
                RECONCILES.labels("error").inc()
                self.enqueue(key, delay)
            finally:
                RECONCILE_SECONDS.observe(time.monotonic() - started)
                self.running.discard(key)
                if key in self.dirty:
                    self.dirty.discard(key)
                    self.enqueue(key)

    async def watch_references(self, resource: str, observe, versions: dict[Key, str], selector: str | None = None,
                               namespace: str | None = None) -> None:
        """Keep ``versions`` of the referenced ``resource`` (configmaps, secrets) from a metadata-only watch,
        of one namespace or all."""
        url = path("v1", resource, namespace)
        while True:
            try:
                async for kind, meta in self.kube.watch_metadata(url, label_selector=selector):
                    if kind == "RESYNC":
                        for key in [k for k in versions if namespace in (None, k[0])]:
                            del versions[key]
                        for key in [k for k in self.refs if namespace in (None, k[0])]:
                            self.enqueue(key)
                    elif meta.get("namespace") and meta.get("name"):
                        version = None if kind == "DELETED" else _version(meta)
                        observe(meta["namespace"], meta["name"], version)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("%s watch failed (%s); restarting in 2s", resource, e)
                await asyncio.sleep(2)

    async def resync(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            self.written.clear()
            self.deps.clear()
            for key in list(self.refs):
                self.enqueue(key)

    def start(self, resync: float = 600) -> None:
        # Load the rule registry once, before any worker thread lints: engine.registry._load marks
        # itself loaded before its imports finish, so concurrent first calls could see a partial table.
        from ..engine import all_rules

        all_rules()
        self.tasks = [asyncio.create_task(self.worker()) for _ in range(self.workers)]
        self.tasks.append(asyncio.create_task(
            self.watch_references("configmaps", self.observe_configmap, self.cm_versions, self.configmap_selector)))
        if self.watch_secrets:
            # one watch per served namespace when they are named (Roles there suffice), else one for all
            scopes = self.namespaces if self.namespaces and not any("*" in n or "?" in n for n in self.namespaces) else (None,)
            for namespace in scopes:
                self.tasks.append(asyncio.create_task(
                    self.watch_references("secrets", self.observe_secret, self.secret_versions, namespace=namespace)))
        if resync > 0:
            self.tasks.append(asyncio.create_task(self.resync(resync)))

    async def stop(self) -> None:
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks = []
        await self.kube.close()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.gate.close()

    # -- events ---------------------------------------------------------------------------
    async def event(self, server: dict, type_: str, reason: str, message: str, once: str | None = None,
                    topic: str = "config") -> None:
        """Post a core/v1 Event on the HttpdServer; with ``once``, only when it differs from the last one of
        its ``topic``. What happens to the configuration is one topic, so a configuration that fails, passes
        and fails again is announced each time; the budget, the Service and the Secrets have their own, so
        their retries, between which the rollout reports, are announced once (:meth:`forget` when they
        succeed)."""
        meta = server["metadata"]
        key = (meta["namespace"], meta["name"])
        if once is not None:
            tag = f"{reason}:{once}"
            memory = self.announced.setdefault(key, {})
            if memory.get(topic) == tag:
                return
            memory[topic] = tag
        stamp = rollout.now()
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
            "involvedObject": {
                "apiVersion": SERVERS, "kind": KIND, "name": meta["name"], "namespace": meta["namespace"],
                "uid": meta["uid"],
            },
            "reason": reason,
            "message": message[:1000],
            "type": type_,
            "source": {"component": "httpd24-operator"},
            "reportingComponent": "httpd24-operator",
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
        }
        try:
            await self.kube.create(path("v1", "events", meta["namespace"]), body)
        except ApiError as e:
            log.info("could not post event %s on %s/%s: %s", reason, meta["namespace"], meta["name"], e)

    def forget(self, key: Key, topic: str) -> None:
        """The topic's trouble is over: the next one is news again."""
        self.announced.get(key, {}).pop(topic, None)

    # -- reconcile ------------------------------------------------------------------------
    async def reconcile(self, namespace: str, name: str) -> None:
        key = (namespace, name)
        server = self.bodies.get(key)
        if server is None:
            server = await self.kube.get(path(SERVERS, PLURAL, namespace, name))
        if server is None or server["metadata"].get("deletionTimestamp"):
            self.observe_server(namespace, name, None, deleted=True)
            return
        generation = server["metadata"].get("generation")
        status = dict(server.get("status") or {})
        try:
            spec = parse_spec(server.get("spec") or {})
        except pydantic.ValidationError as e:
            msg = "; ".join(f"spec.{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()[:5])
            await self.event(server, "Warning", "InvalidSpec", msg, once=_digest(server.get("spec")))
            await self.write_status(server, status, [rollout.condition("ConfigValid", False, "InvalidSpec", msg, generation)],
                                    phase="Invalid")
            return
        if self.refs.get(key) != spec.configMapRef.name:  # spec changed under us: keep the index right
            self.observe_server(namespace, name, server.get("spec"))
            self.queued.discard(key)
        dep_url = path("apps/v1", "deployments", namespace, name)
        dep = self.deps.get(key)
        if dep is None:
            dep = _slim(await self.kube.get(dep_url))
            if dep is not None:
                dep = self.deps.setdefault(key, dep)  # a watch event that came meanwhile is newer

        # plan, cached by its inputs: the spec, what the namespace's HttpdPolicies decide and the
        # ConfigMap's uid/resourceVersion (known from the metadata watch, so an unchanged ConfigMap is
        # not even fetched)
        policy = self.policies[namespace] = self.policy_in(namespace)
        inputs = _digest([server.get("spec"), policy.ignored.codes, policy.ignored.by, policy.defaults])
        cm_key = (namespace, spec.configMapRef.name)
        cached = self.plans.get(key)
        known = self.cm_versions.get(cm_key)
        if cached and cached[0] == inputs and known is not None and cached[1] == known:
            _, _, cm_audit, plan = cached
        else:
            cm = await self.kube.get(path("v1", "configmaps", namespace, spec.configMapRef.name))
            if cm is None:
                msg = f"ConfigMap {namespace}/{spec.configMapRef.name} not found"
                await self.event(server, "Warning", "ConfigMapNotFound", msg, once=spec.configMapRef.name)
                await self.write_status(server, status, [rollout.condition("ConfigValid", False, "ConfigMapNotFound", msg, generation)],
                                        dep=dep, phase="Degraded" if dep else "Pending")
                return
            version = _version(cm["metadata"])
            # never overwrite what the watch reported meanwhile: it may be newer than this GET
            self.cm_versions.setdefault(cm_key, version)
            cm_audit = rollout.audit_count(cm["metadata"].get("annotations") or {})
            if cached and cached[0] == inputs and cached[1] == version:
                plan = cached[3]
            else:
                try:
                    plan = await asyncio.get_running_loop().run_in_executor(
                        self.pool, rollout.plan, name, namespace, spec, cm, policy)
                except rollout.PlanError as e:
                    plan = e
            self.plans[key] = (inputs, version, cm_audit, plan)
        digest = _digest([inputs, self.plans[key][1]])
        audit = cm_audit + rollout.audit_count(server["metadata"].get("annotations") or {})
        if isinstance(plan, rollout.PlanError):
            await self.event(server, "Warning", plan.reason, plan.message, once=digest)
            await self.write_status(server, status, [rollout.condition("ConfigValid", False, plan.reason, plan.message, generation)],
                                    dep=dep, phase="Degraded" if dep else "Invalid")
            return
        status["requiredModules"] = [m.name for m in plan.modules]
        status["findings"] = rollout.findings_summary(plan.findings, audit, plan.left_out)
        migrated = self.migrated_condition(plan, generation)

        # the gate
        result = await asyncio.get_running_loop().run_in_executor(
            self.pool, self.gate.check, plan.files, plan.hash, plan.mpm, plan.secret_files, plan.content)
        if not result.cached:
            CONFIGTESTS.labels("ok" if result.ok else "failed").inc()
            if not result.ok:
                CONFIGTEST_FAILURES.inc()
        if not result.ok:
            output = result.output + rollout.secret_hint(plan, result.output) + rollout.content_hint(plan, result.output)
            msg = f"httpd -t failed; the running pods keep the previous configuration: {output}"
            await self.event(server, "Warning", "ConfigTestFailed", msg, once=plan.hash)
            status["rejectedHash"] = plan.hash
            await self.write_status(
                server, status, [rollout.condition("ConfigValid", False, "ConfigTestFailed", output, generation), migrated],
                dep=dep, phase="Degraded" if dep else "Invalid", deployed_hash=status.get("configHash"),
            )
            return
        status.pop("rejectedHash", None)

        # write: ConfigMap (immutable, by hash), Service, Deployment
        cm_body = rollout.configmap(server, plan)
        cm_url = path("v1", "configmaps", namespace, cm_body["metadata"]["name"])
        if self.written.get(cm_url) != plan.hash:
            if await self.kube.get(cm_url) is None:
                try:
                    await self.kube.create(path("v1", "configmaps", namespace), cm_body)
                except ApiError as e:
                    if e.status != 409:
                        raise
            self.written[cm_url] = plan.hash
        deployed = ((dep or {}).get("spec") or {}).get("template", {}).get("metadata", {}).get("annotations") or {}
        secrets_version = await self.secrets_version(server, plan.spec, deployed.get(rollout.ANNOTATION_SECRETS))
        dep_body = rollout.deployment(server, plan, secrets_version=secrets_version)
        previous_hash = deployed.get(rollout.ANNOTATION_HASH)
        changed, dep = await self.apply_if_changed(dep_url, dep_body, live=dep)
        dep = _slim(dep)
        if changed:
            self.deps.pop(key, None)  # the watch brings the state after this write; until then, GET
        if changed:
            if previous_hash != plan.hash:
                ROLLOUTS.inc()
                verb = "Creating" if previous_hash is None else "RollingOut"
                await self.event(server, "Normal", verb, f"configuration {plan.hash[:12]} passed httpd -t; "
                                 f"deploying ConfigMap {cm_body['metadata']['name']} "
                                 f"({len(plan.modules)} modules: {', '.join(m.name for m in plan.modules)})",
                                 once=plan.hash)
            elif secrets_version != deployed.get(rollout.ANNOTATION_SECRETS) and deployed.get(rollout.ANNOTATION_SECRETS):
                ROLLOUTS.inc()
                await self.event(server, "Normal", "SecretsChanged", "a Secret of spec.secrets changed (a renewed "
                                 "certificate?); rolling the pods, since httpd reads it only at start", once=secrets_version)
        # the budget and the Service after the Deployment: one that cannot be made (no cluster IP left, a
        # conflicting object, an older chart's RBAC) must not hold back a rollout that passed the gate
        pdb_url = path("policy/v1", "poddisruptionbudgets", namespace, name)
        if self.written.get(pdb_url) != "applied":
            try:
                await self.apply_if_changed(pdb_url, rollout.disruption_budget(server))
                self.written[pdb_url] = "applied"
                self.forget(key, "budget")
            except ApiError as e:
                await self.event(server, "Warning", "DisruptionBudgetFailed", f"PodDisruptionBudget {name}: {e.message}",
                                 once=str(e.status), topic="budget")
                self.enqueue(key, 30)
        svc_url = path("v1", "services", namespace, name)
        if plan.spec.service == "None":
            if self.written.get(svc_url) != "none":
                await self.kube.delete(svc_url)
                self.written[svc_url] = "none"
        else:
            svc_body = rollout.service(server, plan)
            svc_digest = _digest(svc_body)
            if self.written.get(svc_url) != svc_digest:
                try:
                    await self.apply_if_changed(svc_url, svc_body)
                    self.written[svc_url] = svc_digest
                    self.forget(key, "service")
                except ApiError as e:
                    await self.event(server, "Warning", "ServiceFailed", f"Service {name}: {e.message}", once=svc_digest,
                                     topic="service")
                    self.enqueue(key, 30)
        done, reason, counts = rollout.rollout_state(dep, plan.hash)
        if done:
            await self.event(server, "Normal", "RolledOut", f"configuration {plan.hash[:12]} runs on "
                             f"{counts['readyReplicas']}/{plan.spec.replicas} replicas", once=plan.hash + ":done")
            if self.cleaned.get(key) != plan.hash:
                await self.clean_configmaps(namespace, name, cm_body["metadata"]["name"])
                self.cleaned[key] = plan.hash
        await self.write_status(
            server, status,
            [rollout.condition("ConfigValid", True, "ConfigTestPassed", result.output[:500], generation), migrated],
            dep=dep, phase=None, deployed_hash=plan.hash, configmap=cm_body["metadata"]["name"],
        )

    async def secrets_version(self, server: dict, spec, deployed: str | None) -> str | None:
        """The pod template's ``httpd24.io/secrets-version``: a digest of the versions of ``spec.secrets``, so a
        renewed certificate rolls the pods (with ``watch_secrets``). While a Secret is missing, what is
        deployed stays: new pods could not start, and the running ones keep serving."""
        if not self.watch_secrets or not spec.secrets:
            return None
        namespace = server["metadata"]["namespace"]
        versions = []
        for secret in spec.secrets:
            key = (namespace, secret.name)
            version = self.secret_versions.get(key)
            if version is None:
                meta = await self.kube.get_metadata(path("v1", "secrets", namespace, secret.name))
                if meta is None:
                    await self.event(server, "Warning", "SecretNotFound",
                                     f"Secret {namespace}/{secret.name} of spec.secrets not found: new pods cannot start "
                                     f"until it exists; the running ones keep serving", once=secret.name, topic="secrets")
                    return deployed
                version = self.secret_versions.setdefault(key, _version(meta))  # the watch may be newer
            versions.append(version)
        self.forget((namespace, server["metadata"]["name"]), "secrets")
        return _digest(versions)

    @staticmethod
    def migrated_condition(plan: rollout.Plan, generation: int | None) -> dict:
        if plan.spec.migration == "migrated":
            msg = f"{plan.applied} rewrites for 2.4 deployed (the ConfigMap is unchanged)"
            if plan.remaining:
                msg += f"; {plan.remaining} findings need a person: " + " | ".join(plan.remaining_text)
            if plan.left_out:
                msg += f"; {plan.left_out_text}"
            return rollout.condition("Migrated", plan.remaining == 0, "Migrated" if plan.remaining == 0 else "NeedsReview",
                                     msg, generation)
        total = plan.findings.get("error", 0) + plan.findings.get("warning", 0)
        left_out = f"; {plan.left_out_text}" if plan.left_out else ""
        if total:
            return rollout.condition("Migrated", False, "AsStored", f"deployed as stored with {total} errors/warnings; "
                                     f"migrate the ConfigMap or set spec.migration: migrated{left_out}", generation)
        return rollout.condition("Migrated", True, "AsStored", f"deployed as stored; no 2.2-only constructs found{left_out}",
                                 generation)

    async def apply_if_changed(self, url: str, body: dict, live: dict | None | bool = False) -> tuple[bool, dict | None]:
        """Server-side apply unless the live object carries the digest of this exact body."""
        digest = _digest(body)
        body = json.loads(json.dumps(body))
        body["metadata"].setdefault("annotations", {})["httpd24.io/applied"] = digest
        if live is False:
            live = await self.kube.get(url)
        if live and (live["metadata"].get("annotations") or {}).get("httpd24.io/applied") == digest:
            return False, live
        return True, await self.kube.apply(url, body)

    async def clean_configmaps(self, namespace: str, name: str, keep: str) -> None:
        """Delete generated ConfigMaps of this server other than the one the finished rollout uses."""
        selector = f"{rollout.LABEL_SERVER}={name},{rollout.LABEL_MANAGED}={rollout.MANAGED_BY}"
        for item in await self.kube.list(path("v1", "configmaps", namespace), label_selector=selector):
            other = item["metadata"]["name"]
            if other != keep:
                url = path("v1", "configmaps", namespace, other)
                await self.kube.delete(url)
                self.written.pop(url, None)

    async def write_status(
        self, server: dict, status: dict, conditions: list[dict], *, dep: dict | None = None,
        phase: str | None = None, deployed_hash: str | None = None, configmap: str | None = None,
    ) -> None:
        meta = server["metadata"]
        generation = meta.get("generation")
        done, reason, counts = rollout.rollout_state(dep, deployed_hash or status.get("configHash"))
        status.update(counts)
        want = (server.get("spec") or {}).get("replicas", 1)
        ready = bool(dep) and counts["readyReplicas"] >= want and done
        conditions = list(conditions) + [
            rollout.condition("RolledOut", done, reason, f"{counts['updatedReplicas']}/{want} replicas updated", generation),
            rollout.condition("Ready", ready, "ReplicasReady" if ready else "ReplicasNotReady",
                              f"{counts['readyReplicas']}/{want} replicas ready", generation),
        ]
        if phase is None:
            phase = "Ready" if ready else "Progressing"
        status["phase"] = phase
        status["observedGeneration"] = generation
        status["selector"] = f"{rollout.LABEL_SERVER}={meta['name']}"
        if deployed_hash is not None and dep:
            status["configHash"] = deployed_hash
        if configmap is not None:
            status["configMap"] = configmap
        old = server.get("status") or {}
        status["conditions"] = rollout.merge_conditions(old.get("conditions"), conditions)
        if _digest(old) == _digest(status):
            return
        patch = dict(status)
        patch.update({k: None for k in old if k not in status})  # merge patch: null removes a field
        await self.kube.merge_patch(path(SERVERS, PLURAL, meta["namespace"], meta["name"], "status"), {"status": patch})
        # the watch delivers the patched object; a stored response could be older than an event
        # (a spec change) that arrived while patching
        self.bodies.pop((meta["namespace"], meta["name"]), None)


# --- kopf wiring ----------------------------------------------------------------------------

_controller: Controller | None = None


@kopf.on.startup()
async def _startup(settings: kopf.OperatorSettings, **_: Any) -> None:
    global _controller
    try:  # kopf >= 1.45: server-side label selector for the Deployments we watch
        settings.watching.label_selectors["apps", "v1", "deployments"] = f"{rollout.LABEL_MANAGED}={rollout.MANAGED_BY}"
    except AttributeError:
        pass
    settings.posting.level = logging.WARNING
    _controller = Controller(
        Kube(), Gate(),
        workers=int(os.environ.get("HTTPD24_OPERATOR_WORKERS", "16")),
        configmap_selector=os.environ.get("HTTPD24_CONFIGMAP_SELECTOR") or None,
        watch_secrets=os.environ.get("HTTPD24_WATCH_SECRETS", "").lower() in ("1", "true", "yes", "on"),
        namespaces=NAMESPACES,
    )
    _controller.start(resync=float(os.environ.get("HTTPD24_OPERATOR_RESYNC", "600")))


@kopf.on.cleanup()
async def _cleanup(**_: Any) -> None:
    global _controller
    if _controller is not None:
        await _controller.stop()
        _controller = None


@kopf.on.event(GROUP, VERSION, PLURAL)
async def _server_event(event: dict, namespace: str, name: str, spec: dict, httpd24_namespaces: Any,
                        httpd24_policies: Any, **_: Any) -> None:
    if _controller is None:
        return
    _controller.policy_indexes = (httpd24_namespaces, httpd24_policies)
    deleted = event.get("type") == "DELETED"
    _controller.observe_server(namespace, name, spec, deleted=deleted, body=None if deleted else event.get("object"))


@kopf.on.event(models_policy.GROUP, models_policy.VERSION, models_policy.PLURAL)
async def _policy_event(httpd24_namespaces: Any, httpd24_policies: Any, **_: Any) -> None:
    """What a policy leaves out reaches the HttpdServers' status (and migration) as it reaches admission."""
    if _controller is not None:
        _controller.observe_policies(httpd24_namespaces, httpd24_policies)


@kopf.on.event("namespaces")
async def _namespace_event(name: str, httpd24_namespaces: Any, httpd24_policies: Any, **_: Any) -> None:
    """A namespace's labels may bring it under a policy's namespaceSelector, or take it out."""
    if _controller is not None:
        _controller.observe_policies(httpd24_namespaces, httpd24_policies, namespace=name)


@kopf.on.event("apps", "v1", "deployments", labels={rollout.LABEL_MANAGED: rollout.MANAGED_BY})
async def _deployment_event(event: dict, namespace: str, labels: dict, **_: Any) -> None:
    server = labels.get(rollout.LABEL_SERVER)
    if _controller is not None and server:  # also DELETED: the reconcile puts it back
        if event.get("type") == "DELETED":
            _controller.deps.pop((namespace, server), None)
        elif event.get("object"):
            _controller.deps[(namespace, server)] = _slim(event["object"])
        _controller.enqueue((namespace, server))

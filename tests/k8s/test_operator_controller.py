"""The controller's ConfigMap index and work queue, and plan() on the real engine (no cluster)."""

from __future__ import annotations

import asyncio
import copy

import pytest

from httpd24.k8s import rollout
from httpd24.k8s.models_server import MAIN_KEY, parse_spec
from httpd24.k8s.operator import Controller
from httpd24.k8s.review import Ignored
from httpd24.k8s.review_policy import PolicyRule, ServerPolicy
from httpd24.k8s.rollout_api import ApiError
from httpd24.k8s.rollout_gate import Gate

CONF_22 = "User daemon\nMaxClients 150\n<Location /s>\n    SetHandler server-status\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1\n</Location>\n"


def _cm(text=CONF_22, **extra):
    return {"metadata": {"name": "site"}, "data": {"httpd.conf": text, **extra}}


def _controller() -> Controller:
    return Controller(kube=None, gate=Gate(netns="off"), workers=1)  # type: ignore[arg-type]


def test_index_maps_configmaps_to_their_servers_only():
    async def go():
        c = _controller()
        c.observe_server("a", "web", {"configMapRef": {"name": "site"}})
        c.observe_server("a", "api", {"configMapRef": {"name": "site"}})
        c.observe_server("b", "web", {"configMapRef": {"name": "site"}})
        while not c.queue.empty():
            c.queued.discard(c.queue.get_nowait())
        for i in range(10_000):  # unrelated ConfigMaps: nothing queued, nothing stored
            c.observe_configmap("a", f"noise-{i}", f"uid/{i}")
        assert c.queue.empty() and len(c.cm_versions) == 0 and len(c.by_configmap) == 2
        c.observe_configmap("a", "site", "uid/1")
        got = {c.queue.get_nowait() for _ in range(c.queue.qsize())}
        assert got == {("a", "web"), ("a", "api")}
        # a spec change moves the server in the index; deletion removes it
        c.observe_server("a", "web", {"configMapRef": {"name": "other"}})
        assert c.by_configmap[("a", "site")] == {"api"} and c.by_configmap[("a", "other")] == {"web"}
        c.observe_server("a", "api", None, deleted=True)
        assert ("a", "site") not in c.by_configmap

    asyncio.run(go())


def test_secret_index_only_when_watching_secrets():
    async def go():
        spec = {"configMapRef": {"name": "site"}, "secrets": [{"name": "site-tls"}, {"name": "ca"}]}
        off = _controller()
        off.observe_server("a", "web", spec)
        assert off.by_secret == {} and off.secret_refs == {}
        assert await off.secrets_version({"metadata": {"namespace": "a", "name": "web"}}, parse_spec(spec), None) is None

        c = Controller(kube=None, gate=Gate(netns="off"), workers=1, watch_secrets=True)  # type: ignore[arg-type]
        c.observe_server("a", "web", spec)
        c.observe_server("a", "api", {"configMapRef": {"name": "site"}, "secrets": [{"name": "site-tls"}]})
        while not c.queue.empty():
            c.queued.discard(c.queue.get_nowait())
        c.observe_secret("a", "unrelated", "u/1")
        assert c.queue.empty() and "unrelated" not in {k[1] for k in c.secret_versions}
        c.observe_secret("a", "ca", "u/1")
        assert {c.queue.get_nowait() for _ in range(c.queue.qsize())} == {("a", "web")}
        c.observe_secret("a", "site-tls", "u/2")
        c.queued.clear()
        first = await c.secrets_version({"metadata": {"namespace": "a", "name": "web"}}, parse_spec(spec), None)
        c.observe_secret("a", "site-tls", "u/3")  # renewed
        assert await c.secrets_version({"metadata": {"namespace": "a", "name": "web"}}, parse_spec(spec), first) != first
        c.observe_server("a", "web", {"configMapRef": {"name": "site"}})  # no secrets any more
        assert c.by_secret == {("a", "site-tls"): {"api"}}

    asyncio.run(go())


def test_queue_dedupes_and_reruns_a_key_changed_while_running():
    async def go():
        c = _controller()
        c.enqueue(("a", "web"))
        c.enqueue(("a", "web"))
        assert c.queue.qsize() == 1
        key = c.queue.get_nowait()
        c.queued.discard(key)
        c.running.add(key)
        c.enqueue(key)  # changed while reconciling: remembered, not queued twice
        assert c.queue.qsize() == 0 and key in c.dirty

    asyncio.run(go())


def test_plan_migrated_keeps_the_configmap_and_loads_what_the_migrated_files_need():
    cm = _cm()
    before = copy.deepcopy(cm)
    p = rollout.plan("web", "ns", parse_spec({"configMapRef": {"name": "site"}, "migration": "migrated"}), cm)
    assert cm == before
    assert "MaxRequestWorkers 150" in p.files["httpd.conf"].decode()
    assert p.migrated and p.applied >= 1
    names = [m.name for m in p.modules]
    assert names[0].startswith("mpm_") and {"status_module", "unixd_module"} <= set(names)
    assert p.files[MAIN_KEY].decode().count("LoadModule") == len(names)
    assert p.ports == [8080] and "Listen 8080" in p.files[MAIN_KEY].decode()


def test_plan_as_stored_deploys_the_bytes_and_takes_ports_from_listen():
    text = "Listen 80\nServerName x\n"
    p = rollout.plan("web", "ns", parse_spec({"configMapRef": {"name": "site"}, "migration": "asStored",
                                              "extraModules": ["headers_module"]}), _cm(text))
    assert p.files["httpd.conf"] == text.encode()
    assert p.ports == [80]
    assert "Listen" not in p.files[MAIN_KEY].decode()  # the user's Listen is used, not doubled
    assert [m.name for m in p.modules][-1] == "headers_module"


@pytest.mark.parametrize("cm, spec, reason", [
    pytest.param(_cm(), {"entry": "main.conf"}, "EntryNotFound", id="no-entry"),
    pytest.param(_cm(**{MAIN_KEY: "x"}), {}, "ReservedKey", id="reserved-key"),
    pytest.param(_cm("<Directory /x>\nOptions None\n"), {}, "ParseError", id="unclosed-section"),
])
def test_plan_errors_name_the_problem(cm, spec, reason):
    with pytest.raises(rollout.PlanError) as e:
        rollout.plan("web", "ns", parse_spec({"configMapRef": {"name": "site", **spec}}), cm)
    assert e.value.reason == reason and e.value.message


def test_plan_refuses_a_name_that_cannot_name_a_service():
    with pytest.raises(rollout.PlanError, match="DNS label"):
        rollout.plan("web.v1", "ns", parse_spec({"configMapRef": {"name": "site"}}), _cm())


class MemoryKube:
    """The API as a dict of URL -> object; ``refuse`` URLs answer 403 to writes (RBAC of an older chart)."""

    def __init__(self, objects: dict, refuse: str):
        self.objects = copy.deepcopy(objects)
        self.refuse = refuse
        self.events: list[dict] = []

    async def get(self, url):
        return copy.deepcopy(self.objects.get(url))

    async def get_metadata(self, url):
        obj = self.objects.get(url)
        return copy.deepcopy(obj["metadata"]) if obj else None

    async def apply(self, url, body):
        if self.refuse in url:
            raise ApiError(403, f"cannot patch {url}")
        self.objects[url] = copy.deepcopy(body)
        return copy.deepcopy(body)

    async def create(self, url, body):
        if body.get("kind") == "Event":
            self.events.append(body)
        else:
            self.objects[f"{url}/{body['metadata']['name']}"] = copy.deepcopy(body)
        return body

    async def merge_patch(self, url, body):
        target = self.objects[url.removesuffix("/status")]
        target.setdefault("status", {}).update(body["status"])
        return copy.deepcopy(target)

    async def list(self, url, *, label_selector=None):
        return []

    async def delete(self, url):
        self.objects.pop(url, None)


def _refusing_budgets() -> MemoryKube:
    """A server "web" in namespace "a" with its ConfigMap, in an API that refuses PodDisruptionBudgets."""
    from httpd24.k8s.rollout_api import path

    server = {"apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdServer",
              "metadata": {"name": "web", "namespace": "a", "uid": "u-1", "generation": 1},
              "spec": {"configMapRef": {"name": "site"}}}
    objects = {path("httpd24.io/v1alpha1", "httpdservers", "a", "web"): server,
               path("v1", "configmaps", "a", "site"): dict(_cm(), metadata={"name": "site", "uid": "c-1", "resourceVersion": "1"})}
    return MemoryKube(objects, refuse="poddisruptionbudgets")


def test_a_refused_disruption_budget_does_not_hold_back_the_rollout():
    from httpd24.k8s.rollout_api import path

    kube = _refusing_budgets()

    async def go():
        c = Controller(kube=kube, gate=Gate(netns="off"), workers=1)  # type: ignore[arg-type]
        await c.reconcile("a", "web")
        return c

    c = asyncio.run(go())
    assert path("apps/v1", "deployments", "a", "web") in kube.objects  # rolled out
    assert path("v1", "services", "a", "web") in kube.objects
    assert [e["reason"] for e in kube.events if e["type"] == "Warning"] == ["DisruptionBudgetFailed"]
    assert "cannot patch" in next(e["message"] for e in kube.events if e["reason"] == "DisruptionBudgetFailed")
    conditions = {x["type"]: x for x in kube.objects[path("httpd24.io/v1alpha1", "httpdservers", "a", "web")]["status"]["conditions"]}
    assert conditions["ConfigValid"]["status"] == "True"
    assert c.written.get(path("policy/v1", "poddisruptionbudgets", "a", "web")) is None  # tried again later


def test_a_refused_budget_is_announced_once_while_the_rollout_reports_on():
    """Each reconcile retries the refused budget, and a finished rollout reports RolledOut: neither event may
    repeat because the other one came in between (found on the real cluster: three identical Events)."""
    from httpd24.k8s.rollout_api import path

    kube = _refusing_budgets()
    dep_url = path("apps/v1", "deployments", "a", "web")

    async def go():
        c = Controller(kube=kube, gate=Gate(netns="off"), workers=1)  # type: ignore[arg-type]
        await c.reconcile("a", "web")
        kube.objects[dep_url]["status"] = {"replicas": 1, "readyReplicas": 1, "updatedReplicas": 1, "availableReplicas": 1}
        for _ in range(3):  # the Deployment's status changes bring reconciles
            c.deps.pop(("a", "web"), None)
            await c.reconcile("a", "web")
        return c

    asyncio.run(go())
    reasons = [e["reason"] for e in kube.events]
    assert reasons.count("DisruptionBudgetFailed") == 1 and reasons.count("RolledOut") == 1, reasons


def _drain(c: Controller) -> set:
    """The keys queued, taken off the queue."""
    keys = {c.queue.get_nowait() for _ in range(c.queue.qsize())}
    c.queued.clear()
    return keys


def _policy_indexes(labels: dict[str, dict], **policies: dict) -> tuple[dict, dict]:
    """kopf's two indexes (:mod:`httpd24.k8s.indexes`) as plain mappings of key -> store (a list)."""
    return ({name: [value] for name, value in labels.items()},
            {name: [PolicyRule.from_body(name, spec)] for name, spec in policies.items()})


@pytest.mark.parametrize("migration", ["asStored", "migrated"])
def test_plan_leaves_out_what_the_namespaces_policies_ignore(migration):
    spec = parse_spec({"configMapRef": {"name": "site"}, "migration": migration})
    whole = rollout.plan("web", "a", spec, _cm())
    p = rollout.plan("web", "a", spec, _cm(), ServerPolicy(Ignored(("HT101",), "HttpdPolicy legacy-mpm")))
    assert p.left_out == 1 and p.left_out_text == "1 finding left out by HttpdPolicy legacy-mpm (HT101 x1)"
    assert sum(p.findings.values()) == sum(whole.findings.values()) - 1
    text = p.files["httpd.conf"].decode()
    assert "MaxClients 150" in text  # not fixed either
    assert ("Require ip 127.0.0.1" in text) is (migration == "migrated")  # the other rules still are
    assert whole.left_out == 0 and ("MaxRequestWorkers 150" in whole.files["httpd.conf"].decode()) is (migration == "migrated")


def test_a_policy_change_requeues_only_the_servers_whose_namespace_it_changes():
    async def go():
        c = _controller()
        for key in (("a", "web"), ("a", "api"), ("b", "web")):
            c.observe_server(*key, {"configMapRef": {"name": "site"}})
        _drain(c)
        labels = {"a": {}, "b": {"team": "legacy"}}
        c.observe_policies(*_policy_indexes(labels, mpm={"namespaces": ["a"], "ignore": ["HT101", "HT102"]}))
        assert _drain(c) == {("a", "web"), ("a", "api")}
        for ns in "ab":  # what the reconciles read
            c.policies[ns] = c.policy_in(ns)
        assert c.policies["a"] == ServerPolicy(Ignored(("HT101", "HT102"), "HttpdPolicy mpm"))
        assert c.policies["b"] == ServerPolicy()
        c.observe_policies(*_policy_indexes(labels, mpm={"namespaces": ["a"], "ignore": ["HT101", "HT102"]}))
        assert _drain(c) == set()  # nothing changed for anyone
        selector = {"namespaceSelector": {"matchLabels": {"team": "legacy"}}, "ignore": ["HT101"]}
        indexes = _policy_indexes(labels, mpm={"namespaces": ["a"], "ignore": ["HT101", "HT102"]}, legacy=selector)
        c.observe_policies(*indexes, namespace="a")  # a namespace event looks at that namespace only
        assert _drain(c) == set()
        c.observe_policies(*indexes, namespace="b")
        assert _drain(c) == {("b", "web")}
        c.policies["b"] = c.policy_in("b")
        # Changed defaults are the policy's too: the plans of its namespaces read them.
        selector = {**selector, "defaults": "keep-2.2"}
        c.observe_policies(*_policy_indexes(labels, mpm={"namespaces": ["a"], "ignore": ["HT101", "HT102"]}, legacy=selector))
        assert _drain(c) == {("b", "web")}

    asyncio.run(go())


def test_the_status_counts_what_policies_leave_out_and_follows_a_policy_change():
    from httpd24.k8s.rollout_api import path

    kube = _refusing_budgets()
    url = path("httpd24.io/v1alpha1", "httpdservers", "a", "web")

    async def go():
        c = Controller(kube=kube, gate=Gate(netns="off"), workers=1)  # type: ignore[arg-type]
        c.observe_policies(*_policy_indexes({"a": {}}, mpm={"ignore": ["HT101"]}))
        await c.reconcile("a", "web")
        leaving = copy.deepcopy(kube.objects[url]["status"])
        c.observe_policies(*_policy_indexes({"a": {}}))  # the policy is deleted
        await c.reconcile("a", "web")
        return leaving, kube.objects[url]["status"]

    leaving, counting = asyncio.run(go())
    assert leaving["findings"]["leftOut"] == 1 and leaving["findings"]["warning"] == 0
    migrated = next(x for x in leaving["conditions"] if x["type"] == "Migrated")
    assert migrated["message"].endswith("; 1 finding left out by HttpdPolicy mpm (HT101 x1)")
    assert counting["findings"]["leftOut"] == 0 and counting["findings"]["warning"] == 1
    assert "left out" not in next(x for x in counting["conditions"] if x["type"] == "Migrated")["message"]


class WatchKube:
    """Records the metadata watches started; each yields one RESYNC, then waits."""

    def __init__(self):
        self.watched: list[str] = []

    async def watch_metadata(self, url, *, label_selector=None):
        self.watched.append(url)
        yield "RESYNC", {}
        await asyncio.Event().wait()

    async def close(self):
        pass


@pytest.mark.parametrize("namespaces, secret_watches, kept", [
    ((), ["/api/v1/secrets"], {}),
    (("shop", "web"), ["/api/v1/namespaces/shop/secrets", "/api/v1/namespaces/web/secrets"], {}),
    (("shop",), ["/api/v1/namespaces/shop/secrets"], {("web", "tls"): "u/1"}),  # a watch forgets only its own
    (("shop-*",), ["/api/v1/secrets"], {}),  # a glob cannot be watched by name
])
def test_secret_watches_follow_the_served_namespaces(namespaces, secret_watches, kept):
    async def go():
        kube = WatchKube()
        c = Controller(kube=kube, gate=Gate(netns="off"), workers=1, watch_secrets=True, namespaces=namespaces)  # type: ignore[arg-type]
        c.observe_server("shop", "a", {"configMapRef": {"name": "s"}, "secrets": [{"name": "tls"}]})
        c.observe_server("web", "b", {"configMapRef": {"name": "s"}, "secrets": [{"name": "tls"}]})
        c.secret_versions.update({("shop", "tls"): "u/1", ("web", "tls"): "u/1"})
        c.start(resync=0)
        await asyncio.sleep(0.05)
        await c.stop()
        return kube.watched, c.secret_versions

    watched, versions = asyncio.run(go())
    assert sorted(u for u in watched if u.endswith("/secrets")) == secret_watches
    assert "/api/v1/configmaps" in watched
    assert versions == kept  # each watch's first list forgets what it covers

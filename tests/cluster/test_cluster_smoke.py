"""Smoke tests of the local control plane (hack/cluster): real etcd,
kube-apiserver, kube-controller-manager, kube-scheduler and kwok nodes."""

from __future__ import annotations

import json
import ssl
import stat
import textwrap
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cluster_fixture import COMPONENTS, ClusterError, _proc_alive, session_cluster, start_cluster, stop_cluster

pytestmark = pytest.mark.cluster


def _ns(cluster, prefix: str, labels: dict | None = None) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    cluster.kubectl("create", "namespace", name)
    if labels:
        cluster.kubectl("label", "namespace", name, *[f"{k}={v}" for k, v in labels.items()])
    return name


def _json(cluster, *args):
    return json.loads(cluster.kubectl(*args, "-o", "json").stdout)


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: httpd
        image: httpd:2.4
"""


def test_fixture_is_the_session_singleton(cluster):
    assert session_cluster() is cluster
    assert cluster.env["KUBECONFIG"] == str(cluster.kubeconfig)
    assert cluster.env["PATH"].split(":")[0] == str(cluster.bin_dir)
    assert cluster.ca_cert.read_text().startswith("-----BEGIN CERTIFICATE-----")
    assert "PRIVATE KEY" in cluster.ca_key.read_text()
    # the admin user authenticates with a client certificate in system:masters
    who = json.loads(cluster.kubectl("auth", "whoami", "-o", "json").stdout)
    assert who["status"]["userInfo"]["username"] == "admin"
    assert "system:masters" in who["status"]["userInfo"]["groups"]


def test_nodes_are_kwok_nodes_and_ready(cluster):
    nodes = _json(cluster, "get", "nodes")["items"]
    assert len(nodes) >= 1
    for n in nodes:
        assert n["metadata"]["annotations"]["kwok.x-k8s.io/node"] == "fake"
        assert not n["spec"].get("taints")
        ready = [c for c in n["status"]["conditions"] if c["type"] == "Ready"]
        assert ready and ready[0]["status"] == "True"


def test_server_version_is_the_pinned_release(cluster):
    versions = (Path(__file__).resolve().parents[2] / "hack/cluster/versions.env").read_text()
    pinned = [l.split("=", 1)[1] for l in versions.splitlines() if l.startswith("K8S_VERSION=")][0]
    out = json.loads(cluster.kubectl("version", "-o", "json").stdout)
    assert out["serverVersion"]["gitVersion"] == pinned
    assert out["clientVersion"]["gitVersion"] == pinned


def test_deployment_rolls_out_on_kwok_nodes_and_rolls_again(cluster):
    ns = _ns(cluster, "smoke-deploy")
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=DEPLOYMENT)
    cluster.kubectl("rollout", "status", "-n", ns, "deployment/web", "--timeout=90s", timeout=120)
    pods = _json(cluster, "get", "pods", "-n", ns, "-l", "app=web")["items"]
    running = [p for p in pods if p["status"].get("phase") == "Running"]
    assert len(running) == 2
    assert all(p["spec"]["nodeName"].startswith("kwok-node-") for p in running)
    first_rs = {rs["metadata"]["name"] for rs in _json(cluster, "get", "rs", "-n", ns)["items"]}
    assert len(first_rs) == 1

    # change the pod template -> a new ReplicaSet takes over
    cluster.kubectl("set", "env", "-n", ns, "deployment/web", "SMOKE_REVISION=2")
    cluster.kubectl("rollout", "status", "-n", ns, "deployment/web", "--timeout=90s", timeout=120)
    rss = _json(cluster, "get", "rs", "-n", ns)["items"]
    assert len(rss) == 2
    new = [rs for rs in rss if rs["metadata"]["name"] not in first_rs]
    old = [rs for rs in rss if rs["metadata"]["name"] in first_rs]
    assert new[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert new[0]["status"].get("readyReplicas") == 2
    assert old[0]["spec"]["replicas"] == 0
    dep = _json(cluster, "get", "deployment", "web", "-n", ns)
    assert dep["status"]["updatedReplicas"] == 2 and dep["status"]["availableReplicas"] == 2
    cluster.kubectl("delete", "namespace", ns, "--wait=false")


CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.smoke.httpd24.test
spec:
  group: smoke.httpd24.test
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size:
                type: integer
                minimum: 1
              color:
                type: string
                enum: [red, blue]
"""


def test_crd_structural_schema_rejects_invalid_object(cluster):
    cluster.kubectl("apply", "-f", "-", input=CRD)
    cluster.kubectl("wait", "--for=condition=Established", "crd/widgets.smoke.httpd24.test", "--timeout=30s")
    ns = _ns(cluster, "smoke-crd")
    good = "apiVersion: smoke.httpd24.test/v1\nkind: Widget\nmetadata: {name: good}\nspec: {size: 3, color: red}\n"
    bad = "apiVersion: smoke.httpd24.test/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {size: 0, color: green}\n"
    # discovery of a fresh CRD can lag a moment behind Established
    deadline = time.time() + 30
    while True:
        ok = cluster.kubectl("apply", "-n", ns, "-f", "-", input=good, check=False)
        if ok.returncode == 0 or time.time() > deadline:
            break
        time.sleep(0.5)
    assert ok.returncode == 0, ok.stderr
    res = cluster.kubectl("apply", "-n", ns, "-f", "-", input=bad, check=False)
    assert res.returncode != 0
    assert 'The Widget "bad" is invalid' in res.stderr
    assert "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1" in res.stderr
    assert 'spec.color: Unsupported value: "green"' in res.stderr
    names = [w["metadata"]["name"] for w in _json(cluster, "get", "widgets", "-n", ns)["items"]]
    assert names == ["good"]
    cluster.kubectl("delete", "namespace", ns, "--wait=false")


class _Webhook:
    """A validating admission webhook on 127.0.0.1 over TLS (cert from the local CA)."""

    def __init__(self, cert: Path, key: Path):
        self.requests: list[dict] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                req = review["request"]
                hook.requests.append(req)
                obj = req.get("object") or {}
                deny = (obj.get("data") or {}).get("deny") == "true"
                resp = {"uid": req["uid"], "allowed": not deny}
                if deny:
                    resp["status"] = {"code": 403, "message": f"smoke webhook says no to {obj['metadata']['name']}"}
                body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_validating_webhook_is_called_denies_and_sees_dry_run(cluster, tmp_path):
    ns = _ns(cluster, "smoke-webhook", {"httpd24-smoke-webhook": "on"})
    cert, key = cluster.issue_cert(tmp_path / "tls")
    name = f"smoke-{uuid.uuid4().hex[:6]}.httpd24.test"
    with _Webhook(cert, key) as hook:
        vwc = textwrap.dedent(f"""
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingWebhookConfiguration
            metadata: {{name: {name}}}
            webhooks:
            - name: {name}
              clientConfig:
                url: https://127.0.0.1:{hook.port}/validate
                caBundle: {cluster.ca_bundle}
              rules:
              - apiGroups: [""]
                apiVersions: [v1]
                operations: [CREATE, UPDATE]
                resources: [configmaps]
              namespaceSelector:
                matchLabels: {{httpd24-smoke-webhook: "on"}}
              failurePolicy: Fail
              sideEffects: None
              admissionReviewVersions: [v1]
              timeoutSeconds: 5
            """)
        cluster.kubectl("apply", "-f", "-", input=vwc)
        try:
            def cm(n, deny):
                return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {n}, namespace: {ns}}}\ndata: {{deny: '{deny}'}}\n"

            # the apiserver picks up new webhook configurations asynchronously
            deadline = time.time() + 30
            i = 0
            while not hook.requests and time.time() < deadline:
                cluster.kubectl("apply", "-f", "-", input=cm(f"warmup-{i}", "false"))
                i += 1
                time.sleep(0.3)
            assert hook.requests, "the apiserver never called the webhook"
            seen = hook.requests[-1]
            assert seen["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
            assert seen["namespace"] == ns and seen["dryRun"] is False

            denied = cluster.kubectl("apply", "-f", "-", input=cm("forbidden", "true"), check=False)
            assert denied.returncode != 0
            assert f'admission webhook "{name}" denied the request: smoke webhook says no to forbidden' in denied.stderr
            assert cluster.kubectl("get", "configmap", "forbidden", "-n", ns, check=False).returncode != 0

            before = len(hook.requests)
            dry = cluster.kubectl("apply", "--dry-run=server", "-f", "-", input=cm("dry", "false"))
            assert "(server dry run)" in dry.stdout
            dry_reqs = [r for r in hook.requests[before:] if r["name"] == "dry"]
            assert dry_reqs and dry_reqs[-1]["dryRun"] is True
            assert cluster.kubectl("get", "configmap", "dry", "-n", ns, check=False).returncode != 0
        finally:
            cluster.kubectl("delete", "validatingwebhookconfiguration", name, check=False)
            cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)


def test_helm_install_trivial_chart(cluster, tmp_path):
    chart = tmp_path / "smoke"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: smoke\nversion: 0.1.0\nappVersion: '1.0'\n")
    (chart / "values.yaml").write_text("greeting: hello\nreplicas: 1\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
        "data:\n  greeting: {{ .Values.greeting | quote }}\n"
    )
    (chart / "templates" / "deploy.yaml").write_text(DEPLOYMENT.replace("name: web", "name: {{ .Release.Name }}-web")
                                                     .replace("replicas: 2", "replicas: {{ .Values.replicas }}"))
    ns = f"smoke-helm-{uuid.uuid4().hex[:6]}"
    cluster.helm("install", "smoke", str(chart), "-n", ns, "--create-namespace",
                 "--set", "greeting=hi-there", "--wait", "--timeout", "90s")
    listed = json.loads(cluster.helm("list", "-n", ns, "-o", "json").stdout)
    assert [(r["name"], r["status"]) for r in listed] == [("smoke", "deployed")]
    cm = _json(cluster, "get", "configmap", "smoke-cm", "-n", ns)
    assert cm["data"]["greeting"] == "hi-there"
    dep = _json(cluster, "get", "deployment", "smoke-web", "-n", ns)
    assert dep["status"].get("readyReplicas") == 1
    cluster.helm("uninstall", "smoke", "-n", ns)
    assert cluster.kubectl("get", "configmap", "smoke-cm", "-n", ns, check=False).returncode != 0
    cluster.kubectl("delete", "namespace", ns, "--wait=false")


def test_env_and_status_commands(cluster):
    env = cluster.script("env", check=True).stdout
    assert f"export KUBECONFIG={cluster.kubeconfig}" in env
    st = cluster.script("status")
    assert st.returncode == 0, st.stdout + st.stderr
    for name in COMPONENTS:
        assert f"{name}" in st.stdout and "running" in st.stdout
    again = cluster.script("up", check=True)
    assert "already up" in again.stderr
    assert set(cluster.pids()) == set(COMPONENTS)
    assert all(_proc_alive(p) for p in cluster.pids().values())


# ------------------------------------------------------- separate instances
def test_down_leaves_no_process_behind(cluster, tmp_path):
    """A second cluster in its own state dir (its own ports): down kills every pid."""
    other = start_cluster(tmp_path / "c2", bin_dir=cluster.bin_dir, nodes=1)
    try:
        pids = other.pids()
        assert set(pids) == set(COMPONENTS)
        assert all(_proc_alive(p) for p in pids.values())
        assert other.api_url != cluster.api_url
        assert other.kubectl("get", "nodes", "-o", "name").stdout.split() == ["node/kwok-node-0"]
    finally:
        down = stop_cluster(other, remove=False)
    assert down.returncode == 0, down.stderr
    alive = {n: p for n, p in pids.items() if _proc_alive(p)}
    assert alive == {}
    assert other.script("status").returncode != 0
    # the session cluster is untouched
    assert all(_proc_alive(p) for p in cluster.pids().values())
    assert cluster.kubectl("get", "--raw", "/readyz").stdout == "ok"


def test_failed_component_is_named_with_its_log(cluster, tmp_path):
    bad_bin = tmp_path / "bin"
    bad_bin.mkdir()
    for f in cluster.bin_dir.iterdir():
        if f.name != "kube-apiserver" and not f.name.startswith("."):
            (bad_bin / f.name).symlink_to(f.resolve())
    fake = bad_bin / "kube-apiserver"
    fake.write_text("#!/bin/sh\necho 'simulated apiserver crash' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    state = tmp_path / "c3"
    with pytest.raises(ClusterError) as err:
        start_cluster(state, bin_dir=bad_bin, nodes=1, timeout=60)
    msg = str(err.value)
    log = state / "logs" / "kube-apiserver.log"
    assert f"ERROR: kube-apiserver exited during startup (log: {log})" in msg
    assert "simulated apiserver crash" in msg
    # etcd, started before the failure, was stopped again: no process uses the state dir
    assert not any((state / "pids").glob("*.pid"))
    assert _processes_mentioning(str(state)) == []


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmd and _proc_alive(int(d.name)):
                found.append(int(d.name))
    return found


def test_fixture_shared_by_two_directories_starts_one_cluster(cluster, tmp_path):
    """Two test dirs that both re-export the fixture share one cluster, which is gone afterwards."""
    import subprocess
    import sys

    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "conftest.py").write_text("from cluster_fixture import cluster  # noqa: F401\n")
        (tmp_path / d / f"test_{d}.py").write_text(
            "import os\n"
            f"def test_{d}(cluster):\n"
            "    assert cluster.kubectl('get', '--raw', '/readyz').stdout == 'ok'\n"
            f"    with open(os.path.join({str(tmp_path)!r}, 'seen-{d}'), 'w') as f:\n"
            "        f.write(str(cluster.state_dir))\n"
        )
    env = {k: v for k, v in cluster.env.items() if not k.startswith("HTTPD24_CLUSTER")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "a", "b"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout
    seen_a = (tmp_path / "seen-a").read_text()
    assert seen_a == (tmp_path / "seen-b").read_text()
    assert seen_a != str(cluster.state_dir)
    assert _processes_mentioning(seen_a) == []
    assert not Path(seen_a).exists()

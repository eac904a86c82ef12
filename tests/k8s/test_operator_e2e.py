"""The operator end to end on the real local control plane (kube-apiserver, controllers, kwok nodes).

The operator runs as ``httpd24 operator --no-admission`` (the product's own entry point) in a subprocess, so a test can kill and
restart it (``httpd24 operator --no-admission`` still registers the admission handlers and then
refuses to start without a webhook server). Each test has its own namespace.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import yaml

from apache_fixture import httpd  # noqa: F401
from cluster_fixture import cluster  # noqa: F401
from httpd24 import apache
from httpd24.k8s import certs, mainconf, rollout
from httpd24.k8s.models_server import MAIN_KEY, parse_spec

pytestmark = [pytest.mark.cluster, pytest.mark.apache]

REPO = Path(__file__).resolve().parents[2]

CONF_22 = """\
ServerName www.example.test
User daemon
Group daemon
MaxClients {clients}
<Directory />
    Options FollowSymLinks
    AllowOverride None
    Order deny,allow
    Deny from all
</Directory>
AddOutputFilterByType DEFLATE text/html text/plain
<Location /server-status>
    SetHandler server-status
    Order deny,allow
    Deny from all
    Allow from 127.0.0.1
</Location>
"""


class Operator:
    """The operator process; ``kill()`` is SIGKILL (no clean-up), ``start()`` a fresh one."""

    def __init__(self, cluster, log_dir: Path):
        self.cluster = cluster
        self.log_dir = log_dir
        self.proc: subprocess.Popen | None = None
        self.runs = 0

    def start(self) -> None:
        self.runs += 1
        log = open(self.log_dir / f"operator-{self.runs}.log", "wb")
        env = dict(self.cluster.env, HTTPD24_OPERATOR_RESYNC="0", PYTHONUNBUFFERED="1", HTTPD24_WATCH_SECRETS="true")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "httpd24", "operator", "--no-admission", "--metrics-port", "0"],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(self.log_dir.glob("operator-*.log")))


@pytest.fixture(scope="module")
def operator(cluster, tmp_path_factory):  # noqa: F811
    for crd in ("httpdservers", "httpdpolicies"):  # the operator reads what policies leave out
        cluster.kubectl("apply", "--server-side", "-f", str(REPO / "crds" / f"{crd}.yaml"))
        cluster.kubectl("wait", "--for", "condition=established", f"crd/{crd}.httpd24.io", "--timeout=60s")
    op = Operator(cluster, tmp_path_factory.mktemp("operator"))
    op.start()
    yield op
    op.stop()


@pytest.fixture
def ns(cluster):  # noqa: F811
    name = f"op-{uuid.uuid4().hex[:8]}"
    cluster.kubectl("create", "namespace", name)
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


def get(cluster, kind, name, ns):  # noqa: F811
    proc = cluster.kubectl("get", kind, name, "-n", ns, "-o", "json", check=False)
    return json.loads(proc.stdout) if proc.returncode == 0 else None


def listing(cluster, kind, ns, selector=None):  # noqa: F811
    args = ["get", kind, "-n", ns, "-o", "json"] + (["-l", selector] if selector else [])
    return json.loads(cluster.kubectl(*args).stdout)["items"]


def wait_for(what, predicate, timeout=180, operator=None):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if operator is not None and operator.proc is not None and operator.proc.poll() is not None:
            raise AssertionError(f"the operator exited while waiting for {what}:\n{operator.logs()}")
        last = predicate()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}; last={last!r}\n" + (operator.logs() if operator else ""))


def apply(cluster, *objs):  # noqa: F811
    cluster.kubectl("apply", "-f", "-", input="\n---\n".join(yaml.safe_dump(o) for o in objs))


def configmap(name, ns, text):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns,
                                                                   "labels": {"httpd24.io/config": "true"}},
            "data": {"httpd.conf": text}}


def server(name, ns, cm, **spec):
    return {"apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdServer", "metadata": {"name": name, "namespace": ns},
            "spec": {"configMapRef": {"name": cm}, "ports": [{"name": "http", "port": 8080}], **spec}}


def condition(obj, type_):
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == type_:
            return c
    return None


def ready_with(cluster, name, ns, hash_=None):  # noqa: F811
    """The HttpdServer when it is Ready (on ``hash_`` if given) and its Deployment fully rolled out."""
    def check():
        srv = get(cluster, "httpdserver", name, ns)
        st = (srv or {}).get("status") or {}
        if st.get("phase") != "Ready" or st.get("observedGeneration") != srv["metadata"]["generation"]:
            return None
        if hash_ is not None and st.get("configHash") != hash_:
            return None
        return srv
    return check


def expected_plan(cm_obj, srv_obj):
    """What the operator should deploy, computed here from the same inputs."""
    return rollout.plan(srv_obj["metadata"]["name"], srv_obj["metadata"]["namespace"], parse_spec(srv_obj["spec"]), cm_obj)


def deployed_files(cluster, name, ns):  # noqa: F811
    """The files of the ConfigMap the Deployment's pods mount, exactly as stored in the API."""
    dep = get(cluster, "deployment", name, ns)
    vol = next(v for v in dep["spec"]["template"]["spec"]["volumes"] if v["name"] == "config")
    source = vol.get("configMap") or next(s["configMap"] for s in vol["projected"]["sources"] if "configMap" in s)
    cm = get(cluster, "configmap", source["name"], ns)
    return dep, rollout.configmap_files(cm)


def active_replicasets(cluster, name, ns):  # noqa: F811
    return [rs for rs in listing(cluster, "replicasets", ns, f"{rollout.LABEL_SERVER}={name}")
            if (rs["spec"].get("replicas") or 0) > 0]


def test_22_config_rolls_out_on_kwok_and_the_mounted_files_serve_spec_4(cluster, operator, ns, httpd):  # noqa: F811
    cm = configmap("site", ns, CONF_22.format(clients=150))
    srv = server("web", ns, "site", replicas=2)
    apply(cluster, cm, srv)
    live = wait_for("web Ready", ready_with(cluster, "web", ns), operator=operator)

    pods = listing(cluster, "pods", ns, f"{rollout.LABEL_SERVER}=web")
    assert len(pods) == 2
    assert all(p["spec"]["nodeName"].startswith("kwok-node") for p in pods)
    assert all(any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"]["conditions"]) for p in pods)

    dep, files = deployed_files(cluster, "web", ns)
    assert dep["metadata"]["ownerReferences"][0]["uid"] == live["metadata"]["uid"]
    assert dep["spec"]["template"]["metadata"]["annotations"][rollout.ANNOTATION_HASH] == mainconf.config_hash(files)
    assert live["status"]["configHash"] == mainconf.config_hash(files)
    # the main config loads exactly the modules in status.requiredModules
    main = files[MAIN_KEY].decode()
    loaded = [line.split()[1] for line in main.splitlines() if line.strip().startswith("LoadModule")]
    assert loaded == live["status"]["requiredModules"]
    assert {"status_module", "filter_module", "unixd_module"} <= set(loaded)  # spec §7: User, AddOutputFilterByType
    assert "MaxRequestWorkers 150" in files["httpd.conf"].decode()  # migrated form is what the pods mount
    for c in ("ConfigValid", "Migrated", "RolledOut", "Ready"):
        assert condition(live, c)["status"] == "True", condition(live, c)

    # the very files from the API pass real apache2 -t and serve: 200 from the allowed address, 403 otherwise
    extra = mainconf.local_defines(httpd.module_dir, "/etc/mime.types")
    result = apache.configtest(files, MAIN_KEY, [loaded[0]], extra_defines=[mainconf.LOCAL_DEFINE], extra=extra, httpd=httpd)
    assert result.ok, result.output
    with apache.Instance(files, MAIN_KEY, [loaded[0]], defines=[mainconf.LOCAL_DEFINE], extra=extra,
                         allow_listen=True, httpd=httpd) as inst:
        assert inst.request("/server-status").status == 200
        assert inst.request("/server-status", source="127.0.0.2").status == 403

    svc = get(cluster, "service", "web", ns)
    assert svc["spec"]["ports"][0]["port"] == 8080 and svc["spec"]["selector"] == {rollout.LABEL_SERVER: "web"}
    # the disruption budget covers exactly these pods: the real disruption controller counts them
    pdb = wait_for("PodDisruptionBudget counts the pods", lambda: (lambda p: p if ((p or {}).get("status") or {}).get(
        "currentHealthy") == 2 else None)(get(cluster, "poddisruptionbudget", "web", ns)), operator=operator)
    assert pdb["spec"]["maxUnavailable"] == 1 and pdb["status"]["expectedPods"] == 2
    assert pdb["status"]["disruptionsAllowed"] == 1  # a node drain evicts one pod at a time
    assert pdb["metadata"]["ownerReferences"][0]["uid"] == live["metadata"]["uid"]
    # the user's ConfigMap was never written (no kopf annotations, same version)
    user_cm = get(cluster, "configmap", "site", ns)
    assert not any(k.startswith("kopf.") for k in (user_cm["metadata"].get("annotations") or {}))


def test_configmap_change_rolls_out_a_new_replicaset(cluster, operator, ns):  # noqa: F811
    apply(cluster, configmap("site", ns, CONF_22.format(clients=150)), server("web", ns, "site"))
    first = wait_for("first rollout", ready_with(cluster, "web", ns), operator=operator)
    rs_before = {rs["metadata"]["name"] for rs in active_replicasets(cluster, "web", ns)}

    cm2 = configmap("site", ns, CONF_22.format(clients=77))
    apply(cluster, cm2)
    want = expected_plan(get(cluster, "configmap", "site", ns), first).hash
    assert want != first["status"]["configHash"]
    wait_for("second rollout", ready_with(cluster, "web", ns, want), operator=operator)
    rs_after = {rs["metadata"]["name"] for rs in active_replicasets(cluster, "web", ns)}
    assert rs_after and rs_after.isdisjoint(rs_before)  # a new ReplicaSet serves, the old one is scaled down
    _, files = deployed_files(cluster, "web", ns)
    assert "MaxRequestWorkers 77" in files["httpd.conf"].decode()
    # the previous generated ConfigMap is cleaned up once the rollout finished
    wait_for("old generated ConfigMap removed", lambda: [
        c["metadata"]["name"] for c in listing(cluster, "configmaps", ns, f"{rollout.LABEL_SERVER}=web")
    ] == [rollout.configmap_name("web", want)], operator=operator)


def test_change_failing_httpd_t_keeps_the_old_replicaset_and_reports(cluster, operator, ns):  # noqa: F811
    apply(cluster, configmap("site", ns, CONF_22.format(clients=150)), server("web", ns, "site"))
    good = wait_for("first rollout", ready_with(cluster, "web", ns), operator=operator)
    good_hash = good["status"]["configHash"]
    rs_before = {rs["metadata"]["name"] for rs in active_replicasets(cluster, "web", ns)}

    bad = CONF_22.format(clients=150).replace("Options FollowSymLinks", "Options FollowSymLinks Bogus")
    apply(cluster, configmap("site", ns, bad))

    def refused():
        srv = get(cluster, "httpdserver", "web", ns)
        c = condition(srv, "ConfigValid")
        return srv if c and c["status"] == "False" and c["reason"] == "ConfigTestFailed" else None

    srv = wait_for("ConfigValid=False", refused, operator=operator)
    cond = condition(srv, "ConfigValid")
    assert "Illegal option Bogus" in cond["message"] and "httpd.conf" in cond["message"]
    assert srv["status"]["phase"] == "Degraded"
    assert srv["status"]["configHash"] == good_hash and srv["status"]["rejectedHash"] != good_hash
    dep = get(cluster, "deployment", "web", ns)
    assert dep["spec"]["template"]["metadata"]["annotations"][rollout.ANNOTATION_HASH] == good_hash
    time.sleep(2)  # nothing happens later either
    assert {rs["metadata"]["name"] for rs in active_replicasets(cluster, "web", ns)} == rs_before
    events = listing(cluster, "events", ns)
    failed = [e for e in events if e["reason"] == "ConfigTestFailed" and e["involvedObject"]["name"] == "web"]
    assert failed and "Illegal option Bogus" in failed[0]["message"] and failed[0]["type"] == "Warning"

    # fixing it lets the rollout proceed
    apply(cluster, configmap("site", ns, CONF_22.format(clients=99)))
    want = expected_plan(get(cluster, "configmap", "site", ns), srv).hash
    fixed = wait_for("rollout after fix", ready_with(cluster, "web", ns, want), operator=operator)
    assert condition(fixed, "ConfigValid")["status"] == "True"
    assert "rejectedHash" not in fixed["status"]


def test_a_budget_and_service_the_apiserver_refuses_do_not_hold_back_the_rollout(cluster, operator, ns):  # noqa: F811
    """A cluster policy (here a real ValidatingAdmissionPolicy) refuses PodDisruptionBudgets and Services: the pods
    still roll out, each refusal is one Event with the apiserver's own message, and both come once the policy goes."""
    policy = f"no-pdb-{ns}"
    apply(cluster, {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": policy},
        "spec": {"failurePolicy": "Fail",
                 "matchConstraints": {"resourceRules": [
                     {"apiGroups": ["policy"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                      "resources": ["poddisruptionbudgets"]},
                     {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                      "resources": ["services"]}]},
                 "validations": [{"expression": "false", "message": "set by the platform team here"}]},
    }, {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": policy},
        "spec": {"policyName": policy, "validationActions": ["Deny"],
                 "matchResources": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}}}},
    })
    try:
        probe = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "probe", "namespace": ns},
                 "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"probe": "budget"}}}}

        def policy_active():
            proc = cluster.kubectl("create", "--dry-run=server", "-f", "-", input=yaml.safe_dump(probe), check=False)
            return proc.returncode != 0 and "platform team" in proc.stderr

        wait_for("the policy refuses budgets", policy_active, timeout=60)
        apply(cluster, configmap("site", ns, CONF_22.format(clients=150)), server("web", ns, "site"))
        wait_for("web Ready although its budget and Service are refused", ready_with(cluster, "web", ns), operator=operator)
        assert get(cluster, "poddisruptionbudget", "web", ns) is None and get(cluster, "service", "web", ns) is None

        def refusals():
            return sorted(e["reason"] for e in listing(cluster, "events", ns) if e["involvedObject"]["name"] == "web"
                          and e["reason"] in ("DisruptionBudgetFailed", "ServiceFailed"))

        wait_for("the refusals as Events", lambda: len(refusals()) >= 2, timeout=60, operator=operator)
        time.sleep(2)  # the reconciles of the rollout's progress retry both: still one Event each
        assert refusals() == ["DisruptionBudgetFailed", "ServiceFailed"]
        for event in listing(cluster, "events", ns):
            if event["reason"] in ("DisruptionBudgetFailed", "ServiceFailed"):
                assert event["type"] == "Warning" and "set by the platform team here" in event["message"], event
    finally:
        cluster.kubectl("delete", "validatingadmissionpolicybinding", policy, "--ignore-not-found", check=False)
        cluster.kubectl("delete", "validatingadmissionpolicy", policy, "--ignore-not-found", check=False)
    # without the policy, the next reconcile (a change of the server here; else the retry) makes it
    wait_for("the policy gone", lambda: not policy_active(), timeout=60)
    cluster.kubectl("annotate", "httpdserver", "web", "-n", ns, "example.test/touched=1")
    pdb = wait_for("the budget once allowed", lambda: get(cluster, "poddisruptionbudget", "web", ns), timeout=90,
                   operator=operator)
    assert pdb["spec"]["maxUnavailable"] == 1
    svc = wait_for("the Service once allowed", lambda: get(cluster, "service", "web", ns), timeout=90, operator=operator)
    assert svc["spec"]["ports"][0]["port"] == 8080


def test_what_the_server_names_may_come_later_and_may_go(cluster, operator, ns, tmp_path):  # noqa: F811
    """A ConfigMap created after its HttpdServer: Pending with the reason, then the rollout. A Secret of a running
    server deleted: the pods stay as they are, one Event says why; recreated: the pods roll for it."""
    apply(cluster, server("web", ns, "later", secrets=[{"name": "later-tls"}]))

    def waiting():
        srv = get(cluster, "httpdserver", "web", ns)
        c = condition(srv, "ConfigValid")
        return srv if c and c["reason"] == "ConfigMapNotFound" else None

    srv = wait_for("ConfigMapNotFound", waiting, operator=operator)
    assert srv["status"]["phase"] == "Pending" and get(cluster, "deployment", "web", ns) is None
    assert f"ConfigMap {ns}/later not found" in condition(srv, "ConfigValid")["message"]

    ca_pem, ca_key = certs.make_ca("httpd24 e2e CA")
    cert_pem, key_pem = certs.make_serving_cert(ca_pem, ca_key, ["later.example.test"])
    (tmp_path / "tls.crt").write_bytes(cert_pem)
    (tmp_path / "tls.key").write_bytes(key_pem)

    def create_secret():
        cluster.kubectl("create", "secret", "tls", "later-tls", "-n", ns,
                        f"--cert={tmp_path / 'tls.crt'}", f"--key={tmp_path / 'tls.key'}")

    create_secret()
    apply(cluster, configmap("later", ns, CONF_22.format(clients=150)))
    wait_for("Ready once the ConfigMap exists", ready_with(cluster, "web", ns), operator=operator)
    dep = get(cluster, "deployment", "web", ns)
    version = dep["spec"]["template"]["metadata"]["annotations"][rollout.ANNOTATION_SECRETS]

    cluster.kubectl("delete", "secret", "later-tls", "-n", ns)

    def missing_events():
        return [e for e in listing(cluster, "events", ns)
                if e["reason"] == "SecretNotFound" and e["involvedObject"]["name"] == "web"]

    wait_for("SecretNotFound", missing_events, timeout=60, operator=operator)
    cluster.kubectl("annotate", "httpdserver", "web", "-n", ns, "example.test/touched=1")  # one more reconcile
    time.sleep(3)
    [event] = missing_events()
    assert event["type"] == "Warning" and "the running ones keep serving" in event["message"]
    kept = get(cluster, "deployment", "web", ns)
    assert kept["spec"]["template"]["metadata"]["annotations"][rollout.ANNOTATION_SECRETS] == version

    create_secret()  # a new Secret (new uid): the pods roll, since httpd reads certificates only at start
    wait_for("pods rolled for the recreated Secret", lambda: get(cluster, "deployment", "web", ns)["spec"]["template"][
        "metadata"]["annotations"][rollout.ANNOTATION_SECRETS] != version, operator=operator)


def test_a_rule_a_policy_leaves_out_is_neither_counted_nor_fixed_until_the_policy_goes(cluster, operator, ns):  # noqa: F811
    """As admission leaves it out of the ConfigMap's review: the operator, run without the webhooks, reads the
    namespace's HttpdPolicies itself, and a policy deleted later brings the fix in with a rollout. The policy's
    changed defaults (keep-2.2) reach the pods as admission would apply them, and go with it."""
    policy = f"keep-maxclients-{ns}"
    apply(cluster, {"apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdPolicy", "metadata": {"name": policy},
                    "spec": {"mode": "audit", "namespaces": [ns], "ignore": ["HT101"], "defaults": "keep-2.2"}},
          configmap("site", ns, CONF_22.format(clients=150)), server("web", ns, "site"))
    try:
        def leaving_out(left_out, hash_=None):
            ready = ready_with(cluster, "web", ns, hash_)
            return lambda: (lambda srv: srv if srv and srv["status"]["findings"]["leftOut"] == left_out else None)(ready())

        live = wait_for("web Ready, HT101 left out", leaving_out(1), operator=operator)
        assert condition(live, "Migrated")["message"].endswith(f"; 1 finding left out by HttpdPolicy {policy} (HT101 x1)")
        _, files = deployed_files(cluster, "web", ns)
        assert "MaxClients 150" in files["httpd.conf"].decode() and "Require" in files["httpd.conf"].decode()
        assert "EnableSendfile On" in files["httpd.conf"].decode()  # the policy's keep-2.2
        warnings = live["status"]["findings"]["warning"]

        cluster.kubectl("delete", "httpdpolicy", policy)
        want = expected_plan(get(cluster, "configmap", "site", ns), live).hash
        assert want != live["status"]["configHash"]
        live = wait_for("rollout of the fix", leaving_out(0, want), operator=operator)
        assert live["status"]["findings"]["warning"] == warnings + 1
        assert "left out" not in condition(live, "Migrated")["message"]
        _, files = deployed_files(cluster, "web", ns)
        assert "MaxRequestWorkers 150" in files["httpd.conf"].decode()
        assert "EnableSendfile" not in files["httpd.conf"].decode()  # HT302's own choice: 2.4's default
    finally:
        cluster.kubectl("delete", "httpdpolicy", policy, "--ignore-not-found")


def test_extra_modules_and_kept_defaults_reach_the_pods(cluster, operator, ns, httpd):  # noqa: F811
    """`extraModules` loads a module the configuration only tests for (an <IfModule> branch the engine cannot
    call required), and `defaults: keep-2.2` writes 2.2's defaults out: both in the files the pods mount, which
    real apache2 then serves with the branch live."""
    text = ("ServerName www.example.test\n<Directory /usr/local/apache2/htdocs>\n    AllowOverride None\n</Directory>\n"
            "<IfModule mod_headers.c>\n    Header set X-Branch headers-loaded\n</IfModule>\n"
            "<Location />\n    SetHandler server-status\n    Order allow,deny\n    Allow from all\n</Location>\n")
    apply(cluster, configmap("site", ns, text),
          server("web", ns, "site", extraModules=["headers_module"], defaults="keep-2.2"))
    live = wait_for("web Ready", ready_with(cluster, "web", ns), operator=operator)
    assert "headers_module" in live["status"]["requiredModules"]
    _, files = deployed_files(cluster, "web", ns)
    site = files["httpd.conf"].decode()
    assert "EnableSendfile On" in site and "FileETag INode MTime Size" in site, site  # 2.2's defaults, written out
    loaded = [line.split()[1] for line in files[MAIN_KEY].decode().splitlines() if line.strip().startswith("LoadModule")]
    assert "headers_module" in loaded
    extra = mainconf.local_defines(httpd.module_dir, "/etc/mime.types")
    with apache.Instance(files, MAIN_KEY, [loaded[0]], defines=[mainconf.LOCAL_DEFINE], extra=extra,
                         allow_listen=True, httpd=httpd) as inst:
        answer = inst.request("/")
        assert answer.status == 200 and answer.headers.get("X-Branch") == "headers-loaded"


def test_deleting_the_server_removes_what_it_owned(cluster, operator, ns):  # noqa: F811
    apply(cluster, configmap("site", ns, CONF_22.format(clients=150)), server("web", ns, "site"))
    wait_for("rollout", ready_with(cluster, "web", ns), operator=operator)
    cluster.kubectl("delete", "httpdserver", "web", "-n", ns, "--wait=true", "--timeout=60s")

    def gone():
        left = (listing(cluster, "deployments", ns) + listing(cluster, "services", ns)
                + listing(cluster, "configmaps", ns, f"{rollout.LABEL_SERVER}=web")
                + listing(cluster, "replicasets", ns))
        return not left
    wait_for("owned objects garbage-collected", gone, operator=operator)
    assert get(cluster, "configmap", "site", ns) is not None  # the user's ConfigMap stays


def test_gitops_mode_leaves_the_configmap_byte_identical(cluster, operator, ns):  # noqa: F811
    text = CONF_22.format(clients=150)
    apply(cluster, configmap("site", ns, text))
    before = get(cluster, "configmap", "site", ns)
    apply(cluster, server("web", ns, "site", migration="migrated"))
    wait_for("rollout", ready_with(cluster, "web", ns), operator=operator)
    after = get(cluster, "configmap", "site", ns)
    assert after["data"] == {"httpd.conf": text}
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert after["metadata"].get("annotations") == before["metadata"].get("annotations")
    _, files = deployed_files(cluster, "web", ns)
    assert "MaxRequestWorkers 150" in files["httpd.conf"].decode() and "MaxClients" not in files["httpd.conf"].decode()

    # asStored deploys the bytes as they are
    apply(cluster, server("web", ns, "site", migration="asStored"))
    srv = get(cluster, "httpdserver", "web", ns)
    want = expected_plan(after, srv).hash
    wait_for("asStored rollout", ready_with(cluster, "web", ns, want), operator=operator)
    _, files = deployed_files(cluster, "web", ns)
    assert files["httpd.conf"].decode() == text


def test_restart_in_the_middle_of_a_rollout_ends_in_the_same_state(cluster, operator, ns):  # noqa: F811
    apply(cluster, configmap("site", ns, CONF_22.format(clients=150)), server("web", ns, "site", replicas=3))
    first = wait_for("first rollout", ready_with(cluster, "web", ns), operator=operator)

    apply(cluster, configmap("site", ns, CONF_22.format(clients=42)))
    want = expected_plan(get(cluster, "configmap", "site", ns), first).hash
    # kill the operator as soon as the Deployment carries the new hash, before the rollout is done
    wait_for("new hash on the Deployment", lambda: get(cluster, "deployment", "web", ns)["spec"]["template"]["metadata"]
             ["annotations"][rollout.ANNOTATION_HASH] == want, operator=operator)
    operator.kill()
    try:
        time.sleep(1)
        operator.start()
        srv = wait_for("rollout after restart", ready_with(cluster, "web", ns, want), operator=operator)
    finally:
        if operator.proc is None or operator.proc.poll() is not None:
            operator.start()
    for c in ("ConfigValid", "RolledOut", "Ready"):
        assert condition(srv, c)["status"] == "True"
    assert srv["status"]["readyReplicas"] == 3 and srv["status"]["updatedReplicas"] == 3
    rs = active_replicasets(cluster, "web", ns)
    assert len(rs) == 1 and rs[0]["spec"]["template"]["metadata"]["annotations"][rollout.ANNOTATION_HASH] == want
    wait_for("only the current generated ConfigMap", lambda: [
        c["metadata"]["name"] for c in listing(cluster, "configmaps", ns, f"{rollout.LABEL_SERVER}=web")
    ] == [rollout.configmap_name("web", want)], operator=operator)


TLS_22 = """\
ServerName tls.example.test
SSLEngine on
SSLCertificateFile secrets/site-tls/tls.crt
SSLCertificateKeyFile secrets/site-tls/tls.key
<Location /server-status>
    SetHandler server-status
    Order deny,allow
    Deny from all
    Allow from 127.0.0.1
</Location>
"""


def test_tls_secret_is_mounted_next_to_the_config_and_serves_https(cluster, operator, ns, httpd, tmp_path):  # noqa: F811
    ca_pem, ca_key = certs.make_ca("httpd24 e2e CA")
    cert_pem, key_pem = certs.make_serving_cert(ca_pem, ca_key, ["tls.example.test", "127.0.0.1"])
    (tmp_path / "tls.crt").write_bytes(cert_pem)
    (tmp_path / "tls.key").write_bytes(key_pem)
    cluster.kubectl("create", "secret", "tls", "site-tls", "-n", ns,
                    f"--cert={tmp_path / 'tls.crt'}", f"--key={tmp_path / 'tls.key'}")
    srv = server("tls", ns, "tls-site", ports=[{"name": "https", "port": 8443}], secrets=[{"name": "site-tls"}])
    apply(cluster, configmap("tls-site", ns, TLS_22), srv)
    live = wait_for("tls Ready", ready_with(cluster, "tls", ns), operator=operator)
    assert live["spec"]["secrets"] == [{"name": "site-tls", "keys": ["tls.crt", "tls.key"]}]  # defaulted by the CRD

    dep, files = deployed_files(cluster, "tls", ns)
    assert not any(name.startswith("secrets/") for name in files)  # the key never enters a ConfigMap
    config = next(v for v in dep["spec"]["template"]["spec"]["volumes"] if v["name"] == "config")
    items = [i for s in config["projected"]["sources"] if "secret" in s for i in s["secret"]["items"]]
    assert [(i["key"], i["path"]) for i in items] == [("tls.crt", "secrets/site-tls/tls.crt"), ("tls.key", "secrets/site-tls/tls.key")]
    secret_files = [i["path"] for i in items]
    assert live["status"]["configHash"] == mainconf.config_hash(files, secret_files)
    assert "ssl_module" in live["status"]["requiredModules"]

    # What a pod sees at its ServerRoot: the generated ConfigMap's files and the Secret's keys, as projected.
    secret = get(cluster, "secret", "site-tls", ns)
    mounted = dict(files)
    mounted.update({i["path"]: base64.b64decode(secret["data"][i["key"]]) for i in items})
    loaded = [line.split()[1] for line in files[MAIN_KEY].decode().splitlines() if line.strip().startswith("LoadModule")]
    extra = mainconf.local_defines(httpd.module_dir, "/etc/mime.types")
    with apache.Instance(mounted, MAIN_KEY, [loaded[0]], defines=[mainconf.LOCAL_DEFINE], extra=extra,
                        allow_listen=True, httpd=httpd) as inst:  # the main config's Listen is pod-only
        context = ssl.create_default_context(cadata=ca_pem.decode())
        for source, status in (("127.0.0.1", 200), ("127.0.0.2", 403)):
            conn = http.client.HTTPSConnection("127.0.0.1", inst.port, context=context, source_address=(source, 0), timeout=10)
            conn.request("GET", "/server-status")
            assert conn.getresponse().status == status
            assert conn.sock.getpeercert()["subjectAltName"][0] == ("DNS", "tls.example.test")
            conn.close()

    # A renewed certificate: same configuration, new pods (httpd reads certificates only at start).
    renewed_pem, renewed_key = certs.make_serving_cert(ca_pem, ca_key, ["tls.example.test", "127.0.0.1"])
    (tmp_path / "tls.crt").write_bytes(renewed_pem)
    (tmp_path / "tls.key").write_bytes(renewed_key)
    renewed = cluster.kubectl("create", "secret", "tls", "site-tls", "-n", ns, f"--cert={tmp_path / 'tls.crt'}",
                              f"--key={tmp_path / 'tls.key'}", "--dry-run=client", "-o", "yaml").stdout
    cluster.kubectl("apply", "-f", "-", input=renewed)
    before = dep["spec"]["template"]["metadata"]["annotations"][rollout.ANNOTATION_SECRETS]
    rolled = wait_for("pods rolled for the renewed Secret", lambda: (lambda d: d if d["spec"]["template"]["metadata"][
        "annotations"][rollout.ANNOTATION_SECRETS] != before else None)(get(cluster, "deployment", "tls", ns)), operator=operator)
    assert rolled["spec"]["template"]["metadata"]["annotations"][rollout.ANNOTATION_HASH] == live["status"]["configHash"]
    wait_for("a second ReplicaSet", lambda: len(listing(cluster, "replicasets", ns, f"{rollout.LABEL_SERVER}=tls")) == 2,
             operator=operator)

    # A reference to a key the Secret list does not mount fails the gate; the pods keep the old configuration.
    apply(cluster, configmap("tls-site", ns, TLS_22.replace("tls.key", "other.key")))
    failed = wait_for("ConfigTestFailed", lambda: (lambda s: s if (condition(s, "ConfigValid") or {}).get("reason")
                      == "ConfigTestFailed" else None)(get(cluster, "httpdserver", "tls", ns)), operator=operator)
    message = condition(failed, "ConfigValid")["message"]
    assert "'secrets/site-tls/other.key' does not exist or is empty" in message
    assert message.endswith("-> the pods have secrets/site-tls/tls.crt, secrets/site-tls/tls.key under secrets/; "
                            "list the Secret holding that file, with the key, in spec.secrets (name, keys)")
    assert failed["status"]["configHash"] == live["status"]["configHash"]


CONTENT_22 = """\
ServerName content.example.test
DocumentRoot "${HTTPD24_CONTENT}/site"
<Directory "${HTTPD24_CONTENT}/site">
    Order allow,deny
    Allow from all
</Directory>
"""


def test_content_volumes_are_mounted_where_the_configuration_names_them(cluster, operator, ns, httpd):  # noqa: F811
    page = "<h1>served from a content volume</h1>\n"
    site = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "site-html", "namespace": ns},
            "data": {"index.html": page}}
    # A statically bound claim (the PV controller binds it; the scheduler places pods that use it on kwok nodes).
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"{ns}-media"},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadOnlyMany"], "storageClassName": "",
                   "persistentVolumeReclaimPolicy": "Retain", "hostPath": {"path": "/srv/media"},
                   "claimRef": {"namespace": ns, "name": "media"}}}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "media", "namespace": ns},
           "spec": {"accessModes": ["ReadOnlyMany"], "storageClassName": "", "volumeName": f"{ns}-media",
                    "resources": {"requests": {"storage": "1Gi"}}}}
    content = [{"name": "site", "configMap": {"name": "site-html"}},
               {"name": "media", "persistentVolumeClaim": {"claimName": "media"}}]
    srv = server("content", ns, "content-site", replicas=2, content=content)
    try:
        apply(cluster, site, pv, pvc, configmap("content-site", ns, CONTENT_22), srv)
        live = wait_for("content Ready", ready_with(cluster, "content", ns), operator=operator)
        pods = listing(cluster, "pods", ns, f"{rollout.LABEL_SERVER}=content")
        assert len(pods) == 2 and all(p["spec"]["nodeName"].startswith("kwok-node") for p in pods)
    finally:
        cluster.kubectl("delete", "pv", f"{ns}-media", "--wait=false", check=False)

    dep, files = deployed_files(cluster, "content", ns)
    pod = dep["spec"]["template"]["spec"]
    assert [v for v in pod["volumes"] if v["name"].startswith("content-")] == [
        {"name": "content-site", "configMap": {"name": "site-html", "defaultMode": 0o644}},  # defaulted by the API
        {"name": "content-media", "persistentVolumeClaim": {"claimName": "media", "readOnly": True}},
    ]
    assert [m for m in pod["containers"][0]["volumeMounts"] if m["name"].startswith("content-")] == [
        {"name": "content-site", "mountPath": "/srv/httpd24/site", "readOnly": True},
        {"name": "content-media", "mountPath": "/srv/httpd24/media", "readOnly": True},
    ]
    assert live["status"]["configHash"] == mainconf.config_hash(files, (), ["site", "media"])
    assert 'Require all granted' in files["httpd.conf"].decode()  # migrated, and the gate passed it

    # What a pod sees: the generated files at its ServerRoot and the ConfigMap's keys at /srv/httpd24/site
    # (here a directory of the test, which ${HTTPD24_CONTENT} names, as the gate's stand-ins do).
    served = Path(tempfile.mkdtemp(prefix="httpd24-content-"))  # pytest's tmp_path is closed to httpd's user
    try:
        served.chmod(0o755)
        (served / "site").mkdir(mode=0o755)
        for key, value in get(cluster, "configmap", "site-html", ns)["data"].items():
            (served / "site" / key).write_text(value)
        loaded = [line.split()[1] for line in files[MAIN_KEY].decode().splitlines() if line.strip().startswith("LoadModule")]
        extra = mainconf.local_defines(httpd.module_dir, "/etc/mime.types", str(served))
        with apache.Instance(files, MAIN_KEY, [loaded[0]], defines=[mainconf.LOCAL_DEFINE], extra=extra,
                             allow_listen=True, httpd=httpd) as inst:
            response = inst.request("/index.html")
            assert (response.status, response.body.decode()) == (200, page)
    finally:
        shutil.rmtree(served)

    # The CRD refuses a volume with two sources, or none, and two volumes of one name; kubectl says why.
    for bad, why in (([{"name": "site", "configMap": {"name": "a"}, "persistentVolumeClaim": {"claimName": "b"}}],
                      "set exactly one of persistentVolumeClaim and configMap"),
                     ([{"name": "site"}], "set exactly one of persistentVolumeClaim and configMap"),
                     ([{"name": "site", "configMap": {"name": "a"}}, {"name": "site", "configMap": {"name": "b"}}],
                      "Duplicate value")):
        proc = cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump(server("bad", ns, "content-site", content=bad)),
                               check=False)
        assert proc.returncode != 0 and why in proc.stderr, proc.stderr
    assert get(cluster, "httpdserver", "bad", ns) is None

"""The chart on the real local control plane (kube-apiserver with RBAC and admission, kwok nodes).

* in-cluster mode: install into a namespace enforcing the restricted Pod Security profile (the
  apiserver admits the operator's pods or the rollout never becomes available), every object
  accepted, upgrade keeps the certificate, uninstall leaves no cluster-scoped object but the CRDs;
* URL mode + the operator run here with a token of the chart's ServiceAccount: the chart's
  webhooks deny a 2.2 ConfigMap (finding lines in kubectl's stderr), migrate another, and an
  HttpdServer rolls out on kwok, all with exactly the chart's permissions; that identity is refused
  Secrets, Deployments it does not own, and anything outside its namespaces.

The webhooks are scoped to this module's namespaces (webhook.namespaceSelector) so other tests
sharing the session cluster never reach them.
"""

from __future__ import annotations

import json
import uuid

import pytest
import yaml
from conftest import CHART, REPO, load_demo

pytestmark = pytest.mark.cluster

demo = load_demo()


def manifest_objects(cluster, release, namespace):
    text = cluster.helm("get", "manifest", release, "-n", namespace).stdout
    return [d for d in yaml.safe_load_all(text) if d]


def cluster_scoped_of(cluster, release) -> list[str]:
    kinds = cluster.kubectl("api-resources", "--namespaced=false", "--verbs=list", "-o", "name").stdout.split()
    out = []
    for kind in kinds:
        proc = cluster.kubectl("get", kind, "-l", f"app.kubernetes.io/instance={release}", "-o", "name", check=False)
        out += proc.stdout.split()
    return out


# -- in-cluster mode ------------------------------------------------------------------------------
def test_install_upgrade_uninstall(cluster):
    tag = uuid.uuid4().hex[:6]
    release, ns = f"pkg-{tag}", f"pkg-system-{tag}"
    full = f"{release}-httpd24"
    cluster.kubectl("create", "namespace", ns)
    cluster.kubectl("label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted",
                    "pod-security.kubernetes.io/enforce-version=latest")
    scope = ["--set-string", f"webhook.namespaceSelector.matchLabels.httpd24\\.io/test={tag}"]
    try:
        cluster.helm("install", release, CHART, "-n", ns, "--wait", "--timeout", "120s", *scope)
        # every object of the release exists in the apiserver as rendered
        objects = manifest_objects(cluster, release, ns)
        assert {o["kind"] for o in objects} >= {"Deployment", "Service", "Secret", "ServiceAccount", "ClusterRole",
                                                "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                                                "ValidatingAdmissionPolicy", "PodDisruptionBudget"}
        for o in objects:
            args = ["get", o["kind"].lower(), o["metadata"]["name"], "-o", "json"]
            if o["metadata"].get("namespace") or o["kind"] not in (
                    "ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration",
                    "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"):
                args += ["-n", o["metadata"].get("namespace") or ns]
            live = json.loads(cluster.kubectl(*args).stdout)
            assert live["metadata"]["labels"]["app.kubernetes.io/instance"] == release
        # the restricted profile admitted the operator's pod (a ReplicaSet's pod creation would be refused)
        pods = json.loads(cluster.kubectl("get", "pods", "-n", ns, "-o", "json").stdout)["items"]
        assert pods and all(p["status"]["phase"] == "Running" for p in pods)
        events = cluster.kubectl("get", "events", "-n", ns, "-o", "json").stdout
        assert "violates PodSecurity" not in events
        dep = json.loads(cluster.kubectl("get", "deployment", full, "-n", ns, "-o", "json").stdout)
        assert dep["status"].get("availableReplicas") == 1

        def certs():
            secret = json.loads(cluster.kubectl("get", "secret", f"{full}-webhook-tls", "-n", ns, "-o", "json").stdout)
            bundles = [json.loads(cluster.kubectl("get", kind, full, "-o", "json").stdout)["webhooks"][0]
                       ["clientConfig"]["caBundle"]
                       for kind in ("validatingwebhookconfiguration", "mutatingwebhookconfiguration")]
            return secret["data"], bundles

        before, bundles_before = certs()
        assert bundles_before == [before["ca.crt"]] * 2
        cluster.helm("upgrade", release, CHART, "-n", ns, "--wait", "--timeout", "120s", *scope,
                     "--set", "webhook.timeoutSeconds=5")
        after, bundles_after = certs()
        assert after == before, "helm upgrade replaced the webhook certificate"
        assert bundles_after == bundles_before
        hook = json.loads(cluster.kubectl("get", "validatingwebhookconfiguration", full, "-o", "json").stdout)
        assert hook["webhooks"][0]["timeoutSeconds"] == 5, "the upgrade did not apply"
        assert cluster.helm("history", release, "-n", ns, "-o", "json").stdout.count('"revision"') == 2
    finally:
        cluster.helm("uninstall", release, "-n", ns, "--wait", check=False)
    assert cluster_scoped_of(cluster, release) == []
    for crd in ("httpdservers.httpd24.io", "httpdpolicies.httpd24.io"):
        assert cluster.kubectl("get", "crd", crd, check=False).returncode == 0, "CRDs stay, as Helm does"
    cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)


# -- URL mode, the operator here as the chart's ServiceAccount -----------------------------------------
@pytest.fixture(scope="module")
def local(cluster, tmp_path_factory):
    tag = uuid.uuid4().hex[:6]
    names = {"release": f"dev-{tag}", "system": f"dev-system-{tag}", "enforce": f"dev-enforce-{tag}",
             "migrate": f"dev-migrate-{tag}", "other": f"dev-other-{tag}", "tag": tag}
    for key, mode in (("enforce", "enforce"), ("migrate", "migrate"), ("other", None)):
        cluster.kubectl("create", "namespace", names[key])
        labels = [f"httpd24.io/test={tag}"] + ([f"httpd24.io/mode={mode}"] if mode else [])
        cluster.kubectl("label", "namespace", names[key], *labels)
    cluster.kubectl("create", "namespace", names["system"])
    work = tmp_path_factory.mktemp("local-operator")
    kube = demo.Kube(cluster.env, cluster.state_dir)
    operator = demo.LocalOperator(work, work / "kubeconfig", operator_namespace=names["system"],
                                  namespaces=(names["enforce"], names["migrate"]),
                                  env=dict(cluster.env, HTTPD24_WATCH_SECRETS="true"))
    cluster.helm(
        "install", names["release"], CHART, "-n", names["system"], "--wait",
        "--set", "operator.enabled=false",
        "--set", f"webhook.url={operator.url}", "--set", f"webhook.caBundle={operator.ca_bundle}",
        "--set", f"operator.watchNamespaces={{{names['enforce']},{names['migrate']}}}",
        "--set", "operator.watchSecrets=true",  # read in those namespaces only: checked below
        "--set-string", f"webhook.namespaceSelector.matchLabels.httpd24\\.io/test={tag}",
    )
    demo.token_kubeconfig(kube, names["system"], f"{names['release']}-httpd24", operator.kubeconfig)
    operator.start()
    names.update(kube=kube, operator=operator, kubeconfig=operator.kubeconfig)
    yield names
    operator.stop()
    cluster.helm("uninstall", names["release"], "-n", names["system"], "--wait", check=False)
    for key in ("enforce", "migrate", "other", "system"):
        cluster.kubectl("delete", "namespace", names[key], "--wait=false", check=False)


def example(name: str, namespace: str) -> list[dict]:
    docs = [d for d in yaml.safe_load_all((REPO / "examples" / name).read_text()) if d]
    for d in docs:
        d["metadata"]["namespace"] = namespace
    return docs


def test_chart_webhook_by_url_denies_a_22_configmap(cluster, local):
    from httpd24 import api
    from httpd24.config import ConfigSet
    from httpd24.engine import Severity
    from httpd24.k8s import review

    cm = example("debian-wheezy-apache2.yaml", local["enforce"])[0]
    proc = cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump(cm), check=False)
    assert proc.returncode != 0
    assert 'admission webhook "validate.configmaps.httpd24.io" denied the request' in proc.stderr
    assert "(httpd24 mode: enforce)" in proc.stderr
    # one line per error finding, key:line: CODE message -> replacement, as the engine reports them
    cs = ConfigSet.from_mapping({k: v.encode() for k, v in cm["data"].items()}, entry="apache2.conf",
                                server_root=review.DEFAULT_SERVER_ROOT)  # where the operator mounts the keys
    errors = [f for f in api.lint(cs) if f.severity == Severity.ERROR]
    assert errors
    for f in errors:
        line = f"{f.file}:{f.line}: {f.code} {f.message}"
        assert line in proc.stderr, f"missing from kubectl's stderr: {line}\n{proc.stderr}"
    assert cluster.kubectl("get", "configmap", cm["metadata"]["name"], "-n", local["enforce"],
                           check=False).returncode != 0


def test_migrate_and_rollout_as_the_service_account(cluster, local):
    ns = local["migrate"]
    cm, server = example("server-info-22.yaml", ns)
    proc = cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump(cm))
    assert "httpd24 migrated HT501=2" in proc.stderr
    stored = json.loads(cluster.kubectl("get", "configmap", "server-info", "-n", ns, "-o", "json").stdout)
    assert "Order deny,allow" not in stored["data"]["httpd.conf"]
    assert stored["data"]["httpd.conf"].count("Require host .example.com") == 2
    cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump(server))

    def ready():
        hs = json.loads(cluster.kubectl("get", "httpdserver", "server-info", "-n", ns, "-o", "json").stdout)
        return hs if (hs.get("status") or {}).get("phase") == "Ready" else None

    hs = demo.wait_for("HttpdServer Ready", ready, 120, local["operator"])
    assert {c["type"]: c["status"] for c in hs["status"]["conditions"]}["ConfigValid"] == "True"
    pods = json.loads(cluster.kubectl("get", "pods", "-n", ns, "-l", "httpd24.io/server=server-info",
                                      "-o", "json").stdout)["items"]
    assert len(pods) == 2
    for pod in pods:
        assert pod["spec"]["nodeName"].startswith("kwok-node-")
        assert {c["type"]: c["status"] for c in pod["status"]["conditions"]}["Ready"] == "True"
    dep = json.loads(cluster.kubectl("get", "deployment", "server-info", "-n", ns, "-o", "json").stdout)
    assert dep["metadata"]["ownerReferences"][0]["kind"] == "HttpdServer"
    pdb = json.loads(cluster.kubectl("get", "poddisruptionbudget", "server-info", "-n", ns, "-o", "json").stdout)
    assert pdb["metadata"]["ownerReferences"][0]["kind"] == "HttpdServer"  # made under the chart's policy
    # nothing the operator needed was refused
    log = local["operator"].logs(tail=200_000)
    assert "forbidden" not in log.lower(), log[-3000:]


def _can_i(local, *args) -> str:
    return local["kube"].kubectl("auth", "can-i", *args, kubeconfig=local["kubeconfig"], check=False).stdout.strip()


def test_service_account_is_refused_what_it_does_not_own(cluster, local):
    kube, kc = local["kube"], local["kubeconfig"]
    who = kube.kubectl("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}", kubeconfig=kc).stdout
    assert who == f"system:serviceaccount:{local['system']}:{local['release']}-httpd24"
    # what it uses
    for args in (["watch", "httpdservers.httpd24.io", "-A"], ["list", "configmaps", "-A"],
                 ["watch", "secrets", "-n", local["migrate"]],  # operator.watchSecrets, in its namespaces only
                 ["patch", "deployments", "-n", local["migrate"]], ["patch", "httpdservers.httpd24.io", "--subresource=status", "-n", local["migrate"]]):
        assert _can_i(local, *args) == "yes", args
    # what it never may
    for args in (["get", "secrets", "-n", "kube-system"], ["list", "secrets", "-A"],
                 ["get", "secrets", "-n", local["system"]],
                 ["create", "deployments", "-n", local["other"]], ["patch", "deployments", "-n", "kube-system"],
                 ["delete", "deployments", "-n", local["migrate"]], ["update", "deployments", "-n", local["migrate"]],
                 ["create", "clusterrolebindings"], ["create", "rolebindings", "-n", local["migrate"]],
                 ["create", "pods", "-n", local["migrate"]], ["*", "*"],
                 ["create", "validatingwebhookconfigurations"]):
        assert _can_i(local, *args) == "no", args

    # real requests, refused by the apiserver
    secrets = kube.kubectl("get", "secrets", "-n", "kube-system", kubeconfig=kc, check=False)
    assert secrets.returncode != 0 and "Forbidden" in secrets.stderr and 'cannot list resource "secrets"' in secrets.stderr
    outside = kube.kubectl("create", "deployment", "rogue", "--image=httpd:2.4", "-n", local["other"],
                           kubeconfig=kc, check=False)
    assert outside.returncode != 0 and 'cannot create resource "deployments"' in outside.stderr
    # inside its namespaces RBAC allows create/patch, and the chart's policy allows only what it owns
    unowned = kube.kubectl("create", "deployment", "rogue", "--image=httpd:2.4", "-n", local["migrate"],
                           kubeconfig=kc, check=False)
    assert unowned.returncode != 0, unowned.stdout
    assert "may only create deployments it owns" in unowned.stderr, unowned.stderr
    cluster.kubectl("create", "deployment", "users-app", "--image=httpd:2.4", "-n", local["migrate"])
    hijack = kube.kubectl("label", "deployment", "users-app", "-n", local["migrate"],
                          "app.kubernetes.io/managed-by=httpd24-operator", kubeconfig=kc, check=False)
    assert hijack.returncode != 0 and "may only update deployments it owns" in hijack.stderr, hijack.stderr
    cluster.kubectl("create", "configmap", "users-config", "--from-literal=a=b", "-n", local["migrate"])
    delete = kube.kubectl("delete", "configmap", "users-config", "-n", local["migrate"], kubeconfig=kc, check=False)
    assert delete.returncode != 0 and "may only delete configmaps it owns" in delete.stderr, delete.stderr
    assert cluster.kubectl("get", "configmap", "users-config", "-n", local["migrate"]).returncode == 0
    # the same requests from the cluster admin are not affected by the policy
    cluster.kubectl("label", "deployment", "users-app", "-n", local["migrate"], "team=web")

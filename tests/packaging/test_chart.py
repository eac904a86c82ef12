"""The Helm chart rendered by the real helm: lint, labels, Pod Security, RBAC, webhooks, certificates, values."""

from __future__ import annotations

import base64
import datetime
import filecmp
import json

import jsonschema
import pytest
from conftest import CHART, REPO, by_kind, one
from cryptography import x509
from httpd24.k8s import webhooks

STANDARD_LABELS = ("app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
                   "app.kubernetes.io/managed-by", "helm.sh/chart")


def test_lint_is_clean(render):
    proc = render.run("lint", "--strict", CHART)
    assert "[WARNING]" not in proc.stdout and "[ERROR]" not in proc.stdout, proc.stdout
    assert "1 chart(s) linted, 0 chart(s) failed" in proc.stdout
    # the options that change what is rendered lint cleanly too
    for sets in (["certManager.enabled=true"], ["webhook.url=https://127.0.0.1:9443", "operator.enabled=false"],
                 ["networkPolicy.enabled=true", "serviceMonitor.enabled=true", "operator.watchNamespaces={a,b}"]):
        args = [a for s in sets for a in ("--set", s)]
        proc = render.run("lint", "--strict", CHART, *args)
        assert "[WARNING]" not in proc.stdout and "[ERROR]" not in proc.stdout, (sets, proc.stdout)


def test_crds_are_the_repository_crds():
    repo = sorted(p.name for p in (REPO / "crds").glob("*.yaml"))
    chart = sorted(p.name for p in (CHART / "crds").glob("*.yaml"))
    assert repo == chart, "charts/httpd24/crds/ must hold exactly the files of crds/ (cp crds/*.yaml charts/httpd24/crds/)"
    for name in repo:
        assert filecmp.cmp(REPO / "crds" / name, CHART / "crds" / name, shallow=False), (
            f"charts/httpd24/crds/{name} differs from crds/{name}: cp crds/{name} charts/httpd24/crds/")


def test_default_render_objects_and_labels(render):
    docs = render.template()
    kinds = sorted(d["kind"] for d in docs)
    assert kinds == sorted([
        "ServiceAccount", "Secret", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding",
        "Service", "Deployment", "PodDisruptionBudget", "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
    ])
    for d in docs:
        labels = d["metadata"].get("labels") or {}
        missing = [k for k in STANDARD_LABELS if k not in labels]
        assert not missing, f"{d['kind']} {d['metadata']['name']} lacks {missing}"
        assert labels["app.kubernetes.io/instance"] == "httpd24"
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
    dep = one(docs, "Deployment")
    assert dep["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"] == "httpd24"
    selector = dep["spec"]["selector"]["matchLabels"]
    assert "app.kubernetes.io/version" not in selector, "a selector must not change on upgrades"
    assert one(docs, "Service")["spec"]["selector"] == selector
    assert one(docs, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"] == selector


def test_restricted_pod_security(render):
    pod = one(render.template(), "Deployment")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["securityContext"]["runAsUser"] != 0
    for c in pod["containers"]:
        sc = c["securityContext"]
        assert sc["allowPrivilegeEscalation"] is False
        assert sc["readOnlyRootFilesystem"] is True
        assert sc["capabilities"] == {"drop": ["ALL"]}
        assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
        # a read-only root needs a writable /tmp for httpd -t and the review workers
        assert any(m["mountPath"] == "/tmp" for m in c["volumeMounts"])
        assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert not any("hostPath" in v for v in pod["volumes"])


def test_operator_arguments_are_options_of_httpd24_operator(render):
    import argparse

    from httpd24.k8s import main

    docs = render.template("operator.watchNamespaces={shop,web}", "webhook.excludeNamespaces={legacy}",
                           "admission.defaultMode=enforce")
    container = one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[0] == "operator"
    parser = argparse.ArgumentParser()
    main.add_arguments(parser)
    parsed = parser.parse_args(args[1:])  # exits (fails the test) on an option main.py does not have
    assert parsed.namespaces == ["shop", "web"]
    assert parsed.excluded == ["legacy"]
    assert parsed.default_mode == "enforce"
    assert parsed.webhook_service == "httpd24-system/httpd24-webhook:443"
    assert (parsed.tls_cert_file, parsed.tls_key_file, parsed.tls_ca_file) == (
        "/etc/httpd24/tls/tls.crt", "/etc/httpd24/tls/tls.key", "/etc/httpd24/tls/ca.crt")
    assert parsed.log_format == "json"
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"webhook": parsed.webhook_port, "metrics": parsed.metrics_port}


def _rules(docs):
    return [(r, d) for d in by_kind(docs, "ClusterRole") for r in d["rules"]]


def test_rbac_least_privilege(render):
    docs = render.template()
    granted = {}
    for rule, _ in _rules(docs):
        for field in ("verbs", "resources", "apiGroups"):
            assert "*" not in rule[field], f"wildcard in {rule}"
        assert "resourceNames" not in rule or rule["resourceNames"]
        for group in rule["apiGroups"]:
            for res in rule["resources"]:
                granted.setdefault((group, res), set()).update(rule["verbs"])
    assert not [k for k in granted if k[1] in ("secrets", "pods/exec", "serviceaccounts/token")], granted
    # exactly what the operator and webhooks use (httpd24.k8s.operator / admission / kopf's watches)
    assert granted == {
        ("httpd24.io", "httpdservers"): {"get", "list", "watch"},
        ("httpd24.io", "httpdpolicies"): {"get", "list", "watch"},
        ("httpd24.io", "httpdservers/status"): {"patch"},
        ("", "namespaces"): {"get", "list", "watch"},
        ("", "configmaps"): {"get", "list", "watch", "create", "delete"},
        ("", "services"): {"get", "create", "patch"},
        ("policy", "poddisruptionbudgets"): {"get", "create", "patch"},
        ("", "events"): {"create"},
        ("apps", "deployments"): {"get", "list", "watch", "create", "patch"},
        ("apiextensions.k8s.io", "customresourcedefinitions"): {"get", "list", "watch"},
    }
    assert not by_kind(docs, "Role"), "no namespaced Roles by default"
    # no webhook configurations: the chart makes them, the operator does not manage them
    assert not [k for k in granted if "webhookconfigurations" in k[1]]


def test_watch_secrets_grants_reading_secrets_and_turns_the_watch_on(render):
    def secrets_rules(docs):
        return [r for r, _ in _rules(docs) if "secrets" in r["resources"]]

    def env(docs):
        return {e["name"]: e.get("value") for e in one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]}

    def bound(docs, kind):
        return sorted(b["metadata"].get("namespace", "*") for b in by_kind(docs, kind)
                      if b["roleRef"]["name"] == "httpd24-secrets")

    docs = render.template("operator.watchSecrets=true")
    assert secrets_rules(docs) == [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch"]}]
    assert env(docs)["HTTPD24_WATCH_SECRETS"] == "true"
    assert bound(docs, "ClusterRoleBinding") == ["*"] and bound(docs, "RoleBinding") == []
    # with named namespaces, Secrets are readable there only (the operator then watches each of them)
    scoped = render.template("operator.watchSecrets=true", "operator.watchNamespaces={shop,web}")
    assert bound(scoped, "ClusterRoleBinding") == [] and bound(scoped, "RoleBinding") == ["shop", "web"]
    default = render.template()
    assert secrets_rules(default) == [] and "HTTPD24_WATCH_SECRETS" not in env(default)


def test_rbac_watch_namespaces_binds_writes_only_there(render):
    docs = render.template("operator.watchNamespaces={shop,web}")
    bindings = by_kind(docs, "RoleBinding")
    assert sorted(b["metadata"]["namespace"] for b in bindings) == ["shop", "web"]
    assert {b["roleRef"]["name"] for b in bindings} == {"httpd24-write"}
    assert [b["roleRef"]["name"] for b in by_kind(docs, "ClusterRoleBinding")] == ["httpd24-read"]


def test_ownership_policy_matches_only_the_operator_identity(render):
    docs = render.template()
    policy = one(docs, "ValidatingAdmissionPolicy")
    assert policy["spec"]["matchConditions"][0]["expression"] == (
        'request.userInfo.username == "system:serviceaccount:httpd24-system:httpd24"')
    resources = {r for rule in policy["spec"]["matchConstraints"]["resourceRules"] for r in rule["resources"]}
    # every kind of object the operator may create, change or delete (but its Events and its own status)
    writes = {r for rule, role in _rules(docs) if role["metadata"]["name"].endswith("-write") for r in rule["resources"]}
    assert resources == writes - {"events", "httpdservers/status"} == {"deployments", "services", "configmaps", "poddisruptionbudgets"}
    binding = one(docs, "ValidatingAdmissionPolicyBinding")
    assert binding["spec"] == {"policyName": policy["metadata"]["name"], "validationActions": ["Deny"]}
    assert not by_kind(render.template("rbac.ownershipPolicy=false"), "ValidatingAdmissionPolicy")


def _hooks(docs):
    return {d["kind"]: d for d in docs if d["kind"].endswith("WebhookConfiguration")}


def test_webhooks_mirror_httpd24_k8s_webhooks_service_mode(render):
    docs = render.template("webhook.failurePolicy=Ignore", "webhook.timeoutSeconds=7",
                           "webhook.excludeNamespaces={legacy}")
    secret = one(docs, "Secret")
    validating, mutating = webhooks.webhook_configurations(
        service=("httpd24-system", "httpd24-webhook", 443), ca_bundle=secret["data"]["ca.crt"],
        failure_policy="Ignore", timeout_seconds=7, excluded_namespaces=["httpd24-system", "legacy"],
    )
    rendered = _hooks(docs)
    for expected in (validating, mutating):
        got = rendered[expected["kind"]]
        assert got["webhooks"] == expected["webhooks"], expected["kind"]
        assert got["metadata"]["name"] == "httpd24"


def test_webhooks_url_mode_for_a_local_operator(render):
    bundle = base64.b64encode(b"-----BEGIN CERTIFICATE-----\n").decode()
    docs = render.template("operator.enabled=false", "webhook.url=https://127.0.0.1:9443/", f"webhook.caBundle={bundle}")
    kinds = {d["kind"] for d in docs}
    assert not kinds & {"Deployment", "Service", "Secret", "PodDisruptionBudget"}, kinds
    assert {"ServiceAccount", "ClusterRole", "ValidatingWebhookConfiguration"} <= kinds
    validating, mutating = webhooks.webhook_configurations(url="https://127.0.0.1:9443", ca_bundle=bundle,
                                                           excluded_namespaces=["httpd24-system"])
    rendered = _hooks(docs)
    for expected in (validating, mutating):
        assert rendered[expected["kind"]]["webhooks"] == expected["webhooks"]
    proc = render.run("template", "x", CHART, "--set", "operator.enabled=false", check=False)
    assert proc.returncode != 0 and "set webhook.url" in proc.stderr
    proc = render.run("template", "x", CHART, "--set", "webhook.url=https://10.0.0.5:9443", check=False)
    assert proc.returncode != 0 and "set operator.enabled=false with it" in proc.stderr


def test_chart_made_certificate_is_valid_for_the_service(render):
    docs = render.template(namespace="web-system", release="edge")
    secret = one(docs, "Secret")
    assert secret["type"] == "kubernetes.io/tls"
    ca = x509.load_pem_x509_certificate(base64.b64decode(secret["data"]["ca.crt"]))
    cert = x509.load_pem_x509_certificate(base64.b64decode(secret["data"]["tls.crt"]))
    cert.verify_directly_issued_by(ca)
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.DNSName)
    assert "edge-httpd24-webhook.web-system.svc" in sans
    assert cert.not_valid_after_utc > datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=365)
    for hook in _hooks(docs).values():
        assert hook["webhooks"][0]["clientConfig"]["caBundle"] == secret["data"]["ca.crt"]
        assert hook["webhooks"][0]["clientConfig"]["service"]["name"] == "edge-httpd24-webhook"
        assert "web-system" in hook["webhooks"][0]["namespaceSelector"]["matchExpressions"][0]["values"]
    tls = one(docs, "Deployment")["spec"]["template"]["spec"]["volumes"][0]
    assert tls["secret"]["secretName"] == secret["metadata"]["name"]


def test_cert_manager_mode(render):
    docs = render.template("certManager.enabled=true")
    assert not by_kind(docs, "Secret")
    cert = one(docs, "Certificate")
    assert cert["spec"]["secretName"] == "httpd24-webhook-tls"
    assert "httpd24-webhook.httpd24-system.svc" in cert["spec"]["dnsNames"]
    assert one(docs, "Issuer")["spec"] == {"selfSigned": {}}
    for hook in _hooks(docs).values():
        assert hook["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == "httpd24-system/httpd24-webhook"
        assert "caBundle" not in hook["webhooks"][0]["clientConfig"]
    docs = render.template("certManager.enabled=true", "certManager.issuerRef.name=corp",
                           "certManager.issuerRef.kind=ClusterIssuer")
    assert not by_kind(docs, "Issuer")
    assert one(docs, "Certificate")["spec"]["issuerRef"] == {"name": "corp", "kind": "ClusterIssuer",
                                                            "group": "cert-manager.io"}


def test_optional_network_policy_and_service_monitor(render):
    assert not by_kind(render.template(), "NetworkPolicy")
    docs = render.template("networkPolicy.enabled=true", "serviceMonitor.enabled=true",
                           "networkPolicy.apiServerCIDRs={10.0.0.1/32}")
    policy = one(docs, "NetworkPolicy")
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert {"ipBlock": {"cidr": "10.0.0.1/32"}} in policy["spec"]["egress"][0]["to"]
    monitor = one(docs, "ServiceMonitor")
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    ports = {p["name"] for p in one(docs, "Service")["spec"]["ports"]}
    assert "metrics" in ports


@pytest.mark.parametrize(("setting", "where"), [
    ("webhook.timeoutSeconds=31", "/webhook/timeoutSeconds"),
    ("webhook.failurePolicy=Sometimes", "/webhook/failurePolicy"),
    ("admission.defaultMode=strict", "/admission/defaultMode"),
    ("webhook.url=http://127.0.0.1:9443", "/webhook/url"),
    ("operator.logFormat=xml", "/operator/logFormat"),
    ("operator.watchNamespaces={Bad_NS}", "/operator/watchNamespaces/0"),
    ("webhook.tiemout=3", "tiemout"),
])
def test_schema_refuses_bad_values(render, setting, where):
    proc = render.run("template", "x", CHART, "--set", setting, check=False)
    assert proc.returncode != 0
    assert where in proc.stderr, proc.stderr


def test_schema_accepts_the_default_values():
    import yaml

    schema = json.loads((CHART / "values.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(yaml.safe_load((CHART / "values.yaml").read_text()), schema)


def render_notes(render, tmp_path, *sets: str) -> str:
    """NOTES.txt as helm renders it (a copy of the chart with a ConfigMap that includes it: no cluster needed)."""
    import shutil

    chart = tmp_path / "httpd24"
    shutil.copytree(CHART, chart)
    (chart / "templates" / "zz-notes.yaml").write_text(
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\n'
        'data:\n  notes: {{ include "httpd24/templates/NOTES.txt" . | quote }}\n')
    args = ["template", "httpd24", chart, "-n", "httpd24-system", "--show-only", "templates/zz-notes.yaml"]
    for s in sets:
        args += ["--set", s]
    import yaml

    return yaml.safe_load(render.run(*args).stdout)["data"]["notes"]


def test_notes_tell_what_to_apply_next(render, tmp_path):
    notes = render_notes(render, tmp_path)
    assert "kubectl -n httpd24-system rollout status deployment/httpd24" in notes
    assert "kubectl label namespace shop httpd24.io/mode=enforce" in notes
    assert "httpd24.io/config=true" in notes
    assert "kind: HttpdServer" in notes
    assert '["httpd24-system","kube-system"]' in notes
    assert "Secret httpd24-webhook-tls" in notes
    dev = render_notes(render, tmp_path / "dev", "operator.enabled=false", "webhook.url=https://10.1.2.3:9443")
    assert "https://10.1.2.3:9443/validate-configmap" in dev
    assert "kubectl -n httpd24-system create token httpd24" in dev
    assert "rollout status" not in dev

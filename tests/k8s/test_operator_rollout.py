"""Deployment / Service / ConfigMap rendering, status building and the CRD, without a cluster."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest
import yaml

from gcwatch import documents_seen_by_collections

from httpd24.k8s import mainconf, review, rollout
from httpd24.k8s.models_server import MAIN_KEY, HttpdServerSpec, crd, parse_spec
from httpd24.k8s.review_policy import ServerPolicy

REPO = Path(__file__).resolve().parents[2]
SERVER = {"apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdServer",
          "metadata": {"name": "web", "namespace": "shop", "uid": "u-1", "generation": 3}}


def _plan(ports=(8080,), spec=None, files=None) -> rollout.Plan:
    spec = spec or parse_spec({"configMapRef": {"name": "web-conf"}})
    files = files or {"httpd.conf": b"ServerName x\n", MAIN_KEY: b"# main\n"}
    return rollout.Plan(spec=spec, files=files, hash=mainconf.config_hash(files),
                        modules=mainconf.modules_to_load(["authz_core_module"]), ports=list(ports),
                        findings={"error": 1, "warning": 2, "info": 0}, migrated=True)


def test_spec_defaults_and_validation():
    spec = parse_spec({"configMapRef": {"name": "c"}})
    assert (spec.image, spec.replicas, spec.configMapRef.entry, spec.migration, spec.defaults) == (
        "httpd:2.4", 1, "httpd.conf", "migrated", None)
    with pytest.raises(pydantic.ValidationError):
        parse_spec({"configMapRef": {"name": "c"}, "migration": "sometimes"})
    with pytest.raises(pydantic.ValidationError):
        parse_spec({"configMapRef": {"name": "c"}, "bogus": 1})


def test_deployment_is_owned_hardened_and_mounts_the_hashed_configmap():
    p = _plan()
    dep = rollout.deployment(SERVER, p)
    assert dep["metadata"]["ownerReferences"] == [{
        "apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdServer", "name": "web", "uid": "u-1",
        "controller": True, "blockOwnerDeletion": True}]
    tmpl = dep["spec"]["template"]
    assert tmpl["metadata"]["annotations"][rollout.ANNOTATION_HASH] == p.hash
    pod = tmpl["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert "sysctls" not in pod["securityContext"]  # 8080 needs no privilege
    c = pod["containers"][0]
    assert c["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                    "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}}
    assert c["command"][:5] == ["httpd", "-d", "/etc/httpd24", "-f", "/etc/httpd24/httpd24-main.conf"]
    vols = {v["name"]: v for v in pod["volumes"]}
    assert vols["config"]["configMap"]["name"] == f"web-{p.hash[:10]}"
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    assert mounts["/etc/httpd24"]["readOnly"] is True
    assert "/run/httpd24" in mounts  # PidFile / DefaultRuntimeDir are writable
    assert dep["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_pods_spread_over_nodes_and_a_budget_lets_one_go_at_a_time():
    pod = rollout.deployment(SERVER, _plan())["spec"]["template"]["spec"]
    assert pod["topologySpreadConstraints"] == [{
        "maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": {rollout.LABEL_SERVER: "web"}}}]
    pdb = rollout.disruption_budget(SERVER)
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": {"matchLabels": {rollout.LABEL_SERVER: "web"}}}
    assert pdb["metadata"]["ownerReferences"] == [rollout.owner_reference(SERVER)]
    # the selectors pick the Deployment's pods
    dep = rollout.deployment(SERVER, _plan())
    assert pdb["spec"]["selector"]["matchLabels"].items() <= dep["spec"]["template"]["metadata"]["labels"].items()


def test_low_port_gets_unprivileged_port_sysctl_and_service_ports():
    p = _plan(ports=(80, 443))
    pod = rollout.deployment(SERVER, p)["spec"]["template"]["spec"]
    assert {"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"} in pod["securityContext"]["sysctls"]
    svc = rollout.service(SERVER, p)
    assert [(x["name"], x["port"]) for x in svc["spec"]["ports"]] == [("http", 80), ("http-443", 443)]
    assert svc["spec"]["selector"] == {rollout.LABEL_SERVER: "web"}


def test_any_change_of_a_mounted_file_changes_the_pod_template():
    a = rollout.deployment(SERVER, _plan(files={"httpd.conf": b"A\n", MAIN_KEY: b"m"}))
    b = rollout.deployment(SERVER, _plan(files={"httpd.conf": b"A\n", MAIN_KEY: b"m2"}))
    assert a["spec"]["template"] != b["spec"]["template"]


def test_generated_configmap_is_immutable_and_keeps_binary_files():
    p = _plan(files={"httpd.conf": b"x\n", "logo.png": b"\x89PNG\xff\x00", MAIN_KEY: b"m"})
    cm = rollout.configmap(SERVER, p)
    assert cm["immutable"] is True
    assert cm["metadata"]["name"] == f"web-{p.hash[:10]}"
    assert base64.b64decode(cm["binaryData"]["logo.png"]) == b"\x89PNG\xff\x00"
    assert rollout.configmap_files(cm) == p.files  # round trip: what the gate tested is what is stored


def test_audit_annotation_forms():
    assert rollout.audit_count({}) == 0
    assert rollout.audit_count({rollout.ANNOTATION_AUDIT: "3"}) == 3
    assert rollout.audit_count({rollout.ANNOTATION_AUDIT: "-1"}) == 0
    assert rollout.audit_count({rollout.ANNOTATION_AUDIT: json.dumps([{"code": "HT101"}, {"code": "HT501"}])}) == 2
    assert rollout.audit_count({rollout.ANNOTATION_AUDIT: json.dumps({"error": 1, "warning": 4})}) == 5


def test_conditions_keep_transition_time_when_status_is_unchanged():
    old = [{"type": "ConfigValid", "status": "True", "reason": "ConfigTestPassed", "lastTransitionTime": "2020-01-01T00:00:00Z"},
           {"type": "Ready", "status": "False", "reason": "ReplicasNotReady", "lastTransitionTime": "2020-01-01T00:00:00Z"}]
    new = [rollout.condition("ConfigValid", True, "ConfigTestPassed", "ok", 4),
           rollout.condition("Ready", True, "ReplicasReady", "1/1", 4)]
    merged = {c["type"]: c for c in rollout.merge_conditions(old, new, at="2030-01-01T00:00:00Z")}
    assert merged["ConfigValid"]["lastTransitionTime"] == "2020-01-01T00:00:00Z"
    assert merged["Ready"]["lastTransitionTime"] == "2030-01-01T00:00:00Z"
    assert merged["Ready"]["observedGeneration"] == 4


def test_findings_summary_text():
    s = rollout.findings_summary({"error": 1, "warning": 2, "info": 3}, audit=4, left_out=5)
    # what policies leave out is not among the findings: counted apart, as admission counts it
    assert s == {"error": 1, "warning": 2, "info": 3, "audit": 4, "total": 10, "text": "1E 2W 3I 4A", "leftOut": 5}


@pytest.mark.parametrize("dep, done, reason", [
    pytest.param(None, False, "NoDeployment", id="missing"),
    pytest.param({"metadata": {"generation": 2}, "spec": {"replicas": 2, "template": {"metadata": {"annotations": {rollout.ANNOTATION_HASH: "h"}}}},
                  "status": {"observedGeneration": 1}}, False, "Progressing", id="not-observed"),
    pytest.param({"metadata": {"generation": 2}, "spec": {"replicas": 2, "template": {"metadata": {"annotations": {rollout.ANNOTATION_HASH: "old"}}}},
                  "status": {"observedGeneration": 2}}, False, "NotApplied", id="other-hash"),
    pytest.param({"metadata": {"generation": 2}, "spec": {"replicas": 2, "template": {"metadata": {"annotations": {rollout.ANNOTATION_HASH: "h"}}}},
                  "status": {"observedGeneration": 2, "replicas": 3, "updatedReplicas": 2, "availableReplicas": 2}}, False, "Progressing",
                 id="old-pod-left"),
    pytest.param({"metadata": {"generation": 2}, "spec": {"replicas": 2, "template": {"metadata": {"annotations": {rollout.ANNOTATION_HASH: "h"}}}},
                  "status": {"observedGeneration": 2, "replicas": 2, "updatedReplicas": 2, "availableReplicas": 2, "readyReplicas": 2}},
                 True, "Complete", id="complete"),
])
def test_rollout_state(dep, done, reason):
    assert rollout.rollout_state(dep, "h")[:2] == (done, reason)


def test_crd_schema_matches_the_models():
    schema = crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec = schema["properties"]["spec"]
    assert set(spec["properties"]) == set(HttpdServerSpec.model_fields)
    assert spec["properties"]["migration"]["enum"] == ["asStored", "migrated"]
    assert spec["properties"]["image"]["default"] == "httpd:2.4"
    # structural: no refs, no nulls, no additionalProperties=false anywhere
    text = json.dumps(schema)
    assert "$ref" not in text and '"null"' not in text and '"additionalProperties": false' not in text
    cols = [c["name"] for c in crd()["spec"]["versions"][0]["additionalPrinterColumns"]]
    assert {"Ready", "Phase", "Findings", "Age"} <= set(cols)


def test_committed_crd_equals_generated():
    proc = subprocess.run([sys.executable, str(REPO / "hack" / "gen_crds.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load((REPO / "crds" / "httpdservers.yaml").read_text()) == crd()


def test_headless_service_has_no_cluster_ip():
    p = _plan(spec=parse_spec({"configMapRef": {"name": "c"}, "service": "Headless"}))
    assert rollout.service(SERVER, p)["spec"]["clusterIP"] == "None"
    assert "clusterIP" not in rollout.service(SERVER, _plan())["spec"]


TLS_CONF = b"""\
Listen 8443
<VirtualHost *:8443>
    SSLEngine on
    SSLCertificateFile secrets/site-tls/tls.crt
    SSLCertificateKeyFile secrets/site-tls/tls.key
    SSLCACertificateFile secrets/client-ca/ca.crt
</VirtualHost>
"""


def _tls_spec(secrets):
    return parse_spec({"configMapRef": {"name": "web-conf"}, "secrets": secrets})


def test_secrets_default_to_the_keys_of_a_tls_secret_and_are_part_of_the_plans_hash():
    spec = _tls_spec([{"name": "site-tls"}, {"name": "client-ca", "keys": ["ca.crt"]}])
    assert [s.keys for s in spec.secrets] == [["tls.crt", "tls.key"], ["ca.crt"]]
    cm = {"data": {"httpd.conf": TLS_CONF.decode()}}
    with_secrets = rollout.plan("web", "shop", spec, cm)
    assert with_secrets.secret_files == ["secrets/site-tls/tls.crt", "secrets/site-tls/tls.key", "secrets/client-ca/ca.crt"]
    assert not any(name.startswith("secrets/") for name in with_secrets.files)  # never in the generated ConfigMap
    # Same files, other Secrets: another hash, so the gate's cache and the pod template tell them apart.
    fewer = rollout.plan("web", "shop", _tls_spec([{"name": "site-tls"}]), cm)
    assert fewer.files == with_secrets.files and fewer.hash != with_secrets.hash
    assert with_secrets.hash == mainconf.config_hash(with_secrets.files, with_secrets.secret_files)
    with pytest.raises(pydantic.ValidationError):
        _tls_spec([{"name": "Site_TLS"}])
    with pytest.raises(pydantic.ValidationError):
        _tls_spec([{"name": "site-tls", "keys": ["a/b"]}])


@pytest.mark.parametrize("secrets, message", [
    ([{"name": "site-tls"}, {"name": "site-tls", "keys": ["ca.crt"]}], "names site-tls more than once"),
    ([{"name": "site-tls", "keys": ["tls.crt", "tls.crt"]}], "key 'tls.crt' is not a file name or is listed twice"),
    ([{"name": "site-tls", "keys": [".."]}], "key '..' is not a file name"),
])
def test_secrets_the_volume_cannot_hold_are_refused_with_what_to_do(secrets, message):
    with pytest.raises(rollout.PlanError) as caught:
        rollout.plan("web", "shop", _tls_spec(secrets), {"data": {"httpd.conf": TLS_CONF.decode()}})
    assert caught.value.reason == "InvalidSecrets" and message in caught.value.message


def test_a_configmap_key_named_like_the_secrets_directory_is_refused():
    cm = {"data": {"httpd.conf": TLS_CONF.decode(), "secrets": "x"}}
    with pytest.raises(rollout.PlanError) as caught:
        rollout.plan("web", "shop", _tls_spec([{"name": "site-tls"}]), cm)
    assert caught.value.reason == "ReservedKey" and "has a key 'secrets'" in caught.value.message
    assert rollout.plan("web", "shop", parse_spec({"configMapRef": {"name": "c"}}), cm).files["secrets"] == b"x"


def test_secrets_join_the_configmap_in_one_projected_server_root():
    spec = _tls_spec([{"name": "site-tls"}, {"name": "client-ca", "keys": ["ca.crt"]}])
    p = rollout.plan("web", "shop", spec, {"data": {"httpd.conf": TLS_CONF.decode()}})
    pod = rollout.deployment(SERVER, p)["spec"]["template"]["spec"]
    config = next(v for v in pod["volumes"] if v["name"] == "config")
    assert config["projected"]["sources"] == [
        {"configMap": {"name": f"web-{p.hash[:10]}"}},
        {"secret": {"name": "site-tls", "items": [
            {"key": "tls.crt", "path": "secrets/site-tls/tls.crt", "mode": 0o440},
            {"key": "tls.key", "path": "secrets/site-tls/tls.key", "mode": 0o440}]}},
        {"secret": {"name": "client-ca", "items": [{"key": "ca.crt", "path": "secrets/client-ca/ca.crt", "mode": 0o440}]}},
    ]
    # the projected paths are the plan's, which the gate tested
    assert [i["path"] for s in config["projected"]["sources"][1:] for i in s["secret"]["items"]] == p.secret_files
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsUser"]  # httpd reads the 0440 keys
    plain = rollout.deployment(SERVER, _plan())["spec"]["template"]["spec"]
    assert next(v for v in plain["volumes"] if v["name"] == "config") == {"name": "config", "configMap": {"name": f"web-{_plan().hash[:10]}"}}


def test_a_missing_secret_file_gets_the_mounted_ones_and_what_to_do():
    p = rollout.plan("web", "shop", _tls_spec([{"name": "site-tls"}]), {"data": {"httpd.conf": TLS_CONF.decode()}})
    output = "AH00526: Syntax error on line 6 of httpd.conf:\nSSLCACertificateFile: file 'secrets/client-ca/ca.crt' does not exist or is empty"
    assert rollout.secret_hint(p, output) == (
        "\n-> the pods have secrets/site-tls/tls.crt, secrets/site-tls/tls.key under secrets/; list the Secret "
        "holding that file, with the key, in spec.secrets (name, keys)")
    assert "no Secret under secrets/" in rollout.secret_hint(_plan(), output)
    assert rollout.secret_hint(p, "AH00526: Invalid command 'Order'") == ""


CONTENT_CONF = """\
ServerName content.example.test
DocumentRoot "${HTTPD24_CONTENT}/site"
<Directory "${HTTPD24_CONTENT}/site">
    Order allow,deny
    Allow from all
</Directory>
"""


def _content_spec(content):
    return parse_spec({"configMapRef": {"name": "web-conf"}, "content": content})


def test_content_volumes_are_mounted_under_srv_httpd24_and_named_by_a_variable_of_the_main_config():
    spec = _content_spec([{"name": "site", "persistentVolumeClaim": {"claimName": "site-files"}},
                          {"name": "uploads", "persistentVolumeClaim": {"claimName": "up"}, "readOnly": False},
                          {"name": "docs", "configMap": {"name": "docs-html"}}])
    p = rollout.plan("web", "shop", spec, {"data": {"httpd.conf": CONTENT_CONF}})
    assert p.content == ["site", "uploads", "docs"]
    assert '    Define HTTPD24_CONTENT "/srv/httpd24"' in p.files[MAIN_KEY].decode().splitlines()
    pod = rollout.deployment(SERVER, p)["spec"]["template"]["spec"]
    assert [v for v in pod["volumes"] if v["name"].startswith("content-")] == [
        {"name": "content-site", "persistentVolumeClaim": {"claimName": "site-files", "readOnly": True}},
        {"name": "content-uploads", "persistentVolumeClaim": {"claimName": "up", "readOnly": False}},
        {"name": "content-docs", "configMap": {"name": "docs-html"}},
    ]
    [httpd] = pod["containers"]
    assert [m for m in httpd["volumeMounts"] if m["name"].startswith("content-")] == [
        {"name": "content-site", "mountPath": "/srv/httpd24/site", "readOnly": True},
        {"name": "content-uploads", "mountPath": "/srv/httpd24/uploads", "readOnly": False},
        {"name": "content-docs", "mountPath": "/srv/httpd24/docs", "readOnly": True},
    ]
    # Where the volumes are is part of what the gate judged: other names, another hash (and another cache entry).
    assert p.hash == mainconf.config_hash(p.files, (), p.content)
    assert rollout.plan("web", "shop", _content_spec([{"name": "site", "configMap": {"name": "x"}}]),
                        {"data": {"httpd.conf": CONTENT_CONF}}).hash != p.hash


def test_servers_without_content_keep_their_main_config_and_hash():
    """An operator upgrade must not roll every existing server: nothing changes unless spec.content is set."""
    cm = {"data": {"httpd.conf": CONTENT_CONF}}
    p = rollout.plan("web", "shop", parse_spec({"configMapRef": {"name": "web-conf"}}), cm)
    assert "HTTPD24_CONTENT" not in p.files[MAIN_KEY].decode()
    assert p.hash == mainconf.config_hash(p.files) == mainconf.config_hash(p.files, (), ())
    pod = rollout.deployment(SERVER, p)["spec"]["template"]["spec"]
    assert not [v for v in pod["volumes"] if v["name"].startswith("content-")]


@pytest.mark.parametrize("content", [
    [{"name": "site"}],
    [{"name": "site", "configMap": {"name": "a"}, "persistentVolumeClaim": {"claimName": "b"}}],
    [{"name": "Site", "configMap": {"name": "a"}}],
    [{"name": "x" * 51, "configMap": {"name": "a"}}],  # content-NAME must stay a volume name (63)
    [{"name": "site", "configMap": {"name": "a"}, "hostPath": {"path": "/"}}],
])
def test_content_volumes_need_one_source_and_a_short_name(content):
    with pytest.raises(pydantic.ValidationError):
        _content_spec(content)


def test_content_names_twice_and_the_stand_in_key_are_refused_with_what_to_do():
    twice = _content_spec([{"name": "site", "configMap": {"name": "a"}}, {"name": "site", "configMap": {"name": "b"}}])
    with pytest.raises(rollout.PlanError) as caught:
        rollout.plan("web", "shop", twice, {"data": {"httpd.conf": CONTENT_CONF}})
    assert caught.value.reason == "InvalidContent" and "names site more than once" in caught.value.message
    cm = {"data": {"httpd.conf": CONTENT_CONF, mainconf.CONTENT_STAND_INS: "x"}}
    with pytest.raises(rollout.PlanError) as caught:
        rollout.plan("web", "shop", _content_spec([{"name": "site", "configMap": {"name": "a"}}]), cm)
    assert caught.value.reason == "ReservedKey" and f"has a key '{mainconf.CONTENT_STAND_INS}'" in caught.value.message


def test_an_undefined_content_variable_gets_what_to_do():
    output = ("AH00111: Config variable ${HTTPD24_CONTENT} is not defined\nAH00526: Syntax error on line 2 of "
              "httpd.conf:\nDocumentRoot '${HTTPD24_CONTENT}/site' is not a directory, or is not readable")
    assert rollout.content_hint(_plan(), output) == (
        "\n-> ${HTTPD24_CONTENT} names the spec.content volumes, and this HttpdServer lists none; add the volume the "
        "configuration serves from to spec.content (name, persistentVolumeClaim or configMap)")
    with_content = rollout.plan("web", "shop", _content_spec([{"name": "site", "configMap": {"name": "a"}}]),
                                {"data": {"httpd.conf": CONTENT_CONF}})
    assert rollout.content_hint(with_content, output) == ""
    assert rollout.content_hint(_plan(), "AH00526: Invalid command 'Order'") == ""


@pytest.mark.parametrize("migration", ["migrated", "asStored"])
def test_a_plan_frees_its_trees_before_the_collector_resumes(migration):
    """The operator plans up to 16 servers at a time; a collection that finds their trees walks
    every node (the engine pauses the collector for that reason, and a plan must not undo it)."""
    text = "".join(f"<Directory /srv/{n}>\n    Order allow,deny\n    Allow from all\n</Directory>\nMaxClients {n}\n"
                   for n in range(200))
    spec = parse_spec({"configMapRef": {"name": "web-conf"}, "migration": migration})
    before, walked = documents_seen_by_collections(lambda: rollout.plan("web", "shop", spec, {"data": {"httpd.conf": text}}))
    assert walked, "resuming the collector after a plan this large starts a collection"
    assert max(walked) == before


@pytest.mark.parametrize(("annotations", "written"), [
    pytest.param({}, True, id="2.2"),
    pytest.param({"httpd24.io/source-version": "2.4"}, False, id="annotated-2.4"),
])
def test_the_migration_reads_what_the_configmap_ran_on_as_admission_does(annotations, written):
    """A ConfigMap annotated as already running on 2.4 keeps its SSI pages' 2.4 expression parser."""
    configmap = {"metadata": {"name": "web-conf", "annotations": annotations},
                 "data": {"httpd.conf": "AddOutputFilter INCLUDES .shtml\n"}}
    p = rollout.plan("web", "shop", parse_spec({"configMapRef": {"name": "web-conf"}}), configmap)
    assert ("SSILegacyExprParser on" in p.files["httpd.conf"].decode()) is written


# A configuration every changed default applies to: .htaccess files in use (AllowOverride), files
# served (EnableSendfile, FileETag) and proxied HTTPS (SSLProxyCheckPeerCN/Expire).
CHANGED_DEFAULTS_CONF = """\
DocumentRoot /usr/local/apache2/htdocs
AccessFileName .htaccess
<Directory /usr/local/apache2/htdocs>
    AllowOverride All
</Directory>
SSLProxyEngine on
ProxyPass /api https://backend.example.test/
"""


def _written_defaults(policy_defaults=None, spec_defaults=None, annotation=None) -> set[str]:
    """Which 2.2 defaults a `migrated` server's plan writes out, of EnableSendfile and FileETag."""
    annotations = {"httpd24.io/defaults": annotation} if annotation else {}
    configmap = {"metadata": {"name": "web-conf", "annotations": annotations},
                 "data": {"httpd.conf": CHANGED_DEFAULTS_CONF}}
    spec = parse_spec({"configMapRef": {"name": "web-conf"}, **({"defaults": spec_defaults} if spec_defaults else {})})
    p = rollout.plan("web", "shop", spec, configmap, ServerPolicy(defaults=policy_defaults))
    text = p.files["httpd.conf"].decode()
    return {line.split()[0] for line in text.splitlines() if line.startswith(("EnableSendfile", "FileETag"))}


@pytest.mark.parametrize(("policy_defaults", "spec_defaults", "annotation", "written"), [
    pytest.param(None, None, None, set(), id="each-rule-decides-as-admission-does"),
    pytest.param(None, None, "keep-2.2", {"EnableSendfile", "FileETag"}, id="configmap-annotation"),
    pytest.param(None, "keep-2.2", "adopt-2.4", {"EnableSendfile", "FileETag"}, id="spec-over-annotation"),
    pytest.param("adopt-2.4", "keep-2.2", "keep-2.2", set(), id="policy-over-spec"),
    pytest.param("keep-2.2", None, None, {"EnableSendfile", "FileETag"}, id="policy"),
])
def test_changed_defaults_are_decided_as_admission_decides_them(policy_defaults, spec_defaults, annotation, written):
    """An HttpdPolicy's defaults win, as in admission; then the server's own spec.defaults; then the
    ConfigMap's annotation admission read; then each rule's documented choice (which adopts 2.4's
    EnableSendfile and FileETag), as admission and the CLI decide without any of them."""
    assert _written_defaults(policy_defaults, spec_defaults, annotation) == written


@pytest.mark.parametrize("name", [
    "ganglia-web-debian-apache.conf", "nagios-3.x-httpd.conf.in", "phpmyadmin-debian-4.1-apache.conf",
    "openshift-phpmyadmin-ifversion.conf", "iem-2013-ssl-vhost-limit.conf", "httpd-tests-2011-extra-ifversion.conf.in",
])
def test_a_configmap_admission_migrated_is_deployed_as_stored_by_a_migrated_server(name):
    """The migrate webhook stores the 2.4 form; a `migrated` HttpdServer on it (no spec.defaults, no
    policy) must find nothing left to rewrite, or the pods would run a third text that neither the
    stored object nor the review shows."""
    text = (Path("/work/shared/corpus/files") / name).read_text(encoding="utf-8")
    body = {"metadata": {"name": "web-conf"}, "data": {"httpd.conf": text}}
    analysis = review.analyze(body, migrate=True)
    assert analysis.migrated_ok and not analysis.problems
    stored_text = analysis.migrated.get("httpd.conf", text.encode())
    stored = {"metadata": {"name": "web-conf"}, "data": {"httpd.conf": stored_text.decode()}}
    p = rollout.plan("web", "shop", parse_spec({"configMapRef": {"name": "web-conf"}}), stored)
    assert p.applied == 0 and p.files["httpd.conf"] == stored_text

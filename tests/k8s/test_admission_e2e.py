"""The admission webhooks end to end: real kube-apiserver calling `httpd24 operator` over TLS, real kubectl.

The webhook runs as a subprocess (``python -m httpd24.k8s.main --no-operator --manage-webhooks``) on
127.0.0.1 with certificates from :mod:`httpd24.k8s.certs`; it writes the two webhook configurations
itself (URL clientConfig, namespaceSelector, objectSelector) and deletes them at exit.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from cluster_fixture import cluster  # noqa: F401
from httpd24 import api, apache
from httpd24.engine import Severity
from httpd24.k8s import certs, review

pytestmark = [pytest.mark.cluster]

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path("/work/shared/corpus/files")
WEBHOOK_NAME = "httpd24-admission-e2e"
DENIED = 'admission webhook "validate.configmaps.httpd24.io" denied the request: '
MUTATE_DENIED = 'admission webhook "mutate.configmaps.httpd24.io" denied the request: '

# 2.2 files with start-up errors on 2.4 that the engine can fix (chosen from the corpus).
ENFORCE_FILES = ["apache-2.2.15-httpd-mpm.conf.in", "h5bp-2.0-filterprovider.htaccess", "debian7-wheezy-mods-ssl.conf"]
MIGRATE_FILES = ENFORCE_FILES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Webhook:
    def __init__(self, cluster, directory: Path):  # noqa: F811
        self.cluster = cluster
        self.port = free_port()
        self.metrics_port = free_port()
        files = certs.ensure(directory / "tls", ["127.0.0.1"])
        self.log_path = directory / "webhook.log"
        argv = [
            sys.executable, "-m", "httpd24.k8s.main", "--no-operator",
            "--webhook-addr", "127.0.0.1", "--webhook-port", str(self.port),
            "--tls-cert-file", str(files.cert), "--tls-key-file", str(files.key), "--tls-ca-file", str(files.ca),
            "--manage-webhooks", "--webhook-name", WEBHOOK_NAME, "--timeout-seconds", "30",
            "--metrics-addr", "127.0.0.1", "--metrics-port", str(self.metrics_port),
            "--operator-namespace", "httpd24-system", "--log-format", "json",
        ]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            argv, stdout=self.log, stderr=subprocess.STDOUT, env=dict(cluster.env, PYTHONUNBUFFERED="1")
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the webhook exited {self.proc.returncode}:\n{self.log_path.read_text()[-3000:]}")
            try:
                if self.get("/readyz", raw=True) == "ready\n":
                    break
            except OSError:
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError(f"the webhook never became ready:\n{self.log_path.read_text()[-3000:]}")

    def get(self, path: str, raw: bool = False):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}{path}", timeout=5) as resp:
            text = resp.read().decode()
        return text if raw else json.loads(text)

    def requests_for(self, namespace: str, name: str) -> list[dict]:
        return [r for r in self.get("/debug/requests") if r.get("namespace") == namespace and r.get("name") == name]

    def wait_mode(self, namespace: str, mode: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.get("/debug/modes").get(namespace, {}).get("mode") == mode:
                return
            time.sleep(0.1)
        raise AssertionError(f"namespace {namespace} never got mode {mode}: {self.get('/debug/modes').get(namespace)}")

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.log.close()
        return code


@pytest.fixture(scope="module")
def webhook(cluster, tmp_path_factory):  # noqa: F811
    cluster.kubectl("apply", "-f", str(REPO / "crds" / "httpdpolicies.yaml"))
    cluster.kubectl("wait", "--for", "condition=established", "crd/httpdpolicies.httpd24.io", "--timeout=60s")
    hook = Webhook(cluster, tmp_path_factory.mktemp("admission"))
    yield hook
    assert hook.stop() == 0, hook.log_path.read_text()[-3000:]
    # --manage-webhooks removed its configurations at exit
    left = cluster.kubectl("get", "validatingwebhookconfiguration", WEBHOOK_NAME, check=False)
    assert left.returncode != 0


def make_namespace(cluster, webhook, mode: str | None, labels=None) -> str:  # noqa: F811
    name = f"adm-{mode or 'none'}-{uuid.uuid4().hex[:6]}"
    all_labels = dict(labels or {})
    if mode:
        all_labels["httpd24.io/mode"] = mode
    manifest = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": all_labels}}
    cluster.kubectl("apply", "-f", "-", input=json.dumps(manifest))
    webhook.wait_mode(name, mode or "warn")
    return name


def manifest(name: str, files: dict[str, bytes], *, labelled=True, annotations=None) -> str:
    meta = {"name": name, "labels": {review.LABEL_CONFIG: "true"} if labelled else {}}
    if annotations:
        meta["annotations"] = annotations
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {k: v.decode() for k, v in files.items()}}
    return json.dumps(body)


def stored(cluster, ns: str, name: str) -> dict | None:  # noqa: F811
    out = cluster.kubectl("get", "configmap", name, "-n", ns, "-o", "json", check=False)
    return json.loads(out.stdout) if out.returncode == 0 else None


def engine_lines(data: bytes):
    """Findings as the engine reports them for this file as a ConfigMap key, in the documented line format."""
    cs = api.load_mapping({"httpd.conf": data}, entry="httpd.conf", server_root="/etc/httpd24")
    findings = api.lint(cs)

    def line(f):
        text = f"{f.file}:{f.line}: {f.code} {' '.join(f.message.split())}"
        return text + (f" -> {' '.join(f.replacement.split())}" if f.replacement else "")

    return findings, [line(f) for f in findings if f.severity is Severity.ERROR]


# -- enforce ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("filename", ENFORCE_FILES)
def test_enforce_denies_with_the_finding_lines(cluster, webhook, filename):  # noqa: F811
    ns = make_namespace(cluster, webhook, "enforce")
    data = (CORPUS / filename).read_bytes()
    _findings, errors = engine_lines(data)
    assert errors, f"{filename} was chosen for its 2.2-only start-up errors"
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data}), check=False)
    assert out.returncode == 1
    noun = "problem" if len(errors) == 1 else "problems"
    expected = "\n".join([f"{len(errors)} {noun} must be fixed for httpd 2.4 (httpd24 mode: enforce):", *errors[:20]])
    assert DENIED + expected in out.stderr, out.stderr
    assert stored(cluster, ns, "web") is None
    # dry-run gets exactly the same answer
    dry = cluster.kubectl(
        "apply", "--dry-run=server", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data}), check=False
    )
    assert dry.returncode == 1 and DENIED + expected in dry.stderr


def test_enforce_pinned_denial_for_the_mpm_template(cluster, webhook):  # noqa: F811
    """Pinned text for one file: LockFile in the 2.2 MPM template stops 2.4 from starting."""
    ns = make_namespace(cluster, webhook, "enforce")
    data = (CORPUS / "apache-2.2.15-httpd-mpm.conf.in").read_bytes()
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("mpm", {"httpd.conf": data}), check=False)
    first, second = out.stderr.split(DENIED, 1)[1].splitlines()[:2]
    assert first == "1 problem must be fixed for httpd 2.4 (httpd24 mode: enforce):"
    assert second.startswith("httpd.conf:20: HT110 LockFile ")
    assert second.endswith("-> <IfModule !mpm_event_module> Mutex default:@rel_logfiledir@ mpm-accept </IfModule>")


def test_annotation_cannot_weaken_but_can_tighten(cluster, webhook):  # noqa: F811
    data = b"ServerName x\nKeepAlive 5\n"
    strict = make_namespace(cluster, webhook, "enforce")
    out = cluster.kubectl(
        "apply", "-n", strict, "-f", "-", check=False,
        input=manifest("web", {"httpd.conf": data}, annotations={"httpd24.io/mode": "audit"}),
    )
    assert out.returncode == 1 and DENIED in out.stderr
    assert (
        "Warning: annotation httpd24.io/mode=audit ignored: it may only make the mode stricter than enforce "
        "(namespace label)\n"
    ) in out.stderr
    lax = make_namespace(cluster, webhook, "warn")
    out = cluster.kubectl(
        "apply", "-n", lax, "-f", "-", check=False,
        input=manifest("web", {"httpd.conf": data}, annotations={"httpd24.io/mode": "enforce"}),
    )
    assert out.returncode == 1
    assert DENIED + "1 problem must be fixed for httpd 2.4 (httpd24 mode: enforce):" in out.stderr


def test_httpdpolicy_sets_the_mode_by_namespace_selector(cluster, webhook):  # noqa: F811
    policy = {
        "apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdPolicy",
        "metadata": {"name": "adm-e2e-prod"},
        "spec": {"mode": "enforce", "namespaceSelector": {"matchLabels": {"adm-e2e-env": "prod"}}},
    }
    cluster.kubectl("apply", "-f", "-", input=json.dumps(policy))
    try:
        name = f"adm-pol-{uuid.uuid4().hex[:6]}"
        cluster.kubectl("apply", "-f", "-", input=json.dumps(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"adm-e2e-env": "prod"}}}
        ))
        webhook.wait_mode(name, "enforce")
        assert webhook.get("/debug/modes")[name]["source"] == "HttpdPolicy adm-e2e-prod"
        out = cluster.kubectl("apply", "-n", name, "-f", "-", input=manifest("web", {"httpd.conf": b"KeepAlive 5\n"}),
                              check=False)
        assert out.returncode == 1 and "(httpd24 mode: enforce)" in out.stderr
    finally:
        cluster.kubectl("delete", "httpdpolicy", "adm-e2e-prod", check=False)


# -- migrate ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("filename", MIGRATE_FILES)
def test_migrate_stores_the_migrated_text_which_passes_apache2_t(cluster, webhook, filename):  # noqa: F811
    ns = make_namespace(cluster, webhook, "migrate")
    data = (CORPUS / filename).read_bytes()
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data}))
    assert "Warning: httpd24 migrated " in out.stderr
    body = stored(cluster, ns, "web")
    text = body["data"]["httpd.conf"].encode()
    assert text != data
    expected = api.migrate(api.load_mapping({"httpd.conf": data}, entry="httpd.conf", server_root="/etc/httpd24"))
    assert text == expected.files["httpd.conf"]
    annotations = body["metadata"]["annotations"]
    assert annotations["httpd24.io/migrated"] == review.counts(expected.applied)
    # the original, byte for byte, from the object itself
    assert review.decode_original(annotations["httpd24.io/original"]) == {"httpd.conf": data}
    shown = subprocess.run(
        review.original_command("web", ns), shell=True, capture_output=True, env=cluster.env, check=True
    ).stdout
    assert shown == data
    # the stored text passes real apache2 -t with the modules the engine names
    migrated = api.load_mapping({"httpd.conf": text}, entry="httpd.conf", server_root="/etc/httpd24")
    modules = [m.name for m in api.required_modules(migrated).modules]
    result = apache.configtest({"httpd.conf": text}, "httpd.conf", modules)
    assert result.ok, result.output
    # and the 2.2 original does not (the point of migrating)
    original = apache.configtest({"httpd.conf": data}, "httpd.conf", modules)
    assert not original.ok


def test_migrate_leaves_a_configuration_that_ran_on_24_as_it_is(cluster, webhook):  # noqa: F811
    """Its SSI pages use 2.4's expressions: 2.2's parser must not be written into it. A configuration
    that loads an MPM says so itself; one that does not, by its annotation."""
    ns = make_namespace(cluster, webhook, "migrate")
    ssi = b"<Directory /usr/local/apache2/htdocs>\n    Options +Includes\n    AddOutputFilter INCLUDES .shtml\n</Directory>\n"
    loads = (b"LoadModule mpm_event_module modules/mod_mpm_event.so\n"
             b"LoadModule authz_core_module modules/mod_authz_core.so\n"
             b"LoadModule mime_module modules/mod_mime.so\nLoadModule include_module modules/mod_include.so\n")
    for name, data, annotations in [("loads", loads + ssi, None),
                                    ("annotated", ssi, {review.ANN_SOURCE_VERSION: "2.4"})]:
        out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest(name, {"httpd.conf": data},
                                                                             annotations=annotations))
        assert "migrated" not in out.stderr, out.stderr
        body = stored(cluster, ns, name)
        assert body["data"]["httpd.conf"].encode() == data
        assert "httpd24.io/original" not in body["metadata"].get("annotations", {})
    # the same text without either is a 2.2 configuration: its pages get 2.2's parser back
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("plain", {"httpd.conf": ssi}))
    assert "SSILegacyExprParser on" in stored(cluster, ns, "plain")["data"]["httpd.conf"]


def test_migrate_denies_what_cannot_be_fixed(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "migrate")
    data = b"KeepAlive 5\nMaxRequestsPerThread 4\n"
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data}), check=False)
    assert out.returncode == 1
    tail = out.stderr.split(MUTATE_DENIED, 1)[1].splitlines()
    assert tail[0] == "1 problem cannot be migrated safely (httpd24 mode: migrate):"
    assert tail[1].startswith("httpd.conf:2: HT119 ")
    assert stored(cluster, ns, "web") is None


def test_unparseable_config_is_denied_with_its_location(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "migrate")
    out = cluster.kubectl(
        "apply", "-n", ns, "-f", "-", check=False,
        input=manifest("web", {"httpd.conf": b"ServerName x\n<Directory /srv>\n"}),
    )
    assert out.returncode == 1
    tail = out.stderr.split(MUTATE_DENIED, 1)[1].splitlines()
    assert tail[0] == "1 problem in a config httpd cannot read (httpd24 mode: migrate):"
    assert tail[1].startswith("httpd.conf:2:1: ")


def test_dry_run_changes_nothing(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "migrate")
    data = b"ServerName x\nKeepAlive 5\n"
    dry = cluster.kubectl(
        "apply", "--dry-run=server", "-o", "json", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data})
    )
    answer = json.loads(dry.stdout)
    assert answer["data"]["httpd.conf"] == "ServerName x\nKeepAlive On\n"  # the same answer ...
    assert stored(cluster, ns, "web") is None  # ... and nothing stored
    # an existing object is not touched by a dry-run update either
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": b"ServerName x\n"}))
    before = stored(cluster, ns, "web")
    cluster.kubectl(
        "apply", "--dry-run=server", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data})
    )
    after = stored(cluster, ns, "web")
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert after["data"] == {"httpd.conf": "ServerName x\n"}
    dry_requests = [r for r in webhook.requests_for(ns, "web") if r["dry_run"]]
    assert {r["webhook"] for r in dry_requests} == {"mutate-configmap", "validate-configmap"}


# -- warn and audit ---------------------------------------------------------------------------------------------------
def test_warn_prints_warnings_and_stores_unchanged(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "warn")
    data = (CORPUS / "apache-2.2.15-httpd-mpm.conf.in").read_bytes()
    findings, _ = engine_lines(data)
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data}))
    warnings = [line[len("Warning: "):] for line in out.stderr.splitlines() if line.startswith("Warning: ")]
    assert len(warnings) == len(findings)
    for warning, finding in zip(warnings, findings):
        assert len(warning) <= 120
        assert warning.startswith(f"httpd.conf:{finding.line}: {finding.code} ")
    body = stored(cluster, ns, "web")
    assert body["data"]["httpd.conf"].encode() == data
    assert body["metadata"]["annotations"]["httpd24.io/audit-findings"] == str(len(findings))


def test_audit_stores_unchanged_with_the_record(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "audit")
    data = (CORPUS / "h5bp-2.0-filterprovider.htaccess").read_bytes()
    findings, errors = engine_lines(data)
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data}))
    assert "Warning" not in out.stderr
    body = stored(cluster, ns, "web")
    assert body["data"]["httpd.conf"].encode() == data
    annotations = body["metadata"]["annotations"]
    assert annotations["httpd24.io/audit-findings"] == str(len(findings))
    assert annotations["httpd24.io/errors"] == str(len(errors))
    assert annotations["httpd24.io/reviewed-mode"] == "audit"
    assert "httpd24.io/original" not in annotations


# -- existing objects ----------------------------------------------------------------------------------------------------
def test_enforce_lets_updates_that_keep_a_stored_config_through(cluster, webhook):  # noqa: F811
    """A namespace moved from audit to enforce: its stored 2.2 ConfigMaps can still be labelled by other tools and
    deleted through their finalizers (updates that leave the configuration as it is, as Kyverno allows existing
    violations); a change of the configuration itself is reviewed as any other."""
    ns = make_namespace(cluster, webhook, "audit")
    data = (CORPUS / "apache-2.2.15-httpd-mpm.conf.in").read_bytes()
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": data}))
    cluster.kubectl("patch", "configmap", "web", "-n", ns, "--type=merge", "-p",
                    json.dumps({"metadata": {"finalizers": ["example.test/keep"]}}))
    cluster.kubectl("label", "namespace", ns, "httpd24.io/mode=enforce", "--overwrite")
    webhook.wait_mode(ns, "enforce")

    out = cluster.kubectl("label", "configmap", "web", "-n", ns, "team=web", check=False)
    assert out.returncode == 0, out.stderr
    assert "the configuration is unchanged by this update" in out.stderr
    assert stored(cluster, ns, "web")["metadata"]["labels"]["team"] == "web"

    changed = data.decode() + "MaxClients 10\n"
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": changed.encode()}), check=False)
    assert out.returncode != 0 and DENIED in out.stderr  # a new text is reviewed: still 2.2, so denied

    cluster.kubectl("delete", "configmap", "web", "-n", ns, "--wait=false")
    out = cluster.kubectl("patch", "configmap", "web", "-n", ns, "--type=json", "-p",
                          json.dumps([{"op": "remove", "path": "/metadata/finalizers"}]), check=False)
    assert out.returncode == 0, out.stderr
    deadline = time.monotonic() + 30
    while stored(cluster, ns, "web") is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert stored(cluster, ns, "web") is None


def test_enforce_honours_ignore_marks_and_says_so(cluster, webhook):  # noqa: F811
    """mod_wsgi comes with the team's image: `# httpd24: ignore=HT406` above its directives lets the ConfigMap
    in, and kubectl shows how many findings the marks silenced."""
    ns = make_namespace(cluster, webhook, "enforce")
    wsgi = "WSGIScriptAlias / /srv/app.wsgi\nWSGIDaemonProcess app\n"
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("bare", {"httpd.conf": wsgi.encode()}), check=False)
    assert out.returncode != 0 and "HT406" in out.stderr  # without the marks: denied
    marked = "# httpd24: ignore=HT406\nWSGIScriptAlias / /srv/app.wsgi\n# httpd24: ignore=HT406\nWSGIDaemonProcess app\n"
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": marked.encode()}), check=False)
    assert out.returncode == 0, out.stderr
    assert ("Warning: httpd24: 2 findings silenced by `# httpd24: ignore` marks in the configuration (HT406 x2)"
            in out.stderr), out.stderr
    assert stored(cluster, ns, "web")["data"]["httpd.conf"] == marked


def test_an_httpdpolicy_leaves_rules_out_and_kubectl_shows_how_many_findings(cluster, webhook):  # noqa: F811
    """The same team, with the exemption written once for every namespace of the image instead of in each
    configuration: a policy that leaves HT406 out. The namespace label (enforce) decides the mode still."""
    policy = {
        "apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdPolicy", "metadata": {"name": "adm-e2e-wsgi"},
        "spec": {"mode": "warn", "namespaceSelector": {"matchLabels": {"adm-e2e-image": "wsgi"}}, "ignore": ["HT406"]},
    }
    bad = dict(policy, metadata={"name": "adm-e2e-typo"}, spec=dict(policy["spec"], ignore=["HT4O6"]))
    out = cluster.kubectl("apply", "-f", "-", input=json.dumps(bad), check=False)
    assert out.returncode != 0 and "spec.ignore[0]" in out.stderr, out.stderr  # the CRD refuses a typo
    cluster.kubectl("apply", "-f", "-", input=json.dumps(policy))
    try:
        header, row = cluster.kubectl("get", "httpdpolicy", "adm-e2e-wsgi").stdout.splitlines()
        assert header.split() == ["NAME", "MODE", "DEFAULTS", "IGNORE", "AGE"] and '["HT406"]' in row.split()
        ns = make_namespace(cluster, webhook, "enforce", labels={"adm-e2e-image": "wsgi"})
        deadline = time.monotonic() + 20
        while webhook.get("/debug/modes")[ns]["ignored"] != ["HT406"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert webhook.get("/debug/modes")[ns]["ignored"] == ["HT406"]
        wsgi = "WSGIScriptAlias / /srv/app.wsgi\nWSGIDaemonProcess app\nKeepAlive 5\n"
        out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": wsgi.encode()}),
                              check=False)
        assert out.returncode == 1, out.stderr  # what the policy does not leave out is still denied
        assert "HT120" in out.stderr and "HT406" not in out.stderr.split("denied the request")[1]
        wsgi = wsgi.replace("KeepAlive 5", "KeepAlive On")
        out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": wsgi.encode()}),
                              check=False)
        assert out.returncode == 0, out.stderr
        assert "Warning: httpd24: 2 findings left out by HttpdPolicy adm-e2e-wsgi (HT406 x2)" in out.stderr
        assert stored(cluster, ns, "web")["data"]["httpd.conf"] == wsgi
    finally:
        cluster.kubectl("delete", "httpdpolicy", "adm-e2e-wsgi", check=False)


# -- what never reaches the webhook ------------------------------------------------------------------------------------
def test_unlabelled_configmaps_never_reach_the_webhook(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "enforce")
    data = b"KeepAlive 5\n"
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("plain", {"httpd.conf": data}, labelled=False))
    assert stored(cluster, ns, "plain")["data"]["httpd.conf"] == "KeepAlive 5\n"
    # positive control: the labelled one in the same namespace does reach it
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("labelled", {"httpd.conf": data}), check=False)
    assert webhook.requests_for(ns, "labelled")
    assert webhook.requests_for(ns, "plain") == []


def test_an_update_that_removes_the_label_is_reviewed_as_the_labelled_configmap_it_was(cluster, webhook):  # noqa: F811
    """The apiserver sends an update whose old object matches the selector; the handlers ran only on the new
    object's labels, so one `kubectl apply` could drop the label and store 2.2 text in an enforce namespace,
    which an HttpdServer referencing the ConfigMap then serves. Dropping the label alone is let through, and
    after that the ConfigMap is no longer the webhook's."""
    ns = make_namespace(cluster, webhook, "enforce")
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": b"KeepAlive On\n"}))
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", check=False,
                          input=manifest("web", {"httpd.conf": b"KeepAlive On\nLockFile /var/lock/accept\n"}, labelled=False))
    assert out.returncode != 0 and DENIED in out.stderr and "HT110" in out.stderr, out.stderr
    assert stored(cluster, ns, "web")["data"]["httpd.conf"] == "KeepAlive On\n"
    out = cluster.kubectl("label", "configmap", "web", "-n", ns, f"{review.LABEL_CONFIG}-", check=False)
    assert out.returncode == 0, out.stderr
    cluster.kubectl("apply", "-n", ns, "-f", "-",
                    input=manifest("web", {"httpd.conf": b"KeepAlive On\nLockFile /var/lock/accept\n"}, labelled=False))
    assert stored(cluster, ns, "web")["data"]["httpd.conf"] == "KeepAlive On\nLockFile /var/lock/accept\n"


def test_excluded_namespace_never_reaches_the_webhook(cluster, webhook):  # noqa: F811
    cluster.kubectl("create", "namespace", "httpd24-system", check=False)
    cluster.kubectl("label", "namespace", "httpd24-system", "httpd24.io/mode=enforce", "--overwrite")
    cluster.kubectl(
        "apply", "-n", "httpd24-system", "-f", "-", input=manifest("own", {"httpd.conf": b"KeepAlive 5\n"})
    )
    assert webhook.requests_for("httpd24-system", "own") == []


def test_metrics_count_decisions_and_findings(cluster, webhook):  # noqa: F811
    text = webhook.get("/metrics", raw=True)
    assert 'httpd24_admission_duration_seconds_count{webhook="validate-configmap"}' in text
    assert 'httpd24_admission_decisions_total{dry_run="false",mode="enforce",result="denied",webhook="validate-configmap"}' in text
    assert 'httpd24_admission_findings_total{code="HT110",mode="enforce"}' in text


def test_malformed_review_gets_400_with_a_reason(webhook):
    import ssl

    context = ssl.create_default_context(cafile=str(Path(webhook.log_path).parent / "tls" / "ca.crt"))
    request = urllib.request.Request(
        f"https://127.0.0.1:{webhook.port}/validate-configmap", data=b'{"kind": "AdmissionReview"}', method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, context=context, timeout=5)
    assert caught.value.code == 400
    assert json.loads(caught.value.read())["error"].startswith("apiVersion must be")


def test_near_one_mebibyte_config_is_migrated_through_the_apiserver(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "migrate")
    line = b"# padding padding padding padding padding padding padding padding\n"
    data = b"ServerName big\nKeepAlive 5\n" + line * (900_000 // len(line))
    # `create`, not `apply`: apply would copy 900 KB into last-applied-configuration (256 KiB annotation limit)
    out = cluster.kubectl("create", "-n", ns, "-f", "-", input=manifest("big", {"httpd.conf": data}), timeout=120)
    assert "Warning: httpd24 migrated HT120=1" in out.stderr
    body = stored(cluster, ns, "big")
    assert body["data"]["httpd.conf"].encode() == data.replace(b"KeepAlive 5\n", b"KeepAlive On\n", 1)
    assert review.decode_original(body["metadata"]["annotations"]["httpd24.io/original"]) == {"httpd.conf": data}


def test_namespace_and_configmap_in_one_apply_get_the_namespace_mode(cluster, webhook):  # noqa: F811
    """No race with the namespace index: a namespace the webhook has not seen yet is read once."""
    name = f"adm-race-{uuid.uuid4().hex[:6]}"
    namespace = {"apiVersion": "v1", "kind": "Namespace",
                 "metadata": {"name": name, "labels": {"httpd24.io/mode": "enforce"}}}
    configmap = json.loads(manifest("web", {"httpd.conf": b"KeepAlive 5\n"}))
    configmap["metadata"]["namespace"] = name
    both = {"apiVersion": "v1", "kind": "List", "items": [namespace, configmap]}
    out = cluster.kubectl("apply", "-f", "-", input=json.dumps(both), check=False)
    assert f"namespace/{name} created" in out.stdout
    assert out.returncode == 1 and DENIED + "1 problem must be fixed for httpd 2.4 (httpd24 mode: enforce):" in out.stderr


def _post(webhook, path: str, body: bytes):
    import ssl

    context = ssl.create_default_context(cafile=str(Path(webhook.log_path).parent / "tls" / "ca.crt"))
    request = urllib.request.Request(f"https://127.0.0.1:{webhook.port}{path}", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_requests_for_other_kinds_are_allowed_with_a_warning(webhook):
    review_body = {
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": "u-9", "operation": "CREATE", "userInfo": {"username": "x"},
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "object": {"kind": "Deployment"},
        },
    }
    status, answer = _post(webhook, "/validate-configmap", json.dumps(review_body).encode())
    assert status == 200
    assert answer["response"]["allowed"] is True and answer["response"]["uid"] == "u-9"
    assert "reviews only core/v1 configmaps, not apps/v1/deployments" in answer["response"]["warnings"][0]
    status, answer = _post(webhook, "/somewhere", json.dumps(review_body).encode())
    assert status == 404 and "use /validate-configmap or /mutate-configmap" in answer["error"]
    status, answer = _post(webhook, "/mutate-configmap", b"\xff not json")
    assert status == 400 and answer["error"].startswith("the body is not JSON")


def test_an_entry_annotation_cannot_hide_a_key_from_enforce(cluster, webhook):  # noqa: F811
    """The pods read the HttpdServer's entry, not this annotation: a key it leaves out is still reviewed."""
    ns = make_namespace(cluster, webhook, "enforce")
    files = {"httpd.conf": b"ServerName x\nKeepAlive 5\n", "empty.conf": b"ServerName x\n"}
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", check=False,
                          input=manifest("web", files, annotations={"httpd24.io/entry": "empty.conf"}))
    assert out.returncode == 1
    assert DENIED + "1 problem must be fixed for httpd 2.4 (httpd24 mode: enforce):\nhttpd.conf:2: HT120 " in out.stderr
    assert stored(cluster, ns, "web") is None


def test_an_included_binary_key_is_denied_not_skipped(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "enforce")
    body = json.loads(manifest("web", {"httpd.conf": b"ServerName x\nInclude extra.conf\n"}))
    body["binaryData"] = {"extra.conf": base64.b64encode(b"KeepAlive 5\n# \0\n").decode()}
    out = cluster.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(body), check=False)
    assert out.returncode == 1
    assert "denied the request" in out.stderr and "extra.conf: holds NUL bytes" in out.stderr, out.stderr
    assert stored(cluster, ns, "web") is None


def test_a_migration_over_one_mebibyte_is_denied_with_the_reason(cluster, webhook):  # noqa: F811
    """MaxClients -> MaxRequestWorkers adds 7 bytes a line: the migrated object would not fit; the webhook
    says so instead of the apiserver refusing the patched object."""
    ns = make_namespace(cluster, webhook, "migrate")
    lines = b"MaxClients 10\n" * 2000
    padding = b"# padding padding padding padding padding padding padding padding\n"
    data = lines + padding * ((1_040_000 - len(lines)) // len(padding))
    out = cluster.kubectl("create", "-n", ns, "-f", "-", input=manifest("big", {"httpd.conf": data}),
                          check=False, timeout=120)
    assert out.returncode == 1
    assert "bytes of data and binaryData (limit 1048576)" in out.stderr.split(MUTATE_DENIED, 1)[1]
    assert stored(cluster, ns, "big") is None


def test_a_second_migration_keeps_the_first_original(cluster, webhook):  # noqa: F811
    ns = make_namespace(cluster, webhook, "migrate")
    first = b"ServerName x\nKeepAlive 5\n"
    cluster.kubectl("apply", "-n", ns, "-f", "-", input=manifest("web", {"httpd.conf": first}))
    migrated = stored(cluster, ns, "web")["data"]["httpd.conf"]
    edited = migrated + "MaxClients 10\n"
    cluster.kubectl("patch", "configmap", "web", "-n", ns, "--type", "merge",
                    "-p", json.dumps({"data": {"httpd.conf": edited}}))
    body = stored(cluster, ns, "web")
    assert body["data"]["httpd.conf"] == migrated + "MaxRequestWorkers 10\n"
    assert review.decode_original(body["metadata"]["annotations"]["httpd24.io/original"]) == {"httpd.conf": first}


def test_a_body_past_the_limit_gets_413_with_a_reason(webhook):
    from httpd24.k8s.admission import MAX_REVIEW_BYTES

    status, answer = _post(webhook, "/validate-configmap", b" " * (MAX_REVIEW_BYTES + 1))
    assert status == 413 and "larger than" in answer["error"]


def test_applying_the_same_original_again_leaves_the_migrated_object_as_stored(cluster, webhook):  # noqa: F811
    """A GitOps sync or a CI job applies the same manifest again: the apiserver gets the original text again
    (client-side and server-side apply alike), and the object must come out as stored, not with its codes
    counted once more on every apply."""
    ns = make_namespace(cluster, webhook, "migrate")
    for name, argv in (("client-side", ["apply"]), ("server-side", ["apply", "--server-side"])):
        text = manifest(name, {"httpd.conf": b"ServerName x\nKeepAlive 5\n"})
        cluster.kubectl(*argv, "-n", ns, "-f", "-", input=text)
        first = stored(cluster, ns, name)
        assert first["metadata"]["annotations"]["httpd24.io/migrated"] == "HT120=1"
        for _ in range(2):
            cluster.kubectl(*argv, "-n", ns, "-f", "-", input=text)
            assert stored(cluster, ns, name) == first, name


def test_a_user_can_neither_forge_nor_remove_the_record(cluster, webhook):  # noqa: F811
    """The recovery command prints what the user sent, and nothing a manifest or an annotate wrote there."""
    ns = make_namespace(cluster, webhook, "migrate")
    sent = b"ServerName x\nKeepAlive 5\n"
    forged = review.encode_original({"httpd.conf": b"ServerName never-sent\n"})

    def shown():
        return subprocess.run(review.original_command("web", ns), shell=True, capture_output=True,
                              env=cluster.env, check=True).stdout

    cluster.kubectl("create", "-n", ns, "-f", "-", input=manifest(
        "web", {"httpd.conf": sent}, annotations={"httpd24.io/original": forged, "httpd24.io/migrated": "HT999=1"}))
    assert shown() == sent
    assert stored(cluster, ns, "web")["metadata"]["annotations"]["httpd24.io/migrated"] == "HT120=1"
    review_annotations = stored(cluster, ns, "web")["metadata"]["annotations"]
    out = cluster.kubectl("annotate", "configmap", "web", "-n", ns, "--overwrite",
                          f"httpd24.io/original={forged}", "httpd24.io/audit-findings=99", "httpd24.io/migrated-")
    assert "the configuration is unchanged by this update" in out.stderr
    assert stored(cluster, ns, "web")["metadata"]["annotations"] == review_annotations
    assert shown() == sent
    cluster.kubectl("annotate", "configmap", "web", "-n", ns, "httpd24.io/original-")
    assert shown() == sent


def test_requests_after_review_workers_were_killed_are_answered(cluster, webhook):  # noqa: F811
    """kill -9 of every review worker (the out-of-memory killer would pick them): the next requests, however
    many at once, are answered (by workers started again, or in the webhook's process), none fails."""
    ns = make_namespace(cluster, webhook, "enforce")

    def workers():  # forked by the forkserver, a child of the webhook's process
        children = Path(f"/proc/{webhook.proc.pid}/task/{webhook.proc.pid}/children").read_text().split()
        return [int(pid) for parent in children
                for pid in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()]

    assert len(workers()) >= 2, workers()
    # Twice: a worker that had answered is started again at once, and killed again before any request.
    for _ in range(2):
        for pid in workers():
            os.kill(pid, signal.SIGKILL)
        time.sleep(1)
    names = [f"web-{n}" for n in range(4)]
    runs = [subprocess.Popen([str(cluster.bin_dir / "kubectl"), "apply", "-n", ns, "-f", "-"], env=cluster.env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in names]
    for run, name in zip(runs, names):
        run.stdin.write(manifest(name, {"httpd.conf": b"ServerName x\nKeepAlive 5\n"}))
        run.stdin.close()
    for run in runs:
        run.wait(60)
        stderr = run.stderr.read()
        assert run.returncode == 1 and DENIED + "1 problem must be fixed" in stderr, stderr

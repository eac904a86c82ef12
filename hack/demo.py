#!/usr/bin/env python3
"""The end-to-end demo (``./run demo``): httpd24 on a real local Kubernetes control plane.

1. brings the local cluster up (``hack/cluster/cluster.sh up``: real etcd, kube-apiserver,
   controller-manager, scheduler, kwok nodes) unless ``HTTPD24_CLUSTER_DIR`` names a running one;
2. installs the Helm chart (CRDs, ServiceAccount, least-privilege RBAC, the two webhook
   configurations) with ``webhook.url`` pointing at an operator on this machine;
3. starts ``httpd24 operator`` here, logged in with a token of the chart's ServiceAccount (so the
   demo runs with exactly the permissions the chart grants);
4. applies a real Debian 2.2 ``apache2.conf`` in an ``enforce`` namespace: DENIED, kubectl's stderr
   printed; a real 2.2 ``httpd-info.conf`` in a ``migrate`` namespace: stored MIGRATED, the stored
   text printed with the command that shows the original;
5. applies an HttpdServer for the migrated ConfigMap: the operator runs ``httpd -t`` and rolls out a
   Deployment on the kwok nodes; then changes the ConfigMap and shows the new rollout;
6. says what it showed, and tears everything down (``--keep`` leaves it running).

Options: ``--keep``, ``--suffix S`` (names of the release and namespaces, so a test can run it on a
shared cluster), ``--timeout SECONDS`` per wait. Exit 0 when every step behaved as described, 1
otherwise (the step that failed is named).

The helpers (:func:`token_kubeconfig`, :class:`LocalOperator`, :class:`Kube`) are used by
``tests/packaging`` too.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLUSTER_SH = REPO / "hack" / "cluster" / "cluster.sh"
CHART = REPO / "charts" / "httpd24"
EXAMPLES = REPO / "examples"


class StepFailed(Exception):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the cluster -----------------------------------------------------------------------------------
def cluster_env(state_dir: Path) -> dict[str, str]:
    """os.environ plus what ``cluster.sh env`` exports (KUBECONFIG, PATH with kubectl/helm first)."""
    env = dict(os.environ, HTTPD24_CLUSTER_DIR=str(state_dir))
    out = subprocess.run([str(CLUSTER_SH), "env"], env=env, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("export ") and "=" in line:
            key, _, value = line[len("export "):].partition("=")
            value = value.replace("$PATH", env.get("PATH", ""))
            env[key] = shlex.split(value)[0] if value else ""
    for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(key, None)
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    helm_home = state_dir / "helm"
    env.setdefault("HELM_CACHE_HOME", str(helm_home / "cache"))
    env.setdefault("HELM_CONFIG_HOME", str(helm_home / "config"))
    env.setdefault("HELM_DATA_HOME", str(helm_home / "data"))
    return env


class Kube:
    """kubectl and helm of the local cluster (``kubeconfig`` overrides the admin one)."""

    def __init__(self, env: dict[str, str], state_dir: Path):
        self.env = env
        self.state_dir = state_dir

    def run(self, *argv, input=None, check=True, timeout=180, kubeconfig=None) -> subprocess.CompletedProcess:
        env = dict(self.env, KUBECONFIG=str(kubeconfig)) if kubeconfig else self.env
        proc = subprocess.run([str(a) for a in argv], input=input, capture_output=True, text=True, env=env,
                              timeout=timeout)
        if check and proc.returncode != 0:
            raise StepFailed(f"`{' '.join(map(str, argv))}` exited {proc.returncode}:\n{proc.stderr.strip()}")
        return proc

    def kubectl(self, *args, **kw) -> subprocess.CompletedProcess:
        return self.run("kubectl", *args, **kw)

    def helm(self, *args, **kw) -> subprocess.CompletedProcess:
        return self.run("helm", *args, **kw)

    def json(self, *args, **kw):
        return json.loads(self.kubectl(*args, "-o", "json", **kw).stdout)

    @property
    def api_url(self) -> str:
        ports = dict(line.split("=", 1) for line in (self.state_dir / "ports.env").read_text().split())
        return f"https://127.0.0.1:{ports['APISERVER_PORT']}"

    @property
    def ca_cert(self) -> Path:
        return self.state_dir / "certs" / "ca.crt"


def token_kubeconfig(kube: Kube, namespace: str, service_account: str, path: Path, duration: str = "2h") -> Path:
    """A kubeconfig whose only credential is a token the apiserver issues for the ServiceAccount."""
    token = kube.kubectl("create", "token", service_account, "-n", namespace, "--duration", duration).stdout.strip()
    if not token:
        raise StepFailed(f"kubectl create token {service_account} returned nothing")
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "local", "cluster": {"server": kube.api_url, "certificate-authority": str(kube.ca_cert)}}],
        "users": [{"name": service_account, "user": {"token": token}}],
        "contexts": [{"name": "sa", "context": {"cluster": "local", "user": service_account, "namespace": namespace}}],
        "current-context": "sa",
    }
    path.write_text(json.dumps(config, indent=2))
    path.chmod(0o600)
    return path


# -- the operator on this machine ----------------------------------------------------------------------
class LocalOperator:
    """``httpd24 operator`` as a subprocess: webhooks on 127.0.0.1 with its own CA, metrics/probes on
    another port, logged in with ``kubeconfig``."""

    def __init__(self, workdir: Path, kubeconfig: Path, *, operator_namespace: str, namespaces=(),
                 default_mode: str = "warn", env: dict | None = None):
        from httpd24.k8s import certs

        self.workdir = workdir
        self.kubeconfig = kubeconfig
        self.port = free_port()
        self.metrics_port = free_port()
        self.tls = certs.ensure(workdir / "tls", ["127.0.0.1"])
        self.ca_bundle = base64.b64encode(Path(self.tls.ca).read_bytes()).decode()
        self.url = f"https://127.0.0.1:{self.port}"
        self.log = workdir / "operator.log"
        self.argv = [
            sys.executable, "-m", "httpd24", "operator",
            "--webhook-addr", "127.0.0.1", "--webhook-port", str(self.port),
            "--tls-cert-file", str(self.tls.cert), "--tls-key-file", str(self.tls.key), "--tls-ca-file", str(self.tls.ca),
            "--operator-namespace", operator_namespace, "--default-mode", default_mode,
            "--metrics-addr", "127.0.0.1", "--metrics-port", str(self.metrics_port),
            "--review-workers", "1", "--log-format", "text",
            *[a for ns in namespaces for a in ("--namespace", ns)],
        ]
        self.env = dict(env or os.environ, KUBECONFIG=str(kubeconfig), PYTHONUNBUFFERED="1",
                        NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
            self.env.pop(key, None)
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90) -> None:
        handle = open(self.log, "ab")
        self.proc = subprocess.Popen(self.argv, stdout=handle, stderr=subprocess.STDOUT, env=self.env,
                                     start_new_session=True)
        handle.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise StepFailed(f"httpd24 operator exited {self.proc.returncode}:\n{self.logs()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/readyz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise StepFailed(f"httpd24 operator not ready after {timeout:.0f} s:\n{self.logs()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)

    def logs(self, tail: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-tail:] if self.log.exists() else ""


def wait_for(what: str, predicate, timeout: float, operator: LocalOperator | None = None):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if operator is not None and operator.proc is not None and operator.proc.poll() is not None:
            raise StepFailed(f"the operator exited while waiting for {what}:\n{operator.logs()}")
        last = predicate()
        if last:
            return last
        time.sleep(0.5)
    raise StepFailed(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})"
                     + (f"\noperator log:\n{operator.logs()}" if operator else ""))


# -- the demo ----------------------------------------------------------------------------------------
def say(text: str = "") -> None:
    print(text, flush=True)


def banner(text: str) -> None:
    say()
    say(f"=== {text}")


def show(text: str, indent: str = "    ") -> None:
    say(textwrap.indent(text.rstrip("\n"), indent, lambda line: True))


def in_namespace(manifest: str, namespace: str) -> str:
    import yaml

    docs = [d for d in yaml.safe_load_all(manifest) if d]
    for d in docs:
        d.setdefault("metadata", {})["namespace"] = namespace
    return yaml.safe_dump_all(docs, sort_keys=False)


def run_demo(args: argparse.Namespace) -> int:
    suffix = f"-{args.suffix}" if args.suffix else ""
    release, system_ns = f"httpd24-demo{suffix}", f"httpd24-demo-system{suffix}"
    enforce_ns, migrate_ns = f"demo-enforce{suffix}", f"demo-migrate{suffix}"
    scope_label = f"demo{suffix}"
    work = Path(tempfile.mkdtemp(prefix="httpd24-demo-"))

    # 1. the cluster
    state = os.environ.get("HTTPD24_CLUSTER_DIR")
    started_cluster = False
    banner("1. A local Kubernetes control plane (real kube-apiserver, etcd, controllers; kwok nodes)")
    env0 = dict(os.environ)
    if state and subprocess.run([str(CLUSTER_SH), "status"], env=dict(env0, HTTPD24_CLUSTER_DIR=state),
                                capture_output=True).returncode == 0:
        state_dir = Path(state)
        say(f"using the cluster already running in {state_dir}")
    else:
        state_dir = Path(state) if state else work / "cluster"
        say(f"$ hack/cluster/cluster.sh up   (state in {state_dir}; the first run builds the binaries)")
        proc = subprocess.run([str(CLUSTER_SH), "up"], env=dict(env0, HTTPD24_CLUSTER_DIR=str(state_dir)),
                              capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
            raise StepFailed(f"cluster.sh up failed:\n{proc.stderr[-3000:]}")
        started_cluster = True
        say(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "up")
    kube = Kube(cluster_env(state_dir), state_dir)
    show(kube.kubectl("get", "nodes").stdout)

    operator = None
    try:
        # 2. namespaces and the chart
        banner("2. Namespaces: one that enforces 2.4, one that migrates on apply")
        for ns, mode in ((enforce_ns, "enforce"), (migrate_ns, "migrate")):
            kube.kubectl("create", "namespace", ns)
            kube.kubectl("label", "namespace", ns, f"httpd24.io/mode={mode}", f"httpd24.io/demo={scope_label}")
            say(f"$ kubectl label namespace {ns} httpd24.io/mode={mode}")

        banner("3. helm install: CRDs, ServiceAccount, least-privilege RBAC, the webhooks (URL mode, for an operator run here)")
        kube.kubectl("create", "namespace", system_ns)
        kube.kubectl("label", "namespace", system_ns, "pod-security.kubernetes.io/enforce=restricted")
        # the local operator's certificate must exist before the chart names its CA
        operator_dir = work / "operator"
        operator_dir.mkdir()
        placeholder = LocalOperator(operator_dir, operator_dir / "kubeconfig", operator_namespace=system_ns,
                                    namespaces=(enforce_ns, migrate_ns))
        helm_args = [
            "upgrade", "--install", release, str(CHART), "-n", system_ns, "--wait", "--timeout", "120s",
            "--set", "operator.enabled=false",
            "--set", f"webhook.url={placeholder.url}",
            "--set", f"webhook.caBundle={placeholder.ca_bundle}",
            "--set", f"operator.watchNamespaces={{{enforce_ns},{migrate_ns}}}",
            # only this demo's namespaces reach these webhooks (the cluster may be shared)
            "--set", f"webhook.namespaceSelector.matchLabels.httpd24\\.io/demo={scope_label}",
        ]
        say(f"$ helm {' '.join(shlex.quote(a) for a in helm_args[:4])} --set operator.enabled=false "
            f"--set webhook.url={placeholder.url} --set webhook.caBundle=... ...")
        kube.helm(*helm_args)
        show(kube.kubectl("get", "crd", "httpdservers.httpd24.io", "httpdpolicies.httpd24.io").stdout)
        show(kube.kubectl("get", "validatingwebhookconfiguration,mutatingwebhookconfiguration",
                          "-l", f"app.kubernetes.io/instance={release}").stdout)

        banner("4. httpd24 operator, here, logged in as the chart's ServiceAccount (a token from the apiserver)")
        sa = release  # the chart's ServiceAccount is the release's full name
        kubeconfig = token_kubeconfig(kube, system_ns, sa, operator_dir / "kubeconfig")
        say(f"$ kubectl create token {sa} -n {system_ns}   -> {kubeconfig}")
        secrets = kube.kubectl("get", "secrets", "-n", "kube-system", kubeconfig=kubeconfig, check=False)
        say(f"$ kubectl get secrets -n kube-system   (as that identity)\n    {secrets.stderr.strip()}")
        if secrets.returncode == 0:
            raise StepFailed("the operator's identity can read Secrets in kube-system")
        operator = placeholder
        say(f"$ {' '.join(shlex.quote(a) for a in ['httpd24', *operator.argv[3:]])}")
        operator.start(timeout=args.timeout)
        say(f"ready: webhooks on {operator.url}, /metrics /healthz /readyz on 127.0.0.1:{operator.metrics_port}")

        # 5. denied
        banner(f"5. A real Debian 2.2 apache2.conf in {enforce_ns} (mode enforce)")
        manifest = in_namespace((EXAMPLES / "debian-wheezy-apache2.yaml").read_text(), enforce_ns)
        say(f"$ kubectl apply -n {enforce_ns} -f examples/debian-wheezy-apache2.yaml")
        denied = kube.kubectl("apply", "-f", "-", input=manifest, check=False)
        show(denied.stderr or denied.stdout)
        if denied.returncode == 0 or "HT" not in denied.stderr:
            raise StepFailed("the 2.2 ConfigMap was not denied with findings in enforce mode")
        if kube.kubectl("get", "configmap", "debian-wheezy", "-n", enforce_ns, check=False).returncode == 0:
            raise StepFailed("the denied ConfigMap was stored")
        say("-> DENIED: nothing was stored; each line says file:line, the rule, and the 2.4 replacement.")

        # 6. migrated
        banner(f"6. Apache 2.2.15's httpd-info.conf in {migrate_ns} (mode migrate)")
        manifest = in_namespace((EXAMPLES / "server-info-22.yaml").read_text(), migrate_ns)
        import yaml

        docs = list(yaml.safe_load_all(manifest))
        cm_doc = next(d for d in docs if d["kind"] == "ConfigMap")
        server_doc = next(d for d in docs if d["kind"] == "HttpdServer")
        say(f"$ kubectl apply -n {migrate_ns} -f examples/server-info-22.yaml   (the ConfigMap)")
        applied = kube.kubectl("apply", "-f", "-", input=yaml.safe_dump(cm_doc))
        show(applied.stderr + applied.stdout)
        stored = kube.json("get", "configmap", "server-info", "-n", migrate_ns)
        text = stored["data"]["httpd.conf"]
        if "Order deny,allow" in text or "Require host .example.com" not in text:
            raise StepFailed("the stored ConfigMap is not the migrated text")
        say("stored text (kubectl get cm server-info -o jsonpath='{.data.httpd\\.conf}'), the 2.4 lines:")
        show("\n".join(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")))
        annotations = stored["metadata"].get("annotations") or {}
        say(f"annotation httpd24.io/migrated: {annotations.get('httpd24.io/migrated')}")
        from httpd24.k8s import review

        command = review.original_command("server-info", migrate_ns)
        original = subprocess.run(["bash", "-c", command], env=kube.env, capture_output=True, text=True)
        say(f"the original, byte for byte:  $ {command}")
        show("\n".join(line for line in original.stdout.splitlines() if "llow" in line or "Order" in line))
        if original.stdout != cm_doc["data"]["httpd.conf"]:
            raise StepFailed("the original text is not recoverable byte for byte")
        say("-> MIGRATED on apply; the original is kept in the object itself.")

        # 7. rollout
        banner("7. An HttpdServer: httpd -t on the exact files, then a Deployment on the kwok nodes")
        say(f"$ kubectl apply -n {migrate_ns} -f examples/server-info-22.yaml   (the HttpdServer)")
        kube.kubectl("apply", "-f", "-", input=yaml.safe_dump(server_doc))

        def server_ready():
            hs = kube.json("get", "httpdserver", "server-info", "-n", migrate_ns)
            return hs if (hs.get("status") or {}).get("phase") == "Ready" else None

        hs = wait_for("the HttpdServer to be Ready", server_ready, args.timeout, operator)
        status = hs["status"]
        first_hash = status.get("configHash")
        show(kube.kubectl("get", "httpdserver,deployment,pods", "-n", migrate_ns).stdout)
        modules = status.get("modules") or status.get("requiredModules")
        if modules:
            say(f"modules loaded: {', '.join(m if isinstance(m, str) else m.get('name', str(m)) for m in modules)}")
        for cond in status.get("conditions") or []:
            say(f"  {cond['type']}={cond['status']} ({cond.get('reason')}): {cond.get('message', '')[:110]}")

        # 8. change -> new rollout
        banner("8. Change the ConfigMap: a new hash, a new ReplicaSet")
        patch = {"data": {"httpd.conf": cm_doc["data"]["httpd.conf"].replace(
            "ServerName www.example.com", "ServerName www.example.com\nTimeout 120")}}
        say(f"$ kubectl patch configmap server-info -n {migrate_ns} --type merge -p '{{\"data\": ...Timeout 120...}}'")
        kube.kubectl("patch", "configmap", "server-info", "-n", migrate_ns, "--type", "merge", "-p", json.dumps(patch))

        def rolled_again():
            hs = kube.json("get", "httpdserver", "server-info", "-n", migrate_ns)
            st = hs.get("status") or {}
            return hs if st.get("phase") == "Ready" and st.get("configHash") not in (None, first_hash) else None

        hs = wait_for("a new rollout", rolled_again, args.timeout, operator)
        show(kube.kubectl("get", "replicasets", "-n", migrate_ns, "-l", "httpd24.io/server=server-info").stdout)
        say(f"config hash {first_hash[:12] if first_hash else '?'} -> {hs['status']['configHash'][:12]}")
        show(kube.kubectl("rollout", "status", "deployment/server-info", "-n", migrate_ns, "--timeout=60s").stdout)

        banner("What this showed")
        say(textwrap.dedent("""\
            - A real 2.2 configuration was refused by the real kube-apiserver in an enforce namespace, and
              kubectl printed each problem with its line, rule code and the 2.4 replacement.
            - Another one was rewritten to 2.4 on apply in a migrate namespace; the original text is kept in
              the object (annotation httpd24.io/original) and came back byte for byte.
            - An HttpdServer turned that configuration into a Deployment after a real `httpd -t`, with only
              the modules it needs; editing the ConfigMap rolled out a new ReplicaSet.
            - All of it ran as the Helm chart's ServiceAccount (a token issued by the apiserver), which was
              refused reading Secrets: the chart's RBAC is enough, and no more.
            """).rstrip())
        return 0
    finally:
        if operator is not None and not args.keep:
            operator.stop()
        if args.keep:
            banner("Kept running (--keep)")
            say(f"export KUBECONFIG={kube.env.get('KUBECONFIG')}")
            if operator is not None:
                say(f"operator pid {operator.proc.pid if operator.proc else '?'}, log {operator.log}")
            say(f"tear down: helm uninstall {release} -n {system_ns}; kubectl delete ns {enforce_ns} {migrate_ns} "
                f"{system_ns}" + (f"; HTTPD24_CLUSTER_DIR={state_dir} hack/cluster/cluster.sh down" if started_cluster else ""))
        else:
            banner("Tearing down")
            kube.helm("uninstall", release, "-n", system_ns, "--wait", check=False)
            kube.kubectl("delete", "namespace", enforce_ns, migrate_ns, system_ns, "--wait=false", check=False)
            if started_cluster:
                subprocess.run([str(CLUSTER_SH), "down"], env=dict(env0, HTTPD24_CLUSTER_DIR=str(state_dir)),
                               capture_output=True, timeout=180)
                say("cluster stopped")
            import shutil

            shutil.rmtree(work, ignore_errors=True)
            say("done")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="leave the cluster, release and operator running")
    parser.add_argument("--suffix", default="", help="suffix for the release and namespace names")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per wait (default 120)")
    args = parser.parse_args(argv)
    try:
        return run_demo(args)
    except StepFailed as error:
        print(f"\ndemo FAILED: {error}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Admission webhook latency: p50/p95/p99 at concurrency 1, 10, 50 for 100, 1,000 and 10,000-line configs.

Two paths, in one run:

* ``direct``:    AdmissionReview POSTs straight to the validating webhook (HTTPS), every body
                 unique (no cache hits): the webhook's own cost;
* ``apiserver``: real ConfigMap creates through the kube-apiserver, which calls the mutating and
                 the validating webhook over TLS before storing the object in etcd.
                 A row without the label (the webhook is not called) gives the apiserver's own cost.

    python bench/admission.py                      # starts a local cluster (hack/cluster) and the webhook
    HTTPD24_CLUSTER_DIR=/tmp/c HTTPD24_CLUSTER_REUSE=1 python bench/admission.py   # reuse a running cluster
    python bench/admission.py --quick              # fewer requests per cell

Targets (issue 6): p99 <= 10 ms direct and <= 50 ms through the apiserver for 1,000 lines at concurrency 10.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import aiohttp  # noqa: E402

from httpd24.k8s import certs  # noqa: E402
from httpd24.k8s.webhooks import VALIDATE_ID  # noqa: E402

SIZES = (100, 1_000, 10_000)
CONCURRENCY = (1, 10, 50)

BLOCK = [
    '<Directory "/srv/www/site{n}">',
    "    Options FollowSymLinks",
    "    AllowOverride None",
    "    Require all granted",
    "</Directory>",
    "Alias /site{n} /srv/www/site{n}",
    "# site {n}: static files",
    "AddType text/html .shtml{n}",
    "MaxClients 150",
    "KeepAliveTimeout 5",
]


def config(lines: int, salt: str) -> str:
    """A config of exactly ``lines`` lines with one 2.2 finding (MaxClients) per ten lines, unique by ``salt``."""
    out = [f"ServerName bench-{salt}.example"]
    n = 0
    while len(out) < lines:
        out.extend(line.format(n=n) for line in BLOCK)
        n += 1
    return "\n".join(out[:lines]) + "\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(children.get(current, []))
    return out


def cpu_seconds(pids: list[int]) -> float:
    """user+system CPU of the processes (load-independent cost, unlike wall-clock latency)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


WEBHOOK_PIDS: list[int] = []


@dataclass
class Webhook:
    """A webhook process (``httpd24 operator --no-operator``) on loopback ports."""

    process: subprocess.Popen
    port: int
    metrics_port: int
    log: Path

    def ready(self, namespace: str | None = None, mode: str | None = None, timeout: float = 60) -> bool:
        """Serving (and, with a namespace, reading its mode label); False with the log's tail on stderr."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/readyz", timeout=2):
                    pass
                if namespace is None:
                    return True
                with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/debug/modes", timeout=2) as resp:
                    if json.loads(resp.read()).get(namespace, {}).get("mode") == mode:
                        return True
            except OSError:
                pass
            time.sleep(0.1)
        print(self.log.read_text()[-3000:], file=sys.stderr)
        return False

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_webhook(cluster, files, log: Path, *extra: str, source: Path | None = None) -> Webhook:
    """The webhook on fresh loopback ports, running the package under ``source`` (default: the installed one)."""
    port, metrics_port = free_port(), free_port()
    env = dict(cluster.env, PYTHONUNBUFFERED="1")
    if source is not None:
        env["PYTHONPATH"] = str(source)
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "httpd24.k8s.main", "--no-operator", "--webhook-addr", "127.0.0.1",
             "--webhook-port", str(port), "--tls-cert-file", str(files.cert), "--tls-key-file", str(files.key),
             "--tls-ca-file", str(files.ca), "--metrics-addr", "127.0.0.1", "--metrics-port", str(metrics_port),
             "--quiet", *extra],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )
    return Webhook(process, port, metrics_port, log)


def labelled_namespace(cluster, namespace: str, mode: str) -> None:
    cluster.kubectl("create", "namespace", namespace)
    cluster.kubectl("label", "namespace", namespace, f"httpd24.io/mode={mode}")


async def run_cell(send, total: int, concurrency: int) -> tuple[list[float], int]:
    cpu_before = cpu_seconds(WEBHOOK_PIDS)
    latencies: list[float] = []
    errors = 0
    counter = iter(range(total))

    async def worker() -> None:
        nonlocal errors
        for i in counter:
            started = time.perf_counter()
            try:
                ok = await send(i)
            except Exception:
                ok = False
            latencies.append(time.perf_counter() - started)
            if not ok:
                errors += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    LAST_CPU[0] = (cpu_seconds(WEBHOOK_PIDS) - cpu_before) / max(total, 1)
    return latencies, errors


LAST_CPU = [0.0]


def review_body(text: str, namespace: str, name: str) -> bytes:
    obj = {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"httpd24.io/config": "true"}},
        "data": {"httpd.conf": text},
    }
    return json.dumps({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": str(uuid.uuid4()), "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "requestResource": {"group": "", "version": "v1", "resource": "configmaps"},
            "name": name, "namespace": namespace, "operation": "CREATE",
            "userInfo": {"username": "bench"}, "object": obj, "oldObject": None, "dryRun": False,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"},
        },
    }).encode()


def direct_sender(session, port: int, payloads: list[bytes]):
    """``send(i)``: POST the i-th AdmissionReview to the validating webhook; True when it is allowed."""
    url = f"https://127.0.0.1:{port}/{VALIDATE_ID}"

    async def send(i: int) -> bool:
        async with session.post(url, data=payloads[i], headers={"Content-Type": "application/json"}) as response:
            answer = await response.json()
            return response.status == 200 and answer["response"]["allowed"]

    return send


async def bench(args, cluster, hook_port: int, ca: Path, namespace: str) -> list[tuple]:
    from httpd24.k8s.rollout_api import Kube

    rows = []
    context = ssl.create_default_context(cafile=str(ca))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context, limit=200)) as session, Kube(limit=200) as kube:
        for lines in SIZES:
            total = args.requests if lines < 10_000 else max(args.requests // 4, 20)
            for concurrency in CONCURRENCY:
                # -- direct
                direct = direct_sender(session, hook_port, [
                    review_body(config(lines, uuid.uuid4().hex), namespace, f"d{i}") for i in range(total)])
                await run_cell(direct, min(10, total), concurrency)  # warm-up
                latencies, errors = await run_cell(direct, total, concurrency)
                rows.append(("direct", lines, concurrency, total, latencies, errors, LAST_CPU[0]))
                report(rows[-1])
                # -- through the apiserver, labelled (both webhooks) and unlabelled (no webhook)
                for labelled in (True, False):
                    prefix = uuid.uuid4().hex[:8]
                    texts = [config(lines, uuid.uuid4().hex) for _ in range(total)]  # nothing cached

                    async def create(i: int, labelled=labelled, prefix=prefix, texts=texts) -> bool:
                        body = {
                            "apiVersion": "v1", "kind": "ConfigMap",
                            "metadata": {"name": f"b-{prefix}-{i}",
                                         "labels": {"httpd24.io/config": "true"} if labelled else {}},
                            "data": {"httpd.conf": texts[i % len(texts)]},
                        }
                        await kube.request("POST", f"/api/v1/namespaces/{namespace}/configmaps", body=body)
                        return True

                    latencies, errors = await run_cell(create, total, concurrency)
                    path = "apiserver" if labelled else "apiserver, no label (no webhook)"
                    rows.append((path, lines, concurrency, total, latencies, errors, LAST_CPU[0]))
                    report(rows[-1])
                    await kube.request("DELETE", f"/api/v1/namespaces/{namespace}/configmaps")
    return rows


def report(row) -> None:
    path, lines, concurrency, total, latencies, errors, cpu = row
    print(
        f"  {path:34} {lines:>6} lines  c={concurrency:<3} n={total:<4} p50 {percentile(latencies, 50)*1000:7.1f} ms"
        f"  p95 {percentile(latencies, 95)*1000:7.1f} ms  p99 {percentile(latencies, 99)*1000:7.1f} ms  errors {errors}"
        f"  webhook CPU {cpu*1000:6.1f} ms/request",
        file=sys.stderr, flush=True,
    )


def table(rows, mode: str) -> str:
    out = [
        f"| path ({mode} mode) | lines | concurrency | requests | p50 ms | p95 ms | p99 ms | errors "
        "| webhook CPU ms/request |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for path, lines, concurrency, total, latencies, errors, cpu in rows:
        out.append(
            f"| {path} | {lines:,} | {concurrency} | {total} | {percentile(latencies, 50)*1000:.1f} | "
            f"{percentile(latencies, 95)*1000:.1f} | {percentile(latencies, 99)*1000:.1f} | {errors} | {cpu*1000:.1f} |"
        )
    load = os.getloadavg()
    out.append(f"\nload average during the run: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} CPUs")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per cell (10,000 lines: a quarter)")
    parser.add_argument("--quick", action="store_true", help="50 requests per cell")
    parser.add_argument("--sizes", default="100,1000,10000", help="config sizes in lines (comma-separated)")
    parser.add_argument("--concurrency", default="1,10,50", help="concurrency levels (comma-separated)")
    parser.add_argument("--review-workers", type=int, default=None, help="passed to the webhook (default: its own)")
    parser.add_argument("--mode", default="warn", choices=["audit", "warn", "migrate", "enforce"],
                        help="namespace mode during the run (default: warn; every request is allowed)")
    args = parser.parse_args(argv)
    if args.quick:
        args.requests = 50
    global SIZES, CONCURRENCY
    SIZES = tuple(int(x) for x in args.sizes.split(","))
    CONCURRENCY = tuple(int(x) for x in args.concurrency.split(","))
    import cluster_fixture

    cluster = cluster_fixture.session_cluster()
    os.environ["KUBECONFIG"] = str(cluster.kubeconfig)
    for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        os.environ.pop(k, None)
    work = Path(tempfile.mkdtemp(prefix="httpd24-bench-"))
    files = certs.ensure(work / "tls", ["127.0.0.1"])
    hook = start_webhook(
        cluster, files, work / "webhook.log", "--manage-webhooks", "--webhook-name", "httpd24-bench",
        *(["--review-workers", str(args.review_workers)] if args.review_workers is not None else []),
    )
    namespace = f"bench-{uuid.uuid4().hex[:6]}"
    try:
        if not hook.ready():
            return 1
        labelled_namespace(cluster, namespace, args.mode)
        if not hook.ready(namespace, args.mode):
            return 1
        WEBHOOK_PIDS[:] = descendants(hook.process.pid)
        print(f"webhook pids {WEBHOOK_PIDS}, namespace {namespace}, mode {args.mode}", file=sys.stderr)
        rows = asyncio.run(bench(args, cluster, hook.port, files.ca, namespace))
        print(table(rows, args.mode))
        return 0 if all(r[5] == 0 for r in rows) else 1
    finally:
        cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)
        hook.stop()
        cluster_fixture._stop_session()


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Operator scale bench on the local control plane with kwok nodes.

1. Creates N HttpdServers (default 1,000), each with its own 2.2 ConfigMap (all different:
   ServerName, MaxClients and the allowed address vary, so every one is planned and passes
   a real ``httpd -t`` of its own), and measures the time until every Deployment exists and
   is rolled out (all replicas updated and available) and every HttpdServer is Ready.
2. Measures the operator's RSS (peak, and settled), then creates M unrelated ConfigMaps
   (default 10,000, ~1 KiB each) and measures the settled RSS again.

Usage::

    python bench/rollout.py [--servers 1000] [--noise 10000] [--nodes 12]

A fresh cluster is started (hack/cluster) unless HTTPD24_CLUSTER_REUSE=1 and
HTTPD24_CLUSTER_DIR point at one that is up (it then needs enough kwok pods: 110 per node).
Targets (issue 7): N=1,000 within 120 s, RSS < 200 MB, flat with unrelated ConfigMaps.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

CONF = """\
ServerName www{i}.example.test
User daemon
Group daemon
MaxClients {clients}
KeepAliveTimeout {keepalive}
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
    Allow from 10.{a}.{b}.0/24
</Location>
"""


def cpu_seconds(pid: int) -> float:
    """User+system CPU of a process and its waited-for children (httpd -t runs)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def vm_hwm(pid: int) -> int:
    """Peak resident set of the operator's Python process alone (bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def rss_of_tree(pid: int) -> int:
    """Resident set of a process and its children (bytes)."""
    total = 0
    pids = [pid]
    try:
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout.split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Sampler(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.last = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.last = rss_of_tree(self.pid)
            self.peak = max(self.peak, self.last)
            time.sleep(0.25)

    def settled(self, seconds: float = 5) -> int:
        samples = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            samples.append(rss_of_tree(self.pid))
            time.sleep(0.25)
        return int(sorted(samples)[len(samples) // 2])


async def create_all(kube, items, concurrency=48):
    from httpd24.k8s.rollout_api import ApiError

    sem = asyncio.Semaphore(concurrency)

    async def one(url, body):
        async with sem:
            for attempt in range(5):
                try:
                    await kube.create(url, body)
                    return
                except ApiError as e:
                    if e.status == 409:
                        return
                    if e.status in (429, 500, 503) and attempt < 4:
                        await asyncio.sleep(0.5 * (attempt + 1))
                        continue
                    raise

    await asyncio.gather(*(one(u, b) for u, b in items))


async def count_done(kube, ns, n):
    from httpd24.k8s import rollout
    from httpd24.k8s.rollout_api import path

    deps = await kube.list(path("apps/v1", "deployments", ns))
    done = 0
    for d in deps:
        ok, _, _ = rollout.rollout_state(d, (d["spec"]["template"]["metadata"].get("annotations") or {}).get(rollout.ANNOTATION_HASH))
        done += ok
    servers = await kube.list(path("httpd24.io/v1alpha1", "httpdservers", ns))
    ready = sum(1 for s in servers if (s.get("status") or {}).get("phase") == "Ready")
    return len(deps), done, ready


async def bench(args, cluster) -> dict:
    from httpd24.k8s.rollout_api import Kube, path

    os.environ["KUBECONFIG"] = str(cluster.kubeconfig)
    kube = Kube(limit=64)
    ns, noise_ns = "bench-servers", "bench-noise"
    for n in (ns, noise_ns):
        cluster.kubectl("create", "namespace", n, check=False)
    op_log = open(Path(cluster.state_dir) / "bench-operator.log", "wb")
    env = dict(cluster.env, HTTPD24_OPERATOR_RESYNC="0", HTTPD24_OPERATOR_WORKERS=str(args.workers))
    profile = ["-m", "cProfile", "-o", os.environ["HTTPD24_BENCH_PROFILE"]] if os.environ.get("HTTPD24_BENCH_PROFILE") else []
    op = subprocess.Popen([sys.executable, *profile, "-m", "httpd24", "operator", "--no-admission", "--metrics-port", "0",
                           "-q"], stdout=op_log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    sampler = Sampler(op.pid)
    sampler.start()
    result: dict = {}
    try:
        await asyncio.sleep(3)
        result["rss_idle"] = sampler.settled(2)
        items = []
        for i in range(args.servers):
            name = f"s{i:04d}"
            text = CONF.format(i=i, clients=100 + i % 400, keepalive=2 + i % 13, a=i // 250, b=i % 250)
            items.append((path("v1", "configmaps", ns), {"apiVersion": "v1", "kind": "ConfigMap",
                          "metadata": {"name": name, "labels": {"httpd24.io/config": "true"}}, "data": {"httpd.conf": text}}))
        t0 = time.monotonic()
        await create_all(kube, items)
        servers = [(path("httpd24.io/v1alpha1", "httpdservers", ns), {
            "apiVersion": "httpd24.io/v1alpha1", "kind": "HttpdServer", "metadata": {"name": f"s{i:04d}"},
            "spec": {"configMapRef": {"name": f"s{i:04d}"}, "replicas": 1, "ports": [{"name": "http", "port": 8080}],
                     # headless: the local cluster's Service CIDR is a /24 (253 cluster IPs)
                     "service": "Headless"}})
            for i in range(args.servers)]
        await create_all(kube, servers)
        result["create_seconds"] = time.monotonic() - t0
        first_all_exist = None
        while True:
            exist, done, ready = await count_done(kube, ns, args.servers)
            now = time.monotonic() - t0
            if exist >= args.servers and first_all_exist is None:
                first_all_exist = now
            print(f"  t={now:6.1f}s deployments={exist} rolled-out={done} servers-ready={ready} "
                  f"rss={sampler.last / 2**20:.0f}MiB", flush=True)
            if done >= args.servers and ready >= args.servers:
                break
            if now > args.timeout or op.poll() is not None:
                result["timed_out"] = True
                break
            await asyncio.sleep(2)
        result["all_exist_seconds"] = first_all_exist
        result["cpu_rollout"] = cpu_seconds(op.pid)
        result["rolled_out_seconds"] = time.monotonic() - t0
        result["rss_peak"] = sampler.peak
        await asyncio.sleep(3)
        result["rss_after_servers"] = sampler.settled(5)

        blob = "x" * 1000
        noise = [(path("v1", "configmaps", noise_ns), {"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": f"noise-{i:05d}"}, "data": {"blob": blob, "i": str(i)}}) for i in range(args.noise)]
        t1 = time.monotonic()
        await create_all(kube, noise)
        result["noise_create_seconds"] = time.monotonic() - t1
        await asyncio.sleep(5)
        result["rss_after_noise"] = sampler.settled(5)
        result["rss_peak_total"] = sampler.peak
        result["hwm"] = vm_hwm(op.pid)
    finally:
        sampler.stop.set()
        os.killpg(op.pid, signal.SIGTERM)
        try:
            op.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(op.pid, signal.SIGKILL)
        await kube.close()
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--noise", type=int, default=10000)
    parser.add_argument("--nodes", type=int, default=12, help="kwok nodes for a fresh cluster (110 pods each)")
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)

    import cluster_fixture as cf

    if os.environ.get("HTTPD24_CLUSTER_REUSE") == "1":
        cluster = cf.session_cluster()
        owned = False
    else:
        cluster = cf.start_cluster(nodes=args.nodes, timeout=300)
        owned = True
    try:
        cluster.kubectl("apply", "--server-side", "-f", str(REPO / "crds" / "httpdservers.yaml"))
        cluster.kubectl("wait", "--for", "condition=established", "crd/httpdservers.httpd24.io", "--timeout=60s")
        r = asyncio.run(bench(args, cluster))
    finally:
        if owned:
            cf.stop_cluster(cluster)
    mib = lambda b: f"{b / 2**20:.1f} MiB"  # noqa: E731
    rows = [
        ("HttpdServers (each its own ConfigMap)", str(args.servers)),
        ("create objects", f"{r.get('create_seconds', 0):.1f} s"),
        ("every Deployment exists", f"{r.get('all_exist_seconds') or float('nan'):.1f} s"),
        ("every Deployment rolled out + server Ready", f"{r['rolled_out_seconds']:.1f} s" + (" (TIMED OUT)" if r.get("timed_out") else "")),
        ("operator CPU (incl. httpd -t) during rollout", f"{r.get('cpu_rollout', 0):.1f} s on {os.cpu_count()} CPUs"),
        ("operator RSS idle", mib(r["rss_idle"])),
        ("operator RSS peak (rollout)", mib(r["rss_peak"])),
        ("operator RSS settled after rollout", mib(r["rss_after_servers"])),
        (f"operator RSS with {args.noise} unrelated ConfigMaps", mib(r.get("rss_after_noise", 0))),
        ("operator RSS peak overall (with httpd -t children)", mib(r.get("rss_peak_total", 0))),
        ("operator process peak RSS (VmHWM, no children)", mib(r.get("hwm", 0))),
    ]
    width = max(len(k) for k, _ in rows)
    print()
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    ok = (not r.get("timed_out") and r["rolled_out_seconds"] <= 120 and r.get("hwm", 0) < 200 * 2**20
          and r.get("rss_after_noise", 0) <= r["rss_after_servers"] * 1.1 + 5 * 2**20)
    print(f"\ntargets (1,000 in 120 s, RSS < 200 MB, flat with unrelated ConfigMaps): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The webhook of two versions side by side: a baseline commit and the working tree, in one run.

The machines here are noisy (the same review costs 50% more CPU from one minute to the next), so a
change to the webhook is judged against its baseline under the same noise: each version runs in
its own webhook process, and rounds of direct 1,000-line reviews alternate between them (the first
round of each warms up and is not counted). Prints p50/p95/p99 and webhook CPU per review for each,
and new/baseline ratios.

    python bench/admission_compare.py                     # the working tree against HEAD
    python bench/admission_compare.py --baseline HEAD~3 --concurrency 1
"""

from __future__ import annotations

import argparse
import asyncio
import os
import ssl
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import admission as bench  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="HEAD", help="the commit to compare with (default: HEAD)")
    parser.add_argument("--lines", type=int, default=1_000)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=10, help="counted rounds per version (default 10)")
    parser.add_argument("--requests", type=int, default=100, help="requests per round (default 100)")
    args = parser.parse_args(argv)
    import cluster_fixture

    work = Path(tempfile.mkdtemp(prefix="httpd24-compare-"))
    baseline = work / "baseline"
    subprocess.run(["git", "-C", str(bench.REPO), "worktree", "add", "--detach", "-q", str(baseline), args.baseline],
                   check=True)
    hooks: dict[str, bench.Webhook] = {}
    cluster = None
    namespace = f"compare-{uuid.uuid4().hex[:6]}"
    try:
        cluster = cluster_fixture.session_cluster()
        os.environ["KUBECONFIG"] = str(cluster.kubeconfig)
        for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
            os.environ.pop(k, None)
        files = bench.certs.ensure(work / "tls", ["127.0.0.1"])
        sources = {f"baseline ({args.baseline})": baseline / "operator", "working tree": bench.REPO / "operator"}
        for name, source in sources.items():
            hooks[name] = bench.start_webhook(cluster, files, work / f"{len(hooks)}.log", source=source)
        bench.labelled_namespace(cluster, namespace, "warn")
        if not all(hook.ready(namespace, "warn") for hook in hooks.values()):
            return 1
        results = asyncio.run(compare(args, hooks, files.ca, namespace))
    finally:
        if cluster is not None:
            cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)
        for hook in hooks.values():
            hook.stop()
        subprocess.run(["git", "-C", str(bench.REPO), "worktree", "remove", "--force", str(baseline)], check=False)
        cluster_fixture._stop_session()
    print(f"{args.lines:,} lines, concurrency {args.concurrency}, {args.rounds} x {args.requests} reviews each, "
          "direct (warn mode)")
    print("| version | p50 ms | p95 ms | p99 ms | webhook CPU ms/review | errors |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (latencies, cpu, errors) in results.items():
        print(f"| {name} | {bench.percentile(latencies, 50) * 1000:.1f} | {bench.percentile(latencies, 95) * 1000:.1f} "
              f"| {bench.percentile(latencies, 99) * 1000:.1f} | {cpu * 1000:.2f} | {errors} |")
    (old_lat, old_cpu, _), (new_lat, new_cpu, _) = results.values()
    ratios = [bench.percentile(new_lat, q) / bench.percentile(old_lat, q) for q in (50, 95, 99)]
    print(f"working tree / baseline: p50 {ratios[0]:.2f}, p95 {ratios[1]:.2f}, p99 {ratios[2]:.2f}, "
          f"CPU {new_cpu / old_cpu:.2f}")
    return 0 if all(errors == 0 for _, _, errors in results.values()) else 1


async def compare(args, hooks: dict[str, bench.Webhook], ca: Path, namespace: str):
    pids = {name: bench.descendants(hook.process.pid) for name, hook in hooks.items()}
    results = {name: ([], 0.0, 0) for name in hooks}
    context = ssl.create_default_context(cafile=str(ca))
    async with bench.aiohttp.ClientSession(connector=bench.aiohttp.TCPConnector(ssl=context, limit=200)) as session:
        for round_ in range(args.rounds + 1):
            for name in (list(hooks) if round_ % 2 else reversed(list(hooks))):
                direct = bench.direct_sender(session, hooks[name].port, [
                    bench.review_body(bench.config(args.lines, uuid.uuid4().hex), namespace, f"c{i}")
                    for i in range(args.requests)])
                before = bench.cpu_seconds(pids[name])
                latencies, errors = await bench.run_cell(direct, args.requests, args.concurrency)
                if round_:  # the first round warms up
                    total, cpu, errs = results[name]
                    results[name] = (total + latencies, cpu + bench.cpu_seconds(pids[name]) - before, errs + errors)
    return {name: (lat, cpu / (args.rounds * args.requests), errs) for name, (lat, cpu, errs) in results.items()}


if __name__ == "__main__":
    raise SystemExit(main())

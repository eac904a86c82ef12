"""Parse + render time and peak memory of the engine next to ``apache2 -t`` on the same file.

Usage: python bench/parse.py [--lines 10000 100000]

Targets (issue 2): at 100,000 lines parse + render within 2x of ``apache2 -t``,
peak memory under 200 MB. Each measurement runs in a fresh process so the peak
RSS is the engine's own; every figure comes from this one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from genconf import MODULES, generate  # noqa: E402

ENGINE = """
import resource, sys, time
from httpd24.config import parse
data = open(sys.argv[1], "rb").read()
start = time.perf_counter()
doc = parse(data, sys.argv[1])
out = doc.render()
elapsed = time.perf_counter() - start
assert out == data
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run_engine(path: str) -> tuple[float, float]:
    """Seconds for parse + render, and peak RSS in MB of a fresh interpreter doing it."""
    out = subprocess.run([sys.executable, "-c", ENGINE, path], capture_output=True, text=True, check=True).stdout
    seconds, rss_kb = out.split()
    return float(seconds), int(rss_kb) / 1024


def run_apache(path: str, workdir: str) -> float | None:
    apache = shutil.which("apache2") or shutil.which("httpd")
    if apache is None:
        return None
    module_dir = "/usr/lib/apache2/modules"
    builtin = subprocess.run([apache, "-l"], capture_output=True, text=True).stdout
    loads = []
    for module in MODULES:
        source = "mod_" + module[: -len("_module")] + ".c"
        if source in builtin:
            continue
        so = "mod_" + module[: -len("_module")] + ".so"
        loads.append(f"LoadModule {module} {module_dir}/{so}")
    main = os.path.join(workdir, "main.conf")
    with open(main, "w") as handle:
        handle.write(f"ServerRoot {workdir}\nPidFile {workdir}/pid\nErrorLog {workdir}/error.log\n")
        handle.write("\n".join(loads) + f"\nInclude {path}\n")
    best = None
    for _ in range(3):
        start = time.perf_counter()
        result = subprocess.run([apache, "-t", "-f", main], capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"apache2 -t failed on the benchmark file:\n{result.stderr[-2000:]}")
        best = elapsed if best is None else min(best, elapsed)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args(argv)
    print(f"{'lines':>8} {'engine s':>9} {'apache2 -t s':>13} {'ratio':>6} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as workdir:
        os.makedirs(os.path.join(workdir, "logs"))
        for lines in args.lines:
            path = os.path.join(workdir, f"bench-{lines}.conf")
            with open(path, "w") as handle:
                handle.write(generate(lines, log_root=workdir))
            engine_best, rss = min(run_engine(path) for _ in range(3))
            apache = run_apache(path, workdir)
            ratio = f"{engine_best / apache:.2f}x" if apache else "n/a"
            apache_text = f"{apache:.3f}" if apache else "missing"
            print(f"{lines:>8} {engine_best:>9.3f} {apache_text:>13} {ratio:>6} {rss:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Lint + migrate time on a large 2.2 configuration next to ``apache2 -t`` on the same file.

Usage: python bench/lint.py [--lines 100000]

Target (issue 3): lint + migrate within 3x of ``apache2 -t`` at 100,000 lines.
Both run in this one invocation on the same generated file.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from genconf import generate  # noqa: E402
from parse import run_apache  # noqa: E402

from httpd24.config import ConfigSet  # noqa: E402
from httpd24.engine import lint, migrate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[100_000])
    args = parser.parse_args(argv)
    print(f"{'lines':>8} {'findings':>9} {'lint s':>7} {'migrate s':>10} {'apache2 -t s':>13} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as workdir:
        os.makedirs(os.path.join(workdir, "logs"))
        for lines in args.lines:
            text = generate(lines, log_root=workdir)
            path = os.path.join(workdir, f"bench-{lines}.conf")
            with open(path, "w") as handle:
                handle.write(text)
            start = time.perf_counter()
            configset = ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
            findings = lint(configset)
            lint_seconds = time.perf_counter() - start
            start = time.perf_counter()
            migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
            migrate_seconds = time.perf_counter() - start
            apache = run_apache(path, workdir)
            total = lint_seconds + migrate_seconds
            ratio = f"{total / apache:.2f}x" if apache else "n/a"
            apache_text = f"{apache:.3f}" if apache else "missing"
            print(f"{lines:>8} {len(findings):>9} {lint_seconds:>7.2f} {migrate_seconds:>10.2f} {apache_text:>13} {ratio:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

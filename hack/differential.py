#!/usr/bin/env python3
"""Long differential run: random 2.2 access-control configurations, translated, proven on real apache2.

    hack/differential.py --count 5000 --seed 42          # the long run
    hack/differential.py --seed 42 --index 1234          # replay one configuration (prints it)

Each configuration i depends only on (seed, i).  The reference is
httpd24.access.normalize_22(original) on apache2 + mod_access_compat, the
candidate httpd24.access.translate(original) on apache2 without it
(see httpd24.apache.differential).  Exit status 1 when any configuration differs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from httpd24.apache import differential, find_httpd


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=None, help="default: a random one (printed)")
    ap.add_argument("--index", type=int, default=None, help="run only configuration INDEX of the seed")
    ap.add_argument("--batch", type=int, default=25, help="configurations per server pair")
    ap.add_argument("--show", type=int, default=5, help="failures to print in full")
    args = ap.parse_args(argv)
    if find_httpd() is None:
        print("no Apache httpd 2.4 binary found (install apache2 or set HTTPD24_HTTPD)", file=sys.stderr)
        return 2
    from httpd24.access import normalize_22, translate

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    start, count = (args.index, 1) if args.index is not None else (0, args.count)
    print(f"seed={seed} count={count} start={start}", flush=True)
    t0 = time.monotonic()

    def progress(done: int, total: int) -> None:
        print(f"  {done}/{total} configurations, {time.monotonic() - t0:.0f}s", flush=True)

    results = differential.random_run(seed, count, translate, normalize_22, start=start, batch=args.batch,
                                      progress=progress)
    bad = [(i, text, r) for i, text, r in results if not r.ok]
    requests = sum(r.requests for _i, _t, r in results)
    for i, text, r in bad[: args.show] if args.index is None else bad:
        print(f"\n=== configuration {i} (replay: hack/differential.py --seed {seed} --index {i})")
        print(text)
        print(r.format(limit=15))
    print(f"\nseed={seed}: {len(results)} configurations, {requests} request pairs, "
          f"{len(bad)} with differences, {time.monotonic() - t0:.0f}s")
    if bad:
        print("failing indexes: " + " ".join(str(i) for i, _t, _r in bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Long differential run: random 2.2 access-control configurations, translated, proven on real apache2.

    hack/differential.py --count 5000 --seed 42          # the long run
    hack/differential.py --seed 42 --index 1234          # replay one configuration (prints it)
    hack/differential.py --seed 42 --start 1225 --count 25   # replay its batch (the same server pair)

Each configuration i depends only on (seed, i).  The reference is
httpd24.access.normalize_22(original) on apache2 + mod_access_compat, the
candidate httpd24.access.translate(original) on apache2 without it
(see httpd24.apache.differential).  Where the normalisation cannot make 2.2's
inheritance explicit, the candidate's answers are held to the model of 2.2
instead (differential.against_model), as they are on every other configuration.
Refused translations (HT501 without a fix) are counted, not failed.  Exit status 1
when any configuration answers wrongly.
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
    ap.add_argument("--start", type=int, default=0, help="first configuration (replay one batch of a long run)")
    ap.add_argument("--index", type=int, default=None, help="run only configuration INDEX of the seed")
    ap.add_argument("--batch", type=int, default=25, help="configurations per server pair")
    ap.add_argument("--show", type=int, default=5, help="failures to print in full")
    ap.add_argument("--shapes", choices=("narrow", "wide", "htaccess"), default="narrow",
                    help="wide: wildcards, ~ forms, repeated sections, keywords in any case, Options lines "
                         "(random_config_wide, with_options); "
                         "htaccess: wide ones with AllowOverride and .htaccess files (random_config_htaccess)")
    args = ap.parse_args(argv)
    if find_httpd() is None:
        print("no Apache httpd 2.4 binary found (install apache2 or set HTTPD24_HTTPD)", file=sys.stderr)
        return 2
    from httpd24.access import normalize_22, normalize_notes, translate
    from httpd24.config import ConfigSet

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    start, count = (args.index, 1) if args.index is not None else (args.start, args.count)
    print(f"seed={seed} count={count} start={start}", flush=True)
    t0 = time.monotonic()

    def progress(done: int, total: int) -> None:
        print(f"  {done}/{total} configurations, {time.monotonic() - t0:.0f}s", flush=True)

    results = differential.random_run(seed, count, translate, normalize_22, start=start, batch=args.batch,
                                      progress=progress, shapes=args.shapes)
    refused = model_only = 0
    bad = []
    for i, text, r in results:
        cs = ConfigSet.from_mapping(text if isinstance(text, dict) else {"httpd.conf": text}, entry="httpd.conf")
        if r.candidate_error and "translation raised TranslationError" in r.candidate_error:
            refused += 1  # HT501 without a fix: a person decides
        elif normalize_notes(cs)[1]:
            # The reference is not 2.2 here: every answer must be the 2.2 model's instead.
            model_only += 1
            if r.reference_error or r.candidate_error or differential.against_model(r, text):
                bad.append((i, text, r))
        elif not r.ok or differential.against_model(r, text):
            bad.append((i, text, r))
    requests = sum(r.requests for _i, _t, r in results)
    for i, text, r in bad[: args.show] if args.index is None else bad:
        print(f"\n=== configuration {i} (replay: hack/differential.py --seed {seed} --index {i} --shapes {args.shapes})")
        for name, body in (text.items() if isinstance(text, dict) else [("httpd.conf", text)]):
            print(f"--- {name}\n{body}" if isinstance(text, dict) else body)
        print(r.format(limit=15))
        for m in differential.against_model(r, text)[:15]:
            print(f"  not as the 2.2 model says: {m}")
    print(f"\nseed={seed}: {len(results)} configurations, {requests} request pairs, {refused} refused, "
          f"{model_only} proven against the 2.2 model only, {len(bad)} wrong, {time.monotonic() - t0:.0f}s")
    if bad:
        print("failing indexes: " + " ".join(str(i) for i, _t, _r in bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

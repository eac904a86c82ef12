#!/usr/bin/env python3
"""Long differential run: random 2.2 access-control configurations, translated, proven on real apache2.

    hack/differential.py --count 5000 --seed 42          # the long run
    hack/differential.py --seed 42 --index 1234          # replay one configuration (prints it)
    hack/differential.py --seed 42 --start 1225 --count 25   # replay its batch (the same server pair)
    hack/differential.py --minimize --seed 42 --index 1234   # the smallest configuration still failing

Each configuration i depends only on (seed, i).  The reference is
httpd24.access.normalize_22(original) on apache2 + mod_access_compat, the
candidate httpd24.access.translate(original) on apache2 without it
(see httpd24.apache.differential); for --shapes vhosts and htaccess, translate() and then
HT301's AllowOverride (differential.with_override_default: its servers are drawn
without one too, where 2.2's default All read the .htaccess files).  Where the normalisation cannot make 2.2's
inheritance explicit, the candidate's answers are held to the model of 2.2
instead (differential.against_model), as they are on every other configuration.
Refused translations (HT501 without a fix) are counted, not failed.  Exit status 1
when any configuration answers wrongly.

--minimize deletes one line or one whole section (or one .htaccess file) at a time,
a batch of such candidates per server pair, keeping the smallest that still fails
the same way, round after round until no deletion keeps it failing; it prints that
configuration with the requests that differ.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Callable, Iterator

from httpd24.apache import differential, find_httpd
from httpd24.config import ConfigSet

Files = dict[str, str]


def judge(text: str | Files, report: differential.VerifyReport) -> tuple[str, bool]:
    """The long run's verdict on one configuration: ("refused" -- HT501 without a fix, a person decides --,
    "right", "error" -- a side did not start, or its translator or normaliser raised --, "answers" -- an
    answer differs from the reference's --, or "model" -- from the 2.2 model's only), and whether only the
    model could judge it (the normalisation could not make 2.2's inheritance explicit: the reference is not 2.2)."""
    from httpd24.access import normalize_notes

    if report.candidate_error and "translation raised TranslationError" in report.candidate_error:
        return "refused", False
    cs = ConfigSet.from_mapping(text if isinstance(text, dict) else {"httpd.conf": text}, entry="httpd.conf")
    model_only = bool(normalize_notes(cs)[1])
    if report.skipped or report.reference_error or report.candidate_error:
        return "error", model_only
    if report.mismatches and not model_only:
        return "answers", model_only
    if differential.against_model(report, text):
        return "model", model_only
    return "right", model_only


def show(text: str | Files, report: differential.VerifyReport, title: str) -> None:
    print(f"\n=== {title}")
    for name, body in (text.items() if isinstance(text, dict) else [("httpd.conf", text)]):
        print(f"--- {name}\n{body}" if isinstance(text, dict) else body)
    print(report.format(limit=15))
    for m in differential.against_model(report, text)[:15]:
        print(f"  not as the 2.2 model says: {m}")


def deletions(files: Files) -> Iterator[Files]:
    """Every configuration one deletion smaller: one line, one whole section (its lines), or one .htaccess file."""
    for name, text in files.items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            stripped = line.strip()
            if not stripped or stripped.startswith(("#", "</")):
                continue
            end = i
            if stripped.startswith("<"):
                depth = 0
                for end in range(i, len(lines)):
                    inner = lines[end].strip()
                    depth += -1 if inner.startswith("</") else 1 if inner.startswith("<") else 0
                    if depth == 0:
                        break
            rest = lines[:i] + lines[end + 1:]
            yield {**files, name: "\n".join(rest) + "\n" if rest else ""}
        if name != "httpd.conf":
            yield {k: v for k, v in files.items() if k != name}


def minimize(files: Files, translate: Callable, normalize: Callable, *, batch: int = 25,
             log: Callable[[str], None] = lambda _line: None) -> tuple[Files, differential.VerifyReport]:
    """The smallest configuration (by its text) reached by :func:`deletions` that fails as ``files`` does (the same
    :func:`judge` verdict: a difference from the reference does not turn into one from the model), with its report; ValueError when ``files`` does not fail. Only configurations judged
    failing are ever kept, so the one returned fails."""

    def run(configs: list[Files]) -> list[tuple[str, differential.VerifyReport]]:
        reports = differential.run_configs([(str(n), c) for n, c in enumerate(configs)], translate, normalize)
        return [(judge(c, r)[0], r) for c, r in zip(configs, reports)]

    [(kind, report)] = run([files])
    if kind in ("right", "refused"):
        raise ValueError(f"the configuration does not fail ({kind}): nothing to minimize")
    t0 = time.monotonic()
    for round_ in range(1, 10_000):
        candidates = sorted(deletions(files), key=lambda c: sum(map(len, c.values())))
        found = None
        for b in range(0, len(candidates), batch):
            chunk = candidates[b:b + batch]
            found = next(((c, r) for c, (k, r) in zip(chunk, run(chunk)) if k == kind), None)
            if found is not None:
                break
        log(f"round {round_}: {len(candidates)} deletions, {'one kept' if found else 'none fails'}, "
            f"{time.monotonic() - t0:.0f}s")
        if found is None:
            break
        files, report = found
    return files, report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=None, help="default: a random one (printed)")
    ap.add_argument("--start", type=int, default=0, help="first configuration (replay one batch of a long run)")
    ap.add_argument("--index", type=int, default=None, help="run only configuration INDEX of the seed")
    ap.add_argument("--batch", type=int, default=25, help="configurations per server pair")
    ap.add_argument("--show", type=int, default=5, help="failures to print in full")
    ap.add_argument("--minimize", action="store_true", help="shrink configuration INDEX of SEED (both needed)")
    ap.add_argument("--shapes", choices=("narrow", "wide", "explicit", "htaccess", "vhosts"), default="narrow",
                    help="wide: wildcards, ~ forms, repeated sections, keywords in any case, Options lines "
                         "(random_config_wide, with_options); explicit: wide ones whose sections state what they "
                         "inherit; "
                         "htaccess: wide ones with AllowOverride and .htaccess files (random_config_htaccess); "
                         "vhosts: those with <VirtualHost> sections that have AllowOverride lines of their own "
                         "(random_config_vhosts)")
    args = ap.parse_args(argv)
    if find_httpd() is None:
        print("no Apache httpd 2.4 binary found (install apache2 or set HTTPD24_HTTPD)", file=sys.stderr)
        return 2
    from httpd24.access import normalize_22, translate

    # the vhosts shape draws servers without an AllowOverride: HT301 writes 2.2's default there, not translate()
    candidate = differential.with_override_default(translate) if args.shapes in ("vhosts", "htaccess") else translate
    if args.minimize:
        if args.seed is None or args.index is None:
            ap.error("--minimize needs --seed and --index")
        [(_i, text)] = differential.random_configs(args.seed, 1, args.index, shapes=args.shapes)
        files = text if isinstance(text, dict) else {"httpd.conf": text}
        try:
            small, report = minimize(files, candidate, normalize_22, batch=args.batch,
                                     log=lambda line: print(line, flush=True))
        except ValueError as e:
            print(f"seed={args.seed} index={args.index}: {e}", file=sys.stderr)
            return 2
        show(small, report, f"smallest failing configuration of seed={args.seed} index={args.index} "
                            f"(shapes {args.shapes}): {judge(small, report)[0]}")
        return 1

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    start, count = (args.index, 1) if args.index is not None else (args.start, args.count)
    print(f"seed={seed} count={count} start={start}", flush=True)
    t0 = time.monotonic()

    def progress(done: int, total: int) -> None:
        print(f"  {done}/{total} configurations, {time.monotonic() - t0:.0f}s", flush=True)

    results = differential.random_run(seed, count, candidate, normalize_22, start=start, batch=args.batch,
                                      progress=progress, shapes=args.shapes)
    refused = model_only = 0
    bad = []
    for i, text, r in results:
        kind, only_model = judge(text, r)
        refused += kind == "refused"
        model_only += only_model
        if kind in ("error", "answers", "model"):
            bad.append((i, text, r))
    requests = sum(r.requests for _i, _t, r in results)
    for i, text, r in bad[: args.show] if args.index is None else bad:
        show(text, r, f"configuration {i} (replay: hack/differential.py --seed {seed} --index {i} --shapes {args.shapes})")
    print(f"\nseed={seed}: {len(results)} configurations, {requests} request pairs, {refused} refused, "
          f"{model_only} proven against the 2.2 model only, {len(bad)} wrong, {time.monotonic() - t0:.0f}s")
    if bad:
        print("failing indexes: " + " ".join(str(i) for i, _t, _r in bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

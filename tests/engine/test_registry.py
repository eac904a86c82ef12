"""The rule catalogue: complete for every caller, codes unique and documented."""

from __future__ import annotations

import subprocess
import sys


def test_concurrent_first_use_sees_every_rule():
    # A fresh interpreter: the first calls race from several threads (the operator's thread pool does this).
    code = """
import threading
from httpd24.engine import registry
counts = []
def go():
    counts.append(len(registry.all_rules()))
threads = [threading.Thread(target=go) for _ in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
print(sorted(set(counts)))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    counts = eval(out)
    assert len(counts) == 1 and counts[0] > 50, out


def test_codes_are_unique_and_well_formed():
    from httpd24.engine import all_rules

    rules = all_rules()
    codes = [r.code for r in rules]
    names = [r.name for r in rules]
    assert len(codes) == len(set(codes)) and len(names) == len(set(names))

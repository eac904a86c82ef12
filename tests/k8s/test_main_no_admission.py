"""`httpd24 operator --no-admission` must not register admission handlers (kopf then refuses to start
without an admission server)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import argparse, asyncio, sys
from httpd24.k8s import main

def fake_run(coro):
    coro.close()
    return 0

asyncio.run = fake_run
parser = argparse.ArgumentParser()
main.add_arguments(parser)
args = parser.parse_args(sys.argv[1:])
assert main.run(args) == 0
print("admission imported:", "httpd24.k8s.admission" in sys.modules)
"""


def _imported(*argv: str) -> bool:
    out = subprocess.run([sys.executable, "-c", CODE, *argv], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return "admission imported: True" in out.stdout


def test_no_admission_leaves_the_admission_handlers_out(tmp_path):
    assert not _imported("--no-admission", "--metrics-port", "0")


def test_admission_is_registered_by_default(tmp_path):
    assert _imported("--tls-dir", str(tmp_path), "--metrics-port", "0", "--review-workers", "0")

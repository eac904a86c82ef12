"""Calling the CLI as a user would, from a test: ``main()`` with its own streams and working directory."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys

import pytest

from httpd24.cli import main


def run(*argv, cwd=None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``httpd24 ARGV...`` run in ``cwd``."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        code = main(list(argv), out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def stdin(monkeypatch, text: str) -> None:
    """What the command reads as standard input."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


def run_limited(*argv) -> subprocess.CompletedProcess:
    """``httpd24 ARGV`` in a process of its own, failing the test when it still runs after 20 s, held to
    1 GB of memory: for inputs that made it hang or grow without end."""
    operator = os.path.join(os.path.dirname(__file__), "..", "operator")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    env = dict(os.environ, PYTHONPATH=os.path.abspath(operator))
    try:
        return subprocess.run([sys.executable, "-m", "httpd24", *argv], capture_output=True, text=True, env=env,
                              timeout=20, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        pytest.fail("still running after 20 s")

"""Calling the CLI as a user would, from a test: ``main()`` with its own streams and working directory."""

from __future__ import annotations

import io
import os

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

"""The package layering of docs/architecture.md holds (import-linter contracts in .importlinter)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_import_contracts_hold():
    lint_imports = shutil.which("lint-imports") or os.path.join(os.path.dirname(sys.executable), "lint-imports")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "operator"))
    result = subprocess.run([lint_imports, "--config", ".importlinter"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 3 kept, 0 broken." in result.stdout

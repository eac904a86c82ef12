"""The benchmark scripts start as the README runs them (``python bench/NAME.py``).

Python puts a script's own folder first on ``sys.path``, so a bench file named
like a standard-library module (``operator.py``) shadows it for every bench.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(path for path in BENCH.glob("*.py") if "def main" in path.read_text())


def test_no_bench_file_shadows_the_standard_library():
    shadowing = [path.name for path in BENCH.glob("*.py") if path.stem in sys.stdlib_module_names]
    assert shadowing == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_bench_script_starts(script):
    result = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout

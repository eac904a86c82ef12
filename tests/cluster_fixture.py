"""A real local Kubernetes control plane for tests (see hack/cluster/README.md).

Usage from any test directory (``pythonpath = ["tests"]`` is set in pyproject)::

    # tests/<dir>/conftest.py
    from cluster_fixture import cluster  # noqa: F401  (re-export the fixture)

    # tests/<dir>/test_x.py
    import pytest

    @pytest.mark.cluster
    def test_something(cluster):
        cluster.kubectl("apply", "-f", "-", input=manifest)
        out = cluster.kubectl("get", "pods", "-o", "json").stdout

Only one cluster is started per pytest session, however many conftest files
re-export the fixture: the fixture is a thin wrapper around a module-level
singleton (``session_cluster()``), reference counted, stopped when the last
user's session-scoped fixture finalizes, with an ``atexit`` fallback.

The ``cluster`` object (:class:`Cluster`):

- ``.kubeconfig``  Path of the admin kubeconfig (client cert, group system:masters)
- ``.kubectl(*args, input=None, check=True, timeout=120)`` -> CompletedProcess (text)
- ``.helm(*args, input=None, check=True, timeout=300)`` -> CompletedProcess (text)
- ``.bin_dir``     Path with kubectl, helm, kube-apiserver, etcd, kwok, ...
- ``.env``         dict for subprocesses: os.environ + KUBECONFIG, PATH (bin dir
                   first), HELM_*_HOME in the state dir, NO_PROXY for 127.0.0.1
- ``.ca_cert`` / ``.ca_key``  the local CA (PEM paths); ``.ca_bundle`` is the
                   base64 of ca.crt, ready for a webhook's ``caBundle``
- ``.issue_cert(dir, hosts=("127.0.0.1", "localhost"))`` -> (cert, key) paths of a
                   serving certificate signed by the local CA (for webhook servers)
- ``.state_dir``, ``.api_url``, ``.pids()`` (component -> pid), ``.cluster_sh``

Environment knobs: ``HTTPD24_CLUSTER_DIR`` (state dir; default a fresh temp
dir; when a cluster is already up there, e.g. from ``cluster.sh up``, it is
used and left running), ``HTTPD24_CLUSTER_REUSE=1`` (fail instead of starting
a cluster when none is up in HTTPD24_CLUSTER_DIR), ``HTTPD24_KEEP_CLUSTER=1`` (keep
the temp state dir and its logs after teardown), ``HTTPD24_CACHE`` (build cache).

The binaries are built (once, cached outside the repo) by
hack/cluster/build.sh, which ``cluster.sh up`` calls; a cold build takes
tens of minutes, so ./run setup (which .ci/run calls) builds them first.
"""

from __future__ import annotations

import atexit
import base64
import datetime
import ipaddress
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLUSTER_SH = REPO / "hack" / "cluster" / "cluster.sh"
BUILD_SH = REPO / "hack" / "cluster" / "build.sh"
COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")


class ClusterError(RuntimeError):
    pass


def build_binaries(timeout: float = 3600) -> Path:
    """Run build.sh (a no-op when cached) and return the bin dir."""
    proc = subprocess.run(
        [str(BUILD_SH)], capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise ClusterError(
            f"hack/cluster/build.sh failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
        )
    return Path(proc.stdout.strip().splitlines()[-1])


def _proc_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@dataclass
class Cluster:
    state_dir: Path
    bin_dir: Path
    env: dict = field(repr=False)
    owned: bool = True  # False when reusing a cluster someone else started
    temp: bool = False  # state dir is a temp dir made by start_cluster (removed on stop)

    @property
    def kubeconfig(self) -> Path:
        return self.state_dir / "admin.kubeconfig"

    @property
    def ca_cert(self) -> Path:
        return self.state_dir / "certs" / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.state_dir / "certs" / "ca.key"

    @property
    def ca_bundle(self) -> str:
        return base64.b64encode(self.ca_cert.read_bytes()).decode()

    @property
    def cluster_sh(self) -> Path:
        return CLUSTER_SH

    @property
    def api_url(self) -> str:
        ports = dict(
            line.split("=", 1)
            for line in (self.state_dir / "ports.env").read_text().split()
        )
        return f"https://127.0.0.1:{ports['APISERVER_PORT']}"

    def run(self, *argv, input=None, check=True, timeout=120) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [str(a) for a in argv],
            input=input,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=timeout,
        )
        if check and proc.returncode != 0:
            raise ClusterError(
                f"{' '.join(map(str, argv))} exited {proc.returncode}\n"
                f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            )
        return proc

    def kubectl(self, *args, input=None, check=True, timeout=120) -> subprocess.CompletedProcess:
        return self.run(self.bin_dir / "kubectl", *args, input=input, check=check, timeout=timeout)

    def helm(self, *args, input=None, check=True, timeout=300) -> subprocess.CompletedProcess:
        return self.run(self.bin_dir / "helm", *args, input=input, check=check, timeout=timeout)

    def script(self, command: str, check=False, timeout=180) -> subprocess.CompletedProcess:
        """Run ``cluster.sh <command>`` against this cluster's state dir."""
        return self.run(CLUSTER_SH, command, check=check, timeout=timeout)

    def pids(self) -> dict[str, int]:
        out = {}
        for name in COMPONENTS:
            f = self.state_dir / "pids" / f"{name}.pid"
            if f.exists():
                out[name] = int(f.read_text().split()[0])
        return out

    def issue_cert(self, directory, hosts=("127.0.0.1", "localhost"), cn=None):
        """Write <dir>/tls.crt and <dir>/tls.key: a serving cert signed by the local CA."""
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        ca_cert = x509.load_pem_x509_certificate(self.ca_cert.read_bytes())
        ca_key = serialization.load_pem_private_key(self.ca_key.read_bytes(), None)
        key = ec.generate_private_key(ec.SECP256R1())
        sans = []
        for h in hosts:
            try:
                sans.append(x509.IPAddress(ipaddress.ip_address(h)))
            except ValueError:
                sans.append(x509.DNSName(h))
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn or hosts[0])]))
            .issuer_name(ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        cert_path, key_path = directory / "tls.crt", directory / "tls.key"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        key_path.chmod(0o600)
        return cert_path, key_path


def _env_for(state_dir: Path, bin_dir: Path | None, extra: dict | None = None) -> dict:
    env = dict(os.environ)
    for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(k, None)
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["HTTPD24_CLUSTER_DIR"] = str(state_dir)
    env["KUBECONFIG"] = str(state_dir / "admin.kubeconfig")
    if bin_dir is not None:
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        env["HTTPD24_CLUSTER_BIN"] = str(bin_dir)
    helm_home = state_dir / "helm"
    env["HELM_CACHE_HOME"] = str(helm_home / "cache")
    env["HELM_CONFIG_HOME"] = str(helm_home / "config")
    env["HELM_DATA_HOME"] = str(helm_home / "data")
    env.update(extra or {})
    return env


def start_cluster(state_dir=None, bin_dir=None, nodes: int = 2, timeout: float = 180, extra_env=None) -> Cluster:
    """Start a cluster in ``state_dir`` (a fresh temp dir when None) and return it."""
    if bin_dir is None:
        bin_dir = build_binaries()
    temp = state_dir is None
    if temp:
        state_dir = Path(tempfile.mkdtemp(prefix="httpd24-cluster-"))
    state_dir = Path(state_dir)
    env = _env_for(state_dir, Path(bin_dir), {"HTTPD24_CLUSTER_NODES": str(nodes), **(extra_env or {})})
    proc = subprocess.run(
        [str(CLUSTER_SH), "up"], capture_output=True, text=True, env=env, timeout=timeout
    )
    if proc.returncode != 0:
        raise ClusterError(
            f"hack/cluster/cluster.sh up failed (exit {proc.returncode}), state dir {state_dir}:\n"
            f"{proc.stderr[-6000:]}"
        )
    return Cluster(state_dir=state_dir, bin_dir=Path(bin_dir), env=env, temp=temp)


def stop_cluster(c: Cluster, remove: bool | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [str(CLUSTER_SH), "down"], capture_output=True, text=True, env=c.env, timeout=120
    )
    if remove is None:
        remove = c.temp and proc.returncode == 0 and os.environ.get("HTTPD24_KEEP_CLUSTER") != "1"
    if remove:
        shutil.rmtree(c.state_dir, ignore_errors=True)
    return proc


# ------------------------------------------------------------ session singleton
_lock = threading.Lock()
_session: Cluster | None = None
_session_error: BaseException | None = None
_users = 0


def _stop_session() -> None:
    global _session
    with _lock:
        c, _session = _session, None
    if c is not None and c.owned:
        stop_cluster(c)


def session_cluster() -> Cluster:
    """The one cluster of this process (started on first use)."""
    global _session, _session_error
    with _lock:
        if _session is not None:
            return _session
        if _session_error is not None:  # do not retry a 60 s failure for every test
            raise ClusterError(f"local cluster failed to start earlier: {_session_error}")
        try:
            state = os.environ.get("HTTPD24_CLUSTER_DIR")
            c = None
            if state and (Path(state) / "bin_dir").exists():
                # a cluster someone started by hand in that dir: use it, leave it running
                state_dir = Path(state)
                bin_dir = Path((state_dir / "bin_dir").read_text().strip())
                c = Cluster(state_dir=state_dir, bin_dir=bin_dir, env=_env_for(state_dir, bin_dir), owned=False)
                if c.script("status").returncode != 0:
                    c = None
            if c is None:
                if os.environ.get("HTTPD24_CLUSTER_REUSE") == "1":
                    raise ClusterError(f"HTTPD24_CLUSTER_REUSE=1 but no cluster is up in HTTPD24_CLUSTER_DIR={state!r}")
                c = start_cluster(state)
                atexit.register(_stop_session)
        except BaseException as e:
            _session_error = e
            raise
        _session = c
        return c


@pytest.fixture(scope="session")
def cluster():
    """Session-scoped real local cluster (one per session; see module docstring)."""
    global _users
    try:
        c = session_cluster()
    except ClusterError as e:
        pytest.fail(str(e), pytrace=False)
    _users += 1
    try:
        yield c
    finally:
        _users -= 1
        if _users == 0:
            _stop_session()

"""pytest fixture ``httpd``: the real httpd binary (session scope).

Use it from a test module or conftest with ``from apache_fixture import httpd  # noqa: F401``
or ``pytest_plugins = ["apache_fixture"]``.  Without a binary the test is
skipped with the reason; when the ``CI`` environment variable is set (CI
installs apache2) a missing binary is a failure instead, so CI never skips.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from httpd24.apache import Httpd, Instance, find_httpd


@pytest.fixture(scope="session")
def httpd() -> Httpd:
    found = find_httpd()
    if found is None:
        msg = (
            "no Apache httpd 2.4 binary: install Debian's apache2 (/usr/sbin/apache2) "
            "or set HTTPD24_HTTPD=/path/to/httpd[:/path/to/modules]"
        )
        if os.environ.get("CI"):
            pytest.fail(msg + " (CI must not skip the apache tests)")
        pytest.skip(msg)
    return found


@pytest.fixture
def served_dir():
    """A fresh directory httpd's children (www-data) can read: pytest's own tmp_path lies under a 0700 one."""
    top = Path(tempfile.mkdtemp(prefix="httpd24-served-"))
    top.chmod(0o755)
    yield top
    shutil.rmtree(top)


def self_signed(directory, subject: str = "/CN=localhost") -> tuple[str, str]:
    """(certificate, key) files of a fresh self-signed certificate in ``directory``, for TLS on a test server."""
    import subprocess

    cert, key = os.path.join(directory, "c.pem"), os.path.join(directory, "k.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-days", "2",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=60)
    return cert, key


def configtest_tree(httpd: Httpd, root):
    """``httpd -t`` on ``root``/httpd.conf inside a minimal server config whose run files sit beside ``root``
    (not in it), so the tree under test holds only what the test wrote: what Include sees is what httpd sees."""
    import subprocess

    from httpd24.apache import server_config

    run_dir = root.parent / "run"
    run_dir.mkdir(exist_ok=True)
    main = run_dir / "main.conf"
    main.write_text(server_config([], server_root=root, listen=[], pid_file=run_dir / "pid",
                                  error_log=run_dir / "error_log", include=str(root / "httpd.conf"), httpd=httpd))
    return subprocess.run([httpd.binary, "-t", "-f", str(main)], env=httpd.env(run_dir), capture_output=True,
                          text=True, timeout=60)


def htaccess_statuses(httpd: Httpd, config, overrides, bodies: dict[str, str], modules: list[str]) -> dict:
    """The status apache2 answers for /a/f.html with each of ``bodies`` in a/.htaccess under each of ``overrides``:
    {override: {body name: status}}. ``config(root, override)``: the server configuration, its DocumentRoot
    ``<root>/www``."""
    top = Path(tempfile.mkdtemp(prefix="httpd24-htaccess-"))
    try:
        top.chmod(0o755)
        (top / "www" / "a").mkdir(parents=True)
        (top / "www" / "a" / "f.html").write_text("hello\n")
        got: dict = {}
        for override in overrides:
            for name, body in bodies.items():
                (top / "www" / "a" / ".htaccess").write_text(body)
                with Instance({"site.conf": config(top, override)}, "site.conf", modules, httpd=httpd) as srv:
                    got.setdefault(override, {})[name] = srv.request("/a/f.html").status
        return got
    finally:
        shutil.rmtree(top)

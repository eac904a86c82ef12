"""pytest fixture ``httpd``: the real httpd binary (session scope).

Use it from a test module or conftest with ``from apache_fixture import httpd  # noqa: F401``
or ``pytest_plugins = ["apache_fixture"]``.  Without a binary the test is
skipped with the reason; when the ``CI`` environment variable is set (CI
installs apache2) a missing binary is a failure instead, so CI never skips.
"""

from __future__ import annotations

import os

import pytest

from httpd24.apache import Httpd, find_httpd


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


def self_signed(directory, subject: str = "/CN=localhost") -> tuple[str, str]:
    """(certificate, key) files of a fresh self-signed certificate in ``directory``, for TLS on a test server."""
    import subprocess

    cert, key = os.path.join(directory, "c.pem"), os.path.join(directory, "k.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-days", "2",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=60)
    return cert, key

"""`httpd24 migrate --write` on a ConfigMap manifest, then the real kubectl applies it: the stored data is the
migrated text, which passes real apache2 -t, and the rest of the manifest file is as the user wrote it."""

from __future__ import annotations

import io
import json
import uuid

import pytest

from apache_fixture import httpd  # noqa: F401
from cluster_fixture import cluster  # noqa: F401
from httpd24 import api, apache
from httpd24.cli import main

pytestmark = [pytest.mark.cluster, pytest.mark.apache]

MANIFEST = """\
# kept in Git; applied by CI
apiVersion: v1
kind: ConfigMap
metadata:
  name: site   # mounted by the web Deployment
data:
  httpd.conf: |
    User daemon
    MaxClients 150
    <Location /server-status>
        SetHandler server-status
        Order deny,allow
        Deny from all
        Allow from 127.0.0.1
    </Location>
"""


ORIGINAL = MANIFEST.split("httpd.conf: |\n", 1)[1].replace("\n    ", "\n")[4:]


def applied_and_checked(cluster, httpd, path) -> None:  # noqa: F811
    """``path`` applied by the real kubectl: the stored config is the original's migration and passes apache2 -t."""
    ns = f"mw-{uuid.uuid4().hex[:8]}"
    cluster.kubectl("create", "namespace", ns)
    try:
        cluster.kubectl("apply", "-n", ns, "-f", str(path))
        stored = json.loads(cluster.kubectl("get", "configmap", "site", "-n", ns, "-o", "json").stdout)["data"]["httpd.conf"]
    finally:
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
    expected = api.migrate(api.load_mapping({"httpd.conf": ORIGINAL}, entry="httpd.conf")).files["httpd.conf"]
    assert stored.encode() == expected and "Order" not in stored
    modules = [m.name for m in api.required_modules(api.load_mapping({"httpd.conf": stored}, entry="httpd.conf")).modules]
    result = apache.configtest({"httpd.conf": stored}, "httpd.conf", modules, httpd=httpd)
    assert result.ok, result.output


def test_a_manifest_migrated_in_place_applies_and_its_config_passes_apache(cluster, httpd, tmp_path):  # noqa: F811
    path = tmp_path / "site.yaml"
    path.write_text(MANIFEST)
    err = io.StringIO()
    assert main(["migrate", "--write", str(path)], io.StringIO(), err) == 0, err.getvalue()
    # only the value changed: the comments and the metadata lines are as written
    assert path.read_text().split("data:")[0] == MANIFEST.split("data:")[0]
    applied_and_checked(cluster, httpd, path)


def test_a_json_manifest_migrated_in_place_applies_with_its_config_migrated(cluster, httpd, tmp_path):  # noqa: F811
    """The same ConfigMap as `kubectl get -o json` prints it: migrated in place, applied by the real kubectl."""
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "site"}, "data": {"httpd.conf": ORIGINAL}}
    path = tmp_path / "site.json"
    text = json.dumps(body, indent=4) + "\n"
    path.write_text(text)
    err = io.StringIO()
    assert main(["migrate", "--write", str(path)], io.StringIO(), err) == 0, err.getvalue()
    assert path.read_text().split('"data"')[0] == text.split('"data"')[0]  # all but the value as written
    applied_and_checked(cluster, httpd, path)

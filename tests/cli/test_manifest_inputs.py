"""ConfigMap manifests as the CLI reads them: what is not a ConfigMap is said so, and a ConfigMap is
read as the admission webhook reads it (:func:`httpd24.k8s.review.extract_files`), so that CI passes
exactly what admission admits."""

from __future__ import annotations

import pytest

from clirun import run

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n"


# -- a manifest without a ConfigMap ------------------------------------------------------------------
@pytest.mark.parametrize("name, text, said", [
    ("typo.yaml", "kind: Configmap\nmetadata: {name: t}\ndata: {httpd.conf: \"Order allow,deny\\n\"}\n",
     "kind: Configmap"),
    ("empty.yaml", "", "empty"),
    ("comments.yaml", "# nothing yet\n---\n", "empty"),
    ("deploy.yaml", "kind: Deployment\nmetadata: {name: d}\n---\nkind: Service\nmetadata: {name: s}\n",
     "Deployment, Service"),
    ("list.yaml", "- a\n- b\n", "a list"),
    ("scalar.yaml", "MaxClients 1\n", "a string"),
    ("list.json", "[1, 2]", "a number"),
])
def test_a_manifest_given_without_a_configmap_is_an_error_naming_what_it_holds(tmp_path, name, text, said):
    # These passed with exit 0 and nothing said, or were linted as httpd text (a YAML list, a scalar).
    (tmp_path / name).write_text(text)
    for command in ("lint", "migrate", "modules"):
        code, out, err = run(command, name, cwd=tmp_path)
        assert code == 2 and out in ("", "[]\n") and "internal error" not in err, (command, err)
        assert f"httpd24: {name}: no ConfigMap" in err and said in err, (command, err)


def test_a_kind_typo_in_a_directory_is_an_error_and_other_kinds_are_not(tmp_path):
    (tmp_path / "httpd.conf").write_text("MaxClients 1\n")
    (tmp_path / "server.yaml").write_text("kind: HttpdServer\nmetadata: {name: web}\n")
    (tmp_path / "empty.yaml").write_text("")
    code, out, err = run("lint", "--fail-on", "never", str(tmp_path))
    assert code == 0 and "HT101" in out and "httpd24:" not in err, err
    (tmp_path / "typo.yaml").write_text("kind: configMap\nmetadata: {name: t}\n")
    code, out, err = run("lint", "--fail-on", "never", str(tmp_path))
    assert code == 2 and "HT101" in out and f"{tmp_path}/typo.yaml: no ConfigMap" in err, err

"""ConfigMap manifests as the CLI reads them: what is not a ConfigMap is said so, and a ConfigMap is
read as the admission webhook reads it (:func:`httpd24.k8s.review.extract_files`), so that CI passes
exactly what admission admits."""

from __future__ import annotations

import pytest

from clirun import run, run_limited

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


# -- values that are not text, and YAML that expands without end --------------------------------------
def test_a_value_that_is_not_a_string_is_an_error_as_admission_says_it(tmp_path):
    # They were linted as Python's repr of the value ("['MaxClients 1', ...]"); admission denies them.
    from httpd24.k8s import review
    import yaml

    text = CONFIGMAP + ("data:\n  httpd.conf: |\n    Include other.conf\n    MaxClients 1\n"
                        "  other.conf: [MaxClients 1, Order deny]\n  x: null\n  n: 5\n")
    (tmp_path / "cm.yaml").write_text(text)
    said = {str(p) for p in review.analyze(yaml.safe_load(text)).problems}
    for command in ("lint", "migrate", "modules"):
        code, out, err = run(command, "cm.yaml", cwd=tmp_path)
        assert code == 2 and "internal error" not in err, err
        for problem in said:  # "other.conf: value is a list, not a string", as the webhook words it
            key, reason = problem.split(": ", 1)
            assert f"cm.yaml[default/web]:{key}: error: {reason}" in err, (command, err)
        assert "['MaxClients 1'" not in out + err


def test_a_yaml_alias_bomb_is_refused_before_it_is_expanded(tmp_path):
    # A few hundred bytes of nested aliases: repr() of the value it loads to is 8**9 items long.
    value = "&l0 [a, a, a, a, a, a, a, a, a]"
    for level in range(1, 9):
        value = f"&l{level} [{value}" + f", *l{level - 1}" * 8 + "]"
    (tmp_path / "bomb.yaml").write_text(CONFIGMAP + f"data:\n  httpd.conf: Include x\n  x: {value}\n")
    assert (tmp_path / "bomb.yaml").stat().st_size < 1024
    done = run_limited("lint", str(tmp_path / "bomb.yaml"))
    assert done.returncode == 2 and "internal error" not in done.stderr, done.stderr[-2000:]
    assert f"{tmp_path}/bomb.yaml" in done.stderr and "aliases" in done.stderr


# -- binaryData, as the webhook reads it --------------------------------------------------------------
def test_binary_data_is_checked_and_migrated_back_into_binary_data(tmp_path):
    # The CLI read only data: CI passed what admission denied.
    import base64

    import yaml

    extra = base64.b64encode(b"MaxClients 5\n").decode()
    text = CONFIGMAP + f"data:\n  httpd.conf: |\n    Include extra.conf\nbinaryData:\n  extra.conf: {extra}\n"
    (tmp_path / "cm.yaml").write_text(text)
    code, out, err = run("lint", "--select", "HT101", "--fail-on", "warning", "cm.yaml", cwd=tmp_path)
    assert code == 1 and out.startswith("cm.yaml[default/web]:extra.conf:1:1: HT101 "), err
    code, out, err = run("migrate", "-q", "--select", "HT101", "cm.yaml", cwd=tmp_path)
    migrated = yaml.safe_load(out.removeprefix("---\n"))
    assert migrated["data"] == {"httpd.conf": "Include extra.conf\n"}
    assert base64.b64decode(migrated["binaryData"]["extra.conf"]) == b"MaxRequestWorkers 5\n"
    code, out, err = run("migrate", "--write", "--select", "HT101", "cm.yaml", cwd=tmp_path)
    assert code == 2 and (tmp_path / "cm.yaml").read_text() == text and "internal error" not in err
    assert "cm.yaml[default/web]:extra.conf: not written: a binaryData value" in err, err


def test_binary_data_with_nul_bytes_is_named_as_not_read(tmp_path):
    import base64

    logo = base64.b64encode(b"\x89PNG\0\0").decode()
    (tmp_path / "cm.yaml").write_text(CONFIGMAP + f"data:\n  httpd.conf: MaxClients 1\nbinaryData:\n  logo.png: {logo}\n")
    code, out, err = run("lint", "--fail-on", "warning", "cm.yaml", cwd=tmp_path)
    assert code == 1 and "HT101" in out and "cm.yaml[default/web]:logo.png: not read (binaryData with NUL" in err


# -- what httpd cannot open, said as the webhook says it ----------------------------------------------
def webhook_lines(manifest: str) -> list[str]:
    """The webhook's denial of the manifest's ConfigMap, one line per problem or finding."""
    import yaml

    from httpd24.k8s import review

    decision = review.review(yaml.safe_load(manifest), mode=review.Mode.ENFORCE, stage="validate")
    assert not decision.allowed
    return decision.message.splitlines()[1:]


def test_an_include_of_a_missing_key_fails_as_the_webhook_denies_it(tmp_path):
    # (No server-root annotation: the CLI's default was /usr/local/apache2, the webhook's /etc/httpd24,
    # and the message names the path.)
    text = CONFIGMAP + "data:\n  httpd.conf: |\n    ServerName x\n    Include extra.conf\n"
    (tmp_path / "cm.yaml").write_text(text)
    code, out, err = run("lint", "cm.yaml", cwd=tmp_path)
    [line] = webhook_lines(text)
    assert code == 1 and out.startswith("cm.yaml[default/web]:httpd.conf:2:1: HT408 "), (out, err)
    assert line.split(": HT408 ")[1] in out


def test_an_entry_annotation_naming_no_key_is_the_webhooks_problem(tmp_path):
    # The CLI linted every key on its own and passed it; the pods read a file that is not there.
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  annotations: {httpd24.io/entry: site.conf}\n"
            "data:\n  httpd.conf: ServerName x\n")
    (tmp_path / "cm.yaml").write_text(text)
    [problem] = webhook_lines(text)
    for command in ("lint", "migrate"):
        code, out, err = run(command, "cm.yaml", cwd=tmp_path)
        assert code == 2 and f"cm.yaml[default/web]:{problem.replace(': ', ': error: ', 1)}\n" in err, (command, err)


def test_binary_data_with_nul_bytes_that_httpd_reads_is_the_webhooks_problem(tmp_path):
    # The CLI said "not read" and exited 0 where the webhook denies: httpd reads the key.
    import base64

    nul = base64.b64encode(b"MaxClients 1\n# \0\n").decode()
    text = CONFIGMAP + f"data:\n  httpd.conf: Include extra.conf\nbinaryData:\n  extra.conf: {nul}\n"
    (tmp_path / "cm.yaml").write_text(text)
    [problem] = webhook_lines(text)
    code, out, err = run("lint", "cm.yaml", cwd=tmp_path)
    assert code == 2 and f"cm.yaml[default/web]:{problem.replace(': ', ': error: ', 1)}\n" in err, err
    assert "HT408" not in out and "not read" not in err, (out, err)


def test_an_absolute_include_of_keys_reads_them_as_the_webhook_does(tmp_path):
    """`Include /etc/httpd24/vhost-*.conf` names the ConfigMap's keys where the operator mounts them: the
    CLI warned that it pointed outside (HT403) and never read vhost-a.conf, which the webhook denies."""
    text = CONFIGMAP + ("data:\n  httpd.conf: |\n    ServerName x\n    Include /etc/httpd24/vhost-*.conf\n"
                        "  vhost-a.conf: |\n    KeepAlive 5\n")
    (tmp_path / "cm.yaml").write_text(text)
    [line] = webhook_lines(text)
    code, out, err = run("lint", "--select", "HT1,HT4", "cm.yaml", cwd=tmp_path)
    assert "HT403" not in out, out
    where, said = line.split(" -> ")[0].split(": ", 1)
    assert code == 1 and f"cm.yaml[default/web]:{where}:1: {said}" in out, (out, line)

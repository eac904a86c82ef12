"""The pure admission core: ConfigMap body + mode -> decision (no kopf, no cluster)."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import jsonpatch
import pytest

from gcwatch import documents_seen_by_collections

from httpd24 import api
from httpd24.engine import Severity
from httpd24.k8s import review as r
from httpd24.k8s.review import Mode

CORPUS = Path("/work/shared/corpus/files")

# Each line triggers one rule; severities and fixability come from the engine, not from here.
SAMPLE = b"""ServerName www.example.com
CookieLog logs/cookies
KeepAlive 5
MaxClients 10
MaxRequestsPerThread 4
"""
UNFIXABLE_ERROR = "MaxRequestsPerThread 4\n"
FIXABLE_ERROR = "KeepAlive 5\n"


@pytest.fixture(autouse=True)
def fresh_cache():
    r.CACHE.clear()
    yield
    r.CACHE.clear()


def configmap(data=None, *, annotations=None, binary=None, name="web", namespace="team"):
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {r.LABEL_CONFIG: "true"}},
    }
    if annotations is not None:
        body["metadata"]["annotations"] = annotations
    if data is not None:
        body["data"] = {k: v.decode() if isinstance(v, bytes) else v for k, v in data.items()}
    if binary is not None:
        body["binaryData"] = {k: base64.b64encode(v).decode() for k, v in binary.items()}
    return body


def engine_findings(files: dict[str, bytes], entry="httpd.conf"):
    """What the engine itself says about the files (keys are files in the server root)."""
    cs = api.load_mapping(files, entry=entry, server_root="/etc/httpd24")
    assert not cs.errors
    return [(f.file, f) for f in api.lint(cs)]


def expected_line(key, f):
    """The documented format; multi-line replacements (a section) are folded onto the one line."""
    line = f"{key}:{f.line}: {f.code} {' '.join(f.message.split())}"
    return line + (f" -> {' '.join(f.replacement.split())}" if f.replacement else "")


# -- modes -------------------------------------------------------------------------------------------
def test_modes_are_ordered_by_strictness():
    assert Mode.AUDIT < Mode.WARN < Mode.MIGRATE < Mode.ENFORCE
    assert Mode.parse(" Enforce ") is Mode.ENFORCE
    assert Mode.parse("deny") is None and Mode.parse(3) is None
    assert str(Mode.MIGRATE) == "migrate"


def test_default_mode_is_warn():
    assert r.DEFAULT_MODE is Mode.WARN


# -- enforce -------------------------------------------------------------------------------------------
def test_enforce_denies_live_errors_with_one_line_each_in_file_order():
    body = configmap({"httpd.conf": SAMPLE})
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    found = engine_findings({"httpd.conf": SAMPLE})
    errors = [expected_line(k, f) for k, f in found if f.severity is Severity.ERROR]
    assert len(errors) >= 2
    assert not decision.allowed
    assert decision.message.splitlines() == [
        f"{len(errors)} problems must be fixed for httpd 2.4 (httpd24 mode: enforce):",
        *errors,
    ]
    # file order, and the codes this sample was written for
    assert [line.split(":")[1] for line in errors] == sorted((line.split(":")[1] for line in errors), key=int)
    assert any(line.startswith("httpd.conf:2: HT116 ") for line in errors)
    assert any(line.startswith("httpd.conf:5: HT119 ") for line in errors)


def test_enforce_allows_warnings_only_and_returns_them_as_warnings():
    text = b"ServerName x\nMaxClients 10\n"
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.ENFORCE, stage="validate")
    assert decision.allowed
    assert len(decision.warnings) == 1
    assert decision.warnings[0].startswith("httpd.conf:2: HT101 ")
    assert decision.warnings[0].endswith("-> MaxRequestWorkers 10")


def test_dead_errors_do_not_deny():
    text = b"<IfVersion < 2.4>\n  KeepAlive 5\n</IfVersion>\n"
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.ENFORCE, stage="validate")
    assert decision.allowed, decision.message


def test_denial_is_capped_with_a_pointer_to_lint():
    text = "".join("CookieLog logs/c%d\n" % i for i in range(33)).encode()
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.ENFORCE, stage="validate")
    lines = decision.message.splitlines()
    assert lines[0] == "33 problems must be fixed for httpd 2.4 (httpd24 mode: enforce):"
    assert len(lines) == 1 + r.MAX_DENIAL_LINES + 1
    assert lines[1].startswith("httpd.conf:1: HT116 ")
    assert lines[20].startswith("httpd.conf:20: HT116 ")
    assert lines[-1] == "... and 13 more (httpd24 lint shows all)"


@pytest.mark.parametrize(
    "name", ["centos6-httpd.conf", "apache-2.2.15-httpd-mpm.conf.in", "debian6-squeeze-apache2.conf"]
)
def test_corpus_files_denial_and_warnings_match_the_engine(name):
    data = (CORPUS / name).read_bytes()
    body = configmap({"httpd.conf": data})
    named = api.load_mapping({"httpd.conf": data}, entry="httpd.conf", server_root="/etc/httpd24")
    try:
        found = [(f.file, f) for f in api.lint(named)]
    except api.ParseError as error:
        decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
        assert not decision.allowed
        assert decision.message.splitlines()[1] == str(error)
        return
    errors = [expected_line(k, f) for k, f in found if f.severity is Severity.ERROR]
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    if errors:
        assert not decision.allowed
        shown = errors[: r.MAX_DENIAL_LINES]
        assert decision.message.splitlines()[1 : 1 + len(shown)] == shown
    else:
        assert decision.allowed
    warned = r.review(body, mode=Mode.WARN, stage="validate")
    assert warned.allowed
    assert all(len(w) <= 120 for w in warned.warnings)
    assert len(warned.warnings) == min(len(found), r.MAX_WARNINGS) or len(found) > r.MAX_WARNINGS


# -- warn ---------------------------------------------------------------------------------------------------
def test_warn_allows_with_one_warning_per_finding_each_at_most_120_chars():
    decision = r.review(configmap({"httpd.conf": SAMPLE}), mode=Mode.WARN, stage="validate")
    found = engine_findings({"httpd.conf": SAMPLE})
    assert decision.allowed and decision.message == ""
    assert len(decision.warnings) == len(found)
    for warning, (key, f) in zip(decision.warnings, found):
        assert len(warning) <= 120
        assert warning.startswith(f"{key}:{f.line}: {f.code} ")
        full = expected_line(key, f)
        if len(full) <= 120:
            assert warning == full
        elif f.replacement and len(f.replacement) < 30:
            assert warning.endswith(f" -> {f.replacement}")  # the message is shortened, not the fix


def test_warn_with_many_findings_sends_a_summary_and_stays_under_the_apiserver_limit():
    text = "".join(f"MaxClients {i}\n" for i in range(1, 3001)).encode()
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.WARN, stage="validate")
    assert decision.allowed
    assert len(decision.warnings) <= r.MAX_WARNINGS + 1
    assert decision.warnings[0].startswith("httpd24 (mode warn): 3000 findings (0 errors)")
    assert decision.warnings[-1].startswith("... and ")
    assert all(len(w) <= 120 for w in decision.warnings)
    assert sum(len(w) for w in decision.warnings) < 4096


# -- audit --------------------------------------------------------------------------------------------------
def test_audit_allows_silently_and_records_counts_for_the_operator():
    body = configmap({"httpd.conf": SAMPLE})
    validate = r.review(body, mode=Mode.AUDIT, stage="validate")
    assert validate.allowed and validate.warnings == [] and validate.message == ""
    mutate = r.review(body, mode=Mode.AUDIT, stage="mutate")
    found = engine_findings({"httpd.conf": SAMPLE})
    assert mutate.allowed and mutate.data == {}
    assert mutate.annotations[r.ANN_FINDINGS] == str(len(found))
    assert mutate.annotations[r.ANN_ERRORS] == str(sum(f.severity is Severity.ERROR for _, f in found))
    assert mutate.annotations[r.ANN_REVIEWED_MODE] == "audit"
    codes = sorted({f.code for _, f in found})
    assert mutate.annotations[r.ANN_FINDINGS_BY_CODE].split(",") == [
        f"{c}={sum(f.code == c for _, f in found)}" for c in codes
    ]
    # The patch only touches annotations; the data is stored unchanged.
    patched = jsonpatch.apply_patch(body, mutate.json_patch(body))
    assert patched["data"] == body["data"]


# -- migrate -------------------------------------------------------------------------------------------------
def test_migrate_rewrites_data_and_keeps_the_original_byte_for_byte():
    text = b"ServerName x\r\nKeepAlive 5\r\nMaxClients 10\r\n# caf\xc3\xa9\r\n"
    body = configmap({"httpd.conf": text, "index.html": b"<html>not config</html>"}, annotations={"a": "b"})
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate", name="web", namespace="team")
    assert decision.allowed and decision.result == "migrated"
    expected = api.migrate(api.load_mapping({"httpd.conf": text}, entry="httpd.conf", server_root="/etc/httpd24"))
    assert set(decision.data) == {"httpd.conf"}
    assert decision.data["httpd.conf"].encode() == expected.files["httpd.conf"]
    patched = jsonpatch.apply_patch(body, decision.json_patch(body))
    assert patched["data"]["httpd.conf"].encode() == expected.files["httpd.conf"]
    assert patched["data"]["index.html"] == "<html>not config</html>"
    annotations = patched["metadata"]["annotations"]
    assert annotations["a"] == "b"
    assert r.decode_original(annotations[r.ANN_ORIGINAL]) == {"httpd.conf": text}
    assert annotations[r.ANN_MIGRATED] == r.counts(expected.applied)
    assert "HT120=1" in annotations[r.ANN_MIGRATED]
    assert any("httpd24.io/original" in w for w in decision.warnings)
    assert all(len(w) <= 120 for w in decision.warnings)
    # The validating webhook then sees the migrated object: allowed, nothing left to deny.
    after = r.review(patched, mode=Mode.MIGRATE, stage="validate")
    assert after.allowed
    # Reviewing the stored object again changes nothing (idempotent, original kept).
    again = r.review(patched, mode=Mode.MIGRATE, stage="mutate", record=r.record_of(patched))
    assert again.data == {}
    assert all(op["path"] != "/metadata/annotations/httpd24.io~1original" for op in again.json_patch(patched))


def test_migrate_denies_what_cannot_be_fixed_safely_and_names_it():
    text = (FIXABLE_ERROR + UNFIXABLE_ERROR).encode()
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.MIGRATE, stage="mutate")
    assert not decision.allowed
    lines = decision.message.splitlines()
    assert lines[0] == "1 problem cannot be migrated safely (httpd24 mode: migrate):"
    assert lines[1].startswith("httpd.conf:2: HT119 ")
    assert decision.data == {} and decision.annotations == {}


def test_migrate_refuses_when_the_original_cannot_be_kept():
    # Random-looking text does not compress: the original would not fit in the annotations.
    import random

    rng = random.Random(7)
    filler = "".join(f"# {rng.getrandbits(256):064x}\n" for _ in range(6000))
    text = (FIXABLE_ERROR + filler).encode()
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.MIGRATE, stage="mutate")
    assert not decision.allowed
    assert "the original text cannot be kept in the object" in decision.message
    assert decision.data == {}


def test_migrate_binary_data_keys_are_patched_as_binary():
    text = b"KeepAlive 5\n# \xe9t\xe9 latin-1\n"
    body = configmap(binary={"httpd.conf": text})
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate")
    assert decision.allowed and decision.data == {}
    migrated = base64.b64decode(decision.binary_data["httpd.conf"])
    assert migrated == b"KeepAlive On\n# \xe9t\xe9 latin-1\n"
    assert r.decode_original(decision.annotations[r.ANN_ORIGINAL]) == {"httpd.conf": text}


# -- parse errors ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [Mode.ENFORCE, Mode.MIGRATE])
def test_unparseable_config_is_denied_with_its_location(mode):
    text = b"ServerName x\n<Directory /srv>\n  Options None\n"
    from httpd24 import config

    with pytest.raises(config.ParseError) as caught:
        config.parse(text, "httpd.conf")
    stage = "mutate" if mode is Mode.MIGRATE else "validate"
    decision = r.review(configmap({"httpd.conf": text}), mode=mode, stage=stage)
    assert not decision.allowed
    lines = decision.message.splitlines()
    assert lines[0] == f"1 problem in a config httpd cannot read (httpd24 mode: {mode}):"
    err = caught.value
    assert lines[1] == f"httpd.conf:{err.line}:{err.column}: {err.reason}"


@pytest.mark.parametrize("mode", [Mode.ENFORCE, Mode.MIGRATE])
@pytest.mark.parametrize("config_dir", [None, "conf"])
def test_too_deeply_nested_config_is_denied_with_its_location(mode, config_dir):
    """Nesting past the engine's limit, through an Include between keys: a denial, not an exception; the
    Include is named by its key, not conf/httpd.conf."""
    from httpd24.config import MAX_SECTION_DEPTH

    depth = MAX_SECTION_DEPTH // 2 + 1
    include = f"Include {config_dir}/inner.conf\n" if config_dir else "Include inner.conf\n"
    files = {
        "httpd.conf": ("<IfVersion >= 2.4>\n" * depth + include + "</IfVersion>\n" * depth).encode(),
        "inner.conf": ("<IfVersion >= 2.4>\n" * depth + "Order allow,deny\n" + "</IfVersion>\n" * depth).encode(),
    }
    stage = "mutate" if mode is Mode.MIGRATE else "validate"
    annotations = {r.ANN_CONFIG_DIR: config_dir} if config_dir else None
    decision = r.review(configmap(files, annotations=annotations), mode=mode, stage=stage)
    assert not decision.allowed
    lines = decision.message.splitlines()
    assert lines[0] == f"1 problem in a config httpd cannot read (httpd24 mode: {mode}):"
    assert lines[1].startswith(f"inner.conf:{MAX_SECTION_DEPTH - depth + 1}:1: <IfVersion> is nested more than")
    assert f"the Include at httpd.conf:{depth + 1}" in lines[1]


def test_unparseable_config_in_warn_mode_is_allowed_with_a_warning():
    decision = r.review(configmap({"httpd.conf": b"<Directory /srv>\n"}), mode=Mode.WARN, stage="validate")
    assert decision.allowed
    assert len(decision.warnings) == 1 and decision.warnings[0].startswith("httpd24 (mode warn): httpd.conf:1:")


# -- layout: keys, entry, includes ---------------------------------------------------------------------------------
def test_include_between_keys_and_unreached_keys_are_linted_on_their_own():
    files = {
        "httpd.conf": b"ServerName x\nInclude extra.conf\nIncludeOptional /etc/httpd24/vhost-*.conf\n",
        "extra.conf": b"# extra\nCookieLog logs/c\n",
        "vhost-a.conf": b"KeepAlive 7\n",
        "index.html": b"<html><body>hello</body></html>\n",  # not reached, does not parse: left alone
        "notes.conf": b"KeepAlive 9\n",  # not reached, but another HttpdServer entry could be this key
    }
    decision = r.review(configmap(files), mode=Mode.ENFORCE, stage="validate")
    lines = decision.message.splitlines()
    assert lines[0].startswith("3 problems")
    assert sorted(line.split(" ", 2)[:2] for line in lines[1:]) == [
        ["extra.conf:2:", "HT116"], ["notes.conf:1:", "HT120"], ["vhost-a.conf:1:", "HT120"]]
    assert decision.warnings == ["httpd24: not configuration and no Include reaches them, left alone: index.html"]


def test_default_layout_is_the_operators_pod_layout():
    mainconf = pytest.importorskip("httpd24.k8s.mainconf")
    assert r.DEFAULT_SERVER_ROOT == mainconf.SERVER_ROOT
    assert r.Layout().prefix == ""


def test_entry_annotation_and_config_dir():
    files = {"main.conf": b"Include conf/extra.conf\n", "extra.conf": b"KeepAlive 3\n"}
    annotations = {r.ANN_ENTRY: "main.conf", r.ANN_SERVER_ROOT: "/usr/local/apache2", r.ANN_CONFIG_DIR: "conf"}
    decision = r.review(configmap(files, annotations=annotations), mode=Mode.ENFORCE, stage="validate")
    assert decision.message.splitlines()[1].startswith("extra.conf:1: HT120 ")


def test_without_the_entry_key_every_key_is_linted():
    files = {"a.conf": b"KeepAlive 3\n", "b.conf": b"CookieLog x\n"}
    decision = r.review(configmap(files), mode=Mode.ENFORCE, stage="validate")
    assert [line.split(" ")[0] for line in decision.message.splitlines()[1:]] == ["a.conf:1:", "b.conf:1:"]


# -- what httpd cannot open: a missing Include, a missing entry key ---------------------------------------------------
@pytest.mark.parametrize(("mode", "stage"), [(Mode.ENFORCE, "validate"), (Mode.MIGRATE, "mutate")])
def test_an_include_of_a_key_the_configmap_lacks_is_denied(mode, stage):
    # It was admitted, and the pods crashed: "Could not open configuration file /etc/httpd24/extra.conf".
    body = configmap({"httpd.conf": "ServerName x\nInclude extra.conf\n"})
    decision = r.review(body, mode=mode, stage=stage)
    assert not decision.allowed
    assert decision.message.splitlines()[1].startswith(
        "httpd.conf:2: HT408 Include extra.conf: /etc/httpd24/extra.conf is no file of this configuration")
    warned = r.review(body, mode=Mode.WARN, stage="validate")
    assert warned.allowed and [w.split(" ")[:2] for w in warned.warnings] == [["httpd.conf:2:", "HT408"]]


def test_a_missing_include_is_judged_in_the_config_dir_only():
    """Mounted at conf/ of the server root, the ConfigMap is conf/: the image's server root around it may
    hold modules.conf, conf/ holds nothing but its keys (a binaryData key with NUL bytes is one too)."""
    files = {"main.conf": b"Include modules.conf\nInclude conf/here.conf\nInclude conf/gone.conf\n"
                          b"Include /usr/local/apache2/conf/gone.conf\n", "here.conf": b"ServerName x\n"}
    annotations = {r.ANN_ENTRY: "main.conf", r.ANN_SERVER_ROOT: "/usr/local/apache2", r.ANN_CONFIG_DIR: "conf"}
    decision = r.review(configmap(files, annotations=annotations), mode=Mode.ENFORCE, stage="validate")
    assert [line.split(" ", 2)[:2] for line in decision.message.splitlines()[1:]] == [
        ["main.conf:3:", "HT408"], ["main.conf:4:", "HT408"]]
    outside = {r.ANN_CONFIG_DIR: "/srv/conf", r.ANN_ENTRY: "main.conf"}
    files = {"main.conf": b"Include /srv/conf/gone.conf\nInclude /srv/conf/here.conf\n", "here.conf": b"ServerName x\n"}
    decision = r.review(configmap(files, annotations=outside), mode=Mode.ENFORCE, stage="validate")
    assert [line.split(" ", 2)[:2] for line in decision.message.splitlines()[1:]] == [["main.conf:1:", "HT408"]]


@pytest.mark.parametrize("config_dir", ["../conf", "conf/../..", "/etc/httpd24/../conf/"])
def test_a_config_dir_with_dot_dot_is_a_problem(config_dir):
    """It named the keys ../conf/KEY, where no Include resolves: `Include /etc/conf/gone.conf` passed."""
    body = configmap({"httpd.conf": "Include /etc/conf/gone.conf\n"}, annotations={r.ANN_CONFIG_DIR: config_dir})
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    assert not decision.allowed
    assert decision.message.splitlines()[1:] == [
        f"{r.ANN_CONFIG_DIR}: {config_dir.strip()!r} has a '..' part; name the directory the keys are mounted at "
        "without it, absolute or relative to the server root"]
    warned = r.review(body, mode=Mode.WARN, stage="validate")
    assert warned.allowed and any(r.ANN_CONFIG_DIR in w and "'..'" in w for w in warned.warnings)
    assert r.review(configmap({"httpd.conf": "ServerName x\n"}, annotations={r.ANN_CONFIG_DIR: "conf/..d"}),
                    mode=Mode.ENFORCE, stage="validate").allowed  # a name with dots is no `..`


@pytest.mark.parametrize("server_root", ["srv/httpd", "./etc/httpd24", " "])
def test_a_server_root_that_is_not_absolute_is_a_problem(server_root):
    """httpd's ServerRoot is a directory from /, and an absolute Include of a key names it: a relative one
    placed the keys nowhere httpd reads them (`Include /srv/httpd/gone.conf` passed)."""
    if not server_root.strip():  # blank: the default, /etc/httpd24 (it was " ", and nothing matched under it)
        body = configmap({"httpd.conf": "Include /etc/httpd24/gone.conf\n"}, annotations={r.ANN_SERVER_ROOT: server_root})
        decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
        assert not decision.allowed and "httpd.conf:1: HT408" in decision.message
        return
    body = configmap({"httpd.conf": "Include /srv/httpd/gone.conf\n"}, annotations={r.ANN_SERVER_ROOT: server_root})
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    assert not decision.allowed
    assert decision.message.splitlines()[1:] == [
        f"{r.ANN_SERVER_ROOT}: {server_root!r} is not an absolute path; write the directory the keys' server root "
        "is from / (the operator's is /etc/httpd24)"]
    assert r.review(configmap({"httpd.conf": "ServerName x\n"}, annotations={r.ANN_SERVER_ROOT: "/srv/httpd"}),
                    mode=Mode.ENFORCE, stage="validate").allowed


@pytest.mark.parametrize(("mode", "stage"), [(Mode.ENFORCE, "validate"), (Mode.ENFORCE, "mutate"),
                                             (Mode.MIGRATE, "mutate"), (Mode.MIGRATE, "validate")])
def test_an_entry_annotation_naming_no_key_is_denied_naming_the_keys(mode, stage):
    # It was admitted, every key linted on its own, and the pods read a file that is not there.
    body = configmap({"httpd.conf": "ServerName x\n", "extra.conf": "KeepAlive On\n"},
                     annotations={r.ANN_ENTRY: "site.conf"})
    decision = r.review(body, mode=mode, stage=stage)
    assert not decision.allowed
    assert decision.message.splitlines()[1:] == [
        "site.conf: no such key: annotation httpd24.io/entry names it as the entry file, and the ConfigMap's keys "
        "are extra.conf, httpd.conf; name one of them in the annotation, or add the key"]
    warned = r.review(body, mode=Mode.WARN, stage="validate")
    assert warned.allowed and any("site.conf: no such key" in w and r.ANN_ENTRY in w for w in warned.warnings)


def test_an_entry_annotation_naming_httpd_conf_is_checked_too_and_its_absence_is_not():
    files = {"a.conf": "ServerName x\n"}
    named = r.review(configmap(files, annotations={r.ANN_ENTRY: "httpd.conf"}), mode=Mode.ENFORCE, stage="validate")
    assert not named.allowed and "httpd.conf: no such key" in named.message and "a.conf" in named.message
    # Without the annotation a ConfigMap of files that another one includes need not have httpd.conf.
    assert r.review(configmap(files), mode=Mode.ENFORCE, stage="validate").allowed
    empty = r.review(configmap({}, annotations={r.ANN_ENTRY: "httpd.conf"}), mode=Mode.ENFORCE, stage="validate")
    assert not empty.allowed and "the ConfigMap has no keys" in empty.message


# -- bad input never crashes -------------------------------------------------------------------------------------------
def test_binary_data_only_configmap_with_a_binary_file_is_allowed():
    body = configmap(binary={"cert.der": b"\x30\x82\x00\x00binary"})
    for mode in Mode:
        for stage in ("mutate", "validate"):
            decision = r.review(body, mode=mode, stage=stage)
            assert decision.allowed, (mode, stage, decision.message)


def test_binary_data_with_a_2_2_config_is_reviewed():
    body = configmap(binary={"httpd.conf": b"KeepAlive 5\n"})
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    assert not decision.allowed and "httpd.conf:1: HT120" in decision.message


def test_invalid_base64_and_non_utf8_values_are_clear_problems():
    body = configmap({"httpd.conf": "ServerName x\nKeep\udc80Alive\ud800 On\n"}, binary={"x.conf": b""})
    body["binaryData"]["x.conf"] = "%%%not base64"
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    assert not decision.allowed
    lines = decision.message.splitlines()
    assert "httpd.conf:2:5: value is not valid UTF-8 text" in lines
    assert "x.conf: binaryData value is not valid base64" in lines


@pytest.mark.parametrize("bad", [None, 42, ["a"], {"httpd.conf": 3}])
def test_malformed_data_fields(bad):
    body = configmap()
    body["data"] = bad
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    assert decision.allowed is (bad is None)
    if bad is not None:
        assert "httpd24 mode: enforce" in decision.message


def test_one_mebibyte_config_is_reviewed_quickly():
    line = b"# padding padding padding padding padding padding padding padding\n"
    text = b"ServerName x\nKeepAlive 5\n" + line * ((1 << 20) // len(line) - 1)
    assert len(text) <= 1 << 20
    start = time.perf_counter()
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.MIGRATE, stage="mutate")
    assert time.perf_counter() - start < 20
    assert decision.allowed and decision.result == "migrated"
    assert r.decode_original(decision.annotations[r.ANN_ORIGINAL]) == {"httpd.conf": text}


def test_thousands_of_findings():
    text = "".join(f"CookieLog logs/c{i}\n" for i in range(5000)).encode()
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.ENFORCE, stage="validate")
    lines = decision.message.splitlines()
    assert lines[0].startswith("5000 problems")
    assert lines[-1] == "... and 4980 more (httpd24 lint shows all)"
    assert len(decision.message) < 10_000


# -- original text ----------------------------------------------------------------------------------------------------------
def test_original_encoding_is_deterministic_and_round_trips():
    files = {"httpd.conf": b"a\r\nb", "x.conf": bytes(range(1, 256))}
    encoded = r.encode_original(files)
    assert encoded == r.encode_original(dict(reversed(list(files.items()))))
    assert r.decode_original(encoded) == files
    with pytest.raises(ValueError, match="httpd24.io/original"):
        r.decode_original("bm90IGEgdGFy")


def test_the_documented_command_decodes_the_annotation(tmp_path):
    import subprocess

    text = b"KeepAlive 5\n\ttabs and \xc3\xa9\n"
    encoded = r.encode_original({"httpd.conf": text})
    out = subprocess.run(
        "base64 -d | tar xzO", shell=True, input=encoded.encode(), capture_output=True, check=True
    ).stdout
    assert out == text
    assert r.original_command("web", "team").endswith("|base64 -d|tar xzO")


# -- AdmissionReview envelopes ------------------------------------------------------------------------------------------------
def review_request(obj, *, resource="configmaps", group="", uid="u-1"):
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": group, "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": group, "version": "v1", "resource": resource},
            "operation": "CREATE",
            "userInfo": {"username": "me"},
            "object": obj,
        },
    }


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([], "must be a JSON object"),
        ({"kind": "Pod"}, "kind must be AdmissionReview"),
        ({"kind": "AdmissionReview", "apiVersion": "v1"}, "apiVersion must be"),
        ({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1"}, "request is missing"),
        ({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": {"uid": "x"}}, "resource"),
    ],
)
def test_malformed_reviews_have_a_reason(data, reason):
    assert reason in r.check_review(data)


@pytest.mark.parametrize(("where", "value", "reason"), [
    ("data", ["httpd.conf"], "request.object.data must be an object"),
    ("binaryData", "aGk=", "request.object.binaryData must be an object"),
    ("metadata", "web", "request.object.metadata must be an object"),
    ("labels", ["httpd24.io/config"], "request.object.metadata.labels must be an object"),
    ("annotations", [r.ANN_MODE], "request.object.metadata.annotations must be an object"),
    ("old annotations", [r.ANN_ORIGINAL], "request.oldObject.metadata.annotations must be an object"),
])
def test_a_configmap_no_apiserver_sends_is_a_bad_request(where, value, reason):
    """The apiserver sends only ConfigMaps its schema accepts; any other shape is a malformed request (a 400
    with the reason), not a review that fails inside the webhook with a Python error as its message."""
    obj = configmap({"httpd.conf": b"KeepAlive 5\n"})
    data = review_request(obj)
    if where == "old annotations":
        data["request"]["oldObject"] = json.loads(json.dumps(obj))
        data["request"]["oldObject"]["metadata"]["annotations"] = value
    elif where in ("labels", "annotations"):
        obj["metadata"][where] = value
    else:
        obj[where] = value
    assert reason in r.check_review(data)
    data["request"]["resource"] = {"group": "apps", "version": "v1", "resource": "deployments"}
    assert r.check_review(data) is None  # another kind is not the webhook's to judge: allowed, with a warning


def test_well_formed_review_and_other_kinds():
    data = review_request(configmap({"httpd.conf": b""}))
    assert r.check_review(data) is None and r.is_configmap_request(data)
    data = review_request({"kind": "Pod"}, resource="deployments", group="apps")
    assert r.check_review(data) is None and not r.is_configmap_request(data)
    out = r.other_kind_response(data)
    assert out["response"] == {
        "uid": "u-1", "allowed": True,
        "warnings": ["httpd24 reviews only core/v1 configmaps, not apps/v1/deployments; check the webhook rules"],
    }


def test_full_response_for_a_mutation_is_a_base64_json_patch():
    body = configmap({"httpd.conf": b"KeepAlive 5\n"})
    data = review_request(body)
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate")
    out = r.response(data, decision, body)["response"]
    assert out["allowed"] and out["patchType"] == "JSONPatch"
    ops = json.loads(base64.b64decode(out["patch"]))
    assert jsonpatch.apply_patch(body, ops)["data"]["httpd.conf"] == "KeepAlive On\n"
    denied = r.response(data, r.review(body, mode=Mode.ENFORCE, stage="validate"), body)["response"]
    assert denied["allowed"] is False and denied["status"]["code"] == 403


def _reachable_nodes(root) -> int:
    """Parsed-tree nodes reachable from ``root`` (through attributes, containers and closures)."""
    import gc
    import types

    from httpd24.config import Document, Node

    seen: set[int] = set()
    stack = [root]
    count = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, str, bytes, int)):
            continue
        seen.add(id(obj))
        if isinstance(obj, (Node, Document)):
            count += 1
        elif isinstance(obj, types.FunctionType):  # its closure and defaults, not its module's globals
            stack.extend([*(obj.__closure__ or ()), *(obj.__defaults__ or ())])
        elif not isinstance(obj, types.ModuleType):
            stack.extend(gc.get_referents(obj))
    return count


@pytest.mark.parametrize("migrate", [False, True], ids=["lint", "migrate"])
def test_cached_analysis_keeps_no_parsed_tree(migrate):
    # The cache holds 256 analyses: with their trees that is gigabytes for 10,000-line configs.
    text = "MaxClients 10\n<Directory /srv>\n    Order allow,deny\n    Allow from all\n</Directory>\n"
    analysis = r.analyze(configmap({"httpd.conf": text}), migrate=migrate)
    assert analysis.findings and all(f.fix is None or f.fix.description for f in analysis.findings)
    assert _reachable_nodes(analysis) == 0


def test_an_update_is_unchanged_only_when_nothing_the_review_reads_changed():
    from httpd24.k8s.review import LABEL_CONFIG, unchanged_input

    old = {"metadata": {"labels": {LABEL_CONFIG: "true"}, "annotations": {"httpd24.io/entry": "httpd.conf"}},
           "data": {"httpd.conf": "KeepAlive 5\n"}}

    def edited(**changes):
        new = json.loads(json.dumps(old))
        for path, value in changes.items():
            target = new
            *parents, last = path.split("__")
            for part in parents:
                target = target.setdefault(part, {})
            target[last] = value
        return new

    assert unchanged_input(edited(metadata__labels={LABEL_CONFIG: "true", "team": "web"}), old)
    assert unchanged_input(edited(metadata__finalizers=[]), old)
    assert unchanged_input(edited(metadata__annotations={"httpd24.io/entry": "httpd.conf", "note": "x"}), old)
    assert unchanged_input(edited(data={"httpd.conf": "KeepAlive On\n"}, metadata__deletionTimestamp="2026-11-22T00:00:00Z"), old)
    assert not unchanged_input(edited(data={"httpd.conf": "KeepAlive On\n"}), old)
    assert not unchanged_input(edited(binaryData={"x.conf": "S2VlcEFsaXZlIDU="}), old)
    assert not unchanged_input(edited(metadata__annotations={"httpd24.io/entry": "main.conf"}), old)
    assert not unchanged_input(edited(metadata__annotations={"httpd24.io/entry": "httpd.conf", "httpd24.io/mode": "enforce"}), old)
    labelled_now = json.loads(json.dumps(old))
    del labelled_now["metadata"]["labels"]
    assert not unchanged_input(old, labelled_now)  # the label that asks for review is its first review
    assert not unchanged_input(old, None)  # CREATE


@pytest.mark.parametrize("migrate", [False, True], ids=["lint", "migrate"])
def test_a_review_frees_its_trees_before_the_collector_resumes(migrate):
    """The collector is paused during a review so that it never walks the trees; they must be gone
    when it resumes. They once lived until the review returned, just after the collection that
    resuming starts (one per review, over the whole tree: a tenth of a 1,000-line review)."""
    text = "".join(f"<Directory /srv/{n}>\n    Order allow,deny\n    Allow from all\n</Directory>\nMaxClients {n}\n"
                   for n in range(200))
    before, walked = documents_seen_by_collections(lambda: r.analyze(configmap({"httpd.conf": text}), migrate=migrate))
    assert walked, "resuming the collector after a review this large starts a collection"
    assert max(walked) == before


# -- what the configuration ran on before --------------------------------------------------------------------
SSI = b"AddOutputFilter INCLUDES .shtml\n"
#: A configuration for 2.4 (it loads an MPM), with the modules it needs.
LOADS_24 = (b"LoadModule mpm_event_module modules/mod_mpm_event.so\n"
            b"LoadModule authz_core_module modules/mod_authz_core.so\n"
            b"LoadModule mime_module modules/mod_mime.so\nLoadModule include_module modules/mod_include.so\n")


@pytest.mark.parametrize(("text", "annotation", "written"), [
    pytest.param(SSI, None, True, id="2.2"),
    pytest.param(LOADS_24 + SSI, None, False, id="loads-an-mpm"),
    pytest.param(LOADS_24 + SSI, "2.2", True, id="loads-an-mpm-but-annotated-2.2"),
    pytest.param(SSI, "2.4", False, id="annotated-2.4"),
    pytest.param(SSI, "2.3", True, id="not-a-version-is-auto"),
])
def test_migrate_mode_writes_22s_behaviour_only_into_a_configuration_that_ran_on_22(text, annotation, written):
    """A ConfigMap whose pages were written for 2.4 must not be switched to 2.2's SSI expression parser."""
    annotations = None if annotation is None else {r.ANN_SOURCE_VERSION: annotation}
    decision = r.review(configmap({"httpd.conf": text}, annotations=annotations), mode=Mode.MIGRATE, stage="mutate")
    assert decision.allowed
    assert ("SSILegacyExprParser on" in decision.data.get("httpd.conf", "")) is written
    if annotation == "2.3":  # the validating webhook says so
        validated = r.review(configmap({"httpd.conf": text}, annotations=annotations), mode=Mode.WARN, stage="validate")
        assert any("httpd24.io/source-version='2.3' is not auto, 2.2 or 2.4; ignored" in w for w in validated.warnings)


@pytest.mark.parametrize("mode,stage", [(Mode.WARN, "validate"), (Mode.MIGRATE, "mutate"), (Mode.ENFORCE, "validate")])
def test_a_review_workers_decision_crosses_the_process_boundary_as_the_webhook_reads_it(mode, stage):
    """What a review worker sends back pickles without a tree or a fix callable, and keeps every
    finding's code and place (the metrics count codes)."""
    import pickle

    body = configmap({"httpd.conf": "ServerName www.example.com\n" + FIXABLE_ERROR + "MaxClients 10\n"})
    here = r.review(body, mode=mode, stage=stage, name="web", namespace="team")
    sent = pickle.loads(pickle.dumps(r.review_portable(body, {"mode": int(mode), "stage": stage, "name": "web",
                                                              "namespace": "team"})))
    assert here.applied if stage == "mutate" else here.findings
    for mine, theirs in ((here.findings, sent.findings), (here.applied, sent.applied)):
        assert [(f.code, f.file, f.line) for f in mine] == list(theirs)
    assert (sent.allowed, sent.message, sent.warnings, sent.data, sent.annotations) == (
        here.allowed, here.message, here.warnings, here.data, here.annotations)


# -- rules an HttpdPolicy leaves out -----------------------------------------------------------------
WSGI_IMAGE = r.Ignored(("HT406",), "HttpdPolicy wsgi-image")


def test_enforce_lets_through_what_a_policy_leaves_out_and_counts_it():
    text = b"WSGIScriptAlias / /srv/app.wsgi\nWSGIDaemonProcess app\nMaxClients 10\n"
    denied = r.review(configmap({"httpd.conf": text}), mode=Mode.ENFORCE, stage="validate")
    assert not denied.allowed and "HT406" in denied.message
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.ENFORCE, stage="validate", ignored=WSGI_IMAGE)
    assert decision.allowed, decision.message
    assert [f.code for f in decision.findings] == ["HT101"]
    assert decision.warnings[0] == "httpd24: 2 findings left out by HttpdPolicy wsgi-image (HT406 x2)"


@pytest.mark.parametrize("cached", [True, False])
def test_migrate_fixes_nothing_a_policy_leaves_out_and_the_validation_still_counts_it(cached):
    text = b"KeepAlive 5\nWSGIScriptAlias / /srv/app.wsgi\n"
    keep_alive = r.Ignored(("HT120",), "HttpdPolicy p")
    untouched = r.review(configmap({"httpd.conf": text}), mode=Mode.MIGRATE, stage="mutate", ignored=keep_alive)
    assert untouched.data == {} and not untouched.allowed  # HT406 is still there, and cannot be migrated
    body = configmap({"httpd.conf": text})
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate", ignored=WSGI_IMAGE)
    assert decision.allowed and decision.data == {"httpd.conf": "KeepAlive On\nWSGIScriptAlias / /srv/app.wsgi\n"}
    if not cached:
        r.CACHE.clear()
    after = r.review(jsonpatch.apply_patch(body, decision.json_patch(body)), mode=Mode.MIGRATE, stage="validate",
                     ignored=WSGI_IMAGE)
    assert after.allowed
    assert "httpd24: 1 finding left out by HttpdPolicy wsgi-image (HT406 x1)" in after.warnings

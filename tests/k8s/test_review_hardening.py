"""The admission core against inputs that tried to get round it (hidden keys, NUL bytes, cached
origins, lost originals, sizes the apiserver refuses, hostile text). No cluster, no kopf."""

from __future__ import annotations

import asyncio
import base64
import json

import jsonpatch
import pytest

from httpd24.k8s import review as r
from httpd24.k8s.review import Mode

BAD = "ServerName x\nKeepAlive 5\nMaxRequestsPerThread 4\n"  # HT120 (fixable) and HT119 (not), both errors


@pytest.fixture(autouse=True)
def fresh_cache():
    r.CACHE.clear()
    yield
    r.CACHE.clear()


def configmap(data=None, *, annotations=None, binary=None):
    body = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "web", "namespace": "team", "labels": {r.LABEL_CONFIG: "true"}}}
    if annotations is not None:
        body["metadata"]["annotations"] = dict(annotations)
    if data is not None:
        body["data"] = {k: v.decode() if isinstance(v, bytes) else v for k, v in data.items()}
    if binary is not None:
        body["binaryData"] = {k: base64.b64encode(v).decode() for k, v in binary.items()}
    return body


def applied(body, decision):
    return jsonpatch.apply_patch(json.loads(json.dumps(body)), decision.json_patch(body))


def denial_keys(decision):
    return [line.split(":")[0] for line in decision.message.splitlines()[1:]]


# -- 1. every key is reviewed, whatever the entry annotation says ----------------------------------------------
@pytest.mark.parametrize("annotations", [
    pytest.param({r.ANN_ENTRY: "empty.conf"}, id="entry"),
    pytest.param({r.ANN_CONFIG_DIR: "conf"}, id="config-dir"),
])
def test_keys_the_entry_does_not_reach_still_count_in_enforce(annotations):
    """The HttpdServer's spec.entry, not the annotation, decides what the pods read: any key may be it."""
    body = configmap({"httpd.conf": "ServerName x\nInclude extra.conf\n", "extra.conf": BAD,
                      "empty.conf": "ServerName x\n"}, annotations=annotations)
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    assert not decision.allowed
    assert denial_keys(decision) == ["extra.conf", "extra.conf"]
    mutated = r.review(body, mode=Mode.AUDIT, stage="mutate")
    assert mutated.annotations[r.ANN_ERRORS] == "2"


def test_migrate_rewrites_keys_nothing_includes_too():
    body = configmap({"httpd.conf": "ServerName x\n", "other.conf": "KeepAlive 5\n"})
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate")
    assert decision.allowed and decision.data == {"other.conf": "KeepAlive On\n"}
    assert r.review(applied(body, decision), mode=Mode.MIGRATE, stage="validate").allowed


def test_a_key_nothing_includes_that_is_not_configuration_is_left_alone_with_a_warning():
    body = configmap({"httpd.conf": "ServerName x\n", "index.html": "<html><body>hi</body></html>\n"},
                     binary={"favicon.ico": b"\0\0\1\0 icon"})
    decision = r.review(body, mode=Mode.ENFORCE, stage="validate")
    assert decision.allowed, decision.message
    [warning] = decision.warnings
    assert "index.html" in warning and "favicon.ico" in warning and len(warning) <= 120


# -- 2. a NUL byte does not hide an included key -----------------------------------------------------------------------
def nul_body(entry=False):
    if entry:  # the entry itself
        return configmap({"other.conf": "ServerName x\n"}, binary={"extra.conf": BAD.encode() + b"# \0\n"},
                         annotations={r.ANN_ENTRY: "extra.conf"})
    return configmap({"httpd.conf": "ServerName x\nInclude extra.conf\n"},
                     binary={"extra.conf": BAD.encode() + b"# \0\n"})


@pytest.mark.parametrize("entry", [False, True], ids=["included", "entry"])
@pytest.mark.parametrize(("mode", "stage"), [(Mode.ENFORCE, "validate"), (Mode.MIGRATE, "mutate")])
def test_an_included_key_with_a_nul_byte_is_denied(mode, stage, entry):
    decision = r.review(nul_body(entry), mode=mode, stage=stage)
    assert not decision.allowed
    assert "extra.conf: " in decision.message and "NUL" in decision.message


def test_an_included_key_with_a_nul_byte_is_a_warning_in_warn_mode():
    decision = r.review(nul_body(), mode=Mode.WARN, stage="validate")
    assert decision.allowed
    assert any("extra.conf" in w and "NUL" in w for w in decision.warnings)


# -- 3. the original survives later migrations ------------------------------------------------------------------------------
def migrated_once():
    body = configmap({"httpd.conf": "ServerName x\nKeepAlive 5\n"})
    stored = applied(body, r.review(body, mode=Mode.MIGRATE, stage="mutate"))
    assert r.decode_original(stored["metadata"]["annotations"][r.ANN_ORIGINAL]) == {
        "httpd.conf": b"ServerName x\nKeepAlive 5\n"}
    return stored


def test_an_edit_of_the_migrated_text_keeps_the_first_original_and_adds_the_codes():
    edited = migrated_once()
    edited["data"]["httpd.conf"] += "MaxClients 10\n"
    stored = applied(edited, r.review(edited, mode=Mode.MIGRATE, stage="mutate", record=r.record_of(edited)))
    annotations = stored["metadata"]["annotations"]
    assert stored["data"]["httpd.conf"] == "ServerName x\nKeepAlive On\nMaxRequestWorkers 10\n"
    assert r.decode_original(annotations[r.ANN_ORIGINAL]) == {"httpd.conf": b"ServerName x\nKeepAlive 5\n"}
    assert annotations[r.ANN_MIGRATED] == "HT101=1,HT120=1"


def test_a_new_key_gets_its_own_original_next_to_the_kept_ones():
    edited = migrated_once()
    edited["data"]["httpd.conf"] += "Include extra.conf\n"
    edited["data"]["extra.conf"] = "MaxClients 10\n"
    stored = applied(edited, r.review(edited, mode=Mode.MIGRATE, stage="mutate", record=r.record_of(edited)))
    assert r.decode_original(stored["metadata"]["annotations"][r.ANN_ORIGINAL]) == {
        "httpd.conf": b"ServerName x\nKeepAlive 5\n", "extra.conf": b"MaxClients 10\n"}


def test_originals_of_keys_no_longer_in_the_configmap_are_dropped():
    edited = migrated_once()
    edited["data"] = {"main.conf": "MaxClients 10\n"}
    stored = applied(edited, r.review(edited, mode=Mode.MIGRATE, stage="mutate", record=r.record_of(edited)))
    assert r.decode_original(stored["metadata"]["annotations"][r.ANN_ORIGINAL]) == {"main.conf": b"MaxClients 10\n"}


def test_a_kept_original_that_does_not_decode_is_replaced():
    body = configmap({"httpd.conf": "KeepAlive 5\n"}, annotations={r.ANN_ORIGINAL: "not a tar"})
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate")
    assert decision.allowed
    assert r.decode_original(decision.annotations[r.ANN_ORIGINAL]) == {"httpd.conf": b"KeepAlive 5\n"}


def test_the_same_original_sent_again_leaves_the_migrated_object_as_it_is():
    """`kubectl apply` of the same manifest again (a GitOps sync, a CI job run twice) sends the original text
    again: it is migrated afresh, so its codes are not counted twice and the object does not change (the
    apiserver then writes nothing, and watchers see nothing)."""
    stored = migrated_once()
    again = json.loads(json.dumps(stored))
    again["data"]["httpd.conf"] = "ServerName x\nKeepAlive 5\n"
    assert applied(again, r.review(again, mode=Mode.MIGRATE, stage="mutate", record=r.record_of(stored))) == stored


def test_the_original_sent_again_next_to_an_edited_key_counts_only_the_edit():
    body = configmap({"httpd.conf": "ServerName x\nKeepAlive 5\nInclude extra.conf\n", "extra.conf": "MaxClients 10\n"})
    stored = applied(body, r.review(body, mode=Mode.MIGRATE, stage="mutate"))
    assert stored["metadata"]["annotations"][r.ANN_MIGRATED] == "HT101=1,HT120=1"
    update = json.loads(json.dumps(stored))
    update["data"]["httpd.conf"] = body["data"]["httpd.conf"]  # the original again
    update["data"]["extra.conf"] += "MaxClients 20\n"  # an edit of the migrated text
    after = applied(update, r.review(update, mode=Mode.MIGRATE, stage="mutate", record=r.record_of(stored)))
    assert after["metadata"]["annotations"][r.ANN_MIGRATED] == "HT101=2,HT120=1"


# -- 3b. the record is the webhook's: a request can neither forge nor remove it ------------------------------------------------
FORGED = r.encode_original({"httpd.conf": b"ServerName never-sent\n"})


def test_a_new_configmap_cannot_bring_its_own_original():
    body = configmap({"httpd.conf": "ServerName x\nKeepAlive 5\n"},
                     annotations={r.ANN_ORIGINAL: FORGED, r.ANN_MIGRATED: "HT999=7"})
    stored = applied(body, r.review(body, mode=Mode.MIGRATE, stage="mutate"))
    annotations = stored["metadata"]["annotations"]
    assert r.decode_original(annotations[r.ANN_ORIGINAL]) == {"httpd.conf": b"ServerName x\nKeepAlive 5\n"}
    assert annotations[r.ANN_MIGRATED] == "HT120=1"


@pytest.mark.parametrize("mode", [Mode.AUDIT, Mode.WARN, Mode.ENFORCE, Mode.MIGRATE])
def test_a_record_the_webhook_did_not_write_is_removed(mode):
    """Nothing was migrated: a new object claiming an original and changes would mislead whoever reads it."""
    body = configmap({"httpd.conf": "ServerName x\n"}, annotations={r.ANN_ORIGINAL: FORGED, r.ANN_MIGRATED: "HT120=1"})
    stored = applied(body, r.review(body, mode=mode, stage="mutate"))
    assert r.ANN_ORIGINAL not in stored["metadata"]["annotations"]
    assert r.ANN_MIGRATED not in stored["metadata"]["annotations"]


@pytest.mark.parametrize("change", ["forge", "remove"])
def test_an_update_cannot_forge_or_remove_the_original(change):
    stored = migrated_once()
    update = json.loads(json.dumps(stored))
    update["data"]["httpd.conf"] += "MaxClients 10\n"
    if change == "forge":
        update["metadata"]["annotations"].update({r.ANN_ORIGINAL: FORGED, r.ANN_MIGRATED: "HT999=1"})
    else:
        del update["metadata"]["annotations"][r.ANN_ORIGINAL], update["metadata"]["annotations"][r.ANN_MIGRATED]
    after = applied(update, r.review(update, mode=Mode.MIGRATE, stage="mutate", record=r.record_of(stored)))
    assert r.decode_original(after["metadata"]["annotations"][r.ANN_ORIGINAL]) == {
        "httpd.conf": b"ServerName x\nKeepAlive 5\n"}
    assert after["metadata"]["annotations"][r.ANN_MIGRATED] == "HT101=1,HT120=1"


@pytest.mark.parametrize("mode", [Mode.AUDIT, Mode.ENFORCE])
def test_an_update_that_leaves_the_configuration_puts_the_record_back(mode):
    """`kubectl annotate httpd24.io/audit-findings=0` would hide the findings from the HttpdServer status,
    `httpd24.io/original-` the original: the update goes through (the configuration is as stored), the
    record as the webhook wrote it."""
    stored = migrated_once()
    update = json.loads(json.dumps(stored))
    update["metadata"]["annotations"].update({r.ANN_FINDINGS: "0", r.ANN_ORIGINAL: FORGED})
    del update["metadata"]["annotations"][r.ANN_MIGRATED]
    assert r.unchanged_input(update, stored)
    decision = r.unchanged(mode, "mutate", r.record_of(stored))
    assert applied(update, decision) == stored
    assert r.unchanged(mode, "validate", r.record_of(stored)).annotations == {}


def test_only_a_configmap_under_review_has_a_record():
    stored = migrated_once()
    assert r.record_of(stored)[r.ANN_MIGRATED] == "HT120=1"
    unlabelled = json.loads(json.dumps(stored))
    unlabelled["metadata"]["labels"] = {}
    assert r.record_of(unlabelled) == {} and r.record_of(None) == {}


# -- 4. the cache knows data from binaryData ---------------------------------------------------------------------------------
def test_same_bytes_in_binary_data_after_data_are_patched_as_binary_data():
    text = b"ServerName x\nKeepAlive 5\n"
    r.review(configmap({"httpd.conf": text}), mode=Mode.MIGRATE, stage="mutate")
    body = configmap(binary={"httpd.conf": text})
    stored = applied(body, r.review(body, mode=Mode.MIGRATE, stage="mutate"))
    assert "data" not in stored
    assert base64.b64decode(stored["binaryData"]["httpd.conf"]) == b"ServerName x\nKeepAlive On\n"


# -- 5, 6. what the apiserver would refuse is a clear denial ------------------------------------------------------------------
def test_migration_that_would_push_the_data_over_one_mebibyte_is_denied():
    # binaryData counts as the decoded bytes, as the apiserver counts it.
    text = b"ServerName x\nKeepAlive 5\n"  # migrated: one byte more
    blob = b"\0" * (r.CONFIGMAP_LIMIT - len(text))
    body = configmap({"httpd.conf": text}, binary={"favicon.ico": blob})
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate")
    assert not decision.allowed
    assert decision.data == {}
    assert f"limit {r.CONFIGMAP_LIMIT}" in decision.message and "httpd24 migrate" in decision.message


def test_annotation_size_is_counted_in_bytes():
    note = "\u00e9" * ((r.ANNOTATIONS_LIMIT - 100) // 2)  # two bytes each: under the limit in characters
    body = configmap({"httpd.conf": "KeepAlive 5\n"}, annotations={"note": note})
    decision = r.review(body, mode=Mode.MIGRATE, stage="mutate")
    assert not decision.allowed
    assert "the original text cannot be kept in the object" in decision.message


# -- 7. every answer stays readable -----------------------------------------------------------------------------------------------
def test_the_unchanged_warning_fits_the_promised_width():
    assert all(len(w) <= r.WARNING_WIDTH for w in r.unchanged(Mode.ENFORCE, "validate", {}).warnings)


def test_many_problems_in_warn_mode_say_how_many_were_left_out():
    body = configmap({f"k{i:02}.conf": "<Directory /srv>\n" for i in range(40)})
    warnings = r.review(body, mode=Mode.WARN, stage="validate").warnings
    assert len(warnings) <= r.MAX_WARNINGS + 1 and all(len(w) <= r.WARNING_WIDTH for w in warnings)
    assert "40 problems" in warnings[0]
    assert warnings[-1].startswith("... and ")
    shown = sum(1 for w in warnings if ".conf:1:1:" in w)
    assert warnings[-1].startswith(f"... and {40 - shown} more")


@pytest.mark.parametrize("text", [
    "ServerName x\n<Dir\x1b[31mectory /srv>\n",
    "ServerName x\n<IfModule\u2028foo>\n</IfModule>\n",
    "ServerName x\n<Dir\u202eectory /srv>\n",
    "ServerName x\nKeepAlive 5\n<Directory /srv\x9b31m>\nOrder allow,deny\n</Directory>\n",
])
def test_denials_carry_no_terminal_control_or_line_separator(text):
    decision = r.review(configmap({"httpd.conf": text}), mode=Mode.ENFORCE, stage="validate")
    assert not decision.allowed
    lines = decision.message.split("\n")
    assert lines == decision.message.splitlines()  # no other line breaks (U+2028 and the like)
    assert all(line.isprintable() for line in lines), decision.message


def test_a_deeply_nested_json_body_is_a_bad_request():
    import aiohttp.web
    from aiohttp.test_utils import TestClient, TestServer

    from httpd24.k8s import admission

    server = admission.Server.__new__(admission.Server)

    async def fn(data, **_):
        return {"called": True}

    async def handler(request):
        return await admission.Server._serve(server, fn, request)

    async def main():
        app = aiohttp.web.Application()
        app.router.add_post("/{id}", handler)
        async with TestClient(TestServer(app)) as client:
            answer = await client.post("/validate-configmap", data="[" * 100_000)
            return answer.status, await answer.json()

    status, body = asyncio.run(main())
    assert status == 400 and "nested" in body["error"]

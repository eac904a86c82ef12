"""Rewriting ConfigMap values in a manifest: only the value's bytes change, and every result is checked."""

from __future__ import annotations

import random

import pytest
import yaml

from httpd24.inputs import load_manifest_objects
from httpd24.manifest_edit import ManifestEditError, rewrite

MANIFEST = """\
# Site configuration, kept in Git
apiVersion: v1
kind: ConfigMap
metadata:
  name: web   # the Deployment mounts this
  labels: {httpd24.io/config: "true"}
data:
  httpd.conf: |
    ServerName www.example.org
    MaxClients 150

  other.conf: |-
      Listen 8080
  # a comment between keys
  note: 'not a file'
---
apiVersion: v1
kind: ConfigMap
metadata: {name: second}
data:
  httpd.conf: |+
    MaxClients 5

"""


def test_only_the_values_bytes_change_whatever_their_chomping_and_indent():
    out = rewrite("cm.yaml", MANIFEST, 0, {"httpd.conf": "ServerName www.example.org\nMaxRequestWorkers 150\n",
                                           "other.conf": "Listen 8080\nListen 8443"})
    assert out == MANIFEST.replace("MaxClients 150", "MaxRequestWorkers 150").replace(
        "      Listen 8080\n", "      Listen 8080\n      Listen 8443\n")
    second = rewrite("cm.yaml", MANIFEST, 1, {"httpd.conf": "MaxRequestWorkers 5\n\n"})
    assert second == MANIFEST.replace("MaxClients 5", "MaxRequestWorkers 5")


@pytest.mark.parametrize("value", ["A\n", "A", "A\n\n\n", "A\n\n  B\n", "\tTabbed\nLine\n", "é ü 日本\n", "#x\n"])
def test_any_value_loads_back_exactly(value):
    out = rewrite("cm.yaml", MANIFEST, 0, {"httpd.conf": value})
    objects = load_manifest_objects("cm.yaml", out.encode())
    assert objects[0]["data"]["httpd.conf"] == value
    assert objects[1] == load_manifest_objects("cm.yaml", MANIFEST.encode())[1]
    assert out.split("data:")[0] == MANIFEST.split("data:")[0]  # nothing before the value moved


@pytest.mark.parametrize("manifest, message", [
    ("kind: ConfigMap\ndata:\n  httpd.conf: 'A'\n", "cm.yaml:3: data.httpd.conf: the value is not a literal block"),
    ("kind: ConfigMap\ndata:\n  httpd.conf: >\n    A\n", "cm.yaml:3: data.httpd.conf: the value is not a literal block"),
    ("kind: ConfigMap\nmetadata: {name: x}\n", "the ConfigMap has no data mapping here"),
])
def test_values_that_cannot_be_edited_in_place_say_what_to_do(manifest, message):
    with pytest.raises(ManifestEditError) as caught:
        rewrite("cm.yaml", manifest, 0, {"httpd.conf": "B\n"})
    assert message in str(caught.value) and "->" in str(caught.value)


def test_text_a_block_cannot_hold_is_refused():
    with pytest.raises(ManifestEditError, match="characters a YAML block cannot"):
        rewrite("cm.yaml", MANIFEST, 0, {"httpd.conf": "A\x00B\n"})


@pytest.mark.parametrize("properties", ["&conf ", "!!str ", "&conf !!str ", "!!str &conf "])
def test_a_block_with_an_anchor_or_a_tag_keeps_them(properties):
    manifest = f"kind: ConfigMap\ndata:\n  httpd.conf: {properties}|\n    MaxClients 5\n  other: x\n"
    out = rewrite("cm.yaml", manifest, 0, {"httpd.conf": "MaxRequestWorkers 5\n"})
    assert out == manifest.replace("MaxClients", "MaxRequestWorkers")


ALIASED = "kind: ConfigMap\ndata:\n  httpd.conf: &conf |\n    MaxClients 5\n  copy.conf: *conf\n"


def test_an_alias_follows_its_anchor_when_both_get_the_same_text():
    value = "MaxRequestWorkers 5\n"
    out = rewrite("cm.yaml", ALIASED, 0, {"httpd.conf": value, "copy.conf": value})
    assert out == ALIASED.replace("MaxClients", "MaxRequestWorkers")


@pytest.mark.parametrize("values", [{"httpd.conf": "MaxRequestWorkers 5\n", "copy.conf": "Other\n"},
                                    {"copy.conf": "MaxRequestWorkers 5\n"}])
def test_an_alias_whose_text_would_differ_from_its_anchor_is_refused(values):
    with pytest.raises(ManifestEditError) as caught:
        rewrite("cm.yaml", ALIASED, 0, values)
    message = str(caught.value)
    assert message.startswith("cm.yaml:3: data.copy.conf, data.httpd.conf: one value (an anchor and its alias), "
                              "which would get different texts -> write each out in full"), message


def test_values_refused_are_named_each_and_the_others_written():
    manifest = ALIASED + "  other.conf: >\n    MaxClients 1\n  site.conf: |\n    MaxClients 2\n"
    refused: dict[str, str] = {}
    out = rewrite("cm.yaml", manifest, 0, {"httpd.conf": "A\n", "copy.conf": "B\n", "other.conf": "C\n",
                                           "site.conf": "MaxRequestWorkers 2\n"}, refused)
    assert out == manifest.replace("MaxClients 2", "MaxRequestWorkers 2")
    assert sorted(refused) == ["copy.conf", "httpd.conf", "other.conf"]
    assert "one value (an anchor and its alias)" in refused["copy.conf"] == refused["httpd.conf"]
    assert refused["other.conf"].startswith("cm.yaml:6: data.other.conf: the value is not a literal block")


#: What `kubectl get configmap -o yaml` writes for a value whose first line is indented: an indentation
#: indicator (`|2`: the content is indented two more than the key), so the block's own indentation is
#: not the first line's.
INDICATED = """\
apiVersion: v1
data:
  httpd.conf: |2
      # indented first line
    MaxClients 150
kind: ConfigMap
"""


def test_a_block_with_an_indentation_indicator_keeps_it():
    out = rewrite("cm.yaml", INDICATED, 0, {"httpd.conf": "  # indented first line\nMaxRequestWorkers 150\n"})
    assert out == INDICATED.replace("MaxClients", "MaxRequestWorkers")


@pytest.mark.parametrize("manifest", [MANIFEST, INDICATED])
def test_a_value_that_starts_with_spaces_gets_an_indentation_indicator(manifest):
    value = "  Indented\nMaxRequestWorkers 5\n"
    out = rewrite("cm.yaml", manifest, 0, {"httpd.conf": value})
    assert load_manifest_objects("cm.yaml", out.encode())[0]["data"]["httpd.conf"] == value
    assert "  httpd.conf: |2\n      Indented\n    MaxRequestWorkers 5\n" in out
    with pytest.raises(ManifestEditError, match="this JSON cannot be edited in place"):
        rewrite("cm.json", '{\n\t"kind": "ConfigMap",\n\t"data": {"httpd.conf": "A"}\n}\n', 0, {"httpd.conf": "B\n"})


JSON_MANIFEST = """\
{
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "web", "labels": {"httpd24.io/config": "true"}},
    "data": {
        "httpd.conf": "ServerName www.example.org\\nMaxClients 150\\n",
        "other.conf": "Listen 8080\\n"
    }
}
"""


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_json_manifest_gets_only_its_string_replaced(eol):
    manifest = JSON_MANIFEST.replace("\n", eol)
    out = rewrite("cm.json", manifest, 0, {"httpd.conf": "ServerName www.example.org\nMaxRequestWorkers 150\n"})
    assert out == manifest.replace("MaxClients 150", "MaxRequestWorkers 150")


@pytest.mark.parametrize("properties", ["", "&conf ", "!!str "])
def test_a_double_quoted_yaml_value_stays_double_quoted(properties):
    manifest = f'kind: ConfigMap  # kept\ndata:\n  httpd.conf: {properties}"MaxClients 5\\n"\n  other: x\n'
    out = rewrite("cm.yaml", manifest, 0, {"httpd.conf": "MaxRequestWorkers 5\n"})
    assert out == manifest.replace("MaxClients", "MaxRequestWorkers")


def test_random_values_in_a_json_manifest_load_back_exactly():
    rnd = random.Random(221)
    alphabet = ["a", " ", "\t", "#", "\\", '"', "é", "\n", "\x01", "\u2028", "/", "日"]
    for _ in range(500):
        value = "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 20)))
        out = rewrite("cm.json", JSON_MANIFEST, 0, {"other.conf": value})
        assert load_manifest_objects("cm.json", out.encode())[0]["data"]["other.conf"] == value
        assert out.splitlines()[:5] == JSON_MANIFEST.splitlines()[:5]  # nothing before the values moved


def test_a_list_manifest_addresses_its_items_like_the_reader():
    listed = yaml.safe_dump({"kind": "List", "items": [{"kind": "ConfigMap", "data": {"a": "x"}}]})
    listed = listed.replace("a: x", "a: |\n      x")
    assert load_manifest_objects("l.yaml", listed.encode())[0]["data"] == {"a": "x\n"}
    out = rewrite("l.yaml", listed, 0, {"a": "y\n"})
    assert load_manifest_objects("l.yaml", out.encode())[0]["data"] == {"a": "y\n"}


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_random_values_either_load_back_exactly_or_are_refused_for_a_stated_reason(eol):
    manifest = MANIFEST.replace("\n", eol)
    rnd = random.Random(20261122)
    alphabet = ["a", "b", " ", "\t", "#", ":", "-", "|", ">", "'", '"', "é", "\n", "\n", "\n", "%", "{", "}"]
    written = 0
    for _ in range(1500):
        value = "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 30)))
        index = rnd.choice([0, 1])
        key = rnd.choice(["httpd.conf", "other.conf"]) if index == 0 else "httpd.conf"
        try:
            out = rewrite("cm.yaml", manifest, index, {key: value})
        except ManifestEditError as error:
            assert "is blank" in str(error), (value, str(error))
            continue
        written += 1
        assert load_manifest_objects("cm.yaml", out.encode())[index]["data"][key] == value
        start = manifest.index(f"  {key}:", manifest.index("data:", manifest.index("name: second") if index else 0))
        assert out[:start] == manifest[:start]  # nothing before the edited value changed
        assert out.count("\n") == out.count(eol)  # one kind of line ending, the file's
    assert written > 1250


def test_a_crlf_manifest_keeps_its_line_endings():
    crlf = MANIFEST.replace("\n", "\r\n")
    out = rewrite("cm.yaml", crlf, 0, {"httpd.conf": "ServerName www.example.org\nMaxRequestWorkers 150\n"})
    assert out == crlf.replace("MaxClients 150", "MaxRequestWorkers 150")


def test_a_block_at_the_end_of_a_file_without_a_line_break_stays_so():
    text = "kind: ConfigMap\ndata:\n  httpd.conf: |\n    ServerName x\n    MaxClients 5"
    assert rewrite("cm.yaml", text, 0, {"httpd.conf": "ServerName x\nMaxRequestWorkers 5"}) == text.replace(
        "MaxClients", "MaxRequestWorkers")
    # a value that now ends in a line break gets one
    assert rewrite("cm.yaml", text, 0, {"httpd.conf": "ServerName x\n"}).endswith("|\n    ServerName x\n")


@pytest.mark.parametrize("empty_list", ["kind: List\n", "kind: List\nitems:\n", "kind: List\nitems: null\n",
                                        "kind: List\nitems: []\n"])
def test_a_list_without_items_shifts_no_object(empty_list):
    """The reader skips a List without items; the editor counted it as an object, so the ConfigMap after it
    was addressed by the index of the one before it."""
    manifest = (f"{empty_list}---\nkind: ConfigMap\ndata:\n  a: |\n    first\n---\n"
                "kind: ConfigMap\ndata:\n  a: |\n    second\n")
    assert [o["data"]["a"] for o in load_manifest_objects("m.yaml", manifest.encode())] == ["first\n", "second\n"]
    out = rewrite("m.yaml", manifest, 1, {"a": "changed\n"})
    assert out == manifest.replace("second", "changed")


def test_a_json_list_of_any_kind_addresses_its_items_like_the_reader():
    """`kubectl get configmaps -o json` writes a ConfigMapList (the API's kind), whose items the reader lists."""
    listed = ('{"kind": "ConfigMapList", "items": [\n {"kind": "ConfigMap", "data": {"a": "first\\n"}},\n'
              ' {"kind": "ConfigMap", "data": {"a": "second\\n"}}]}\n')
    out = rewrite("l.json", listed, 1, {"a": "changed\n"})
    assert out == listed.replace("second", "changed")

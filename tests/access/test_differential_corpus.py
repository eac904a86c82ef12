"""The access-control sections of every corpus file that has them, translated and proven on apache2.

Sections are extracted by httpd24.apache.differential (everything that does not
decide access is dropped; .htaccess files run as the DocumentRoot's <Directory>;
each VirtualHost is a unit of its own).  Build templates with @@ / @exp_*@
placeholders run too: the placeholders are only path text.

A fragment whose meaning depends on the DocumentRoot of the configuration including it (which it does
not set) is left to a person, and must say so; with that DocumentRoot written in, as the harness serves
it, the rest of it is translated and proven like any other file.
"""

from __future__ import annotations

import os
import re

import pytest

from httpd24.access import TranslationError, translate
from httpd24.apache import differential
from httpd24.config import ConfigSet

pytestmark = pytest.mark.apache

CORPUS = "/work/shared/corpus/files"
_ACCESS = re.compile(rb"(?im)^\s*(order|allow|deny|satisfy|require)\b")


def _files() -> list[str]:
    if not os.path.isdir(CORPUS):
        return []
    out = []
    for name in sorted(os.listdir(CORPUS)):
        with open(os.path.join(CORPUS, name), "rb") as f:
            if _ACCESS.search(f.read()):
                out.append(name)
    return out


FILES = _files()
#: file -> the sections refused: Locations that meet another <Directory> of the file under some DocumentRoot
#: (<Location /authz/fail>, `Require user foo`, under <Directory .../CAN-2004-0811/sub>'s `Satisfy Any`).
LEFT_TO_A_PERSON = {"httpd-tests-2011-extra-ifversion.conf.in": ["<Location /authz/fail>"]}
#: What the harness serves a fragment under (httpd's compiled-in default, which the model assumes).
HARNESS_ROOT = b"DocumentRoot /usr/local/apache2/htdocs\n"


def test_corpus_has_access_files():
    assert len(FILES) >= 40


def _read(name: str) -> bytes:
    with open(os.path.join(CORPUS, name), "rb") as f:
        return f.read()


@pytest.mark.parametrize("name", sorted(LEFT_TO_A_PERSON))
def test_a_fragment_that_depends_on_its_includers_document_root_is_left_to_a_person(name):
    with pytest.raises(TranslationError) as raised:
        translate(ConfigSet.from_mapping({name: _read(name)}, entry=name))
    reasons = str(raised.value).split("; ")  # one per section
    for label in LEFT_TO_A_PERSON[name]:
        assert any(label in reason and "the DocumentRoot of the configuration including it" in reason
                   for reason in reasons), str(raised.value)


def test_corpus_access_sections_match(httpd, translation_cases, assert_all_ok):
    items = [(name, {name: HARNESS_ROOT + _read(name) if name in LEFT_TO_A_PERSON else _read(name)})
             for name in FILES]
    reports = []
    for label, files in items:
        reports += differential.compare_many(translation_cases([(label, files)], name=label), httpd=httpd)
    assert_all_ok(reports, "corpus")

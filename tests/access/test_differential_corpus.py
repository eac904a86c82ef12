"""The access-control sections of every corpus file that has them, translated and proven on apache2.

Sections are extracted by httpd24.apache.differential (everything that does not
decide access is dropped; .htaccess files run as the DocumentRoot's <Directory>;
each VirtualHost is a unit of its own).  Build templates with @@ / @exp_*@
placeholders run too: the placeholders are only path text.
"""

from __future__ import annotations

import os
import re

import pytest

from httpd24.apache import differential

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


def test_corpus_has_access_files():
    assert len(FILES) >= 40


def test_corpus_access_sections_match(httpd, translation_cases, assert_all_ok):
    items = []
    for name in FILES:
        with open(os.path.join(CORPUS, name), "rb") as f:
            items.append((name, {name: f.read()}))
    reports = []
    for label, files in items:
        reports += differential.compare_many(translation_cases([(label, files)], name=label), httpd=httpd)
    assert_all_ok(reports, "corpus")

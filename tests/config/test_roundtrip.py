"""Every real configuration renders back byte for byte (parse -> render, and parse -> no-op edit -> render)."""

from __future__ import annotations

import glob
import os

import pytest

from httpd24.config import parse
from httpd24.config import edit

CORPUS = sorted(glob.glob("/work/shared/corpus/files/*") + glob.glob(os.path.join(os.path.dirname(__file__), "../../../shared/corpus/files/*")))
CORPUS = sorted({os.path.realpath(p) for p in CORPUS})
DEBIAN = sorted(
    p for p in glob.glob("/etc/apache2/**/*", recursive=True) if os.path.isfile(p) and not os.path.islink(p)
)


def test_corpus_is_present():
    # The corpus lives beside the repository; CI has it. Without it the round-trip test proves nothing.
    assert len(CORPUS) >= 60


@pytest.mark.parametrize("path", CORPUS, ids=os.path.basename)
def test_corpus_file_round_trips(path):
    data = open(path, "rb").read()
    doc = parse(data, path)
    assert doc.render() == data


@pytest.mark.apache
def test_debian_files_are_present():
    assert len(DEBIAN) > 100, "apache2 must be installed (CI installs it)"


@pytest.mark.apache
@pytest.mark.parametrize("path", DEBIAN, ids=lambda p: os.path.relpath(p, "/etc/apache2"))
def test_debian_file_round_trips(path):
    data = open(path, "rb").read()
    assert parse(data, path).render() == data


@pytest.mark.parametrize("path", CORPUS, ids=os.path.basename)
def test_noop_edit_keeps_every_byte(path):
    """Setting every directive's arguments to their own values changes nothing."""
    data = open(path, "rb").read()
    doc = parse(data, path)
    for node in list(doc.directives()):
        edit.set_args(node, list(node.args))
    assert doc.render() == data

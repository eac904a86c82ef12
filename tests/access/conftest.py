"""Shared pieces of the differential access-control tests (real apache2, see httpd24.apache.differential)."""

from __future__ import annotations

import pytest

from apache_fixture import httpd  # noqa: F401  (session fixture: the real apache2)
from httpd24.apache import differential
from httpd24.config import ConfigSet


def configset(text: str, name: str = "httpd.conf") -> ConfigSet:
    return ConfigSet.from_mapping({name: text}, entry=name)


def _access():
    access = pytest.importorskip("httpd24.access", reason="httpd24.access (the translator) is not there yet")
    for fn in ("translate", "normalize_22"):
        if not hasattr(access, fn):
            pytest.skip(f"httpd24.access.{fn} is not there yet")
    return access


@pytest.fixture(scope="session")
def access():
    """The translator package (translate, normalize_22)."""
    return _access()


def translation_cases(access, items: list[tuple[str, str]], name: str = "httpd.conf") -> list[differential.Case]:
    """(label, 2.2 text) -> Case(reference=normalize_22(original), candidate=translate(original)).

    A translator that raises is turned into a candidate that cannot start, so
    the failure is reported against the case with the exception text.
    """
    cases = []
    for label, text in items:
        original = configset(text, name)
        reference = access.normalize_22(configset(text, name))
        try:
            candidate = access.translate(original)
        except Exception as e:  # noqa: BLE001 - reported as the case's failure
            candidate = f"TranslatorRaised {type(e).__name__}: {e}\n"
        cases.append(differential.Case(label, reference, candidate))
    return cases


def assert_all_ok(reports: list[differential.VerifyReport], what: str = "") -> None:
    bad = [r for r in reports if not r.ok]
    if bad:
        text = "\n\n".join(r.format(limit=12) for r in bad[:8])
        pytest.fail(f"{len(bad)} of {len(reports)} {what} configurations differ:\n{text}", pytrace=False)

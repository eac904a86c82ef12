"""Shared fixtures of the differential access-control tests (real apache2, see httpd24.apache.differential).

Fixtures rather than imports: several test directories have a conftest.py.
"""

from __future__ import annotations

import pytest

from apache_fixture import httpd  # noqa: F401  (session fixture: the real apache2)
from httpd24.apache import differential
from httpd24.config import ConfigSet


def configset(text: str, name: str = "httpd.conf") -> ConfigSet:
    return ConfigSet.from_mapping({name: text}, entry=name)


@pytest.fixture(scope="session")
def access():
    """The translator package (translate, normalize_22)."""
    import httpd24.access as access
    return access


@pytest.fixture
def translation_cases(access):
    """[(label, 2.2 text)] -> [Case(reference=normalize_22(original), candidate=translate(original))].

    A translator that raises becomes a candidate that cannot start, so the
    failure is reported against its case with the exception text.
    """

    def build(items, name: str = "httpd.conf"):
        cases = []
        for label, text in items:
            files = text if isinstance(text, dict) else {name: text}
            entry = name if name in files else next(iter(files))
            reference = access.normalize_22(ConfigSet.from_mapping(files, entry=entry))
            try:
                candidate = access.translate(ConfigSet.from_mapping(files, entry=entry))
            except Exception as e:  # noqa: BLE001 - reported as the case's failure
                candidate = e
            cases.append(differential.Case(label, reference, candidate))
        return cases

    return build


@pytest.fixture
def assert_all_ok():
    def check(reports, what: str = "") -> None:
        bad = [r for r in reports if not r.ok]
        if bad:
            text = "\n\n".join(r.format(limit=12) for r in bad[:8])
            pytest.fail(f"{len(bad)} of {len(reports)} {what} configurations differ:\n{text}", pytrace=False)

    return check

"""Helpers for rule tests (pyupgrade style: noop cases and (before, after) cases).

``findings(text, code)`` lints one file and returns the findings of one code;
``fixed(text, code)`` applies that code's fixes and returns the result, checking
that a second migration changes nothing (idempotence).
"""

from __future__ import annotations

import textwrap

from httpd24.config import ConfigSet, Target
from httpd24.engine import Applicability, lint, migrate

DEFAULT_NAME = "httpd.conf"


def configset(text: str | bytes | dict, name: str = DEFAULT_NAME) -> ConfigSet:
    if isinstance(text, dict):
        files = {k: textwrap.dedent(v) if isinstance(v, str) else v for k, v in text.items()}
        return ConfigSet.from_mapping(files, entry=name)
    if isinstance(text, str):
        text = textwrap.dedent(text)
    return ConfigSet.from_mapping({name: text}, entry=name)


def findings(text, code: str, *, target: Target | None = None, defaults=None):
    kwargs = {"target": target} if target else {}
    return lint(configset(text), select=[code], defaults=defaults, **kwargs)


def fixed(text, code: str, *, applicability=Applicability.PRESERVE, defaults=None, name: str = DEFAULT_NAME) -> str:
    result = migrate(configset(text, name), select=[code], applicability=applicability, defaults=defaults)
    out = result.files[name].decode("utf-8", "surrogateescape")
    again = migrate(configset(out, name), select=[code], applicability=applicability, defaults=defaults)
    assert again.files[name].decode("utf-8", "surrogateescape") == out, "fix is not idempotent"
    return out

"""A repository's own settings for the CLI, in ``httpd24.toml`` (or ``.httpd24.toml``).

CI runs ``httpd24 lint conf/`` in many places (a pre-commit hook, a pipeline step, a developer's
shell); the codes a team selects or ignores, how strict the exit is and which server the files are
for belong in the repository, once, as ruff keeps them in ``ruff.toml``. The file is the first of
those names found in the working directory or above it; ``--config FILE`` names one, ``--isolated``
reads none, and an option given on the command line wins over the file (and for a ConfigMap, its own
``httpd24.io/defaults`` and ``httpd24.io/source-version`` annotations win over ``defaults`` and
``source-version`` here: see ``cli._judged_as``)::

    select = ["HT1", "HT2", "HT5"]
    ignore = ["HT302"]
    fail-on = "warning"
    defaults = "keep-2.2"
    source-version = "2.2"
    target-version = "2.4.62"
    server-root = "apache2"        # relative to this file
    modules = ["ssl_module"]
    defines = ["SSL"]

    [per-file-ignores]
    "sites-available/legacy-*.conf" = ["HT406"]

A mistake in the file is a usage error (exit 2) naming the file, the line and what to write.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from .engine import names_a_rule

FILE_NAMES = ("httpd24.toml", ".httpd24.toml")
FAIL_ON = ("error", "warning", "info", "never")
DEFAULTS = ("keep-2.2", "adopt-2.4")
SOURCE_VERSIONS = ("auto", "2.2", "2.4")


class SettingsError(Exception):
    """A settings file httpd24 cannot use; the message names the file and, where it can, the line."""


@dataclass
class Settings:
    """What a settings file says; None where it says nothing (the command line or the default decides)."""

    path: str | None = None
    select: list[str] | None = None
    ignore: list[str] | None = None
    fail_on: str | None = None
    defaults: str | None = None
    source_version: str | None = None
    target_version: tuple[int, int, int] | None = None
    server_root: str | None = None
    modules: list[str] | None = None
    defines: list[str] | None = None
    #: (glob, codes or prefixes): findings in files the glob matches that these codes silence.
    per_file_ignores: list[tuple[str, list[str]]] = field(default_factory=list)

    def ignored_in(self, path: str, code: str) -> bool:
        """Whether ``per-file-ignores`` silences ``code`` in ``path`` (as shown: relative to the working
        directory, or absolute). A glob matches the path relative to the settings file's directory, the
        path as shown, or the file's name, as ruff's do."""
        if not self.per_file_ignores:
            return False
        names = {path, os.path.basename(path)}
        if self.path is not None:
            names.add(os.path.relpath(os.path.abspath(path), os.path.dirname(os.path.abspath(self.path))))
        return any(
            code.startswith(tuple(codes)) and any(fnmatch.fnmatchcase(name, pattern) for name in names)
            for pattern, codes in self.per_file_ignores
        )


def find(start: str) -> str | None:
    """The settings file for a run from ``start``: the first of :data:`FILE_NAMES` there or above."""
    here = os.path.abspath(start)
    while True:
        for name in FILE_NAMES:
            candidate = os.path.join(here, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def load(path: str) -> Settings:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise SettingsError(f"{path}: cannot read it ({error.strerror or error})") from None
    text = data.decode("utf-8", "replace")
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path}: not valid TOML: {error}") from None
    return _read(path, text, table)


def release(value: str) -> tuple[int, int, int] | None:
    """``2.4.62`` as numbers; None when it is not a 2.4 release."""
    parts = value.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or parts[:2] != ["2", "4"]:
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


_KEYS = ("select", "ignore", "fail-on", "defaults", "source-version", "target-version", "server-root", "modules",
         "defines", "per-file-ignores")


def _read(path: str, text: str, table: dict[str, Any]) -> Settings:
    def fail(key: str, what: str) -> SettingsError:
        line = _line_of(text, key)
        return SettingsError(f"{path}:{line}: {key}: {what}" if line else f"{path}: {key}: {what}")

    settings = Settings(path=path)
    for key, value in table.items():
        if key not in _KEYS:
            close = difflib.get_close_matches(key, _KEYS, n=1)
            hint = f"did you mean `{close[0]}`?" if close else f"the settings are {', '.join(_KEYS)}"
            raise fail(key, f"no such setting; {hint}")
        if key in ("select", "ignore"):
            setattr(settings, key, _codes(value, lambda what: fail(key, what)))
        elif key in ("modules", "defines"):
            if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
                raise fail(key, 'give a list of names, e.g. ["ssl_module"]')
            setattr(settings, key, [v.strip() for v in value])
        elif key in ("fail-on", "defaults", "source-version"):
            choices = {"fail-on": FAIL_ON, "defaults": DEFAULTS, "source-version": SOURCE_VERSIONS}[key]
            if value not in choices:
                raise fail(key, f"{value!r} is none of {', '.join(choices)}")
            setattr(settings, key.replace("-", "_"), value)
        elif key == "target-version":
            version = release(value) if isinstance(value, str) else None
            if version is None:
                raise fail(key, f"{value!r}: give a 2.4 release as a string, e.g. \"2.4.62\"")
            settings.target_version = version
        elif key == "server-root":
            if not isinstance(value, str) or not value:
                raise fail(key, "give a directory, absolute or relative to this file")
            settings.server_root = os.path.join(os.path.dirname(os.path.abspath(path)), value)
        else:  # per-file-ignores
            if not isinstance(value, dict):
                raise fail(key, 'give a table of globs to codes: [per-file-ignores] then "conf.d/*.conf" = ["HT406"]')
            for pattern, codes in value.items():
                settings.per_file_ignores.append((pattern, _codes(codes, lambda what: fail(pattern, what))))
    return settings


def _codes(value: Any, fail) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise fail('give a list of rule codes or prefixes, e.g. ["HT1", "HT501"]')
    codes = [v.strip().upper() for v in value]
    for code in codes:
        if not names_a_rule(code):
            raise fail(f"{code} is no rule code or prefix (`httpd24 rules` lists them)")
    return codes


def _line_of(text: str, key: str) -> int | None:
    """The line where ``key`` is set (bare or quoted), for the message; None when it cannot be told."""
    pattern = re.compile(r'^\s*(?:"{0}"|\'{0}\'|{0})\s*='.format(re.escape(key)))
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return None

"""The facade the CLI, the admission webhooks and the operator call.

Loading (``load_mapping``, ``load_paths``) is the only place that touches files;
``lint``, ``migrate`` and ``required_modules`` are pure.
"""

from __future__ import annotations

from .config import DEFAULT_TARGET, ConfigSet, ParseError, Target
from .engine import Applicability, Finding, Migration, lint, migrate

__all__ = [
    "Applicability", "ConfigSet", "DEFAULT_TARGET", "Finding", "Migration", "ParseError", "Target", "lint",
    "load_mapping", "migrate", "required_modules",
]


def load_mapping(files, *, entry: str | None = "httpd.conf", server_root: str = "/usr/local/apache2") -> ConfigSet:
    """A configuration from a mapping of names to texts (a ConfigMap's ``data``)."""
    return ConfigSet.from_mapping(files, entry=entry, server_root=server_root)


def required_modules(configset: ConfigSet, *, target: Target = DEFAULT_TARGET):
    """The modules the configuration needs on 2.4 (see :mod:`httpd24.engine.modules`)."""
    from .engine.modules import required_modules as compute

    return compute(configset, target=target)

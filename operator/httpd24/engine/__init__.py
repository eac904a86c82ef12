"""Rules, findings, the lint runner and the fix loop. Pure: no I/O."""

from .context import Context, DefaultsPolicy
from .finding import Applicability, Finding, Fix, Severity
from .registry import REDIRECTS, Rule, all_rules, get, names_a_rule, register
from .runner import Migration, lint, migrate
from .source import Source, SourceVersion

__all__ = [
    "Applicability", "Context", "DefaultsPolicy", "Finding", "Fix", "Migration", "REDIRECTS", "Rule", "Severity",
    "Source", "SourceVersion", "all_rules", "get", "lint", "migrate", "names_a_rule", "register",
]

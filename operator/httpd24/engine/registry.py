"""The rule catalogue: one table from code to rule, codes never reused.

Rules live one per module in :mod:`httpd24.rules` and register themselves with
:func:`register`; :func:`all_rules` imports that package so the table is full.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from typing import TYPE_CHECKING, Callable, ClassVar, Iterable, TypeVar

from .finding import Applicability, Finding, Fix, Severity

if TYPE_CHECKING:
    from .context import Context
    from ..config import Item, Node

_REGISTRY: dict[str, "Rule"] = {}
_LOADED = False
_LOAD_LOCK = threading.Lock()

#: Old code -> new code, for codes that were renamed (never reuse a code).
REDIRECTS: dict[str, str] = {}

_REQUIRED_SECTIONS = ("## What it does", "## Why is this bad?")


class Rule:
    """One piece of 2.2 -> 2.4 knowledge.

    Subclasses set the class attributes, write a docstring with the sections
    ``## What it does``, ``## Why is this bad?``, ``## Example``, ``## Use instead``
    and ``## Fix safety``, and implement :meth:`check` (called for every live or
    possibly live directive whose key is in ``directives``) and/or
    :meth:`check_config` (called once per configuration).
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    directives: ClassVar[tuple[str, ...]] = ()
    #: "always", "sometimes" or "never" (documentation only).
    fix_availability: ClassVar[str] = "never"
    #: The rule tells what 2.2 did that 2.4 does not, and may write 2.2's behaviour back: it says nothing
    #: true of a configuration that ran on 2.4 already, and is left out for one (:mod:`.source`).
    about_22_behaviour: ClassVar[bool] = False
    since: ClassVar[str] = "0.1.0"

    def check(self, ctx: "Context", item: "Item") -> Iterable[Finding]:
        return ()

    def check_config(self, ctx: "Context") -> Iterable[Finding]:
        return ()

    def check_after(self, ctx: "Context", silenced: list[Finding], enabled: list[str]) -> Iterable[Finding]:
        """For a rule about the other rules' results (ignore marks that silence nothing): called once
        they ran, with what ignore marks silenced and the codes of the rules that ran."""
        return ()

    # -- helpers for subclasses -------------------------------------------------------------
    def finding(
        self,
        where: "Item | Node",
        message: str,
        *,
        replacement: str = "",
        fix: Fix | None = None,
        severity: Severity | None = None,
    ) -> Finding:
        node = getattr(where, "node", where)
        location = node.location
        file = getattr(where, "file", None) or node.document.name
        return Finding(
            code=self.code,
            rule=self.name,
            severity=severity or self.severity,
            message=message,
            file=file,
            line=location.line,
            column=location.column,
            replacement=replacement,
            fix=fix,
        )

    @staticmethod
    def fix(description: str, applicability: Applicability, edit: Callable[[], None], *nodes: "Node") -> Fix:
        return Fix(description, applicability, edit, nodes)

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


R = TypeVar("R", bound=type[Rule])


def register(cls: R) -> R:
    """Class decorator: add a rule to the catalogue (checks the code is new and the docs complete)."""
    code = cls.code
    if not re.fullmatch(r"HT\d{3}", code):
        raise ValueError(f"{cls.__name__}: rule code {code!r} is not of the form HT123")
    if code in _REGISTRY and type(_REGISTRY[code]) is not cls:
        raise ValueError(f"rule code {code} is used by both {type(_REGISTRY[code]).__name__} and {cls.__name__}")
    _REGISTRY[code] = cls()
    return cls


def _load() -> None:
    """Import every rule module once; threads that ask meanwhile wait for the whole catalogue."""
    global _LOADED
    if _LOADED:
        return
    with _LOAD_LOCK:
        if _LOADED:
            return
        for package_name in ("httpd24.rules", "httpd24.access"):
            package = importlib.import_module(package_name)
            for module in pkgutil.walk_packages(package.__path__, package_name + "."):
                importlib.import_module(module.name)
        _LOADED = True


def all_rules() -> list[Rule]:
    _load()
    return [_REGISTRY[code] for code in sorted(_REGISTRY)]


def names_a_rule(code: str) -> bool:
    """Whether ``code`` (upper case) is a rule's code, a prefix of one, or a redirected old code: what
    ``--select``, ``--ignore`` and ignore marks may name."""
    _load()
    return any(known.startswith(code) for known in (*_REGISTRY, *REDIRECTS))


def get(code: str) -> Rule | None:
    _load()
    code = code.upper()
    return _REGISTRY.get(REDIRECTS.get(code, code))


def missing_doc_sections(rule: Rule) -> list[str]:
    doc = rule.documentation()
    return [s for s in _REQUIRED_SECTIONS if s not in doc]

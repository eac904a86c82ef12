"""What a configuration will run on, and how conditional sections are judged against it.

httpd evaluates ``<IfModule>``, ``<IfDefine>`` and ``<IfVersion>`` while it
reads the files, in order (they are EXEC_ON_READ, like ``Define`` and
``LoadModule``). A linter rarely knows everything httpd will know at start-up
(which modules the main config loads, which ``-D`` flags are passed), so a
condition is judged to one of three answers: live, dead, or unknown. Rules
report what is live or unknown, and never what is dead on 2.4, such as the
2.2 branch of ``<IfModule !mod_authz_core.c>`` or ``<IfVersion < 2.3>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from typing import AbstractSet


class Liveness(IntEnum):
    """Whether httpd reads a node on the target. Ordered so ``min`` combines nesting."""

    DEAD = 0
    UNKNOWN = 1
    LIVE = 2

    def negate(self) -> "Liveness":
        return Liveness(2 - self.value)


#: Module source files whose identifier does not follow ``mod_X.c`` <-> ``X_module``.
_SPECIAL_SOURCES = {
    "core.c": "core_module",
    "http_core.c": "http_module",
    "prefork.c": "mpm_prefork_module",
    "worker.c": "mpm_worker_module",
    "event.c": "mpm_event_module",
    "mpm_winnt.c": "mpm_winnt_module",
}
_SPECIAL_IDENTIFIERS = {v: k for k, v in _SPECIAL_SOURCES.items()}

#: Modules of 2.2 that no longer exist in 2.4: an ``<IfModule>`` on them is never true there.
REMOVED_IN_24 = frozenset(
    {
        "mem_cache_module",
        "disk_cache_module",
        "authn_alias_module",
        "authn_default_module",
        "authz_default_module",
        "example_module",
        "mpm_beos_module",
        "mpm_perchild_module",
    }
)

#: Modules every 2.4 server has (compiled in) or that a 2.4 configuration using
#: 2.4 access control must load; ``<IfModule !mod_authz_core.c>`` is the 2.2
#: branch by convention (lintian, Debian and most dual configs use it so).
ASSUMED_ON_24 = frozenset({"core_module", "http_module", "so_module", "authz_core_module"})


def module_identifier(name: str) -> str:
    """``mod_ssl.c`` or ``ssl_module`` -> ``ssl_module`` (IfModule accepts both)."""
    name = name.strip()
    if name.endswith(".c"):
        if name in _SPECIAL_SOURCES:
            return _SPECIAL_SOURCES[name]
        base = name[:-2]
        if base.startswith("mod_"):
            base = base[4:]
        return f"{base}_module"
    return name


def module_source(identifier: str) -> str:
    """``ssl_module`` -> ``mod_ssl.c``."""
    if identifier in _SPECIAL_IDENTIFIERS:
        return _SPECIAL_IDENTIFIERS[identifier]
    base = identifier[: -len("_module")] if identifier.endswith("_module") else identifier
    return f"mod_{base}.c"


def _parse_version(text: str) -> tuple[int, int, int] | None:
    """mod_version's ``compare_version`` parsing: ``major[.minor[.patch]]``, missing parts are 0."""
    parts = text.split(".")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        return None
    numbers = [int(p) for p in parts] + [0] * (3 - len(parts))
    return numbers[0], numbers[1], numbers[2]


@dataclass(frozen=True)
class Target:
    """httpd 2.4.x, the modules loaded before the configuration, and the ``-D`` defines.

    ``modules`` and ``defines`` set to ``None`` mean unknown: conditions on them
    are judged unknown unless the configuration itself settles them (a
    ``LoadModule`` or ``Define`` read earlier).
    """

    version: tuple[int, int, int] = (2, 4, 62)
    modules: frozenset[str] | None = None
    defines: frozenset[str] | None = None
    environment: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    #: Answers for conditions nothing else decides: ``("module", "ssl_module", True)``, ``("define", "SSL",
    #: False)``. The access plan uses them to try each way an undecided condition can fall.
    assumptions: frozenset[tuple[str, str, bool]] = frozenset()

    def __post_init__(self) -> None:
        # Users name modules as <IfModule> does, either way (``mod_ssl.c``, ``ssl_module``); the checks
        # compare identifiers.
        if self.modules is not None:
            object.__setattr__(self, "modules", frozenset(module_identifier(m) for m in self.modules))

    def assumed(self, kind: str, name: str) -> Liveness:
        """The assumption about module or define ``name``; UNKNOWN when there is none."""
        if (kind, name, True) in self.assumptions:
            return Liveness.LIVE
        if (kind, name, False) in self.assumptions:
            return Liveness.DEAD
        return Liveness.UNKNOWN

    def if_module(self, argument: str, loaded: set[str], maybe_loaded: AbstractSet[str] = frozenset()) -> Liveness:
        """``loaded``: modules loaded so far; ``maybe_loaded``: those only a branch that may not be read loaded."""
        negated = argument.startswith("!")
        identifier = module_identifier(argument[1:] if negated else argument)
        if self.modules is not None and identifier in self.modules:
            answer = Liveness.LIVE
        elif identifier in maybe_loaded:
            answer = Liveness.UNKNOWN
        elif identifier in loaded:
            answer = Liveness.LIVE
        elif self.modules is not None:
            answer = Liveness.DEAD
        elif identifier in REMOVED_IN_24:
            answer = Liveness.DEAD
        elif identifier in ASSUMED_ON_24:
            answer = Liveness.LIVE
        else:
            answer = self.assumed("module", identifier)
        return answer.negate() if negated else answer

    def if_define(self, argument: str, defined: AbstractSet[str], undefined: AbstractSet[str] = frozenset(),
                  maybe: AbstractSet[str] = frozenset()) -> Liveness:
        """``defined``: names set by -D (the target's) or Define so far; ``undefined``: names UnDefine'd;
        ``maybe``: names a Define or UnDefine in a branch that may not be read left undecided."""
        negated = argument.startswith("!")
        name = argument[1:] if negated else argument
        if name in maybe:
            answer = Liveness.UNKNOWN
        elif name in defined:
            answer = Liveness.LIVE
        elif self.defines is not None or name in undefined:
            answer = Liveness.DEAD
        else:
            answer = self.assumed("define", name)
        return answer.negate() if negated else answer

    def if_version(self, args: list[str]) -> Liveness:
        """mod_version's ``<IfVersion [[!]operator] version>``, regex forms included."""
        if not args:
            return Liveness.UNKNOWN
        if len(args) == 1:
            operator, operand = "=", args[0]
        else:
            operator, operand = args[0], " ".join(args[1:])
        negated = False
        if operator.startswith("!"):
            negated, operator = True, operator[1:] or "="
        version_text = "%d.%d.%d" % self.version
        if operator == "~" or (operator in ("=", "==") and len(operand) > 1 and operand[0] == operand[-1] == "/"):
            pattern = operand[1:-1] if operator != "~" else operand
            try:
                result = re.search(pattern, version_text) is not None
            except re.error:
                return Liveness.UNKNOWN
        else:
            wanted = _parse_version(operand)
            if wanted is None:
                return Liveness.UNKNOWN
            have = self.version
            comparisons = {
                "=": have == wanted,
                "==": have == wanted,
                ">": have > wanted,
                ">=": have >= wanted,
                "<": have < wanted,
                "<=": have <= wanted,
            }
            if operator not in comparisons:
                return Liveness.UNKNOWN
            result = comparisons[operator]
        if negated:
            result = not result
        return Liveness.LIVE if result else Liveness.DEAD


DEFAULT_TARGET = Target()

"""How many parsed trees the cyclic collector walks while a piece of code runs.

The engine pauses the collector while it analyses a configuration and frees its trees by
reference counting before it resumes: a collection that finds them walks every node of them
(a tenth of a 1,000-line review). These helpers let a test see that it does not.
"""

from __future__ import annotations

import gc
from typing import Callable

from httpd24.config import Document


def documents() -> int:
    """Parsed documents alive now (in the collector's sight)."""
    return sum(isinstance(o, Document) for o in gc.get_objects())


def documents_seen_by_collections(run: Callable[[], object]) -> tuple[int, list[int]]:
    """``run()``; the documents alive before it, and at the start of each collection during it."""
    seen: list[int] = []

    def callback(phase, _info):
        if phase == "start":
            seen.append(documents())

    gc.collect()
    before = documents()
    gc.callbacks.append(callback)
    try:
        run()
    finally:
        gc.callbacks.remove(callback)
    return before, seen

"""Pausing Python's cyclic garbage collector while a configuration is analysed.

Parsing and analysing make a million small objects that live as long as the
tree. With the collector on, each growth of the heap by a quarter triggers a
full collection that walks every one of them: on a 100,000-line configuration
that was half of ``lint`` and ``migrate``. mypy pauses it for the same reason.
Trees hold cycles (a node's ``parent``), so long-running callers free a tree
they are done with by :func:`httpd24.config.nodes.Document.dispose` or let the
collector find it once it runs again.
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside the block; nests, and restores what the caller had."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

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
from typing import Iterator, Protocol


class _Tree(Protocol):
    def dispose(self) -> None: ...


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


@contextlib.contextmanager
def trees_freed_before_collection() -> Iterator[list[_Tree]]:
    """:func:`gc_paused`, and every tree the block appends to the list it gets is disposed before
    the collector resumes.

    For callers that keep a result but no tree (a webhook's review, the operator's plan): resuming
    the collector starts a collection, and a tree still alive then is walked node by node.
    """
    with gc_paused():
        trees: list[_Tree] = []
        try:
            yield trees
        finally:
            while trees:
                trees.pop().dispose()

"""What a rule sees: the configuration as httpd reads it on the target, and the options."""

from __future__ import annotations

import itertools
import operator
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterator, Literal

from ..config import ConfigSet, Item, Liveness, Target, View
from .source import Source, SourceVersion, judge

#: How changed defaults (AllowOverride, EnableSendfile, FileETag, SSLProxyCheckPeer*) are treated:
#: ``None`` takes each rule's documented decision; the others override all of them.
DefaultsPolicy = Literal["keep-2.2", "adopt-2.4"] | None


_reading_order = operator.attrgetter("order")


@dataclass
class Context:
    configset: ConfigSet
    view: View
    target: Target
    defaults: DefaultsPolicy = None
    _by_key: dict[str, list[Item]] = field(default_factory=dict, repr=False)
    #: The live (or possibly live) items in reading order; None until first asked for.
    _live: list[Item] | None = field(default=None, repr=False)
    #: What rules learnt of a migration's input, shared by all of its passes: a later pass sees text the
    #: earlier ones rewrote, which may no longer tell what the input meant (what it ran on before, and
    #: the access rules' own reading of that). A lint's holds only its own pass.
    memory: dict = field(default_factory=dict, repr=False)
    #: What the configuration ran on before (:mod:`.source`): ``auto`` judges by what it loads.
    source_version: SourceVersion = "auto"
    #: What rules work out once from this pass's view and share between its items (unlike ``memory``,
    #: gone with the pass, whose fixes change the text it was read from).
    cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, configset: ConfigSet, target: Target, defaults: DefaultsPolicy = None,
              memory: dict | None = None, source_version: SourceVersion = "auto") -> "Context":
        view = configset.view(target)
        by_key: dict[str, list[Item]] = defaultdict(list)
        dead = Liveness.DEAD
        live = [item for item in view.items if item.live is not dead]
        for item in live:
            by_key[item.key].append(item)
        return cls(configset, view, target, defaults, dict(by_key), live, {} if memory is None else memory,
                   source_version)

    @property
    def source(self) -> Source:
        """What the input ran on: a migration's later passes keep what its first pass judged, though the
        LoadModule lines its fixes write would make a 2.2 input look like one that ran on 2.4."""
        source = self.memory.get("source")
        if source is None:
            source = self.memory["source"] = judge(
                [*self.module_loads(), *self.items("allowoverride")], self.source_version)
        return source

    def items(self, *keys: str) -> Iterator[Item]:
        """Live (or possibly live) items with one of these directive keys, in reading order."""
        if len(keys) == 1:
            yield from self._by_key.get(keys[0], ())
            return
        lists = [found for found in map(self._by_key.get, set(keys)) if found]
        if len(lists) == 1:
            yield from lists[0]
        elif lists:
            yield from sorted(itertools.chain.from_iterable(lists), key=_reading_order)

    def has(self, key: str) -> bool:
        return bool(self._by_key.get(key))

    def module_loads(self) -> list[Item]:
        """The LoadModule lines httpd reads at start-up, in reading order: not those of a file nothing
        includes (Debian's mods-available/), which load nothing."""
        return [item for item in self.items("loadmodule") if item.args and not item.unread]

    def live_items(self) -> Iterator[Item]:
        """Every live (or possibly live) item, in reading order (several rules scan them all)."""
        if self._live is None:
            self._live = [item for item in self.view.items if item.live is not Liveness.DEAD]
        return iter(self._live)

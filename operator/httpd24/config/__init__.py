"""The lossless configuration engine: parse, locate, edit, write back exactly.

Pure: no I/O except :meth:`ConfigSet.from_directory` and :mod:`.disk`; never imports anything
Kubernetes. See docs/architecture.md for the contract.
"""

from . import edit
from .configset import MAX_EXPANSION, MAX_INCLUDE_DEPTH, ConfigSet, Item, UnresolvedInclude, View, glob_match, is_wildcard
from .errors import ParseError
from .nodes import Blank, Comment, Directive, Document, Location, Node, Section
from .parser import MAX_SECTION_DEPTH, parse, tokenize
from .target import DEFAULT_TARGET, Liveness, Target, module_identifier, module_source

__all__ = [
    "Blank", "Comment", "ConfigSet", "DEFAULT_TARGET", "Directive", "Document", "Item", "Liveness", "Location",
    "MAX_EXPANSION", "MAX_INCLUDE_DEPTH", "MAX_SECTION_DEPTH", "Node", "ParseError", "Section", "Target", "UnresolvedInclude", "View",
    "edit", "glob_match", "is_wildcard", "module_identifier", "module_source", "parse", "tokenize",
]

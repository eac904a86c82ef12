"""A configuration file and every file its Includes reach on disk, as ``httpd -f FILE`` reads them.

``httpd24 lint /etc/httpd/conf/httpd.conf`` must see ``conf.d/*.conf`` as httpd does: without them
the lint misses whole sites and reports a wildcard Include that matches files as matching none.

Includes are followed syntactically (every Include line of every file read, whatever branch it is
in), so a target given later (``--define``, ``--module``) finds its files; a file only a dead branch
includes is then linted as possibly read, as a directory's unreferenced files are.
"""

from __future__ import annotations

import glob
import itertools
import os
import posixpath
from dataclasses import dataclass, field
from typing import Iterator

from .configset import ConfigSet, not_configuration
from .errors import ParseError
from .nodes import Directive, Document
from .parser import parse

#: No server reads more files than this; following stops there (and says so).
MAX_FILES = 10_000
_INCLUDES = ("include", "includeoptional")


@dataclass
class DiskConfig:
    """The set, and where each of its files is on disk (to show and to write back)."""

    configset: ConfigSet
    #: name in the set -> path of the file read
    paths: dict[str, str] = field(default_factory=dict)
    #: Said when the server root is not the file's own ServerRoot line.
    root_note: str = ""


def read(path: str, data: bytes | None = None, *, server_root: str | None = None) -> DiskConfig:
    """``path`` (or ``data`` read as that file) and every file its Includes reach on disk.

    The server root is ``server_root``, else :func:`find_server_root`. Files under it are named
    relative to it, as a ConfigMap's keys are; others by their absolute path.
    """
    entry_path = os.path.abspath(path)
    if data is None:
        with open(entry_path, "rb") as handle:
            data = handle.read()
    documents: dict[str, Document] = {}
    errors: list[ParseError] = []
    sources: dict[str, bytes] = {}
    paths: dict[str, str] = {}
    skipped: dict[str, str] = {}

    def add(name: str, raw: bytes, where: str, parsed: Document | None = None) -> Document | None:
        sources[name], paths[name] = raw, where
        try:
            documents[name] = parsed or parse(raw, name)
        except ParseError as error:
            errors.append(error)
            return None
        return documents[name]

    # The entry's name in the set depends on the server root its ServerRoot line names.
    first_name = os.path.basename(entry_path)
    try:
        first: Document | None = parse(data, first_name)
    except ParseError:
        first = None
    note = ""
    if server_root is None:
        server_root, note = find_server_root(entry_path, first)
    root = os.path.abspath(server_root)
    entry = _name(entry_path, root)
    pending = [doc for doc in [add(entry, data, path, first if entry == first_name else None)] if doc is not None]
    while pending:
        for pattern in _include_patterns(pending.pop()):
            for found in _matches(pattern, root):
                name = _name(found, root)
                if name in sources or name in skipped:
                    continue
                why = not_configuration(found)
                if not why and len(sources) >= MAX_FILES:
                    why = f"more than {MAX_FILES} files included; not followed further"
                if why:
                    skipped[name] = why
                    continue
                try:
                    with open(found, "rb") as handle:
                        raw = handle.read()
                except OSError as error:
                    skipped[name] = f"unreadable ({error.strerror})"
                    continue
                doc = add(name, raw, found)
                if doc is not None:
                    pending.append(doc)
    configset = ConfigSet(documents, entry=entry, server_root=root, errors=errors, sources=sources)
    configset.skipped = skipped
    return DiskConfig(configset, paths, note)


def find_server_root(entry_path: str, doc: Document | None) -> tuple[str, str]:
    """(the directory relative Includes resolve in, a note when that is not the file's ServerRoot).

    httpd uses the ``ServerRoot`` line. A copy of a server's configuration (in a repository, say)
    keeps that line while its files sit elsewhere, so the line counts only when the file lies under
    it; otherwise the file's own directory or its parent (``conf/httpd.conf`` of the official image
    and of Red Hat's layout), whichever more relative Includes find files in.
    """
    here = os.path.dirname(entry_path)
    declared = _declared_root(doc)
    if declared is not None and os.path.isdir(declared) and _under(os.path.realpath(entry_path), os.path.realpath(declared)):
        return declared, ""
    patterns = [p for p in (_include_patterns(doc) if doc is not None else []) if not p.startswith("/")]
    best = max((here, os.path.dirname(here)),  # a tie: here
               key=lambda c: sum(1 for p in patterns if next(_matches(p, c), None) is not None))
    if declared is None:
        return best, ""
    return best, (f"its ServerRoot {declared} does not hold it: Includes are read from {best} "
                  "(--server-root chooses another directory)")


def _declared_root(doc: Document | None) -> str | None:
    if doc is None:
        return None
    for node in doc.directives():
        if node.key == "serverroot" and node.args and node.args[0].startswith("/") and "${" not in node.args[0]:
            return node.args[0].rstrip("/") or "/"
    return None


def _include_patterns(doc: Document) -> list[str]:
    """The patterns of the document's Include lines that can be looked up (no ``${VAR}``)."""
    return [
        node.args[0]
        for node in doc.directives()
        if isinstance(node, Directive) and node.key in _INCLUDES and node.args and "${" not in node.args[0]
    ]


def _matches(pattern: str, root: str) -> Iterator[str]:
    """The files httpd reads for an Include pattern: wildcards per path component (no dot files),
    alphabetically; a directory means every file below it. At most :data:`MAX_FILES` of them, so
    that ``Include /`` ends."""
    full = posixpath.normpath(pattern if pattern.startswith("/") else os.path.join(root, pattern))
    found = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
    return itertools.islice(_files(found), MAX_FILES)


#: Never read for an Include: devices and kernel files can block a read, or act on being opened.
SYSTEM_DIRS = ("/proc", "/sys", "/dev")


def _files(found: list[str]) -> Iterator[str]:
    """Regular files only, outside :data:`SYSTEM_DIRS`."""
    for match in found:
        if any(_under(os.path.realpath(match), d) for d in SYSTEM_DIRS):
            continue
        if os.path.isdir(match):
            for dirpath, dirnames, filenames in os.walk(match):
                dirnames[:] = sorted(d for d in dirnames if os.path.join(dirpath, d) not in SYSTEM_DIRS)
                yield from (p for p in (os.path.join(dirpath, f) for f in sorted(filenames)) if os.path.isfile(p))
        elif os.path.isfile(match):
            yield match


def _name(path: str, root: str) -> str:
    """The file's name in the set: relative to the server root under it, else absolute."""
    path = posixpath.normpath(path)
    if _under(path, root):
        return os.path.relpath(path, root).replace(os.sep, "/")
    return path


def _under(path: str, directory: str) -> bool:
    directory = directory.rstrip("/")
    return directory == "" or path == directory or path.startswith(directory + "/")

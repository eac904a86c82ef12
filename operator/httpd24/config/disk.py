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

from .configset import (LOOP, SYSTEM_DIRS, ConfigSet, httpd_glob, include_loop, linked_directories, name_in,
                        normalized, not_configuration, special_file, walk_following_links)
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
    known_root = server_root is not None
    if server_root is None:
        server_root, note = find_server_root(entry_path, first)
        known_root = _declared_root(first) == server_root
    root = os.path.abspath(server_root)
    entry = name_in(entry_path, root)
    pending = [doc for doc in [add(entry, data, path, first if entry == first_name else None)] if doc is not None]
    while pending:
        doc = pending.pop()
        for node, pattern in _include_lines(doc):
            if posixpath.normpath(pattern) == os.devnull:
                continue  # httpd reads it as an empty file
            left_out: dict[str, str] = {}
            matches = list(_matches(pattern, root, left_out))
            for found, why in left_out.items():
                if why == LOOP and node.key == "include":  # in a directory it reads: httpd fails on it
                    errors.append(include_loop(doc, node, found))
                else:
                    skipped.setdefault(name_in(found, root), why)
            if not matches and not left_out and node.key == "include" and not glob.has_magic(pattern):
                _missing(doc, node, pattern, root, known_root, skipped)
            for found in matches:
                name = name_in(found, root)
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
                    # What it holds is unknown, and may change what the rest means (access control).
                    errors.append(_at(doc, node, f"Include {pattern}: {found} cannot be read ({error.strerror}); "
                                      "run httpd24 as a user that can read it"))
                    skipped[name] = f"unreadable ({error.strerror})"
                    continue
                included = add(name, raw, found)
                if included is not None:
                    pending.append(included)
    configset = ConfigSet(documents, entry=entry, server_root=root, errors=errors, sources=sources)
    configset.skipped = skipped
    configset.linked = linked_directories(documents, root)
    configset.disk_root = root
    configset.disk_is_server_root = known_root
    return DiskConfig(configset, paths, note)


def find_server_root(entry_path: str, doc: Document | None) -> tuple[str, str]:
    """(the directory relative Includes resolve in, a note when that is not the file's ServerRoot).

    httpd uses the ``ServerRoot`` line. A copy of a server's configuration (in a repository, say)
    keeps that line while its files sit elsewhere, so the line counts only when the file lies under
    it; otherwise the file's own directory or its parent (``conf/httpd.conf`` of the official image
    and of Red Hat's layout), whichever more relative Includes find files in.
    """
    if names_a_descriptor(entry_path):
        # bash's <(...) and /dev/stdin: the pipe's name says nothing of where the configuration's
        # files are. Read it as standard input (`-`) is read, from the working directory.
        entry_path = os.path.join(os.getcwd(), "-")
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


def names_a_descriptor(path: str) -> bool:
    """Whether ``path`` is a name under /dev or /proc (/dev/fd/63, /dev/stdin, /proc/self/fd/0)."""
    directory = os.path.dirname(os.path.abspath(path))
    return directory == "/dev" or directory.startswith(("/dev/", "/proc/"))


def _declared_root(doc: Document | None) -> str | None:
    if doc is None:
        return None
    for node in doc.directives():
        if node.key == "serverroot" and node.args and node.args[0].startswith("/") and "${" not in node.args[0]:
            return node.args[0].rstrip("/") or "/"
    return None


def _include_lines(doc: Document) -> list[tuple[Directive, str]]:
    """The document's Include lines whose pattern can be looked up (no ``${VAR}``), with it."""
    return [
        (node, node.args[0])
        for node in doc.directives()
        if isinstance(node, Directive) and node.key in _INCLUDES and node.args and "${" not in node.args[0]
    ]


def _include_patterns(doc: Document) -> list[str]:
    return [pattern for _, pattern in _include_lines(doc)]


def _at(doc: Document, node: Directive, reason: str) -> ParseError:
    return ParseError(doc.name, node.location.line, node.location.column, reason)


def _missing(doc: Document, node: Directive, pattern: str, root: str, known_root: bool,
             skipped: dict[str, str]) -> None:
    """A plain ``Include`` of no file: httpd (2.2 as 2.4) refuses to start. Under a server root the
    configuration names (its ServerRoot line, or --server-root) HT408 says so at the Include line, as
    for a ConfigMap (:meth:`ConfigSet.opens_no_file`). Outside it (a copy of /etc/apache2 that still
    names /etc/apache2/ports.conf), or under a guessed root (a virtual host file given alone, whose
    Includes are relative to a server root it does not name), the file may well be on the server:
    named, not checked."""
    full = posixpath.normpath(pattern if pattern.startswith("/") else os.path.join(root, pattern))
    if not _under(full, root):
        skipped[full] = f"no such file, outside the server root {root}: not checked"
        return
    if not known_root:
        skipped[full] = (f"no such file; {doc.name}:{node.location.line} includes it, relative to {root}, a guess "
                         "(no ServerRoot line holds the file): give --server-root to check it")


def _matches(pattern: str, root: str, left_out: dict[str, str] | None = None) -> Iterator[str]:
    """The files httpd reads for an Include pattern: wildcards per path component (no dot files, no link
    before the last component: :func:`httpd_glob`), alphabetically; a directory means every file below
    it. At most :data:`MAX_FILES` of them, so that ``Include /`` ends. What exists but is never opened
    is put in ``left_out`` with why (:data:`LOOP` for a link back up in a directory it reads)."""
    full = normalized(pattern if pattern.startswith("/") else os.path.join(root, pattern))
    found = httpd_glob(full) if glob.has_magic(full) else [full]
    return itertools.islice(_files(full, found, {} if left_out is None else left_out), MAX_FILES)


def _files(pattern: str, found: list[str], left_out: dict[str, str]) -> Iterator[str]:
    """Regular files only, outside :data:`SYSTEM_DIRS` (said once per pattern). A FIFO or socket httpd
    would open: named one by one."""
    for match in found:
        system = _system_dir(match)
        if system is not None:
            left_out.setdefault(pattern, f"under {system}: devices and kernel files are never opened")
            continue
        if os.path.isdir(match):
            # httpd stats each entry, following links: a linked directory is read too.
            for dirpath, filenames, refused in walk_following_links(match, prune=_system_real):
                left_out.update(refused)
                for path in (os.path.join(dirpath, f) for f in filenames):
                    yield from _regular(path, left_out)
        else:
            yield from _regular(match, left_out)


def _system_dir(path: str) -> str | None:
    """The one of :data:`SYSTEM_DIRS` the path leads into, if any."""
    return _system_real(os.path.realpath(path))


def _system_real(real: str) -> str | None:
    """The one of :data:`SYSTEM_DIRS` a real path (no links in it) is under, if any."""
    return next((d for d in SYSTEM_DIRS if _under(real, d)), None)


def _regular(path: str, left_out: dict[str, str]) -> Iterator[str]:
    if os.path.isfile(path):
        yield path
        return
    special = special_file(path)
    if special:
        left_out[path] = f"{special}; httpd refuses it at start-up (not a regular file)"


def _under(path: str, directory: str) -> bool:
    directory = directory.rstrip("/")
    return directory == "" or path == directory or path.startswith(directory + "/")

"""A configuration made of several named files, and the view httpd would read of it.

Files are named by relative path (a ConfigMap's keys, or paths under a
directory). ``Include`` / ``IncludeOptional`` are resolved against those names
the way httpd resolves them on disk: relative to the server root, wildcards
per path component, matches in alphabetical order, a directory meaning every
file below it. Conditions are judged against a :class:`Target` while walking,
in order, as httpd does while reading.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

from .content import content_and_data
from .errors import ParseError
from .gcpause import gc_paused
from .nodes import Directive, Document, Node, Section
from .parser import MAX_SECTION_DEPTH, parse, tokenize, too_deep
from .target import DEFAULT_TARGET, Liveness, Target

_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_:.\-]+)\}")
_GLOB_CHARS = re.compile(r"[*?\[]")
_INCLUDES = frozenset({"include", "includeoptional"})
#: Directives the walk acts on while reading (EXEC_ON_READ): every other one is only recorded.
_READ_KEYS = frozenset({"define", "undefine", "loadmodule"}) | _INCLUDES
#: httpd's AP_MAX_INCLUDE_DEPTH (server/config.c): an Include in a file this many Includes deep is refused.
MAX_INCLUDE_DEPTH = 128
#: How many characters ``${VAR}`` substitutions may put into one reading of a configuration, as much as the
#: largest file httpd24 reads. httpd has no limit; a Define that doubles the one before ("Define B ${A}${A}")
#: makes a value of 2**40 characters in 40 lines, which no server can hold.
MAX_EXPANSION = 16 * 1024 * 1024


@dataclass(slots=True)
class Item:
    """One directive or section as httpd reads it on the target.

    ``context`` holds the enclosing sections outermost first, across includes:
    a directive of a file included inside ``<VirtualHost>`` has that vhost in
    its context. ``args`` have ``${VAR}`` substituted.
    """

    node: Directive
    document: Document
    live: Liveness
    args: list[str]
    context: tuple[Section, ...]
    #: ``node.key`` when the item was read (rules match on it millions of times on a large set).
    key: str
    #: Position in the view's reading order.
    order: int
    #: The Include chain that reached this file, outermost first.
    via: tuple[Directive, ...] = ()
    #: In a file that nothing the entry file reaches includes (Debian's mods-available/): linted on
    #: its own, possibly live (UNKNOWN) if something enables it, but httpd does not read it at
    #: start-up (an .htaccess file among them is read per request).
    unread: bool = False

    @property
    def file(self) -> str:
        return self.document.name

    def in_section(self, *keys: str) -> Section | None:
        """The innermost enclosing section whose key is one of ``keys``."""
        for section in reversed(self.context):
            if section.key in keys:
                return section
        return None


@dataclass
class UnresolvedInclude:
    node: Directive
    document: Document
    pattern: str
    optional: bool
    live: Liveness
    #: True when the path points outside the files of this set (for example a
    #: system directory the set does not hold): it may exist on the server.
    external: bool


@dataclass(frozen=True)
class Listing:
    """Every file directly in one directory, known: a ConfigMap mounted there holds all of them (the mount
    hides what the image had in that directory, and a key holds no ``/``). An Include of a name in it
    that is not listed opens no file on the server. Its subdirectories are not listed: a projected
    volume puts other sources there (the operator's ``secrets/``)."""

    #: As the set names files: "" for the server root itself, else relative to it, or absolute outside it.
    directory: str
    #: Every file in it as the set names it, read or not (a binaryData value with NUL bytes is a file).
    names: frozenset[str]

    def lacks(self, name: str) -> bool:
        """Whether ``name`` (as the set names files) lies directly in the directory and is not listed."""
        return posixpath.dirname(name) == self.directory and name not in self.names


@dataclass
class View:
    """The configuration as httpd reads it on one target."""

    target: Target
    items: list[Item] = field(default_factory=list)
    unresolved: list[UnresolvedInclude] = field(default_factory=list)
    #: Modules loaded by LoadModule lines that are live (or possibly live).
    loaded_modules: set[str] = field(default_factory=set)
    defines: dict[str, str] = field(default_factory=dict)
    _liveness: dict[int, Liveness] = field(default_factory=dict, repr=False)
    #: Characters ``${VAR}`` substitutions put in so far (at most :data:`MAX_EXPANSION`).
    _expanded: int = field(default=0, repr=False)

    def liveness(self, node: Node) -> Liveness:
        """DEAD for nodes httpd never reads on the target (or never reaches)."""
        return self._liveness.get(id(node), Liveness.DEAD)

    def is_live(self, node: Node) -> bool:
        """True unless httpd certainly skips the node on the target."""
        return self.liveness(node) is not Liveness.DEAD

    def directives(self) -> Iterator[Item]:
        return iter(self.items)


class ConfigSet:
    """The files of one configuration, by name, with its entry file and server root."""

    def __init__(
        self,
        documents: dict[str, Document],
        *,
        entry: str | None = None,
        server_root: str = "/usr/local/apache2",
        errors: list[ParseError] | None = None,
        sources: dict[str, bytes] | None = None,
        aliases: dict[str, str] | None = None,
        listing: Listing | None = None,
    ) -> None:
        self.documents = documents
        self.entry = entry if entry in documents else None
        self.server_root = server_root.rstrip("/") or "/"
        self.errors = errors or []
        self.sources = sources or {}
        #: name -> canonical name, for files that are links to others (Debian's *-enabled/).
        self.aliases = aliases or {}
        #: Directories of the set's names that are symbolic links on disk (:func:`linked_directories`).
        self.linked: frozenset[str] = frozenset()
        #: name -> why a file of the directory was not read (binary, too large for a configuration).
        self.skipped: dict[str, str] = {}
        #: The directory whose every file is known (a ConfigMap's), where a missing Include is certain;
        #: None where the set may lack what the server has (files read from a disk).
        self.listing = listing
        #: The directory on disk the set's relative names are in, when it was read from a disk: what an
        #: Include's wildcard reaches there is what httpd finds (:meth:`include_gaps`), empty directories too.
        self.disk_root: str | None = None
        #: Whether ``disk_root`` is the server root itself, as its ServerRoot line, --server-root or the entry file
        #: of the directory given says (not a guess): what it lacks, the server lacks (:meth:`opens_no_file`).
        self.disk_is_server_root = False
        self._gaps: dict[str, list[IncludeGap] | None] = {}

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def from_mapping(
        cls,
        files: Mapping[str, bytes | str],
        *,
        entry: str | None = "httpd.conf",
        server_root: str = "/usr/local/apache2",
    ) -> "ConfigSet":
        """Parse every file; parse errors are collected in ``errors``, not raised. The files are all those
        of the server root, as a ConfigMap mounted as the server root holds them (:class:`Listing`)."""
        documents: dict[str, Document] = {}
        errors: list[ParseError] = []
        sources: dict[str, bytes] = {}
        for name in sorted(files):
            data = files[name]
            raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data)
            sources[name] = raw
            try:
                documents[name] = parse(raw, name)
            except ParseError as error:
                errors.append(error)
        return cls(documents, entry=entry, server_root=server_root, errors=errors, sources=sources,
                   listing=Listing("", frozenset(files)))

    @classmethod
    def from_directory(
        cls, path: str, *, entry: str | None = None, server_root: str | None = None
    ) -> "ConfigSet":
        """Every regular text file under ``path``, through links to files and directories as httpd follows
        them: what a link inside the tree leads to is an alias of that file (one file, linted once); what
        a link leads to outside the tree is read under the link's name (``Include ext/*.conf`` finds it,
        and ``--write`` writes the file it leads to). A link to a directory above it (a loop) is not
        followed, and named; so are links past :data:`MAX_LINKED_DIRECTORIES`. What an Include reaches
        through such a loop is the file the set holds (:meth:`_through_links`).

        ``server_root``: the server root on disk, where relative Includes are read from, as for a file given
        (:func:`.disk.read`): the files are named relative to it when under it, else absolutely, and what the
        Includes reach there outside ``path`` is looked up on disk, not read. Default: ``path`` itself."""
        root = os.path.abspath(path)
        real_root = os.path.realpath(root)
        base = root if server_root is None else os.path.abspath(server_root)
        files: dict[str, bytes] = {}
        aliases: dict[str, str] = {}
        skipped: dict[str, str] = {}
        for dirpath, filenames, refused in walk_following_links(root):
            for inner, why in refused.items():
                skipped[name_in(inner, base)] = why
            for filename in filenames:
                full = os.path.join(dirpath, filename)
                name = name_in(full, base)
                real = os.path.realpath(full)
                if not os.path.isfile(real):
                    special = special_file(real)
                    if special:
                        skipped[name] = special
                    continue
                inside = os.path.relpath(full, root)
                if real != os.path.join(real_root, inside) and real.startswith(real_root + os.sep):
                    aliases[name] = name_in(os.path.join(root, os.path.relpath(real, real_root)), base)
                    continue
                reason = not_configuration(real)
                if reason:
                    skipped[name] = reason
                    continue
                with open(real, "rb") as handle:
                    files[name] = handle.read()
        if entry is None:
            for candidate in ("httpd.conf", "apache2.conf", "conf/httpd.conf"):
                if name_in(os.path.join(root, candidate), base) in files:
                    entry = name_in(os.path.join(root, candidate), base)
                    break
        configset = cls.from_mapping(files, entry=entry, server_root=base)
        configset.listing = None  # a copy of a server's files may be partial (:meth:`_missing_includes` says so)
        configset.aliases = {k: v for k, v in aliases.items() if v in configset.documents}
        configset._through_links(base)
        configset.linked = linked_directories([*configset.documents, *configset.aliases], base)
        configset.disk_root = base
        # The server root is known when it was given, or holds the entry file; else the directory is a part of
        # a server (a conf.d/ alone), whose Includes are relative to a server root it does not hold.
        configset.disk_is_server_root = server_root is not None or configset.entry is not None
        # Includes through links must resolve before deciding what no Include names.
        left_out = content_and_data(configset)
        for name, why in left_out.items():
            configset.documents.pop(name, None)
            configset.sources.pop(name, None)
            skipped[name] = why
        configset.errors = [e for e in configset.errors if e.file not in left_out]
        configset.aliases = {k: v for k, v in configset.aliases.items() if v in configset.documents}
        skipped.update(configset._missing_includes())
        configset.skipped = skipped
        return configset

    def _through_links(self, root: str) -> None:
        """Read each Include on disk as httpd reads it: a file it reaches under a name the walk did not give
        (through a loop, `conf.d/self/a.conf`) becomes an alias of the file the set holds, so that it
        is not judged to match nothing (HT403); a directory it reads that holds a link back up is an
        error at its line, as httpd fails on it (:func:`include_loop`). ``root``: the server root on disk."""
        real_root = os.path.realpath(root)
        for name, doc in list(self.documents.items()):
            for node in doc.directives():
                if node.key not in _INCLUDES or not node.args or "${" in node.args[0]:
                    continue
                where = self.located(node.args[0])
                if where.startswith("/"):
                    continue  # outside the server root: not read (_missing_includes says so)
                full = normalized(os.path.join(root, where))
                found = httpd_glob(full) if is_wildcard(where) else [full] if os.path.lexists(full) else []
                for path in found[:MAX_LINKED_DIRECTORIES]:
                    files = [path]
                    if os.path.isdir(path):
                        files = []
                        for dirpath, filenames, refused in walk_following_links(path):
                            if node.key == "include":  # IncludeOptional passes over what it cannot open
                                self.errors.extend(include_loop(doc, node, inner) for inner, why in refused.items()
                                                   if why == LOOP)
                            files.extend(os.path.join(dirpath, filename) for filename in filenames)
                    for file in files:
                        alias = os.path.relpath(file, root).replace(os.sep, "/")
                        real = os.path.realpath(file)
                        if alias in self.documents or alias in self.aliases or alias.startswith("../"):
                            continue
                        canonical = os.path.relpath(real, real_root).replace(os.sep, "/")
                        if canonical in self.documents:
                            self.aliases[alias] = canonical

    def _missing_includes(self) -> dict[str, str]:
        """What an Include names that the set does not hold, with why it is not read, so that nothing is left
        out unsaid: a file outside the directory given (what the machine running the lint holds there
        need not be the server's; given the entry file, Includes are read from disk as httpd reads them),
        and a plain ``Include`` of no file in a directory that is no whole server (no entry file: its
        Includes are relative to a server root it does not hold). Of a whole server's, HT408 says it at
        the Include line (:meth:`opens_no_file`)."""
        missing: dict[str, str] = {}
        for name, doc in self.documents.items():
            for node in doc.directives():
                if node.key not in _INCLUDES or not node.args or "${" in node.args[0]:
                    continue
                names, outside = self.resolve_include(node.args[0])
                if names:
                    continue
                where = self.located(node.args[0])
                full = where if outside else os.path.join(self.server_root, where)
                found = httpd_glob(full) if is_wildcard(where) else os.path.lexists(full)
                said = f"{name}:{node.location.line} includes it"
                if outside and found:
                    entry = os.path.join(self.server_root, self.entry or name)
                    missing.setdefault(where, f"outside the directory given, not checked; {said}: give {entry} "
                                              "instead of the directory to read it as httpd does")
                elif not found and node.key == "include" and not is_wildcard(where):
                    # (an empty directory is not in the set, and is no error)
                    if outside:
                        missing.setdefault(where, f"outside the directory given, not checked; {said}")
                    elif not self.disk_is_server_root:
                        missing.setdefault(where, f"no such file; {said}, relative to {self.server_root}, a guess "
                                                  "(the directory holds no httpd.conf or apache2.conf): not checked")
        return missing

    # -- rendering --------------------------------------------------------------------------
    def render(self) -> dict[str, bytes]:
        return {name: doc.render() for name, doc in self.documents.items()}

    def with_files(self, files: Mapping[str, bytes | str] | None = None) -> ConfigSet:
        """A freshly parsed set of ``files`` (default: this set's text now) read as this one is read:
        the same entry file, server root and links. For an analysis that must not see this set's
        trees, or the text a rewrite produced."""
        fresh = ConfigSet.from_mapping(self.render() if files is None else files, entry=self.entry,
                                       server_root=self.server_root)
        fresh.aliases = dict(self.aliases)
        fresh.linked = self.linked
        fresh.listing = self.listing
        fresh.disk_root = self.disk_root
        fresh.disk_is_server_root = self.disk_is_server_root
        return fresh

    def changed(self) -> dict[str, bytes]:
        """Only the files whose bytes differ from what was read."""
        out = {}
        for name, doc in self.documents.items():
            data = doc.render()
            if data != self.sources.get(name):
                out[name] = data
        return out

    def dispose(self) -> None:
        """Free every tree now (see :meth:`Document.dispose`); the set is unusable afterwards."""
        for document in self.documents.values():
            document.dispose()

    # -- include resolution ------------------------------------------------------------------
    def located(self, path: str) -> str:
        """A path as httpd would open it: relative to the server root when under it, else absolute (a
        relative path that climbs out with ``..`` too, so that it is not taken for a name of the set);
        normalized, but for the trailing slash of a wildcard (:func:`normalized`)."""
        if not path:
            return path
        if not path.startswith("/"):
            relative = normalized(path)
            if relative.rstrip("/") != ".." and not relative.startswith("../"):
                return relative
            path = posixpath.join(self.server_root, relative)
        path = normalized(path)
        root = self.server_root
        if root != "/" and (path.rstrip("/") == root or path.startswith(root + "/")):
            return path[len(root):].lstrip("/") or "."
        return path

    def name_of(self, path: str) -> str | None:
        """A path as httpd would open it, as a name of this set (None if outside it)."""
        name = self.located(path)
        return None if name.startswith("/") and name not in self.documents else name

    def opens_no_file(self, pattern: str) -> bool:
        """Whether a plain Include of ``pattern`` certainly opens no file on the server, which then refuses
        to start: the set holds every file of the directory it names (a ConfigMap's :class:`Listing`; not a
        path written as a directory, where a projected volume puts other sources), or it was read from the
        server root on disk (:attr:`disk_is_server_root`), which has no such file (a dangling link neither).
        Anywhere else the server may have what the set does not."""
        name = self.name_of(pattern) or posixpath.normpath(pattern)
        if self.listing is not None:
            return not pattern.endswith("/") and self.listing.lacks(name)
        if self.disk_root is None or not self.disk_is_server_root or name.startswith("/"):
            return False
        return not os.path.exists(os.path.join(self.disk_root, name))

    def shows_all_of(self, pattern: str) -> bool:
        """Whether the set shows every file an Include of ``pattern`` opens on the server: those it reaches, or
        certainly none (a ConfigMap's listed directory, :meth:`opens_no_file`; a wildcard read from the server
        root on disk as httpd reads it). Elsewhere (outside the set, a ${VAR} it cannot expand, a server root
        that is a guess) the server may read files, with Aliases or a DocumentRoot, that the set does not show."""
        if "${" in pattern:
            return False
        if self.resolve_include(pattern)[0]:
            return True
        if not is_wildcard(pattern):
            return self.opens_no_file(pattern)
        name = self.name_of(pattern) or posixpath.normpath(pattern)
        if self.listing is not None:
            return self.listing.lacks(name)
        return self.disk_root is not None and self.disk_is_server_root and not name.startswith("/")

    def resolve_include(self, pattern: str) -> tuple[list[str], bool]:
        """Names an Include pattern reaches, alphabetically; and whether it points outside the set.

        A file that did not parse is one of them (it is in ``sources``, not in ``documents``): httpd reads
        it, and fails on its error, which is what there is to say; the Include matched it. Leaving it out
        made `Include htdocs/*.html` "match no file" (HT403), and the page under a DocumentRoot content no
        Include names, its error unsaid."""
        where = self.located(pattern)
        absolute = where.startswith("/")
        unparsed = ([n for n in self.sources if n not in self.documents]
                    if len(self.sources) > len(self.documents) else [])
        names = [n for n in [*self.documents, *self.aliases, *unparsed] if n.startswith("/") == absolute]
        if is_wildcard(where):
            matches = sorted(n for n in names if glob_match(where, n) and not self._through_link(where, n))
        elif where in self.documents or where in self.aliases or where in self.sources:
            matches = [where]
        else:
            prefix = where.rstrip("/") + "/"
            matches = sorted(n for n in names if n.startswith(prefix))
        # An absolute path (files named absolutely are read from disk) outside the server root.
        return [self.aliases.get(n, n) for n in matches], absolute and not matches

    def include_gaps(self, pattern: str) -> list[IncludeGap] | None:
        """Where httpd's walk of a wildcard Include of ``pattern`` finds nothing to read, each of which makes
        httpd refuse to start (``Include``; ``IncludeOptional`` passes over them), in httpd's order; None
        when it is not walked (no wildcard, or outside the server root).

        A wildcard before the last component is what makes this more than "matches no file": httpd reads
        `conf.d/*/x.conf` in every directory `*` matches, and fails on the first without x.conf however
        many others have one. What the set was read from is what is walked: the disk, which holds empty
        directories too, or else the set's names (a ConfigMap's keys), which the set takes for every file
        there is, as :meth:`resolve_include` does. A pattern outside the server root is not walked: the
        server's files there need not be the ones here (:meth:`_missing_includes`)."""
        where = self.located(pattern)
        if where in self._gaps:
            return self._gaps[where]
        gaps: list[IncludeGap] | None = None
        if is_wildcard(where) and not where.startswith("/") and where not in (".", ".."):
            tree = _DiskTree(self.disk_root) if self.disk_root else _NameTree(self._every_name(), self.linked)
            gaps = _walk_gaps(where.split("/"), tree)
        self._gaps[where] = gaps
        return gaps

    def _every_name(self) -> list[str]:
        """The names of every file the set knows of: read, linked, not parsed, or a ConfigMap's binary key."""
        names = {*self.documents, *self.sources, *self.aliases}
        if self.listing is not None:
            names |= self.listing.names
        return sorted(name for name in names if not name.startswith("/"))

    def _through_link(self, pattern: str, name: str) -> bool:
        """Whether a wildcard of ``pattern`` before its last component matches a directory of ``name`` that
        is a symbolic link, which httpd never matches there (:func:`httpd_glob`)."""
        if not self.linked:
            return False
        parts, name_parts = pattern.split("/"), name.split("/")
        return any(_GLOB_CHARS.search(part) and "/".join(name_parts[:index + 1]) in self.linked
                   for index, part in enumerate(parts[:-1]))

    # -- the view ----------------------------------------------------------------------------
    def view(self, target: Target = DEFAULT_TARGET) -> View:
        """Walk the set from its entry as httpd reads it, then every file nothing included.

        Raises :class:`ParseError` on an Include cycle.
        """
        with gc_paused():
            return self._view(target)

    def _view(self, target: Target) -> View:
        view = View(target=target)
        reached: set[str] = set()
        if self.entry is not None:
            walker = _Walker(self, view, view.loaded_modules)
            walker.walk_document(self.entry, Liveness.LIVE, (), (), [self.entry], reached)
        # Files nothing includes: linted on their own. With an entry file httpd never reads
        # them (they may be enabled later), so they are only possibly live, and what they
        # load or define does not leak into the main walk.
        orphan_live = Liveness.UNKNOWN if self.entry is not None else Liveness.LIVE
        for name in self.documents:
            if name not in reached:
                walker = _Walker(self, view, set(view.loaded_modules), unread=self.entry is not None)
                walker.walk_document(name, orphan_live, (), (), [name], reached)
        return view


#: Links that lead to the same directories again and again (two in each of 20 levels) name a million
#: directories without a loop; no server's tree reaches this many through links.
MAX_LINKED_DIRECTORIES = 10_000
#: Why :func:`walk_following_links` does not enter a link to a directory above it.
LOOP = "a symbolic link loop: it leads to a directory above it; not followed"


@dataclass(frozen=True)
class IncludeGap:
    """A place where httpd's walk of a wildcard Include finds nothing to read (:meth:`ConfigSet.include_gaps`).
    Paths are named as the set names files ("" for the server root)."""

    #: "file": ``path`` is missing ("Could not open configuration file"); "directory": the directory
    #: ``path`` is missing ("Could not open directory"); "wildcard": nothing in the directory ``path``
    #: matches ``wildcard`` ("No matches for the wildcard").
    kind: str
    path: str
    #: The directory the walk had reached by a wildcard (or its start) when it found the gap.
    matched: str
    wildcard: str = ""
    #: Whether the wildcard matches directories only (it is not the last component).
    directories: bool = False


#: The most gaps :func:`_walk_gaps` collects for one pattern (httpd stops at the first).
MAX_GAPS = 100
#: Never read or listed for an Include: devices and kernel files can block a read, or act on being opened.
SYSTEM_DIRS = ("/proc", "/sys", "/dev")


class _DiskTree:
    """The files under a directory on disk, as httpd's walk sees them."""

    def __init__(self, root: str) -> None:
        self.root = root

    def _path(self, name: str) -> str:
        return os.path.join(self.root, name) if name else self.root

    def entries(self, name: str) -> list[tuple[str, bool]] | None:
        """(entry, whether a directory: a link's type is "link") of a directory; None when it cannot be
        opened; :data:`UNKNOWN` for one of :data:`SYSTEM_DIRS`, never listed."""
        path = self._path(name)
        real = os.path.realpath(path)
        if any(real == d or real.startswith(d + "/") for d in SYSTEM_DIRS):
            return UNKNOWN
        try:
            with os.scandir(path) as found:
                return [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in found]
        except OSError:
            return None

    def exists(self, name: str) -> bool:
        return os.path.exists(self._path(name))


class _NameTree:
    """The files a set names, as a tree of directories: every file there is, as the set takes it."""

    def __init__(self, names: list[str], linked: frozenset[str]) -> None:
        self.children: dict[str, dict[str, bool]] = {"": {}}
        for name in names:
            parts = name.split("/")
            for depth, part in enumerate(parts):
                parent, here = "/".join(parts[:depth]), "/".join(parts[:depth + 1])
                directory = depth < len(parts) - 1
                entries = self.children.setdefault(parent, {})
                entries[part] = entries.get(part, False) or (directory and here not in linked)
                if directory:
                    self.children.setdefault(here, {})

    def entries(self, name: str) -> list[tuple[str, bool]] | None:
        found = self.children.get(name)
        return None if found is None else list(found.items())

    def exists(self, name: str) -> bool:
        parent, _, base = name.rpartition("/")
        return name in self.children or base in self.children.get(parent, {})


#: What :meth:`_DiskTree.entries` gives for a directory it does not judge (compared by identity).
UNKNOWN: list[tuple[str, bool]] = []


def _walk_gaps(parts: list[str], tree) -> list[IncludeGap]:
    """The gaps of the pattern ``parts`` in ``tree``, walked as httpd's process_resource_config_fnmatch
    walks it: components written out are joined and opened at the next wildcard (or read, at the end); a
    wildcard lists its directory (no dot names unless it starts with one), keeping only directories unless
    it is the last component, and fails when nothing is kept; each kept entry is walked on."""
    gaps: list[IncludeGap] = []
    listed = 0

    def join(*names: str) -> str:
        return "/".join(name for name in names if name)

    def visit(directory: str, index: int) -> None:
        nonlocal listed
        end = index
        while end < len(parts) and _GLOB_CHARS.search(parts[end]) is None:
            end += 1
        written = join(*parts[index:end])
        here = join(directory, written)
        if end == len(parts):
            if not tree.exists(here):
                gaps.append(IncludeGap("file", here, directory))
            return
        if listed >= MAX_LINKED_DIRECTORIES:  # no claim past it
            return
        listed += 1
        entries = tree.entries(here)
        if entries is UNKNOWN:
            return
        if entries is None:
            if written:  # else a directory the walk found: gone since, or unreadable (not judged)
                gaps.append(IncludeGap("directory", here, directory))
            return
        part, last = parts[end], end == len(parts) - 1
        matches = sorted(entry for entry, is_dir in entries
                         if (part.startswith(".") or not entry.startswith("."))
                         and fnmatch.fnmatchcase(entry, part) and (last or is_dir))
        if not matches:
            gaps.append(IncludeGap("wildcard", here, directory, part, not last))
            return
        if not last:
            for match in matches:
                if len(gaps) >= MAX_GAPS:
                    return
                visit(join(here, match), end + 1)

    visit("", 0)
    return gaps


def include_loop(doc: Document, node: Directive, link: str) -> ParseError:
    """The error of an Include that reads a directory holding ``link``, a link to a directory above it.

    httpd reads what an Include reaches through every link: it reads that directory again through
    the link, and again, until the path holds too many links and it refuses to start (IncludeOptional
    passes over what it cannot open then, and starts). A loop no Include reaches (in the directory a
    site serves) is no concern of the configuration's. The link is named where it is, not by the
    path through it that reached it (`conf.d/*` matches `conf.d/self`, and finds `conf.d/self/self`)."""
    link = os.path.join(os.path.realpath(os.path.dirname(link)), os.path.basename(link))
    return ParseError(doc.name, node.location.line, node.location.column, (
        f"{node.name} {' '.join(node.raw_args)}: {link} is a symbolic link to a directory above it (a loop): httpd "
        "reads that directory through it again and again until \"Too many levels of symbolic links\", and refuses "
        "to start; remove the link, or make the Include name the files to read (a wildcard such as *.conf does "
        "not match the link)"))


def httpd_glob(pattern: str) -> list[str]:
    """The paths a wildcard Include of the absolute ``pattern`` reaches, as httpd's
    process_resource_config_fnmatch finds them, in its order.

    httpd walks the pattern one component at a time from the root. A component written out is joined
    as it is (the system follows any link in it); a wildcard lists its directory, leaving out names
    that start with a dot unless it does (APR_FNM_PERIOD), sorted. A wildcard that is not the last
    component keeps only the entries whose type is a directory, which a symbolic link's type is not:
    `conf.d/*/x.conf` never goes through `conf.d/self -> .`. Python's glob follows such links, which
    matched files httpd does not ("No matches for the wildcard"), and walked every path two loop links
    make (2**17 for 18 wildcards) before anything was read. A trailing slash is one more, empty,
    component to httpd: `conf.d/*/` matches the directories of conf.d only (:func:`normalized`).
    """
    parts = [part for part in pattern.split("/") if part]
    paths = ["/"]
    for index, part in enumerate(parts):
        if _GLOB_CHARS.search(part) is None:
            paths = [os.path.join(path, part) for path in paths]
            continue
        last = index == len(parts) - 1 and not pattern.endswith("/")
        found: list[str] = []
        for path in paths:
            try:
                with os.scandir(path) as entries:
                    names = sorted(entry.name for entry in entries
                                   if (part.startswith(".") or not entry.name.startswith("."))
                                   and fnmatch.fnmatchcase(entry.name, part)
                                   and (last or entry.is_dir(follow_symlinks=False)))
            except OSError:
                continue
            found.extend(os.path.join(path, name) for name in names)
        paths = found
    return [path for path in paths if os.path.lexists(path)]


def linked_directories(names, root: str) -> frozenset[str]:
    """The directories among those holding ``names`` (relative to ``root``, or absolute) that are symbolic
    links on disk: a wildcard before the last component of an Include never matches them (:func:`httpd_glob`)."""
    seen: dict[str, bool] = {}
    for name in names:
        parts = name.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            directory = "/".join(parts[:depth])
            if directory and directory not in seen:
                seen[directory] = os.path.islink(directory if directory.startswith("/") else
                                                 os.path.join(root, directory))
    return frozenset(directory for directory, linked in seen.items() if linked)


def walk_following_links(top: str, prune: Callable[[str], object] | None = None) -> Iterator[tuple[str, list[str], dict[str, str]]]:
    """Each directory under ``top``, with its file names, sorted, as httpd reaches them: through links to
    directories too. A link to a directory above it (a loop, which httpd follows until its nesting limit)
    and any directory reached through links past :data:`MAX_LINKED_DIRECTORIES` are not entered: they come
    as (path -> why) beside the directory that holds them. ``prune(real_path)``: True for a directory the
    caller never wants entered, silently.

    Each directory's real path is resolved from its parent's (already real), so that only its own name may
    be a link to follow: resolving the whole path walked every link above it again, 20 levels of links
    cost 40 lookups a directory (10,000 directories: seconds)."""
    real_top = os.path.realpath(top)
    #: directory to walk -> its real path, those of the directories above it, whether a link led to it.
    above: dict[str, tuple[str, frozenset[str], bool]] = {top: (real_top, frozenset({real_top}), False)}
    linked = 0
    for dirpath, dirnames, filenames in os.walk(top, followlinks=True):
        real_parent, ancestors, through_link = above.pop(dirpath)
        followed, refused = [], {}
        for dirname in sorted(dirnames):
            inner = os.path.join(dirpath, dirname)
            lexical = os.path.join(real_parent, dirname)
            real = os.path.realpath(lexical)
            if prune is not None and prune(real):
                continue
            if real in ancestors:
                refused[inner] = LOOP
                continue
            linked_here = through_link or real != lexical
            if linked_here:
                if linked >= MAX_LINKED_DIRECTORIES:
                    if linked == MAX_LINKED_DIRECTORIES:  # said once
                        refused[inner] = (f"more than {MAX_LINKED_DIRECTORIES} directories reached through links; "
                                          "neither this link nor any later one followed")
                        linked += 1
                    continue
                linked += 1
            above[inner] = (real, ancestors | {real}, linked_here)
            followed.append(dirname)
        dirnames[:] = followed
        yield dirpath, sorted(filenames), refused


#: No httpd configuration is this large; bigger files in a directory are logs or data.
MAX_CONFIGURATION_BYTES = 16 * 1024 * 1024


def not_configuration(path: str) -> str:
    """Why a file cannot be configuration text ("" when it may be), from its size and first bytes only."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(8192)
    except OSError as error:
        return f"unreadable ({error.strerror})"
    if b"\0" in head:
        return "a binary file"
    if size > MAX_CONFIGURATION_BYTES:
        return f"{size // (1024 * 1024)} MiB, too large for a configuration"
    return ""


def special_file(path: str) -> str:
    """Why ``path`` is never opened when it is a FIFO, socket or device ("" otherwise): a FIFO with no
    writer would block the run for ever, and none is left out unsaid."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # a dangling link
        return ""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return ""
    return f"{'a named pipe (FIFO)' if stat.S_ISFIFO(mode) else 'not a regular file'}, never opened"


def name_in(path: str, root: str) -> str:
    """A file's name in a set read from disk under the server root ``root``: relative to it when under it, else
    absolute, as httpd's relative Includes name what they reach."""
    path = posixpath.normpath(path)
    directory = root.rstrip("/")
    if directory == "" or path == directory or path.startswith(directory + "/"):
        return os.path.relpath(path, root).replace(os.sep, "/")
    return path


#: The slashes and `.` components a path ends with (`/`, `/.`, `/./`), none of which names another directory.
_TRAILING_DOTS = re.compile(r"(?:/\.?)+$")


def normalized(pattern: str) -> str:
    """``pattern`` as :func:`posixpath.normpath` writes it, but a wildcard keeps its trailing slash: httpd
    walks the empty component after it, so `Include conf.d/*/` matches the real directories of conf.d only
    (not its files, not links to directories) and reads every file below each, which `conf.d/*` does not
    (checked against apache2 -t). None matching is "No matches for the wildcard '*'", as for any wildcard.
    A `.` after the wildcard is such a component too (`conf.d/*/.` reads what `conf.d/*/` reads), where
    normpath made it `conf.d/*`, which reads the files beside the directories as well."""
    path = posixpath.normpath(pattern)
    after = pattern[len(_TRAILING_DOTS.sub("", pattern)):]  # the trailing slashes and `.` components
    return path + "/" if after and path != "/" and is_wildcard(path) else path


def is_wildcard(pattern: str) -> bool:
    """Whether an Include pattern names a set of files by httpd's wildcards rather than one file."""
    return _GLOB_CHARS.search(pattern) is not None


def glob_match(pattern: str, name: str) -> bool:
    """httpd's wildcard matching: per path component, ``*`` never crosses ``/``; a pattern of fewer
    components matches a directory above ``name`` (an Include of it, or a wildcard <Directory>, reaches
    everything below), and one that ends in a slash only that (:func:`normalized`)."""
    pattern_parts = pattern.split("/")
    name_parts = name.split("/")
    if pattern_parts[-1] == "" and len(pattern_parts) > 1:  # `conf.d/*/`: directories, each read whole
        pattern_parts.pop()
        if len(pattern_parts) >= len(name_parts):
            return False
    if len(pattern_parts) > len(name_parts):
        return False
    for i, part in enumerate(pattern_parts):
        if not fnmatch.fnmatchcase(name_parts[i], part):
            return False
    # More name parts left: the pattern matched a directory, which includes everything below it.
    return True


class _Walker:
    def __init__(self, configset: ConfigSet, view: View, loaded: set[str], unread: bool = False) -> None:
        self.configset = configset
        self.unread = unread
        self.view = view
        self.target = view.target
        self.loaded = loaded
        self.defined: set[str] = set(self.target.defines or ())
        self.undefined: set[str] = set()
        #: Names and modules that a Define, UnDefine or LoadModule in a branch that may not be read
        #: (UNKNOWN) left undecided: an <IfDefine>/<IfModule> on them is unknown, not decided.
        self.maybe_defined: set[str] = set()
        self.maybe_loaded: set[str] = set()

    def walk_document(
        self,
        name: str,
        live: Liveness,
        context: tuple[Section, ...],
        via: tuple[Directive, ...],
        stack: list[str],
        reached: set[str],
    ) -> None:
        reached.add(name)
        doc = self.configset.documents[name]
        self._walk(doc.children, doc, live, context, via, stack, reached)

    def _substitute(self, node: Directive) -> list[str]:
        if "${" not in node.raw:
            return node.args
        view = self.view
        defines = view.defines
        env = self.target.environment

        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in defines:
                found = defines[name]
            elif name in env:
                found = env[name]
            else:
                return match.group(0)
            view._expanded += len(found)
            if view._expanded > MAX_EXPANSION:
                raise ParseError(
                    node.document.name, node.location.line, node.location.column,
                    f"${{{name}}} makes the ${{VAR}} substitutions of this configuration longer than "
                    f"{MAX_EXPANSION // (1024 * 1024)} MiB ({name} is {len(found)} characters long here), more than "
                    "httpd24 reads: a Define that repeats another (Define B ${A}${A}) doubles at every line; "
                    "write the value itself",
                )
            return found

        return tokenize(_VARIABLE.sub(value, " ".join(node.raw_args)))[0]

    def _walk(self, nodes, doc, live, context, via, stack, reached) -> None:
        # The view's hot loop (once per node): locals instead of attribute and global lookups.
        view = self.view
        target = self.target
        liveness = view._liveness
        items = view.items
        append = items.append
        dead = live is Liveness.DEAD
        unread = self.unread
        for node in nodes:
            liveness[id(node)] = live
            if not isinstance(node, Directive):
                continue
            args = self._substitute(node) if "${" in node.raw else node.args
            key = node.key
            append(Item(node, doc, live, args, context, key, len(items), via, unread))
            if isinstance(node, Section):
                if len(context) == MAX_SECTION_DEPTH:  # only through Includes: the parser stops it in a file
                    raise too_deep(node, via[-1].location)
                inner = live
                if key == "ifmodule" and args:
                    inner = min(live, target.if_module(args[0], self.loaded, self.maybe_loaded))
                elif key == "ifdefine" and args:
                    inner = min(live, target.if_define(args[0], self.defined, self.undefined, self.maybe_defined))
                elif key == "ifversion":
                    inner = min(live, target.if_version(args))
                self._walk(node.children, doc, inner, context + (node,), via, stack, reached)
                if node.close_location is not None:
                    liveness[id(node)] = live
                continue
            if dead or key not in _READ_KEYS:
                continue
            certain = live is Liveness.LIVE
            if key == "define" and args:
                self._decide(args[0], True, certain)
                view.defines[args[0]] = args[1] if len(args) > 1 else ""
            elif key == "undefine" and args:
                self._decide(args[0], False, certain)
                view.defines.pop(args[0], None)
            elif key == "loadmodule" and args:
                if certain:
                    self.maybe_loaded.discard(args[0])
                elif args[0] not in self.loaded:
                    self.maybe_loaded.add(args[0])
                self.loaded.add(args[0])
            elif key in _INCLUDES and args:
                self._include(node, doc, args[0], live, context, via, stack, reached)

    def _decide(self, name: str, defined: bool, certain: bool) -> None:
        """A Define (``defined``) or UnDefine of ``name``, read for sure (``certain``) or maybe."""
        if certain:
            self.maybe_defined.discard(name)
        elif (name in self.defined) != defined or name in self.maybe_defined:
            self.maybe_defined.add(name)  # it may or may not have changed
            return
        else:
            return  # already so for sure
        if defined:
            self.defined.add(name)
            self.undefined.discard(name)
        else:
            self.defined.discard(name)
            self.undefined.add(name)

    def _include(self, node, doc, pattern, live, context, via, stack, reached) -> None:
        if len(via) == MAX_INCLUDE_DEPTH:
            raise ParseError(
                doc.name,
                node.location.line,
                node.location.column,
                f"Exceeded maximum include depth of {MAX_INCLUDE_DEPTH}, as httpd says: this Include is "
                f"{MAX_INCLUDE_DEPTH + 1} files deep ({{0}} -> ... -> {{1}}); include the files from fewer levels",
                (stack[0], stack[-1]),
            )
        names, external = self.configset.resolve_include(pattern)
        if not names:
            self.view.unresolved.append(
                UnresolvedInclude(node, doc, pattern, node.key == "includeoptional", live, external)
            )
            return
        for name in names:
            if name in stack:
                chain = (*stack, name)
                raise ParseError(
                    doc.name,
                    node.location.line,
                    node.location.column,
                    "Include cycle: " + " -> ".join(f"{{{i}}}" for i in range(len(chain)))
                    + "; remove one of these Include lines",
                    chain,
                )
            if name not in self.configset.documents:
                continue
            stack.append(name)
            self.walk_document(name, live, context, via + (node,), stack, reached)
            stack.pop()

"""Turning command-line paths into configuration sets.

A path is one of:

* a file: a configuration with every file its Includes reach on disk (:mod:`.config.disk`);
* a directory: every text file under it, the entry being ``httpd.conf`` or
  ``apache2.conf`` when present (else every file is linted on its own);
* a pipe or FIFO (bash's ``<(...)``, ``/dev/stdin``): read once, as standard input is;
* a Kubernetes manifest (``.yaml``/``.yml``/``.json``) holding ConfigMaps: each
  ConfigMap is read as the admission webhook reads it (:func:`.k8s.review.read_keys`),
  its annotations (entry, server-root, config-dir, defaults, source-version) included.

Names in findings are shown as the user would open them: ``dir/conf.d/a.conf``,
or ``manifest.yaml[namespace/name]:key`` for ConfigMaps.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .config import ConfigSet, configset as _configset, disk
from .config.configset import not_configuration

if TYPE_CHECKING:
    from .k8s.review import Layout


NOT_CONFIGURATION = "not an httpd configuration; pass a configuration file, a directory or a manifest"


class InputError(Exception):
    """A path that cannot be read as a configuration; the message says what to do."""


@dataclass
class Source:
    """One configuration to lint or migrate, and how to write it back."""

    label: str
    configset: ConfigSet
    #: How a file name of the set is shown to the user.
    prefix: str = ""
    #: "file", "directory" or "configmap"
    kind: str = "file"
    #: For files and directories: name in the set -> path on disk.
    paths: dict[str, str] = field(default_factory=dict)
    #: For ConfigMaps: the manifest file and the index of the object in it.
    manifest: str | None = None
    manifest_index: int = 0
    #: For ConfigMaps: the manifest's bytes as read, what ``--write`` edits (and checks it still holds).
    manifest_data: bytes | None = None
    #: For ConfigMaps: where each key is, "data" or "binaryData" (base64).
    origin: dict[str, str] = field(default_factory=dict)
    #: What the user should know about how the input was read (shown on stderr, one line each).
    notes: list[str] = field(default_factory=list)
    #: For ConfigMaps: the manifest as it was named (on disk, or standard input's --stdin-filename).
    manifest_name: str = ""
    #: For ConfigMaps: ``namespace/name``.
    configmap: str = ""
    #: For ConfigMaps: where the keys lie for httpd; the set names each ``layout.name(key)``, as the webhook does.
    layout: Layout | None = None
    #: For ConfigMaps: what its ``defaults`` and ``source-version`` annotations say (None: nothing valid).
    #: A command-line flag wins over them, and they over the settings file (see ``cli._judged_as``).
    defaults: str | None = None
    source_version: str | None = None
    _positions: dict[str, tuple[str, int, int, bool]] | None = field(default=None, repr=False)

    def key(self, name: str) -> str:
        """The ConfigMap key a file of the set is (the name itself for files and directories)."""
        return self.layout.key(name) if self.layout is not None else name

    def display(self, name: str) -> str:
        if self.kind == "configmap":
            return f"{self.prefix}:{self.key(name)}"
        return self.paths.get(name) or (name if self.prefix in ("", os.curdir) else os.path.join(self.prefix, name))

    def on_file(self, name: str, line: int, column: int) -> tuple[str, int, int, str]:
        """(file, line, column) of a place in the file ``name`` of the set, as the repository holds it, and
        where in the ConfigMap value it is when the manifest's line cannot say it ("" when it can): code
        scanning and GitHub annotations show results on a file's lines, and ``m.yaml[ns/web]:httpd.conf``
        is no file. Text output keeps :meth:`display`, which names the ConfigMap and key, as the admission
        webhook does."""
        place = self.in_manifest(name, line, column)
        if place is None:
            return self.display(name), line, column, ""
        inside = "" if place["exact"] else f"{place['section']}.{place['key']}:{line}:{column}"
        return place["file"], place["line"], place["column"], inside

    def in_manifest(self, name: str, line: int, column: int) -> dict | None:
        """Where a place in the file ``name`` of a ConfigMap is in its manifest (None for files): the manifest,
        the ConfigMap, the key and its section (``data``, ``binaryData``), the manifest's line and column,
        and whether they are the place's own (``exact``). A literal block value maps line for line; any
        other value (quoted, as every value of a JSON manifest is; folded; base64) gives its first
        character, and ``exact`` is false."""
        if self.kind != "configmap" or not self.manifest_name:
            return None
        if self._positions is None:
            from .manifest_edit import value_positions

            text = (self.manifest_data or b"").decode("utf-8", "replace")
            self._positions = value_positions(self.manifest_name, text, self.manifest_index)
        key = self.key(name)
        section, first, start, exact = self._positions.get(key, (self.origin.get(key, "data"), 1, 1, False))
        if exact:
            first, start = first + line - 1, start + column - 1
        return {"file": self.manifest_name, "configmap": self.configmap, "key": key, "section": section,
                "line": first, "column": start, "exact": exact}


def _is_manifest(path: str) -> bool:
    return path.endswith((".yaml", ".yml", ".json"))


#: How a manifest's document that is no Kubernetes object is named in an error.
_SHAPES = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}


def load_manifest_objects(path: str, data: bytes, others: list[str] | None = None) -> list[dict]:
    """The Kubernetes objects (mappings) of a manifest, a List's items in its place. ``others``: where
    the documents that are no object go, named (``a list``), for the error that says so."""
    text = data.decode("utf-8", "replace")
    if path.endswith(".json"):
        try:
            loaded = json.loads(text)
        except ValueError as error:
            raise InputError(f"{path}: not valid JSON ({error}); pass a ConfigMap manifest or a configuration file")
        if not isinstance(loaded, (dict, list)):
            raise InputError(f"{path}: not a Kubernetes object or a list of them; pass a ConfigMap manifest or a "
                             "configuration file")
        objects = members(loaded, path)
    else:
        try:
            import yaml
        except ImportError:  # pragma: no cover - PyYAML is a dependency
            raise InputError(f"{path}: reading YAML needs PyYAML (pip install pyyaml)")
        try:
            objects = [o for o in _safe_load_all(path, text) if o is not None]
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
            helm = "; a Helm template: pass what `helm template` renders" if "{{" in text else ""
            raise InputError(f"{where}: not valid YAML ({getattr(error, 'problem', error)}){helm}")
        objects = [member for obj in objects for member in members(obj, path)]
    if others is not None:
        others.extend(_SHAPES.get(type(o), f"a {type(o).__name__}") for o in objects if not isinstance(o, dict))
    return [o for o in objects if isinstance(o, dict)]


def members(document, path: str) -> list:
    """What one document of the manifest at ``path`` stands for, in order: a List's items (none when it
    has no ``items`` or ``items: null``), in JSON any object's ``items`` and an array's elements (as
    ``kubectl get -o json`` writes lists); else the document itself. :mod:`.manifest_edit` numbers the
    objects with this too, so that an index names the same object in both."""
    if path.endswith(".json"):
        if isinstance(document, list):
            return document
        if isinstance(document, dict) and "items" in document:
            return _field(document, "items", list, path)
        return [document]
    if isinstance(document, dict) and document.get("kind") == "List":
        return _field(document, "items", list, path)
    return [document]


#: How many nodes a manifest's aliases may add when expanded. Hand-written manifests use a few, if any;
#: a few hundred bytes of nested aliases (a "billion laughs") expand to gigabytes as Python objects.
MAX_ALIAS_EXPANSION = 100_000


def _safe_load_all(path: str, text: str):
    """``yaml.safe_load_all``, but refusing a document whose aliases would expand to more than
    :data:`MAX_ALIAS_EXPANSION` nodes, counted on the composed graph (linear in its size) before any
    Python object is made: every later step (repr, comparison, JSON) walks the expansion."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            unique, expanded = _node_counts(node)
            if expanded - unique > MAX_ALIAS_EXPANSION:
                line = node.start_mark.line + 1
                raise InputError(f"{path}:{line}: its YAML aliases (*name) would expand to {expanded:,} nodes "
                                 f"from {unique:,}; refused (at most {MAX_ALIAS_EXPANSION:,} more): write the "
                                 "values out, without nested aliases")
            yield loader.construct_document(node)
    finally:
        loader.dispose()


def _node_counts(root) -> tuple[int, int]:
    """(distinct nodes, nodes once every alias is expanded) of a composed YAML graph, in one pass."""
    import yaml

    sizes: dict[int, int] = {}  # expanded size by node, filled in post-order without recursion (deep nesting)
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        if done:
            children = _children(node, yaml)
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node, yaml) if id(child) not in sizes)
    return len(sizes), sizes[id(root)]


def _children(node, yaml) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _no_configmap(path: str, objects: list[dict], others: list[str]) -> InputError | None:
    """Why a manifest holds no ConfigMap to check, or None when that is as it should be in a directory
    (other objects, such as the HttpdServer next to its ConfigMap, or an empty file).

    ``kind: Configmap`` (kinds are case-sensitive) is always an error: the webhooks never see that
    object as a ConfigMap, and a check that passes it silently passes nothing.
    """
    kinds = [o.get("kind") for o in objects]
    typos = [k for k in kinds if isinstance(k, str) and k.lower() == "configmap" and k != "ConfigMap"]
    if typos:
        return InputError(f"{path}: no ConfigMap in this manifest: kind: {typos[0]} is not ConfigMap (kinds are "
                          "case-sensitive); fix the kind")
    if others:
        return InputError(f"{path}: no ConfigMap in this manifest: it holds {', '.join(dict.fromkeys(others))}, "
                          "not a Kubernetes object; pass a ConfigMap manifest, a configuration file or a directory")
    return None


def _holding(objects: list[dict]) -> str:
    """What a manifest without a ConfigMap holds, for its error: its objects' kinds, or that it is empty."""
    if not objects:
        return "it is empty"
    kinds = [o.get("kind") if isinstance(o.get("kind"), str) else "an object without kind" for o in objects]
    return "it holds " + ", ".join(dict.fromkeys(kinds))


def _field(obj: dict, name: str, kind: type, where: str):
    """``obj[name]`` (empty when absent or null), which must be a ``kind``: a manifest written by hand
    may hold anything, and a wrong shape is the file's error, not a crash that hides the other inputs."""
    value = obj.get(name)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        what = {dict: "a mapping", list: "a list", str: "a string"}[kind]
        raise InputError(f"{where}: {name} must be {what}, not {type(value).__name__}; fix the manifest")
    return value


def _annotation(annotations: dict, name: str, where: str) -> str:
    """The annotation ``name`` ("" when absent), which must be a string: the apiserver keeps annotations as
    strings and refuses the object otherwise (``source-version: 2.4`` unquoted is a number in YAML), so
    CI must not pass it."""
    value = annotations.get(name)
    if value is None or isinstance(value, str):
        return value or ""
    quoted = f': {name}: "{value}"' if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
    raise InputError(f"{where}: annotation {name} must be a string, not {type(value).__name__}, or the apiserver "
                     f"refuses the manifest; fix the manifest{quoted}")


def configmap_source(obj: dict, path: str, manifest: str | None = None, index: int = 0,
                     manifest_data: bytes | None = None) -> Source:
    """A ConfigMap object (as a dict) of the manifest ``path`` as a configuration set, read as the admission
    webhook reads it (:func:`.k8s.review.read_keys`): every annotation it reads places and judges the keys
    here too, so that CI passes what admission admits. Raises InputError on a field of the wrong shape
    (``metadata: web``), naming the ConfigMap and the field. ``manifest``: the file to write back (None
    for standard input)."""
    from .config import ParseError
    from .k8s import review

    meta = _field(obj, "metadata", dict, path)
    configmap = f"{meta.get('namespace', 'default')}/{meta.get('name', '?')}"
    label = f"{path}[{configmap}]"
    annotations = _field(meta, "annotations", dict, label)
    _field(obj, "data", dict, label)
    _field(obj, "binaryData", dict, label)
    for name in review.LAYOUT_ANNOTATIONS:
        _annotation(annotations, name, label)
    notes: list[str] = []  # values the webhook ignores, said as it says them
    layout = review.layout_of(obj, notes)
    # binaryData too, and a value that is not text (a list, null, a number) an error, not Python's repr of it.
    files, origin, problems, binary = review.extract_files(obj)
    keys = review.read_keys(files, problems + review.layout_problems(obj), binary, layout)
    configset = keys.configset
    configset.errors = [ParseError(layout.name(p.key), p.line, p.column, p.reason) for p in keys.problems]
    configset.skipped = {layout.name(key): why for key, why in keys.skipped.items()}
    # "auto" is also what an absent annotation reads as: only one that says it outranks the settings file.
    said_version = annotations.get(review.ANN_SOURCE_VERSION) == layout.source_version
    return Source(label, configset, prefix=label, kind="configmap", manifest=manifest, manifest_index=index,
                  manifest_data=manifest_data, origin=origin, notes=notes, manifest_name=path,
                  configmap=configmap, layout=layout, defaults=layout.defaults,
                  source_version=layout.source_version if said_version else None)


def load(path: str, *, server_root: str | None = None, errors: list[InputError] | None = None,
         alone: bool = True) -> list[Source]:
    """The configurations a command-line path holds. Raises InputError with what to do.

    ``server_root``: where a file's relative Includes resolve (default: :func:`.disk.find_server_root`).
    ``errors``: where a directory's manifests that cannot be read go, so that the rest of the
    directory is still checked (without it, the first is raised).
    ``alone``: the path was given itself, not found in a directory (see :func:`from_bytes`).
    """
    try:
        info = os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise InputError(f"{path}: a symbolic link loop; pass the file the links should lead to")
        if error.errno == errno.ENOENT:
            raise InputError(f"{path}: no such file or directory")
        raise InputError(f"{path}: cannot read ({error.strerror})")
    if stat.S_ISDIR(info.st_mode):
        return _load_directory(path, errors, server_root)
    if not stat.S_ISREG(info.st_mode):
        # A pipe (bash's <(...), /dev/stdin) or a FIFO gives its bytes once: read it once, as `-` is;
        # sniffing its head first (not_configuration) would take those bytes away from the read.
        try:
            with open(path, "rb") as handle:
                return from_stream(path, handle, server_root=server_root)
        except OSError as error:
            raise InputError(f"{path}: cannot read ({error.strerror})")
    reason = not_configuration(path)
    if reason:
        raise InputError(f"{path}: {reason}, {NOT_CONFIGURATION}")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})")
    return from_bytes(path, data, server_root=server_root, on_disk=True, alone=alone)


def from_stream(path: str, handle, *, server_root: str | None = None) -> list[Source]:
    """The configurations of what ``handle`` (standard input, a pipe) gives, read as the file ``path``:
    refused as a file on disk would be when binary or too large, reading no more than that limit."""
    limit = _configset.MAX_CONFIGURATION_BYTES
    data = handle.read(limit + 1)
    if b"\0" in data:
        raise InputError(f"{path}: a binary file, {NOT_CONFIGURATION}")
    if len(data) > limit:
        raise InputError(f"{path}: more than {limit // (1024 * 1024)} MiB, too large for a configuration, "
                         f"{NOT_CONFIGURATION}")
    return from_bytes(path, data, server_root=server_root)


def is_stream(path: str) -> bool:
    """Whether ``path`` is read as a stream (``-``, a pipe, a FIFO, a device): nothing to write back to."""
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def from_bytes(path: str, data: bytes, *, server_root: str | None = None, on_disk: bool = False,
               alone: bool = True) -> list[Source]:
    """The configurations ``data`` holds, read as the file ``path`` (a manifest by its extension).

    ``on_disk``: ``path`` is that file, so ``migrate --write`` may write the manifest back (not
    standard input, which the CLI never writes). A configuration's Includes are read from disk either way.
    A manifest without a ConfigMap is an InputError: given ``alone``, the user meant it to be checked
    (a ``kind: Configmap`` typo or an empty file passed CI with nothing checked); in a directory only a
    misspelt ConfigMap or a document that is no object is (an HttpdServer next to its ConfigMap is not).
    """
    if _is_manifest(path):
        others: list[str] = []
        objects = load_manifest_objects(path, data, others)
        configmaps = [(i, o) for i, o in enumerate(objects) if o.get("kind") == "ConfigMap"]
        if configmaps:
            return [configmap_source(obj, path, path if on_disk else None, index, data) for index, obj in configmaps]
        error = _no_configmap(path, objects, others)
        if error is not None:
            raise error
        if alone:
            raise InputError(f"{path}: no ConfigMap in this manifest ({_holding(objects)}); pass a manifest "
                             "with kind: ConfigMap, a configuration file or a directory")
        return []  # other Kubernetes objects (an HttpdServer, a Deployment), or nothing: not for us
    try:
        found = disk.read(path, data, server_root=server_root)
    except OSError as error:  # a directory of the server root, unreadable
        raise InputError(f"{path}: cannot follow its Includes ({error}); pass --server-root")
    configset = found.configset
    shown = {name: _shown(where, path) for name, where in found.paths.items()}
    return [Source(path, configset, prefix=os.path.dirname(path), kind="file", paths=shown,
                   notes=[found.root_note] if found.root_note else [])]


def _shown(where: str, given: str) -> str:
    """How an included file is shown: as the path given on the command line for the file itself,
    relative to the working directory when that path was relative or a pipe (read as `-` is), else
    absolute."""
    if where == given or (os.path.isabs(given) and not disk.names_a_descriptor(given)):
        return where
    relative = os.path.relpath(where)
    return where if relative.startswith("..") else relative


def _load_directory(path: str, errors: list[InputError] | None = None,
                    server_root: str | None = None) -> list[Source]:
    """httpd files of a directory as one configuration; Kubernetes manifests in it as their ConfigMaps.
    A manifest that cannot be read (a Helm template) goes to ``errors``: the other files are checked.
    ``server_root``: where the files' relative Includes are read from, as for a file (default: the directory)."""
    configset = ConfigSet.from_directory(path, server_root=server_root)
    manifests = sorted(name for name in configset.documents if _is_manifest(name))
    sources: list[Source] = []
    failed = False
    for name in manifests:
        try:
            sources.extend(load(os.path.join(path, name), alone=False))
        except InputError as error:
            if errors is None:
                raise
            errors.append(error)
            failed = True
    if manifests:
        # Parse errors of manifests are not httpd errors: drop those files from the httpd set.
        for name in manifests:
            configset.documents.pop(name, None)
        configset.errors = [e for e in configset.errors if e.file not in manifests]
        if configset.entry in manifests:
            configset.entry = None
    if configset.documents or configset.errors:
        base = path if server_root is None else server_root  # the set's names are relative to it, or absolute
        paths = {name: os.path.normpath(os.path.join(base, name)) for name in configset.documents}
        sources.insert(0, Source(path, configset, prefix=base, kind="directory", paths=paths))
    if not sources and not failed:
        raise InputError(f"{path}: no configuration files or ConfigMap manifests in this directory")
    return sources


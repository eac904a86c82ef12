"""Turning command-line paths into configuration sets.

A path is one of:

* a file: a configuration with every file its Includes reach on disk (:mod:`.config.disk`);
* a directory: every text file under it, the entry being ``httpd.conf`` or
  ``apache2.conf`` when present (else every file is linted on its own);
* a Kubernetes manifest (``.yaml``/``.yml``/``.json``) holding ConfigMaps: each
  ConfigMap's keys are its files, the entry is ``httpd.conf`` unless the
  ``httpd24.io/entry`` annotation names another.

Names in findings are shown as the user would open them: ``dir/conf.d/a.conf``,
or ``manifest.yaml[namespace/name]:key`` for ConfigMaps.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from .config import ConfigSet, disk
from .config.configset import not_configuration

ENTRY_ANNOTATION = "httpd24.io/entry"
SERVER_ROOT_ANNOTATION = "httpd24.io/server-root"
DEFAULT_SERVER_ROOT = "/usr/local/apache2"


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
    #: Something the user should know about how the input was read (shown on stderr).
    note: str = ""

    def display(self, name: str) -> str:
        if self.kind == "configmap":
            return f"{self.prefix}:{name}"
        return self.paths.get(name) or os.path.join(self.prefix, name)


def _is_manifest(path: str) -> bool:
    return path.endswith((".yaml", ".yml", ".json"))


def load_manifest_objects(path: str, data: bytes) -> list[dict]:
    text = data.decode("utf-8", "replace")
    if path.endswith(".json"):
        try:
            loaded = json.loads(text)
        except ValueError as error:
            raise InputError(f"{path}: not valid JSON ({error}); pass a ConfigMap manifest or a configuration file")
        objects = loaded.get("items", [loaded]) if isinstance(loaded, dict) else loaded
    else:
        try:
            import yaml
        except ImportError:  # pragma: no cover - PyYAML is a dependency
            raise InputError(f"{path}: reading YAML needs PyYAML (pip install pyyaml)")
        try:
            objects = [o for o in yaml.safe_load_all(text) if o is not None]
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
            raise InputError(f"{where}: not valid YAML ({getattr(error, 'problem', error)})")
        expanded = []
        for obj in objects:
            if isinstance(obj, dict) and obj.get("kind") == "List":
                expanded.extend(obj.get("items") or [])
            else:
                expanded.append(obj)
        objects = expanded
    return [o for o in objects if isinstance(o, dict)]


def configmap_source(obj: dict, label: str, manifest: str | None = None, index: int = 0) -> Source:
    """A ConfigMap object (as a dict) as a configuration set."""
    meta = obj.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    data = obj.get("data") or {}
    files = {str(k): (v if isinstance(v, str) else str(v)) for k, v in data.items()}
    entry = annotations.get(ENTRY_ANNOTATION, "httpd.conf")
    server_root = annotations.get(SERVER_ROOT_ANNOTATION, DEFAULT_SERVER_ROOT)
    configset = ConfigSet.from_mapping(files, entry=entry, server_root=server_root)
    return Source(label, configset, prefix=label, kind="configmap", manifest=manifest, manifest_index=index)


def load(path: str, *, server_root: str | None = None) -> list[Source]:
    """The configurations a command-line path holds. Raises InputError with what to do.

    ``server_root``: where a file's relative Includes resolve (default: :func:`.disk.find_server_root`).
    """
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file or directory")
    if os.path.isdir(path):
        return _load_directory(path)
    reason = not_configuration(path)
    if reason:
        raise InputError(f"{path}: {reason}, not an httpd configuration; pass a configuration file, a directory or a manifest")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})")
    return from_bytes(path, data, server_root=server_root, on_disk=True)


def from_bytes(path: str, data: bytes, *, server_root: str | None = None, on_disk: bool = False) -> list[Source]:
    """The configurations ``data`` holds, read as the file ``path`` (a manifest by its extension).

    ``on_disk``: ``path`` is that file, so ``migrate --write`` may write the manifest back (not
    standard input, which the CLI never writes). A configuration's Includes are read from disk either way.
    """
    if _is_manifest(path):
        objects = load_manifest_objects(path, data)
        configmaps = [(i, o) for i, o in enumerate(objects) if o.get("kind") == "ConfigMap"]
        if configmaps:
            sources = []
            for index, obj in configmaps:
                meta = obj.get("metadata") or {}
                label = f"{path}[{meta.get('namespace', 'default')}/{meta.get('name', '?')}]"
                sources.append(configmap_source(obj, label, path if on_disk else None, index))
            return sources
        if objects:
            # Other Kubernetes objects (an HttpdServer, a Deployment): nothing for us here.
            return []
    try:
        found = disk.read(path, data, server_root=server_root)
    except OSError as error:  # a directory of the server root, unreadable
        raise InputError(f"{path}: cannot follow its Includes ({error}); pass --server-root")
    configset = found.configset
    shown = {name: _shown(where, path) for name, where in found.paths.items()}
    return [Source(path, configset, prefix=os.path.dirname(path), kind="file", paths=shown, note=found.root_note)]


def _shown(where: str, given: str) -> str:
    """How an included file is shown: as the path given on the command line for the file itself,
    relative to the working directory when that path was relative, else absolute."""
    if where == given or os.path.isabs(given):
        return where
    relative = os.path.relpath(where)
    return where if relative.startswith("..") else relative


def _load_directory(path: str) -> list[Source]:
    """httpd files of a directory as one configuration; Kubernetes manifests in it as their ConfigMaps."""
    configset = ConfigSet.from_directory(path)
    manifests = sorted(name for name in configset.documents if _is_manifest(name))
    sources: list[Source] = []
    for name in manifests:
        sources.extend(load(os.path.join(path, name)))
    if manifests:
        # Parse errors of manifests are not httpd errors: drop those files from the httpd set.
        for name in manifests:
            configset.documents.pop(name, None)
        configset.errors = [e for e in configset.errors if e.file not in manifests]
        if configset.entry in manifests:
            configset.entry = None
    if configset.documents or configset.errors:
        paths = {name: os.path.join(path, name) for name in configset.documents}
        sources.insert(0, Source(path, configset, prefix=path, kind="directory", paths=paths))
    if not sources:
        raise InputError(f"{path}: no configuration files or ConfigMap manifests in this directory")
    return sources

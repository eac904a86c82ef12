"""Admission decisions for httpd ConfigMaps: pure, no kopf, no I/O.

A ConfigMap body (plus the effective :class:`Mode`) goes in, a :class:`Decision`
comes out: allowed or not, the denial text as kubectl prints it, admission
warnings, the changes to write (migrated files, annotations) and the JSON patch
for them. :mod:`httpd24.k8s.admission` only adapts kopf's kwargs to this.

How a ConfigMap is read (documented for users in the README, *Modes and policies*):

* every key of ``data`` (text) and ``binaryData`` (bytes, base64) is a file in
  one directory, ``httpd24.io/config-dir`` (absolute, or relative to the server
  root ``httpd24.io/server-root``; a ``..`` in it is a problem, :func:`climbing_config_dir`).
  The defaults are the operator's pod layout
  (:mod:`httpd24.k8s.mainconf`): the ConfigMap is mounted as the ServerRoot
  ``/etc/httpd24`` itself, so ``config-dir`` defaults to the server root;
* the entry file is ``httpd.conf`` unless ``httpd24.io/entry`` names another key;
  ``Include extra.conf`` or ``Include /etc/httpd24/vhost-*.conf`` reach
  other keys. Every key is reviewed all the same: a key the entry does not
  reach is linted on its own, as the engine lints a file nothing includes, and
  its errors count, because the HttpdServer's ``spec.entry`` (not this
  annotation) decides what the pods read, so any key may be an entry;
* a key no Include reaches that is not configuration (it does not parse, or it
  is a binaryData value with NUL bytes: an html page, an image) is left alone,
  and a warning names it. A NUL byte in a key that is reached (or is the entry)
  is a problem: httpd would read that key, the review cannot;
* ``httpd24.io/source-version`` (``auto``, ``2.2``, ``2.4``) says what the configuration
  ran on before, as ``--source-version`` does (:mod:`httpd24.engine.source`).

Two stages, one per webhook:

* ``mutate``: in ``migrate`` mode rewrites the files to their 2.4 form and
  keeps the original as a gzip'ed tar in the ``httpd24.io/original``
  annotation (per key, the text before httpd24 first changed it: later updates
  keep it); denies what cannot be migrated safely, or would not fit the
  object's size limits. In every mode it records
  the review (mode, finding counts) in annotations the operator reads. That
  record is the webhook's (:func:`record_of`): it is kept from the stored
  object, never taken from a request.
* ``validate``: ``enforce`` (and ``migrate`` as a backstop) deny live errors;
  warnings go back as admission warnings; ``warn`` sends one warning per
  finding; ``audit`` is silent.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import io
import json
import posixpath
import tarfile
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any, Iterable, Literal, Mapping, NamedTuple

from .. import api
from ..config import ConfigSet, ParseError
from ..config.configset import Listing
from ..config.gcpause import trees_freed_before_collection
from ..engine import Applicability, Finding, Severity, SourceVersion

# -- names -------------------------------------------------------------------------------------
GROUP = "httpd24.io"
LABEL_CONFIG = "httpd24.io/config"
LABEL_MODE = "httpd24.io/mode"  # on namespaces
ANN_MODE = "httpd24.io/mode"  # on the ConfigMap: may only make the mode stricter
ANN_ENTRY = "httpd24.io/entry"
ANN_SERVER_ROOT = "httpd24.io/server-root"
ANN_CONFIG_DIR = "httpd24.io/config-dir"
ANN_DEFAULTS = "httpd24.io/defaults"
ANN_SOURCE_VERSION = "httpd24.io/source-version"  # auto | 2.2 | 2.4: what the configuration ran on before
#: What :func:`layout_of` reads: where the keys lie and how they are judged.
LAYOUT_ANNOTATIONS = (ANN_ENTRY, ANN_SERVER_ROOT, ANN_CONFIG_DIR, ANN_DEFAULTS, ANN_SOURCE_VERSION)
# Written by the webhook:
ANN_REVIEWED_MODE = "httpd24.io/reviewed-mode"
#: Count of findings on the stored text ("-1": it does not parse); HttpdServer status.findings.audit reads it.
ANN_FINDINGS = "httpd24.io/audit-findings"
ANN_FINDINGS_BY_CODE = "httpd24.io/findings-by-code"  # "HT101=2,HT501=1"
ANN_ERRORS = "httpd24.io/errors"  # count of error findings on the stored text
ANN_MIGRATED = "httpd24.io/migrated"  # rule codes and counts rewritten by the migrate mode
ANN_ORIGINAL = "httpd24.io/original"  # base64(tar.gz of the original files that changed)
WRITTEN_ANNOTATIONS = (
    ANN_REVIEWED_MODE, ANN_FINDINGS, ANN_FINDINGS_BY_CODE, ANN_ERRORS, ANN_MIGRATED, ANN_ORIGINAL,
)

#: The operator mounts the ConfigMap as the ServerRoot (httpd24.k8s.mainconf.SERVER_ROOT).
DEFAULT_SERVER_ROOT = "/etc/httpd24"
DEFAULT_CONFIG_DIR = "."
DEFAULT_ENTRY = "httpd.conf"

#: Lines in a denial message before "... and N more".
MAX_DENIAL_LINES = 20
#: Admission warnings per response (kube-apiserver drops warnings beyond 4096 characters in total).
MAX_WARNINGS = 25
WARNING_WIDTH = 120
#: metadata.annotations may hold at most 256 KiB in total (apimachinery ValidateAnnotationsSize).
ANNOTATIONS_LIMIT = 256 * 1024
#: data and binaryData values may hold at most 1 MiB in total (ValidateConfigMap; keys do not count).
CONFIGMAP_LIMIT = 1024 * 1024



class Mode(IntEnum):
    """Admission modes, ordered by strictness: ``audit < warn < migrate < enforce``."""

    AUDIT = 0
    WARN = 1
    MIGRATE = 2
    ENFORCE = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: object) -> "Mode | None":
        if not isinstance(value, str):
            return None
        try:
            return cls[value.strip().upper()]
        except KeyError:
            return None


#: The mode when neither a namespace label nor an HttpdPolicy says anything.
DEFAULT_MODE = Mode.WARN

Stage = Literal["mutate", "validate"]
DefaultsPolicy = Literal["keep-2.2", "adopt-2.4"] | None


# -- reading a ConfigMap --------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """Input httpd cannot read (a parse error, a value that is not text): not a rule finding."""

    key: str
    line: int
    column: int
    reason: str

    def __str__(self) -> str:
        if self.line:
            return f"{self.key}:{self.line}:{self.column}: {self.reason}"
        return f"{self.key}: {self.reason}"


@dataclass(frozen=True)
class Ignored:
    """The rules the matching HttpdPolicies leave out (:mod:`.review_policy`), and which policies those are."""

    codes: tuple[str, ...] = ()
    by: str = ""


@dataclass(frozen=True)
class Layout:
    """Where the ConfigMap's keys live for httpd: names in the ConfigSet are ``prefix + key``."""

    entry: str = DEFAULT_ENTRY
    server_root: str = DEFAULT_SERVER_ROOT
    config_dir: str = DEFAULT_CONFIG_DIR
    defaults: DefaultsPolicy = None
    source_version: SourceVersion = "auto"
    ignored: Ignored = Ignored()

    @property
    def prefix(self) -> str:
        root = self.server_root.rstrip("/") or "/"
        directory = self.config_dir.strip()
        if directory.startswith("/"):
            if directory.rstrip("/") == root:
                return ""
            if directory.startswith(root.rstrip("/") + "/"):
                directory = directory[len(root.rstrip("/")) + 1 :]
            else:
                # Outside the server root: absolute names, as httpd would open them.
                return directory.rstrip("/") + "/"
        directory = posixpath.normpath(directory) if directory else "."
        return "" if directory in (".", "") else directory.rstrip("/") + "/"

    def name(self, key: str) -> str:
        return self.prefix + key

    def key(self, name: str) -> str:
        prefix = self.prefix
        return name[len(prefix) :] if prefix and name.startswith(prefix) else name


def layout_of(body: Mapping[str, Any], notes: list[str] | None = None) -> Layout:
    annotations = _annotations(body)
    defaults = annotations.get(ANN_DEFAULTS)
    if defaults not in (None, "keep-2.2", "adopt-2.4"):
        if notes is not None:
            notes.append(f"annotation {ANN_DEFAULTS}={defaults!r} is not keep-2.2 or adopt-2.4; ignored")
        defaults = None
    return Layout(
        entry=_text(annotations.get(ANN_ENTRY)) or DEFAULT_ENTRY,
        server_root=_text(annotations.get(ANN_SERVER_ROOT)).strip() or DEFAULT_SERVER_ROOT,
        config_dir=_text(annotations.get(ANN_CONFIG_DIR), DEFAULT_CONFIG_DIR),
        defaults=defaults,
        source_version=_source_version(annotations, notes),
    )


def _source_version(annotations: Mapping[str, Any], notes: list[str] | None = None) -> SourceVersion:
    """The ConfigMap's ``httpd24.io/source-version`` (``auto`` when absent or not one of the three)."""
    value = annotations.get(ANN_SOURCE_VERSION, "auto")
    if value in ("auto", "2.2", "2.4"):
        return value
    if notes is not None:
        notes.append(f"annotation {ANN_SOURCE_VERSION}={value!r} is not auto, 2.2 or 2.4; ignored")
    return "auto"


def _text(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _annotations(body: Mapping[str, Any]) -> dict[str, Any]:
    meta = body.get("metadata") if isinstance(body, Mapping) else None
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    return dict(annotations) if isinstance(annotations, Mapping) else {}


def extract_files(body: Mapping[str, Any]) -> tuple[dict[str, bytes], dict[str, str], list[Problem], list[str]]:
    """The files of a ConfigMap: (files, origin key -> "data"|"binaryData", problems, binary keys).

    Binary keys are binaryData values with NUL bytes: not in ``files`` (no parser reads them);
    whether they are a problem depends on whether the entry reaches them (:func:`_analyze_trees`).
    """
    files: dict[str, bytes] = {}
    origin: dict[str, str] = {}
    problems: list[Problem] = []
    binary_keys: list[str] = []
    data = body.get("data")
    if data is not None and not isinstance(data, Mapping):
        problems.append(Problem("data", 0, 0, "data is not a map of keys to strings"))
        data = None
    for key, value in (data or {}).items():
        if not isinstance(value, str):
            problems.append(Problem(str(key), 0, 0, f"value is a {type(value).__name__}, not a string"))
            continue
        try:
            files[key] = value.encode("utf-8")
        except UnicodeEncodeError as error:
            line = value.count("\n", 0, error.start) + 1
            column = error.start - (value.rfind("\n", 0, error.start) + 1) + 1
            problems.append(Problem(key, line, column, "value is not valid UTF-8 text"))
            continue
        origin[key] = "data"
    binary = body.get("binaryData")
    if binary is not None and not isinstance(binary, Mapping):
        problems.append(Problem("binaryData", 0, 0, "binaryData is not a map of keys to base64 strings"))
        binary = None
    for key, value in (binary or {}).items():
        try:
            raw = base64.b64decode(value if isinstance(value, (str, bytes)) else b"!", validate=True)
        except (binascii.Error, ValueError):
            problems.append(Problem(str(key), 0, 0, "binaryData value is not valid base64"))
            continue
        if b"\0" in raw:
            binary_keys.append(key)  # an image, a DER certificate... or a configuration hiding behind a NUL
            continue
        files[key] = raw
        origin[key] = "binaryData"
    return files, origin, problems, binary_keys


def missing_entry(body: Mapping[str, Any]) -> Problem | None:
    """The problem of a ``httpd24.io/entry`` annotation that names no key of the ConfigMap: the pods would
    read a file that is not there, and the review would read every key on its own and pass it. (Without
    the annotation the entry is ``httpd.conf``, which a ConfigMap of files another one includes need not
    have.)"""
    entry = _text(_annotations(body).get(ANN_ENTRY))
    keys = sorted({str(key) for section in ("data", "binaryData")
                   if isinstance(body.get(section), Mapping) for key in body[section]})
    if not entry or entry in keys:
        return None
    shown = ", ".join(keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
    keys_text = f"the ConfigMap's keys are {shown}" if keys else "the ConfigMap has no keys"
    return Problem(entry, 0, 0, f"no such key: annotation {ANN_ENTRY} names it as the entry file, and {keys_text}; "
                                "name one of them in the annotation, or add the key")


def climbing_config_dir(body: Mapping[str, Any]) -> Problem | None:
    """The problem of a ``httpd24.io/config-dir`` with a ``..`` part: it names no directory the keys can be
    mounted at as written (a volume's mountPath is a plain path), and the keys would be named where no
    Include reaches them, each read on its own and passed unread."""
    directory = _text(_annotations(body).get(ANN_CONFIG_DIR)).strip()
    if ".." not in directory.split("/"):
        return None
    return Problem(ANN_CONFIG_DIR, 0, 0, f"{directory!r} has a '..' part; name the directory the keys are mounted "
                                         "at without it, absolute or relative to the server root")


def relative_server_root(body: Mapping[str, Any]) -> Problem | None:
    """The problem of a ``httpd24.io/server-root`` that is not absolute: httpd's ServerRoot is a directory from
    ``/``, and the keys' absolute names (what ``Include /etc/httpd24/x.conf`` matches) start with it."""
    root = _text(_annotations(body).get(ANN_SERVER_ROOT)).strip()
    if not root or root.startswith("/"):
        return None
    return Problem(ANN_SERVER_ROOT, 0, 0, f"{root!r} is not an absolute path; write the directory the keys' server "
                                          f"root is from / (the operator's is {DEFAULT_SERVER_ROOT})")


def layout_problems(body: Mapping[str, Any]) -> list[Problem]:
    """What keeps the annotations from placing the keys where httpd reads them: an entry that names no key
    (:func:`missing_entry`), a config-dir that climbs with ``..`` (:func:`climbing_config_dir`), a server root
    that is not absolute (:func:`relative_server_root`)."""
    found = (missing_entry(body), climbing_config_dir(body), relative_server_root(body))
    return [p for p in found if p is not None]


def read_from_entry(configset: ConfigSet, layout: Layout, binary: Iterable[str]) -> tuple[list[Problem], set[str] | None]:
    """(:data:`NUL_REASON` for each binary key httpd reads as configuration, the names the entry reaches):
    the entry and what its Includes reach in any branch. None when no key is the entry: each is read
    on its own, and none is read for sure. ``configset`` holds every key but the binary ones."""
    entry_name = layout.name(layout.entry)
    binary_names = {layout.name(k) for k in binary}
    if entry_name not in configset.sources and entry_name not in binary_names:
        return [], None
    broken = {e.file for e in configset.errors}
    reached = _reachable(configset, entry_name, broken | binary_names)
    return [Problem(layout.key(n), 0, 0, NUL_REASON) for n in sorted(binary_names & reached)], reached


#: Why a binaryData key with NUL bytes that no Include reaches is left alone (:attr:`Keys.skipped`).
BINARY_SKIPPED = "binaryData with NUL bytes, not configuration"


@dataclass
class Keys:
    """A ConfigMap's keys read as httpd reads them (:func:`read_keys`): the one reading the review and
    ``httpd24 lint`` both lint, so that CI passes what admission admits."""

    #: Every key that may be configuration, named ``layout.name(key)``; its entry is the layout's, when a key.
    configset: ConfigSet
    #: What httpd cannot read, by key: the problems given, binary keys httpd reads, parse errors.
    problems: list[Problem]
    #: Keys left alone, and why: no Include reaches them and they are not configuration.
    skipped: dict[str, str]


def read_keys(files: Mapping[str, bytes], problems: Iterable[Problem], binary: Iterable[str], layout: Layout,
              trees: list | None = None) -> Keys:
    """The keys of :func:`extract_files` (``files``, its ``problems`` and ``binary`` keys) where ``layout``
    places them. Every key is read: those the entry reaches as httpd reads them, the others on their own.

    Only a key nothing reaches may be left alone, and only when it is not configuration (it does not
    parse, or holds NUL bytes): the operator serves the HttpdServer's entry, which need not be this
    ConfigMap's ``httpd24.io/entry``, so a key that parses could be what the pods read. ``trees``:
    where each parsed configuration goes, to be freed before the collector runs (:func:`_analyze`).
    """
    binary = list(binary)
    named = {layout.name(k): v for k, v in files.items()}
    entry_name = layout.name(layout.entry)
    binary_names = {layout.name(k) for k in binary}
    every_file = listing(layout, [*files, *binary])

    def load(named: dict[str, bytes]) -> ConfigSet:
        configset = api.load_mapping(named, entry=entry_name if entry_name in named else None,
                                     server_root=layout.server_root)
        configset.listing = every_file
        if trees is not None:
            trees.append(configset)
        return configset

    configset = load(named)
    problems = list(problems)
    skipped = dict.fromkeys(sorted(binary), BINARY_SKIPPED)  # without an entry no Include reaches them
    unread, reached = read_from_entry(configset, layout, binary)
    if reached is not None:
        problems += unread
        unreadable = {e.file: e for e in configset.errors if e.file not in reached}
        left = {n: BINARY_SKIPPED for n in binary_names - reached}
        left.update((n, f"no Include reaches it, and it is not configuration: {e.line}:{e.column}: {e.reason}")
                    for n, e in unreadable.items())
        skipped = {layout.key(n): left[n] for n in sorted(left)}
        if unreadable:
            configset = load({n: v for n, v in named.items() if n not in unreadable})
    problems += [_problem(e, layout) for e in configset.errors]
    return Keys(configset, problems, skipped)


def listing(layout: Layout, keys: Iterable[str]) -> Listing:
    """The directory the ConfigMap is mounted as, and its files: every key (:class:`Listing`)."""
    return Listing(layout.prefix.rstrip("/"), frozenset(layout.name(k) for k in keys))


def _reachable(configset: ConfigSet, entry_name: str, broken: Iterable[str]) -> set[str]:
    """Names the entry reaches through Include lines (statically, every branch), including the
    ``broken`` names (files that did not parse, binary keys): an Include can name them too."""
    reached = {entry_name}
    todo = [entry_name]
    known = set(configset.documents) | set(broken)
    probe = ConfigSet(
        {name: configset.documents.get(name) for name in known},  # type: ignore[misc]
        entry=None,
        server_root=configset.server_root,
    )
    while todo:
        doc = configset.documents.get(todo.pop())
        if doc is None:
            continue
        for node in doc.directives():
            if node.key not in ("include", "includeoptional") or not node.args:
                continue
            names, _external = probe.resolve_include(node.args[0])
            for name in names:
                if name not in reached:
                    reached.add(name)
                    todo.append(name)
    return reached


# -- analysis (cached: the validating webhook usually sees what the mutating one produced) ----------
@dataclass
class Analysis:
    layout: Layout
    files: dict[str, bytes]  # by key
    origin: dict[str, str]
    problems: list[Problem]
    findings: list[Finding]  # on the files as given (Finding.file is a key)
    #: Keys left alone: no Include reaches them and they are not configuration (a warning names them).
    skipped: list[str] = field(default_factory=list)
    #: Whether migrate ran to the end (``applied``/``remaining``/``migrated`` are its result).
    migrated_ok: bool = False
    #: migrated files by key (only those that changed)
    migrated: dict[str, bytes] = field(default_factory=dict)
    applied: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    #: Findings an ``# httpd24: ignore`` mark in the files silences (of the migrated files, after migrate).
    silenced: list[Finding] = field(default_factory=list)
    #: Findings of rules an HttpdPolicy leaves out (``layout.ignored``), on the files as given.
    excluded: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]


class _Cache:
    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[str, Analysis] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Analysis | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: str, value: Analysis) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


CACHE = _Cache()


def _cache_key(files: Mapping[str, bytes], origin: Mapping[str, str], binary: Iterable[str], layout: Layout,
               migrate: bool) -> str:
    """What the analysis depends on: the bytes, and also which section each key is in (the patch
    writes a migrated key back where it came from) and the names of the binary keys."""
    digest = hashlib.sha256()
    digest.update(repr((layout, migrate, sorted(binary))).encode("utf-8", "surrogateescape"))
    for key in sorted(files):
        digest.update(b"\0" + key.encode("utf-8", "surrogateescape") + b"\0" + origin.get(key, "").encode() + b"\0")
        digest.update(hashlib.sha256(files[key]).digest())
    return digest.hexdigest()


def _renamed(finding: Finding, layout: Layout) -> Finding:
    """The finding as the ConfigMap names it (a key, not a file), without the tree its fix edits."""
    return finding.detached(layout.key(finding.file))


def _problem(error: ParseError, layout: Layout) -> Problem:
    return Problem(layout.key(error.file), error.line, error.column, error.shown(layout.key))


def analyze(
    body: Mapping[str, Any], *, migrate: bool = False, notes: list[str] | None = None, defaults: DefaultsPolicy = None,
    ignored: Ignored = Ignored(),
) -> Analysis:
    """Lint (and in migrate mode, migrate) a ConfigMap body; never raises on bad input.

    ``defaults`` (from an HttpdPolicy) wins over the ConfigMap's ``httpd24.io/defaults``.
    """
    layout = replace(layout_of(body, notes), ignored=ignored)
    if defaults is not None:
        layout = replace(layout, defaults=defaults)
    files, origin, problems, binary = extract_files(body)
    problems += layout_problems(body)  # before the cache: an absent entry annotation reads as one naming httpd.conf
    key = _cache_key(files, origin, binary, layout, migrate)
    cached = CACHE.get(key)
    if cached is not None and not problems:
        return cached
    analysis = _analyze(files, origin, problems, binary, layout, migrate)
    if not problems:
        CACHE.put(key, analysis)
        if migrate and analysis.migrated_ok and not analysis.problems:
            # The validating webhook will see the migrated files: its lint is `remaining`.
            after = dict(files)
            after.update(analysis.migrated)
            CACHE.put(
                _cache_key(after, origin, binary, layout, False),
                Analysis(layout, after, origin, [], analysis.remaining, analysis.skipped, silenced=analysis.silenced,
                         excluded=analysis.excluded),
            )
    return analysis


def _analyze(files, origin, problems, binary, layout: Layout, migrate: bool) -> Analysis:
    """The analysis, holding no parsed tree: it is cached, and trees are megabytes.

    The collector is paused for the whole review and the trees are freed by
    reference counting before it resumes (resuming starts a collection, which
    must not find them), so a review costs no garbage collection.
    """
    with trees_freed_before_collection() as trees:
        return _analyze_trees(files, origin, problems, binary, layout, migrate, trees)


#: Why a binary key the entry reaches is denied (enforce, migrate) or warned about (warn).
NUL_REASON = ("holds NUL bytes, yet httpd reads it as configuration (it is the entry, or an Include reaches it) "
              "and httpd24 cannot review it; remove the NUL bytes")


def _analyze_trees(files, origin, problems, binary, layout: Layout, migrate: bool, trees) -> Analysis:
    """Lint (or migrate) the keys as :func:`read_keys` reads them."""
    keys = read_keys(files, problems, binary, layout, trees)
    configset, problems = keys.configset, keys.problems
    analysis = Analysis(layout, files, origin, problems, [], sorted(keys.skipped))
    if problems:
        return analysis
    left_out = frozenset(layout.ignored.codes)
    exclude = (lambda finding: finding.code in left_out) if left_out else None
    if not migrate:
        silenced: list[Finding] = []
        excluded: list[Finding] = []
        try:
            findings = api.lint(configset, defaults=layout.defaults, silenced=silenced,
                                source_version=layout.source_version, exclude=exclude, excluded=excluded)
        except ParseError as error:  # an Include cycle
            analysis.problems.append(_problem(error, layout))
            return analysis
        analysis.findings = [_renamed(f, layout) for f in findings]
        analysis.silenced = [_renamed(f, layout) for f in silenced]
        analysis.excluded = [_renamed(f, layout) for f in excluded]
    else:
        # Its first pass lints the input as lint would (Migration.found), then edits the tree in place.
        migration = api.migrate(configset, defaults=layout.defaults, applicability=Applicability.PRESERVE,
                                source_version=layout.source_version, exclude=exclude)
        if migration.configset is not None and migration.configset is not configset:
            trees.append(migration.configset)
        if migration.found is None:  # an Include cycle: nothing was read
            analysis.problems.append(_problem(migration.cycle, layout))
            return analysis
        analysis.findings = [_renamed(f, layout) for f in migration.found]
        analysis.migrated_ok = True
        analysis.applied = [_renamed(f, layout) for f in migration.applied]
        analysis.remaining = [_renamed(f, layout) for f in migration.remaining]
        analysis.silenced = [_renamed(f, layout) for f in migration.silenced]
        analysis.excluded = [_renamed(f, layout) for f in migration.excluded]
        analysis.migrated = {layout.key(n): migration.files[n] for n in sorted(migration.changed)}
        for failure in migration.failures:
            analysis.problems.append(Problem(layout.entry, 0, 0, f"migration stopped: {failure}"))
    return analysis


# -- text -----------------------------------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def finding_line(finding: Finding) -> str:
    """``key:line: CODE message -> replacement`` (the replacement part only when there is one)."""
    text = f"{finding.file}:{finding.line}: {finding.code} {_one_line(finding.message)}"
    if finding.replacement:
        text += f" -> {_one_line(finding.replacement)}"
    return text


def tally(findings: Iterable[Finding], why: str) -> str:
    """``2 findings WHY (HT406 x2)``: the admission warning and the HttpdServer's condition say it alike."""
    counts = Counter(f.code for f in findings)
    return (f"{_plural(sum(counts.values()), 'finding')} {why} "
            f"({', '.join(f'{c} x{n}' for c, n in sorted(counts.items()))})")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _printable(text: str) -> str:
    """One line with every character a terminal could act on (escapes, controls, bidi overrides,
    U+2028) shown as ``?``: kubectl prints a denial raw, and its text quotes the user's input."""
    text = _one_line(text)
    return text if text.isprintable() else "".join(ch if ch.isprintable() else "?" for ch in text)


def denial_text(
    mode: Mode, lines: list[str], *, what: str = "must be fixed for httpd 2.4", limit: int = MAX_DENIAL_LINES
) -> str:
    """First line: how many problems and the mode; then one printable line each, capped."""
    head = f"{_plural(len(lines), 'problem')} {what} (httpd24 mode: {mode}):"
    shown = [_printable(line) for line in lines[:limit]]
    out = [head, *shown]
    if len(lines) > len(shown):
        out.append(f"... and {len(lines) - len(shown)} more (httpd24 lint shows all)")
    return "\n".join(out)


def clip(text: str, width: int = WARNING_WIDTH) -> str:
    """One printable ASCII line of at most ``width`` characters (kubectl prints warnings raw)."""
    text = _one_line(text)
    if not (text.isascii() and text.isprintable()):
        text = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)
    return text if len(text) <= width else text[: width - 3] + "..."


def finding_warning(finding: Finding, width: int = WARNING_WIDTH) -> str:
    """:func:`finding_line` in at most ``width`` characters: the message is shortened first."""
    full = clip(finding_line(finding), 10 * width)
    if len(full) <= width:
        return full
    head = clip(f"{finding.file}:{finding.line}: {finding.code}", width // 2) + " "
    tail = " -> " + clip(finding.replacement, width // 3) if finding.replacement else ""
    room = width - len(head) - len(tail)
    return head + clip(finding.message, max(room, 4)) + tail


def finding_warnings(findings: list[Finding], mode: Mode, *, limit: int = MAX_WARNINGS) -> list[str]:
    """One warning per finding, each at most 120 characters, with a summary first when there are many."""
    if len(findings) <= limit:
        return [finding_warning(f) for f in findings]
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    what = f"{_plural(len(findings), 'finding')} ({_plural(errors, 'error')})"
    return _capped(what, [finding_warning(f) for f in findings[: limit - 1]], len(findings), mode, limit)


def problem_warnings(problems: list[Problem], mode: Mode, *, limit: int = MAX_WARNINGS) -> list[str]:
    """:func:`finding_warnings` for input httpd cannot read (warn mode allows it, and says so)."""
    lines = [clip(f"httpd24 (mode {mode}): {p}") for p in problems]
    if len(lines) <= limit:
        return lines
    return _capped(_plural(len(lines), "problem") + " httpd cannot read", lines[: limit - 1], len(lines), mode, limit)


def _capped(what: str, shown: list[str], total: int, mode: Mode, limit: int) -> list[str]:
    """A summary, the first ``limit - 1`` warnings, and how many more: the apiserver keeps 4 KiB of warnings."""
    summary = clip(f"httpd24 (mode {mode}): {what}; first {limit - 1} shown, httpd24 lint shows all")
    return [summary, *shown, clip(f"... and {total - len(shown)} more (httpd24 lint shows all)")]


def counts(findings: Iterable[Finding]) -> str:
    """``HT101=2,HT501=1``: codes and counts, sorted by code."""
    return _format_counts(Counter(f.code for f in findings))


# -- original text -----------------------------------------------------------------------------------
def encode_original(files: Mapping[str, bytes]) -> str:
    """base64 of a gzip'ed tar holding the files (deterministic: same input, same text)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for key in sorted(files):
                info = tarfile.TarInfo(key)
                info.size = len(files[key])
                info.mode = 0o644
                info.mtime = 0
                tar.addfile(info, io.BytesIO(files[key]))
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def decode_original(text: str) -> dict[str, bytes]:
    """The files kept by :func:`encode_original`; raises ValueError with a reason on bad input."""
    try:
        raw = base64.b64decode(text, validate=True)
        out: dict[str, bytes] = {}
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as tar:
            for member in tar.getmembers():
                handle = tar.extractfile(member)
                if handle is not None:
                    out[member.name] = handle.read()
        return out
    except (binascii.Error, tarfile.TarError, OSError, EOFError) as error:
        raise ValueError(f"{ANN_ORIGINAL} is not a base64 tar.gz: {error}") from None


# -- decisions ------------------------------------------------------------------------------------------
@dataclass
class Decision:
    allowed: bool
    mode: Mode
    stage: Stage
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    #: Changes to write: data / binaryData keys -> new value; annotations -> value (None removes).
    data: dict[str, str] = field(default_factory=dict)
    binary_data: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str | None] = field(default_factory=dict)
    #: Findings on the text that will be stored (for metrics and annotations); :class:`Counted` once
    #: a review worker sent the decision (:func:`portable`).
    findings: list[Finding | Counted] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    applied: list[Finding | Counted] = field(default_factory=list)
    #: "allowed", "denied", "migrated", "skipped", "unchanged" (an update that left the configuration as it was)
    result: str = "allowed"

    def json_patch(self, body: Mapping[str, Any]) -> list[dict[str, Any]]:
        """RFC 6902 operations that apply :attr:`data`, :attr:`binary_data` and :attr:`annotations`."""
        ops: list[dict[str, Any]] = []
        for section, changes in (("data", self.data), ("binaryData", self.binary_data)):
            if not changes:
                continue
            current = body.get(section)
            if not isinstance(current, Mapping):
                ops.append({"op": "add", "path": f"/{section}", "value": dict(changes)})
                continue
            for key, value in changes.items():
                op = "replace" if key in current else "add"
                ops.append({"op": op, "path": f"/{section}/{_pointer(key)}", "value": value})
        if self.annotations:
            meta = body.get("metadata") if isinstance(body.get("metadata"), Mapping) else {}
            current = meta.get("annotations")
            if not isinstance(current, Mapping):
                value = {k: v for k, v in self.annotations.items() if v is not None}
                if value:
                    if "metadata" not in body:
                        ops.append({"op": "add", "path": "/metadata", "value": {}})
                    ops.append({"op": "add", "path": "/metadata/annotations", "value": value})
            else:
                for key, value in self.annotations.items():
                    path = f"/metadata/annotations/{_pointer(key)}"
                    if value is None:
                        if key in current:
                            ops.append({"op": "remove", "path": path})
                    elif current.get(key) != value:
                        ops.append({"op": "replace" if key in current else "add", "path": path, "value": value})
        return ops


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def labelled(obj: Any) -> bool:
    """Whether an object (any shape) carries ``httpd24.io/config: "true"``: a ConfigMap under review."""
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    labels = meta.get("labels") if isinstance(meta, Mapping) else None
    return isinstance(labels, Mapping) and labels.get(LABEL_CONFIG) == "true"


def record_of(stored: Mapping[str, Any] | None) -> dict[str, str]:
    """The webhook's record on a stored object (an UPDATE's ``oldObject``): its :data:`WRITTEN_ANNOTATIONS`.

    The review keeps these, not what a request sends: otherwise a manifest, a ``kubectl annotate`` or a
    server-side apply that drops them would forge or remove the original the README's command prints, the
    codes migrated, or the finding counts the HttpdServer status shows. Empty for a create, and for an
    object that was not under review (no label): what it holds was never the webhook's.
    """
    if not labelled(stored):
        return {}
    annotations = _annotations(stored)
    return {key: annotations[key] for key in WRITTEN_ANNOTATIONS if isinstance(annotations.get(key), str)}


def _record(decision: Decision, analysis_findings: list[Finding], problems: list[Problem], mode: Mode,
            record: Mapping[str, str]) -> None:
    """The review's annotations; the original and the codes migrated stay as the stored object has them
    (:func:`record_of`; removed when it has none), unless this migration writes them anew."""
    for key in (ANN_ORIGINAL, ANN_MIGRATED):
        decision.annotations[key] = record.get(key)
    decision.annotations[ANN_REVIEWED_MODE] = str(mode)
    if problems:
        decision.annotations[ANN_FINDINGS] = "-1"
        decision.annotations[ANN_ERRORS] = str(len(problems))
        decision.annotations[ANN_FINDINGS_BY_CODE] = "parse-error=" + str(len(problems))
        return
    decision.annotations[ANN_FINDINGS] = str(len(analysis_findings))
    decision.annotations[ANN_ERRORS] = str(sum(1 for f in analysis_findings if f.severity is Severity.ERROR))
    decision.annotations[ANN_FINDINGS_BY_CODE] = counts(analysis_findings)


def _problem_denial(mode: Mode, problems: list[Problem]) -> str:
    return denial_text(mode, [str(p) for p in problems], what="in a config httpd cannot read")


def review(
    body: Mapping[str, Any],
    *,
    mode: Mode,
    stage: Stage,
    notes: Iterable[str] = (),
    defaults: DefaultsPolicy = None,
    ignored: Ignored = Ignored(),
    name: str | None = None,
    namespace: str | None = None,
    record: Mapping[str, str] | None = None,
) -> Decision:
    """The decision for one admission request on a ConfigMap body.

    ``notes`` are warnings from resolving the mode (an annotation asking for a
    weaker mode, a bad label); they go back as admission warnings by the
    validating stage. ``record``: :func:`record_of` the stored object (None for a create).
    """
    notes = list(notes)
    migrating = mode is Mode.MIGRATE and stage == "mutate"
    analysis = analyze(body, migrate=migrating, notes=notes, defaults=defaults, ignored=ignored)
    decision = Decision(allowed=True, mode=mode, stage=stage)
    decision.problems = list(analysis.problems)
    if stage == "mutate":
        return _mutate(decision, analysis, mode, body, record or {}, name, namespace)
    return _validate(decision, analysis, mode, notes)


#: What the review reads of a ConfigMap besides its data and binaryData.
INPUT_ANNOTATIONS = (ANN_MODE, *LAYOUT_ANNOTATIONS)
UNCHANGED_WARNING = ("httpd24: the configuration is unchanged by this update, so it is let through as stored "
                     "(`httpd24 lint` reviews it)")


def unchanged_input(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> bool:
    """Whether an UPDATE leaves what the review reads as it was, or finishes a deletion.

    Such an update cannot make the configuration worse: denying it would only stop other tools from
    labelling a ConfigMap stored before the namespace's mode got stricter, and a finalizer from being
    removed (the ConfigMap would never go). Kyverno lets existing violations through the same way.
    The label that puts a ConfigMap under review counts as input: labelling one is its first review.
    """
    if not isinstance(old, Mapping):
        return False
    meta, old_meta = new.get("metadata") or {}, old.get("metadata") or {}
    if meta.get("deletionTimestamp"):
        return True
    if any((new.get(section) or {}) != (old.get(section) or {}) for section in ("data", "binaryData")):
        return False
    if (meta.get("labels") or {}).get(LABEL_CONFIG) != (old_meta.get("labels") or {}).get(LABEL_CONFIG):
        return False
    annotations, old_annotations = meta.get("annotations") or {}, old_meta.get("annotations") or {}
    return all(annotations.get(key) == old_annotations.get(key) for key in INPUT_ANNOTATIONS)


def unchanged(mode: Mode, stage: Stage, record: Mapping[str, str]) -> Decision:
    """The decision for an update that leaves the configuration as it was (:func:`unchanged_input`): the
    mutating stage puts the webhook's record back as stored (``record``, :func:`record_of`), whatever the
    update did to those annotations."""
    decision = Decision(allowed=True, mode=mode, stage=stage, result="unchanged",
                        warnings=[UNCHANGED_WARNING] if stage == "validate" else [])
    if stage == "mutate":
        decision.annotations = {key: record.get(key) for key in WRITTEN_ANNOTATIONS}
    return decision


def _mutate(decision: Decision, analysis: Analysis, mode: Mode, body, record: Mapping[str, str], name,
            namespace) -> Decision:
    if analysis.problems:
        if mode >= Mode.MIGRATE:
            decision.allowed = False
            decision.result = "denied"
            decision.message = _problem_denial(mode, analysis.problems)
            return decision
        _record(decision, [], analysis.problems, mode, record)
        return decision
    if mode is not Mode.MIGRATE:
        decision.findings = analysis.findings
        _record(decision, analysis.findings, [], mode, record)
        return decision
    # migrate: deny what cannot be fixed safely, rewrite the rest.
    remaining_errors = [f for f in analysis.remaining if f.severity is Severity.ERROR]
    if remaining_errors:
        codes = {f.code for f in remaining_errors}
        # Report them where the user wrote them: the original text's findings of those codes that
        # have no fix at the migrate applicability.
        unfixable = [
            f for f in analysis.errors
            if f.code in codes and (f.fix is None or f.fix.applicability < Applicability.PRESERVE)
        ]
        lines = [finding_line(f) for f in (unfixable or remaining_errors)]
        decision.allowed = False
        decision.result = "denied"
        decision.findings = analysis.findings
        decision.message = denial_text(mode, lines, what="cannot be migrated safely")
        return decision
    decision.findings = analysis.remaining
    decision.applied = analysis.applied
    _record(decision, analysis.remaining, [], mode, record)
    if not analysis.migrated:
        return decision
    # The original of a key is the text before httpd24 first changed it, kept on later updates: an
    # edit of migrated text must not make that text the "original", and httpd24 cannot tell such an
    # edit from new text (the user's newest text is in their manifest; the first one only here).
    # Keys migrated for the first time are added; originals of keys that are gone are dropped.
    kept = _kept_original(record)
    originals = {key: text for key, text in kept.items() if key in analysis.files}
    for key in analysis.migrated:
        originals.setdefault(key, analysis.files[key])
    original = encode_original(originals)
    # A key sent again as its original (the same manifest applied again) is migrated afresh: its codes
    # replace those of its first migration instead of adding to them, so the object comes out as stored.
    afresh = {key for key in analysis.migrated if kept.get(key) == analysis.files[key]}
    earlier = _parse_counts(record.get(ANN_MIGRATED)) if kept else Counter()
    earlier -= Counter(f.code for f in analysis.applied if f.file in afresh)
    for key, data in analysis.migrated.items():
        if analysis.origin.get(key) == "binaryData":
            decision.binary_data[key] = base64.b64encode(data).decode("ascii")
        else:
            decision.data[key] = data.decode("utf-8", "surrogateescape")
    decision.annotations[ANN_MIGRATED] = _format_counts(earlier + Counter(f.code for f in analysis.applied))
    decision.annotations[ANN_ORIGINAL] = original
    too_large = None
    size = _data_size(body, decision.data, decision.binary_data)
    if size > CONFIGMAP_LIMIT:
        too_large = (f"the migrated ConfigMap would hold {size} bytes of data and binaryData "
                     f"(limit {CONFIGMAP_LIMIT}); make it smaller or split it (`httpd24 migrate` shows the migrated text)")
    else:
        size = _annotations_size(body, decision.annotations)
        if size > ANNOTATIONS_LIMIT:
            too_large = (f"{analysis.layout.entry}: the original text cannot be kept in the object: annotations would "
                         f"take {size} bytes (limit {ANNOTATIONS_LIMIT}); run `httpd24 migrate` and apply its output, "
                         "or split the ConfigMap")
    if too_large:
        decision.allowed = False
        decision.result = "denied"
        decision.data.clear()
        decision.binary_data.clear()
        decision.message = denial_text(mode, [too_large], what="cannot be migrated safely")
        return decision
    decision.result = "migrated"
    decision.warnings.append(
        clip(f"httpd24 migrated {counts(analysis.applied)}; the original is kept in annotation {ANN_ORIGINAL}")
    )
    if name and namespace:
        show = original_command(name, namespace)
        if len(show) <= WARNING_WIDTH:
            decision.warnings.append(show)
    return decision


def original_command(name: str, namespace: str) -> str:
    """The shell one-liner that prints the original text of a migrated ConfigMap."""
    return (
        f"kubectl get cm {name} -n {namespace} -o jsonpath='{{.metadata.annotations.httpd24\\.io/original}}'"
        "|base64 -d|tar xzO"
    )


def _kept_original(record: Mapping[str, str]) -> dict[str, bytes]:
    """The originals an earlier migration kept in the object ({} when none, or when they do not decode)."""
    text = record.get(ANN_ORIGINAL)
    if not isinstance(text, str):
        return {}
    try:
        return decode_original(text)
    except ValueError:
        return {}


def _parse_counts(text: object) -> Counter:
    """``HT101=2,HT501=1`` back into counts (parts that are not ``CODE=N`` are dropped)."""
    out: Counter = Counter()
    for part in text.split(",") if isinstance(text, str) else ():
        code, _, number = part.strip().partition("=")
        if code and number.isdigit():
            out[code] += int(number)
    return out


def _format_counts(tally: Counter) -> str:
    return ",".join(f"{code}={n}" for code, n in sorted(tally.items()))


def _utf8_size(text: object) -> int:
    """Bytes, as the apiserver (Go) counts a string: lone surrogates from JSON count as U+FFFD would."""
    return len(str(text).encode("utf-8", "surrogatepass"))


def _data_size(body: Mapping[str, Any], data: Mapping[str, str], binary_data: Mapping[str, str]) -> int:
    """The size the apiserver checks against 1 MiB: data values in UTF-8 bytes plus decoded binaryData values."""
    total = 0
    current = body.get("data")
    merged = {**(current if isinstance(current, Mapping) else {}), **data}
    total += sum(_utf8_size(v) for v in merged.values() if isinstance(v, str))
    current = body.get("binaryData")
    merged = {**(current if isinstance(current, Mapping) else {}), **binary_data}
    for value in merged.values():
        try:
            total += len(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError, TypeError):
            total += _utf8_size(value)  # the review denied it before getting here
    return total


def _annotations_size(body: Mapping[str, Any], changes: Mapping[str, str | None]) -> int:
    """Keys and values in bytes, as apimachinery's ValidateAnnotationsSize counts them."""
    merged = dict(_annotations(body))
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return sum(_utf8_size(k) + _utf8_size(v) for k, v in merged.items())


def _validate(decision: Decision, analysis: Analysis, mode: Mode, notes: list[str]) -> Decision:
    # Never invisible: the CI log shows what the ConfigMap's own comments, or a policy, let through.
    if analysis.silenced:
        notes = notes + ["httpd24: " + tally(analysis.silenced, "silenced by `# httpd24: ignore` marks in the configuration")]
    if analysis.excluded:
        notes = notes + ["httpd24: " + tally(analysis.excluded, f"left out by {analysis.layout.ignored.by}")]
    if analysis.skipped:  # never silent either: these keys are not reviewed
        notes = notes + [f"httpd24: not configuration and no Include reaches them, left alone: "
                         f"{', '.join(analysis.skipped)}"]
    decision.warnings.extend(clip(n) for n in notes)
    if analysis.problems:
        if mode >= Mode.MIGRATE:
            decision.allowed = False
            decision.result = "denied"
            decision.message = _problem_denial(mode, analysis.problems)
        elif mode is Mode.WARN:
            decision.warnings.extend(problem_warnings(analysis.problems, mode))
        return decision
    findings = analysis.findings
    decision.findings = findings
    if mode is Mode.AUDIT:
        return decision
    if mode is Mode.WARN:
        decision.warnings.extend(finding_warnings(findings, mode))
        return decision
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        decision.allowed = False
        decision.result = "denied"
        decision.message = denial_text(mode, [finding_line(f) for f in errors])
        decision.warnings = [clip(n) for n in notes]
        return decision
    decision.warnings.extend(finding_warnings(findings, mode))
    return decision


class Counted(NamedTuple):
    """A finding as the webhook's process reads it: its metrics count codes. A tuple crosses the
    process boundary for a fraction of a Finding's cost (a 1,000-line review's hundred findings
    took more to pickle and unpickle than the rest of the decision)."""

    code: str
    file: str
    line: int


def portable(decision: Decision) -> Decision:
    """The decision as a review worker sends it back (pickled): findings as :class:`Counted`, which
    hold no fix (its callable holds the parsed tree) and are cheap to unpickle in the webhook's one
    event loop."""
    decision.findings = [Counted(f.code, f.file, f.line) for f in decision.findings]
    decision.applied = [Counted(f.code, f.file, f.line) for f in decision.applied]
    return decision


def review_portable(body: Mapping[str, Any], kwargs: Mapping[str, Any]) -> Decision:
    """:func:`review` for a worker process: arguments and result are picklable."""
    kwargs = dict(kwargs)
    kwargs["mode"] = Mode(kwargs["mode"])
    return portable(review(body, **kwargs))


# -- AdmissionReview envelopes ------------------------------------------------------------------------------
def check_review(data: object) -> str | None:
    """None for a well-formed AdmissionReview request, else the reason it is not (for a 400)."""
    if not isinstance(data, Mapping):
        return f"an AdmissionReview must be a JSON object, got {type(data).__name__}"
    if data.get("kind") != "AdmissionReview":
        return f"kind must be AdmissionReview, got {data.get('kind')!r}"
    if data.get("apiVersion") not in ("admission.k8s.io/v1", "admission.k8s.io/v1beta1"):
        return f"apiVersion must be admission.k8s.io/v1 or v1beta1, got {data.get('apiVersion')!r}"
    request = data.get("request")
    if not isinstance(request, Mapping):
        return "AdmissionReview.request is missing or not an object"
    if not isinstance(request.get("uid"), str) or not request.get("uid"):
        return "AdmissionReview.request.uid is missing"
    resource = request.get("resource")
    if not isinstance(resource, Mapping) or not all(isinstance(resource.get(k), str) for k in ("group", "version", "resource")):
        return "AdmissionReview.request.resource must have string group, version and resource"
    if not isinstance(request.get("userInfo"), Mapping):
        return "AdmissionReview.request.userInfo is missing"
    new, old = request.get("object"), request.get("oldObject")
    if new is None and old is None:
        return "AdmissionReview.request has neither object nor oldObject"
    for name, value in (("object", new), ("oldObject", old)):
        if value is not None and not isinstance(value, Mapping):
            return f"AdmissionReview.request.{name} must be an object"
    if is_configmap_request(data):
        for name, value in (("object", new), ("oldObject", old)):
            reason = _configmap_shape(value)
            if reason:
                return f"AdmissionReview.request.{name}.{reason}"
    return None


def _configmap_shape(body: Mapping[str, Any] | None) -> str | None:
    """Where a ConfigMap has a map (as the apiserver's schema says) that is something else: no apiserver
    sends such a body, and the handlers read those maps before any review could report it."""
    if body is None:
        return None
    meta = body.get("metadata")
    parts = [("metadata", meta), ("data", body.get("data")), ("binaryData", body.get("binaryData"))]
    if isinstance(meta, Mapping):
        parts += [("metadata.labels", meta.get("labels")), ("metadata.annotations", meta.get("annotations"))]
    for name, value in parts:
        if value is not None and not isinstance(value, Mapping):
            return f"{name} must be an object, got {type(value).__name__}"
    return None


def is_configmap_request(data: Mapping[str, Any]) -> bool:
    resource = data["request"]["resource"]
    return resource.get("group") == "" and resource.get("resource") == "configmaps"


def other_kind_response(data: Mapping[str, Any]) -> dict[str, Any]:
    """Allow a request for something that is not a ConfigMap, saying the webhook is misconfigured."""
    request = data["request"]
    resource = request["resource"]
    what = "/".join(p for p in (resource.get("group"), resource.get("version"), resource.get("resource")) if p)
    return {
        "apiVersion": data.get("apiVersion", "admission.k8s.io/v1"),
        "kind": "AdmissionReview",
        "response": {
            "uid": request["uid"],
            "allowed": True,
            "warnings": [clip(f"httpd24 reviews only core/v1 configmaps, not {what}; check the webhook rules")],
        },
    }


def response(data: Mapping[str, Any], decision: Decision, body: Mapping[str, Any]) -> dict[str, Any]:
    """A complete AdmissionReview response for a decision (used by tests and the bench's direct path)."""
    out: dict[str, Any] = {"uid": data["request"]["uid"], "allowed": decision.allowed}
    if decision.warnings:
        out["warnings"] = list(decision.warnings)
    if not decision.allowed:
        out["status"] = {"code": 403, "message": decision.message, "reason": "Forbidden"}
    elif decision.stage == "mutate":
        ops = decision.json_patch(body)
        if ops:
            out["patchType"] = "JSONPatch"
            out["patch"] = base64.b64encode(json.dumps(ops).encode()).decode("ascii")
    return {"apiVersion": data.get("apiVersion", "admission.k8s.io/v1"), "kind": "AdmissionReview", "response": out}

"""``httpd24``: lint, migrate and size httpd 2.2 configurations for 2.4.

Exit codes (every command): 0 success / nothing to report; 1 findings at or
above ``--fail-on`` (lint), something would change (``migrate --check``),
findings that need a person remain (``migrate``: errors and warnings, not
notes), or ``--verify`` found a difference; 2 usage errors, unreadable input or
configurations httpd could not parse.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import sys
import tempfile
from typing import Iterable, Sequence

from . import __version__, inputs, report, settings
from .config import ParseError, Target
from .config.gcpause import gc_paused
from .engine import Applicability, Finding, Severity, Source, all_rules, get, lint, migrate, names_a_rule
from .engine.runner import Migration

#: --fail-on: the least severity rank (engine.Severity.rank) that fails the run.
FAIL_ON = dict(zip(settings.FAIL_ON, (2, 1, 0, 99)))


class Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal and the run is long."""

    def __init__(self, total: int, label: str, stream=None, minimum: int = 8) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.label = label
        self.done = 0
        self.active = total >= minimum and getattr(self.stream, "isatty", lambda: False)()

    def step(self, what: str = "") -> None:
        self.done += 1
        if not self.active:
            return
        width = 30
        filled = int(width * self.done / self.total)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {what[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        if self.active:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def _rule_codes(value: str) -> list[str]:
    """``--select``/``--ignore``: comma-separated codes or prefixes. One that names no rule is a usage
    error, as in ruff: a typo (``HT5O1``) would otherwise select nothing and pass CI."""
    codes = [code.strip().upper() for code in value.split(",") if code.strip()]
    if not codes:  # `--select "$CODES"` with CODES unset would otherwise select every rule
        raise argparse.ArgumentTypeError("give at least one rule code or prefix (`httpd24 rules` lists them)")
    for code in codes:
        if not names_a_rule(code):
            raise argparse.ArgumentTypeError(f"{code} is no rule code or prefix (`httpd24 rules` lists them)")
    return codes


def _split_codes(values: Sequence[list[str]] | None) -> list[str] | None:
    """The codes of every ``--select`` (or ``--ignore``) given; None when there were none."""
    return [code for codes in values or () for code in codes] or None


def _release(value: str) -> tuple[int, int, int]:
    """``--target-version``: the rules, the module table and <IfVersion> are judged for a 2.4 release."""
    version = settings.release(value)
    if version is None:
        raise argparse.ArgumentTypeError(f"{value!r}: give a 2.4 release as major.minor.patch, e.g. 2.4.62")
    return version


def _settle(args: argparse.Namespace) -> None:
    """Fill what the command line left open from the settings file (:mod:`.settings`), then the defaults;
    but ``--defaults`` and ``--source-version``, which a ConfigMap's annotations may say for each source
    (:func:`_judged_as`). Raises :class:`settings.SettingsError`."""
    path = None if args.isolated else args.config or settings.find(os.getcwd())
    found = settings.load(path) if path else settings.Settings()
    args.settings = found
    if hasattr(args, "select"):
        args.select = args.select or ([found.select] if found.select else None)
        args.ignore = args.ignore or ([found.ignore] if found.ignore else None)
    if hasattr(args, "fail_on"):
        args.fail_on = args.fail_on or found.fail_on or "error"
    args.target_version = args.target_version or found.target_version
    args.server_root = args.server_root or found.server_root
    args.module = args.module or found.modules
    args.define = args.define or found.defines


def _judged_as(args: argparse.Namespace, source: inputs.Source) -> tuple[str | None, str]:
    """(defaults, source version) to judge ``source`` by: a flag given on the command line; else what a
    ConfigMap's ``httpd24.io/defaults`` or ``httpd24.io/source-version`` annotation says, as the admission
    webhook applies it (the ConfigMap says it of itself, the settings file of the whole repository); else
    the settings file; else the defaults (each changed-default rule's own decision, ``auto``)."""
    found = args.settings
    defaults = args.defaults or source.defaults or found.defaults
    return defaults, args.source_version or source.source_version or found.source_version or "auto"


def _exclude(args: argparse.Namespace, source: inputs.Source):
    """The settings file's ``per-file-ignores`` for the files of ``source``, as the engine takes them."""
    found = args.settings
    if not found.per_file_ignores:
        return None
    return lambda finding: found.ignored_in(source.display(finding.file), finding.code)


def _target(args: argparse.Namespace) -> Target:
    version = args.target_version or (2, 4, 62)
    modules = frozenset(args.module) if args.module else None
    defines = frozenset(args.define) if args.define else None
    return Target(version=version, modules=modules, defines=defines)  # type: ignore[arg-type]


def _sources(
    paths: Sequence[str], err, stdin_name: str | None = None, server_root: str | None = None
) -> tuple[list[inputs.Source], bool]:
    """The configurations of ``paths``; ``-`` is standard input, read as the file ``stdin_name`` (its
    extension tells a manifest; its Includes are looked up from the working directory).

    A file that another argument's Includes reach is checked there, in its context, and not again
    on its own (``httpd24 lint httpd.conf conf.d/*.conf`` from a pre-commit hook reports each once).
    """
    sources: list[inputs.Source] = []
    streams: set[int] = set()  # ids of the sources read from standard input or a pipe: no path to compare
    failed = False
    if list(paths).count("-") > 1:
        err.write("httpd24: - (standard input) can be given once\n")
        return [], True
    for path in paths:
        errors: list[inputs.InputError] = []  # a directory's manifests that could not be read
        try:
            if path == "-":
                loaded = inputs.from_stream(stdin_name or "-", sys.stdin.buffer, server_root=server_root)
            else:
                loaded = inputs.load(path, server_root=server_root, errors=errors)
        except inputs.InputError as error:
            errors, loaded = [error], []
        for error in errors:
            err.write(f"httpd24: {error}\n")
            failed = True
        for source in loaded:
            for note in source.notes:
                err.write(f"httpd24: {source.label}: {note}\n")
            for name, reason in sorted(getattr(source.configset, "skipped", {}).items()):
                err.write(f"httpd24: {source.display(name)}: not read ({reason})\n")
        sources.extend(loaded)
        if inputs.is_stream(path):
            streams.update(id(source) for source in loaded)
    return _without_included(_read_once(sources, streams)), failed


def _files_read(source: inputs.Source) -> frozenset[str]:
    """What ``source`` reads, by real path: its files (a ConfigMap: its manifest and index)."""
    if source.kind == "configmap":
        if source.manifest is None:
            return frozenset()
        return frozenset({f"{os.path.realpath(source.manifest)}[{source.manifest_index}]"})
    return frozenset(os.path.realpath(path) for path in source.paths.values())


def _read_once(sources: list[inputs.Source], streams: set[int]) -> list[inputs.Source]:
    """The sources but those whose files another argument reads already, so that each file is checked
    (and written) once, in its widest context: the same path spelled twice (``x.conf ./x.conf``), a
    file or directory inside a directory given too (``migrate --write DIR DIR/x.conf`` migrated x.conf
    twice, and the later, out-of-context result was written over the first), the same manifest twice.

    A source goes when another one reads all its files and more, or the same files and comes first.
    Two file arguments are the same only when they are the same file: files that Include each other
    read the same set, yet each is an entry (:func:`_without_included` decides between them).
    Standard input and pipes are never compared: their text need not be the file's.
    """
    reads = {id(s): _files_read(s) for s in sources}
    holding: dict[str, list[tuple[int, inputs.Source]]] = {}
    for order, source in enumerate(sources):
        if id(source) not in streams:
            for path in reads[id(source)]:
                holding.setdefault(path, []).append((order, source))
    kept = []
    for order, source in enumerate(sources):
        mine = reads[id(source)]
        if id(source) in streams or not mine:
            kept.append(source)
            continue
        anchor = os.path.realpath(source.label) if source.kind == "file" else next(iter(mine))
        covered = False
        for other_order, other in holding.get(anchor, ()):
            if other is source or (source.kind == "configmap") != (other.kind == "configmap"):
                continue
            if source.kind == "file" and other.kind == "file" and os.path.realpath(other.label) != anchor:
                continue
            theirs = reads[id(other)]
            if mine <= theirs and (mine != theirs or other_order < order):
                covered = True
                break
        if not covered:
            kept.append(source)
    return kept


def _without_included(sources: list[inputs.Source]) -> list[inputs.Source]:
    """The sources but the file arguments that another file argument's Includes reach (unless they reach
    it back: files that include each other are an Include cycle, reported by each)."""
    files = [s for s in sources if s.kind == "file"]
    entry = {id(s): os.path.realpath(s.label) for s in files}
    reach = {id(s): {os.path.realpath(shown) for name, shown in s.paths.items() if name != s.configset.entry}
             for s in files}
    reached_by: dict[str, list[inputs.Source]] = {}
    for source in files:
        for path in reach[id(source)]:
            reached_by.setdefault(path, []).append(source)
    return [
        s for s in sources
        if s.kind != "file" or not any(
            other is not s and entry[id(other)] not in reach[id(s)] for other in reached_by.get(entry[id(s)], ())
        )
    ]


def _report_parse_errors(source: inputs.Source, errors: Iterable[ParseError], err) -> bool:
    reported = False
    for error in errors:
        where = f"{error.line}:{error.column}:" if error.line else ""  # a whole value (a ConfigMap key): no line
        err.write(f"{source.display(error.file)}:{where} error: {error.shown(source.key)}\n")
        reported = True
    return reported


def _report_source(source: inputs.Source, judged: Source | None, err) -> None:
    """Say so when the configuration's own lines showed it ran on 2.4: some rules were left out."""
    if judged is not None and judged.ran_on_24 and judged.evidence is not None:
        err.write(f"httpd24: {source.label}: ran on httpd 2.4 already ({judged.reason(source.display)}): the rules "
                  "about what 2.2 did are left out (--source-version 2.2 applies them)\n")


def _located(source: inputs.Source, finding: Finding, on_file: bool) -> tuple[str, Finding]:
    """The file a finding is reported in, and the finding. ``on_file`` (SARIF, GitHub annotations): in a
    file of the repository at its own line, a ConfigMap's in its manifest (:meth:`inputs.Source.on_file`),
    the message naming the place in the value when the manifest's line cannot."""
    if not on_file:
        return source.display(finding.file), finding
    file, line, column, inside = source.on_file(finding.file, finding.line, finding.column)
    message = f"{inside}: {finding.message}" if inside else finding.message
    return file, dataclasses.replace(finding, line=line, column=column, message=message)


# -- lint -------------------------------------------------------------------------------------
def cmd_lint(args: argparse.Namespace, out, err) -> int:
    sources, failed = _sources(args.paths, err, args.stdin_filename, args.server_root)
    target = _target(args)
    select, ignore = _split_codes(args.select), _split_codes(args.ignore)
    collected: list[tuple[str, Finding]] = []
    silenced: list[tuple[str, Finding]] = []
    in_manifest: list[dict | None] = []  # --format json: where each finding of `collected` is in its manifest
    progress = Progress(len(sources), "lint")
    for source in sources:
        failed |= _report_parse_errors(source, source.configset.errors, err)
        quiet: list[Finding] = []
        judged: list[Source] = []
        defaults, source_version = _judged_as(args, source)
        try:
            findings = lint(source.configset, target=target, select=select, ignore=ignore, defaults=defaults,
                            silenced=quiet, source_version=source_version, judged=judged,
                            exclude=_exclude(args, source))
        except ParseError as error:  # an Include cycle
            failed |= _report_parse_errors(source, [error], err)
            findings = []
        _report_source(source, judged[0] if judged else None, err)
        on_file = args.format in ("sarif", "github")
        collected.extend(_located(source, f, on_file) for f in findings)
        silenced.extend(_located(source, f, on_file) for f in quiet)
        if args.format == "json":
            in_manifest.extend(source.in_manifest(f.file, f.line, f.column) for f in findings)
        progress.step(source.label)
    progress.close()
    if args.format == "json":
        out.write(report.as_json(collected, in_manifest) + "\n")
    elif args.format == "sarif":
        out.write(report.as_sarif(collected, silenced) + "\n")
    elif args.format == "github":
        out.write(report.as_github(collected) + ("\n" if collected else ""))
    else:
        for file, finding in collected:
            out.write(report.text_line(finding, file) + "\n")
        if (collected or silenced) and not args.quiet:
            fixable = sum(1 for _, f in collected if f.fixable)
            counts = {s: sum(1 for _, f in collected if f.severity is s) for s in Severity}
            quiet_note = f" {len(silenced)} more silenced by `# httpd24: ignore` marks." if silenced else ""
            err.write(
                f"Found {len(collected)} finding(s): {counts[Severity.ERROR]} error, {counts[Severity.WARNING]} warning, "
                f"{counts[Severity.INFO]} info; {fixable} fixable with `httpd24 migrate` (marked [*]).{quiet_note}\n"
            )
    if failed:
        return 2
    threshold = FAIL_ON[args.fail_on]
    return 1 if any(f.severity.rank >= threshold for _, f in collected) else 0


# -- migrate ----------------------------------------------------------------------------------
def _diff(source: inputs.Source, migration: Migration, shown_before: dict[object, tuple[str, bytes]], err) -> str:
    """The changed files as one unified diff that patch(1) applies. A file on disk read under two names (a link,
    or two arguments including it) is shown once: patch found its second copy of the change applied already and
    refused it. ``shown_before``: each file shown so far in this run, by :func:`_file_identity`, with the name it
    was shown under and its migrated text; one whose text differs under another name is said on ``err``."""
    chunks = []
    for name in sorted(migration.changed):
        path = source.paths.get(name)
        if path is not None:
            identity = _file_identity(path)
            if identity in shown_before:
                other, text = shown_before[identity]
                if text != migration.files[name]:
                    line = _first_difference(migration.files[name], text)
                    err.write(f"httpd24: {source.display(name)}: not in the diff: it is one file with {other}, shown "
                              f"above, and its migrated text differs from there from line {line} -> apply the diff, "
                              f"then run `httpd24 migrate --diff {source.label}` again\n")
                continue
            shown_before[identity] = (source.display(name), migration.files[name])
        before = migration.original.get(name, b"").decode("utf-8", "surrogateescape")
        after = migration.files[name].decode("utf-8", "surrogateescape")
        shown = source.display(name)
        chunks.extend(
            difflib.unified_diff(
                _lines(before), _lines(after),
                f"a/{shown.lstrip('/')}", f"b/{shown.lstrip('/')}",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in chunks)


def _lines(text: str) -> list[str]:
    """Lines as patch(1) reads them, ending at \\n only: str.splitlines also breaks at \\r, \\f, \\v,
    \\x1c-\\x1e, \\x85 and \\u2028, and a diff cut there does not apply."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


class _Block(str):
    """A multi-line string written as a YAML literal block, as people write ConfigMaps."""


def _configmap_yaml(source: inputs.Source, migration: Migration) -> str:
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(
        _Block, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|" if "\n" in v else None)
    )
    # The bytes read at the start: the objects the migration is of (standard input has no file to reopen).
    objects = inputs.load_manifest_objects(source.manifest or source.label, source.manifest_data or b"")
    obj = dict(objects[source.manifest_index])
    # Each key back where it was: a binaryData key in data as well would be two values for one file.
    files = {source.key(name): data for name, data in migration.files.items()}
    binary = {key for key in files if source.origin.get(key) == "binaryData"}
    obj["data"] = {
        key: _Block(data.decode("utf-8", "surrogateescape")) for key, data in sorted(files.items()) if key not in binary
    }
    if binary or "binaryData" in obj:
        import base64

        kept = dict(obj.get("binaryData") or {})  # NUL-holding values (images) are not in migration.files
        kept.update({key: base64.b64encode(files[key]).decode("ascii") for key in sorted(binary)})
        obj["binaryData"] = kept
    return yaml.dump(obj, Dumper=Dumper, sort_keys=False, allow_unicode=True)


def _write(source: inputs.Source, migration: Migration, err, wrote: dict[str, bytes]) -> set[str]:
    """Write the changed files (each atomically, keeping its permissions); the names of those that could
    not be, each said on ``err`` with why. As ruff writes every fix it can, one file (or ConfigMap value)
    that cannot be written keeps no other from being written, but those that hold the other parts of
    its fixes (:func:`_linked`): written without it, they would mean what neither text meant.

    One file on disk read under two names (a link to it, a linked directory) is written once, through the
    link; when the two names' texts differ, or differ from what this run wrote to it for another argument,
    it is not written (:func:`_texts_differ`): either text would undo the other's fixes.

    A ConfigMap's manifest gets only its changed values replaced (:mod:`httpd24.manifest_edit`).
    ``wrote``: what this run has written so far, by real path: a manifest of several ConfigMaps is
    written once for each, and its own earlier write is not someone else's edit (:func:`_replace_file`).
    """
    if source.kind == "configmap":
        return _write_configmap(source, migration, err, wrote)
    unwritten = set()
    same = {name: _file_identity(path) for name, path in source.paths.items() if name in migration.files}
    names_of: dict[object, list[str]] = {}  # the names of each file on disk
    for name in sorted(same):
        names_of.setdefault(same[name], []).append(name)
    for group in _linked(migration, same):
        pathless = [name for name in group if name not in source.paths]
        if pathless:
            _no_path(source, migration, group, pathless, err)
            unwritten.update(group)
            continue
        if _texts_differ(source, migration, group, [names_of[same[name]] for name in group], wrote, err):
            unwritten.update(group)
            continue
        members: dict[object, tuple[str, bytes, bytes | None]] = {}
        for name in group:
            path = os.path.realpath(source.paths[name])
            before = _written(wrote, path)
            if same[name] in members or before == migration.files[name]:
                continue  # the same file, written once; or this text is in it already (another argument's)
            members[same[name]] = (path, migration.files[name], migration.original.get(name) if before is None else before)
        if not members:
            continue
        if len(members) == 1:
            [(path, data, expected)] = members.values()
            written = _replace_file(path, data, err, expected, wrote)
        else:
            written = _replace_files(list(members.values()), err, wrote, _codes_linking(migration, group))
        if not written:
            unwritten.update(group)
    return unwritten


def _written(wrote: dict[str, bytes], path: str) -> bytes | None:
    """What this run wrote to the file at ``path`` (a real path), under whichever name: each hard link of a file
    has its own real path, and an earlier argument may have written it through another."""
    if path in wrote:
        return wrote[path]
    for other, data in wrote.items():
        try:
            if os.path.samefile(other, path):
                return data
        except OSError:
            continue
    return None


def _file_identity(path: str) -> tuple[int, int] | str:
    """What one file is known by whatever its names: device and inode (a symbolic or a hard link, a linked
    directory), else, when it cannot be looked at (its write says why), its real path."""
    try:
        info = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return info.st_dev, info.st_ino


def _texts_differ(source: inputs.Source, migration: Migration, group: list[str], names: list[list[str]],
                  wrote: dict[str, bytes], err) -> bool:
    """Whether ``group`` holds a file that would be written with two texts: under two of its names (a fix made, or
    silenced by per-file-ignores, under one of them only), or other than the text this run wrote to it for an
    earlier argument that reads it too (each migrated it from what it read, so the later write dropped the
    earlier's fixes). Said with both names, the first line that differs, and what to do; the rest of the group
    is said not to be written either, as a half of a fix is never written (:func:`_linked`). ``names``: each
    name's file's names."""
    for name, names_of_file in zip(group, names):
        data = migration.files[name]
        twin = next((other for other in names_of_file if migration.files[other] != data), None)
        path = os.path.realpath(source.paths[name])
        if twin is not None:
            line = _first_difference(data, migration.files[twin])
            shown, other = source.display(name), source.display(twin)
            err.write(f"httpd24: {shown}: not written: it is one file with {other} ({path}, reached under both names "
                      f"through a link), and their migrated texts differ from line {line} ({shown}:{line}, "
                      f"{other}:{line}): a fix made, or ignored, under one name only; written as either, the other's "
                      "would be lost -> make the fixes agree for both names (a per-file-ignores pattern that matches "
                      "both, or none), or edit the file by hand from `httpd24 migrate --diff`\n")
        elif (before := _written(wrote, path)) is not None and before != data:
            line = _first_difference(data, before)
            err.write(f"httpd24: {source.display(name)}: not written for {source.label}: this run wrote it for another "
                      f"argument already, and its text there differs from this one's from line {line} -> run "
                      f"`httpd24 migrate --write {source.label}` again: it reads the file as it is now\n")
        else:
            continue
        _not_either(source, migration, group, [n for n in group if n not in names_of_file], source.display(name), err)
        return True
    return False


def _first_difference(one: bytes, other: bytes) -> int:
    """The number of the first line that differs between two texts (one past the shorter's last line)."""
    ones, others = one.split(b"\n"), other.split(b"\n")
    return next((index for index, (a, b) in enumerate(zip(ones, others), 1) if a != b), min(len(ones), len(others)) + 1)


def _no_path(source: inputs.Source, migration: Migration, group: list[str], pathless: list[str], err) -> None:
    """Say of each changed file of ``group`` that has no path on disk (it was not read from a file: a stand-in,
    a value from elsewhere) what would change in it and that it is not written, and of the others of the group
    that they are not written either, so that no half of a fix is: :func:`_write` writes none of them."""
    for name in pathless:
        codes = ", ".join(sorted({f.code for f in migration.applied if name in migration.files_of(f)})) or "none"
        err.write(f"httpd24: {source.display(name)}: not written: httpd24 has no file on disk to write it to (it was "
                  f"not read from one); its fixes ({codes}) change it -> print them with `httpd24 migrate --diff` "
                  "and apply that by hand\n")
    _not_either(source, migration, group, [name for name in group if name not in pathless],
                source.display(pathless[0]), err)


def _not_either(source: inputs.Source, migration: Migration, group: list[str], others: list[str], failed: str,
                err) -> None:
    """Say of ``others`` of ``group`` that they are not written either: a fix of the group edits them and
    ``failed``, which is not written."""
    codes = _codes_linking(migration, group)
    for name in others:
        err.write(f"httpd24: {source.display(name)}: not written either: its fix ({codes}) also edits {failed}, which "
                  "could not be written; it is left as it was\n")


def _linked(migration: Migration, same: dict[str, object] | None = None) -> list[list[str]]:
    """The changed files, in groups to be written together or not at all: the files one fix edited (HT113
    writes LogLevel into virtual hosts in other files), and so on through the fixes of those files.
    Written apart, a failed write would leave the other half of an edit on disk, which is a meaning
    neither the input nor the migration had. ``same``: what file on disk each name is; names of one file
    are one group, as it is written once for all of them. Files nothing links are each a group of their own."""
    changed = sorted(migration.changed)
    group = {name: name for name in changed}

    def root(name: str) -> str:
        while group[name] != name:
            group[name] = group[group[name]]
            name = group[name]
        return name

    def join(files: list[str]) -> None:
        for other in files[1:]:
            group[root(other)] = root(files[0])

    for finding in migration.applied:
        join(sorted(name for name in migration.files_of(finding) if name in group))
    by_file: dict[object, list[str]] = {}
    for name in changed:
        if same is not None and name in same:
            by_file.setdefault(same[name], []).append(name)
    for names in by_file.values():
        join(names)
    groups: dict[str, list[str]] = {}
    for name in changed:
        groups.setdefault(root(name), []).append(name)
    return list(groups.values())


def _codes_linking(migration: Migration, group: list[str]) -> str:
    """``HT113``: the codes whose fixes edited more than one of ``group``'s files."""
    inside = set(group)
    return ", ".join(sorted({f.code for f in migration.applied if len(migration.files_of(f) & inside) > 1}))


def _write_configmap(source: inputs.Source, migration: Migration, err, wrote: dict[str, bytes]) -> set[str]:
    """:func:`_write` for a ConfigMap: its changed values that can be edited in place are written. The
    manifest is edited by key; what is returned, as what :func:`_write` returns, by name in the set."""
    if not migration.changed or source.manifest is None:
        return set()
    from . import manifest_edit

    changed = {source.key(name): name for name in sorted(migration.changed)}
    refused: dict[str, str] = {}  # by key
    for key in changed:
        if source.origin.get(key) == "binaryData":
            # base64 is not edited in place: a person moves the value to data, or applies the printout
            refused[key] = ("a binaryData value, which --write does not edit in place -> move it to data as "
                            "text, or print the ConfigMap without --write and apply that")
    groups = [[source.key(name) for name in group] for group in _linked(migration) if len(group) > 1]

    def refuse_linked() -> None:
        """Half of a fix is not written either (see :func:`_linked`)."""
        for keys in groups:
            kept = next((key for key in keys if key in refused), None)
            for key in keys:
                if kept is not None and key not in refused:
                    codes = _codes_linking(migration, [changed[k] for k in keys])
                    refused[key] = (f"a fix in it ({codes}) also edits {kept}, which is not written either -> print "
                                    "the ConfigMap without --write and apply that")

    refuse_linked()
    expected = wrote.get(os.path.realpath(source.manifest), source.manifest_data)
    values: dict[str, str] = {}
    if len(refused) < len(changed):
        try:
            with open(source.manifest, "rb") as handle:
                raw = handle.read()
            if expected is not None and raw != expected:
                _changed_meanwhile(source.manifest, err)
                return set(migration.changed)
            text = raw.decode("utf-8")  # bytes, not newline translation: CRLF stays CRLF
            size = -1
            while size != len(refused) < len(changed):  # a value refused in place refuses those it is linked to
                size = len(refused)
                values = {key: migration.files[name].decode("utf-8") for key, name in changed.items()
                          if key not in refused}
                new = manifest_edit.rewrite(source.manifest, text, source.manifest_index, values, refused)
                refuse_linked()
        except (OSError, UnicodeDecodeError, manifest_edit.ManifestEditError) as error:
            err.write(f"httpd24: {source.label}: not written: {error}\n")
            return set(migration.changed)
    for key, why in sorted(refused.items()):
        err.write(f"httpd24: {source.display(changed[key])}: not written: {why}\n")
    if values.keys() - refused.keys() and not _replace_file(source.manifest, new.encode("utf-8"), err, raw, wrote):
        return set(migration.changed)
    return {changed[key] for key in refused}


def _changed_meanwhile(path: str, err) -> bool:
    """Say that ``path`` is not written because someone changed it after httpd24 read it; False."""
    err.write(f"httpd24: {path}: changed while httpd24 ran; not written, so that change is kept: "
              "rerun httpd24 on the file as it is now\n")
    return False


def _replace_file(path: str, data: bytes, err, expected: bytes | None = None,
                  wrote: dict[str, bytes] | None = None, originals: _Originals | None = None) -> bool:
    """``path`` now holds ``data`` (atomically, with its owner, group and permissions), or it is left as
    it was and False.

    ``expected``: the bytes the migration was made from. When the file no longer holds them (an editor
    saved it while httpd24 ran) it is left alone: writing would lose that edit without a word. The
    check is made after the temporary file is complete, just before the rename, so the window is the
    rename's. ``wrote`` records what was written, by real path.

    The temporary file is a new one that :func:`tempfile.mkstemp` makes (O_EXCL, mode 0600) in the
    file's directory, so that the rename is atomic: a fixed name was opened through whatever link
    someone had put there, overwriting that link's target and then renaming the link over the file.
    Its owner and mode are set through the descriptor and it is synced before the rename.
    ``originals``: the copies of the files being written together, for one rewritten in place.
    """
    path = os.path.realpath(path)  # through a link (Debian's mods-enabled/): the file, not the link, changes
    tmp = None
    try:
        tmp = _stage(path, data)
        if tmp is None:
            # A new file renamed over this name would part it from its other hard links, which would keep
            # the old text: the one file they share is rewritten instead (not atomically).
            return _rewrite_in_place(path, data, err, expected, wrote, originals)
        if expected is not None and _read(path) != expected:
            return _changed_meanwhile(path, err)
        os.replace(tmp, path)
        tmp = None
        if wrote is not None:
            wrote[path] = data
    except OSError as error:
        err.write(f"httpd24: cannot write {path}: {error.strerror}; it is left as it was\n")
        return False
    finally:
        _unlink(tmp)
    return True


def _stage(path: str, data: bytes) -> str | None:
    """A new temporary file beside ``path`` (a real path) holding ``data``, with ``path``'s owner, group and
    mode, synced: renamed over ``path`` it replaces it atomically (see :func:`_replace_file`). None for a
    file with other hard links, which is rewritten in place instead."""
    directory, base = os.path.split(path)
    info = os.stat(path)
    if info.st_nlink > 1:
        return None
    # A dot name: no `Include conf.d/*.conf` reads it if the process is killed before the rename.
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".httpd24.tmp", dir=directory)
    try:
        with open(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            try:  # before chmod: chown clears the set-id bits
                os.fchown(fd, info.st_uid, info.st_gid)
            except PermissionError:  # not root: the file is ours, and so is the group when we may give it
                try:
                    os.fchown(fd, -1, info.st_gid)
                except PermissionError:
                    pass
            os.fchmod(fd, info.st_mode & 0o7777)
            os.fsync(fd)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _keep_copy(path: str, data: bytes) -> str:
    """A new file beside ``path`` holding ``data`` (its original bytes), synced, readable by the owner only (it
    may hold secrets the file's mode kept from others), what is left of it when writing it and putting it back
    both fail (:class:`_Originals`). A dot name that ends in .httpd24-orig, which no `Include conf.d/*.conf` reads."""
    directory, base = os.path.split(path)
    fd, copy = tempfile.mkstemp(prefix=f".{base}.", suffix=".httpd24-orig", dir=directory)
    try:
        with open(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(fd)
    except BaseException:
        _unlink(copy)
        raise
    return copy


class _Originals:
    """Copies of files' original bytes, each beside its file (:func:`_keep_copy`), made before the file is first
    written: once a write fails and putting the old bytes back fails too (a disk still full, a file made
    immutable meanwhile), or httpd24 is interrupted between the renames of files written together, the bytes in
    memory are gone when httpd24 exits, and the copy is what is left. Each copy is removed at the end
    (:meth:`discard`) but those :meth:`left` names, which stay."""

    def __init__(self) -> None:
        self._copies: dict[str, str] = {}  # path -> its copy, removed at the end
        self._left: dict[str, str] = {}  # path -> its copy, which stays

    def keep(self, path: str, data: bytes, err) -> bool:
        """Make the copy of ``path`` holding ``data`` (once); when it cannot be made, say so (the file is not
        written without one) and False."""
        if path in self._copies:
            return True
        try:
            self._copies[path] = _keep_copy(path, data)
        except OSError as error:
            err.write(f"httpd24: cannot write {path}: no copy of it could be kept to put it back from "
                      f"({error.strerror}); it is left as it was\n")
            return False
        return True

    def left(self, path: str) -> str:
        """What to say of ``path``'s copy, which now stays: where it is and how to put it back."""
        if path in self._copies:
            self._left[path] = self._copies.pop(path)
        copy = self._left[path]
        return (f"its original is kept in {copy}: put it back with `cp {copy} {path}` (which keeps the file's owner "
                "and mode)")

    def discard(self) -> None:
        """Remove the copies no longer needed: every one that :meth:`left` has not named."""
        for copy in self._copies.values():
            _unlink(copy)
        self._copies.clear()


def _unlink(tmp: str | None) -> None:
    """Remove our own temporary file, made by :func:`_stage` or :func:`_keep_copy` (nothing else has that name)."""
    if tmp is not None:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _replace_files(members: list[tuple[str, bytes, bytes | None]], err, wrote: dict[str, bytes], codes: str) -> bool:
    """Each of ``members`` (path, data, expected: see :func:`_replace_file`) holds its data now, or each is
    as it was and False: they hold the halves of one fix (``codes``), which must not be on disk alone.

    Every temporary file is made and every file checked before the first rename, so that what fails
    for want of space, rights or a changed file fails with nothing renamed. A rename that fails after
    others (an immutable file refuses it only then) puts those back, each atomically again. Putting one
    back may fail too (it was made immutable meanwhile), so a copy of each file is made beside it before
    the first rename (:class:`_Originals`); the copy of a file that could not be put back stays, and the
    error names it.
    """
    members = [(os.path.realpath(path), data, expected) for path, data, expected in members]
    staged: list[tuple[str, bytes, str | None]] = []  # path, data, temporary file (None: rewritten in place)
    olds: dict[str, bytes] = {}
    originals = _Originals()
    done: list[str] = []  # renamed so far

    def give_up(failed: str, done=()) -> bool:
        for path, _, _ in members:
            if path != failed and path not in done:
                err.write(f"httpd24: {path}: not written either: its fix ({codes}) also edits {failed}, which "
                          "could not be written; it is left as it was\n")
        return False

    try:
        for path, data, expected in members:
            try:
                staged.append((path, data, _stage(path, data)))
                olds[path] = _read(path)
            except OSError as error:
                err.write(f"httpd24: cannot write {path}: {error.strerror}; it is left as it was\n")
                return give_up(path)
            if expected is not None and olds[path] != expected:
                _changed_meanwhile(path, err)
                return give_up(path)
        for path, _, _ in members:
            if not originals.keep(path, olds[path], err):
                return give_up(path)
        for index, (path, data, tmp) in enumerate(staged):
            if tmp is None:
                ok = _rewrite_in_place(path, data, err, olds[path], wrote, originals)
            else:
                try:
                    os.replace(tmp, path)
                    staged[index] = (path, data, None)
                    wrote[path] = data
                    ok = True
                except OSError as error:
                    err.write(f"httpd24: cannot write {path}: {error.strerror}; it is left as it was\n")
                    ok = False
            if not ok:
                for back in done:
                    if _replace_file(back, olds[back], err, wrote[back], wrote, originals):
                        err.write(f"httpd24: {back}: put back as it was: its fix ({codes}) also edits {path}, "
                                  "which could not be written\n")
                    else:
                        err.write(f"httpd24: {back}: holds the migrated text, but {path}, which its fix ({codes}) "
                                  f"also edits, does not; {originals.left(back)}, or write {path} as "
                                  "`httpd24 migrate` prints it\n")
                return give_up(path, done)
            done.append(path)
        return True
    except BaseException:  # interrupted between the renames: the copies of those renamed are all that is left
        for back in done:
            err.write(f"httpd24: {back}: holds the migrated text; {originals.left(back)}\n")
        raise
    finally:
        for _, _, tmp in staged:
            _unlink(tmp)
        originals.discard()


def _need_a_person(migration: Migration) -> list[Finding]:
    """What the migration left that a person must decide: every finding but the notes (INFO). The
    summary lists these and ``migrate`` exits 1 for them, so the two never disagree; a warning a
    person has looked at is silenced by a ``# httpd24: ignore`` mark."""
    return [f for f in migration.remaining if f.severity is not Severity.INFO]


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _rewrite_in_place(path: str, data: bytes, err, expected: bytes | None = None,
                      wrote: dict[str, bytes] | None = None, originals: _Originals | None = None) -> bool:
    """``path`` overwritten with ``data``; on a failed write (a full disk) its old bytes are put back,
    in the blocks they held, so that it is left as it was. Unbuffered, so no failed write lingers.
    Not written when it no longer holds ``expected`` (see :func:`_replace_file`).

    Its original is copied beside it first (``originals``: the copies of the files written together, else
    its own), as :func:`_replace_files` copies those it renames: when putting the old bytes back fails too,
    the file holds part of each text, and the copy, which the error names, is all that is left of it."""

    def put(handle, content: bytes) -> None:
        handle.seek(0)
        view = memoryview(content)
        while view:
            view = view[handle.write(view):]
        handle.truncate(len(content))

    own = originals is None
    copies = _Originals() if originals is None else originals
    try:
        with open(path, "r+b", buffering=0) as handle:
            old = handle.readall()
            if expected is not None and old != expected:
                return _changed_meanwhile(path, err)
            if not copies.keep(path, old, err):
                return False
            try:
                put(handle, data)
            except OSError as error:
                try:
                    put(handle, old)
                except OSError as again:
                    err.write(f"httpd24: cannot write {path}: {error.strerror}, nor put its old bytes back "
                              f"({again.strerror}); {copies.left(path)}\n")
                    return False
                raise
    except OSError as error:
        err.write(f"httpd24: cannot write {path}: {error.strerror}; it is left as it was\n")
        return False
    finally:
        if own:
            copies.discard()
    if wrote is not None:
        wrote[path] = data
    return True


def _summary(source: inputs.Source, migration: Migration, err, unwritten: Iterable[str] = ()) -> None:
    """What was fixed and what needs a person; ``unwritten``: the files ``--write`` could not write, whose
    fixes are not said to be made: a fix is made once every file it edited is written, which may be
    others than its finding's (:meth:`Migration.files_of`)."""
    if migration.applied:
        left = set(unwritten)
        undone = [f for f in migration.applied if migration.files_of(f) & left]
        done = [f for f in migration.applied if not migration.files_of(f) & left]
        if done:
            err.write(f"{source.label}: fixed {len(done)} finding(s) ({_counts(done)}) in {_files(source, done)}\n")
        if undone:
            err.write(f"{source.label}: {'not' if done else 'nothing'} written; {len(undone)} finding(s) would be "
                      f"fixed ({_counts(undone)}) in {_files(source, undone)}\n")
        for finding in migration.applied:
            label = "would fix" if migration.files_of(finding) & left else "fixed  "
            err.write(f"  {label} {report.text_line(finding, source.display(finding.file))}\n")
    for failure in migration.failures:
        err.write(f"{source.label}: {failure}\n")
    # Locations below are in the migrated files.
    manual = _need_a_person(migration)
    notes = [f for f in migration.remaining if f.severity is Severity.INFO]
    if manual:
        errors = sum(1 for f in manual if f.severity is Severity.ERROR)
        err.write(f"{source.label}: {len(manual)} finding(s) need a person ({errors} error, {len(manual) - errors} "
                  "warning; lines of the migrated files):\n")
        for finding in manual:
            err.write(f"  manual  {report.text_line(finding, source.display(finding.file))}\n")
    for finding in notes:
        err.write(f"  note    {report.text_line(finding, source.display(finding.file))}\n")
    for finding in migration.silenced:
        err.write(f"  ignored {report.text_line(finding, source.display(finding.file))}\n")


def _counts(findings: list[Finding]) -> str:
    """``HT101 x2, HT403 x1``: how many findings of each code."""
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    return ", ".join(f"{code} x{n}" for code, n in sorted(counts.items()))


def _files(source: inputs.Source, findings: list[Finding]) -> str:
    return ", ".join(source.display(name) for name in sorted({f.file for f in findings}))


def cmd_migrate(args: argparse.Namespace, out, err) -> int:
    streams = [path for path in args.paths if inputs.is_stream(path)]
    if args.write and streams:
        what = "standard input" if streams[0] == "-" else f"{streams[0]} (not a regular file)"
        err.write(f"httpd24: --write cannot write {what} back; drop --write (the migrated text goes to "
                  "standard output)\n")
        return 2
    sources, failed = _sources(args.paths, err, args.stdin_filename, args.server_root)
    target = _target(args)
    select, ignore = _split_codes(args.select), _split_codes(args.ignore)
    applicability = Applicability.SAFE if args.fix_level == "safe" else Applicability.PRESERVE
    would_change = needs_person = verify_failed = False
    wrote: dict[str, bytes] = {}  # by real path: what --write wrote, so that a later write knows it
    shown_in_diff: dict[object, tuple[str, bytes]] = {}  # what --diff showed, so that no file is shown twice
    progress = Progress(len(sources), "migrate")
    for source in sources:
        if _report_parse_errors(source, source.configset.errors, err):
            failed = True
            progress.step(source.label)
            continue
        defaults, source_version = _judged_as(args, source)
        migration = migrate(
            source.configset, target=target, select=select, ignore=ignore, defaults=defaults,
            applicability=applicability, source_version=source_version, exclude=_exclude(args, source),
        )
        progress.step(source.label)
        _report_source(source, migration.source, err)
        if migration.cycle is not None:
            failed |= _report_parse_errors(source, [migration.cycle], err)
            continue
        unwritten: set[str] = set()
        would_change |= bool(migration.changed)
        needs_person |= bool(_need_a_person(migration))
        if args.check:
            for name in sorted(migration.changed):
                out.write(f"would migrate {source.display(name)}\n")
        elif args.diff:
            out.write(_diff(source, migration, shown_in_diff, err))
        elif args.write:
            unwritten = _write(source, migration, err, wrote)
            failed |= bool(unwritten)
        elif source.kind == "configmap":
            out.write("---\n" + _configmap_yaml(source, migration))
        else:
            names = sorted(migration.files)
            if source.kind == "file":  # the file given, and what changed of the files it includes
                names = [n for n in names if n == source.configset.entry or n in migration.changed]
            for name in names:
                if len(names) > 1:
                    out.write(f"# ==> {source.display(name)} <==\n")
                out.write(migration.files[name].decode("utf-8", "surrogateescape"))
        if not args.quiet:
            _summary(source, migration, err, unwritten)
        if args.verify:
            verify_failed |= _verify(source, migration, out, err)
    progress.close()
    if failed:
        return 2
    if args.check:
        return 1 if would_change else 0
    return 1 if (needs_person or verify_failed) else 0


def _verify(source: inputs.Source, migration: Migration, out, err) -> bool:
    """Run original and migrated side by side on real httpd; True when they answer differently."""
    from .apache import differential

    # From the text, not source.configset: migrate() rewrote that tree, and a reference read from it
    # would answer as the migration does, right or wrong.
    ran_on_24 = migration.source.ran_on_24 if migration.source is not None else None
    result = differential.verify(source.configset.with_files(migration.original),
                                 source.configset.with_files(migration.files), name=source.label, on_24=ran_on_24)
    out.write(result.format() + "\n")
    return not result.ok


# -- modules ----------------------------------------------------------------------------------
def cmd_modules(args: argparse.Namespace, out, err) -> int:
    from .engine.modules import DEBIAN_BUILTIN, required_modules

    sources, failed = _sources(args.paths, err, args.stdin_filename, args.server_root)
    target = _target(args)
    # the binary the lines are for: its compiled-in modules are loaded (their <IfModule> blocks are read)
    binary = args.builtin or _binary_of(args.module_dir)
    # --format json: one list, one object per configuration, for one as for several (printed at the
    # end: objects printed one after another are no JSON document).
    documents: list[dict] = []
    for source in sources:
        if _report_parse_errors(source, source.configset.errors, err):
            failed = True
            continue
        configset = source.configset
        try:
            if not args.as_is:
                defaults, source_version = _judged_as(args, source)
                configset = migrate(configset, target=target, defaults=defaults,
                                    source_version=source_version).configset or configset
            requirements = required_modules(configset, target=target,
                                            builtin=DEBIAN_BUILTIN if binary == "debian" else ())
        except ParseError as error:  # an Include cycle
            failed |= _report_parse_errors(source, [error], err)
            continue
        if args.format == "json":
            documents.append({
                "source": source.label,
                "modules": [
                    {"name": m.name, "file": m.file, "so": m.so, "when": m.when,
                     "reasons": [{**r._asdict(), "file": source.key(r.file)} for r in m.reasons]}
                    for m in requirements.modules
                ],
                "unused": list(requirements.unused),
            })
            continue
        if len(sources) > 1:
            out.write(f"# {source.label}\n")
        lines = requirements.load_lines(args.module_dir, builtin=() if binary == "none" else binary)
        out.write(lines if lines.endswith("\n") or not lines else lines + "\n")
        if args.why:
            for module in requirements.modules:
                shown: dict[str, None] = {}  # one line may need a module twice over (a directive and its provider)
                for r in module.reasons:
                    where = f"{source.display(r.file)}:{r.line} " if r.file else ""
                    shown[f"{where}{r.directive} [{r.when}]"] = None
                    if len(shown) == 3:
                        break
                reasons = "; ".join(shown)
                out.write(f"# {module.name}: {reasons}\n")
        for name in requirements.unused:
            err.write(f"{source.label}: {name} is loaded but nothing in the configuration uses it\n")
    if args.format == "json":
        out.write(json.dumps(documents, indent=2) + "\n")
    return 2 if failed else 0


#: Where Debian's apache2 keeps its modules: a --module-dir that names it names Debian's binary too.
DEBIAN_MODULE_DIR = "/usr/lib/apache2/modules"


def _binary_of(module_dir: str) -> str:
    """The binary whose compiled-in modules ``modules`` leaves out when ``--builtin`` is not given."""
    return "debian" if os.path.normpath(module_dir) == DEBIAN_MODULE_DIR else "image"


# -- rules / explain --------------------------------------------------------------------------
def cmd_rules(args: argparse.Namespace, out, err) -> int:
    rules = all_rules()
    if args.format == "json":
        out.write(json.dumps(
            [
                {"code": r.code, "name": r.name, "severity": r.severity.value, "fix": r.fix_availability,
                 "summary": r.summary, "since": r.since, "about_22_behaviour": r.about_22_behaviour}
                for r in rules
            ],
            indent=2,
        ) + "\n")
    elif args.format == "markdown":
        out.write("| Code | Name | Severity | Fix | Applies to | Summary |\n|---|---|---|---|---|---|\n")
        for r in rules:
            out.write(f"| {r.code} | {r.name} | {r.severity.value} | {r.fix_availability} | {_applies_to(r)} "
                      f"| {r.summary} |\n")
    else:
        for r in rules:
            out.write(f"{r.code}  {r.name:<40} {r.severity.value:<8} fix:{r.fix_availability:<10} {r.summary}\n")
    return 0


def cmd_explain(args: argparse.Namespace, out, err) -> int:
    rule = get(args.code)
    if rule is None:
        err.write(f"httpd24: no rule {args.code!r}; `httpd24 rules` lists them\n")
        return 2
    out.write(f"# {rule.code} {rule.name}\n\n{rule.summary}\n\nSeverity: {rule.severity.value}. "
              f"Fix: {rule.fix_availability}. Applies to: {_applies_to(rule)}. Since {rule.since}.\n\n"
              f"{rule.documentation()}\n")
    return 0


def _applies_to(rule) -> str:
    """Which configurations the rule judges (``--source-version``)."""
    return "ran on 2.2" if rule.about_22_behaviour else "any"


# -- operator ---------------------------------------------------------------------------------
def _add_operator(subparsers, full: bool = True) -> None:
    """The ``operator`` command; ``full=False`` only names it (in ``--help``): its options come with kopf and
    aiohttp, which every other command would otherwise import at start."""
    if not full:
        subparsers.add_parser("operator", help="run the Kubernetes operator and admission webhooks")
        return
    try:
        from .k8s import main as k8s_main
    except ImportError as error:
        missing = str(error)

        parser = subparsers.add_parser("operator", help="run the Kubernetes operator and admission webhooks")
        parser.set_defaults(func=lambda args, out, err: (err.write(
            f"httpd24: the operator needs the 'operator' extra: pip install 'httpd24[operator]' ({missing})\n") and 2) or 2)
        return
    parser = subparsers.add_parser("operator", help="run the Kubernetes operator and admission webhooks")
    k8s_main.add_arguments(parser)
    parser.set_defaults(func=lambda args, out, err: k8s_main.run(args))


# -- parser -----------------------------------------------------------------------------------
def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="configuration file, directory, or ConfigMap manifest; - reads standard input")
    parser.add_argument("--stdin-filename", metavar="NAME", default=None,
                        help="the name to report for standard input (a .yaml/.json name reads it as a manifest)")
    parser.add_argument("--server-root", metavar="DIR", default=None,
                        help="where the relative Includes of a file or directory are read from (default: a file's "
                             "ServerRoot when the file lies under it, else the file's directory or its parent, whichever "
                             "the Includes match; a directory itself)")
    parser.add_argument("--target-version", default=None, type=_release, metavar="X.Y.Z", help="httpd 2.4 release to judge <IfVersion> against (default 2.4.62)")
    parser.add_argument("--module", action="append", metavar="NAME", help="module loaded before the configuration, named either way "
                        "<IfModule> takes it (mod_ssl.c or ssl_module; repeatable); when given, <IfModule> on any "
                        "other module is false")
    parser.add_argument("--define", action="append", metavar="NAME", help="a -D define (repeatable); when given, other <IfDefine> names are false")
    parser.add_argument("--defaults", choices=list(settings.DEFAULTS), default=None,
                        help="override every changed-default rule's documented decision")
    parser.add_argument("--source-version", choices=list(settings.SOURCE_VERSIONS), default=None,
                        help="the httpd the configuration ran on before: 2.2 applies every rule; 2.4 leaves out "
                             "those that write 2.2's behaviour back (default auto: 2.4 when it loads a module 2.2 "
                             "never had, such as an MPM)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    found = parser.add_mutually_exclusive_group()
    found.add_argument("--config", metavar="FILE", default=None,
                       help="settings file (default: httpd24.toml or .httpd24.toml in the working directory or above)")
    found.add_argument("--isolated", action="store_true", help="read no settings file")


def _codes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--select", action="append", type=_rule_codes, metavar="CODES",
                        help="only these codes or prefixes (comma-separated)")
    parser.add_argument("--ignore", action="append", type=_rule_codes, metavar="CODES",
                        help="skip these codes or prefixes (comma-separated)")


def build_parser(operator: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="httpd24", description="Lint and migrate Apache httpd 2.2 configurations to 2.4.")
    parser.add_argument("--version", action="version", version=f"httpd24 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("lint", help="report every 2.2 construct with file:line, code and the 2.4 replacement")
    _common(p)
    _codes(p)
    p.add_argument("--format", choices=["text", "json", "sarif", "github"], default="text",
                   help="github: GitHub Actions annotations on the pull request's lines")
    p.add_argument("--fail-on", choices=list(FAIL_ON), default=None,
                   help="exit 1 when a finding is at least this severe (default: error)")
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("migrate", help="rewrite to 2.4 without changing behaviour")
    _common(p)
    _codes(p)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    mode.add_argument("--diff", action="store_true", help="print a unified diff")
    mode.add_argument("--check", action="store_true", help="exit 1 if anything would change")
    p.add_argument("--fix-level", choices=["safe", "preserve"], default="preserve",
                   help="safe: only fixes with the same behaviour on 2.4; preserve (default): also write out 2.2 defaults")
    p.add_argument("--verify", action="store_true", help="run original and migrated on real httpd and compare answers")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("modules", help="the LoadModule lines the (migrated) configuration needs")
    _common(p)
    p.add_argument("--module-dir", default="modules", help="module directory (default: the official image's modules/)")
    p.add_argument("--builtin", choices=["image", "debian", "none"], default=None,
                   help="which binary's compiled-in modules to leave out, and to count as loaded (default: "
                        f"Debian's apache2 for --module-dir {DEBIAN_MODULE_DIR}, else the official httpd:2.4 image)")
    p.add_argument("--as-is", action="store_true", help="for the configuration as it is, not as migrated")
    p.add_argument("--why", action="store_true", help="say which directive needs each module")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_modules)

    p = sub.add_parser("rules", help="list every rule")
    p.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("explain", help="a rule's documentation")
    p.add_argument("code")
    p.set_defaults(func=cmd_explain)

    _add_operator(sub, full=operator)
    return parser


_ONE_CONFIGURATION = frozenset({cmd_lint, cmd_migrate, cmd_modules})


def _byte_faithful(stream):
    """``stream`` (the process's stdout) writing UTF-8 with surrogateescape, whatever the locale says.

    The engine reads a file's bytes as UTF-8 with surrogateescape, so a Latin-1 byte is a lone
    surrogate; a strict stdout (LANG=en_US.UTF-8, PYTHONIOENCODING=utf-8) died on it, and an ASCII or
    Latin-1 one would re-encode the file's UTF-8 text. Encoding it back the way it was decoded gives
    the original bytes: ``migrate > new.conf`` is the file, byte for byte, whatever the terminal.
    """
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(encoding="utf-8", errors="surrogateescape")
        except (ValueError, OSError):  # something was written already; keep it as it is
            pass
    return stream


def main(argv: Sequence[str] | None = None, out=None, err=None) -> int:
    out = out or _byte_faithful(sys.stdout)
    err = err or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(operator=argv[:1] == ["operator"])
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if exit_.code in (0, None) else 2
    try:
        if args.func in _ONE_CONFIGURATION:
            try:
                _settle(args)
            except settings.SettingsError as error:
                err.write(f"httpd24: {error}\n")
                return 2
            # One configuration, then exit: no cyclic collections at all (a quarter of `lint` on a
            # 100,000-line file was the pass over the tree after parsing). The operator runs for
            # days and keeps the collector.
            with gc_paused():
                return int(args.func(args, out, err) or 0)
        return int(args.func(args, out, err) or 0)
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        err.write("httpd24: interrupted\n")
        return 130
    except Exception as error:  # a bug in httpd24, not bad input: say so without a wall of traceback
        if os.environ.get("HTTPD24_DEBUG"):
            raise
        err.write(f"httpd24: internal error: {type(error).__name__}: {error}\n"
                  "This is a bug in httpd24; rerun with HTTPD24_DEBUG=1 for the traceback and report it.\n")
        return 2

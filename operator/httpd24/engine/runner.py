"""Running the rules (lint) and applying their fixes until nothing changes (migrate).

Fixes are applied the way Ruff applies them: drop those below the requested
applicability, skip any that touch a node an earlier fix in the same pass
touched, render, re-parse, lint again; at most ``MAX_PASSES`` passes. A pass
whose result no longer parses is thrown away and reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..config import ConfigSet, DEFAULT_TARGET, Document, ParseError, Target, parse
from ..config.gcpause import gc_paused
from .context import Context, DefaultsPolicy
from .finding import Applicability, Finding
from .registry import Rule, all_rules
from .source import Source, SourceVersion
from .suppression import split as split_silenced

MAX_PASSES = 20
#: What a user does about a fix that failed: it is httpd24's bug, and the finding stays (``remaining``), so
#: the change it asks for is the user's to make, as the other "bug in httpd24" messages say.
BUG = "(a bug in httpd24: please report it); make the change by hand, as the finding says"


def _selected(code: str, select: Sequence[str] | None, ignore: Sequence[str] | None) -> bool:
    if select and not any(code.startswith(p.upper()) for p in select):
        return False
    if ignore and any(code.startswith(p.upper()) for p in ignore):
        return False
    return True


def rules_for(select: Sequence[str] | None = None, ignore: Sequence[str] | None = None) -> list[Rule]:
    return [r for r in all_rules() if _selected(r.code, select, ignore)]


#: Findings a caller leaves out (``per-file-ignores`` of :mod:`httpd24.settings`): neither reported nor fixed.
Exclude = Callable[[Finding], bool]


def check(ctx: Context, rules: Sequence[Rule], silenced: list[Finding] | None = None,
          exclude: Exclude | None = None, excluded: list[Finding] | None = None) -> list[Finding]:
    """Every finding of ``rules`` on the context, deduplicated, in file order; those an ignore mark
    silences (:mod:`.suppression`) go to ``silenced`` instead, when given, and those ``exclude`` names
    to ``excluded``, when given. Rules about 2.2's behaviour do not run on a configuration that ran on
    2.4 already (:mod:`.source`)."""
    if ctx.source.ran_on_24:
        rules = [rule for rule in rules if not rule.about_22_behaviour]
    by_key: dict[str, list[Rule]] = {}
    whole: list[Rule] = []
    for rule in rules:
        for key in rule.directives:
            by_key.setdefault(key, []).append(rule)
        if type(rule).check_config is not Rule.check_config:
            whole.append(rule)
    findings: list[Finding] = []
    for key, key_rules in by_key.items():
        for item in ctx.items(key):
            for rule in key_rules:
                findings.extend(rule.check(ctx, item))
    for rule in whole:
        findings.extend(rule.check_config(ctx))
    if exclude is not None:
        reported: list[Finding] = []
        left_out: list[Finding] = []
        for finding in findings:
            (left_out if exclude(finding) else reported).append(finding)
        findings = reported
        if excluded is not None:
            excluded[:] = sorted(_unique(left_out), key=_file_order)
    unique = _unique(findings)
    kept, quiet = split_silenced(sorted(unique, key=_file_order), ctx.configset)
    enabled = [rule.code for rule in rules]
    for rule in rules:
        if type(rule).check_after is not Rule.check_after:
            kept.extend(rule.check_after(ctx, quiet, enabled))
    if silenced is not None:
        silenced[:] = quiet
    return sorted(kept, key=_file_order)


def _unique(findings: list[Finding]) -> list[Finding]:
    """The first of the findings several rules (or several paths to one node) report alike."""
    unique: dict[tuple, Finding] = {}
    for finding in findings:
        unique.setdefault((finding.code, finding.file, finding.line, finding.column, finding.message), finding)
    return list(unique.values())


def _file_order(finding: Finding) -> tuple:
    return (finding.file, finding.line, finding.column, finding.code)


def lint(
    configset: ConfigSet,
    *,
    target: Target = DEFAULT_TARGET,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    defaults: DefaultsPolicy = None,
    silenced: list[Finding] | None = None,
    source_version: SourceVersion = "auto",
    judged: list[Source] | None = None,
    exclude: Exclude | None = None,
    excluded: list[Finding] | None = None,
) -> list[Finding]:
    """Findings for a configuration set. Raises ParseError on an Include cycle.

    ``silenced``: filled with the findings an ``# httpd24: ignore`` mark silences; ``excluded``: with
    those ``exclude`` leaves out. ``judged``: with what the configuration ran on before
    (:mod:`.source`), for a message that says which rules were left out."""
    with gc_paused():
        ctx = Context.build(configset, target, defaults, source_version=source_version)
        findings = check(ctx, rules_for(select, ignore), silenced, exclude, excluded)
        if judged is not None:
            judged[:] = [ctx.source]
        return findings


@dataclass
class Migration:
    """The result of :func:`migrate`: every file, what was rewritten, what needs a person."""

    files: dict[str, bytes]
    original: dict[str, bytes]
    #: The findings fixed, in file order (as lint lists them).
    applied: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    #: Fix passes thrown away because their result did not parse.
    failures: list[str] = field(default_factory=list)
    configset: ConfigSet | None = None
    #: An Include cycle (in the input, or written by a fix): nothing could be checked past it.
    cycle: ParseError | None = None
    #: Findings of the result that an ``# httpd24: ignore`` mark silences (their fixes were not applied).
    silenced: list[Finding] = field(default_factory=list)
    #: What the input ran on before (:mod:`.source`); None when no pass could read it.
    source: Source | None = None
    #: The input's findings, as :func:`lint` gives them with the same arguments (the first pass's): a
    #: caller that wants both needs no lint of its own. None when no pass could read the input (an
    #: Include cycle).
    found: list[Finding] | None = None
    #: The input's findings that ``exclude`` left out (the first pass's; none of them was fixed).
    excluded: list[Finding] = field(default_factory=list)
    #: The files each applied fix edited, by ``id`` of its finding in ``applied`` (:meth:`files_of`).
    edited: dict[int, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def changed(self) -> set[str]:
        return {name for name, data in self.files.items() if data != self.original.get(name)}

    def files_of(self, finding: Finding) -> frozenset[str]:
        """The files the fix of ``finding`` (one of :attr:`applied`) edited, which may be others than its
        own: HT113 writes LogLevel into virtual hosts wherever they are. Its fix is on disk only once
        all of them are; a writer that wrote some of them only would leave half an edit."""
        return self.edited.get(id(finding), frozenset((finding.file,)))


def migrate(
    configset: ConfigSet,
    *,
    target: Target = DEFAULT_TARGET,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    defaults: DefaultsPolicy = None,
    applicability: Applicability = Applicability.PRESERVE,
    source_version: SourceVersion = "auto",
    exclude: Exclude | None = None,
) -> Migration:
    """Apply fixes of at least ``applicability`` until nothing changes.

    The first pass edits ``configset``'s own trees (re-parsing a large set first would cost as
    much as the pass): analyse it before, or build a fresh set, if it is needed unchanged.
    ``Migration.original`` keeps the input text.
    """
    with gc_paused():
        return _migrate(configset, target, select, ignore, defaults, applicability, source_version, exclude)


def _migrate(configset, target, select, ignore, defaults, applicability, source_version, exclude) -> Migration:
    original = {name: configset.sources.get(name) or doc.render() for name, doc in configset.documents.items()}
    rules = rules_for(select, ignore)
    applied: list[Finding] = []
    failures: list[str] = []
    current = configset
    cycle: ParseError | None = None
    remaining: list[Finding] = []
    silenced: list[Finding] = []
    found: list[Finding] | None = None
    excluded: list[Finding] = []
    refused: set[tuple] = set()  # fixes that broke the text: never tried again
    edited: dict[int, frozenset[str]] = {}  # Migration.edited
    careful = False  # after a broken pass, every fix is checked on its own
    memory: dict = {}  # Context.memory: what the rules learnt of the input

    def key(finding: Finding) -> tuple:
        return (finding.code, finding.file, finding.line, finding.column, finding.message)

    def reparse(files: dict[str, bytes]) -> ConfigSet:
        fresh = current.with_files(files)
        fresh.sources = dict(configset.sources)  # `changed` compares against the input
        return fresh

    def replace_current(fresh: ConfigSet) -> ConfigSet:
        """``fresh``, after freeing the tree it replaces now (the collector is paused)."""
        if current is not configset:  # the caller's own set is the caller's to keep
            current.dispose()
        return fresh

    for _ in range(MAX_PASSES):
        try:
            findings = check(Context.build(current, target, defaults, memory, source_version), rules, silenced, exclude,
                             excluded if found is None else None)
        except ParseError as error:  # an Include cycle
            failures.append(str(error))
            cycle = error
            break
        if found is None:
            found = [f.detached() for f in findings]
            excluded = [f.detached() for f in excluded]
        # The pass that applies nothing is the answer: its findings are what remains.
        remaining = findings
        touched: set[int] = set()
        applied_now: list[Finding] = []
        applied_fixes: set[int] = set()  # ids of the fixes applied in this pass (findings hold them)
        named: dict[int, set[str]] = {}  # by id of a fix: the files of the nodes it names
        before: dict[str, bytes] | None = None
        broken: Finding | None = None
        for finding in findings:
            fix = finding.fix
            if fix is None or fix.applicability < applicability or fix.applicability == Applicability.DISPLAY_ONLY:
                continue
            if id(fix) in applied_fixes:
                applied_now.append(finding)  # one fix for several findings (HT404's LoadModule lines)
                continue
            ids = {id(node) for node in fix.nodes}
            if ids & touched or key(finding) in refused:
                continue
            if before is None:
                before = current.render()  # to go back to if this pass breaks the text
            names = {node.document.name for node in fix.nodes if node.parent is not None} if careful else set()
            snapshot = {name: current.documents[name].render() for name in names if name in current.documents}
            named[id(fix)] = {name for name in map(_file_of, fix.nodes) if name is not None}
            try:
                fix.apply()
                for name in snapshot:
                    parse(current.documents[name].render(), name)
            except Exception as error:  # a fix that breaks the text is a bug in that rule
                failures.append(f"{finding.code} at {finding.location}: fix not applied: it failed, "
                                f"{type(error).__name__}: {error} {BUG}")
                broken = finding
                break
            touched |= ids
            applied_fixes.add(id(fix))
            applied_now.append(finding)
        if broken is not None:
            refused.add(key(broken))
            current = replace_current(reparse(before or current.render()))
            continue
        if not applied_now:
            break
        rendered = current.render()
        if rendered == before:  # every fix of the pass left the text as it was: bugs in those rules
            for finding in applied_now:
                refused.add(key(finding))
                failures.append(f"{finding.code} at {finding.location}: fix not applied: it changed nothing {BUG}")
            continue
        # Re-parse what the fixes rendered: a pass that broke the text is thrown away (its
        # fixes are refused), and the next pass sees fresh locations.
        candidate = reparse(rendered)
        if candidate.errors:
            # Which fix broke it is not known: start again from the last good text, checking each fix.
            current = replace_current(reparse(before or {}))
            careful = True
            continue
        # A file the pass changed that no applied fix names is put down to each of them: linking files
        # that were not linked costs a write that could have been made alone, never half an edit.
        changed = {name for name, data in rendered.items() if data != (before or {}).get(name)}
        unnamed = changed.difference(*named.values())
        for finding in applied_now:
            done = finding.detached()
            applied.append(done)
            edited[id(done)] = frozenset((named.get(id(finding.fix), set()) | unnamed) & changed or {finding.file})
        applied_ids = {id(f) for f in applied_now}
        remaining = [f.detached() for f in findings if id(f) not in applied_ids]  # the next pass replaces these
        current = replace_current(candidate)
    files = {name: doc.render() for name, doc in current.documents.items()}
    for name, data in original.items():
        files.setdefault(name, data)  # files that did not parse are kept as they were
    return Migration(files, original, sorted(applied, key=_file_order), remaining, failures, current, cycle,
                     [f.detached() for f in silenced], memory.get("source"), found, excluded, edited)


def _file_of(node) -> str | None:
    """The name of the file a node of the tree is in; None for a node no longer in one."""
    while node is not None and not isinstance(node, Document):
        node = node.parent
    return None if node is None else node.name


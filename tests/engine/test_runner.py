"""The fix loop: passes until nothing changes, refused passes, conflicts, what remains."""

from __future__ import annotations

from pathlib import Path

import pytest

from httpd24.config import ConfigSet, edit
from httpd24.engine import Applicability, Rule, Severity, lint, migrate
from httpd24.engine.context import Context
from httpd24.engine.runner import check


class _Breaker(Rule):
    """
    ## What it does
    Test rule: its fix writes text that does not parse.

    ## Why is this bad?
    It exercises the refusal of a broken pass.
    """

    code = "HT998"
    name = "test-breaker"
    severity = Severity.ERROR
    summary = "test"
    directives = ("breakme",)

    def check(self, ctx, item):
        node = item.node
        yield self.finding(item, "break", fix=self.fix("break", Applicability.SAFE, lambda: edit.replace(node, "<Directory /x>"), node))


class _Chain(Rule):
    """
    ## What it does
    Test rule: A -> B, then (another finding) B -> C, so two passes are needed.

    ## Why is this bad?
    It exercises repeated passes.
    """

    code = "HT997"
    name = "test-chain"
    severity = Severity.WARNING
    summary = "test"
    directives = ("a", "b")

    def check(self, ctx, item):
        node = item.node
        new = {"a": "B", "b": "C"}[node.key]
        yield self.finding(item, f"rename to {new}", fix=self.fix("rename", Applicability.SAFE, lambda: edit.rename(node, new), node))


def _migrate(text, rule):
    return _migrate_set(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"), rule)


def _migrate_set(cs, rule):
    import httpd24.engine.runner as runner

    original = runner.rules_for
    runner.rules_for = lambda select=None, ignore=None: [rule]
    try:
        return migrate(cs)
    finally:
        runner.rules_for = original


def test_broken_pass_is_refused_and_original_kept():
    result = _migrate("ServerName x\nBreakMe now\n", _Breaker())
    assert result.files["httpd.conf"] == b"ServerName x\nBreakMe now\n"
    assert result.applied == [] and result.changed == set()
    assert "HT998" in result.failures[0] and "not closed" in result.failures[0]
    assert result.failures[0].endswith("(a bug in httpd24: please report it); make the change by hand, as the "
                                       "finding says"), result.failures


def test_passes_repeat_until_nothing_changes():
    result = _migrate("A 1\n", _Chain())
    assert result.files["httpd.conf"] == b"C 1\n"
    assert [f.message for f in result.applied] == ["rename to B", "rename to C"]
    assert result.remaining == []


class _NoOp(Rule):
    """
    ## What it does
    Test rule: its fix changes nothing (a rule bug, as a rename of a quoted name once was).

    ## Why is this bad?
    It exercises the check that a pass changed the text.
    """

    code = "HT995"
    name = "test-no-op"
    severity = Severity.ERROR
    summary = "test"
    directives = ("noop",)

    def check(self, ctx, item):
        yield self.finding(item, "nothing", fix=self.fix("nothing", Applicability.SAFE, lambda: None, item.node))


def test_a_pass_that_changes_nothing_is_a_failure_not_a_fix():
    """It was reported as fixed once per pass (20 times) while the text stayed as it was: `migrate
    --check` passed and the error stayed."""
    result = _migrate("ServerName x\nNoOp 1\n", _NoOp())
    assert result.applied == [] and result.changed == set()
    assert [f.code for f in result.remaining] == ["HT995"]
    # What to do, as the other "bug in httpd24" messages say it: the finding stays, for a person.
    assert result.failures == ["HT995 at httpd.conf:2:1: fix not applied: it changed nothing (a bug in httpd24: "
                               "please report it); make the change by hand, as the finding says"]


def test_applied_findings_are_in_file_order_whatever_pass_fixed_them():
    """The BOM's fix holds LockFile's (the same first line) back to a second pass: the summary listed
    LockFile after the MaxClients below it, out of the order lint prints."""
    text = "\ufeffLockFile /var/lock/accept.lock\nMaxClients 5\nMaxRequestsPerChild 4\n"
    result = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert {"HT003", "HT110", "HT101", "HT102"} <= {f.code for f in result.applied}
    assert [(f.line, f.column) for f in result.applied] == sorted((f.line, f.column) for f in result.applied)


def test_remaining_are_the_unfixed_findings():
    cs = ConfigSet.from_mapping({"httpd.conf": "MaxClients 1\n"}, entry="httpd.conf")
    result = migrate(cs, select=["HT101"], applicability=Applicability.SAFE)
    assert [f.code for f in result.applied] == ["HT101"] and result.remaining == []
    fresh = check(Context.build(result.configset, result.configset.view().target), [])
    assert fresh == []


class _BadText(Rule):
    """
    ## What it does
    Test rule: its fix leaves the tree rendering text that does not parse.

    ## Why is this bad?
    It exercises the re-parse check of a pass.
    """

    code = "HT996"
    name = "test-bad-text"
    severity = Severity.ERROR
    summary = "test"
    directives = ("breakme", "maxclients")

    def check(self, ctx, item):
        node = item.node
        if node.key == "breakme":
            def corrupt():
                node.raw = "<Directory /x>\n"
            yield self.finding(item, "corrupt", fix=self.fix("corrupt", Applicability.SAFE, corrupt, node))
        else:
            yield self.finding(item, "rename", fix=self.fix("rename", Applicability.SAFE, lambda: edit.rename(node, "MaxRequestWorkers"), node))


def test_pass_that_renders_unparseable_text_is_thrown_away_then_good_fixes_apply():
    result = _migrate("BreakMe now\nMaxClients 1\n", _BadText())
    assert result.files["httpd.conf"] == b"BreakMe now\nMaxRequestWorkers 1\n"
    assert [f.message for f in result.applied] == ["rename"]
    assert any("not closed" in failure for failure in result.failures)
    assert [f.message for f in result.remaining] == ["corrupt"]


def test_applied_findings_keep_what_was_done_but_not_the_old_tree():
    # A pass's tree is freed once the next pass re-parses; an applied finding must not keep it alive.
    result = _migrate("A 1\n", _Chain())
    fix = result.applied[0].fix
    assert fix.description == "rename" and fix.applicability is Applicability.SAFE
    assert fix.nodes == ()
    with pytest.raises(RuntimeError, match="detached"):
        fix.apply()


def test_migrate_leaves_the_callers_tree_usable():
    cs = ConfigSet.from_mapping({"httpd.conf": "<IfModule x>\nA 1\n</IfModule>\n"}, entry="httpd.conf")
    result = _migrate_set(cs, _Chain())
    assert result.files["httpd.conf"] == b"<IfModule x>\nC 1\n</IfModule>\n"
    directive = cs.documents["httpd.conf"].children[0].children[0]
    assert directive.document is cs.documents["httpd.conf"]  # parent links intact
    # the first pass edited the caller's tree (documented); the input text is kept in the result
    assert cs.render()["httpd.conf"] == b"<IfModule x>\nB 1\n</IfModule>\n"
    assert result.original["httpd.conf"] == b"<IfModule x>\nA 1\n</IfModule>\n"


def test_dispose_breaks_every_parent_link():
    cs = ConfigSet.from_mapping({"httpd.conf": "<Directory />\n<Files x>\nA 1\n</Files>\n</Directory>\n"})
    nodes = list(cs.documents["httpd.conf"].walk())
    cs.dispose()
    assert [node.parent for node in nodes] == [None] * len(nodes)


CORPUS = sorted(p for p in Path("/work/shared/corpus/files").iterdir() if not p.name.endswith(".in"))


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_migration_found_is_what_lint_finds(path):
    """The admission webhook's migrate mode reads the input's findings from the migration instead of
    linting it once more: they must be lint's, the messages and fixes' applicability included."""
    def configset():
        return ConfigSet.from_mapping({path.name: path.read_bytes()}, entry=path.name)

    expected = [(f.code, f.file, f.line, f.column, f.message, f.replacement, f.fixable, f.fix and f.fix.applicability)
                for f in lint(configset(), source_version="2.2")]
    found = migrate(configset(), source_version="2.2").found
    assert [(f.code, f.file, f.line, f.column, f.message, f.replacement, f.fixable, f.fix and f.fix.applicability)
            for f in found] == expected


def test_migration_found_is_none_when_an_include_cycle_stops_every_pass():
    result = migrate(ConfigSet.from_mapping({"a.conf": "Include b.conf\n", "b.conf": "Include a.conf\n"}, entry="a.conf"))
    assert result.cycle is not None and result.found is None


def test_excluded_findings_are_the_inputs_and_are_never_fixed():
    """A caller that leaves rules out (an HttpdPolicy's ``ignore``) counts what it left out: lint's and the
    migration's first pass give the same list, though the passes after it see fixed, shifted lines."""
    text = "Order allow,deny\nAllow from all\nMaxClients 10\nKeepAlive 5\n"

    def configset():
        return ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")

    def keep_alive(finding):
        return finding.code == "HT120"

    excluded: list = []
    kept = lint(configset(), exclude=keep_alive, excluded=excluded)
    assert [(f.code, f.line) for f in excluded] == [("HT120", 4)]
    assert "HT120" not in {f.code for f in kept} and {"HT101", "HT501"} <= {f.code for f in kept}
    result = migrate(configset(), exclude=keep_alive)
    assert [(f.code, f.line) for f in result.excluded] == [("HT120", 4)]
    assert result.files["httpd.conf"].endswith(b"KeepAlive 5\n") and b"MaxRequestWorkers 10" in result.files["httpd.conf"]

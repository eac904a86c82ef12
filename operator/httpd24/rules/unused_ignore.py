"""Ignore marks that silence nothing (Ruff's RUF100 for ``# httpd24: ignore=``)."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, names_a_rule, register
from ..engine.suppression import marks


@register
class UnusedIgnore(Rule):
    """
    ## What it does
    Finds `# httpd24: ignore=` marks, or codes in them, that silence no finding: the finding they were
    written for is gone (the line was fixed or removed), or the mark is not directly above a directive.

    ## Why is this bad?
    A stale mark stays in the file and silences the next finding of that code on that line, which may be
    a new, real problem (a third-party module's directive marked HT406 once, kept after the module was
    dropped). Only codes of the rules that ran are judged: `--select HT1` never calls a mark for HT406
    unused. A code that names no rule at all (a typo: `HT1O1`, or a reason written on the mark's line,
    which the mark reads as codes) is reported whatever ran.

    ## Example
    ```apache
    # httpd24: ignore=HT101

    MaxRequestWorkers 150
    ```

    ## Use instead
    ```apache
    MaxRequestWorkers 150
    ```

    ## Fix safety
    Safe: only the comment changes (it loses its unused codes, or goes when none is left); httpd ignores
    comments. None for a mark with a code that names no rule: it may be a typo of the code meant, or
    words of a reason, which a person moves to a comment line of its own.
    """

    code = "HT002"
    name = "unused-ignore"
    severity = Severity.WARNING
    summary = "An `# httpd24: ignore=` mark silences no finding"
    fix_availability = "sometimes"

    def check_after(self, ctx, silenced, enabled):
        for file, file_marks in marks(ctx.configset).items():
            here = [f for f in silenced if f.file == file]
            for mark in file_marks.marks:
                unknown = [code for code in mark.codes if not names_a_rule(code)]
                idle = [
                    code for code in mark.codes
                    if any(c.startswith(code) for c in enabled)
                    and not any(f.code.startswith(code) and (mark.line is None or f.line == mark.line) for f in here)
                ]
                unused = unknown + idle
                if not unused:
                    continue
                kept = [code for code in mark.codes if code not in unused]
                comment = mark.comment
                where = "in this file" if mark.line is None else "on the next directive"
                if mark.line == 0:
                    where = "here: no directive follows it directly (a blank line between?)"
                text = comment.raw.split("=", 1)[0] + "=" + ",".join(kept) if kept else ""
                # Words that name no rule may be a reason written on the mark's line: a person moves them.
                fix = None if unknown else self.fix(
                    f"drop {', '.join(unused)} from the mark" if kept else "remove the mark",
                    Applicability.SAFE,
                    (lambda c=comment, t=text: edit.replace(c, t.strip())) if kept else (lambda c=comment: edit.remove(c)),
                    comment,
                )
                why = []
                if unknown:
                    why.append(f"{', '.join(unknown)} {'name' if len(unknown) > 1 else 'names'} no rule "
                               "(`httpd24 rules` lists them)")
                if idle:
                    why.append(f"{', '.join(idle)} {'silence' if len(idle) > 1 else 'silences'} nothing {where}")
                yield self.finding(
                    comment,
                    f"`{comment.text}`: {'; '.join(why)}; remove "
                    + (f"{'them' if len(unused) > 1 else 'it'} from the mark" if kept else "the mark"),
                    replacement=text.strip(),
                    fix=fix,
                )

"""``Options`` lines 2.2 accepted and 2.4 refuses: + and - words mixed with plain ones, All/None after other
words, +All/-None. 2.2's ``set_options`` and ``merge_core_dir_configs`` (:mod:`httpd24.config.options`) are simulated on
the option bits to write what 2.2 did."""

from __future__ import annotations

from ..config import edit
from ..config.options import (ALL, EXECCGI, INC_WITH_EXEC, INCLUDES, INDEXES, MULTI, SYM_LINKS, SYM_OWNER, WORDS,
                              known, read_22, refusal_24)
from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import unresolved
from .changed_defaults import access_file_names, is_htaccess

#: The words that name a set of bits, in the order the fix writes them (All first: 2.4 wants it so).
_CANONICAL = (
    ("All", ALL),
    ("Indexes", INDEXES),
    ("Includes", INCLUDES | INC_WITH_EXEC),
    ("IncludesNOEXEC", INCLUDES),
    ("FollowSymLinks", SYM_LINKS),
    ("SymLinksIfOwnerMatch", SYM_OWNER),
    ("ExecCGI", EXECCGI),
    ("MultiViews", MULTI),
)


def _names(bits: int, *, skip_all: bool = False) -> list[str] | None:
    """Words that set exactly ``bits`` (None when no words do: Includes' exec bit without Includes)."""
    out = []
    for word, value in _CANONICAL:
        if word == "All" and skip_all:
            continue
        if bits & value == value and value:
            out.append(word)
            bits &= ~value
    return out if not bits else None


def _absolute_words(words: list[str], opts: int) -> list[str] | None:
    """The plain words that set ``opts``: those of the line (signs dropped, spelling kept) when they add up to
    it, else the canonical ones."""
    kept, covered = [], 0
    for word in words:
        if word[:1] == "-":
            continue
        name = word.lstrip("+")
        bits = WORDS[name.lower()]
        if bits and bits & opts == bits and bits & ~covered:
            kept.append(name)
            covered |= bits
    if covered == opts and kept and refusal_24(kept) is None:
        return kept
    return _names(opts) or (["None"] if not opts else None)


def _relative_words(add: int, remove: int) -> list[str] | None:
    plus, minus = _names(add, skip_all=True), _names(remove, skip_all=True)
    if plus is None or minus is None:
        return None
    return [f"-{w}" for w in minus] + [f"+{w}" for w in plus]


def _listed(bits: int, sign: str = "") -> str:
    names = _names(bits) or ["(exec of Includes)"]
    return " ".join(sign + n for n in names)


@register
class OptionsSyntax22(Rule):
    """
    ## What it does
    Finds `Options` lines that 2.2 accepted and 2.4 refuses (in the
    configuration and in `.htaccess` files): words with `+` or `-` mixed
    with words without (`Options Indexes +FollowSymLinks`), `All` or `None`
    after another word (`Options Indexes All`), and `+All`, `-All`,
    `+None`, `-None`.

    ## Why is this bad?
    2.4 refuses to start: "Either all Options must start with + or -, or no
    Option may." (or "'Options All' must be the first option given.", "You
    may not use 'Options +All' or 'Options -All'."); in an `.htaccess` file
    it answers 500 to every request of that directory. 2.2 read such a line
    word by word (`set_options` in server/core.c of httpd 2.2): a `+` or `-`
    word adds or removes its option, and the FIRST word without a sign
    resets the options to none, making the line an absolute setting; later
    words without a sign add their option. A `+`/`-` word before that first
    plain word is wiped from this directory's options but stays in the
    list of additions and removals that sections below inherit when their
    own `Options` use only `+`/`-` (`merge_core_dir_configs`). `All` is
    `Indexes Includes FollowSymLinks ExecCGI` (not `MultiViews`, not
    `SymLinksIfOwnerMatch`); `None` adds nothing, even after other words.

    Sources: httpd 2.2.x server/core.c, `set_options` (its `first` flag is
    cleared only by a word without a sign) and `merge_core_dir_configs` (a
    record with a plain word replaces the inherited one; one of `+`/`-`
    words only is applied to it), with the option bits of 2.2.12 and later
    (`Includes` carries an exec bit, `IncludesNOEXEC` not); httpd 2.4
    server/core.c, `set_options`, for the refusals, whose messages the tests
    check on apache2 2.4.

    ## Example
    ```apache
    <Directory /srv/www>
        Options Indexes +FollowSymLinks -Includes
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory /srv/www>
        Options Indexes FollowSymLinks
    </Directory>
    ```

    ## Fix safety
    Safe: the fix writes 2.2's result. A line with a plain word becomes
    the plain list of the options 2.2 gave the directory (`Options All
    -Indexes MultiViews` becomes `Options Includes FollowSymLinks ExecCGI
    MultiViews`); a line of `+`/`-` words only (`+All`) becomes the `+`/`-`
    words 2.2 kept (`+Indexes +Includes +FollowSymLinks +ExecCGI`); a line
    that changed nothing (`Options +None`) is removed. The plain list
    passes on no `+`/`-` words, where 2.2's line passed on some; that changes
    nothing when every `+` word of the line is among the directory's
    options and no `-` word is (what the sections below inherit is then
    the same either way), which the fix requires. There is no fix
    where 2.2 gave the directory one set of options and the sections below
    it another (`Options +FollowSymLinks Indexes`: the directory did not
    follow symlinks, the sections below with `+`/`-` Options did), nor where
    `Includes` and `IncludesNOEXEC` meet in one line (what that meant changed
    in 2.2.12): a person must decide.
    """

    code = "HT121"
    name = "options-22-syntax"
    severity = Severity.ERROR
    summary = "Options mixes +/- words with plain ones (or All/None not first): 2.4 refuses it"
    fix_availability = "sometimes"
    directives = ("options",)

    def check(self, ctx, item):
        words = list(item.args)
        if not words or unresolved(item) or not known(words):
            return  # an unknown word: 2.2 refused the line too ("Illegal option")
        refusal = refusal_24(words)
        if refusal is None:
            return
        if is_htaccess(item.file, access_file_names(ctx)):
            consequence = "2.4 answers 500 to every request of this directory"
        else:
            consequence = "2.4 refuses to start"
        line = "Options " + " ".join(words)
        head = f'{line}: {consequence} ("{refusal}")'
        read = read_22(words)
        plain = {w.lower() for w in words}
        mixed_includes = "includesnoexec" in {w.lstrip("+-") for w in plain} and any(
            w.lstrip("+-") in ("includes", "all") for w in plain)
        wiped = read.add & ~read.opts if read.absolute else 0
        kept_out = read.remove & read.opts if read.absolute else 0
        if mixed_includes or wiped or kept_out:
            if mixed_includes:
                why = ("Includes and IncludesNOEXEC in one line meant different things before and after 2.2.12 "
                       "(IncludesNOEXEC's bits changed)")
            else:
                parts = []
                if wiped:
                    parts.append(_listed(wiped, "+"))
                if kept_out:
                    parts.append(_listed(kept_out, "-"))
                why = (f"2.2 gave this directory `Options {_listed(read.opts) if read.opts else 'None'}` but kept "
                       f"{' and '.join(parts)} for the sections below whose Options use only + and -")
            yield self.finding(item, f"{head}; {why}: a person must decide which was meant")
            return
        node = item.node
        if read.absolute:
            new = _absolute_words(words, read.opts)
        else:
            new = _relative_words(read.add, read.remove)
        if new is None:
            yield self.finding(item, f"{head}; no Options line of 2.4 sets what 2.2 read: a person must decide")
            return
        if not new:
            fix = self.fix("remove the Options line (it changed nothing in 2.2)", Applicability.SAFE,
                           lambda: edit.remove(node), node)
            yield self.finding(item, f"{head}; 2.2 changed nothing with it: remove it", fix=fix)
            return
        text = "Options " + " ".join(new)
        fix = self.fix(f"write {text}", Applicability.SAFE, lambda: edit.set_args(node, new), node)
        yield self.finding(item, f"{head}; 2.2 read it as `{text}`", replacement=text, fix=fix)

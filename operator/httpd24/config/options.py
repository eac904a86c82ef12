"""What an ``Options`` line sets, and how httpd merges the options of per-directory records.

Read by the HT121 rule (what 2.2 made of a line 2.4 refuses) and by the access model (whether the directory
walk follows symlinks at a directory, which decides the sections a file meets: :mod:`httpd24.access.model`).
Sources: ``set_options`` and ``merge_core_dir_configs`` in server/core.c (2.2.12+ and 2.4 alike for the lines
2.4 accepts), the option bits of include/http_core.h.
"""

from __future__ import annotations

from typing import NamedTuple

# The option bits of httpd 2.4 and 2.2.12+ (include/http_core.h).
INDEXES, INCLUDES, INC_WITH_EXEC, SYM_LINKS, SYM_OWNER, EXECCGI, MULTI = (1, 2, 4, 8, 16, 32, 64)
ALL = INDEXES | INCLUDES | INC_WITH_EXEC | SYM_LINKS | EXECCGI

#: Option word (lower case) -> its bits, as 2.2.12+ and 2.4's set_options map them.
WORDS = {
    "indexes": INDEXES,
    "includes": INCLUDES | INC_WITH_EXEC,
    "includesnoexec": INCLUDES,
    "followsymlinks": SYM_LINKS,
    "symlinksifownermatch": SYM_OWNER,
    "execcgi": EXECCGI,
    "multiviews": MULTI,
    "runscripts": MULTI | EXECCGI,
    "none": 0,
    "all": ALL,
}

_MIXED = "Either all Options must start with + or -, or no Option may."


def refusal_24(words: list[str]) -> str | None:
    """What 2.4's ``set_options`` (server/core.c) answers to these words: its error, or None when it accepts
    them (an unknown word, which 2.2 refused too, counts as accepted here)."""
    first, merge, all_none = True, False, False
    for word in words:
        signed = word[:1] in ("+", "-")
        if signed:
            if not merge and not first and not all_none:
                return _MIXED
            merge = True
        elif not first and merge:
            return _MIXED
        name = word[1:].lower() if signed else word.lower()
        if name in ("none", "all"):
            label = "None" if name == "none" else "All"
            if not first:
                # sic: httpd writes "Option" for None and "option" for All
                return f"'Options {label}' must be the first {'Option' if name == 'none' else 'option'} given."
            if merge:
                return f"You may not use 'Options +{label}' or 'Options -{label}'."
            all_none = True
        elif name not in WORDS:
            return None
        first = False
    return None


def known(words: list[str]) -> bool:
    """Whether every word names an option (httpd refuses the line otherwise: "Illegal option")."""
    return all((w[1:] if w[:1] in ("+", "-") else w).lower() in WORDS for w in words)


class Read22(NamedTuple):
    """A directory's options record as ``set_options`` leaves it: ``absolute`` when a plain word reset the
    options (the record replaces the inherited one), ``opts`` the options of this directory, ``add`` and
    ``remove`` the +/- words kept for the sections below that change options with + or - only."""

    absolute: bool
    opts: int
    add: int
    remove: int


#: A <Directory> section's or .htaccess file's record before any Options line (core's OPT_UNSET).
UNSET = Read22(False, 0, 0, 0)
#: The server's (and each virtual host's) record before any Options line: FollowSymLinks on 2.4; 2.2's
#: default was All, which holds it too (and not SymLinksIfOwnerMatch), so the walk is the same.
SERVER_DEFAULT = Read22(False, SYM_LINKS, 0, 0)


def read_22(words: list[str], record: Read22 = UNSET) -> Read22:
    """2.2's ``set_options`` on ``record`` (the record of the section so far: every Options line of one section
    changes the same record): a +/- word changes ``opts`` and its add/remove lists; the FIRST plain word of the
    line resets ``opts`` to none (``first`` is cleared only by a plain word, so +/- words before it are wiped
    from ``opts`` but stay in the add/remove lists); plain words add. 2.4 reads the lines it accepts alike."""
    first = True
    absolute, opts, add, remove = record
    for word in words:
        action = word[0] if word[:1] in ("+", "-") else ""
        name = word[1:] if action else word
        if not action and first:
            opts, first, absolute = 0, False, True
        bits = WORDS[name.lower()]
        if action == "-":
            remove |= bits
            add &= ~bits
            opts &= ~bits
        elif action == "+":
            add |= bits
            remove &= ~bits
            opts |= bits
        else:
            opts |= bits
    return Read22(absolute, opts, add, remove)


def merged(base: Read22, new: Read22) -> Read22:
    """``merge_core_dir_configs`` (and the directory walk's ``core_opts_merge``): a record with a plain word
    replaces the inherited one; one of +/- words only is applied to it, its lists joined to the inherited ones."""
    if new.absolute:
        return new
    add = (base.add & ~new.remove) | new.add
    remove = (base.remove & ~new.add) | new.remove
    return Read22(base.absolute, (base.opts & ~remove) | add, add, remove)


def follows_symlinks(record: Read22) -> bool:
    """Whether the directory walk takes a name for a directory without an lstat (request.c, "First
    optimization"): FollowSymLinks without SymLinksIfOwnerMatch."""
    return record.opts & (SYM_OWNER | SYM_LINKS) == SYM_LINKS

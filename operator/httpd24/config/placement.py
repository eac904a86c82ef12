"""Where httpd refuses a section: its nesting checks, as both 2.2 and 2.4 make them.

A configuration with such a section never started, so there are no answers of today for a
migration to keep: the rules that rewrite must know it (the access plan offers no fix then), and
the person must be told what to move where (HT409). Checked against ``httpd -t`` in
tests/rules/test_misplaced_section.py.
"""

from __future__ import annotations

import posixpath
from typing import NamedTuple, Sequence

from .nodes import Section

#: Sections read only at the server or <VirtualHost> level: their command takes RSRC_CONF alone, which
#: httpd never grants inside a per-directory section ("<Directory not allowed in <Files> context").
SERVER_LEVEL = frozenset({"directory", "directorymatch", "location", "locationmatch", "proxy", "proxymatch",
                          "virtualhost", "authnprovideralias", "authzprovideralias"})
#: Of those, the ones that refuse a <VirtualHost> around them too (GLOBAL_ONLY).
GLOBAL = frozenset({"virtualhost", "authnprovideralias", "authzprovideralias"})
#: Sections whose inside is per-directory context.
PER_DIRECTORY = frozenset({"directory", "directorymatch", "location", "locationmatch", "files", "filesmatch",
                           "proxy", "proxymatch", "limit", "limitexcept", "if", "elseif", "else",
                           "requireall", "requireany", "requirenone"})
#: Sections that narrow the request methods (httpd's ``cmd->limited``), which <Files> and <If> refuse
#: around them; mod_authz_core's <RequireAll>/<RequireAny>/<RequireNone> set it too.
LIMITING = frozenset({"limit", "limitexcept", "requireall", "requireany", "requirenone"})
#: Sections read only in per-directory context; <RequireAll> and the others outside one are HT506's.
DIRECTORY_ONLY = frozenset({"limit", "limitexcept"})
#: Conditional sections: httpd splices their inside into the section around them.
TRANSPARENT = frozenset({"ifmodule", "ifdefine", "ifversion", "iffile", "ifdirective", "ifsection"})
#: Sections 2.2 does not have: a nesting with one of them was refused by 2.4 only.
ONLY_24 = frozenset({"if", "elseif", "else", "requireall", "requireany", "requirenone", "authzprovideralias"})
#: Every section :func:`refusal` judges.
JUDGED = SERVER_LEVEL | DIRECTORY_ONLY | frozenset({"files", "filesmatch", "if", "elseif", "else"})


class Refusal(NamedTuple):
    """Why httpd refuses a section where it stands, and what to do."""

    #: Where it stands: "inside <RequireAll> (site.conf:2)", "at the server level", "in an .htaccess file".
    where: str
    #: httpd's own words, to find its error message by.
    says: str
    #: What to do about it.
    advice: str
    #: A section of 2.4 only is involved: 2.2 had nothing to refuse.
    only_24: bool
    #: In an .htaccess file: httpd starts, and answers 500 under its directory.
    htaccess: bool

    def message(self, section: Section) -> str:
        effect = ("httpd answers 500 for every request under this .htaccess's directory" if self.htaccess
                  else "httpd refuses to start" + ("" if self.only_24 else ", 2.2 as 2.4"))
        return f"{label(section)} {self.where}: {effect} (\"{self.says}\"); {self.advice}"


def label(section: Section) -> str:
    """The section as a person finds it in the file: ``<Directory /srv/www>``, ``<RequireAll>``."""
    return f"<{' '.join((section.name, *section.args))}>"


def _at(section: Section) -> str:
    return f"{label(section)} ({section.document.name}:{section.location.line})"


def is_htaccess(name: str, via: Sequence[object] = ()) -> bool:
    """Whether a file of the set is read as an .htaccess file (per request, in directory context)."""
    return not via and posixpath.basename(name).endswith("htaccess")


def refusal(section: Section, context: Sequence[Section], htaccess: bool = False) -> Refusal | None:
    """Why httpd refuses ``section`` inside ``context`` (the sections around it, outermost first, across
    Include), None when it takes it. ``htaccess``: the section's file is an .htaccess file."""
    key = section.key
    if key not in JUDGED:
        return None
    standing = [s for s in context if s.key not in TRANSPARENT]
    parent = standing[-1] if standing else None
    per_directory = [s for s in standing if s.key in PER_DIRECTORY]
    name = f"<{section.name}"
    only_24 = key in ONLY_24 or any(s.key in ONLY_24 for s in standing)
    if key in SERVER_LEVEL:
        level = "the server level, outside every section" if key in GLOBAL else "the server or <VirtualHost> level"
        if per_directory:
            return Refusal(f"inside {_at(parent)}", f"{name} not allowed in <{parent.name}> context",
                           f"a {name}> section belongs at {level}: move it out of {_at(per_directory[0])}",
                           only_24, htaccess)
        if htaccess:
            return Refusal("in an .htaccess file", f"{name} not allowed here",
                           f"a {name}> section belongs at {level} of the server's configuration: move it there",
                           only_24, True)
        vhost = next((s for s in standing if s.key == "virtualhost"), None)
        if key in GLOBAL and vhost is not None:
            return Refusal(f"inside {_at(vhost)}", f"{name}> cannot occur within <VirtualHost> section",
                           f"move it out of {_at(vhost)} to the server level", only_24, htaccess)
        return None
    if key in DIRECTORY_ONLY:
        if per_directory or htaccess:
            return None
        where, says = ((f"at the level of {_at(parent)}", f"{name} not allowed in <{parent.name}> context")
                       if parent is not None else ("at the server level", f"{name} not allowed here"))
        return Refusal(where, says, "it narrows the access lines of a <Directory>, <Location>, <Files> or <Proxy> "
                       "section to some methods: move it into the section it was meant for", only_24, htaccess)
    # <Files>, <FilesMatch>, <If>, <ElseIf>, <Else>: per-directory sections with checks of their own.
    limiting = next((s for s in reversed(standing) if s.key in LIMITING), None)
    if limiting is not None:
        advice = (f"move it out of {_at(limiting)}, and put a {label(limiting)} inside it if its lines should "
                  f"apply to those methods only" if limiting.key in ("limit", "limitexcept") else
                  f"move it out of {_at(limiting)}, which holds Require lines only")
        return Refusal(f"inside {_at(parent)}", f"{name}> cannot occur within <Limit> or <LimitExcept> section",
                       advice, only_24, htaccess)
    location = next((s for s in standing if s.key in ("location", "locationmatch")), None)
    if key in ("files", "filesmatch") and location is not None:
        return Refusal(f"inside {_at(parent)}", f"{name}> cannot occur within <{location.name}> section",
                       f"a URL section cannot hold a file-name one: move it out of {_at(location)} (to the "
                       f"server, <VirtualHost> or <Directory> level), or match the URL with <LocationMatch>",
                       only_24, htaccess)
    return None


def misplaced(section: Section, context: Sequence[Section], htaccess: bool = False) -> Refusal | None:
    """:func:`refusal`, for the outermost section httpd refuses only: httpd stops there, and moving it
    out may be all the sections inside it need."""
    for depth, around in enumerate(context):
        if refusal(around, context[:depth], htaccess) is not None:
            return None
    return refusal(section, context, htaccess)

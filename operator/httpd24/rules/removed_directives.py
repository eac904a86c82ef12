"""Directives of 2.2 modules and MPMs that 2.4 no longer has: mod_mem_cache, CookieLog,
SSIAccessEnable, Win32DisableAcceptEx (mpm_winnt) and MaxRequestsPerThread (BeOS MPM)."""

from __future__ import annotations

from ..engine import Applicability, Rule, Severity, register
from ..config import edit
from ._ht1xx import quote, removal, replacement
from .mutex import mpm_of

#: 2.2's CookieLog was CustomLog with this fixed format (mod_log_config.c, set_cookie_log).
COOKIE_LOG_FORMAT = '%{Cookie}n "%r" %t'


@register
class MemCacheDirective(Rule):
    """
    ## What it does
    Finds the directives of mod_mem_cache (`MCacheSize`,
    `MCacheMaxObjectCount`, `MCacheMaxObjectSize`, `MCacheMinObjectSize`,
    `MCacheMaxStreamingBuffer`, `MCacheRemovalAlgorithm`) where 2.4 reads
    them, i.e. outside an `<IfModule mod_mem_cache.c>` (which is never true
    on 2.4 and is not reported).

    ## Why is this bad?
    mod_mem_cache does not exist in 2.4: the server refuses to start
    ("Invalid command 'MCacheSize'").

    ## Example
    ```apache
    CacheEnable mem /
    MCacheSize 4096
    ```

    ## Use instead
    ```apache
    # disk cache (the upgrade guide's replacement)
    CacheEnable disk /
    CacheRoot /var/cache/apache2/mod_cache_disk
    # or a shared-memory cache
    CacheEnable socache /
    CacheSocache shmcb
    ```

    ## Fix safety
    No fix: choosing mod_cache_disk (files on disk, survives restarts) or
    mod_cache_socache (shmcb or another socache provider, sized in bytes),
    and their sizes, is a person's decision. `CacheEnable mem` lines are
    another rule's concern.
    """

    code = "HT115"
    name = "mem-cache-directive"
    severity = Severity.ERROR
    summary = "mod_mem_cache and its MCache* directives are gone in 2.4"
    directives = (
        "mcachesize", "mcachemaxobjectcount", "mcachemaxobjectsize", "mcacheminobjectsize",
        "mcachemaxstreamingbuffer", "mcacheremovalalgorithm",
    )

    def check(self, ctx, item):
        yield self.finding(
            item,
            f"{item.node.name} belongs to mod_mem_cache, which 2.4 does not have (start-up fails); choose "
            "mod_cache_disk (CacheEnable disk, CacheRoot) or mod_cache_socache (CacheEnable socache, "
            "CacheSocache shmcb) and size it, then remove the MCache* lines",
        )


@register
class CookieLog(Rule):
    """
    ## What it does
    Finds `CookieLog`.

    ## Why is this bad?
    2.4's mod_log_config no longer has it ("Invalid command 'CookieLog'").
    In 2.2 it was a shorthand for a `CustomLog` with the fixed format
    `%{Cookie}n "%r" %t` (the cookie mod_usertrack notes, the request line
    and the time).

    ## Example
    ```apache
    CookieLog logs/cookies
    ```

    ## Use instead
    ```apache
    CustomLog logs/cookies "%{Cookie}n \\"%r\\" %t"
    ```

    ## Fix safety
    Safe: 2.2 turned `CookieLog file` into exactly this `CustomLog`
    (`set_cookie_log` in mod_log_config.c), and 2.4's `CustomLog` writes the
    same lines. A piped target (`|program`) is then judged like any piped
    `CustomLog` (2.4 no longer runs it through a shell).
    """

    code = "HT116"
    name = "cookie-log"
    severity = Severity.ERROR
    summary = "CookieLog is gone in 2.4; use CustomLog with the cookie format"
    fix_availability = "sometimes"
    directives = ("cookielog",)

    def check(self, ctx, item):
        if len(item.node.args) != 1:
            yield self.finding(item, "CookieLog is not in 2.4's mod_log_config (start-up fails): write CustomLog "
                                     f"<file> {quote(COOKIE_LOG_FORMAT)}")
            return
        target = item.node.raw_args[0]
        text = f"CustomLog {target} {quote(COOKIE_LOG_FORMAT)}"
        yield self.finding(
            item,
            "CookieLog is not in 2.4's mod_log_config (start-up fails); 2.2 wrote the same lines as "
            f"this CustomLog: {text}",
            replacement=text,
            fix=replacement(self, item, text, Applicability.SAFE),
        )


@register
class SSIAccessEnable(Rule):
    """
    ## What it does
    Finds `SSIAccessEnable` (which the 2.2 manual misspells `SSIEnableAccess`).

    ## Why is this bad?
    2.4's mod_include has no such directive (start-up fails). It switched
    on the `-A` (URL access) test in `<!--#if expr -->`; in 2.4 `-A` is always
    available, in the legacy expression parser and as an alias of `-U` in
    ap_expr.

    ## Example
    ```apache
    SSIAccessEnable on
    ```

    ## Use instead
    Nothing: remove the line.

    ## Fix safety
    Safe for `on`: 2.4 always allows `-A`. For `off` (2.2's default) the
    line is removed as well: 2.2 then rejected pages that used `-A`, 2.4
    evaluates them; the message says so.
    """

    code = "HT117"
    name = "ssi-access-enable"
    severity = Severity.ERROR
    summary = "SSIAccessEnable is gone in 2.4 (-A is always available)"
    fix_availability = "always"
    directives = ("ssiaccessenable", "ssienableaccess")

    def check(self, ctx, item):
        value = item.args[0].lower() if item.args else ""
        note = "" if value == "on" else "; with Off, 2.2 refused '-A' tests, 2.4 evaluates them"
        yield self.finding(
            item,
            f"{item.node.name} is not in 2.4's mod_include (start-up fails): the -A test of "
            f"<!--#if expr --> is always available; remove it{note}",
            fix=removal(self, item),
        )


@register
class Win32DisableAcceptEx(Rule):
    """
    ## What it does
    Finds `Win32DisableAcceptEx` (2.2's Windows MPM).

    ## Why is this bad?
    2.4's mpm_winnt dropped it (start-up fails); the per-protocol
    `AcceptFilter` with `none` makes the Windows MPM use `accept()` instead
    of `AcceptEx()`, which is what the directive did.

    ## Example
    ```apache
    Win32DisableAcceptEx
    ```

    ## Use instead
    ```apache
    <IfModule mpm_winnt_module>
        AcceptFilter http none
        AcceptFilter https none
    </IfModule>
    ```

    ## Fix safety
    Safe on Windows, where the directive existed: both protocols stop using
    AcceptEx as before. On other systems `AcceptFilter http none` would
    also turn off the default accept filters (TCP_DEFER_ACCEPT on Linux),
    so unless the MPM is known to be mpm_winnt (an enclosing
    `<IfModule mpm_winnt.c>`, the MPM loaded, or the target's) the lines
    are wrapped in `<IfModule mpm_winnt_module>`: a configuration shared
    with other systems keeps their accept filters.
    """

    code = "HT118"
    name = "win32-disable-acceptex"
    severity = Severity.ERROR
    summary = "Win32DisableAcceptEx is replaced by AcceptFilter ... none"
    fix_availability = "always"
    directives = ("win32disableacceptex",)

    def check(self, ctx, item):
        lines = ["AcceptFilter http none", "AcceptFilter https none"]
        where = ""
        if mpm_of(ctx, item) != "winnt":
            unit = edit.indent_unit(item.node.document)
            lines = ["<IfModule mpm_winnt_module>", *(unit + line for line in lines), "</IfModule>"]
            where = " (kept to mpm_winnt: elsewhere they would turn off the default accept filters)"
        yield self.finding(
            item,
            "Win32DisableAcceptEx is not in 2.4 (start-up fails); AcceptFilter http none and "
            f"AcceptFilter https none turn AcceptEx off{where}",
            replacement=" ".join(line.strip() for line in lines),
            fix=replacement(self, item, "\n".join(lines), Applicability.SAFE),
        )


@register
class MaxRequestsPerThread(Rule):
    """
    ## What it does
    Finds `MaxRequestsPerThread` where 2.4 reads it (outside an
    `<IfModule mpm_beos_module>`, which is never true on 2.4).

    ## Why is this bad?
    It belonged to the BeOS MPM, which 2.4 does not have: the server refuses
    to start.

    ## Example
    ```apache
    MaxRequestsPerThread 10000
    ```

    ## Use instead
    ```apache
    # on the 2.4 MPM you choose, limit connections per child process
    MaxConnectionsPerChild 10000
    ```

    ## Fix safety
    No fix: no 2.4 MPM recycles single threads, and a per-process limit
    counts connections, not requests; what to use instead is for a person to
    decide.
    """

    code = "HT119"
    name = "max-requests-per-thread"
    severity = Severity.ERROR
    summary = "MaxRequestsPerThread (BeOS MPM) is gone in 2.4"
    directives = ("maxrequestsperthread",)

    def check(self, ctx, item):
        yield self.finding(
            item,
            "MaxRequestsPerThread belonged to the BeOS MPM, which 2.4 does not have (start-up fails); remove it "
            "and, if processes must be recycled, set MaxConnectionsPerChild (it counts connections)",
        )

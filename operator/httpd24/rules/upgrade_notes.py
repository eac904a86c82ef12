"""Changed behaviour that needs no configuration change, or a step outside the configuration (spec §2.3)."""

from __future__ import annotations

from ..engine import Rule, Severity, register


def _first(ctx, *keys, where=lambda item: True):
    for item in ctx.items(*keys):
        if where(item):
            return item
    return None


@register
class DavLockDBFormat(Rule):
    """
    ## What it does
    Finds `DavLockDB`.

    ## Why is this bad?
    mod_dav_fs 2.4 changed the format of the lock database on systems with
    inodes. A database left by 2.2 is not read correctly; the upgrade guide
    says to delete it during the upgrade.

    ## Example
    ```apache
    DavLockDB /var/lock/apache2/DAVLock
    ```

    ## Use instead
    The same line; stop the server, delete `/var/lock/apache2/DAVLock*`
    (the SDBM files `.dir` and `.pag`), start 2.4.

    ## Fix safety
    No fix: it is a step outside the configuration.
    """

    code = "HT213"
    about_22_behaviour = True
    name = "dav-lock-db-format"
    severity = Severity.INFO
    summary = "Delete the DAV lock database during the upgrade (format changed)"
    directives = ("davlockdb",)

    def check(self, ctx, item):
        path = item.args[0] if item.args else "?"
        yield self.finding(
            item,
            f"the DAV lock database format changed in 2.4: delete {path}.dir and {path}.pag (its SDBM files; {path} "
            "itself with another DBM) while the server is stopped during the upgrade",
        )


@register
class SubstituteLineLength(Rule):
    """
    ## What it does
    Reports the first `Substitute` of a configuration that sets no
    `SubstituteMaxLineLength`.

    ## Why is this bad?
    mod_substitute 2.4 gives up on a line longer than 1 MB (AH01328 "Line
    too long") and the response fails; 2.2 had no limit. Minified pages or
    JSON without line breaks can exceed it.

    ## Example
    ```apache
    Substitute "s/internal.example/www.example.com/n"
    ```

    ## Use instead
    ```apache
    Substitute "s/internal.example/www.example.com/n"
    SubstituteMaxLineLength 10m
    ```
    (2.4.11 and later) when responses may hold longer lines.

    ## Fix safety
    No fix: 2.2's "no limit" does not exist in 2.4, and the right bound
    depends on the content.
    """

    code = "HT214"
    about_22_behaviour = True
    name = "substitute-line-length"
    severity = Severity.INFO
    summary = "mod_substitute limits lines to 1 MB in 2.4"

    def check_config(self, ctx):
        if ctx.has("substitutemaxlinelength"):
            return
        item = _first(ctx, "substitute")
        if item is not None:
            yield self.finding(
                item,
                "mod_substitute 2.4 fails on lines longer than 1 MB (2.2 had no limit); set SubstituteMaxLineLength"
                " (2.4.11+) if responses can hold longer lines",
            )


@register
class ReqtimeoutDefaultTimeouts(Rule):
    """
    ## What it does
    Finds `LoadModule reqtimeout_module` in a configuration without
    `RequestReadTimeout`.

    ## Why is this bad?
    mod_reqtimeout 2.2 set no time-outs of its own. When loaded, 2.4 applies
    `header=20-40,MinRate=500 body=20,MinRate=500`: slow clients and slow
    uploads get 408 where 2.2 waited for `Timeout`.

    ## Example
    ```apache
    LoadModule reqtimeout_module modules/mod_reqtimeout.so
    ```

    ## Use instead
    Keep 2.4's defaults (they protect against slow-request attacks), or
    write them out, or switch them off with `RequestReadTimeout header=0
    body=0`.

    ## Fix safety
    No fix: 2.4's defaults are the safer choice; a person decides whether a
    slow client population needs other values.
    """

    code = "HT215"
    about_22_behaviour = True
    name = "reqtimeout-default-timeouts"
    severity = Severity.INFO
    summary = "mod_reqtimeout sets default time-outs in 2.4"

    def check_config(self, ctx):
        if ctx.has("requestreadtimeout"):
            return
        item = _first(ctx, "loadmodule", where=lambda i: bool(i.args) and i.args[0] == "reqtimeout_module")
        if item is not None:
            yield self.finding(
                item,
                "mod_reqtimeout 2.4 applies default time-outs (header=20-40,MinRate=500 body=20,MinRate=500) where"
                " 2.2 applied none; set RequestReadTimeout if clients need more time",
            )


def _uses_deflate(item) -> bool:
    args = [a.lower() for a in item.args]
    if item.key in ("addoutputfilterbytype", "addoutputfilter", "setoutputfilter") and args:
        return "deflate" in args[0].split(";")
    if item.key == "filterprovider" and len(args) >= 2:
        return args[1] == "deflate"
    return False


@register
class DeflateSkipsGrowingResponses(Rule):
    """
    ## What it does
    Reports the first use of the DEFLATE filter.

    ## Why is this bad?
    It is not: mod_deflate 2.4 leaves a response uncompressed when
    compression would make it bigger (tiny responses). Such responses now
    come without `Content-Encoding: gzip`; a test or client that insisted on
    gzip for every response may notice.

    ## Example
    ```apache
    AddOutputFilterByType DEFLATE text/html
    ```

    ## Use instead
    No change.

    ## Fix safety
    Nothing to fix.
    """

    code = "HT216"
    about_22_behaviour = True
    name = "deflate-skips-growing-responses"
    severity = Severity.INFO
    summary = "mod_deflate does not compress when it would add data (2.4)"

    def check_config(self, ctx):
        keys = ("addoutputfilterbytype", "addoutputfilter", "setoutputfilter", "filterprovider")
        item = _first(ctx, *keys, where=_uses_deflate)
        if item is not None:
            yield self.finding(
                item,
                "mod_deflate 2.4 sends responses uncompressed when compressing would make them bigger; no change needed",
            )


@register
class AutoindexXHTMLTitles(Rule):
    """
    ## What it does
    Finds `IndexOptions ScanHTMLTitles`.

    ## Why is this bad?
    mod_autoindex 2.4 also scans `.xhtml` files (`application/xhtml+xml`)
    for their titles and shows them as descriptions; 2.2 ignored them.
    Directory listings change where such files exist.

    ## Example
    ```apache
    IndexOptions FancyIndexing ScanHTMLTitles
    ```

    ## Use instead
    No change, or `AddDescription` for the `.xhtml` files whose listing
    should stay as it was.

    ## Fix safety
    Nothing to fix.
    """

    code = "HT217"
    about_22_behaviour = True
    name = "autoindex-xhtml-titles"
    severity = Severity.INFO
    summary = "mod_autoindex shows titles of .xhtml files in 2.4"
    directives = ("indexoptions",)

    def check(self, ctx, item):
        if any(a.lower().lstrip("+") == "scanhtmltitles" for a in item.args):
            yield self.finding(
                item, "with ScanHTMLTitles, mod_autoindex 2.4 also shows the titles of .xhtml files (2.2 skipped them)"
            )


@register
class HtpasswdMD5Default(Rule):
    """
    ## What it does
    Reports the first `AuthUserFile`.

    ## Why is this bad?
    The files stay valid: 2.4 reads crypt, MD5, SHA1 and bcrypt entries.
    But 2.4's `htpasswd` writes MD5 (`$apr1$`) entries by default on all
    platforms where 2.2's wrote crypt on Unix; another program that reads
    the same file and understands only crypt fails for users added or
    changed after the upgrade.

    ## Example
    ```apache
    <Location /private>
        AuthUserFile /etc/apache2/passwd
    </Location>
    ```

    ## Use instead
    No change; run `htpasswd -d` (crypt) or `-B` (bcrypt) explicitly where
    the format matters.

    ## Fix safety
    Nothing to fix in the configuration.
    """

    code = "HT218"
    about_22_behaviour = True
    name = "htpasswd-md5-default"
    severity = Severity.INFO
    summary = "htpasswd writes MD5 entries by default in 2.4"

    def check_config(self, ctx):
        item = _first(ctx, "authuserfile")
        if item is not None:
            yield self.finding(
                item,
                "htpasswd 2.4 writes MD5 ($apr1$) entries by default (2.2: crypt on Unix); pass -d or -B where other"
                " programs read this file",
            )

"""An Include of a file the configuration does not have (HT408)."""

from __future__ import annotations

import posixpath

from ..config import is_wildcard
from ..engine import Rule, Severity, register


@register
class IncludeMissing(Rule):
    """
    ## What it does
    Finds `Include` of a plain path (no wildcard) that names no file of the
    configuration, where all of the configuration's files are known: the
    directory a ConfigMap is mounted as (the server root, unless
    `httpd24.io/config-dir` names another), whose every file is one of its
    keys. `Include extra.conf` in a ConfigMap without the key `extra.conf`.

    Only a path directly in that directory is judged. Nothing is said of a
    path elsewhere (`/etc/apache2/mods-enabled/x.load`, `modules.conf` of
    the server root when the ConfigMap is mounted at `conf/`): the image may
    have the file, and what it has is not known here (the operator's rollout
    gate refuses an Include outside the ConfigMap). Nor of a subdirectory, or
    a path written as one (`conf.d/`): a ConfigMap has none, but a projected
    volume puts other sources there (the operator's `secrets/`). A
    configuration read from a disk (a file, a directory) is checked where it
    is read: `httpd24 lint` names a missing file there, on disk.

    ## Why is this bad?
    httpd refuses to start, 2.2 and 2.4 alike: "Could not open configuration
    file /etc/httpd24/extra.conf: No such file or directory". It is no 2.2 ->
    2.4 change, but the pods crash on it, and nothing else says so before.

    ## Example
    ```apache
    # a ConfigMap with the keys httpd.conf and site.conf
    Include extra.conf
    ```

    ## Use instead
    Add the key `extra.conf` to the ConfigMap, or remove the line; or write
    `IncludeOptional extra.conf` where the file may rightly be absent.

    ## Fix safety
    No fix: what the file should hold is not known. `IncludeOptional` would
    start a server without it, which the configuration did not ask for.
    """

    code = "HT408"
    name = "include-missing-file"
    severity = Severity.ERROR
    summary = "Include of a file the configuration does not have: httpd (2.2 as 2.4) refuses to start"

    def check_config(self, ctx):
        configset = ctx.configset
        listing = configset.listing
        if listing is None:
            return
        for unresolved in ctx.view.unresolved:
            pattern = unresolved.pattern
            if (unresolved.optional or is_wildcard(pattern) or "${" in pattern or pattern.endswith("/")
                    or not ctx.view.is_live(unresolved.node)):
                continue
            # None: an absolute path outside the server root, which the set names as it is.
            name = configset.name_of(pattern) or posixpath.normpath(pattern)
            if not listing.lacks(name):
                continue
            key = posixpath.basename(name)
            where = name if name.startswith("/") else posixpath.join(configset.server_root, name)
            yield self.finding(
                unresolved.node,
                f"Include {pattern}: {where} is no file of this configuration (no file or ConfigMap key {key}), "
                "and httpd refuses to start without it, 2.2 as 2.4 (\"Could not open configuration file\"): "
                f"add {key}, or remove the line",
            )

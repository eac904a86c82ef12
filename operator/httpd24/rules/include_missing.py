"""An Include of a file the configuration does not have (HT408)."""

from __future__ import annotations

import posixpath

from ..config import is_wildcard
from ..engine import Rule, Severity, register


@register
class IncludeMissing(Rule):
    """
    ## What it does
    Finds `Include` of a plain path (no wildcard) that opens no file on the
    server, wherever the configuration's files are all known:

    * a ConfigMap: the directory it is mounted as (the server root, unless
      `httpd24.io/config-dir` names another), whose every file is one of its
      keys. `Include extra.conf` in a ConfigMap without the key `extra.conf`.
      Nothing is said of a path elsewhere (`/etc/apache2/mods-enabled/x.load`,
      `modules.conf` of the server root when the ConfigMap is mounted at
      `conf/`): the image may have the file (the operator's rollout gate
      refuses an Include outside the ConfigMap). Nor of a subdirectory, or a
      path written as one (`conf.d/`): a projected volume puts other sources
      there (the operator's `secrets/`);
    * files on disk: the server root, as the file's `ServerRoot` line or
      `--server-root` names it, or a directory given that holds the entry file
      (`httpd.conf`, `apache2.conf`). A path outside it, or under a server root
      that is a guess (a virtual host file given alone), is named on stderr as
      not checked: the server may have it.

    The same finding at the Include line for each input, as `apache2 -t` says
    the same of each: a CI log names the line, and an ignore mark silences it
    where the server has a file the repository does not.

    ## Why is this bad?
    httpd refuses to start, 2.2 and 2.4 alike: "Could not open configuration
    file /etc/httpd24/extra.conf: No such file or directory". It is no 2.2 ->
    2.4 change, but the server does not start on it, and nothing else says so
    before.

    ## Example
    ```apache
    # a ConfigMap with the keys httpd.conf and site.conf
    Include extra.conf
    ```

    ## Use instead
    Add the file (the key `extra.conf`), or remove the line; or write
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
        if configset.listing is None and not configset.disk_is_server_root:
            return
        for unresolved in ctx.view.unresolved:
            pattern = unresolved.pattern
            if (unresolved.optional or is_wildcard(pattern) or "${" in pattern
                    or not ctx.view.is_live(unresolved.node) or not configset.opens_no_file(pattern)):
                continue
            # None: an absolute path outside the server root, which the set names as it is.
            name = configset.name_of(pattern) or posixpath.normpath(pattern)
            where = name if name.startswith("/") else posixpath.join(configset.server_root, name)
            if configset.listing is not None:
                key = posixpath.basename(name)
                yield self.finding(
                    unresolved.node,
                    f"Include {pattern}: {where} is no file of this configuration (no file or ConfigMap key {key}), "
                    "and httpd refuses to start without it, 2.2 as 2.4 (\"Could not open configuration file\"): "
                    f"add {key}, or remove the line",
                )
                continue
            yield self.finding(
                unresolved.node,
                f"Include {pattern}: there is no {where}, and httpd refuses to start without it, 2.2 as 2.4 "
                f"(\"Could not open configuration file {where}: No such file or directory\"): add the file, or "
                "remove the line; give --server-root if the server root is another directory, or write "
                "IncludeOptional if the server does not have the file either",
            )

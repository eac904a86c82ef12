"""MPM tuning that 2.4 never reads: 2.2 compiled its MPM in, 2.4 loads one, maybe another.

A 2.2 configuration tunes its MPM inside ``<IfModule prefork.c>`` / ``<IfModule worker.c>``
(the stock httpd.conf and Debian's apache2.conf have both): the MPM the binary was built with
read its block. 2.4 runs the MPM that is loaded, and a configuration that loads none gets the one
``httpd24 modules`` chooses (2.4's default, event, unless a setting needs another). When that MPM
reads none of the blocks, every limit in them (``MaxClients``, ``StartServers``, ...) is silently
back to 2.4's defaults: event allows 400 simultaneous requests where the stock prefork block
allowed 256, and a site that sized its back end by ``MaxClients`` finds out under load.
"""

from __future__ import annotations

from ..config.nodes import Directive, Section
from ..engine import Rule, Severity, register
from ..engine.modules import BY_DEFAULT, BY_MODULES, BY_SETTINGS, choose_mpm, tuned_mpm
from .modules_includes import load_path
from .mutex import MPM_NAMES


def _settings(section) -> list[Directive]:
    return [node for node in section.walk() if isinstance(node, Directive) and not isinstance(node, Section)]


#: Why the running MPM is the one it is, as HT407 says it.
_WHY = {
    BY_SETTINGS: f"{BY_SETTINGS} (httpd24 modules lists why)",
    BY_MODULES: f"{BY_MODULES}: mod_php is not thread-safe",
    BY_DEFAULT: f"{BY_DEFAULT}, as the configuration loads no MPM and tunes more than one",
}


@register
class MpmTuningUnread(Rule):
    """
    ## What it does
    Finds `<IfModule>` blocks for an MPM (`prefork.c`, `worker.c`,
    `mpm_prefork_module`, ...) when the MPM that 2.4 will run reads none of
    them: the MPM the configuration (or the target server) loads, else the
    one `httpd24 modules` chooses for it (2.4's default, event, unless a
    setting such as `MinSpareServers` or a loaded mod_php needs prefork).

    ## Why is this bad?
    httpd 2.2 compiled its MPM in (`httpd -V` shows `Server MPM:`), and the
    configuration's block for that MPM set its limits. 2.4 loads the MPM as a
    module; under another MPM the blocks are skipped without a word, and
    `MaxClients`, `StartServers`, `MaxRequestsPerChild` and the rest fall
    back to 2.4's defaults (event: 400 simultaneous requests, threads instead
    of processes, which also breaks modules that are not thread-safe such as
    mod_php). It starts, and behaves differently under load.

    ## Example
    ```apache
    <IfModule prefork.c>
        StartServers 8
        MaxClients 256
    </IfModule>
    <IfModule worker.c>
        MaxClients 300
        ThreadsPerChild 25
    </IfModule>
    ```

    ## Use instead
    Load the MPM the 2.2 server ran, so that its block is read:
    ```apache
    LoadModule mpm_prefork_module modules/mod_mpm_prefork.so
    ```
    or keep 2.4's event MPM and give it its own block
    (`<IfModule mpm_event_module>`).

    ## Fix safety
    No fix: which MPM the 2.2 server ran is not in its configuration (it was
    the binary's), and the choice changes how the server runs.
    """

    code = "HT407"
    name = "mpm-tuning-unread"
    severity = Severity.WARNING
    summary = "The MPM 2.4 will run reads none of the configuration's MPM blocks"
    fix_availability = "never"
    about_22_behaviour = True
    directives = ()

    def check_config(self, ctx):
        blocks = [(item, mpm) for item in ctx.items("ifmodule") if (mpm := tuned_mpm(item)) is not None]
        if not blocks:
            return
        running, basis, _ = choose_mpm(ctx.configset, ctx.target, ctx.view)
        if any(mpm == running for _, mpm in blocks):
            return
        why = _WHY.get(basis, basis)
        for item, mpm in blocks:
            settings = ", ".join(" ".join([d.name, *d.args]) for d in _settings(item.node)[:3])
            yield self.finding(
                item,
                f"<IfModule {item.node.args[0]}> ({settings}) is not read under the {MPM_NAMES[running]} MPM "
                f"that 2.4 will run ({why}); 2.2 read it if its binary was built with {MPM_NAMES[mpm]} "
                f"(`httpd -V` there shows `Server MPM:`): load that MPM, or move these settings into "
                f"<IfModule {running}>",
                replacement=f"LoadModule {mpm} {load_path('modules', mpm)}",
            )

"""MPM directives renamed in 2.4: MaxClients and MaxRequestsPerChild."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register


class _Renamed(Rule):
    new_name: str
    severity = Severity.WARNING
    fix_availability = "always"

    def check(self, ctx, item):
        node = item.node
        args = " ".join(node.raw_args)
        yield self.finding(
            item,
            f"{node.name} is renamed {self.new_name} in 2.4 (the old name still works but is deprecated)",
            replacement=f"{self.new_name} {args}".rstrip(),
            fix=self.fix(f"rename {node.name} to {self.new_name}", Applicability.SAFE,
                         lambda: edit.rename(node, self.new_name), node),
        )


@register
class MaxClients(_Renamed):
    """
    ## What it does
    Finds `MaxClients`, which httpd 2.4 renamed `MaxRequestWorkers`.

    ## Why is this bad?
    2.4 still accepts the old name as an alias but logs that it is deprecated
    (AH00188/AH00324/AH00521), and a later release may drop it. With the event
    MPM the number of clients is no longer the number of worker threads.

    ## Example
    ```apache
    MaxClients 150
    ```

    ## Use instead
    ```apache
    MaxRequestWorkers 150
    ```

    ## Fix safety
    Safe: the alias sets the same limit.
    """

    code = "HT101"
    name = "max-clients"
    summary = "MaxClients is renamed MaxRequestWorkers"
    directives = ("maxclients",)
    new_name = "MaxRequestWorkers"


@register
class MaxRequestsPerChild(_Renamed):
    """
    ## What it does
    Finds `MaxRequestsPerChild`, which httpd 2.4 renamed `MaxConnectionsPerChild`.

    ## Why is this bad?
    2.4 keeps the old name as an alias and logs AH00545 that it is deprecated.

    ## Example
    ```apache
    MaxRequestsPerChild 4000
    ```

    ## Use instead
    ```apache
    MaxConnectionsPerChild 4000
    ```

    ## Fix safety
    Safe: the alias sets the same limit.
    """

    code = "HT102"
    name = "max-requests-per-child"
    summary = "MaxRequestsPerChild is renamed MaxConnectionsPerChild"
    directives = ("maxrequestsperchild",)
    new_name = "MaxConnectionsPerChild"

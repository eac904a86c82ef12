"""A section where httpd refuses it (HT409)."""

from __future__ import annotations

from ..config import Section
from ..config.placement import JUDGED, is_htaccess, misplaced
from ..engine import Rule, Severity, register


@register
class MisplacedSection(Rule):
    """
    ## What it does
    Finds a section standing where httpd refuses it: `<Directory>`,
    `<DirectoryMatch>`, `<Location>`, `<LocationMatch>`, `<Proxy>`,
    `<ProxyMatch>` or `<VirtualHost>` inside a per-directory section
    (`<Directory>`, `<Location>`, `<Files>`, `<Proxy>`, `<Limit>`, `<If>`,
    `<RequireAll>`...) or in an .htaccess file; `<VirtualHost>` inside another;
    `<Files>` inside `<Location>`; `<Files>` or `<If>` inside `<Limit>`,
    `<LimitExcept>` or `<RequireAll>`/`<RequireAny>`/`<RequireNone>`; `<Limit>`
    outside every per-directory section. `<IfModule>`, `<IfDefine>`,
    `<IfVersion>` and Include are transparent, as in httpd. Only the outermost
    such section is reported: httpd stops there.

    ## Why is this bad?
    httpd refuses to start ("<Directory not allowed in <RequireAll> context",
    "<Files> cannot occur within <Location> section"); 2.2 did too, for the
    sections it had. In an .htaccess file it answers 500 for every request
    under its directory. It is no 2.2 -> 2.4 change, but no rule can keep the
    answers of today of a configuration that has none: the access rules
    (HT501-HT508) offer no fix until the section is moved.

    ## Example
    ```apache
    <Directory "/srv/www">
        <Directory "/srv/www/private">
            Require all denied
        </Directory>
    </Directory>
    ```

    ## Use instead
    ```apache
    <Directory "/srv/www">
    </Directory>
    <Directory "/srv/www/private">
        Require all denied
    </Directory>
    ```

    ## Fix safety
    No fix: where the section was meant to apply is for a person to say.
    """

    code = "HT409"
    name = "misplaced-section"
    severity = Severity.ERROR
    summary = "A section where httpd refuses it (<Directory> inside <Directory>...): httpd (2.2 as 2.4) refuses to start"
    directives = tuple(sorted(JUDGED))

    def check(self, ctx, item):
        node = item.node
        if not isinstance(node, Section):
            return
        found = misplaced(node, item.context, is_htaccess(item.file, item.via))
        if found is not None:
            yield self.finding(item, found.message(node))

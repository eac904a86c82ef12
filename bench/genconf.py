"""Realistic 2.2-era configurations of a given size, for the benchmarks.

Virtual hosts with Directory and Location sections, rewrite rules, quoting,
continuations and comments; only constructs that 2.4 with mod_access_compat
still starts with, so ``apache2 -t`` can read the same file.
"""

from __future__ import annotations

import random

MODULES = [
    "mpm_prefork_module", "authz_core_module", "authz_host_module", "access_compat_module", "rewrite_module",
    "alias_module", "mime_module", "dir_module", "log_config_module", "setenvif_module", "headers_module",
    "authn_core_module", "authn_file_module", "auth_basic_module", "authz_user_module",
]

HEADER = """\
# Generated benchmark configuration (2.2 style)
ServerName bench.example.org
Timeout 300
KeepAlive On
MaxKeepAliveRequests 100
<IfModule mpm_prefork_module>
    StartServers          5
    MinSpareServers       5
    MaxSpareServers      10
    MaxClients          150
    MaxRequestsPerChild   0
</IfModule>
DefaultType text/plain
HostnameLookups Off
LogFormat "%h %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-Agent}i\\"" combined
NameVirtualHost *:80
"""

VHOST = """\
# ---------------------------------------------------------------
# Site {n}: {name}
# ---------------------------------------------------------------
<VirtualHost *:80>
    ServerName {name}
    ServerAlias www.{name} \\
                static.{name}
    DocumentRoot "/srv/www/{name}/htdocs"
    ServerAdmin "webmaster@{name}"
    CustomLog "{root}/logs/{name}-access.log" combined
    Alias /static/ "/srv/www/{name}/static/"

    <Directory "/srv/www/{name}/htdocs">
        Options Indexes FollowSymLinks
        AllowOverride None
        Order allow,deny
        Allow from all
    </Directory>

    <Directory "/srv/www/{name}/private">
        Order deny,allow
        Deny from all
        Allow from 10.{a}.0.0/16 192.168.{b}
        AuthType Basic
        AuthName "Private area of {name}"
        AuthUserFile /etc/httpd/passwd
        Require valid-user
        Satisfy Any
    </Directory>

    <Location /server-status-{n}>
        SetHandler server-status
        Order deny,allow
        Deny from all
        Allow from 127.0.0.1
    </Location>

    RewriteEngine On
    RewriteCond %{{HTTP_HOST}} !^www\\.{esc} [NC]
    RewriteRule ^/(.*)$ http://www.{name}/$1 [R=301,L]
    RewriteRule ^/old/(.*)\\.html$ /new/$1.php [QSA,L]
    Header set X-Site "{name}"
    SetEnvIf User-Agent "^Mozilla/4" old_browser
</VirtualHost>

"""


def generate(lines: int, seed: int = 2210, log_root: str = "/tmp") -> str:
    """About ``lines`` lines of configuration."""
    rnd = random.Random(seed)
    parts = [HEADER]
    count = HEADER.count("\n")
    n = 0
    while count < lines:
        n += 1
        name = f"site{n}-{rnd.randrange(10**6)}.example.com"
        block = VHOST.format(n=n, name=name, esc=name.replace(".", "\\\\."), root=log_root, a=n % 250, b=n % 250)
        parts.append(block)
        count += block.count("\n")
    return "".join(parts)

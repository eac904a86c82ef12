"""Which <Directory> sections a <Location> meets depends on how each server maps its URLs.

A server-level <Location> applies in every virtual host, and each maps URLs by its own DocumentRoot:
the model mapped them by the main server's only, so a vhost whose DocumentRoot lies in a restricted
<Directory> was missed, and `Satisfy Any` there became `Require all granted` (401 on 2.2, 200 after).
"""

from __future__ import annotations

from httpd24.config import ConfigSet
from httpd24.engine import migrate

VHOSTS = """\
DocumentRoot /srv/www
<VirtualHost *:80>
    ServerName v1
    DocumentRoot /srv/www
</VirtualHost>
<VirtualHost *:80>
    ServerName v2
    DocumentRoot /srv/www/e
</VirtualHost>
<Directory /srv/www/e>
    Order deny,allow
    Deny from all
    Allow from 127.0.0.2
</Directory>
<Location /c>
    AuthType Basic
    AuthName x
    AuthUserFile /etc/htpasswd
    Require valid-user
    Satisfy Any
</Location>
"""


def test_a_server_level_location_meets_the_directories_of_every_virtual_host():
    result = migrate(ConfigSet.from_mapping({"httpd.conf": VHOSTS}, entry="httpd.conf"))
    out = result.files["httpd.conf"].decode()
    assert "Require all granted" not in out
    [location] = [f for f in result.remaining if f.code == "HT501" and f.line == 16]
    assert "<Directory /srv/www/e>" in location.message and "a person must decide" in location.message

"""Which requests the main server still answers beside virtual hosts, measured on apache2.

A request the main server never answers cannot be hurt by what the main server alone would do with an
.htaccess file (no AllowOverride there: a 500 on 2.4), so HT505 does not ask a person to write one; and
where the main server does answer (ssl.conf's ``<VirtualHost _default_:443>`` beside ``Listen 80``) it must.
"""

from __future__ import annotations

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.access import build
from httpd24.apache import Instance, request
from httpd24.config import ConfigSet

pytestmark = pytest.mark.apache

FORMS = ["*:{P}", "*", "_default_:{P}", "_default_", "127.0.0.1:{P}", "127.0.0.2:{P}", "*:*", "127.0.0.1",
         "[::1]:{P}"]


#: A line only a whole server configuration has: its Listen lines are all there are.
WHOLE = "PidFile run/httpd.pid\n"


def site(address: str) -> str:
    return f"DocumentRoot main\n<VirtualHost {address}>\n    DocumentRoot vh\n</VirtualHost>\n"


@pytest.mark.parametrize("form", FORMS)
def test_the_model_knows_which_listens_reach_the_main_server(httpd, form):  # noqa: F811
    files = {"site.conf": site(form.replace("{P}", "${HTTPD24_PORT}")), "main/f.txt": "main\n", "vh/f.txt": "vhost\n"}
    with Instance(files, "site.conf", ["authz_core_module"], httpd=httpd, ports=2) as srv:
        ports = srv.ports
        main_answers = {port: request(port, "/f.txt").body == b"main\n" for port in ports}
    for port in ports:  # each Listen alone, as the model reads a configuration's Listen lines
        text = f"{WHOLE}Listen 127.0.0.1:{port}\n" + site(form.replace("{P}", str(ports[0])))
        model = build(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
        assert model.main_reachable == main_answers[port], (form, port, main_answers)
    text = WHOLE + "".join(f"Listen 127.0.0.1:{port}\n" for port in ports) + site(form.replace("{P}", str(ports[0])))
    model = build(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    assert model.main_reachable == any(main_answers.values())


def test_a_site_file_keeps_the_main_server():
    """A site file: the main configuration that includes it listens where the file cannot tell."""
    model = build(ConfigSet.from_mapping({"site.conf": site("*:80")}, entry="site.conf"))
    assert model.main_reachable and model.servers == [None, *model.vhosts]


def test_a_fragments_listen_is_not_all_there_is():
    """CentOS's conf.d/ssl.conf: its `Listen 443` sits beside httpd.conf's `Listen 80`, which it cannot see.
    Only a whole configuration (a line such as PidFile, ServerRoot or User) says where every Listen is."""
    text = "LoadModule ssl_module modules/mod_ssl.so\nListen 443\n" + site("_default_:443")
    model = build(ConfigSet.from_mapping({"ssl.conf": text}, entry="ssl.conf"))
    assert model.main_reachable and model.servers == [None, *model.vhosts]
    whole = build(ConfigSet.from_mapping({"httpd.conf": WHOLE + text}, entry="httpd.conf"))
    assert not whole.main_reachable and whole.servers == whole.vhosts


SSL = ("User apache\nListen 80\n<VirtualHost *:80>\n    DocumentRoot /srv/www\n</VirtualHost>\n"
       "<IfModule mod_ssl.c>\n    Listen 443\n{vhost}</IfModule>\n{outside}")


@pytest.mark.parametrize(("vhost", "outside", "reachable"), [
    # ssl.conf: the Listen and the host come and go together
    ("    <VirtualHost _default_:443>\n    </VirtualHost>\n", "", False),
    # the host may be missing while Listen 8443 is not
    ("    <VirtualHost _default_:8443>\n    </VirtualHost>\n", "Listen 8443\n", True),
    # no host takes port 443
    ("", "", True),
])
def test_a_virtual_host_in_an_undecided_branch_takes_only_listens_of_that_branch(vhost, outside, reachable):
    model = build(ConfigSet.from_mapping({"httpd.conf": SSL.format(vhost=vhost, outside=outside)}, entry="httpd.conf"))
    assert model.main_reachable is reachable


DEBIAN = {
    # Debian's 2.2 layout: no <Directory> in the main server, everything in a name-based host on every Listen
    "httpd.conf": ("ServerRoot /etc/httpd\nListen 80\nNameVirtualHost *:80\n<VirtualHost *:80>\n    DocumentRoot /srv/www\n"
                   "    <Directory /srv/www>\n        AllowOverride All\n        Order allow,deny\n"
                   "        Allow from all\n    </Directory>\n</VirtualHost>\n{more}"),
    "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
}


@pytest.mark.parametrize(("more", "reported"), [
    ("", False),
    # a Listen no virtual host takes: the main server answers there
    ("Listen 8080\n", True),
])
def test_ht505_asks_for_an_allowoverride_only_where_the_main_server_answers(more, reported):
    from httpd24.engine import lint

    files = dict(DEBIAN, **{"httpd.conf": DEBIAN["httpd.conf"].format(more=more)})
    found = [f for f in lint(ConfigSet.from_mapping(files, entry="httpd.conf"), select=["HT505"])]
    assert bool(found) is reported, [f.message for f in found]
    if reported:
        assert "in the main server" in found[0].message


#: A main-server <Location> over the host's DocumentRoot, an .htaccess file in the main server's: ``/a/b`` is
#: /srv/www/a/b in the main server and /srv/www/a/a/b in the host (shrunk from a refused vhosts-shape draw).
LOCATION_IN_HOSTS = {
    "httpd.conf": ("DocumentRoot /srv/www\n<Directory /srv/www>\n</Directory>\n<Location ~ \"^/a/b\">\n"
                   "    Deny from 127.0.0.9\n    Require user carol\n</Location>\n<VirtualHost *:80>\n"
                   "    ServerName v1.example\n    DocumentRoot /srv/www/a\n    <Directory /srv/www/a/b>\n"
                   "    </Directory>\n</VirtualHost>\n"),
    "srv/www/.htaccess": "Satisfy Any\n",
}


@pytest.mark.parametrize(("head", "units"), [
    (WHOLE + "Listen 80\n", ["vhost1"]),
    (WHOLE + "Listen 80\nListen 8080\n", ["main", "vhost1"]),
    ("Listen 80\n", ["main", "vhost1"]),  # a fragment: its Listen lines are not all there are
])
def test_the_harness_runs_the_main_server_only_where_a_request_reaches_it(head, units):
    from httpd24.apache import differential

    files = dict(LOCATION_IN_HOSTS, **{"httpd.conf": head + LOCATION_IN_HOSTS["httpd.conf"]})
    assert [label.split()[0] for label in differential.prepare(files)] == units


def test_a_main_server_section_is_translated_for_the_servers_requests_reach(httpd):  # noqa: F811
    """Where the hosts take every Listen, a main-server <Location> means what it means in the hosts alone,
    not also what it would mean in the main server: translated, not refused, and proven on apache2. The
    candidate is ``httpd24 migrate``'s (translate() and then HT301's AllowOverride), as in the vhosts shape."""
    from httpd24 import access
    from httpd24.apache import differential

    files = dict(LOCATION_IN_HOSTS, **{"httpd.conf": WHOLE + "Listen 80\n" + LOCATION_IN_HOSTS["httpd.conf"]})
    original = ConfigSet.from_mapping(files, entry="httpd.conf")
    [report] = differential.compare_many(
        [differential.Case("hosts only", access.normalize_22(original),
                           differential.with_override_default(access.translate)(original))], httpd=httpd)
    assert report.ok, report.format()
    assert not differential.against_model(report, files)

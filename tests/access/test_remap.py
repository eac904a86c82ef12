"""Which sections a <Location> may meet when its URLs are proxied or mapped by a regex (model level).

The real-apache proof of the translations is tests/access/test_remapped_urls.py; these pin down the
reading of each directive, where a wrong answer would be an unsafe translation or a needless refusal.
"""

from __future__ import annotations

import pytest

from httpd24.access import build
from httpd24.access.plan import certainly_meets, may_meet, remapped
from httpd24.access.remap import Remap, covers, overlaps, read
from httpd24.config import ConfigSet

ORDER = "    Order allow,deny\n    Allow from 127.0.0.2\n"


def scopes(text: str) -> tuple[dict, object]:
    model = build(ConfigSet.from_mapping({"httpd.conf": "DocumentRoot /srv/www\n" + text}, entry="httpd.conf"))
    return {s.label: s for s in model.scopes if s.node is not None}, model


@pytest.mark.parametrize("key, args, location, expected", [
    ("proxypass", ["/app", "http://b/"], None, Remap("proxy", "/app", exact=True)),
    ("proxypass", ["/app/static", "!"], None, Remap("excluded", "/app/static", exact=True)),
    ("proxypass", ["http://b/", "retry=0"], ("/app", False), Remap("proxy", "/app", exact=True)),
    ("proxypass", ["http://b/"], ("^/app/", True), Remap("proxy", "/app/")),
    ("proxypassmatch", ["^/(.*\\.php)$", "fcgi://b/$1"], None, Remap("proxy", "/")),
    ("proxyrequests", ["On"], None, Remap("proxy", None)),
    ("proxyrequests", ["Off"], None, None),
    ("rewriterule", ["^/app/(.*)$", "http://b/$1", "[P,L]"], None, Remap("proxy", "/app/", rewrite=True)),
    ("rewriterule", ["^/App/(.*)$", "/srv/x/$1", "[NC]"], None, Remap("elsewhere", None, rewrite=True)),
    ("rewriterule", ["docs/(.*)", "/srv/x/$1"], None, Remap("elsewhere", None, rewrite=True)),
    ("rewriterule", ["^/old$", "/new", "[R=301,L]"], None, None),
    ("rewriterule", ["^/secret", "-", "[F]"], None, None),
    ("rewriterule", ["^/x", "-", "[E=A:1]"], None, None),
    ("rewriterule", ["^/x", "/y", "[PT]"], None, None),
    ("aliasmatch", ["^/docs/(.*)$", "/srv/c/$1"], None, Remap("elsewhere", "/docs/", target="/srv/c/")),
    ("userdir", ["public_html"], None, Remap("elsewhere", "/~")),
    ("userdir", ["disabled"], None, None),
])
def test_each_directive_is_read_for_what_it_remaps(key, args, location, expected):
    assert read(key, args, location) == expected


def test_prefixes_overlap_as_url_paths():
    app = Remap("proxy", "/app", exact=True)
    assert overlaps("/", app) and overlaps("/app/x", app) and not overlaps("/docs", app)
    assert overlaps(None, app) and overlaps("/docs", Remap("elsewhere", None))
    assert covers("/app", app) and covers("/app/x/", app) and not covers("/apple", app) and not covers("/", app)
    assert not covers("/app", Remap("proxy", "/app"))  # a regex: not certainly every URL


def test_a_proxied_location_meets_proxy_sections_not_directories():
    found, model = scopes(
        "ProxyPass /app http://b/\n"
        f"<Directory />\n{ORDER}</Directory>\n<Files ~ \"^\\.ht\">\n{ORDER}</Files>\n"
        f"<Proxy *>\n{ORDER}</Proxy>\n<Proxy http://other/*>\n{ORDER}</Proxy>\n"
        f"<Location /app>\n{ORDER}</Location>\n<Location /docs>\n{ORDER}</Location>\n")
    app, docs = found["<Location /app>"], found["<Location /docs>"]
    assert remapped(app, model).all_proxied
    assert not may_meet(found["<Directory />"], app, model) and not may_meet(found['<Files ~ ^\\.ht>'], app, model)
    assert certainly_meets(found["<Proxy *>"], app, model)
    assert may_meet(found["<Proxy http://other/*>"], app, model)
    assert not certainly_meets(found["<Proxy http://other/*>"], app, model)
    assert not may_meet(found["<Proxy *>"], docs, model) and certainly_meets(found["<Directory />"], docs, model)


def test_an_excluded_path_leaves_the_location_partly_proxied():
    found, model = scopes("ProxyPass /app/static !\nProxyPass /app http://b/\n"
                          f"<Directory />\n{ORDER}</Directory>\n<Proxy *>\n{ORDER}</Proxy>\n"
                          f"<Location /app>\n{ORDER}</Location>\n")
    app = found["<Location /app>"]
    assert not remapped(app, model).all_proxied
    assert may_meet(found["<Directory />"], app, model) and not certainly_meets(found["<Directory />"], app, model)
    assert may_meet(found["<Proxy *>"], app, model) and not certainly_meets(found["<Proxy *>"], app, model)


def test_main_server_rewrite_rules_reach_a_virtual_host_only_when_inherited():
    text = ("RewriteEngine On\nRewriteRule ^/app/(.*)$ http://b/$1 [P]\n<Proxy *>\n" + ORDER + "</Proxy>\n"
            "<VirtualHost *:80>\n    ServerName v\n{options}    <Location /app>\n" + ORDER + "    </Location>\n"
            "</VirtualHost>\n")
    found, model = scopes(text.format(options=""))
    assert not may_meet(found["<Proxy *>"], found["<Location /app>"], model)
    found, model = scopes(text.format(options="    RewriteEngine On\n    RewriteOptions Inherit\n"))
    assert may_meet(found["<Proxy *>"], found["<Location /app>"], model)


def test_an_aliasmatch_target_is_where_the_location_may_lead():
    found, model = scopes("AliasMatch ^/docs/(.*)$ /srv/c/$1\n"
                          f"<Directory /srv/c>\n{ORDER}</Directory>\n<Directory /srv/d>\n{ORDER}</Directory>\n"
                          f"<Location /docs>\n{ORDER}</Location>\n")
    docs = found["<Location /docs>"]
    assert may_meet(found["<Directory /srv/c>"], docs, model)
    assert not certainly_meets(found["<Directory /srv/c>"], docs, model)
    assert not may_meet(found["<Directory /srv/d>"], docs, model)

"""hack/differential.py --minimize: a failing configuration shrinks to what still fails, never to one that passes.

A deliberately wrong translator (it grants what `Require all denied` refuses) makes a known failure: of the
configuration's sections only the one whose translation is `Require all denied` must be left.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.access import normalize_22, translate
from httpd24.apache import differential
from httpd24.config import ConfigSet

pytestmark = pytest.mark.apache

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = {
    "httpd.conf": ("DocumentRoot /srv/www\n<Directory /srv/www>\n    AllowOverride All\n    Options -Indexes\n"
                   "</Directory>\n<Directory /srv/www/a>\n    Order allow,deny\n    Allow from all\n</Directory>\n"
                   "<Location /b>\n    Order deny,allow\n    Deny from all\n</Location>\n"
                   "<Files x.php>\n    Order allow,deny\n    Allow from 127.0.0.1\n</Files>\n"),
    "srv/www/a/.htaccess": "Order deny,allow\nDeny from 127.0.0.9\n",
}


def hack_differential():
    spec = importlib.util.spec_from_file_location("hack_differential", REPO / "hack" / "differential.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wrong_translate(configset: ConfigSet) -> ConfigSet:
    out = differential.with_override_default(translate)(configset).render()
    return ConfigSet.from_mapping({name: data.replace(b"Require all denied", b"Require all granted")
                                   for name, data in out.items()}, entry="httpd.conf")


def test_minimize_keeps_only_what_still_fails(httpd):  # noqa: F811
    hack = hack_differential()
    small, report = hack.minimize(ORIGINAL, wrong_translate, normalize_22)
    assert hack.judge(small, report)[0] == "answers" and report.mismatches
    assert set(small) == {"httpd.conf"}, small  # the .htaccess file went
    text = small["httpd.conf"]
    assert "<Location /b>" in text and "Deny from all" in text, text
    assert "<Files" not in text and "/srv/www/a" not in text and "Options" not in text, text
    # Nothing smaller fails: every deletion of what is left passes.
    reports = hack.differential.run_configs([(str(n), c) for n, c in enumerate(hack.deletions(small))],
                                            wrong_translate, normalize_22)
    assert all(hack.judge(c, r)[0] != "answers" for c, r in zip(hack.deletions(small), reports))


def test_minimize_refuses_a_configuration_that_passes(httpd):  # noqa: F811
    with pytest.raises(ValueError, match="does not fail"):
        hack_differential().minimize(ORIGINAL, translate, normalize_22)

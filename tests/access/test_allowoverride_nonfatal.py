"""`AllowOverride ... Nonfatal=Override|Unknown|All` (2.4 only), measured on apache2 2.4, and the model's reading.

Measured (status of /a/f.html, the body in a/.htaccess, with mod_access_compat): under `Nonfatal=Override` (or
`All`) a line the AllowOverride keeps out is skipped (logged), not a 500, and the lines it lets in apply; a
section it keeps out (`<Limit>`) is skipped with what it holds. `Nonfatal=Unknown` alone skips only directives
httpd does not know: a line kept out is still a 500. The words are read in order: `None` and `All` start again
(`Nonfatal=Override None` is `None`: the file is not read; `None Nonfatal=Override` reads it and skips every line).

The model read any Nonfatal word as "every line lets in": under `AllowOverride AuthConfig Nonfatal=Override` it
applied an `Order/Deny` line httpd skips (403 where apache2 answers 200), and under `Nonfatal=Unknown` it let in
what httpd refuses with a 500.
"""

from __future__ import annotations


import pytest
from apache_fixture import htaccess_statuses, httpd  # noqa: F401

from httpd24.access import Request, build, decide_compat
from httpd24.config import ConfigSet

MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module", "authz_user_module",
           "authz_host_module", "access_compat_module"]
BODIES = {"order": "Order deny,allow\nDeny from all\n", "require": "Require all denied\n",
          "options": "Options -Indexes\n",
          "require+order": "Require all denied\nOrder allow,deny\nAllow from all\n",
          "order+require": "Order deny,allow\nDeny from all\nRequire all granted\n",
          "limit": "<Limit GET>\nRequire all denied\n</Limit>\n",
          "files": "<Files f.html>\nRequire all denied\n</Files>\n"}
#: AllowOverride -> body -> status of /a/f.html.
MEASURED = {
    "Nonfatal=Override": {"order": 200, "require": 200, "options": 200, "require+order": 200, "order+require": 200,
                          "limit": 200, "files": 200},
    "Nonfatal=Unknown": {"order": 500, "require": 500, "options": 500, "require+order": 500, "order+require": 500,
                         "limit": 500, "files": 500},
    "Nonfatal=All": {"order": 200, "require": 200, "options": 200, "require+order": 200, "order+require": 200,
                     "limit": 200, "files": 200},
    "Limit Nonfatal=Override": {"order": 403, "require": 200, "options": 200, "require+order": 200,
                                "order+require": 403, "limit": 200, "files": 200},
    "AuthConfig Nonfatal=Override": {"order": 200, "require": 403, "options": 200, "require+order": 403,
                                     "order+require": 200, "limit": 403, "files": 403},
    "AuthConfig Nonfatal=Unknown": {"order": 500, "require": 403, "options": 500, "require+order": 500,
                                    "order+require": 500, "limit": 403, "files": 403},
    "Options Nonfatal=All": {"order": 200, "require": 200, "options": 200, "require+order": 200,
                             "order+require": 200, "limit": 200, "files": 200},
    "None Nonfatal=Override": {"order": 200, "require": 200, "options": 200, "require+order": 200,
                               "order+require": 200, "limit": 200, "files": 200},
    "Nonfatal=Override None": {"order": 200, "require": 200, "options": 200, "require+order": 200,
                               "order+require": 200, "limit": 200, "files": 200},
    "All Nonfatal=Override": {"order": 403, "require": 403, "options": 200, "require+order": 403,
                              "order+require": 403, "limit": 403, "files": 403},
    "Nonfatal=Override All": {"order": 403, "require": 403, "options": 200, "require+order": 403,
                              "order+require": 403, "limit": 403, "files": 403},
}


def config(root, override: str) -> str:
    return f"DocumentRoot {root}/www\n<Directory {root}/www>\n    AllowOverride {override}\n</Directory>\n"


@pytest.mark.apache
def test_apache2_skips_what_a_nonfatal_allowoverride_keeps_out(httpd):  # noqa: F811
    assert htaccess_statuses(httpd, config, MEASURED, BODIES, MODULES) == MEASURED

def _model_status(override: str, body: str) -> int:
    files = {"httpd.conf": config("/srv", override), "srv/www/a/.htaccess": body}
    return decide_compat(build(ConfigSet.from_mapping(files, entry="httpd.conf")), Request("/a/f.html"))


def test_the_model_answers_as_apache2_measured():
    got = {override: {name: _model_status(override, body) for name, body in BODIES.items()} for override in MEASURED}
    assert got == MEASURED


def test_a_translation_a_nonfatal_allowoverride_would_skip_is_left_to_a_person():
    """`Require` under `AllowOverride Limit Nonfatal=Override` would be skipped: the directory would be open."""
    from httpd24.access import TranslationError, translate

    files = {"httpd.conf": config("/srv", "Limit Nonfatal=Override"),
             "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\n"}
    with pytest.raises(TranslationError, match="skip"):
        translate(ConfigSet.from_mapping(files, entry="httpd.conf"))

"""What AllowOverride makes of an .htaccess file's access lines, measured on apache2, and the model's reading.

Measured (2.4, with and without mod_access_compat): `AllowOverride None` -- the file is not read at all, whatever
it holds; a class that lets its lines through -- they apply (Order/Allow/Deny: Limit, Require/Satisfy/AuthType:
AuthConfig, Options: Options); a line whose class is not allowed -- "<Directive> not allowed here", 500 for every
request under its directory. And with no AllowOverride anywhere the file IS read (core's OR_UNSET bit counts as
some override in the directory walk) and every line of it is refused: 500, not "ignored" as 2.4's default None
suggests. 2.2 read the same classes (core.c and mod_authz_host of 2.2 declare them alike), its default was All.

The model read every .htaccess file as if its lines were allowed: under `AllowOverride None` it applied a file
httpd never opens (403 where apache2 answers 200).
"""

from __future__ import annotations


import pytest
from apache_fixture import htaccess_statuses, httpd  # noqa: F401

from httpd24.access import Request, build, decide_22, decide_compat
from httpd24.config import ConfigSet

MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module", "authz_user_module",
           "authz_host_module"]
BODIES = {"order": "Order deny,allow\nDeny from all\n", "require": "Require all denied\n",
          "options": "Options -Indexes\n"}
#: AllowOverride -> body -> status of /a/f.html (with mod_access_compat).
MEASURED = {
    None: {"order": 500, "require": 500, "options": 500},
    "None": {"order": 200, "require": 200, "options": 200},
    "All": {"order": 403, "require": 403, "options": 200},
    "AuthConfig": {"order": 500, "require": 403, "options": 500},
    "Limit": {"order": 403, "require": 500, "options": 500},
    "Options": {"order": 500, "require": 500, "options": 200},
}


def config(root, override: str | None) -> str:
    """None: a <Directory> without AllowOverride (one names the directory, so that the model places the file)."""
    line = f"    AllowOverride {override}\n" if override else ""
    return f"DocumentRoot {root}/www\n<Directory {root}/www>\n{line}</Directory>\n"


@pytest.mark.apache
def test_apache2_reads_an_htaccess_as_allowoverride_says(httpd):  # noqa: F811
    assert htaccess_statuses(httpd, config, MEASURED, BODIES, MODULES + ["access_compat_module"]) == MEASURED

def test_the_model_reads_no_htaccess_under_allowoverride_none():
    for body in ("Order deny,allow\nDeny from all\n", "Require all denied\n"):
        files = {"httpd.conf": config("/srv", "None"), "srv/www/a/.htaccess": body}
        model = build(ConfigSet.from_mapping(files, entry="httpd.conf"))
        request = Request("/a/f.html")
        assert decide_22(model, request) == 200 and decide_compat(model, request) == 200, body
        # Under the Directory's AllowOverride All it is read, as before.
        files["httpd.conf"] = config("/srv", "All")
        model = build(ConfigSet.from_mapping(files, entry="httpd.conf"))
        assert decide_compat(model, request) == 403, body


#: The class 2.4 wants for each line an .htaccess translation writes, measured: status of /a/f.html with the
#: body in a/.htaccess under `AllowOverride <class>` (200: read and granted, 500: "not allowed here").
CLASS_BODIES = {
    "Require": "Require all granted\n",
    "<RequireAll": "<RequireAll>\nRequire all granted\n</RequireAll>\n",
    "<RequireAny": "<RequireAny>\nRequire all granted\n</RequireAny>\n",
    "<RequireNone": "<RequireAll>\nRequire all granted\n<RequireNone>\nRequire ip 10.9.9.9\n</RequireNone>\n</RequireAll>\n",
    "AuthMerging": "AuthMerging And\n",
    "AuthType": "AuthType None\n",
    "Satisfy": "Satisfy Any\n",
    "Order": "Order allow,deny\nAllow from all\n",
    "<Limit": "<Limit GET>\n</Limit>\n",
}
CLASS_MEASURED = {
    "Limit": {"Require": 500, "<RequireAll": 500, "<RequireAny": 500, "<RequireNone": 500, "AuthMerging": 500,
              "AuthType": 500, "Satisfy": 500, "Order": 200, "<Limit": 200},
    "AuthConfig": {"Require": 200, "<RequireAll": 200, "<RequireAny": 200, "<RequireNone": 200, "AuthMerging": 200,
                   "AuthType": 200, "Satisfy": 200, "Order": 500, "<Limit": 200},
}


@pytest.mark.apache
def test_apache2_wants_authconfig_for_every_line_a_translation_writes(httpd):  # noqa: F811
    """2.4's Require, its containers and AuthMerging are AuthConfig's, as 2.2's Satisfy and Require were (and
    2.4's Satisfy is): a translation of Order/Allow/Deny, which Limit let in, needs AuthConfig. The table the
    model reads (httpd24.apache.table.override_classes) says the same."""
    from httpd24.apache import table

    got = htaccess_statuses(httpd, config, CLASS_MEASURED, CLASS_BODIES, MODULES + ["access_compat_module"])
    assert got == CLASS_MEASURED
    for override, row in CLASS_MEASURED.items():
        for name, status in row.items():
            classes = table.override_classes()[name.lower()]
            assert (status == 200) == (override in classes), (override, name)


LIMIT_ONLY = {"httpd.conf": "DocumentRoot /srv/www\n<Directory /srv/www/a>\n    AllowOverride Limit\n</Directory>\n",
              "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 10.0.0.1\n"}


def test_ht501_leaves_an_htaccess_under_allowoverride_limit_to_a_person():
    """Its translation (`Require ip 10.0.0.1`) answers 500 under `AllowOverride Limit` (measured above), so it is
    not offered as safe; widening the AllowOverride lets the file set authentication too, which a person decides.
    The finding says which line to change."""
    from httpd24.access import TranslationError, translate
    from httpd24.engine import Applicability, lint, migrate

    [finding] = [f for f in lint(ConfigSet.from_mapping(LIMIT_ONLY, entry="httpd.conf"), select=["HT501"])
                 if f.file == "srv/www/a/.htaccess"]
    assert finding.fix is None
    assert "AllowOverride Limit (httpd.conf:3" in finding.message and "<Directory /srv/www/a>" in finding.message
    assert "AuthConfig" in finding.message and "500" in finding.message
    result = migrate(ConfigSet.from_mapping(LIMIT_ONLY, entry="httpd.conf"), applicability=Applicability.SAFE)
    assert result.files["srv/www/a/.htaccess"].decode() == LIMIT_ONLY["srv/www/a/.htaccess"]
    with pytest.raises(TranslationError, match="AllowOverride"):
        translate(ConfigSet.from_mapping(LIMIT_ONLY, entry="httpd.conf"))
    # With AuthConfig allowed too it is translated as before.
    files = {**LIMIT_ONLY, "httpd.conf": LIMIT_ONLY["httpd.conf"].replace("Limit\n", "Limit AuthConfig\n")}
    assert translate(ConfigSet.from_mapping(files, entry="httpd.conf")).render()["srv/www/a/.htaccess"] == \
        b"Require ip 10.0.0.1\n"


def test_normalize_22_writes_no_satisfy_into_an_htaccess_under_allowoverride_limit():
    """The reference must answer as 2.2 did: `Satisfy All` there answers 500 (measured above)."""
    from httpd24.access import normalize_notes

    normalized, notes = normalize_notes(ConfigSet.from_mapping(LIMIT_ONLY, entry="httpd.conf"))
    assert b"Satisfy" not in normalized.render()["srv/www/a/.htaccess"]


def test_ht505_says_2_4_answers_500_where_no_allowoverride_applies():
    from httpd24.engine import lint

    files = {"httpd.conf": "DocumentRoot /srv/www\n<Directory /srv/www/a>\n</Directory>\n",
             "srv/www/a/.htaccess": LIMIT_ONLY["srv/www/a/.htaccess"]}
    [finding] = lint(ConfigSet.from_mapping(files, entry="httpd.conf"), select=["HT505"])
    assert "ignores" not in finding.message and "500" in finding.message
    assert "AllowOverride AuthConfig" in finding.message and "<Directory /srv/www/a>" in finding.message


def _model_status(override: str | None, body: str, decide=decide_compat) -> int:
    files = {"httpd.conf": config("/srv", override), "srv/www/a/.htaccess": body}
    return decide(build(ConfigSet.from_mapping(files, entry="httpd.conf")), Request("/a/f.html"))


def test_the_model_answers_as_apache2_measured():
    """A line the AllowOverride keeps out makes httpd answer 500 under the file, and so does any line where no
    AllowOverride applies (2.4); the model applied the file as if every line were let in."""
    got = {override: {name: _model_status(override, body) for name, body in BODIES.items()} for override in MEASURED}
    assert got == MEASURED
    got = {override: {name: _model_status(override, body) for name, body in CLASS_BODIES.items()}
           for override in CLASS_MEASURED}
    assert got == CLASS_MEASURED


def test_the_2_2_model_reads_every_line_where_no_allowoverride_applies():
    """2.2's default was All: the file applies (2.4 answers 500), unless a written AllowOverride keeps a line out,
    which 2.2 refused as 2.4 does (the same classes)."""
    assert _model_status(None, BODIES["order"], decide_22) == 403
    assert _model_status(None, BODIES["options"], decide_22) == 200
    assert _model_status("AuthConfig", BODIES["order"], decide_22) == 500
    assert _model_status("Limit", "Order deny,allow\nDeny from all\n<Files f.html>\nSatisfy Any\n</Files>\n",
                         decide_22) == 500


def test_a_refused_line_is_reported_and_blocks_the_translation():
    """HT506 names it with the AllowOverride; the translation would turn today's 500 into answers."""
    from httpd24.access import TranslationError, translate
    from httpd24.engine import lint

    files = {"httpd.conf": config("/srv", "AuthConfig"), "srv/www/a/.htaccess": BODIES["order"]}
    [finding] = lint(ConfigSet.from_mapping(files, entry="httpd.conf"), select=["HT506"])
    assert finding.file == "srv/www/a/.htaccess" and finding.line == 1
    assert "needs AllowOverride Limit" in finding.message and "AllowOverride AuthConfig (httpd.conf:3" in finding.message
    with pytest.raises(TranslationError, match="invalid"):
        translate(ConfigSet.from_mapping(files, entry="httpd.conf"))

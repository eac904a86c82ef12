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


import re

import pytest
from apache_fixture import htaccess_statuses, httpd, served_dir  # noqa: F401

from httpd24.access import Request, build, decide_compat
from httpd24.access.model import written
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


# -- several servers over one .htaccess file -------------------------------------------------------

#: Two virtual hosts over one DocumentRoot, each with an AllowOverride of its own (``{b}``: the second's).
#: The main server has none unless ``{main}`` gives it one: 2.4 then opens the file and refuses its lines.
HOSTS = """{main}DocumentRoot /srv/www
<VirtualHost *:80>
    ServerName a.test
    <Directory /srv/www>
        AllowOverride AuthConfig Nonfatal=Override
    </Directory>
</VirtualHost>
<VirtualHost *:80>
    ServerName b.test
    <Directory /srv/www>
        AllowOverride {b}
    </Directory>
</VirtualHost>
"""
MAIN_CLOSED = "<Directory />\n    AllowOverride None\n</Directory>\n"
ORDER = "Order deny,allow\nDeny from all\n"


def _hosts(b: str, main: str = "", body: str = ORDER) -> ConfigSet:
    return ConfigSet.from_mapping({"httpd.conf": HOSTS.format(b=b, main=main), "srv/www/a/.htaccess": body},
                                  entry="httpd.conf")


def test_nonfatal_says_the_configuration_ran_on_24():
    """2.2 refuses `AllowOverride ... Nonfatal=` ("Illegal override option"): the file is judged as 2.4 reads it."""
    assert build(_hosts("Options Nonfatal=Override", MAIN_CLOSED)).mode == "compat"
    assert build(_hosts("Options", MAIN_CLOSED)).mode == "compat"  # a.test's line still says so
    plain = ConfigSet.from_mapping({"httpd.conf": config("/srv", "AuthConfig"), "srv/www/a/.htaccess": ORDER},
                                   entry="httpd.conf")
    assert build(plain).mode == "2.2"


#: A directory that denies everyone, and an .htaccess file whose Order/Deny lines its AllowOverride keeps out.
RESET = {"httpd.conf": "DocumentRoot /srv/www\n<Directory /srv/www/a>\n    AllowOverride AuthConfig Nonfatal=Override\n"
                       "    Order allow,deny\n</Directory>\n",
         "srv/www/a/.htaccess": ORDER}


@pytest.mark.apache
def test_a_skipped_order_line_still_resets_what_the_directory_inherits(httpd):  # noqa: F811
    """httpd makes mod_access_compat's record for the file before it asks the AllowOverride, and that record
    (no merger) replaces the directory's `Order allow,deny`: everyone gets in. Found by the vhosts shape (seed
    131 index 197): the model dropped the skipped lines whole, kept the directory's deny and translated
    it to `Require all denied`; 2.4 without mod_access_compat would refuse the lines, not skip them."""
    from httpd24.access import decide_compat, translate
    from httpd24.apache import differential

    cs = ConfigSet.from_mapping(RESET, entry="httpd.conf")
    model = build(cs)
    assert [written(item) for item in model.skipped] == ["Order deny,allow", "Deny from all"]
    assert decide_compat(model, Request("/a/f.html")) == 200
    out = translate(cs)
    assert out.documents["srv/www/a/.htaccess"].render() == b"Require all granted\n"
    report = differential.verify(cs, out, httpd=httpd)
    assert report.ok, report.format()
    assert {a for _q, (a, _b) in report.statuses.items() if _q.path.startswith("/a/")} == {200}


@pytest.mark.apache
@pytest.mark.parametrize("b, how", [("All", "read under <VirtualHost> b.test"),
                                    ("None", "refused (every request under it answers 500) under the main server")])
def test_a_line_one_server_skips_and_another_does_not_is_left_to_a_person(httpd, b, how):  # noqa: F811
    """Under a.test httpd skips the Order lines; under b.test it reads them (or, under the main server, which has
    no AllowOverride, refuses them). Taken out, b.test opens up; left in, a.test answers 500 without
    mod_access_compat; as Require lines, a.test would read them (AuthConfig lets Require in)."""
    from httpd24.access import TranslationError, translate
    from httpd24.apache import differential
    from httpd24.engine.runner import lint

    cs = _hosts(b)
    with pytest.raises(TranslationError, match=re.escape(f"Order deny,allow is skipped under <VirtualHost> a.test "
                                                         f"(`AllowOverride AuthConfig Nonfatal=Override`, httpd.conf:5,"
                                                         f" keeps it out) but {how}")):
        translate(cs)
    [finding] = [f for f in lint(cs) if f.code == "HT501"]
    assert (finding.file, finding.line, finding.fix) == ("srv/www/a/.htaccess", 1, None)
    assert "Order deny,allow is skipped under <VirtualHost> a.test" in finding.message
    for body in ("", "Require all denied\n"):
        candidate = _hosts(b, body=body)
        assert not differential.verify(cs, candidate, httpd=httpd).ok, body


def test_a_require_line_one_server_skips_is_named_where_something_is_rewritten():
    """A `Require` line a.test skips (Limit lets no Require in) and b.test reads: the model, one for both, reads
    it for neither, so a rewrite that leans on it may be wrong under b.test; with nothing to rewrite, nothing
    is said (the line means on 2.4 without mod_access_compat what it means today)."""
    from httpd24.access import TranslationError, translate
    from httpd24.engine.runner import lint

    limit = HOSTS.replace("AuthConfig Nonfatal=Override", "Limit Nonfatal=Override").format(b="All", main="")
    quiet = ConfigSet.from_mapping({"httpd.conf": limit, "srv/www/a/.htaccess": "Require all denied\n"},
                                   entry="httpd.conf")
    assert translate(quiet) is not None and not [f for f in lint(quiet) if f.code == "HT501"]
    rewritten = ConfigSet.from_mapping({"httpd.conf": limit + "<Directory /srv/www>\n    Order deny,allow\n"
                                        "    Deny from 127.0.0.2\n</Directory>\n",
                                        "srv/www/a/.htaccess": "Require all denied\n"}, entry="httpd.conf")
    with pytest.raises(TranslationError, match="Require all denied is skipped under <VirtualHost> a.test"):
        translate(rewritten)
    messages = [f.message for f in lint(rewritten) if f.code == "HT501"]
    assert any("Require all denied is skipped under <VirtualHost> a.test" in m for m in messages), messages


@pytest.mark.apache
def test_a_skipped_user_file_line_resets_the_inherited_one_and_is_left_to_a_person(httpd, served_dir):  # noqa: F811
    """mod_authn_file has no merger either: a skipped `AuthUserFile` in the .htaccess file still leaves its
    directory with no user file, and a right password answers 500 (measured here). The model keeps no such
    record, so the rewrite is a person's."""
    from httpd24.access import TranslationError, translate
    from httpd24.apache import Instance, htpasswd_file

    (served_dir / "www" / "a").mkdir(parents=True)
    (served_dir / "www" / "a" / "f.html").write_text("hello\n")
    (served_dir / "users").write_bytes(htpasswd_file({"alice": "secret"}))
    server = (f"DocumentRoot {served_dir}/www\n<Directory {served_dir}/www/a>\n"
              "    AllowOverride Limit Nonfatal=Override\n"
              f"    AuthType Basic\n    AuthName r\n    AuthUserFile {served_dir}/users\n    Require valid-user\n"
              "    Order allow,deny\n    Allow from all\n</Directory>\n")
    statuses = []
    for body in ("", f"AuthUserFile {served_dir}/users\n"):
        (served_dir / "www" / "a" / ".htaccess").write_text(body)
        with Instance({"site.conf": server}, "site.conf", MODULES, httpd=httpd) as srv:
            statuses.append(srv.request("/a/f.html", user="alice", password="secret").status)
    assert statuses == [200, 500]

    files = {"httpd.conf": server.replace(str(served_dir), "/srv"), "srv/www/a/.htaccess": "AuthUserFile /srv/users\n"}
    with pytest.raises(TranslationError, match=re.escape(
            "AuthUserFile /srv/users is skipped (`AllowOverride Limit Nonfatal=Override`, httpd.conf:3, keeps it out), "
            "but httpd still makes mod_authn_file's record for the directory")):
        translate(ConfigSet.from_mapping(files, entry="httpd.conf"))

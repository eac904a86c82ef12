"""A configuration with both server sections and .htaccess files, run together on the real servers.

The .htaccess files are written where they lie (each side, each configuration, under a name of its own:
``AccessFileName``), so httpd reads them per request as it reads an .htaccess: after the <Directory>
sections of their directory, under the ``AllowOverride`` the configuration gives them. Before, a set
with a server configuration ran without its .htaccess files, and only a set of .htaccess files alone
was run (as the DocumentRoot's <Directory>).
"""

from __future__ import annotations

import pytest

from httpd24.apache import differential

pytestmark = pytest.mark.apache

AUTH = "AuthType Basic\nAuthName private\nAuthUserFile /etc/httpd/users\n"


def site(allow_override: str = "All", directory: str = "    Order allow,deny\n    Allow from 127.0.0.2\n",
         htaccess: str = AUTH + "Require valid-user\n") -> dict[str, str]:
    return {
        "httpd.conf": (f"DocumentRoot /srv/www\n<Directory /srv/www>\n    AllowOverride {allow_override}\n</Directory>\n"
                       f"<Directory /srv/www/a>\n{directory}</Directory>\n"),
        "srv/www/a/.htaccess": htaccess,
    }


def answers(statuses, path="/a/f.html"):
    return {(q.source, q.user, q.password): differential.access_answer(s)
            for q, s in statuses.items() if q.path == path and q.method == "GET" and not q.env}


def test_an_htaccess_runs_with_the_server_configuration(httpd):
    got = answers(differential.run(site(), httpd=httpd))
    assert got[("127.0.0.2", None, None)] == 401  # the .htaccess's Require, beside the section's Allow
    assert got[("127.0.0.2", "alice", "alice-pw")] == 200
    assert got[("127.0.0.1", "alice", "alice-pw")] == 403
    assert answers(differential.run(site(), httpd=httpd), "/f.html")[("127.0.0.1", None, None)] == 200


def test_allowoverride_decides_whether_the_htaccess_is_read(httpd):
    got = answers(differential.run(site("None"), httpd=httpd))
    assert got[("127.0.0.2", None, None)] == 200 and got[("127.0.0.1", None, None)] == 403
    # `AuthType` needs AuthConfig: httpd answers 500 under the directory
    got = answers(differential.run(site("Limit"), httpd=httpd))
    assert set(got.values()) == {500}


def test_negative_an_htaccess_require_that_replaces_the_address_rule_is_caught(httpd):
    """The error test_htaccess_on_disk fixed: on 2.4 the .htaccess's Require replaces the section's."""
    original = site()
    wrong = site(directory="    Require ip 127.0.0.2\n")
    report = differential.compare(original, wrong, name="replaced", httpd=httpd)
    assert not report.ok
    assert {(m.request.source, m.reference, m.candidate) for m in report.mismatches
            if m.request.path == "/a/f.html" and m.request.user == "alice" and m.request.password == "alice-pw"
            and m.request.source == "127.0.0.1"} == {("127.0.0.1", 403, 200)}
    right = site(directory="    Require ip 127.0.0.2\n", htaccess=AUTH + "AuthMerging And\nRequire valid-user\n")
    assert differential.compare(original, right, name="merged", httpd=httpd).ok


def test_each_side_and_configuration_reads_its_own_htaccess(httpd):
    """Both servers and every configuration of a batch share one file tree: the files must not mix."""
    deny = site(htaccess="Order deny,allow\nDeny from all\n")
    cases = [differential.Case("a", site(), site(directory="    Require ip 127.0.0.2\n",
                                                    htaccess=AUTH + "AuthMerging And\nRequire valid-user\n")),
             differential.Case("b", deny, site(directory="    Require ip 127.0.0.2\n", htaccess="Require all denied\n"))]
    a, b = differential.compare_many(cases, httpd=httpd)
    assert a.ok, a.format()
    assert b.ok, b.format()
    assert set(answers({q: s for q, (s, _c) in b.statuses.items()}).values()) == {403}


def test_a_migration_with_htaccess_files_is_proven(httpd, translation_cases, assert_all_ok):
    reports = differential.compare_many(translation_cases([("site", site())]), httpd=httpd)
    assert_all_ok(reports, "mixed .htaccess")
    assert any(q.path == "/a/f.html" for q in reports[0].statuses)


def test_the_htaccess_shape_writes_server_sections_and_htaccess_files():
    from test_differential_random import SEED

    configs = differential.random_configs(SEED, 50, shapes="htaccess")
    assert configs[5:8] == differential.random_configs(SEED, 3, start=5, shapes="htaccess")
    for _i, files in configs:
        assert "AllowOverride" in files["httpd.conf"]
        assert [n for n in files if n.endswith("/.htaccess")]
        for name, text in files.items():
            if name.endswith(".htaccess"):
                assert "<Directory" not in text and "<Location" not in text, text
    assert len({tuple(sorted(f.items())) for _i, f in configs}) >= 45

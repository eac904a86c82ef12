"""A configuration that ran on 2.4 already (it loads a module 2.2 never had) keeps 2.4's behaviour.

httpd24 writes 2.2's behaviour back where 2.4 changed it (SSILegacyExprParser, ``|$`` piped logs,
2.2's defaults, 2.2's access-control inheritance). On a configuration that could not start on 2.2,
that behaviour is not what its pages and clients know: the rules that write it are left out, and its
Order/Allow/Deny are read as 2.4 + mod_access_compat answers them (httpd24.engine.source).
"""

from __future__ import annotations

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.apache import Instance, differential
from httpd24.cli import main
from httpd24.config import ConfigSet
from httpd24.engine import lint, migrate

#: What the about-2.2 rules say of a 2.2 configuration with SSI, a piped log and .htaccess files.
ABOUT_22 = {"HT202", "HT208", "HT301", "HT302", "HT303"}

BODY = """\
DocumentRoot docs
AccessFileName .htaccess
<Directory docs>
    Options +Includes
    AddType text/html .shtml
    AddOutputFilter INCLUDES .shtml
</Directory>
CustomLog "|exec cat >/dev/null" common
"""

#: A page written for 2.4's ap_expr: under SSILegacyExprParser it prints an error instead.
PAGE_24 = '<!--#if expr="%{QUERY_STRING} =~ /yes/" -->YES<!--#else -->NO<!--#endif -->\n'


def configset(text: str) -> ConfigSet:
    return ConfigSet.from_mapping({"site.conf": text}, entry="site.conf")


def codes(text: str, **kw) -> set[str]:
    return {f.code for f in lint(configset(text), **kw)}


def test_a_22_configuration_gets_every_rule():
    assert ABOUT_22 <= codes(BODY)


@pytest.mark.parametrize("module", ["mpm_event_module", "authz_core_module", "unixd_module", "socache_shmcb_module"])
def test_a_module_22_never_had_says_it_ran_on_24(module):
    text = f"LoadModule {module} modules/mod_{module[:-7]}.so\n" + BODY
    assert not codes(text) & ABOUT_22
    assert ABOUT_22 <= codes(text, source_version="2.2")


def test_an_allowoverride_nonfatal_says_it_ran_on_24(tmp_path, capsys):
    """2.2 refuses `Nonfatal=` ("Illegal override option"): HT301 must not write 2.2's `AllowOverride All` into
    a configuration whose .htaccess files have answered 500 (or been skipped) under 2.4 all along."""
    section = "<Directory docs/sub>\n    AllowOverride AuthConfig Nonfatal=Override\n</Directory>\n"
    text = BODY + section
    assert not codes(text) & ABOUT_22
    assert ABOUT_22 <= codes(text, source_version="2.2")
    assert ABOUT_22 <= codes(BODY + f"<IfVersion >= 2.4>\n{section}</IfVersion>\n")  # 2.2 may skip it there
    conf = tmp_path / "httpd.conf"
    conf.write_text(text)
    assert main(["lint", "--fail-on", "never", str(conf)]) == 0
    assert (f"ran on httpd 2.4 already (AllowOverride AuthConfig Nonfatal=Override at {conf}:10 is refused on 2.2)"
            in capsys.readouterr().err)


@pytest.mark.parametrize("text", [
    pytest.param("LoadModule rewrite_module modules/mod_rewrite.so\n", id="a-module-22-had"),
    pytest.param("<IfVersion >= 2.4>\nLoadModule mpm_event_module modules/mod_mpm_event.so\n</IfVersion>\n",
                 id="in-a-branch-22-skips"),
    pytest.param("<IfModule !unixd_module>\nLoadModule unixd_module modules/mod_unixd.so\n</IfModule>\n",
                 id="guarded-as-httpd24-writes-it"),
    pytest.param("LoadModule macro_module modules/mod_macro.so\n", id="a-third-party-22-module-of-that-name"),
])
def test_what_does_not_say_it_ran_on_24(text):
    assert ABOUT_22 <= codes(text + BODY)


def test_a_file_nothing_includes_says_nothing():
    """Debian's mods-available/mpm_event.load, which nothing includes, loads nothing."""
    files = {"site.conf": BODY, "mods-available/mpm_event.load": "LoadModule mpm_event_module modules/mod_mpm_event.so\n"}
    found = {f.code for f in lint(ConfigSet.from_mapping(files, entry="site.conf"))}
    assert ABOUT_22 <= found


def test_source_version_24_says_so_without_a_module():
    assert not codes(BODY, source_version="2.4") & ABOUT_22


def test_a_migration_keeps_what_its_input_ran_on():
    """HT404 writes `LoadModule mpm_event_module` into a 2.2 configuration that loads its own modules:
    the later passes still apply the about-2.2 rules' fixes (their findings are fixed, not dropped)."""
    text = "LoadModule include_module modules/mod_include.so\nLoadModule mime_module modules/mod_mime.so\n" + BODY
    result = migrate(configset(text))
    out = result.files["site.conf"].decode()
    assert "LoadModule mpm_event_module" in out
    assert "SSILegacyExprParser on" in out and '"||exec cat' not in out and '"|$exec cat' in out
    assert {"HT202", "HT208", "HT404"} <= {f.code for f in result.applied}
    assert result.source is not None and not result.source.ran_on_24


@pytest.mark.parametrize("loads", [
    pytest.param("LoadModule include_module modules/mod_include.so\nLoadModule mime_module modules/mod_mime.so\n",
                 id="lines-ht404-adds"),
    pytest.param("LoadModule disk_cache_module modules/mod_disk_cache.so\n", id="a-module-ht401-renames"),
    pytest.param("LoadModule authn_alias_module modules/mod_authn_alias.so\n", id="authn-alias"),
])
def test_lint_of_a_migration_finds_what_the_migration_left(loads):
    """The LoadModule lines a migration wrote (HT404's, and HT401's renames of modules 2.4 renamed) are
    not evidence that the text ran on 2.4: a CI step `httpd24 lint` after `httpd24 migrate --write` must
    still see what needs a person, not leave it out as "ran on 2.4" (and an admission webhook's second
    look at a migrated ConfigMap must find what the first one left)."""
    text = loads + BODY
    result = migrate(configset(text))
    again = lint(configset(result.files["site.conf"].decode()))
    assert [(f.code, f.line) for f in again] == [(f.code, f.line) for f in result.remaining]
    assert {"HT302", "HT303"} <= {f.code for f in again}
    # and migrating the output again changes nothing
    assert migrate(configset(result.files["site.conf"].decode())).files == result.files


def test_the_cli_says_which_line_decided(tmp_path, capsys):
    conf = tmp_path / "httpd.conf"
    conf.write_text("LoadModule mpm_event_module modules/mod_mpm_event.so\n" + BODY)
    assert main(["lint", "--fail-on", "never", str(conf)]) == 0
    captured = capsys.readouterr()
    assert "HT208" not in captured.out
    assert (f"httpd24: {conf}: ran on httpd 2.4 already (LoadModule mpm_event_module at {conf}:1 cannot load on "
            "2.2): the rules about what 2.2 did are left out (--source-version 2.2 applies them)") in captured.err
    assert main(["migrate", "--check", "--ignore", "HT404", str(conf)]) == 0  # it loads too few modules
    capsys.readouterr()
    assert main(["lint", "--fail-on", "never", "--source-version", "2.2", str(conf)]) == 0
    captured = capsys.readouterr()
    assert "HT208" in captured.out and "ran on httpd 2.4" not in captured.err


@pytest.mark.apache
def test_ssi_pages_written_for_24_keep_working(httpd, tmp_path):
    """Migrating a 2.4 configuration must not switch its pages to 2.2's SSI expression parser."""
    text = f"LoadModule mpm_event_module {httpd.so_path('mpm_event_module')}\n" + BODY.replace(
        'CustomLog "|exec cat >/dev/null" common\n', "")
    result = migrate(configset(text))
    files = {"site.conf": result.files["site.conf"], "docs/p.shtml": PAGE_24}
    modules = ["include_module", "mime_module", "authz_core_module", "authn_core_module"]
    with Instance(files, "site.conf", modules, httpd=httpd) as srv:
        assert srv.request("/p.shtml?yes").text.strip() == "YES"
        assert srv.request("/p.shtml?no").text.strip() == "NO"


#: Debian's 2.4 with mod_access_compat: the child section holds only `Satisfy`, which drops the parent's
#: host rules there on 2.4 (research notes §5, case A): /srv/www/a is open to every client today.
ACCESS_24 = """\
LoadModule mpm_event_module modules/mod_mpm_event.so
LoadModule access_compat_module modules/mod_access_compat.so
DocumentRoot /srv/www
<Directory /srv/www>
    Order deny,allow
    Deny from all
    Allow from 127.0.0.1
</Directory>
<Directory /srv/www/a>
    Satisfy All
</Directory>
"""


@pytest.mark.apache
def test_access_control_keeps_the_answers_it_gives_on_24(httpd):
    """The reference is the configuration as it runs: on 2.4 with mod_access_compat, not 2.2."""
    result = migrate(configset(ACCESS_24))
    assert "Order" not in result.files["site.conf"].decode()
    report = differential.compare(ACCESS_24, result.files["site.conf"].decode(), name="ran on 2.4", httpd=httpd)
    assert report.ok, report.format()
    opened = {q.path for q, (reference, _) in report.statuses.items() if reference == 200 and q.source != "127.0.0.1"}
    assert any(path.startswith("/a") for path in opened)


@pytest.mark.parametrize("source_version", ["auto", "2.2", "2.4"])
@pytest.mark.apache
def test_migrate_verify_judges_the_original_as_the_migration_did(tmp_path, capsys, httpd, source_version):
    """A LoadModule 2.2 never had says the file ran on 2.4; --source-version 2.2 says otherwise. Either
    way the reference is what the migration took the original to be (2.2's inheritance written out, or
    the file as 2.4 + mod_access_compat runs it), or verify reports the difference between the two."""
    conf = tmp_path / "site.conf"
    conf.write_text(ACCESS_24)
    # (only the access rules: under 2.2, HT301's warnings would need a person and fail migrate on their own)
    code = main(["migrate", "--verify", "--select", "HT5", "--source-version", source_version, str(conf)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "every status matched" in out
    opened = "Require all granted" in out  # /a/: open on 2.4 + mod_access_compat, not on 2.2
    assert opened is (source_version != "2.2")


def test_order_allow_deny_that_ran_on_24_is_not_called_a_mix():
    """No Require line anywhere: HT501 translates it (as 2.4 + mod_access_compat answers), HT502 is for mixes."""
    found = [f for f in lint(configset(ACCESS_24)) if f.code.startswith("HT50")]
    assert {f.code for f in found} == {"HT501"}
    assert all("which only mod_access_compat keeps on 2.4" in f.message for f in found)
    assert all(f.fix is not None for f in found)

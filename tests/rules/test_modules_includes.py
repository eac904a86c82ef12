import re

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity, lint

MODDIR = "/usr/lib/apache2/modules"

# -- HT401 removed modules -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("LoadModule authn_core_module modules/mod_authn_core.so\n", id="standard-24-module"),
        pytest.param("<IfVersion < 2.3>\nLoadModule authn_alias_module modules/mod_authn_alias.so\n</IfVersion>\n",
                     id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nLoadModule authz_default_module m/mod_authz_default.so\n"
                     "</IfModule>\n", id="dead-ifmodule-branch"),
        pytest.param("# LoadModule mem_cache_module modules/mod_mem_cache.so\n", id="comment"),
    ],
)
def test_removed_module_noop(text):
    assert findings(text, "HT401") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("LoadModule authn_alias_module modules/mod_authn_alias.so\n"
                     "<AuthnProviderAlias file f>\nAuthUserFile /u\n</AuthnProviderAlias>\n",
                     "LoadModule authn_core_module modules/mod_authn_core.so\n"
                     "<AuthnProviderAlias file f>\nAuthUserFile /u\n</AuthnProviderAlias>\n", id="authn-alias"),
        pytest.param("LoadModule authn_alias_module modules/mod_authn_alias.so\nUser a\n", "User a\n",
                     id="authn-alias-unused"),
        pytest.param("LoadModule authn_core_module modules/mod_authn_core.so\n"
                     "LoadModule authn_alias_module modules/mod_authn_alias.so\n",
                     "LoadModule authn_core_module modules/mod_authn_core.so\n", id="authn-alias-core-loaded"),
        pytest.param("A b\nLoadModule authn_default_module modules/mod_authn_default.so\nC d\n", "A b\nC d\n",
                     id="authn-default"),
        pytest.param("LoadModule authz_default_module modules/mod_authz_default.so\n", "", id="authz-default"),
        pytest.param("A b\r\n  LoadModule disk_cache_module /usr/lib/httpd/modules/mod_disk_cache.so\r\n",
                     "A b\r\n  LoadModule cache_disk_module /usr/lib/httpd/modules/mod_cache_disk.so\r\n",
                     id="disk-cache"),
        pytest.param("LoadModule mem_cache_module modules/mod_mem_cache.so\n", "", id="mem-cache"),
    ],
)
def test_removed_module_fix(before, after):
    assert fixed(before, "HT401") == after


def test_removed_module_mem_cache_is_preserve_and_names_the_replacement():
    [finding] = findings("LoadModule mem_cache_module modules/mod_mem_cache.so\n", "HT401")
    assert finding.severity == Severity.ERROR
    assert finding.fix.applicability == Applicability.PRESERVE
    assert "mod_cache_disk" in finding.message and "mod_cache_socache" in finding.message
    assert fixed("LoadModule mem_cache_module m.so\n", "HT401", applicability=Applicability.SAFE) == (
        "LoadModule mem_cache_module m.so\n"
    )


@pytest.mark.apache
def test_removed_module_real_httpd(httpd):
    text = (
        f"LoadModule cache_module {MODDIR}/mod_cache.so\n"
        f"LoadModule disk_cache_module {MODDIR}/mod_disk_cache.so\n"
        f"LoadModule authz_default_module {MODDIR}/mod_authz_default.so\n"
        "CacheRoot /tmp\n"
    )
    before = configtest({"m.conf": text}, "m.conf", ["mpm_event_module"], httpd=httpd)
    assert not before.ok and "mod_disk_cache.so" in before.output
    after = configtest({"m.conf": fixed(text, "HT401")}, "m.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok, after.output


# -- HT402 third-party modules ---------------------------------------------------------------


def test_third_party_module():
    [finding] = findings("LoadModule php5_module modules/libphp5.so\n", "HT402")
    assert finding.severity == Severity.WARNING and finding.fix is None
    assert "prefork" in finding.message and "libphp5.so" in finding.message


@pytest.mark.parametrize(
    "text",
    [
        "LoadModule rewrite_module modules/mod_rewrite.so\n",
        "LoadModule mem_cache_module modules/mod_mem_cache.so\n",  # removed: HT401's
        "<IfVersion < 2.3>\nLoadModule wsgi_module modules/mod_wsgi.so\n</IfVersion>\n",
        "<IfModule !mod_authz_core.c>\nLoadModule wsgi_module modules/mod_wsgi.so\n</IfModule>\n",
    ],
)
def test_third_party_module_noop(text):
    assert findings(text, "HT402") == []


# -- HT403 Include that matches nothing ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param({"httpd.conf": "Include conf.d/*.conf\n", "conf.d/a.conf": "ServerAdmin a@b\n"}, id="matches"),
        pytest.param("IncludeOptional conf.d/*.conf\n", id="optional"),
        pytest.param("Include extra/missing.conf\n", id="plain-file-fails-on-22-too"),
        pytest.param("<IfVersion < 2.3>\nInclude conf.d/*.conf\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nInclude conf.d/*.conf\n</IfModule>\n", id="dead-ifmodule-branch"),
    ],
)
def test_include_noop(text):
    assert lint(configset(text), select=["HT403"]) == []


def test_include_no_match_fix():
    text = "Include conf.d/*.conf\n  include  \"sites/*\"  # x\n"
    [first, second] = findings(text, "HT403")
    assert first.severity == Severity.ERROR and "refuses to start" in first.message
    assert first.replacement == "IncludeOptional conf.d/*.conf"
    assert fixed(text, "HT403") == "IncludeOptional conf.d/*.conf\n  IncludeOptional  \"sites/*\"  # x\n"


def test_include_external_says_so_without_claiming_failure():
    [finding] = findings("Include /etc/httpd/conf.d/*.conf\n", "HT403")
    assert finding.severity == Severity.WARNING
    assert "outside this configuration" in finding.message and "if nothing matches" in finding.message
    assert finding.fix.applicability == Applicability.SAFE


@pytest.mark.apache
def test_include_a_directory_of_the_set_without_the_file_real_httpd(httpd):
    """A set of named files is judged as those files on disk: conf.d/b, a directory `*` matches, has no
    x.conf, and httpd refuses to start though conf.d/a has one. Nothing was said: the Include matched."""
    files = {"i.conf": "Include conf.d/*/x.conf\nServerAdmin a@example.org\n", "conf.d/a/x.conf": "ServerName a\n",
             "conf.d/b/y.conf": "ServerName b\n"}
    before = configtest(files, "i.conf", ["mpm_event_module"], httpd=httpd)
    assert not before.ok and "Could not open configuration file" in before.output, before.output
    [finding] = lint(configset(files, "i.conf"), select=["HT403"])
    assert finding.severity == Severity.ERROR and (finding.file, finding.line) == ("i.conf", 1)
    assert finding.message.startswith("Include conf.d/*/x.conf: conf.d/b has no x.conf, and httpd refuses to start "
                                      "(\"Could not open configuration file /usr/local/apache2/conf.d/b/x.conf\")")
    files["i.conf"] = fixed(files["i.conf"], "HT403")
    after = configtest(files, "i.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
@pytest.mark.parametrize("include", ["Include", '"Include"', "Inc\\\nlude"], ids=["plain", "quoted", "split"])
def test_include_no_match_real_httpd(httpd, include):
    """httpd reads a quoted name, or one split by a continuation, as the plain name: so must the fix."""
    files = {"i.conf": f"{include} conf.d/*.conf\nServerAdmin a@example.org\n", "conf.d/README": "x\n"}
    before = configtest(files, "i.conf", ["mpm_event_module"], httpd=httpd)
    assert not before.ok and "No matches for the wildcard" in before.output
    files["i.conf"] = fixed(files["i.conf"], "HT403")
    after = configtest(files, "i.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok, after.output


# -- HT404 modules a self-loading configuration does not load ----------------------------------

AZ = "LoadModule authz_core_module m/mod_authz_core.so\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("User apache\nAddOutputFilterByType DEFLATE text/html\n", id="no-loadmodule-lines"),
        pytest.param(AZ + "LoadModule mpm_event_module m/mod_mpm_event.so\nLoadModule unixd_module m/mod_unixd.so\n"
                     "User apache\n", id="all-loaded"),
        pytest.param(AZ + "LoadModule mpm_event_module m/mod_mpm_event.so\n<IfModule mod_ssl.c>\nSSLEngine on\n"
                     "</IfModule>\n", id="guarded-by-ifmodule"),
        pytest.param(AZ + "LoadModule mpm_event_module m/mod_mpm_event.so\nLoadModule version_module m/mod_version.so\n"
                     "<IfVersion < 2.3>\nUser apache\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("LoadModule mpm_event_module m/mod_mpm_event.so\nLoadModule authz_core_module m/mod_authz_core.so\n"
                     "<IfModule !mod_authz_core.c>\nUser a\n</IfModule>\n", id="dead-ifmodule-branch"),
    ],
)
def test_module_not_loaded_noop(text):
    assert findings(text, "HT404") == []


def test_module_not_loaded_ifversion_needs_mod_version():
    [finding] = findings(AZ + "LoadModule mpm_event_module m/mod_mpm_event.so\n<IfVersion < 2.3>\nUser a\n"
                         "</IfVersion>\n", "HT404")
    assert finding.line == 3 and "version_module" in finding.message


def test_module_not_loaded_ifmodule_authz_core_keeps_the_24_branch():
    # Without mod_authz_core the 2.2 branch would be read (and need mod_unixd): load authz_core.
    text = "LoadModule mpm_event_module m/mod_mpm_event.so\n<IfModule !mod_authz_core.c>\nUser a\n</IfModule>\n"
    [finding] = findings(text, "HT404")
    assert finding.replacement == "LoadModule authz_core_module m/mod_authz_core.so"
    assert finding.line == 2  # at the <IfModule> that tests it


def test_module_not_loaded_authz_core_for_every_request():
    [finding] = findings("LoadModule mpm_event_module m/mod_mpm_event.so\n", "HT404")
    assert finding.replacement == "LoadModule authz_core_module m/mod_authz_core.so"
    assert "500" in finding.message


def test_module_not_loaded_names_moved_modules():
    text = "LoadModule alias_module modules/mod_alias.so\nUser apache\nAddOutputFilterByType DEFLATE text/html\n"
    found = {f.replacement.split()[1]: f for f in findings(text, "HT404")}
    assert sorted(found) == ["authz_core_module", "deflate_module", "filter_module", "mpm_event_module",
                             "unixd_module"]
    assert found["unixd_module"].line == 2 and "mod_unixd" in found["unixd_module"].message
    assert found["filter_module"].line == 3 and "mod_filter" in found["filter_module"].message
    assert all(f.severity == Severity.INFO for f in found.values())


def test_module_not_loaded_reasons_read_without_nested_parentheses():
    """The message puts the reason in parentheses: "(the MPM is a loadable module in 2.4 (2.2 compiled
    it in))" once read so."""
    text = ("LoadModule alias_module modules/mod_alias.so\nAuthType Basic\nSSLSessionCache shmcb:/run/c(512000)\n"
            "<Proxy balancer://b>\nBalancerMember http://a\n</Proxy>\nOrder allow,deny\n")
    reasons = [m.group(1) for f in findings(text, "HT404") if (m := re.search(r"does not load \((.*?)\)(?:: |$)", f.message))]
    assert len(reasons) >= 6, reasons
    assert [r for r in reasons if "(" in r or ")" in r] == []


def test_module_not_loaded_fix_adds_every_missing_module_once():
    text = "LoadModule alias_module modules/mod_alias.so\nUser apache\nAddOutputFilterByType DEFLATE text/html\n"
    assert fixed(text, "HT404") == (
        "LoadModule alias_module modules/mod_alias.so\n"
        "# httpd24 (HT404): modules httpd 2.4 needs that this configuration did not load\n"
        "LoadModule mpm_event_module modules/mod_mpm_event.so\n"
        "LoadModule authz_core_module modules/mod_authz_core.so\n"
        "LoadModule deflate_module modules/mod_deflate.so\n"
        "LoadModule filter_module modules/mod_filter.so\n"
        "<IfModule !unixd_module>\n    LoadModule unixd_module modules/mod_unixd.so\n</IfModule>\n"
        "User apache\nAddOutputFilterByType DEFLATE text/html\n"
    )


def test_module_not_loaded_access_compat_has_no_fix():
    # HT5xx translates Order/Allow/Deny in the same migration; a stale LoadModule would remain.
    text = AZ + "LoadModule mpm_event_module m/mod_mpm_event.so\n<Location />\nOrder deny,allow\nDeny from all\n</Location>\n"
    [finding] = findings(text, "HT404")
    assert finding.line == 4 and finding.fix is None
    assert finding.replacement == "LoadModule access_compat_module m/mod_access_compat.so"
    assert fixed(text, "HT404") == text


def test_module_not_loaded_prefork_settings_choose_prefork():
    text = "LoadModule authz_core_module modules/mod_authz_core.so\nMinSpareServers 5\nMaxSpareServers 10\n"
    [finding] = findings(text, "HT404")
    assert finding.replacement == "LoadModule mpm_prefork_module modules/mod_mpm_prefork.so"
    assert finding.line == 2


@pytest.mark.apache
def test_module_not_loaded_real_httpd(httpd):
    text = (
        f"LoadModule alias_module {MODDIR}/mod_alias.so\n"
        "MinSpareServers 5\n"
        "<Directory /tmp>\n    AuthType Basic\n    AuthName x\n    AuthUserFile /dev/null\n    Require valid-user\n"
        "</Directory>\n"
        "AddOutputFilterByType DEFLATE text/html\n"
    )
    # load no MPM from outside: the configuration must bring its own (prefork, for MinSpareServers)
    before = configtest({"s.conf": text}, "s.conf", ["mpm_prefork_module"], httpd=httpd)
    assert not before.ok
    out = fixed(text, "HT404")
    assert "mpm_prefork_module" in out
    after = configtest({"s.conf": out.replace("LoadModule mpm_prefork_module", "#")}, "s.conf",
                       ["mpm_prefork_module"], httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
def test_module_not_loaded_in_a_debian_layout_is_loaded_where_httpd_reads_it(httpd):  # noqa: F811
    """Debian's mods-available/*.load are read only through a link in mods-enabled/: a module that only
    such a file loads is not loaded. The LoadModule goes after the Include that reads mods-enabled/,
    not into one of the files it matches: written into mpm_event.load (a link to mods-available/), it
    would be lost with `a2dismod mpm_event`, the usual step to change MPM."""
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    files = {
        "apache2.conf": "IncludeOptional mods-enabled/*.load\nAddOutputFilterByType DEFLATE text/html\n",
        "mods-enabled/deflate.load": f"LoadModule deflate_module {httpd.module_dir}/mod_deflate.so\n",
        "mods-enabled/mpm_event.load": f"LoadModule mpm_event_module {httpd.module_dir}/mod_mpm_event.so\n",
        "mods-available/filter.load": f"LoadModule filter_module {httpd.module_dir}/mod_filter.so\n",
        "mods-available/zz.load": f"LoadModule xml2enc_module {httpd.module_dir}/mod_xml2enc.so\n",
    }
    assert not configtest(files, "apache2.conf", [], httpd=httpd).ok
    result = migrate(ConfigSet.from_mapping(files, entry="apache2.conf"), select=["HT404"])
    messages = {f.replacement.split()[1]: f.message for f in result.applied}
    assert messages["filter_module"].endswith("; on Debian, `a2enmod filter` loads it as well")
    assert result.files["apache2.conf"].decode() == (
        "IncludeOptional mods-enabled/*.load\n"
        "# httpd24 (HT404): modules httpd 2.4 needs that this configuration did not load\n"
        f"LoadModule authz_core_module {httpd.module_dir}/mod_authz_core.so\n"
        f"LoadModule filter_module {httpd.module_dir}/mod_filter.so\n"
        "AddOutputFilterByType DEFLATE text/html\n")
    for untouched in ("mods-enabled/deflate.load", "mods-enabled/mpm_event.load", "mods-available/filter.load",
                      "mods-available/zz.load"):
        assert result.files[untouched] == files[untouched].encode()
    checked = configtest(result.files, "apache2.conf", [], httpd=httpd)
    assert checked.ok, checked.output


@pytest.mark.apache
def test_module_not_loaded_leaves_out_what_debians_apache2_has_built_in(httpd):  # noqa: F811
    """LoadModule lines from /usr/lib/apache2/modules are for Debian's apache2, which has mod_unixd,
    mod_log_config and mod_logio built in: asking for them was noise on every Debian tree (its own 2.4 one too)."""
    if httpd.module_dir != "/usr/lib/apache2/modules":
        pytest.skip("Debian's apache2 is not the httpd here")
    text = (f"LoadModule mpm_event_module {httpd.module_dir}/mod_mpm_event.so\n"
            f"LoadModule authz_core_module {httpd.module_dir}/mod_authz_core.so\n"
            'User www-data\nLogFormat "%h %O" common\n')
    assert findings(text, "HT404") == []
    checked = configtest({"s.conf": text}, "s.conf", [], httpd=httpd)
    assert checked.ok, checked.output
    # from another directory (the official image's modules/), they are modules to load
    elsewhere = {f.replacement.split()[1] for f in findings(text.replace(httpd.module_dir, "modules"), "HT404")}
    assert elsewhere == {"unixd_module", "log_config_module", "logio_module"}


def test_module_not_loaded_goes_with_the_main_files_loadmodule_lines():
    """Red Hat's layout: httpd.conf loads the modules, conf.d/ssl.conf (read later) loads mod_ssl. The MPM
    belongs with httpd.conf's LoadModule lines, not in ssl.conf, which goes away with SSL."""
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    files = {
        "httpd.conf": "LoadModule alias_module modules/mod_alias.so\nAlias /a /srv/a\nInclude conf.d/*.conf\n",
        "conf.d/ssl.conf": "LoadModule ssl_module modules/mod_ssl.so\n",
    }
    result = migrate(ConfigSet.from_mapping(files, entry="httpd.conf"), select=["HT404"])
    # one edit loads both; each finding it fixed is reported as fixed
    assert sorted(f.replacement.split()[1] for f in result.applied) == ["authz_core_module", "mpm_event_module"]
    assert result.files["conf.d/ssl.conf"] == files["conf.d/ssl.conf"].encode()
    assert result.files["httpd.conf"].decode().startswith(
        "LoadModule alias_module modules/mod_alias.so\n# httpd24 (HT404): modules httpd 2.4 needs that this "
        "configuration did not load\nLoadModule mpm_event_module modules/mod_mpm_event.so\n")


@pytest.mark.apache
@pytest.mark.parametrize("block", [
    "<IfDefine SSL>\nLoadModule ssl_module {dir}/mod_ssl.so\n</IfDefine>\n",  # Gentoo's and SUSE's 2.2 layout
    "<IfModule !mod_php5.c>\n<IfDefine PHP>\nLoadModule php5_module {dir}/libphp5.so\n</IfDefine>\n</IfModule>\n",
])
def test_module_not_loaded_is_loaded_outside_the_conditional_block_of_the_last_loadmodule(httpd, block):  # noqa: F811
    """The last LoadModule sits in a block httpd reads only with -D SSL: the MPM and mod_authz_core added after
    it were loaded only with -D SSL, and without it 2.4 refused to start ("No MPM loaded")."""
    text = (f"LoadModule auth_basic_module {MODDIR}/mod_auth_basic.so\n" + block.format(dir=MODDIR)
            + "<Location /x>\n    AuthType Basic\n    AuthName x\n    AuthUserFile /dev/null\n"
            "    Require valid-user\n</Location>\n")
    out = fixed(text, "HT404")
    assert out.startswith(text.split("<Location")[0] + "# httpd24 (HT404): modules httpd 2.4 needs"), out
    result = configtest({"s.conf": out}, "s.conf", [], httpd=httpd)  # nothing loaded from outside
    assert result.ok, result.output


@pytest.mark.apache
def test_module_not_loaded_reads_the_blocks_of_what_debians_binary_builds_in(httpd):  # noqa: F811
    """LoadModule lines from Debian's module directory are for Debian's apache2, which builds mod_logio in:
    its `<IfModule mod_logio.c>` block is read there, and SetEnv needs mod_env (as `httpd24 modules
    --builtin debian` says)."""
    text = (f"LoadModule mpm_event_module {MODDIR}/mod_mpm_event.so\n"
            f"LoadModule authz_core_module {MODDIR}/mod_authz_core.so\n"
            "<IfModule mod_logio.c>\n    SetEnv A 1\n</IfModule>\n")
    out = fixed(text, "HT404")
    assert f"LoadModule env_module {MODDIR}/mod_env.so" in out
    result = configtest({"s.conf": out}, "s.conf", [], httpd=httpd)
    assert result.ok, result.output


# A block on a module the configuration does not load is skipped by httpd: what its directives need is
# not needed. /tmp/hC cachedisk: HT404 loaded mod_cache_disk alone for <IfModule mod_cache.c>, and 2.4
# then refused to load it (undefined symbol ap_cache_cacheable_headers_in: it needs mod_cache).
DEAD_CACHE_BLOCK = "<IfModule mod_cache.c>\n  CacheRoot /tmp\n  CacheEnable disk /\n</IfModule>\n"


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(DEAD_CACHE_BLOCK, id="cache-disk-under-mod-cache"),
        pytest.param("<IfModule mod_ssl.c>\n  SSLEngine on\n  AddOutputFilterByType DEFLATE text/html\n</IfModule>\n",
                     id="filter-under-mod-ssl"),
        pytest.param("<IfModule mod_proxy.c>\n  ProxyRequests On\n  <IfModule mod_cache.c>\n    CacheEnable disk /\n"
                     "  </IfModule>\n</IfModule>\n", id="nested"),
    ],
)
def test_module_not_loaded_needs_nothing_for_a_block_on_a_module_it_does_not_load(block):
    text = "LoadModule mime_module modules/mod_mime.so\n" + block
    assert fixed(text, "HT404") == (
        "LoadModule mime_module modules/mod_mime.so\n"
        "# httpd24 (HT404): modules httpd 2.4 needs that this configuration did not load\n"
        "LoadModule mpm_event_module modules/mod_mpm_event.so\n"
        "LoadModule authz_core_module modules/mod_authz_core.so\n" + block
    )


def test_module_not_loaded_reads_a_block_on_a_module_it_loads_for_other_reasons():
    """The block's guard is loaded because a line outside it needs mod_cache: then the block is read, and
    what it needs is loaded too (mod_cache first: mod_cache_disk cannot load without it)."""
    text = "LoadModule mime_module modules/mod_mime.so\nCacheEnable disk /\n" + DEAD_CACHE_BLOCK
    added = [line.split()[1] for line in fixed(text, "HT404").splitlines() if line.startswith("LoadModule")][1:]
    assert added == ["mpm_event_module", "authz_core_module", "cache_module", "cache_disk_module"]


def test_module_not_loaded_brings_what_a_module_cannot_load_without():
    """mod_cache_disk for an unguarded CacheRoot needs mod_cache, which the only line naming it (inside
    its own <IfModule>) did not ask for: both are loaded in one pass, mod_cache first."""
    text = "LoadModule mime_module modules/mod_mime.so\nCacheRoot /tmp\n<IfModule mod_cache.c>\nCacheEnable disk /\n</IfModule>\n"
    out = fixed(text, "HT404")
    added = [line.split()[1] for line in out.splitlines() if line.startswith("LoadModule")][1:]
    assert added == ["mpm_event_module", "authz_core_module", "cache_module", "cache_disk_module"]
    [finding] = [f for f in findings(text, "HT404") if "cache_module " in f.replacement + " "]
    assert "mod_cache_disk" in finding.message and finding.fix is not None


@pytest.mark.apache
@pytest.mark.parametrize(
    "body",
    [
        pytest.param(DEAD_CACHE_BLOCK, id="dead-block"),
        pytest.param("CacheRoot /tmp\n<IfModule mod_cache.c>\nCacheEnable disk /\n</IfModule>\n", id="dependency"),
    ],
)
def test_module_not_loaded_output_starts_on_real_httpd(httpd, body):  # noqa: F811
    text = f"LoadModule mime_module {httpd.module_dir}/mod_mime.so\n" + body
    out = fixed(text, "HT404")
    assert "mpm_event_module" in out
    # configtest() loads its own MPM: take out the one the migration added
    checked = configtest({"s.conf": out.replace("LoadModule mpm_event_module", "# ")}, "s.conf",
                         ["mpm_event_module"], httpd=httpd)
    assert checked.ok, checked.output


# HT401 turns `LoadModule authn_alias_module` into `LoadModule authn_core_module` (and disk_cache into
# cache_disk) in the same migration in which HT404 loads what 2.4 needs: HT404 loaded them a second
# time (when its lines went after another LoadModule line than the renamed ones), and 2.4 then logged
# AH01574 "module authn_core_module is already loaded, skipping" at every start.
def _migrated(text: str, select=("HT401", "HT404")) -> str:
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    out = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"), select=list(select))
    result = out.files["httpd.conf"].decode()
    again = migrate(ConfigSet.from_mapping({"httpd.conf": result}, entry="httpd.conf"), select=list(select))
    assert again.files["httpd.conf"].decode() == result, "not idempotent"
    return result


RENAMED_LOADS = (
    "LoadModule cache_module modules/mod_cache.so\n"
    "LoadModule authn_alias_module modules/mod_authn_alias.so\n"
    "LoadModule disk_cache_module modules/mod_disk_cache.so\n"
    "LoadModule authn_file_module modules/mod_authn_file.so\n"
    "<AuthnProviderAlias file f1>\n  AuthUserFile /etc/f1\n</AuthnProviderAlias>\n"
    "<IfModule mod_disk_cache.c>\n  CacheRoot /var/cache/httpd\n  CacheEnable disk /\n</IfModule>\n"
)


def test_module_not_loaded_counts_what_a_removed_modules_line_becomes():
    assert _migrated(RENAMED_LOADS) == (
        "LoadModule cache_module modules/mod_cache.so\n"
        "LoadModule authn_core_module modules/mod_authn_core.so\n"
        "LoadModule cache_disk_module modules/mod_cache_disk.so\n"
        "LoadModule authn_file_module modules/mod_authn_file.so\n"
        "# httpd24 (HT404): modules httpd 2.4 needs that this configuration did not load\n"
        "LoadModule mpm_event_module modules/mod_mpm_event.so\n"
        "LoadModule authz_core_module modules/mod_authz_core.so\n"
        "<AuthnProviderAlias file f1>\n  AuthUserFile /etc/f1\n</AuthnProviderAlias>\n"
        "<IfModule mod_disk_cache.c>\n  CacheRoot /var/cache/httpd\n  CacheEnable disk /\n</IfModule>\n"
    )


@pytest.mark.apache
def test_module_not_loaded_loads_each_module_once_on_real_httpd(httpd):  # noqa: F811
    text = RENAMED_LOADS.replace("modules/", f"{httpd.module_dir}/")
    out = _migrated(text, select=("HT401", "HT404", "HT405"))
    assert "<IfModule mod_cache_disk.c>" in out
    checked = configtest({"s.conf": out.replace("LoadModule mpm_event_module", "# ")}, "s.conf",
                         ["mpm_event_module"], httpd=httpd)
    assert checked.ok, checked.output
    assert "AH01574" not in checked.output, checked.output



@pytest.mark.parametrize(
    ("options", "module"),
    [("Indexes FollowSymLinks", "autoindex_module"), ("MultiViews", "negotiation_module")],
)
def test_module_not_loaded_leaves_out_what_a_configuration_may_leave_out_on_purpose(options, module):
    """A 2.2 configuration that chooses its modules and leaves out mod_autoindex (the usual way to turn
    directory listings off) listed nothing on 2.2, and lists nothing on 2.4 either: loading the module
    for its `Options Indexes` would start listing directories. So would mod_negotiation start
    negotiating. `modules` names them (the operator's pods have only what it names)."""
    text = f"LoadModule mime_module modules/mod_mime.so\n<Directory /srv>\n    Options {options}\n</Directory>\n"
    assert module in requirements_of_text(text)
    assert [f.replacement.split()[1] for f in findings(text, "HT404")] == ["mpm_event_module", "authz_core_module"]
    listing = "LoadModule mime_module modules/mod_mime.so\nIndexOptions FancyIndexing\n"
    assert "LoadModule autoindex_module" in fixed(listing, "HT404")  # 2.2 had it: its directive needs it


def requirements_of_text(text: str):
    from httpd24.engine.modules import required_modules

    return required_modules(configset(text))


# -- HT405 IfModule on renamed modules ----------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("<IfModule mod_disk_cache.c>\n  CacheRoot /x\n</IfModule>\n",
                     "<IfModule mod_cache_disk.c>\n  CacheRoot /x\n</IfModule>\n", id="source-name"),
        pytest.param("<IfModule disk_cache_module>\n</IfModule>\n", "<IfModule cache_disk_module>\n</IfModule>\n",
                     id="identifier"),
        pytest.param("<IfModule !mod_authn_alias.c>\n</IfModule>\n", "<IfModule !mod_authn_core.c>\n</IfModule>\n",
                     id="negated"),
    ],
)
def test_ifmodule_renamed_fix(before, after):
    assert fixed(before, "HT405") == after


def test_ifmodule_renamed_dual_is_reported_as_dead_branch():
    text = "<IfModule mod_disk_cache.c>\nCacheRoot /a\n</IfModule>\n<IfModule mod_cache_disk.c>\nCacheRoot /b\n</IfModule>\n"
    [finding] = findings(text, "HT405")
    assert finding.fix is None and finding.severity == Severity.INFO
    assert fixed(text, "HT405") == text


@pytest.mark.parametrize(
    "text",
    [
        "<IfModule mod_cache_disk.c>\n</IfModule>\n",
        "<IfVersion < 2.3>\n<IfModule mod_disk_cache.c>\n</IfModule>\n</IfVersion>\n",
        "<IfModule !mod_authz_core.c>\n<IfModule mod_disk_cache.c>\n</IfModule>\n</IfModule>\n",
    ],
)
def test_ifmodule_renamed_noop(text):
    assert findings(text, "HT405") == []


# -- HT406 directives no 2.4 module provides ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Alias /a /b\n", id="standard"),
        pytest.param("<IfModule mod_wsgi.c>\nWSGIScriptAlias / /srv/app.wsgi\n</IfModule>\n", id="guarded"),
        pytest.param("RewriteLog /tmp/rewrite.log\n", id="another-rule-explains-it"),
        pytest.param("<IfVersion < 2.3>\nWSGIScriptAlias / /a\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nWSGIScriptAlias / /a\n</IfModule>\n", id="dead-ifmodule-branch"),
    ],
)
def test_unknown_directive_noop(text):
    assert findings(text, "HT406") == []


def test_unknown_directive_names_the_module():
    [wsgi, typo] = findings("WSGIScriptAlias / /srv/app.wsgi\nAlais /a /b\n", "HT406")
    assert wsgi.severity == Severity.ERROR and wsgi.fix is None and "mod_wsgi" in wsgi.message
    assert typo.line == 2 and "typo" in typo.message


def test_unknown_directive_with_a_loaded_third_party_module_is_a_warning():
    text = "LoadModule passenger_module modules/mod_passenger.so\nPassengerRoot /opt/passenger\n"
    [finding] = findings(text, "HT406")
    assert finding.severity == Severity.WARNING and "passenger_module" in finding.message


@pytest.mark.apache
def test_unknown_directive_is_what_real_httpd_rejects(httpd):
    text = "ServerAdmin a@example.org\nPassengerHighPerformance on\n"
    [finding] = findings(text, "HT406")
    result = configtest({"u.conf": text}, "u.conf", ["mpm_event_module"], httpd=httpd)
    assert not result.ok and f"line {finding.line} of u.conf" in result.output
    assert "Invalid command 'PassengerHighPerformance'" in result.output


# Found by fuzzing: a section's name without its "<" made a directive that rules looking up sections by key
# took for a section (lint and migrate crashed on `Directory /x` and `RequireAll`).
@pytest.mark.parametrize("line", ["Directory /srv>", "RequireAll", "VirtualHost *:80", "Location /", "IfModule mod_x.c"])
def test_a_section_name_written_as_a_directive_is_an_unknown_command(line):
    text = f"<Directory /srv>\n    {line}\n    Order allow,deny\n    Allow from all\n</Directory>\n"
    [finding] = findings(text, "HT406")
    name = line.split()[0]
    assert finding.line == 2 and f"it is a section: write <{name} ...> and close it with </{name}>" in finding.message
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    out = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")).files["httpd.conf"].decode()
    assert f"    {line}\n    Require all granted\n</Directory>\n" in out  # kept for a person; the rest migrated


@pytest.mark.apache
def test_a_section_name_written_as_a_directive_is_what_real_httpd_rejects(httpd):
    result = configtest({"u.conf": "Directory /srv\n"}, "u.conf", ["mpm_event_module"], httpd=httpd)
    assert not result.ok and "Invalid command 'Directory'" in result.output


def test_section_only_keys_are_the_module_tables_sections_that_are_no_directive():
    from httpd24.apache import table
    from httpd24.config.nodes import SECTION_ONLY_KEYS

    names = {d.name.lower() for d in table.directives()}
    sections = {n[1:] for n in names if n.startswith("<")}
    assert SECTION_ONLY_KEYS == sections - {n for n in names if not n.startswith("<")}


def test_module_not_loaded_by_a_later_pass_joins_the_first_block():
    """HT105 writes a `Header` line in the first pass; mod_headers is loaded in the second, under the
    same comment (one block of lines the migration added, which the source judgement skips)."""
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    text = "LoadModule mime_module modules/mod_mime.so\nDefaultType text/plain\n"
    out = migrate(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")).files["httpd.conf"].decode()
    assert out == (
        "LoadModule mime_module modules/mod_mime.so\n"
        "# httpd24 (HT404): modules httpd 2.4 needs that this configuration did not load\n"
        "LoadModule mpm_event_module modules/mod_mpm_event.so\n"
        "LoadModule authz_core_module modules/mod_authz_core.so\n"
        "LoadModule headers_module modules/mod_headers.so\n"
        'Header set Content-Type text/plain "expr=-z %{CONTENT_TYPE}"\n'
    )


def test_the_message_does_not_repeat_the_replacement():
    """Text output and admission denials print `message -> replacement`: the LoadModule line was in both."""
    [finding] = findings("LoadModule auth_basic_module modules/mod_auth_basic.so\nUser apache\n"
                         "LoadModule mpm_event_module modules/mod_mpm_event.so\n"
                         "LoadModule authz_core_module modules/mod_authz_core.so\n", "HT404")
    assert finding.replacement == "LoadModule unixd_module modules/mod_unixd.so"
    assert "LoadModule" not in finding.message, finding.message

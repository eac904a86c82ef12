import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity, lint, migrate

SERVER = "ServerRoot /srv\nDocumentRoot /srv/htdocs\n"


# -- HT302 EnableSendfile / HT303 FileETag ---------------------------------------------------


@pytest.mark.parametrize("code", ["HT302", "HT303"])
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("EnableSendfile Off\nFileETag MTime Size\nDocumentRoot /srv\n", id="both-set"),
        pytest.param("LoadModule ssl_module modules/mod_ssl.so\nSSLRandomSeed startup builtin\n", id="serves-nothing"),
        pytest.param("<IfVersion < 2.3>\nDocumentRoot /srv\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nDocumentRoot /srv\n</IfModule>\n", id="dead-ifmodule-branch"),
    ],
)
def test_server_default_noop(code, text):
    assert findings(text, code) == []


def test_sendfile_set_in_a_vhost_counts_as_set():
    assert findings("DocumentRoot /srv\n<VirtualHost *:80>\nEnableSendfile On\n</VirtualHost>\n", "HT302") == []


@pytest.mark.parametrize(
    ("code", "line"),
    [("HT302", "EnableSendfile On"), ("HT303", "FileETag INode MTime Size")],
)
def test_server_default_adopts_24_by_default(code, line):
    [finding] = findings(SERVER, code)
    assert finding.severity == Severity.INFO
    assert (finding.line, finding.replacement) == (2, line)
    assert "2.4's default is adopted" in finding.message
    assert finding.fix.applicability == Applicability.DISPLAY_ONLY
    assert fixed(SERVER, code) == SERVER  # nothing written
    assert fixed(SERVER, code, defaults="adopt-2.4") == SERVER


@pytest.mark.parametrize(
    ("code", "line"),
    [("HT302", "EnableSendfile On"), ("HT303", "FileETag INode MTime Size")],
)
def test_server_default_keep_22_writes_the_22_value(code, line):
    [finding] = findings(SERVER, code, defaults="keep-2.2")
    assert "keeping 2.2's behaviour" in finding.message
    assert finding.fix.applicability == Applicability.PRESERVE
    assert fixed(SERVER, code, defaults="keep-2.2") == f"ServerRoot /srv\n{line}\nDocumentRoot /srv/htdocs\n"
    # once written, the rule is satisfied
    assert findings(fixed(SERVER, code, defaults="keep-2.2"), code, defaults="keep-2.2") == []


def test_server_default_anchor_is_first_vhost_without_main_documentroot():
    text = "<VirtualHost *:80>\n    DocumentRoot /srv\n</VirtualHost>\n"
    assert fixed(text, "HT302", defaults="keep-2.2") == "EnableSendfile On\n" + text


@pytest.mark.parametrize(
    ("code", "line"),
    [("HT302", "EnableSendfile On"), ("HT303", "FileETag INode MTime Size")],
)
def test_server_default_goes_to_the_top_level_when_every_host_is_in_a_section(code, line):
    """Hosts only inside <IfModule> sections: the value went before the first <Directory>, inside one host,
    which left the other host on 2.4's default, so every pass wrote it again (rule mixes, seed 1431691685
    mix 4: nineteen `EnableSendfile On`). Written before the section that holds the first host, it covers all."""
    text = ("<IfModule mod_ssl.c>\n<VirtualHost *:80>\n    ServerName a.example\n</VirtualHost>\n</IfModule>\n"
            "<IfModule mod_rewrite.c>\n<VirtualHost *:80>\n    ServerName b.example\n    <Directory /srv/www>\n"
            "        Options Indexes\n    </Directory>\n</VirtualHost>\n</IfModule>\n")
    out = fixed(text, code, defaults="keep-2.2")
    assert out == f"{line}\n" + text


SUB = "DocumentRoot /srv/www\n<Directory /srv/www/sub>\n    FileETag None\n    EnableSendfile Off\n</Directory>\n"


@pytest.mark.parametrize(
    ("code", "line"),
    [("HT302", "EnableSendfile On"), ("HT303", "FileETag INode MTime Size")],
)
def test_server_default_a_section_setting_covers_only_that_section(code, line):
    """A setting in <Directory /srv/www/sub> leaves the rest of the site on 2.4's default: still reported, and
    keep-2.2 writes 2.2's value at server level (the section keeps overriding it)."""
    [finding] = findings(SUB, code, defaults="keep-2.2")
    assert finding.line == 1
    assert fixed(SUB, code, defaults="keep-2.2") == f"{line}\n" + SUB


def test_server_default_set_in_only_some_vhosts_is_reported():
    text = ("DocumentRoot /srv\n<VirtualHost *:80>\nEnableSendfile On\n</VirtualHost>\n"
            "<VirtualHost *:81>\nDocumentRoot /x\n</VirtualHost>\n")
    assert [f.line for f in findings(text, "HT302")] == [1]
    every = text.replace("DocumentRoot /x\n", "DocumentRoot /x\nEnableSendfile Off\n")
    assert findings(every, "HT302") == []


@pytest.mark.apache
def test_keep_22_etags_outside_a_section_that_sets_fileetag(httpd):
    """ETags outside <Directory www/sub> change format on 2.4 (no inode) unless keep-2.2 writes FileETag at
    server level; inside it the section's FileETag None still applies."""
    from httpd24.apache import Instance

    text = "DocumentRoot www\n<Directory www/sub>\n    FileETag None\n</Directory>\n"
    files = {"www/a.txt": "a\n", "www/sub/b.txt": "b\n"}
    out = fixed(text, "HT303", defaults="keep-2.2")
    modules = ["mpm_event_module", "authz_core_module"]
    parts = []
    for config in (text, out):
        with Instance({"site.conf": config, **files}, "site.conf", modules, httpd=httpd) as server:
            etag = server.request("/a.txt").header("ETag")
            parts.append(etag.strip('"').count("-") + 1)
            assert server.request("/sub/b.txt").header("ETag") is None
    assert parts == [2, 3]  # MTime Size on 2.4; INode MTime Size as 2.2 after the fix


# -- HT304 SSLProxyCheckPeer* --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("SSLProxyEngine off\n", id="engine-off"),
        pytest.param(
            "SSLProxyEngine on\nSSLProxyCheckPeerCN on\nSSLProxyCheckPeerName on\nSSLProxyCheckPeerExpire on\n",
            id="all-explicit",
        ),
        pytest.param(
            "SSLProxyCheckPeerCN off\nSSLProxyCheckPeerName off\nSSLProxyCheckPeerExpire off\n"
            "<VirtualHost *:443>\nSSLProxyEngine on\n</VirtualHost>\n",
            id="inherited-from-main-server",
        ),
        pytest.param("<IfVersion < 2.3>\nSSLProxyEngine on\n</IfVersion>\n", id="dead-ifversion-branch"),
        pytest.param("<IfModule !mod_authz_core.c>\nSSLProxyEngine on\n</IfModule>\n", id="dead-ifmodule-branch"),
    ],
)
def test_ssl_proxy_noop(text):
    assert findings(text, "HT304") == []


def test_ssl_proxy_adopts_checks_with_502_warning():
    text = "<VirtualHost *:443>\n    SSLProxyEngine on\n    ProxyPass / https://backend/\n</VirtualHost>\n"
    [finding] = findings(text, "HT304")
    assert finding.severity == Severity.WARNING and finding.line == 2
    assert "502" in finding.message
    assert finding.fix.applicability == Applicability.DISPLAY_ONLY
    assert fixed(text, "HT304") == text


def test_ssl_proxy_keep_22_writes_missing_ones_off():
    text = "<VirtualHost *:443>\n    SSLProxyEngine on\n    SSLProxyCheckPeerCN on\n</VirtualHost>\n"
    assert fixed(text, "HT304", defaults="keep-2.2") == (
        "<VirtualHost *:443>\n    SSLProxyEngine on\n    SSLProxyCheckPeerName off\n"
        "    SSLProxyCheckPeerExpire off\n    SSLProxyCheckPeerCN on\n</VirtualHost>\n"
    )


def test_ssl_proxy_setting_of_another_vhost_does_not_count():
    text = (
        "<VirtualHost *:443>\nSSLProxyEngine on\n</VirtualHost>\n"
        "<VirtualHost *:8443>\nSSLProxyCheckPeerCN off\nSSLProxyCheckPeerName off\nSSLProxyCheckPeerExpire off\n"
        "</VirtualHost>\n"
    )
    [finding] = findings(text, "HT304")
    assert finding.line == 2


# -- HT301 AllowOverride -------------------------------------------------------------------------

MAIN = "ServerRoot /srv\nDocumentRoot /srv/htdocs\n"
#: A main server without a DocumentRoot written: no root section is asked for (see NO_ROOT below).
MAIN_NO_DOCROOT = "ServerRoot /srv\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(MAIN + "<Directory />\nAllowOverride None\n</Directory>\n<Directory /srv/htdocs>\n</Directory>\n",
                     id="root-sets-it"),
        pytest.param(MAIN + "<Directory /srv>\nAllowOverride FileInfo\n</Directory>\n<Directory /srv/htdocs>\n"
                     "</Directory>\n", id="parent-sets-it"),
        pytest.param("<Directory /usr/share/app>\nOptions None\n</Directory>\n", id="fragment-without-evidence"),
        pytest.param("AccessFileName .htaccess\n<Directory /srv>\n<IfVersion >= 2.4>\nAllowOverride All\n</IfVersion>\n"
                     "</Directory>\n", id="set-inside-a-conditional-block"),
        pytest.param(MAIN_NO_DOCROOT + "<DirectoryMatch ^/srv>\nOptions None\n</DirectoryMatch>\n", id="regex-section"),
        pytest.param("AccessFileName .htaccess\n<Directory /srv/www2/*>\n    AllowOverride None\n</Directory>\n"
                     "<Directory /srv/www2/a/htdocs>\n    Options None\n</Directory>\n", id="wildcard-parent-sets-it"),
        pytest.param("AccessFileName .htaccess\n<Directory /srv/*/a>\n    AllowOverride None\n</Directory>\n"
                     "<Directory /srv/www2/a/htdocs>\n</Directory>\n", id="wildcard-in-the-middle"),
        pytest.param("AccessFileName .htaccess\n<Directory /srv/w[a-z]w*>\n    AllowOverride None\n</Directory>\n"
                     "<Directory /srv/www2/a>\n</Directory>\n", id="wildcard-class"),
        pytest.param("AccessFileName .htaccess\n<Directory /srv/*>\n    AllowOverride None\n</Directory>\n"
                     "<Directory /srv/*/a>\n</Directory>\n", id="wildcard-section-under-wildcard"),
        pytest.param("AccessFileName .htaccess\n<VirtualHost *:80>\n<Directory /srv>\nAllowOverride None\n</Directory>\n"
                     "<Directory /srv/a>\n</Directory>\n</VirtualHost>\n", id="the-hosts-own-parent-sets-it"),
        pytest.param(MAIN_NO_DOCROOT + "<IfVersion < 2.3>\n<Directory /srv>\n</Directory>\n</IfVersion>\n",
                     id="dead-ifversion-branch"),
        pytest.param("AccessFileName .htaccess\n<IfModule !mod_authz_core.c>\n<Directory /srv>\n</Directory>\n"
                     "</IfModule>\n", id="dead-ifmodule-branch"),
    ],
)
def test_allow_override_noop(text):
    assert findings(text, "HT301") == []


@pytest.mark.parametrize(
    "override",
    [
        pytest.param("<Directory /srv/*/htdocs>\n    AllowOverride None\n</Directory>\n", id="star-does-not-cross-slash"),
        pytest.param("<Directory /srv/www2/b*>\n    AllowOverride None\n</Directory>\n", id="other-directory"),
        pytest.param("<Directory /srv/www2/a/htdocs/*>\n    AllowOverride None\n</Directory>\n", id="below-only"),
        # httpd (2.2 and 2.4) ignores AllowOverride in regex sections: .htaccess files are decided by
        # <Directory> sections without regular expressions only.
        pytest.param("<DirectoryMatch ^/srv/www2>\n    AllowOverride None\n</DirectoryMatch>\n", id="directorymatch"),
        pytest.param("<Directory ~ ^/srv/www2>\n    AllowOverride None\n</Directory>\n", id="directory-tilde"),
        # a virtual host's sections merge over the main server's in that host only: another host's section
        # still gets none (found by the vhosts shape of hack/differential.py)
        pytest.param("<VirtualHost *:80>\n    <Directory /srv/www2>\n        AllowOverride AuthConfig\n    </Directory>\n"
                     "</VirtualHost>\n", id="another-virtual-hosts-section"),
    ],
)
def test_allow_override_sections_that_do_not_cover(override):
    text = (f"AccessFileName .htaccess\n{override}<VirtualHost *:81>\n<Directory /srv/www2/a/htdocs>\n    Options None\n"
            "</Directory>\n</VirtualHost>\n")
    [finding] = findings(text, "HT301")
    assert finding.message.startswith("<Directory /srv/www2/a/htdocs>")


def test_allow_override_all_in_the_main_server_would_override_a_virtual_hosts_own():
    """A main-server <Directory /srv/www> with no AllowOverride, a host's <Directory /> AllowOverride None: on 2.2
    the host read no .htaccess below /srv/www. `AllowOverride All` written into the main server's section merges
    into the host too, and, deeper, overrides the host's None (seed 12, index 67 of the vhosts shape of
    hack/differential.py: the host's requests met the .htaccess file, 405 where 2.2 answered 401, on apache2).
    The section is left as it is (HT505 names the main server's missing line)."""
    text = ("AccessFileName .htaccess\n<Directory /srv/www>\n    Options None\n</Directory>\n<VirtualHost *:80>\n"
            "    <Directory />\n        AllowOverride None\n    </Directory>\n</VirtualHost>\n")
    assert fixed(text, "HT301") == text


@pytest.mark.apache
@pytest.mark.parametrize(
    ("override", "header"),
    [
        pytest.param("<Directory www/*>\n    AllowOverride None\n</Directory>\n", None, id="wildcard"),
        pytest.param("<DirectoryMatch /www/>\n    AllowOverride None\n</DirectoryMatch>\n", "yes", id="regex"),
    ],
)
def test_allow_override_wildcard_and_regex_sections_on_a_running_server(httpd, override, header):
    """A wildcard <Directory> with AllowOverride None keeps the .htaccess below it unread, as on 2.2: the
    migration must not turn it on. A regex section's AllowOverride is ignored (2.2's default All applied
    there): the migration writes AllowOverride All, and the .htaccess is read as on 2.2."""
    from httpd24.apache import Instance

    text = f"AccessFileName .htaccess\nDocumentRoot www/a/htdocs\n{override}<Directory www/a/htdocs>\n    Options None\n</Directory>\n"
    files = {"www/a/htdocs/p.txt": "x\n", "www/a/htdocs/.htaccess": "Header set X-Ht yes\n"}
    out = fixed(text, "HT301")
    with Instance({"site.conf": out, **files}, "site.conf", ["headers_module", "authz_core_module"],
                  httpd=httpd) as server:
        response = server.request("/p.txt")
        assert (response.status, response.header("X-Ht")) == (200, header)


def test_allow_override_keeps_22_where_accessfilename_is_set():
    text = "AccessFileName .htaccess\n<Directory /var/www/app>\n    Options FollowSymLinks\n</Directory>\n"
    [finding] = findings(text, "HT301")
    assert finding.severity == Severity.WARNING and finding.line == 2
    assert finding.fix.applicability == Applicability.PRESERVE
    assert fixed(text, "HT301") == (
        "AccessFileName .htaccess\n<Directory /var/www/app>\n    Options FollowSymLinks\n"
        "    AllowOverride All\n</Directory>\n"
    )


def test_allow_override_keeps_22_where_a_comment_mentions_htaccess():
    text = "# the app ships .htaccess files\n<Directory /var/www/app>\n  Options None\n</Directory>\n"
    assert fixed(text, "HT301") == (
        "# the app ships .htaccess files\n<Directory /var/www/app>\n  Options None\n  AllowOverride All\n"
        "</Directory>\n"
    )


def test_allow_override_keeps_22_when_the_set_holds_htaccess_files():
    cs = configset(
        {"httpd.conf": "<Directory /srv/app>\nOptions None\n</Directory>\n", "app/.htaccess": "RewriteEngine on\n"}
    )
    result = migrate(cs, select=["HT301"])
    assert result.files["httpd.conf"] == b"<Directory /srv/app>\nOptions None\nAllowOverride All\n</Directory>\n"


def test_allow_override_adopts_24_in_a_main_config_without_evidence():
    text = MAIN_NO_DOCROOT + "<Directory /srv/htdocs>\n    Options None\n</Directory>\n"
    [finding] = findings(text, "HT301")
    assert "2.4's default is adopted" in finding.message
    assert finding.fix.applicability == Applicability.DISPLAY_ONLY
    assert fixed(text, "HT301") == text
    assert fixed(text, "HT301", defaults="keep-2.2").endswith("    AllowOverride All\n</Directory>\n")


def test_allow_override_adopt_override_wins_over_evidence():
    text = "AccessFileName .htaccess\n<Directory /var/www/app>\n</Directory>\n"
    [finding] = findings(text, "HT301", defaults="adopt-2.4")
    assert finding.fix.applicability == Applicability.DISPLAY_ONLY
    assert fixed(text, "HT301", defaults="adopt-2.4") == text


def test_allow_override_root_without_override_counts():
    text = MAIN + "<Directory />\nOptions None\n</Directory>\n"
    [finding] = findings(text, "HT301", defaults="keep-2.2")
    assert fixed(text, "HT301", defaults="keep-2.2") == MAIN + "<Directory />\nOptions None\nAllowOverride All\n</Directory>\n"


def test_allow_override_htaccess_only_names_the_classes():
    cs = configset({"app/.htaccess": "RewriteEngine on\nOrder deny,allow\nDeny from all\nAuthType Basic\n"},
                   name="app/.htaccess")
    [finding] = lint(cs, select=["HT301"])
    assert finding.file == "app/.htaccess" and finding.line == 1
    assert finding.replacement == "AllowOverride AuthConfig FileInfo Limit"
    assert finding.fix is None
    # Where no AllowOverride is written at all, 2.4 reads the file and refuses its lines (measured:
    # tests/access/test_allowoverride.py); only an explicit None makes it ignore the file.
    assert ("under `AllowOverride None` 2.4 ignores it, and where no AllowOverride is written at all it answers "
            "500 for its lines") in finding.message, finding.message


@pytest.mark.apache
def test_allow_override_fix_is_valid_on_real_httpd(httpd, tmp_path):
    text = "AccessFileName .htaccess\n<Directory /srv/app>\n    Options None\n</Directory>\n"
    out = fixed(text, "HT301")
    result = configtest({"a.conf": out}, "a.conf", ["mpm_event_module"], httpd=httpd)
    assert result.ok, result.output


@pytest.mark.apache
def test_keep_22_fixes_are_valid_on_real_httpd(httpd):
    text = (
        "DocumentRoot /tmp\n<VirtualHost *:80>\n    SSLProxyEngine on\n    ProxyPass / https://127.0.0.1:9/\n"
        "</VirtualHost>\n"
    )
    out = migrate(configset(text), select=["HT30"], defaults="keep-2.2").files["httpd.conf"].decode()
    assert "EnableSendfile On" in out and "FileETag INode MTime Size" in out and "SSLProxyCheckPeerName off" in out
    result = configtest({"a.conf": out}, "a.conf", ["mpm_event_module", "ssl_module", "proxy_module",
                                                      "proxy_http_module"], httpd=httpd)
    assert result.ok, result.output


@pytest.mark.apache
def test_allow_override_fix_restores_22_behaviour_on_a_running_server(httpd):
    """2.2 applied the .htaccess (403 here). 2.4 with no AllowOverride in effect opens it and refuses
    its directives (500); with AllowOverride None it ignores it (200); the keep-2.2 fix applies it again."""
    from httpd24.apache import Instance

    text = "AccessFileName .htaccess\nDocumentRoot www\n<Directory www>\n    Options None\n</Directory>\n"
    files = {"www/.htaccess": "Require all denied\n", "www/index.html": "hello\n"}
    out = fixed(text, "HT301")
    assert "AllowOverride All" in out
    explicit_none = text.replace("Options None", "Options None\n    AllowOverride None")
    modules = ["mpm_event_module", "authz_core_module"]
    statuses = []
    for config in (text, explicit_none, out):
        with Instance({"site.conf": config, **files}, "site.conf", modules, httpd=httpd) as server:
            statuses.append(server.request("/index.html").status)
    assert statuses == [500, 200, 403]


#: A wildcard section without an AllowOverride after a section of the same depth it matches, with one.
WILDCARD_AFTER = ("AccessFileName .htaccess\n<Directory /srv/www>\n    AllowOverride None\n</Directory>\n"
                  "<Directory /srv/w*>\n    Options None\n</Directory>\n")


def test_allow_override_a_wildcard_section_merged_after_one_it_matches_is_not_given_all():
    """httpd merges sections of one depth in the order they are written: `AllowOverride All` appended to
    <Directory /srv/w*> would override <Directory /srv/www>'s None, and .htaccess files 2.2 never read there
    would be (campaign vhosts 92, index 263). The finding stays, for /srv/w* elsewhere; the fix is a person's."""
    [finding] = findings(WILDCARD_AFTER, "HT301")
    assert finding.fix is None and "would override <Directory /srv/www>" in finding.message, finding.message
    assert fixed(WILDCARD_AFTER, "HT301") == WILDCARD_AFTER


def test_allow_override_a_wildcard_section_before_one_it_matches_is_given_all():
    text = ("AccessFileName .htaccess\n<Directory /srv/w*>\n    Options None\n</Directory>\n"
            "<Directory /srv/www>\n    AllowOverride None\n</Directory>\n")
    assert fixed(text, "HT301") == text.replace("Options None\n", "Options None\n    AllowOverride All\n")


def test_allow_override_a_hosts_wildcard_section_is_merged_after_the_main_servers():
    text = ("AccessFileName .htaccess\n<VirtualHost *:80>\n<Directory /srv/w*>\n</Directory>\n</VirtualHost>\n"
            "<Directory /srv/www>\n    AllowOverride None\n</Directory>\n")
    [finding] = findings(text, "HT301")
    assert finding.fix is None


@pytest.mark.apache
def test_allow_override_a_wildcard_section_keeps_the_none_it_is_merged_after_on_a_running_server(httpd):
    from httpd24.apache import Instance

    text = WILDCARD_AFTER.replace("/srv/w", "w") + "DocumentRoot www\n"
    files = {"www/p.txt": "x\n", "www/.htaccess": "Header set X-Ht yes\n"}
    with Instance({"site.conf": fixed(text, "HT301"), **files}, "site.conf", ["headers_module", "authz_core_module"],
                  httpd=httpd) as server:
        response = server.request("/p.txt")
        assert (response.status, response.header("X-Ht")) == (200, None)  # as on 2.2: None at www


#: A whole server configuration (a PidFile at the top level) with no <Directory /> at all.
NO_ROOT = ("AccessFileName .htaccess\nPidFile run/httpd.pid\nDocumentRoot /srv/www\n<Directory /srv/www>\n"
           "    Options None\n</Directory>\n")


def test_allow_override_a_main_server_without_a_root_section_keeps_22s_default_everywhere():
    """2.2 compiled `AllowOverride All` in for `/`: every directory no <Directory> sets read .htaccess files,
    the DocumentRoot's parents too. One `<Directory />` with 2.2's All written out keeps that (and covers
    the sections below it, which then need nothing of their own)."""
    [finding] = findings(NO_ROOT, "HT301")
    assert (finding.line, finding.fix.applicability) == (3, Applicability.PRESERVE)
    assert finding.message.startswith("the main server has no <Directory />")
    assert fixed(NO_ROOT, "HT301") == NO_ROOT.replace(
        "DocumentRoot /srv/www\n", "DocumentRoot /srv/www\n<Directory />\n    AllowOverride All\n</Directory>\n")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(NO_ROOT.replace("PidFile run/httpd.pid\n", ""), id="a-fragment"),  # the main configuration decides
        # extra/httpd-ssl.conf has a Listen line of its own, and is still included by httpd.conf
        pytest.param(NO_ROOT.replace("PidFile run/httpd.pid\n", "Listen 443\n"), id="a-fragment-with-a-listen"),
        pytest.param(NO_ROOT + "<Directory />\n    AllowOverride None\n</Directory>\n", id="root-section-sets-it"),
        # the DocumentRoot is in a section with an AllowOverride: only / itself is left (no .htaccess there)
        pytest.param(NO_ROOT.replace("Options None", "AllowOverride None"), id="document-root-section-sets-it"),
        pytest.param("PidFile run/httpd.pid\n<Directory /srv>\nAllowOverride None\n</Directory>\n<VirtualHost *:80>\n"
                     "DocumentRoot /srv/www\n</VirtualHost>\n", id="a-hosts-document-root-is-covered"),
        pytest.param(NO_ROOT.replace("DocumentRoot /srv/www\n", ""), id="no-document-root-written"),
        pytest.param("PidFile run/httpd.pid\n<IfVersion < 2.3>\nDocumentRoot /srv/www\n</IfVersion>\n"
                     "<Directory />\n</Directory>\n",
                     id="root-section-without-override-is-its-own-finding"),
    ],
)
def test_allow_override_root_section_noop(text):
    assert [f for f in findings(text, "HT301") if f.message.startswith("the main server")] == []


def test_allow_override_a_root_section_of_a_virtual_host_does_not_cover_the_main_server():
    text = NO_ROOT + ("<VirtualHost *:80>\n    <Directory />\n        AllowOverride None\n    </Directory>\n"
                      "</VirtualHost>\n")
    assert [f.line for f in findings(text, "HT301")] == [3]


def test_allow_override_a_virtual_hosts_document_root_outside_every_section_asks_for_the_root_section():
    text = ("PidFile run/httpd.pid\n<Directory /srv>\n    AllowOverride None\n</Directory>\n<VirtualHost *:80>\n"
            "    DocumentRoot /web\n</VirtualHost>\n")
    [finding] = findings(text, "HT301")
    assert finding.line == 1 and finding.message.startswith("the main server has no <Directory />")
    assert fixed(text, "HT301", defaults="keep-2.2").startswith(
        "PidFile run/httpd.pid\n<Directory />\n    AllowOverride All\n</Directory>\n")


def test_allow_override_a_main_server_without_a_root_section_and_without_evidence():
    text = NO_ROOT.replace("AccessFileName .htaccess\n", "")
    by_line = {f.line: f for f in findings(text, "HT301")}
    assert sorted(by_line) == [2, 3]  # the root and, as before, the section
    assert "2.4's default is adopted" in by_line[2].message
    assert by_line[2].fix.applicability == Applicability.DISPLAY_ONLY and fixed(text, "HT301") == text
    assert fixed(text, "HT301", defaults="keep-2.2") == fixed(NO_ROOT, "HT301").replace(
        "AccessFileName .htaccess\n", "")


@pytest.mark.apache
def test_allow_override_root_fix_reads_the_htaccess_files_above_the_document_root(httpd):
    """Measured: a .htaccess file in the DocumentRoot's parent, no <Directory /> anywhere. 2.2 applied it; 2.4
    opens it and refuses its line (500); `AllowOverride All` in the DocumentRoot's own section is not enough
    (the parent's file is still refused); the root section the fix writes applies it, as 2.2 did."""
    from httpd24.apache import Instance

    text = NO_ROOT.replace("/srv/www", "www/site")
    files = {"www/.htaccess": "Header set X-Ht yes\n", "www/site/p.txt": "x\n"}
    own_section = text.replace("    Options None\n", "    Options None\n    AllowOverride All\n")
    answers = []
    for config in (text, own_section, fixed(text, "HT301")):
        # the PidFile line only tells httpd24 this is a whole server configuration: the instance has its own
        with Instance({"site.conf": config.replace("PidFile run/httpd.pid\n", ""), **files}, "site.conf",
                      ["headers_module", "authz_core_module"], httpd=httpd) as server:
            response = server.request("/p.txt")
            answers.append((response.status, response.header("X-Ht")))
    assert answers == [(500, None), (500, None), (200, "yes")]


class _CountingList(list):
    """A node list that counts how many of its items are visited (iteration, or index by index)."""

    visits = 0

    def __iter__(self):
        for item in super().__iter__():
            _CountingList.visits += 1
            yield item

    def __getitem__(self, index):
        _CountingList.visits += 1
        return super().__getitem__(index)


def _sibling_visits(sections: int) -> int:
    """Visits of the file's top-level node list while HT301 judges ``sections`` flat <Directory> blocks."""
    text = "Listen 80\n" + "".join(f"# site {i}\n<Directory /srv/d{i}>\n    Options None\n</Directory>\n" for i in range(sections))
    cs = configset({"httpd.conf": text})
    doc = cs.documents["httpd.conf"]
    doc.children = _CountingList(doc.children)
    _CountingList.visits = 0
    found = lint(cs, select=["HT301"], source_version="2.2")
    assert sum(f.code == "HT301" for f in found) == sections
    return _CountingList.visits


def test_htaccess_comments_above_sections_are_found_in_linear_work():
    # Each section looked for its own place in its parent's list from the start: 50,000 flat
    # <Directory> blocks took 39 s. Twice the sections must cost about twice the visits, not four times.
    small, large = _sibling_visits(300), _sibling_visits(600)
    assert large < 2.5 * small, (small, large)


def test_a_comment_above_a_section_still_says_it_uses_htaccess():
    text = "Listen 80\n<Directory /a>\n</Directory>\n# .htaccess files here\n<Directory /b>\n</Directory>\n"
    by_path = {f.message.split(">")[0]: f for f in lint(configset({"httpd.conf": text}), select=["HT301"],
                                                         source_version="2.2")}
    assert "uses .htaccess" in by_path["<Directory /b"].message
    assert "uses .htaccess" not in by_path["<Directory /a"].message


#: The main server's <Directory> has no AllowOverride; a virtual host's <Directory> of the same path has one.
MAIN_AND_HOST = {
    "httpd.conf": ("DocumentRoot /srv/www\n<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n"
                   "<VirtualHost *:80>\n    ServerName a.example\n    DocumentRoot /srv/www\n"
                   "    <Directory /srv/www>\n        AllowOverride All\n    </Directory>\n</VirtualHost>\n"),
    "srv/www/a/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
}


def test_allow_override_of_a_virtual_host_does_not_cover_the_main_servers_section(httpd):  # noqa: F811
    """A host's <Directory> sections merge over the main server's for the host's requests only: the main
    server (reached here: no Listen says otherwise) read the file on 2.2 and answers 500 on 2.4 without an
    AllowOverride of its own. Migrated, both servers answer as 2.2 did (measured on apache2)."""
    from httpd24.apache import differential

    [finding] = lint(configset(MAIN_AND_HOST), select=["HT301"])
    assert (finding.file, finding.line) == ("httpd.conf", 2)
    migrated = {k: v.decode() for k, v in migrate(configset(MAIN_AND_HOST)).files.items()}
    assert migrated["httpd.conf"].startswith("DocumentRoot /srv/www\n<Directory /srv/www>\n    Require all granted\n"
                                             "    AllowOverride All\n</Directory>\n")
    assert lint(configset(migrated), select=["HT5"]) == []
    report = differential.verify(configset(MAIN_AND_HOST), migrated, httpd=httpd)
    assert report.ok, report.format()

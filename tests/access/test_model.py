"""The 2.2 model: Allow/Deny parsing as httpd does it, and 2.2 decisions (research notes §2, §5)."""

from __future__ import annotations

import pytest

from httpd24.access import AddressError, Request, build, decide_22, decide_compat, parse_entry, parse_from
from httpd24.config import ConfigSet

AUTH = '    AuthType Basic\n    AuthName "r"\n    AuthUserFile /etc/users\n'
DOC = "DocumentRoot /srv/www\n"


def cs(text: str) -> ConfigSet:
    return ConfigSet.from_mapping({"httpd.conf": DOC + text}, entry="httpd.conf")


# -- Allow/Deny words -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "kind", "inside", "outside"),
    [
        pytest.param("all", "all", "1.2.3.4", None, id="all"),
        pytest.param("ALL", "all", "1.2.3.4", None, id="all-case"),
        pytest.param("10.1.2.3", "ip", "10.1.2.3", "10.1.2.4", id="full-ipv4"),
        pytest.param("010.001.002.003", "ip", "10.1.2.3", "10.1.2.4", id="leading-zeros-are-decimal"),
        pytest.param("10", "ip", "10.200.1.1", "11.0.0.1", id="partial-1"),
        pytest.param("10.1", "ip", "10.1.255.1", "10.2.0.1", id="partial-2"),
        pytest.param("192.168.2.", "ip", "192.168.2.77", "192.168.3.1", id="partial-trailing-dot"),
        pytest.param("10.1.0.0/16", "ip", "10.1.9.9", "10.2.0.0", id="cidr"),
        pytest.param("10.1.2.3/16", "ip", "10.1.0.1", "10.3.0.1", id="cidr-host-bits-cleared"),
        pytest.param("10.1.0.0/255.255.0.0", "ip", "10.1.7.7", "10.0.7.7", id="netmask"),
        pytest.param("2001:db8::1", "ip", "2001:db8::1", "2001:db8::2", id="ipv6"),
        pytest.param("2001:db8::/32", "ip", "2001:db8:ffff::1", "2001:db9::1", id="ipv6-prefix"),
        pytest.param("127.0.0.1", "ip", "::ffff:127.0.0.1", "127.0.0.2", id="ipv4-matches-mapped-client"),
    ],
)
def test_ip_forms(word, kind, inside, outside):
    entry = parse_entry(word)
    assert entry.kind == kind
    if kind == "ip":
        assert entry.matches_ip(inside)
        assert not entry.matches_ip(outside)
        assert entry.text == word  # carried into Require ip as written


@pytest.mark.parametrize(
    ("word", "kind", "name"),
    [
        pytest.param("env=FOO", "env", "FOO", id="env"),
        pytest.param("ENV=FOO", "env", "FOO", id="env-case"),
        pytest.param("env=!FOO", "nenv", "FOO", id="env-not"),
        pytest.param("example.org", "host", "example.org", id="host"),
        pytest.param(".example.org", "host", ".example.org", id="domain-suffix"),
        pytest.param("10.1.2.3.4", "host", None, id="five-octets-is-bad-ip"),
    ],
)
def test_other_forms(word, kind, name):
    if name is None:
        with pytest.raises(AddressError):
            parse_entry(word)
        return
    entry = parse_entry(word)
    assert (entry.kind, entry.name) == (kind, name)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["10.0.0.1"], "allow and deny must be followed by 'from'", id="no-from"),
        pytest.param(["from", "example.org/24"], "An IP address was expected", id="host-with-mask"),
        pytest.param(["from", "10.0.0.0/33"], "bad netmask", id="mask-too-long"),
        pytest.param(["from", "10.0.0.0/0"], "bad netmask", id="mask-zero"),
        pytest.param(["from", "2001:db8::/255.255.0.0"], "bad netmask", id="dotted-mask-on-ipv6"),
        pytest.param(["from", "::ffff:10.0.0.1"], "bad IP address", id="ipv4-mapped"),
        pytest.param(["from", "10.1/16"], "bad IP address", id="partial-with-mask"),
        pytest.param(["from", "host#x"], "No comments are allowed here", id="comment"),
    ],
)
def test_errors(args, message):
    with pytest.raises(AddressError, match=message):
        parse_from(args)


def test_domain_matching_aligns_on_dots():
    model = build(cs("<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n    Allow from example.org\n</Directory>\n"))
    for host, status in [("example.org", 200), ("www.example.org", 200), ("fooexample.org", 403), (None, 403)]:
        assert decide_22(model, Request("/x.html", hostname=host)) == status, host


# -- Order -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "allow", "deny", "expected"),
    [
        # client 10.1.2.3 (in both lists), 10.9.9.9 (only in Allow), 11.0.0.1 (in neither)
        pytest.param("allow,deny", "10.0.0.0/8", "10.1.2.3", {"10.1.2.3": 403, "10.9.9.9": 200, "11.0.0.1": 403}, id="allow-deny"),
        pytest.param("deny,allow", "10.0.0.0/8", "10.1.2.3", {"10.1.2.3": 200, "10.9.9.9": 200, "11.0.0.1": 200}, id="deny-allow"),
        pytest.param("mutual-failure", "10.0.0.0/8", "10.1.2.3", {"10.1.2.3": 403, "10.9.9.9": 200, "11.0.0.1": 403}, id="mutual"),
        pytest.param("deny,allow", "10.1.2.3", "all", {"10.1.2.3": 200, "10.9.9.9": 403, "11.0.0.1": 403}, id="deny-all-allow-one"),
    ],
)
def test_order(order, allow, deny, expected):
    model = build(cs(f"<Directory /srv/www>\n    Order {order}\n    Allow from {allow}\n    Deny from {deny}\n</Directory>\n"))
    for client, status in expected.items():
        assert decide_22(model, Request("/x.html", client=client)) == status, client


def test_allow_deny_alone_denies_everything():
    assert decide_22(cs("<Directory /srv/www>\n    Order allow,deny\n</Directory>\n"), Request("/x")) == 403


def test_env_and_not_env():
    model = build(cs("<Directory /srv/www>\n    Order allow,deny\n    Allow from env=A\n    Deny from env=!B\n</Directory>\n"))
    assert decide_22(model, Request("/x", env=frozenset({"A", "B"}))) == 200
    assert decide_22(model, Request("/x", env=frozenset({"A"}))) == 403
    assert decide_22(model, Request("/x", env=frozenset({"B"}))) == 403


# -- Satisfy / Require / AuthType: the cases of research notes §5 with 2.2's answers ------------

PARENT = (
    "<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1\n"
    + AUTH
    + "    Require valid-user\n</Directory>\n"
)


def test_child_with_only_satisfy_keeps_parent_address_rules():
    text = PARENT + "<Directory /srv/www/a>\n    Satisfy Any\n</Directory>\n"
    model = build(cs(text))
    outsider = Request("/a/x", client="127.0.0.2")
    assert decide_22(model, outsider) == 401  # 2.2: host check fails, a password still gets in
    assert decide_22(model, Request("/a/x", client="127.0.0.1")) == 200
    # 2.4 + mod_access_compat: the child's Satisfy resets the address rules: everyone passes
    assert decide_compat(model, outsider) == 200


def test_child_order_allow_deny_keeps_parent_satisfy_any():
    text = (
        "<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0.1\n    Satisfy Any\n" + AUTH
        + "    Require valid-user\n</Directory>\n<Directory /srv/www/a>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n"
    )
    model = build(cs(text))
    request = Request("/a/x", client="127.0.0.2")
    assert decide_22(model, request) == 200  # Satisfy Any inherited: address suffices
    assert decide_compat(model, request) == 401  # falls back to Satisfy All


def test_deny_all_satisfy_any_without_require():
    model = build(cs("<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n    Satisfy Any\n</Directory>\n"))
    assert decide_22(model, Request("/x")) == 403
    assert decide_compat(model, Request("/x")) == 200


def test_authtype_without_require():
    model = build(cs("<Directory /srv/www>\n" + AUTH + "</Directory>\n"))
    assert decide_22(model, Request("/x")) == 200
    assert decide_compat(model, Request("/x")) == 500


AUTHTYPE_NONE = "<Directory /srv/www>\n" + AUTH + "    Require valid-user\n</Directory>\n<Directory /srv/www/a>\n    AuthType None\n"


@pytest.mark.parametrize("server", ["2.2", "compat"])
def test_authtype_none_replaces_the_inherited_authtype(server):
    """`AuthType None` is written, not absent: it replaces the parent's AuthType, and the inherited
    `Require valid-user` then finds nothing to authenticate with: 500 for everyone, with or without
    credentials (measured on apache2 2.4: tests/access/test_differential_cases.py)."""
    decide = decide_22 if server == "2.2" else decide_compat
    model = build(cs(AUTHTYPE_NONE + "</Directory>\n"))
    assert decide(model, Request("/a/x")) == 500
    assert decide(model, Request("/a/x", user="alice")) == 500
    assert decide(model, Request("/x")) == 401
    assert decide(model, Request("/x", user="alice")) == 200


def test_authtype_none_with_a_require_that_needs_no_user():
    model = build(cs(AUTHTYPE_NONE + "    Require all granted\n</Directory>\n"))
    assert decide_compat(model, Request("/a/x")) == 200


@pytest.mark.parametrize("server", ["2.2", "compat"])
def test_authtype_none_with_satisfy_any(server):
    decide = decide_22 if server == "2.2" else decide_compat
    model = build(cs(AUTHTYPE_NONE + "    Order allow,deny\n    Allow from 127.0.0.1\n    Satisfy Any\n</Directory>\n"))
    assert decide(model, Request("/a/x")) == 200
    assert decide(model, Request("/a/x", client="127.0.0.2")) == 500


@pytest.mark.parametrize("server", ["2.2", "compat"])
def test_authtype_none_alone_asks_for_nothing(server):
    """No AuthType to authenticate with and no Require: 200 on both (no AH01627 for `None`)."""
    decide = decide_22 if server == "2.2" else decide_compat
    model = build(cs("<Directory /srv/www>\n    AuthType None\n</Directory>\n"))
    assert decide(model, Request("/x")) == 200


def test_require_replaced_satisfy_merged_per_method():
    text = (
        "<Directory /srv/www>\n" + AUTH + "    Require user alice\n    Order allow,deny\n    Allow from 127.0.0.1\n"
        "    <Limit POST>\n        Satisfy Any\n    </Limit>\n</Directory>\n"
        "<Directory /srv/www/a>\n    Require user bob\n</Directory>\n"
    )
    model = build(cs(text))
    assert decide_22(model, Request("/a/x", client="127.0.0.1", user="alice")) == 401  # Require replaced
    assert decide_22(model, Request("/a/x", client="127.0.0.1", user="bob")) == 200
    assert decide_22(model, Request("/a/x", client="127.0.0.2", user="bob")) == 403  # GET: Satisfy All
    assert decide_22(model, Request("/a/x", method="POST", client="127.0.0.2", user="bob")) == 200  # POST: Any
    assert decide_22(model, Request("/a/x", client="127.0.0.1", user="bob", password_ok=False)) == 401


def test_limit_per_method_order():
    text = "<Directory /srv/www>\n    <Limit POST>\n        Order deny,allow\n        Deny from all\n    </Limit>\n</Directory>\n"
    model = build(cs(text))
    assert decide_22(model, Request("/x", method="POST")) == 403
    assert decide_22(model, Request("/x", method="GET")) == 200
    assert decide_22(model, Request("/x", method="HEAD")) == 200


def test_merge_order_location_after_directory_and_files():
    text = (
        "<Location /a>\n    Order allow,deny\n    Allow from all\n</Location>\n"
        "<Directory /srv/www/a>\n    Order deny,allow\n    Deny from all\n</Directory>\n"
        "<Files secret.txt>\n    Order deny,allow\n    Deny from all\n</Files>\n"
    )
    model = build(cs(text))
    assert decide_22(model, Request("/a/x")) == 200  # Location merges last, whatever the file order
    assert decide_22(model, Request("/b/secret.txt")) == 403
    assert decide_22(model, Request("/a/secret.txt")) == 200


def test_vhost_sections_after_main_and_only_in_their_host():
    text = (
        "<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n</Directory>\n"
        "<VirtualHost *:80>\n    ServerName one\n    DocumentRoot /srv/www\n"
        "    <Directory /srv/www>\n        Order allow,deny\n        Allow from all\n    </Directory>\n</VirtualHost>\n"
        "<VirtualHost *:80>\n    ServerName two\n    DocumentRoot /srv/www\n</VirtualHost>\n"
    )
    model = build(cs(text))
    assert decide_22(model, Request("/x", vhost="one")) == 200
    assert decide_22(model, Request("/x", vhost="two")) == 403


def test_htaccess_merges_after_its_directory():
    files = {
        "httpd.conf": DOC + "<Directory /srv/www/a>\n    AllowOverride All\n    Order deny,allow\n    Deny from all\n</Directory>\n",
        "srv/www/a/.htaccess": "Order allow,deny\nAllow from 127.0.0.1\n",
    }
    model = build(ConfigSet.from_mapping(files, entry="httpd.conf"))
    assert decide_22(model, Request("/a/x", client="127.0.0.1")) == 200
    assert decide_22(model, Request("/a/x", client="127.0.0.2")) == 403


def test_a_files_section_of_an_htaccess_applies_only_under_its_directory():
    """Found by the differential harness running .htaccess files with their server configuration
    (hack/differential.py --shapes htaccess --seed 3105 --index 239): the <FilesMatch> of c/.htaccess
    was applied to /data.log as well, where real httpd (2.4 + mod_access_compat, and 2.2) never reads c/.htaccess."""
    files = {
        "httpd.conf": DOC + "<Directory /srv/www>\n    AllowOverride All\n</Directory>\n",
        "srv/www/c/.htaccess": f'<FilesMatch "\\.log$">\n{AUTH}    Require user alice\n</FilesMatch>\n',
    }
    model = build(ConfigSet.from_mapping(files, entry="httpd.conf"))
    assert decide_22(model, Request("/c/data.log")) == 401
    assert decide_22(model, Request("/data.log")) == 200
    assert decide_22(model, Request("/a/data.log")) == 200


def test_what_a_migration_remembers_of_its_input_decides_how_later_passes_read():
    """An unconditional 2.4-only line shows a configuration runs on 2.4, unless the migration read its
    input as 2.2 and wrote that line itself: later passes read the text as the first one did."""
    text = "<Directory /srv>\n    Require ip 10.0.0.0/8\n</Directory>\n"
    cs = ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")
    assert build(cs).mode == "compat"
    assert build(cs, on_24=False).mode == "2.2"  # a later pass of a migration whose input was 2.2
    assert build(cs, on_24=True).mode == "compat"


@pytest.mark.parametrize(
    ("pattern", "url", "meets"),
    [("/c/*", "/c/w", True), ("/c/*", "/c/w/f.html", False), ("/c/*", "/c", False), ("/c/?", "/c//", False),
     ("/c/[ab]", "/c/a", True), ("/c/[!ab]", "/c/a", False), ("/c/[!ab]", "/c/x", True), ("/c/[]a]", "/c/]", True),
     ("/c/[", "/c/[", True), ("/c/\\*", "/c/*", True), ("/c/\\*", "/c/w", False)],
)
def test_wildcard_location_matches_as_apr_fnmatch_pathname(pattern, url, meets):
    """A wildcard <Location> is matched whole, and no wildcard crosses a "/" (APR_FNM_PATHNAME)."""
    from httpd24.access.model import fnmatch_pathname

    assert fnmatch_pathname(pattern, url) is meets

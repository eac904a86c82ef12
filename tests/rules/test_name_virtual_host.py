import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability

VHOSTS = "<VirtualHost *:80>\n    ServerName a.example\n</VirtualHost>\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(VHOSTS, id="no-namevirtualhost"),
        pytest.param("<IfVersion < 2.3>\nNameVirtualHost *:80\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nNameVirtualHost *:80\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("#NameVirtualHost *:80\n", id="comment"),
    ],
)
def test_noop(text):
    assert findings(text, "HT106") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("NameVirtualHost *:80\n" + VHOSTS, VHOSTS, id="plain"),
        pytest.param("Listen 80\r\nNameVirtualHost *:80\r\nNameVirtualHost *:443\r\nX y\r\n",
                     "Listen 80\r\nX y\r\n", id="crlf-two"),
        pytest.param("<IfModule mod_ssl.c>\n    NameVirtualHost *:443\n    Listen 443\n</IfModule>\n",
                     "<IfModule mod_ssl.c>\n    Listen 443\n</IfModule>\n", id="in-ifmodule"),
        pytest.param("Listen 80\nNameVirtualHost *:80", "Listen 80", id="last-line-no-newline"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT106") == after


def test_fix_is_safe():
    [finding] = findings("NameVirtualHost *:80\n", "HT106")
    assert finding.fix.applicability == Applicability.SAFE
    assert "AH00548" in finding.message


@pytest.mark.apache
def test_real_httpd_warns_on_original_and_not_on_fix(httpd):
    text = "NameVirtualHost *:80\n" + VHOSTS
    before = configtest({"v.conf": text}, "v.conf", ["mpm_event_module"], httpd=httpd)
    assert "AH00548" in before.output
    after = configtest({"v.conf": fixed(text, "HT106")}, "v.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok and "AH00548" not in after.output, after.output


SHARED = VHOSTS + "<VirtualHost *:80>\n    ServerName b.example\n</VirtualHost>\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("NameVirtualHost *:80\n" + SHARED,
                     "# httpd24 (HT106): NameVirtualHost *:80 removed: 2.4 makes an address that several virtual "
                     "hosts share name-based by itself\n" + SHARED, id="shared"),
        pytest.param("<IfModule mod_ssl.c>\n    NameVirtualHost *:80\n</IfModule>\n" + SHARED,
                     "<IfModule mod_ssl.c>\n    # httpd24 (HT106): NameVirtualHost *:80 removed: 2.4 makes an "
                     "address that several virtual hosts share name-based by itself\n</IfModule>\n" + SHARED,
                     id="shared-indented"),
    ],
)
def test_fix_keeps_a_mark_where_several_virtual_hosts_share_the_address(before, after):
    """Without the NameVirtualHost, the migrated text reads like a 2.2 configuration that forgot it, where
    2.2 served every request from the first virtual host (HT220): the mark keeps what it said."""
    assert fixed(before, "HT106") == after
    assert findings(before, "HT220") == []
    assert findings(after, "HT220") == []

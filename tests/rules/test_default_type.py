import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.engine import Applicability, Severity

HEADER = 'Header set Content-Type {} "expr=-z %{{CONTENT_TYPE}}"'


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("ForceType text/plain\n", id="forcetype"),
        pytest.param("<IfVersion < 2.3>\nDefaultType text/plain\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param("<IfModule !mod_authz_core.c>\nDefaultType text/plain\n</IfModule>\n", id="dead-ifmodule"),
        pytest.param("# DefaultType text/plain\n", id="comment"),
    ],
)
def test_noop(text):
    assert findings(text, "HT105") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("DefaultType text/plain\nServerName x\n", HEADER.format("text/plain") + "\nServerName x\n",
                     id="plain"),
        pytest.param("<Directory /srv>\r\n  DefaultType application/octet-stream\r\n  Options None\r\n</Directory>\r\n",
                     "<Directory /srv>\r\n  " + HEADER.format("application/octet-stream")
                     + "\r\n  Options None\r\n</Directory>\r\n", id="crlf-directory"),
        pytest.param('DefaultType "text/plain; charset=koi8-r"\n', HEADER.format('"text/plain; charset=koi8-r"') + "\n",
                     id="quoted"),
        pytest.param("DefaultType None\n", "", id="none"),
        pytest.param("<VirtualHost *:80>\nDefaultType text/plain\n</VirtualHost>\n"
                     "<VirtualHost *:81>\nDefaultType application/octet-stream\n</VirtualHost>\n",
                     f"<VirtualHost *:80>\n{HEADER.format('text/plain')}\n</VirtualHost>\n"
                     f"<VirtualHost *:81>\n{HEADER.format('application/octet-stream')}\n</VirtualHost>\n",
                     id="separate-virtual-hosts"),
        pytest.param("DefaultType text/plain\n<Directory /srv>\nDefaultType text/plain\n</Directory>\n",
                     f"{HEADER.format('text/plain')}\n<Directory /srv>\n{HEADER.format('text/plain')}\n</Directory>\n",
                     id="same-type-twice"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT105") == after


def test_real_type_keeps_22s_behaviour_as_a_preserve_fix():
    [finding] = findings("DefaultType text/plain\n", "HT105")
    assert finding.severity == Severity.WARNING
    assert finding.fix.applicability == Applicability.PRESERVE
    assert finding.replacement == HEADER.format("text/plain")
    assert fixed("DefaultType text/plain\n", "HT105", applicability=Applicability.SAFE) == "DefaultType text/plain\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("DefaultType text/plain\n<Directory /srv/bin>\nDefaultType application/octet-stream\n</Directory>\n",
                     "(httpd.conf:3)", id="nested-other-type"),
        pytest.param("DefaultType text/plain\n<VirtualHost *:80>\nDefaultType None\n</VirtualHost>\n",
                     "(httpd.conf:3)", id="virtual-host-says-none"),
        pytest.param("DefaultType ${TYPE}\n", "only known at start-up", id="variable"),
    ],
)
def test_types_that_meet_on_one_request_are_left_to_a_person(text, reason):
    """A section's DefaultType replaced the inherited one; Header lines add up and the first wins."""
    real = [f for f in findings(text, "HT105") if f.severity == Severity.WARNING]
    assert real and all(f.fix is None for f in real)
    assert reason in real[0].message and "AddType" in real[0].message
    assert fixed(text, "HT105") == text  # a "DefaultType None" that overrides one of them stays too


def test_none_is_only_info():
    [finding] = findings("DefaultType none\n", "HT105")
    assert finding.severity == Severity.INFO


@pytest.mark.apache
def test_real_httpd_warns_on_original_and_not_on_fix(httpd):
    text = "<Directory /srv>\n    DefaultType text/plain\n</Directory>\n"
    before = configtest({"t.conf": text}, "t.conf", ["mpm_event_module"], httpd=httpd)
    assert "AH00117" in before.output
    after = configtest({"t.conf": fixed(text, "HT105")}, "t.conf", ["mpm_event_module", "headers_module"],
                       httpd=httpd)
    assert after.ok and "AH00117" not in after.output, after.output


@pytest.mark.apache
@pytest.mark.parametrize(("charset", "untyped"), [("", "text/plain"), ("AddDefaultCharset UTF-8\n", "text/plain; charset=UTF-8")])
def test_real_httpd_types_untyped_responses_as_22_did(httpd, charset, untyped):
    """2.2 sent DefaultType (with AddDefaultCharset's charset, ap_make_content_type) for responses of
    unknown type; 2.4 sends none; the fix sends 2.2's, in the section only, and leaves typed ones alone."""
    from httpd24.apache import Instance

    site = ("DocumentRoot docs\nTypesConfig /etc/mime.types\n" + charset
            + "<Directory docs/notes>\n    DefaultType text/plain\n</Directory>\n")
    files = {"docs/notes/README": "read me\n", "docs/notes/a.html": "<p>x</p>\n", "docs/LICENSE": "l\n"}
    modules = ["mime_module", "headers_module", "authz_core_module", "authn_core_module"]
    html = "text/html; charset=UTF-8" if charset else "text/html"
    with Instance({**files, "site.conf": site}, "site.conf", modules, httpd=httpd) as srv:
        assert srv.request("/notes/README").headers.get("Content-Type") is None
    with Instance({**files, "site.conf": fixed(site, "HT105")}, "site.conf", modules, httpd=httpd) as srv:
        assert srv.request("/notes/README").headers.get("Content-Type") == untyped
        assert srv.request("/notes/a.html").headers.get("Content-Type") == html
        assert srv.request("/LICENSE").headers.get("Content-Type") is None

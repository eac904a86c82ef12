"""A fragment's Require lines without address rules of its own lean on its includer's.

In 2.2 such a section with `Satisfy Any` lets in without a password whoever the address rules in effect let
in, and with `Satisfy All` requires them as well; a file another configuration includes may inherit those
from that configuration, which httpd24 does not see when it reads the file alone. It translates the section
as if that configuration set none (`Require all granted`; the Require lines alone), which is right under the
operator's own main configuration and under Debian's `Allow from all`; under an includer that restricts
addresses it opens the section (once that includer is in 2.4 syntax, whose Require lines the section's
replace). So the finding says what it assumed and what to write instead (`AuthMerging Or` / `And`). Judged
on the real apache2, with the includer's line in the server both sides run, as in
test_fragment_location_aliased.py.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from httpd24.apache import Instance, write_htpasswd
from httpd24.config import ConfigSet
from httpd24.engine import lint, migrate

MODULES = ["authz_core_module", "authn_core_module", "authn_file_module", "auth_basic_module",
           "authz_user_module", "authz_host_module"]
AUTH = "    AuthType Basic\n    AuthName x\n    AuthUserFile {root}/htpasswd\n"
FRAGMENT = f"<Location /app>\n{AUTH}    Require valid-user\n    Satisfy any\n</Location>\n"
#: The note's alternative, for an includer that restricts addresses, by Satisfy value.
ALTERNATIVE = {value: f"<Location /app>\n{AUTH}    AuthMerging {merging}\n    Require valid-user\n</Location>\n"
               for value, merging in (("any", "Or"), ("all", "And"))}
#: The including configuration, as 2.2 read it and as httpd24 migrates it (2.2 address rules only).
INCLUDERS = {
    "restricts addresses": ("<Directory {root}>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n"
                            "</Directory>\n", "<Directory {root}>\n    Require ip 127.0.0.2\n</Directory>\n"),
    "lets every address in": ("<Directory {root}>\n    Order allow,deny\n    Allow from all\n</Directory>\n",
                              "<Directory {root}>\n    Require all granted\n</Directory>\n"),
    "sets nothing": ("", ""),
}
HOST_RULES = {"restricts addresses": "    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n",
              "lets every address in": "    Order allow,deny\n    Allow from all\n", "sets nothing": ""}
REQUESTS = [(source, user) for source in ("127.0.0.1", "127.0.0.2") for user in (None, "alice")]
NOTE = "this assumes the configuration including it sets no Order/Allow/Deny for its URLs"


@pytest.fixture(scope="module")
def root():
    """A tree httpd's children (www-data) can read: pytest's tmp_path is private to root."""
    top = Path(tempfile.mkdtemp(prefix="httpd24-satisfy-any-"))
    top.chmod(0o755)
    (top / "app").mkdir()
    (top / "app" / "f.html").write_text("app\n")
    write_htpasswd(top / "htpasswd", {"alice": "secret"})
    yield top
    shutil.rmtree(top)


def answers(fragment: str, includer: str, root: Path, httpd, compat: bool = False) -> dict:
    modules = MODULES + (["access_compat_module"] if compat else [])
    extra = f"DocumentRoot {root}\n" + includer
    with Instance({"site.conf": fragment.replace("{root}", str(root))}, "site.conf", modules, httpd=httpd,
                  extra=extra.replace("{root}", str(root))) as srv:
        return {(source, user): srv.request("/app/f.html", source=source, user=user, password="secret").status
                for source, user in REQUESTS}


def _finding(text: str):
    [finding] = [f for f in lint(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))
                 if f.code == "HT501"]
    return finding


@pytest.mark.parametrize("satisfy, merging", [("any", "Or"), ("all", "And")])
def test_the_finding_says_what_it_assumed_of_the_includer_and_what_keeps_its_addresses(satisfy, merging):
    finding = _finding(FRAGMENT.replace("any", satisfy))
    assert finding.replacement == ("Require all granted" if satisfy == "any" else "Require valid-user")
    assert finding.fix is not None
    assert NOTE in finding.message and f"AuthMerging {merging}" in finding.message


def test_a_htaccess_file_names_the_server_configuration():
    text = "AuthType Basic\nAuthName x\nAuthUserFile /x\nRequire valid-user\nSatisfy any\n"
    [finding] = [f for f in lint(ConfigSet.from_mapping({".htaccess": text}, entry=".htaccess")) if f.code == "HT501"]
    assert "this assumes the server configuration sets no Order/Allow/Deny for its URLs" in finding.message


@pytest.mark.parametrize("text", [
    # address rules of its own replace the includer's
    FRAGMENT.replace("    Satisfy any\n", "    Satisfy any\n    Order deny,allow\n    Deny from all\n"),
    # the whole server: nothing else sets address rules
    "ServerRoot /etc/httpd\nPidFile run/httpd.pid\nUser apache\nListen 80\n" + FRAGMENT,
])
def test_no_note_where_the_includer_cannot_change_the_answer(text):
    assert NOTE not in _finding(text).message


@pytest.mark.apache
@pytest.mark.parametrize("satisfy", ["any", "all"])
@pytest.mark.parametrize("includer", sorted(INCLUDERS))
def test_the_translation_and_the_alternative_answer_as_2_2_where_the_note_says(satisfy, includer, root, httpd):
    fragment = FRAGMENT.replace("any", satisfy)
    as_22, as_24 = INCLUDERS[includer]
    # 2.2: the Location inherits the includer's address rules (research notes §5), written out by hand
    reference = answers(fragment.replace(f"    Satisfy {satisfy}\n", f"    Satisfy {satisfy}\n" + HOST_RULES[includer]),
                        as_22, root, httpd, compat=True)
    migrated = migrate(ConfigSet.from_mapping({"site.conf": fragment}, entry="site.conf")).files["site.conf"].decode()
    translated = answers(migrated, as_24, root, httpd)
    alternative = answers(ALTERNATIVE[satisfy], as_24, root, httpd)
    if includer == "restricts addresses":
        assert reference[("127.0.0.1", "alice")] == (200 if satisfy == "any" else 403), reference
        assert translated != reference and alternative == reference
    elif includer == "sets nothing" and satisfy == "any":
        # the operator's main configuration: the assumption holds, and the alternative would ask for a password
        assert translated == reference != alternative
    else:
        assert translated == reference == alternative

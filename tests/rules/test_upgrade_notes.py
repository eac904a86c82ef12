import pytest
from ruletest import findings

DEAD = ("<IfVersion < 2.3>\n{}</IfVersion>\n", "<IfModule !mod_authz_core.c>\n{}</IfModule>\n")


@pytest.mark.parametrize(
    ("code", "trigger", "quiet"),
    [
        pytest.param("HT213", "DavLockDB /var/lock/DAVLock\n", "# DavLockDB /x\n", id="davlockdb"),
        pytest.param(
            "HT214", "Substitute s/a/b/\nSubstitute s/c/d/\n", "Substitute s/a/b/\nSubstituteMaxLineLength 5m\n",
            id="substitute",
        ),
        pytest.param(
            "HT215", "LoadModule reqtimeout_module m.so\n",
            "LoadModule reqtimeout_module m.so\nRequestReadTimeout header=20-40,MinRate=500\n", id="reqtimeout",
        ),
        pytest.param(
            "HT216", "AddOutputFilterByType DEFLATE text/html\nSetOutputFilter DEFLATE\n",
            "AddOutputFilterByType INCLUDES text/html\n", id="deflate",
        ),
        pytest.param("HT217", "IndexOptions FancyIndexing +ScanHTMLTitles\n", "IndexOptions FancyIndexing\n", id="autoindex"),
        pytest.param("HT218", "AuthUserFile /p\n<Location /a>\nAuthUserFile /q\n</Location>\n", "AuthType Basic\n", id="htpasswd"),
    ],
)
def test_one_info_finding_and_quiet_cases(code, trigger, quiet):
    [finding] = findings(trigger, code)  # one per configuration (or per line for DavLockDB/IndexOptions)
    assert finding.severity.value == "info" and finding.fix is None and finding.line == 1
    assert findings(quiet, code) == []
    for dead in DEAD:
        assert findings(dead.format(trigger), code) == []


def test_davlockdb_names_the_files_to_delete():
    """SDBM keeps the database in two files beside the name; the message once read "DAVLock.dir/.pag"."""
    [finding] = findings("DavLockDB /var/lock/DAVLock\n", "HT213")
    assert "delete /var/lock/DAVLock.dir and /var/lock/DAVLock.pag" in finding.message

"""`httpd24 migrate --verify` on the real apache2: original and migrated answer the same, or the difference is printed."""

from __future__ import annotations

import io

import pytest

from httpd24 import inputs
from httpd24.cli import _verify, main
from httpd24.engine.runner import Migration

pytestmark = pytest.mark.apache

STATUS_22 = """\
<Location /server-status>
    SetHandler server-status
    Order deny,allow
    Deny from all
    Allow from 127.0.0.1
</Location>
"""


def run_migrate_verify(tmp_path) -> tuple[int, str]:
    """``httpd24 migrate --verify`` on STATUS_22: the exit code, and stdout then stderr."""
    conf = tmp_path / "status.conf"
    conf.write_text(STATUS_22)
    out, err = io.StringIO(), io.StringIO()
    code = main(["migrate", "--verify", str(conf)], out, err)
    return code, out.getvalue() + err.getvalue()


def test_verify_passes_for_the_real_migration(tmp_path, httpd):
    code, output = run_migrate_verify(tmp_path)
    assert "Require ip 127.0.0.1" in output
    assert code == 0, output
    assert "not verified" not in output


def test_verify_names_the_lines_it_ran_without(tmp_path, httpd):
    """The harness answers every URL from files: a proxied or rewritten URL's answer on the real server is
    not what it compared, and a clean verdict must not pass for one on those lines."""
    conf = tmp_path / "proxy.conf"
    conf.write_text("ProxyPass /app http://127.0.0.1:9/\nRewriteRule ^/old/(.*) /new/$1\n" + STATUS_22)
    out, err = io.StringIO(), io.StringIO()
    code = main(["migrate", "--verify", str(conf)], out, err)
    output = out.getvalue()
    assert code == 0 and "every status matched" in output, output + err.getvalue()
    assert ("not verified: both servers ran without these lines" in output
            and "  proxy.conf:1: ProxyPass /app http://127.0.0.1:9/\n  proxy.conf:2: RewriteRule ^/old/(.*) /new/$1"
            in output), output


def test_verify_reports_a_wrong_migration(tmp_path, httpd):
    conf = tmp_path / "status.conf"
    conf.write_text(STATUS_22)
    [source] = inputs.load(str(conf))
    wrong = STATUS_22.replace("    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1\n", "    Require local\n")
    migration = Migration(files={"status.conf": wrong.encode()}, original={"status.conf": STATUS_22.encode()})
    out = io.StringIO()
    assert _verify(source, migration, out, io.StringIO()) is True
    report = out.getvalue()
    assert "127.0.0.2" in report and "403" in report and "200" in report, report


def test_verify_catches_a_wrong_translation_made_by_the_engine(tmp_path, httpd, monkeypatch):
    """migrate() rewrites the tree it is given: the reference must still be the file as it was.

    The fake stands in for an engine bug (a translation that lets 127.0.0.0/8 in); only a reference
    read before the migration can show it.
    """
    from httpd24.access import apply

    real = apply.translation_text
    monkeypatch.setattr(apply, "translation_text",
                        lambda plan, item: real(plan, item).replace("Require ip 127.0.0.1", "Require local"))
    code, output = run_migrate_verify(tmp_path)
    assert "Require local" in output
    assert code == 1, output
    assert "127.0.0.2" in output and "403" in output


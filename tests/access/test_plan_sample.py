"""The requests a section's candidate 2.4 forms are checked on come from those forms alone.

A sample built from every Allow line of the configuration is their product, so each line elsewhere
multiplied the work of every section whose meaning depends on its context: four lines of
`Allow from env=... / Deny from host / Allow from net` in one virtual host of a 700-line corpus file
took lint from 0.2 s to 10 s. Counted in evaluations, not seconds (machines here are noisy)."""

from __future__ import annotations

from pathlib import Path

from httpd24.access import expr
from httpd24.config import ConfigSet
from httpd24.engine import lint

CORPUS = Path("/work/shared/corpus/files")

# Access lines at the level of a virtual host that holds a <Location>: the sections inside it mean
# different things with the sections around them, and their 2.4 forms are checked on the sample.
VHOST_ACCESS = ["Allow from env=FOO", "Deny from .example.com", "Allow from 192.168"]


def _with_vhost_access() -> str:
    lines = (CORPUS / "httpd-tests-2011-extra-ifversion.conf.in").read_text().split("\n")
    at = lines.index("    <VirtualHost mod_headers>") + 1
    return "\n".join(lines[:at] + VHOST_ACCESS + lines[at:])


def _unrelated_hosts(count: int) -> str:
    return "".join(
        f"<VirtualHost *:80>\n    ServerName o{i}.test\n    <Directory /other/{i}>\n        Order allow,deny\n"
        f"        Allow from 172.{i}.0.0/16 .h{i}.test env=E{i}\n    </Directory>\n</VirtualHost>\n"
        for i in range(count)
    )


def _evaluations(text: str, monkeypatch) -> int:
    count = 0
    decide = expr.decide24

    def counted(*args):
        nonlocal count
        count += 1
        return decide(*args)

    with monkeypatch.context() as patch:
        patch.setattr(expr, "decide24", counted)
        lint(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"))
    return count


def test_lines_in_other_virtual_hosts_do_not_grow_a_sections_check(monkeypatch):
    text = _with_vhost_access()
    alone = _evaluations(text, monkeypatch)
    assert alone > 0, "the sections of that virtual host are checked on a sample"
    assert _evaluations(text + _unrelated_hosts(20), monkeypatch) == alone

"""The committed directive -> module table agrees with the real binary's ``-L``.

For every MPM of the build, the MPM plus every other shared module the table
knows is loaded and ``httpd -L`` is run: every directive httpd lists must be in
the table with the same module(s), and every table row of a loaded module must
be listed by httpd.  Contexts are compared too when the binary is the build the
table was generated from (``engine/data/build.txt``).  Regenerate with
``python3 hack/gen_module_table.py``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from httpd24.apache import server_config, table

pytestmark = pytest.mark.apache

REPO = Path(__file__).resolve().parents[2]


def _gen():
    spec = importlib.util.spec_from_file_location("gen_module_table", REPO / "hack" / "gen_module_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _shared_objects(httpd) -> set[str]:
    return {f for f in os.listdir(httpd.module_dir) if f.endswith(".so")}


def _live_rows(httpd, mpm: str, tmp_path: Path) -> tuple[list[tuple[str, str, str]], set[str]]:
    present = _shared_objects(httpd)
    mods = [
        m.identifier
        for m in table.modules().values()
        if not m.is_mpm and m.so in present and not httpd.is_builtin(m.identifier)
    ]
    run = tmp_path / mpm
    run.mkdir()
    conf = run / "main.conf"
    conf.write_text(
        server_config([mpm, *mods], server_root=run, listen=[], pid_file=run / "pid", error_log=run / "error_log", httpd=httpd)
    )
    cp = subprocess.run([httpd.binary, "-d", str(run), "-f", str(conf), "-L"], capture_output=True, text=True, env=httpd.env(run), timeout=120)
    assert cp.returncode == 0, cp.stderr + cp.stdout
    loaded_sources = {table.modules()[m].source for m in [mpm, *mods]} | set(httpd.builtin_modules)
    return _gen().parse_L(cp.stdout), loaded_sources


def test_every_shared_object_is_in_the_table(httpd):
    known = {m.so for m in table.modules().values()}
    missing = sorted(_shared_objects(httpd) - known)
    assert not missing, f"modules of {httpd.binary} missing from modules.tsv (regenerate the table): {missing}"


def test_builtin_modules_are_in_the_table(httpd):
    sources = {m.source for m in table.modules().values()}
    assert not httpd.builtin_modules - sources


@pytest.mark.parametrize("mpm", table.mpm_modules())
def test_directives_match_httpd_L(httpd, mpm, tmp_path):
    if table.modules()[mpm].so not in _shared_objects(httpd):
        pytest.skip(f"{mpm} is not a shared module of this build")
    rows, loaded = _live_rows(httpd, mpm, tmp_path)
    same_build = table.build() in subprocess.run([httpd.binary, "-v"], capture_output=True, text=True).stdout

    live: dict[str, set[str]] = {}
    live_ctx: dict[tuple[str, str], str] = {}
    for name, src, ctx in rows:
        live.setdefault(name.lower(), set()).add(src)
        live_ctx[(name.lower(), src)] = ctx
    committed: dict[str, set[str]] = {}
    committed_ctx: dict[tuple[str, str], str] = {}
    for d in table.directives():
        if d.source in loaded:
            committed.setdefault(d.name.lower(), set()).add(d.source)
            committed_ctx[(d.name.lower(), d.source)] = d.contexts

    missing = sorted(f"{n} ({', '.join(sorted(s))})" for n, s in live.items() if n not in committed)
    assert not missing, f"directives httpd knows but the table lacks: {missing}"
    differ = sorted(f"{n}: httpd {sorted(live[n])} table {sorted(committed[n])}" for n in live if live[n] != committed[n])
    assert not differ, f"directives whose module differs: {differ}"
    if same_build:
        extra = sorted(n for n in committed if n not in live)
        assert not extra, f"table rows httpd does not list: {extra}"
        ctx = sorted(f"{k}: httpd {live_ctx[k]!r} table {committed_ctx[k]!r}" for k in live_ctx if live_ctx[k] != committed_ctx[k])
        assert not ctx, f"contexts differ: {ctx}"


def test_table_lookups():
    d = table.directive_modules()
    assert d["rewriterule"] == ("mod_rewrite.c",)
    assert d["<ifmodule"] == ("core.c",)
    assert d["order"] == ("mod_access_compat.c",)
    assert set(d["listen"]) == {"event.c", "prefork.c", "worker.c"}
    assert table.module_by_source("mod_rewrite.c").identifier == "rewrite_module"
    ldap = table.modules()["ldap_module"]
    assert (ldap.source, ldap.so) == ("util_ldap.c", "mod_ldap.so")
    unixd = table.modules()["unixd_module"]
    assert unixd.debian_builtin and not unixd.image_builtin and unixd.so == "mod_unixd.so"
    assert {m.source for m in table.modules().values() if m.image_builtin} == {"core.c", "mod_so.c", "http_core.c"}
    assert table.module_by_so("mod_mpm_event.so").source == "event.c"


def test_generator_is_up_to_date(httpd):
    """The committed files are exactly what the generator makes from this build."""
    gen = _gen()
    if table.build() not in subprocess.run([httpd.binary, "-v"], capture_output=True, text=True).stdout:
        pytest.skip(f"table made from {table.build()}, not this binary")
    if not httpd.binary.endswith("apache2"):
        pytest.skip("the generator reads Debian's apache2")
    d_text, m_text, b_text = gen.generate(httpd.binary, httpd.module_dir, live=False)
    data = REPO / "operator" / "httpd24" / "engine" / "data"
    assert (data / "directives.tsv").read_text() == d_text
    assert (data / "modules.tsv").read_text() == m_text

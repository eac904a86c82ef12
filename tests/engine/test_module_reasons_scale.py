"""required_modules stays linear in the number of directives (reasons are deduplicated with a set)."""

import time

from httpd24 import api


def test_many_directives_of_one_module_are_each_a_reason_once():
    text = "".join(f"Alias /a{i} /srv/a{i}\n" for i in range(5000)).encode()
    cs = api.load_mapping({"httpd.conf": text})
    started = time.process_time()
    requirements = api.required_modules(cs)
    elapsed = time.process_time() - started
    alias = next(m for m in requirements.modules if m.name == "alias_module")
    assert len(alias.reasons) == 5000
    assert len(set(alias.reasons)) == 5000
    # Quadratic membership tests took ~10 s of CPU here; linear takes well under 1 s.
    assert elapsed < 5


def test_the_same_directive_twice_is_one_reason():
    text = b"Alias /a /srv/a\n<IfModule mod_alias.c>\nAlias /b /srv/b\n</IfModule>\n"
    cs = api.load_mapping({"httpd.conf": text})
    alias = next(m for m in api.required_modules(cs).modules if m.name == "alias_module")
    assert len(alias.reasons) == len(set(alias.reasons))


def test_many_unknown_directives_are_each_found_once():
    """HT406 looked each unknown directive up by a scan of every item: 16,000 `JkMount` lines (a
    mod_jk site) took 15 s, past an admission webhook's time-out."""
    from httpd24.engine import lint

    text = "".join(f"JkMount /app{i}/* worker1\n" for i in range(16000))
    started = time.process_time()
    found = lint(api.load_mapping({"httpd.conf": text}), select=["HT406"])
    elapsed = time.process_time() - started
    assert [f.line for f in found] == list(range(1, 16001))
    assert elapsed < 5

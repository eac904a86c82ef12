"""What a rule sees: live items by key, in reading order."""

from __future__ import annotations

from httpd24.config import DEFAULT_TARGET, ConfigSet
from httpd24.engine.context import Context


def _ctx(text: str) -> Context:
    return Context.build(ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf"), DEFAULT_TARGET)


def test_items_of_several_keys_come_in_reading_order_and_skip_dead_branches():
    ctx = _ctx(
        "Listen 80\nServerRoot /a\n<IfModule !mod_authz_core.c>\nListen 81\n</IfModule>\n"
        "<VirtualHost *:80>\nLoadModule x_module x.so\n</VirtualHost>\nListen 82\n"
    )
    found = [(item.key, item.args[0]) for item in ctx.items("loadmodule", "listen", "serverroot", "absent")]
    assert found == [("listen", "80"), ("serverroot", "/a"), ("loadmodule", "x_module"), ("listen", "82")]
    assert list(ctx.items("absent", "other")) == []

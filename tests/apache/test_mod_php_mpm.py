"""mod_php and the MPM, on the real apache2 with Debian's mod_php (``hack/fetch_mod_php.sh``, run by
``./run setup``).

A 2.2 configuration that loads mod_php ran prefork (mod_php is not thread-safe); its migration must
load an MPM under which the module starts. The check is a real start: mod_php refuses a threaded
MPM in its post-config hook, which ``apache2 -t`` does not run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from httpd24.api import required_modules
from httpd24.apache import HttpdError, Instance
from httpd24.config import ConfigSet
from httpd24.engine import migrate

MOD_PHP = Path(os.environ.get("HTTPD24_CACHE", Path.home() / ".cache" / "httpd24")) / "mod_php" / "libphp.so"

#: A 2.2 httpd.conf's MPM blocks, as RHEL and Debian shipped them.
STOCK = """\
<IfModule prefork.c>
    StartServers 2
    MaxClients 20
</IfModule>
<IfModule worker.c>
    StartServers 2
    MaxClients 50
    ThreadsPerChild 25
</IfModule>
"""


@pytest.fixture(scope="module")
def module_dir(httpd, tmp_path_factory) -> Path:
    """apache2's module directory with mod_php in it, as a server that had it installed has: the
    LoadModule lines HT404 adds go next to the configuration's own."""
    if not MOD_PHP.is_file():
        msg = f"no {MOD_PHP}: run hack/fetch_mod_php.sh {MOD_PHP.parent} (./run setup does)"
        if os.environ.get("CI"):
            pytest.fail(msg + " (CI must not skip the apache tests)")
        pytest.skip(msg)
    directory = tmp_path_factory.mktemp("modules")
    for so in Path(httpd.module_dir).glob("*.so"):
        (directory / so.name).symlink_to(so)
    (directory / "libphp.so").symlink_to(MOD_PHP)
    return directory


def _migrated(text: str) -> tuple[str, list[str]]:
    """The migrated text and the modules httpd24 names for it, mod_php aside (the text loads it)."""
    result = migrate(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))
    migrated = result.files["site.conf"].decode()
    needed = required_modules(ConfigSet.from_mapping({"site.conf": migrated}, entry="site.conf"))
    return migrated, [name for name in needed.names() if name != "php_module"]


def test_the_migrated_configuration_starts_with_mod_php(httpd, module_dir):
    migrated, modules = _migrated(f"LoadModule php_module {module_dir}/libphp.so\n" + STOCK)
    assert f"LoadModule mpm_prefork_module {module_dir}/mod_mpm_prefork.so" in migrated  # HT404
    assert "mpm_prefork_module" in modules
    with Instance({"site.conf": migrated}, "site.conf", modules, httpd=httpd) as server:
        assert server.request("/").status in (403, 404)  # up and answering
    # What httpd24 chose before (2.4's default) does not start: the choice is not a matter of taste.
    threaded = migrated.replace("mpm_prefork", "mpm_event")
    with pytest.raises(HttpdError, match="threaded MPM"):
        with Instance({"site.conf": threaded}, "site.conf", [m.replace("mpm_prefork", "mpm_event") for m in modules],
                      httpd=httpd):
            pass


def test_an_mpm_the_configuration_loads_is_kept_and_mod_php_refuses_it(httpd, module_dir):
    """httpd24 never overrides the MPM a configuration chose; apache2 says why that one cannot work."""
    migrated, modules = _migrated(f"LoadModule mpm_worker_module {module_dir}/mod_mpm_worker.so\n"
                                  f"LoadModule php_module {module_dir}/libphp.so\n")
    assert "mpm_worker_module" in modules and "mpm_prefork_module" not in modules
    with pytest.raises(HttpdError, match="threaded MPM"):
        with Instance({"site.conf": migrated}, "site.conf", modules, httpd=httpd):
            pass

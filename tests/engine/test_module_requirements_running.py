"""The "startup" and "runtime" requirements, judged by real running servers.

``apache2 -t`` cannot see these modules missing (``test_module_requirements``
proves the "configtest" ones); here each one is shown to matter: without a
"startup" module ``-t`` passes but the server does not start, and without a
"runtime" module the server starts but answers differently.
"""

from __future__ import annotations

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.apache import HttpdError, Instance, configtest, htpasswd_file
from httpd24.config import ConfigSet
from httpd24.engine.modules import RUNTIME, STARTUP, required_modules

pytestmark = pytest.mark.apache


def requirements(text: str):
    return required_modules(ConfigSet.from_mapping({"site.conf": text}, entry="site.conf"))


def without(names: list[str], module: str) -> list[str]:
    return [n for n in names if n != module]


BALANCER = (
    "ProxyPass /app balancer://cluster/\n"
    "<Proxy balancer://cluster>\n    BalancerMember http://127.0.0.1:9\n</Proxy>\n"
)


@pytest.mark.parametrize("module", ["slotmem_shm_module", "lbmethod_byrequests_module"])
def test_startup_requirement_passes_configtest_but_the_server_does_not_start(httpd, module):
    result = requirements(BALANCER)
    assert result.get(module).when == STARTUP
    names = without(result.names(), module)
    assert configtest({"site.conf": BALANCER}, "site.conf", names, httpd=httpd).ok
    with pytest.raises(HttpdError):
        with Instance({"site.conf": BALANCER}, "site.conf", names, httpd=httpd):
            pass
    with Instance({"site.conf": BALANCER}, "site.conf", result.names(), httpd=httpd) as server:
        assert server.request("/app/").status == 503  # the member is down: the balancer answers


def _differs(text: str, module: str, httpd, files=None, **request):
    files = {"site.conf": text, **(files or {})}
    result = requirements(text)
    assert result.get(module).when == RUNTIME
    names = result.names()
    assert configtest(files, "site.conf", without(names, module), httpd=httpd).ok
    with Instance(files, "site.conf", names, httpd=httpd) as server:
        full = server.request(**request).status
    with Instance(files, "site.conf", without(names, module), httpd=httpd) as server:
        fewer = server.request(**request).status
    return full, fewer


def test_handler_module_is_a_runtime_requirement(httpd):
    text = "<Location /status>\n    SetHandler server-status\n</Location>\n"
    assert _differs(text, "status_module", httpd, path="/status") == (200, 404)


def test_directory_listing_module_is_a_runtime_requirement(httpd):
    """Options Indexes lists a directory without an index file only with mod_autoindex (404 without it)."""
    text = "DocumentRoot docs\n<Directory docs>\n    Options Indexes\n    Require all granted\n</Directory>\n"
    files = {"docs/d/file.txt": "x\n"}
    assert _differs(text, "autoindex_module", httpd, files, path="/d/") == (200, 404)
    [reason] = requirements(text).get("autoindex_module").reasons
    assert (reason.line, reason.directive) == (3, "Options Indexes") and "mod_autoindex" in reason.note


def test_proxy_scheme_module_is_a_runtime_requirement(httpd):
    text = "ProxyPass /app http://127.0.0.1:9/\n"
    full, fewer = _differs(text, "proxy_http_module", httpd, path="/app/")
    assert (full, fewer) == (503, 500)  # backend down vs. "No protocol handler was valid"


AUTH = (
    "<Location /private>\n    AuthType Basic\n    AuthName private\n    AuthUserFile users\n"
    "    Require valid-user\n</Location>\n"
)


def test_auth_type_module_is_a_runtime_requirement(httpd):
    files = {"users": htpasswd_file({"alice": "secret"})}
    assert _differs(AUTH, "auth_basic_module", httpd, files, path="/private") == (401, 500)


def test_default_authn_provider_is_a_runtime_requirement(httpd):
    # The password file is named in the application's .htaccess (not part of the configuration):
    # the configuration itself only says AuthType Basic, whose default provider is mod_authn_file's.
    text = (
        "DocumentRoot www\n<Directory www>\n    AllowOverride AuthConfig\n    AuthType Basic\n"
        "    AuthName private\n    Require valid-user\n</Directory>\n"
    )
    result = requirements(text)
    module = result.get("authn_file_module")
    assert module.when == RUNTIME and "default authn provider" in module.reasons[0].note
    files = {
        "site.conf": text,
        "www/.htaccess": "AuthUserFile users\n",
        "www/index.html": "hello\n",
        "users": htpasswd_file({"alice": "secret"}),
    }
    names = result.names()
    assert configtest(files, "site.conf", without(names, "authn_file_module"), httpd=httpd).ok
    with Instance(files, "site.conf", names, httpd=httpd) as server:
        assert server.request("/index.html", user="alice", password="secret").status == 200
        assert server.request("/index.html", user="alice", password="wrong").status == 401
    with Instance(files, "site.conf", without(names, "authn_file_module"), httpd=httpd) as server:
        assert server.request("/index.html", user="alice", password="secret").status == 500


def test_authz_core_is_needed_by_every_request(httpd):
    text = "<Location /status>\n    SetHandler server-status\n</Location>\n"
    result = requirements(text)
    assert result.get("authz_core_module").when == RUNTIME
    assert _differs(text, "authz_core_module", httpd, path="/status") == (200, 500)

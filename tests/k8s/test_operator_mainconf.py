"""The generated main configuration: module order, pod paths, and real apache2 runs of the exact bytes."""

from __future__ import annotations

import pytest

from apache_fixture import httpd  # noqa: F401
from httpd24 import apache
from httpd24.k8s import mainconf
from httpd24.k8s.models_server import MAIN_KEY
from httpd24.k8s.rollout_gate import Gate

STATUS_22 = b"""\
User daemon
Group daemon
<Location /server-status>
    SetHandler server-status
    Order deny,allow
    Deny from all
    Allow from 127.0.0.1
</Location>
"""
MODULES_22 = ["access_compat_module", "authz_core_module", "authz_host_module", "status_module", "unixd_module"]


def _bundle(conf: bytes, modules=MODULES_22, listen=(8080,)) -> dict[str, bytes]:
    main = mainconf.render_main(entry="httpd.conf", modules=mainconf.modules_to_load(modules), listen=listen, owner="ns/web")
    return mainconf.bundle({"httpd.conf": conf}, main)


def test_modules_mpm_first_and_default_mpm():
    mods = mainconf.modules_to_load(["unixd_module", "proxy_module", "proxy_http_module", "core_module", "so_module"])
    assert [m.name for m in mods] == ["mpm_event_module", "unixd_module", "proxy_module", "proxy_http_module"]
    assert mods[0].so == "mod_mpm_event.so"


def test_modules_keep_required_mpm_and_refuse_two():
    mods = mainconf.modules_to_load(["status_module", "mpm_prefork_module"])
    assert [m.name for m in mods] == ["mpm_prefork_module", "status_module"]  # the MPM moves first
    with pytest.raises(ValueError, match="more than one MPM"):
        mainconf.modules_to_load(["mpm_prefork_module"], ["mpm_worker_module"])


def test_main_has_pod_paths_and_includes_entry_last():
    text = mainconf.render_main(entry="site.conf", modules=mainconf.modules_to_load(["status_module"]), listen=[8080, 8443])
    lines = [line.strip() for line in text.splitlines()]
    assert 'ServerRoot "/etc/httpd24"' in lines
    assert 'PidFile "/run/httpd24/httpd.pid"' in lines
    assert 'ErrorLog "/proc/self/fd/2"' in lines
    assert "Listen 8080" in lines and "Listen 8443" in lines
    assert 'LoadModule status_module "${HTTPD24_MODULES}/mod_status.so"' in lines
    assert 'Define HTTPD24_MODULES "/usr/local/apache2/modules"' in lines
    assert lines[-1] == 'Include "site.conf"'
    # exactly the modules given (plus the default MPM), nothing else
    assert sum(1 for line in lines if line.startswith("LoadModule")) == 2


def test_bundle_refuses_reserved_key_and_hash_covers_names_and_bytes():
    with pytest.raises(ValueError, match=MAIN_KEY):
        mainconf.bundle({MAIN_KEY: b"x"}, "main")
    a = mainconf.config_hash({"a.conf": b"x", "b.conf": b"y"})
    assert a == mainconf.config_hash({"b.conf": b"y", "a.conf": b"x"})  # order of keys does not matter
    assert a != mainconf.config_hash({"a.conf": b"x", "b.conf": b"y "})
    assert a != mainconf.config_hash({"a.confx": b"", "b.conf": b"y"})  # no ambiguity between name and content
    assert mainconf.config_hash({"ab": b"c"}) != mainconf.config_hash({"a": b"bc"})


def test_listen_ports_from_entry_reachable_files_only():
    cs = apache_cs({"httpd.conf": b"Listen 80\nInclude ports.conf\n", "ports.conf": b"Listen 0.0.0.0:8443 https\nListen 80\n",
                    "unused.conf": b"Listen 9999\n"})
    assert mainconf.listen_ports(cs) == [80, 8443]


def apache_cs(files):
    from httpd24 import api

    return api.load_mapping(files, entry="httpd.conf", server_root=mainconf.SERVER_ROOT)


@pytest.mark.apache
def test_generated_main_passes_real_configtest(httpd):  # noqa: F811
    result = Gate(netns="off").check(_bundle(STATUS_22), "h1", "mpm_event_module")
    assert result.ok, result.output


@pytest.mark.apache
def test_gate_reports_httpds_message_when_a_module_is_missing(httpd):  # noqa: F811
    files = _bundle(STATUS_22, modules=["authz_core_module", "status_module"])  # no access_compat
    result = Gate(netns="off").check(files, "h2", "mpm_event_module")
    assert not result.ok
    assert "Invalid command 'Order'" in result.output
    assert "httpd.conf" in result.output and "/tmp" not in result.output


@pytest.mark.apache
def test_gate_caches_by_hash_and_times_out(httpd, monkeypatch):  # noqa: F811
    gate = Gate(netns="off")
    first = gate.check(_bundle(STATUS_22), "same", "mpm_event_module")
    again = gate.check({"httpd.conf": b"garbage"}, "same", "mpm_event_module")
    assert not first.cached and again.cached and again.ok
    slow = Gate(netns="off", timeout=0.001)
    result = slow.check(_bundle(STATUS_22), "slow", "mpm_event_module")
    assert not result.ok and "did not finish" in result.output


@pytest.mark.apache
def test_gate_has_no_network_when_isolated(httpd):  # noqa: F811
    gate = Gate()
    files = _bundle(b"<VirtualHost www.example.org:8080>\n</VirtualHost>\n", modules=["authz_core_module"])
    result = gate.check(files, "dns", "mpm_event_module")
    if not gate.isolated:
        pytest.skip("no network namespace available here")
    assert result.ok
    assert "Could not resolve host name www.example.org" in result.output


@pytest.mark.apache
def test_generated_main_serves_server_status_as_spec_4(httpd):  # noqa: F811
    files = _bundle(STATUS_22)
    extra = mainconf.local_defines(httpd.module_dir, "/etc/mime.types")
    with apache.Instance(files, MAIN_KEY, ["mpm_event_module"], defines=[mainconf.LOCAL_DEFINE], extra=extra,
                         allow_listen=True, httpd=httpd) as srv:
        assert srv.request("/server-status").status == 200
        assert srv.request("/server-status", source="127.0.0.2").status == 403


# -- the gate runs users' files on the operator's host: it must not read or load anything else ------------------
SECRET = "s3cr3t-operator-token"


@pytest.fixture
def host_secret(tmp_path):
    path = tmp_path / "token"
    path.write_text(SECRET + "\n")
    return str(path)


@pytest.mark.apache
@pytest.mark.parametrize("line", ["Include {p}", "IncludeOptional {p}", "Include {d}/*", "Include {d}",
                                  "Define D {d}\nInclude ${{D}}/token", "Include ../../../../../../../..{p}",
                                  "ServerRoot {d}\nInclude token"])
def test_gate_never_reads_files_outside_the_bundle(httpd, host_secret, line):  # noqa: F811
    # httpd -t echoes the first word of a line it cannot read as a directive: an Include of the operator's
    # ServiceAccount token would put the token into the HttpdServer's status, readable by the namespace.
    import os

    conf = line.format(p=host_secret, d=os.path.dirname(host_secret)).encode() + b"\n" + STATUS_22
    result = Gate(netns="off").check(_bundle(conf), "leak-" + line, "mpm_event_module")
    assert not result.ok
    assert SECRET not in result.output
    assert "httpd.conf:1: " in result.output or "httpd.conf:2: Include" in result.output
    assert "outside the ConfigMap" in result.output or "ServerRoot is where httpd24 mounts" in result.output


@pytest.mark.apache
@pytest.mark.parametrize("line", ["LoadModule evil_module evil.so", "LoadFile evil.so",
                                  "LoadModule evil_module /tmp/evil.so", "LoadModule evil_module modules/../evil.so"])
def test_gate_never_loads_code_from_the_bundle_or_the_host(httpd, line):  # noqa: F811
    # A binaryData key holding a shared object, loaded by httpd -t, would run code in the operator.
    files = _bundle(line.encode() + b"\n" + STATUS_22)
    files["evil.so"] = b"\x7fELF not really"
    result = Gate(netns="off").check(files, "load-" + line, "mpm_event_module")
    assert not result.ok
    assert "httpd.conf:1:" in result.output and "/usr/local/apache2/modules" in result.output


@pytest.mark.apache
def test_gate_allows_the_usual_2_2_lines_that_stay_inside(httpd):  # noqa: F811
    # A 2.2 LoadModule of a module the main configuration already loads is skipped by httpd before it
    # opens the file; includes inside the ConfigMap and image files under the pod's ServerRoot are fine.
    conf = (b"LoadModule status_module modules/mod_status.so\nInclude extra.conf\nIncludeOptional conf.d/*.conf\n"
            + STATUS_22)
    files = _bundle(conf)
    files["extra.conf"] = b"ServerAdmin root@localhost\n"
    result = Gate(netns="off").check(files, "inside", "mpm_event_module")
    assert result.ok, result.output

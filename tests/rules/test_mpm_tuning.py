"""HT407: MPM blocks that the MPM 2.4 will run never reads."""

from __future__ import annotations

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import configset, findings, fixed

from httpd24.apache import configtest
from httpd24.api import required_modules
from httpd24.config import Target

STOCK = """\
<IfModule prefork.c>
    StartServers 8
    MaxClients 256
</IfModule>
<IfModule worker.c>
    MaxClients 300
    ThreadsPerChild 25
</IfModule>
"""


def test_the_stock_blocks_are_unread_under_2_4s_default_mpm():
    found = findings(STOCK, "HT407")
    assert [(f.line, f.replacement) for f in found] == [
        (1, "LoadModule mpm_prefork_module modules/mod_mpm_prefork.so"),
        (5, "LoadModule mpm_worker_module modules/mod_mpm_worker.so"),
    ]
    assert "is not read under the event MPM" in found[0].message
    assert "StartServers 8, MaxClients 256" in found[0].message
    assert "<IfModule mpm_event_module>" in found[0].message


@pytest.mark.parametrize("text", [
    # A setting only prefork has makes httpd24 choose prefork: its block is read.
    "MinSpareServers 5\n" + STOCK,
    # 2.4 names, for the MPM 2.4 runs by default.
    "<IfModule mpm_event_module>\n    MaxRequestWorkers 400\n</IfModule>\n" + STOCK,
    # Nothing in the block.
    "<IfModule prefork.c>\n    # tuned elsewhere\n</IfModule>\n",
    # Not a positive test of an MPM.
    "<IfModule !prefork.c>\n    MaxClients 10\n</IfModule>\n",
    "<IfModule mod_status.c>\n    ExtendedStatus On\n</IfModule>\n",
    # Dead on 2.4 whatever it loads.
    "<IfVersion < 2.3>\n" + STOCK + "</IfVersion>\n",
    "<IfModule !mod_authz_core.c>\n" + STOCK + "</IfModule>\n",
])
def test_blocks_the_running_mpm_reads_or_that_2_4_skips_anyway_are_left_alone(text):
    assert findings(text, "HT407") == []


def test_the_target_servers_mpm_decides():
    target = Target(version=(2, 4, 62), modules={"mpm_prefork_module", "authz_core_module"})
    assert findings(STOCK, "HT407", target=target) == []
    target = Target(version=(2, 4, 62), modules={"mpm_event_module", "authz_core_module"})
    assert [f.line for f in findings(STOCK, "HT407", target=target)] == [1, 5]


@pytest.mark.apache
def test_real_httpd_skips_a_block_for_another_mpm(httpd):  # noqa: F811
    """The premise, on apache2: a block for prefork is not even parsed under event."""
    files = {"a.conf": "<IfModule prefork.c>\n    NoSuchDirective on\n</IfModule>\n"}
    assert configtest(files, "a.conf", ["mpm_event_module"], httpd=httpd).ok
    refused = configtest(files, "a.conf", ["mpm_prefork_module"], httpd=httpd)
    assert not refused.ok and "NoSuchDirective" in refused.output


def test_a_configuration_that_tunes_one_mpm_gets_that_mpm():
    """2.2 ran the MPM whose block it has (else the tuning did nothing): `modules` loads that one."""
    text = "<IfModule prefork.c>\n    StartServers 8\n    MaxClients 256\n</IfModule>\n"
    requirements = required_modules(configset(text))
    assert requirements.mpm == "mpm_prefork_module"
    [reason] = requirements.get("mpm_prefork_module").reasons
    assert (reason.line, reason.note) == (1, "the configuration tunes this MPM only (2.2 compiled its MPM in)")
    assert findings(text, "HT407") == []


@pytest.mark.parametrize("load", [
    "LoadModule php5_module modules/libphp5.so",  # RHEL/CentOS
    "LoadModule php5_module /usr/lib/apache2/modules/libphp5.so",  # Debian (whose package needed apache2-mpm-prefork)
    "LoadModule php4_module modules/libphp4.so",
])
def test_mod_php_means_the_2_2_server_ran_prefork(load):
    """mod_php (not built thread-safe) refuses to start under a threaded MPM, so the 2.2 server that
    loaded it ran prefork: its block is the one that was read, and 2.4 must load prefork, not event."""
    text = load + "\n" + STOCK
    requirements = required_modules(configset(text))
    assert requirements.mpm == "mpm_prefork_module"
    [reason] = requirements.get("mpm_prefork_module").reasons
    assert reason.line == 1 and "mod_php" in reason.note
    assert findings(text, "HT407") == []
    assert "LoadModule mpm_prefork_module" in fixed(text, "HT404")


@pytest.mark.parametrize("text", [
    # A thread-safe build: it ran under worker as well.
    "LoadModule php5_module modules/libphp5-zts.so\n" + STOCK,
    # CentOS's php.conf: which one loaded depended on the MPM, which is what is unknown.
    "<IfModule prefork.c>\n    LoadModule php5_module modules/libphp5.so\n</IfModule>\n"
    "<IfModule worker.c>\n    LoadModule php5_module modules/libphp5-zts.so\n</IfModule>\n" + STOCK,
    # Settings only threaded MPMs have outweigh it.
    "LoadModule php5_module modules/libphp5.so\nThreadsPerChild 25\n",
])
def test_mod_php_decides_nothing_when_it_may_have_run_threaded(text):
    assert required_modules(configset(text)).mpm != "mpm_prefork_module"


def test_an_mpm_the_configuration_loads_wins_over_mod_php():
    text = "LoadModule mpm_worker_module modules/mod_mpm_worker.so\nLoadModule php5_module modules/libphp5.so\n"
    assert required_modules(configset(text)).mpm == "mpm_worker_module"


def test_a_block_for_a_threaded_mpm_beside_mod_php_is_reported_with_why_prefork():
    text = "LoadModule php5_module modules/libphp5.so\n<IfModule worker.c>\n    MaxClients 50\n    ThreadsPerChild 25\n</IfModule>\n"
    [found] = findings(text, "HT407")
    assert found.line == 2
    assert "not read under the prefork MPM that 2.4 will run (the MPM its modules need: mod_php is not thread-safe)" in found.message

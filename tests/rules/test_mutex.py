import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import configtest
from httpd24.config import Target
from httpd24.engine import Applicability

GUARD = "<IfModule !mpm_event_module>\n    {}\n</IfModule>\n"


@pytest.mark.parametrize(
    ("code", "text"),
    [
        pytest.param("HT109", "Mutex fcntl mpm-accept\n", id="already-2.4"),
        pytest.param("HT109", "<IfVersion < 2.3>\nAcceptMutex fcntl\n</IfVersion>\n", id="accept-dead-version"),
        pytest.param("HT109", "<IfModule !mod_authz_core.c>\nAcceptMutex fcntl\n</IfModule>\n", id="accept-dead-mod"),
        pytest.param("HT110", "<IfVersion < 2.3>\nLockFile logs/accept.lock\n</IfVersion>\n", id="lock-dead-version"),
        pytest.param("HT110", "<IfModule !mod_authz_core.c>\nLockFile x\n</IfModule>\n", id="lock-dead-mod"),
        pytest.param("HT111", "<IfVersion < 2.3>\nRewriteLock /x/lock\n</IfVersion>\n", id="rwlock-dead-version"),
        pytest.param("HT111", "<IfModule !mod_authz_core.c>\nRewriteLock /x/l\n</IfModule>\n", id="rwlock-dead-mod"),
        pytest.param("HT112", "<IfVersion < 2.3>\nSSLMutex default\n</IfVersion>\n", id="ssl-dead-version"),
        pytest.param("HT112", "<IfModule !mod_authz_core.c>\nSSLMutex sem\n</IfModule>\n", id="ssl-dead-mod"),
        pytest.param("HT112", "# SSLMutex sem\n", id="comment"),
    ],
)
def test_noop(code, text):
    assert findings(text, code) == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("AcceptMutex fcntl\nLockFile /var/lock/apache2/accept.lock\n",
                     GUARD.format("Mutex fcntl:/var/lock/apache2 mpm-accept"), id="accept-and-lockfile"),
        pytest.param("LockFile /var/lock/apache2/accept.lock\nAcceptMutex FLOCK\n",
                     GUARD.format("Mutex flock:/var/lock/apache2 mpm-accept"), id="lockfile-first-upper"),
        pytest.param("LockFile ${APACHE_LOCK_DIR}/accept.lock\n",
                     GUARD.format("Mutex default:${APACHE_LOCK_DIR} mpm-accept"), id="lockfile-variable"),
        pytest.param('LockFile "@rel_logfiledir@/accept.lock"\n',
                     GUARD.format("Mutex default:@rel_logfiledir@ mpm-accept"), id="lockfile-quoted"),
        pytest.param("LockFile accept.lock\n", GUARD.format("Mutex default:. mpm-accept"), id="lockfile-relative"),
        pytest.param("AcceptMutex sysvsem\nLockFile /x/accept.lock\n", GUARD.format("Mutex sysvsem mpm-accept"),
                     id="semaphore-ignores-lockfile"),
        pytest.param("AcceptMutex pthread\n", GUARD.format("Mutex pthread mpm-accept"), id="accept-alone"),
        pytest.param("LockFile /a/accept.lock\nLockFile /b/accept.lock\n",
                     GUARD.format("Mutex default:/b mpm-accept"), id="last-lockfile-wins"),
        pytest.param(
            "<IfModule prefork.c>\r\n  AcceptMutex fcntl\r\n</IfModule>\r\n"
            "<IfModule mpm_worker_module>\r\n  AcceptMutex flock\r\n</IfModule>\r\n"
            "<IfModule event.c>\r\n  AcceptMutex flock\r\n</IfModule>\r\n"
            "LockFile /run/accept.lock\r\n",
            "<IfModule prefork.c>\r\n  Mutex fcntl:/run mpm-accept\r\n</IfModule>\r\n"
            "<IfModule mpm_worker_module>\r\n  Mutex flock:/run mpm-accept\r\n</IfModule>\r\n"
            "<IfModule event.c>\r\n</IfModule>\r\n",
            id="per-mpm-crlf",
        ),
        pytest.param(
            "<IfModule perchild.c>\n  AcceptMutex fcntl\n</IfModule>\nLockFile /var/lock/apache2/accept.lock\n",
            "<IfModule !mpm_event_module>\n  Mutex default:/var/lock/apache2 mpm-accept\n</IfModule>\n"
            "<IfModule perchild.c>\n  <IfModule !mpm_event_module>\n    Mutex fcntl:/var/lock/apache2 mpm-accept\n"
            "  </IfModule>\n</IfModule>\n",
            id="mpm-specific-accept-before-lockfile-debian-2.2.0",
        ),
        pytest.param(
            "LockFile /l/accept.lock\n<IfModule prefork.c>\n  AcceptMutex fcntl\n</IfModule>\n",
            "<IfModule !mpm_event_module>\n  Mutex default:/l mpm-accept\n</IfModule>\n"
            "<IfModule prefork.c>\n  Mutex fcntl:/l mpm-accept\n</IfModule>\n",
            id="lockfile-still-needed-for-other-mpms",
        ),
        pytest.param("RewriteLock @SERVERROOT@/logs/rewrite_lock\n", "Mutex default:@SERVERROOT@/logs rewrite-map\n",
                     id="rewritelock"),
        pytest.param("<IfModule mod_rewrite.c>\n\tRewriteLock /var/run/rw.lock\n</IfModule>\n",
                     "<IfModule mod_rewrite.c>\n\tMutex default:/var/run rewrite-map\n</IfModule>\n",
                     id="rewritelock-tab"),
        pytest.param("RewriteLock \"/my dir/rw lock\"\n", 'Mutex "default:/my dir" rewrite-map\n',
                     id="rewritelock-space"),
        pytest.param("SSLMutex default\n", "Mutex default ssl-cache\n", id="ssl-default"),
        pytest.param("SSLMutex yes\n", "Mutex default ssl-cache\n", id="ssl-yes"),
        pytest.param("SSLMutex  file:${APACHE_RUN_DIR}/ssl_mutex\n", "Mutex file:${APACHE_RUN_DIR} ssl-cache\n",
                     id="ssl-file-variable"),
        pytest.param('SSLMutex  "file:@exp_runtimedir@/ssl_mutex"\n', "Mutex file:@exp_runtimedir@ ssl-cache\n",
                     id="ssl-file-quoted"),
        pytest.param("SSLMutex fcntl:/var/run/ssl.lock\n", "Mutex fcntl:/var/run ssl-cache\n", id="ssl-fcntl"),
        pytest.param("SSLMutex flock:/var/run/ssl.lock\n", "Mutex flock:/var/run ssl-cache\n", id="ssl-flock"),
        pytest.param("SSLMutex sem\n", "Mutex sem ssl-cache\n", id="ssl-sem"),
        pytest.param("SSLMutex posixsem:/ssl-sem\n", "Mutex posixsem ssl-cache\n", id="ssl-posixsem-name"),
        pytest.param("SSLMutex sysvsem\n", "Mutex sysvsem ssl-cache\n", id="ssl-sysvsem"),
        pytest.param("SSLMutex pthread\n", "Mutex pthread ssl-cache\n", id="ssl-pthread"),
        pytest.param("<IfModule mod_ssl.c>\r\n    SSLMutex none\r\n    SSLRandomSeed startup builtin\r\n</IfModule>\r\n",
                     "<IfModule mod_ssl.c>\r\n    SSLRandomSeed startup builtin\r\n</IfModule>\r\n", id="ssl-none"),
        pytest.param("SSLMutex no\n", "", id="ssl-no"),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT1") == after


@pytest.mark.parametrize(
    ("target_modules", "after"),
    [
        pytest.param({"mpm_prefork_module"}, "Mutex fcntl:/run mpm-accept\n", id="prefork"),
        pytest.param({"mpm_worker_module"}, "Mutex fcntl:/run mpm-accept\n", id="worker"),
        pytest.param({"mpm_event_module"}, "", id="event-has-no-accept-mutex"),
    ],
)
def test_known_mpm(target_modules, after):
    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    cs = ConfigSet.from_mapping({"httpd.conf": "AcceptMutex fcntl\nLockFile /run/accept.lock\n"}, entry="httpd.conf")
    target = Target(version=(2, 4, 62), modules=frozenset(target_modules))
    assert migrate(cs, target=target, select=["HT1"]).files["httpd.conf"].decode() == after


def test_mpm_from_loadmodule():
    text = "LoadModule mpm_worker_module modules/mod_mpm_worker.so\nAcceptMutex fcntl\n"
    assert fixed(text, "HT109") == "LoadModule mpm_worker_module modules/mod_mpm_worker.so\nMutex fcntl mpm-accept\n"


@pytest.mark.parametrize("code", ["HT109", "HT110"])
def test_either_rule_alone_converts_both(code):
    # The LockFile's directory and the AcceptMutex's mechanism must end up in one line.
    assert fixed("AcceptMutex flock\nLockFile /l/accept.lock\n", code) == GUARD.format("Mutex flock:/l mpm-accept")


def test_findings():
    accept, lock = findings("AcceptMutex fcntl\nLockFile /var/lock/apache2/accept.lock\n", "HT1")
    assert (accept.code, lock.code) == ("HT109", "HT110")
    assert "mpm-accept" in accept.message and "event" in accept.message
    assert "/var/lock/apache2" in lock.message
    assert accept.fix.applicability == lock.fix.applicability == Applicability.SAFE
    [ssl] = findings("SSLMutex none\n", "HT112")
    assert "None is not allowed" not in ssl.message and "remove" in ssl.message


@pytest.mark.parametrize(
    ("text", "modules", "says"),
    [
        pytest.param("AcceptMutex sysvsem\nLockFile /x/accept.lock\n", (), "AcceptMutex sysvsem", id="semaphore"),
        pytest.param("LockFile /x/accept.lock\nAcceptMutex pthread\n", (), "AcceptMutex pthread", id="pthread-after"),
        pytest.param("AcceptMutex fcntl\nLockFile /x/accept.lock\n", ("mpm_event_module",), "event MPM",
                     id="event-mpm"),
    ],
)
def test_lockfile_message_matches_what_the_fix_writes(text, modules, says):
    """Beside a semaphore (2.2 ignored LockFile for it) or under the event MPM, no Mutex line takes the
    LockFile's directory: the message said it moved into one."""
    target = Target(version=(2, 4, 62), modules=frozenset(modules)) if modules else None
    [lock] = [f for f in findings(text, "HT1", target=target) if f.code == "HT110"]
    assert "/x" not in " ".join(f.replacement for f in findings(text, "HT1", target=target))
    assert "moves into" not in lock.message and says in lock.message and "remove it" in lock.message


def test_lockfile_message_names_the_line_its_directory_goes_to():
    [_, lock] = findings("AcceptMutex fcntl\nLockFile /x/accept.lock\n", "HT1")
    assert "its directory /x moves into the Mutex line that replaces AcceptMutex" in lock.message


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("SSLStaplingMutex file:/var/run/stapling.lock\n", "Mutex file:/var/run ssl-stapling\n", id="file"),
        pytest.param("SSLStaplingMutex  sem\n", "Mutex sem ssl-stapling\n", id="semaphore"),
        pytest.param("SSLStaplingMutex none\n", "", id="none-refused-by-2.4"),
    ],
)
def test_ssl_stapling_mutex(before, after):
    """2.3's SSLStaplingMutex took SSLMutex's words ("Similar to SSL mutex", ssl_util_stapling.c);
    HT406 called it an unknown third-party directive."""
    assert fixed(before, "HT112") == after
    assert findings(before, "HT406") == []


def test_watchdog_mutex_path():
    [finding] = findings("WatchdogMutexPath /var/run/apache2\n", "HT122")
    assert finding.replacement == "Mutex default:/var/run/apache2 watchdog-callback"
    assert finding.fix is None
    assert findings("WatchdogMutexPath /var/run/apache2\n", "HT406") == []


@pytest.mark.apache
@pytest.mark.parametrize("text", ["SSLStaplingMutex file:run/stapling.lock\n", "SSLStaplingMutex default\n"])
def test_real_httpd_ssl_stapling_mutex(httpd, text):
    files = {"s.conf": text, "run/.keep": ""}
    modules = ["mpm_event_module", "ssl_module", "socache_shmcb_module"]
    before = configtest(files, "s.conf", modules, httpd=httpd)
    assert not before.ok and "Invalid command 'SSLStaplingMutex'" in before.output
    after = configtest({**files, "s.conf": fixed(text, "HT112")}, "s.conf", modules, httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
def test_real_httpd_watchdog_mutex_path_replacement(httpd):
    text = "WatchdogMutexPath run\n"
    files = {"w.conf": text, "run/.keep": ""}
    before = configtest(files, "w.conf", ["mpm_event_module"], httpd=httpd)
    assert not before.ok and "Invalid command 'WatchdogMutexPath'" in before.output
    [finding] = findings(text, "HT122")
    after = configtest({**files, "w.conf": finding.replacement + "\n"}, "w.conf", ["mpm_event_module"], httpd=httpd)
    assert after.ok, after.output


DEBIAN_LOCK_COMMENT = "#\n# The accept serialization lock file MUST BE STORED ON A LOCAL DISK.\n#\n"


def test_a_moved_lockfile_takes_its_comment_along():
    """Debian 2.2.0: the LockFile's Mutex line must go before the MPM-specific AcceptMutex; the comment
    block right above LockFile went nowhere and was left above the next line."""
    before = ("<IfModule perchild.c>\n  AcceptMutex fcntl\n</IfModule>\n" + DEBIAN_LOCK_COMMENT
              + "LockFile /var/lock/apache2/accept.lock\n\nPidFile x\n")
    assert fixed(before, "HT110") == (
        DEBIAN_LOCK_COMMENT
        + "<IfModule !mpm_event_module>\n  Mutex default:/var/lock/apache2 mpm-accept\n</IfModule>\n"
        "<IfModule perchild.c>\n  <IfModule !mpm_event_module>\n    Mutex fcntl:/var/lock/apache2 mpm-accept\n"
        "  </IfModule>\n</IfModule>\n\nPidFile x\n"
    )
    [lock] = findings(before, "HT110")
    assert "the comment above LockFile (lines 4-6) moves with it" in lock.fix.description


def test_a_removed_lockfile_leaves_its_comment_and_says_so():
    """Folded into the AcceptMutex's Mutex line, the LockFile goes; its comment stays where it was."""
    before = "AcceptMutex fcntl\n# on a local disk\nLockFile /l/accept.lock\n"
    assert fixed(before, "HT110") == GUARD.format("Mutex fcntl:/l mpm-accept") + "# on a local disk\n"
    [lock] = findings(before, "HT110")
    assert "the comment above LockFile (line 2) stays" in lock.fix.description


@pytest.mark.parametrize(
    ("code", "text"),
    [
        pytest.param("HT109", "AcceptMutex spinlock\n", id="accept-unknown"),
        pytest.param("HT112", "SSLMutex magic:/x\n", id="ssl-unknown"),
    ],
)
def test_unknown_mechanism_needs_a_person(code, text):
    [finding] = findings(text, code)
    assert finding.fix is None


# -- real httpd ------------------------------------------------------------------------------

ACCEPT_22 = "AcceptMutex fcntl\nLockFile run/lock/accept.lock\n"
ACCEPT_PER_MPM_22 = (
    "LockFile run/lock/accept.lock\n"
    "<IfModule prefork.c>\n    AcceptMutex flock\n</IfModule>\n"
    "<IfModule perchild.c>\n    AcceptMutex fcntl\n</IfModule>\n"
)


@pytest.mark.apache
@pytest.mark.parametrize("mpm", ["mpm_prefork_module", "mpm_worker_module", "mpm_event_module"])
@pytest.mark.parametrize("text", [ACCEPT_22, ACCEPT_PER_MPM_22], ids=["global", "per-mpm"])
def test_real_httpd_accept_mutex(httpd, mpm, text):
    files = {"m.conf": text, "run/lock/.keep": ""}
    before = configtest(files, "m.conf", [mpm], httpd=httpd)
    assert not before.ok and ("AcceptMutex" in before.output or "LockFile" in before.output), before.output
    after = configtest({**files, "m.conf": fixed(text, "HT1")}, "m.conf", [mpm], httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
def test_real_httpd_rejects_a_lock_file_path_as_mutex_directory(httpd):
    # Why the fix takes the directory: 2.4 refuses the 2.2 file path.
    files = {"m.conf": "Mutex fcntl:run/lock/accept.lock mpm-accept\n", "run/lock/.keep": ""}
    result = configtest(files, "m.conf", ["mpm_prefork_module"], httpd=httpd)
    assert not result.ok and "Invalid Mutex directory" in result.output


@pytest.mark.apache
def test_real_httpd_rewrite_lock(httpd):
    text = "RewriteEngine On\nRewriteLock run/rewrite_lock\nRewriteMap up prg:/bin/cat\n"
    files = {"r.conf": text, "run/.keep": ""}
    modules = ["mpm_event_module", "rewrite_module"]
    before = configtest(files, "r.conf", modules, httpd=httpd)
    assert not before.ok and "RewriteLock" in before.output
    after = configtest({**files, "r.conf": fixed(text, "HT111")}, "r.conf", modules, httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
@pytest.mark.parametrize(
    "value",
    ["default", "yes", "none", "no", "sem", "posixsem", "sysvsem", "pthread", "file:run/ssl_mutex",
     "fcntl:run/ssl_mutex", "flock:run/ssl_mutex", "default:run/ssl_mutex"],
)
def test_real_httpd_ssl_mutex(httpd, value):
    text = f"<IfModule mod_ssl.c>\n    SSLSessionCache shmcb:run/ssl_scache(512000)\n    SSLMutex {value}\n</IfModule>\n"
    files = {"s.conf": text, "run/.keep": ""}
    modules = ["mpm_event_module", "ssl_module", "socache_shmcb_module"]
    before = configtest(files, "s.conf", modules, httpd=httpd)
    assert not before.ok and "SSLMutex" in before.output
    after = configtest({**files, "s.conf": fixed(text, "HT112")}, "s.conf", modules, httpd=httpd)
    assert after.ok, after.output


@pytest.mark.apache
@pytest.mark.parametrize("mpm_setting", ["", "MinSpareServers 1\n"], ids=["event", "prefork"])
def test_real_httpd_accept_lock_before_the_modules_a_configuration_loads(httpd, tmp_path, mpm_setting):  # noqa: F811
    """Debian's 2.2 apache2.conf has its LockFile long before `Include mods-enabled/*.load`, and HT404 loads
    the MPM after the last LoadModule: an `<IfModule !mpm_event_module>` at the LockFile's place is read
    before any MPM is loaded, so it is true, and the event MPM then refuses `Mutex ... mpm-accept`. There
    the MPM is known (the one HT404 loads), and the Mutex line is written for it. The configuration is
    checked as it is, with no module loaded before it."""
    import subprocess

    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    files = {
        "apache2.conf": "ServerName localhost\nPidFile run/httpd.pid\nErrorLog run/error.log\n"
                        f"LockFile run/lock/accept.lock\n{mpm_setting}Include mods-enabled/*.load\n",
        "mods-enabled/alias.load": f"LoadModule alias_module {httpd.module_dir}/mod_alias.so\n",
    }
    result = migrate(ConfigSet.from_mapping(files, entry="apache2.conf"))
    migrated = result.files["apache2.conf"].decode()
    assert "LockFile" not in migrated and "IfModule" not in migrated
    assert ("Mutex default:run/lock mpm-accept" in migrated) == bool(mpm_setting)
    for name, data in result.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    (tmp_path / "run" / "lock").mkdir(parents=True)
    checked = subprocess.run([httpd.binary, "-t", "-d", str(tmp_path), "-f", str(tmp_path / "apache2.conf")],
                             capture_output=True, text=True, env=httpd.env(tmp_path / "run"), timeout=30)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.apache
def test_real_httpd_accept_lock_beside_an_mpm_loaded_in_an_undecided_block(httpd, tmp_path):  # noqa: F811
    """An MPM loaded only inside `<IfModule mod_x.c>` of a module nothing loads is not the MPM (HT404 loads
    event beside it): HT110 wrote `Mutex ... mpm-accept` for that block's prefork, and the event MPM then
    refused it ("Mutex type mpm-accept is not valid"; found by tests/rules/test_rule_mixes.py)."""
    import subprocess

    from httpd24.config import ConfigSet
    from httpd24.engine import migrate

    files = {
        "httpd.conf": "ServerName localhost\nPidFile run/httpd.pid\nErrorLog run/error.log\n"
                      f"LockFile run/lock/accept.lock\nLoadModule alias_module {httpd.module_dir}/mod_alias.so\n"
                      "<IfModule mod_nosuch.c>\n"
                      f"    LoadModule mpm_prefork_module {httpd.module_dir}/mod_mpm_prefork.so\n</IfModule>\n",
    }
    result = migrate(ConfigSet.from_mapping(files, entry="httpd.conf"))
    for name, data in result.files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "run" / "lock").mkdir(parents=True)
    checked = subprocess.run([httpd.binary, "-t", "-d", str(tmp_path), "-f", str(tmp_path / "httpd.conf")],
                             capture_output=True, text=True, env=httpd.env(tmp_path / "run"), timeout=30)
    assert checked.returncode == 0, checked.stderr + result.files["httpd.conf"].decode()

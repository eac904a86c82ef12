import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.engine import Applicability


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('CustomLog "|$rotatelogs /var/log/x 86400" common\n', id="already-shell"),
        pytest.param('CustomLog "||rotatelogs /var/log/x 86400" common\n', id="double-pipe-no-shell-in-both"),
        pytest.param('CustomLog "|/usr/sbin/rotatelogs /var/log/access.%Y%m%d 86400" common\n', id="plain-absolute"),
        pytest.param("ErrorLog |/usr/bin/logger\n", id="plain-absolute-one-word"),
        pytest.param("ErrorLog /var/log/error_log\n", id="file"),
        pytest.param("ErrorLog syslog:local1\n", id="syslog"),
        pytest.param('GlobalLog "|rotatelogs x 5" common\n', id="globallog-is-2.4-only"),
        pytest.param('<IfVersion < 2.3>\nErrorLog "|rotatelogs x 5"\n</IfVersion>\n', id="dead-ifversion-branch"),
        pytest.param('<IfModule !mod_authz_core.c>\nErrorLog "|rotatelogs x 5"\n</IfModule>\n', id="dead-ifmodule"),
        pytest.param('# ErrorLog "|rotatelogs x 5"\n', id="comment"),
        pytest.param('CustomLog "|/usr/sbin/rotatelogs ${APACHE_LOG_DIR}/access.%Y%m%d 86400" common\n',
                     id="variable-in-an-argument-of-a-plain-command"),
        pytest.param('Define ROT /usr/sbin/rotatelogs\nCustomLog "|${ROT} /var/log/x 86400" common\n',
                     id="defined-variable-is-read-as-its-value"),
    ],
)
def test_noop(text):
    assert findings(text, "HT202") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            'CustomLog "|rotatelogs /var/log/x 86400" common\n',
            'CustomLog "|$rotatelogs /var/log/x 86400" common\n',
            id="relative-program",
        ),
        pytest.param(
            'ErrorLog "|/usr/bin/logger -t httpd 2>/dev/null"\n',
            'ErrorLog "|$/usr/bin/logger -t httpd 2>/dev/null"\n',
            id="redirection",
        ),
        pytest.param(
            "TransferLog '|/usr/bin/tee -a $HOME/x'\n",
            "TransferLog '|$/usr/bin/tee -a $HOME/x'\n",
            id="variable-single-quotes",
        ),
        pytest.param(
            '<VirtualHost *:80>\n  CustomLog "|/bin/cat >> /tmp/log" "%h %r"\n</VirtualHost>\n',
            '<VirtualHost *:80>\n  CustomLog "|$/bin/cat >> /tmp/log" "%h %r"\n</VirtualHost>\n',
            id="vhost-format-string-kept",
        ),
        pytest.param('ForensicLog "|cat"\n', 'ForensicLog "|$cat"\n', id="forensiclog"),
        pytest.param(
            'ErrorLog "|/usr/bin/logger -t \\"web server\\""\n',
            'ErrorLog "|$/usr/bin/logger -t \\"web server\\""\n',
            id="quotes-in-command",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT202") == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # 2.2 substituted ${VAR} before the shell ran, as 2.4 does: the shell syntax outside it decides.
        pytest.param(
            'CustomLog "|rotatelogs ${HUNTDIR}/logs/access.%Y%m%d 86400" common\n',
            'CustomLog "|$rotatelogs ${HUNTDIR}/logs/access.%Y%m%d 86400" common\n',
            id="relative-program",
        ),
        pytest.param(
            'ErrorLog "|cat >> ${HUNTDIR}/logs/err.log"\n',
            'ErrorLog "|$cat >> ${HUNTDIR}/logs/err.log"\n',
            id="redirection",
        ),
        pytest.param(
            'ErrorLog "|${BIN}/logger -t httpd 2>&1"\n',
            'ErrorLog "|$${BIN}/logger -t httpd 2>&1"\n',
            id="variable-program-but-shell-syntax",
        ),
        pytest.param(
            'Define ROT rotatelogs\nCustomLog "|${ROT} /var/log/x 86400" common\n',
            'Define ROT rotatelogs\nCustomLog "|$${ROT} /var/log/x 86400" common\n',
            id="defined-variable-relative-program",
        ),
    ],
)
def test_fix_with_a_variable(before, after):
    assert fixed(before, "HT202") == after


def test_variable_program_needs_a_person():
    """Whether `|${ROT} x 5` needs a shell depends on the value (an absolute path or not): a person checks."""
    [finding] = findings('ErrorLog "|${ROT} /var/log/x 5"\n', "HT202")
    assert finding.fix is None
    assert "${ROT}" in finding.message and "check" in finding.message


def test_finding_says_why_and_is_preserve():
    [finding] = findings('CustomLog "|rotatelogs /x 5" common\n', "HT202")
    assert "not an absolute path" in finding.message
    assert finding.fix.applicability == Applicability.PRESERVE
    assert finding.replacement == 'CustomLog "|$rotatelogs /x 5" common'


def test_safe_only_migration_leaves_it():
    assert fixed('ErrorLog "|rotatelogs x 5"\n', "HT202", applicability=Applicability.SAFE) == 'ErrorLog "|rotatelogs x 5"\n'


@pytest.mark.apache
def test_real_httpd_runs_pipe_without_shell_and_fix_restores_it(httpd, tmp_path):
    """2.4 runs "|cmd" without a shell: `cat >> file` cannot even start; "|$cmd" logs."""
    import time

    from httpd24.apache import HttpdError, Instance

    out = tmp_path / "piped.log"
    original = f'CustomLog "|cat >> {out}" "%r"\n'  # relative program and a redirection: needs sh
    [finding] = findings(original, "HT202")
    assert finding.severity.value == "error"
    migrated = fixed(original, "HT202")
    assert migrated == f'CustomLog "|$cat >> {out}" "%r"\n'
    with pytest.raises(HttpdError, match="unable to start piped log program"):
        Instance({"site.conf": original}, "site.conf", ["log_config_module"], httpd=httpd).start()
    with Instance({"site.conf": migrated}, "site.conf", ["log_config_module"], httpd=httpd) as srv:
        srv.request("/migrated")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (out.exists() and "migrated" in out.read_text()):
            time.sleep(0.05)
    assert "GET /migrated HTTP/1.1" in out.read_text()


@pytest.mark.apache
def test_real_httpd_passes_shell_syntax_as_arguments(httpd, tmp_path):
    """An absolute program with a redirection starts, but `>>` and the file become arguments of cat."""
    import time

    from httpd24.apache import Instance

    out = tmp_path / "redirected.log"
    original = f'CustomLog "|/bin/cat >> {out}" "%r"\n'
    [finding] = findings(original, "HT202")
    assert finding.severity.value == "warning"
    with Instance({"site.conf": original}, "site.conf", ["log_config_module"], httpd=httpd) as srv:
        srv.request("/original")
        time.sleep(0.5)
    assert not out.exists()
    with Instance({"site.conf": fixed(original, "HT202")}, "site.conf", ["log_config_module"], httpd=httpd) as srv:
        srv.request("/migrated")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not out.exists():
            time.sleep(0.05)
        time.sleep(0.2)
    assert "GET /migrated HTTP/1.1" in out.read_text()


@pytest.mark.apache
def test_real_httpd_plain_absolute_command_needs_no_shell(httpd, tmp_path):
    """The case the rule leaves alone: an absolute program with plain words logs on 2.4 as written."""
    import time

    from httpd24.apache import Instance

    out = tmp_path / "plain.log"
    text = f'CustomLog "|/usr/bin/tee -a {out}" "%r"\n'
    assert findings(text, "HT202") == []
    with Instance({"site.conf": text}, "site.conf", ["log_config_module"], httpd=httpd) as srv:
        srv.request("/plain")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (out.exists() and "plain" in out.read_text()):
            time.sleep(0.05)
    assert "GET /plain HTTP/1.1" in out.read_text()


@pytest.mark.apache
def test_real_httpd_needs_the_shell_for_a_pipe_with_a_variable(httpd, tmp_path):
    """`|cat >> ${LOGDIR}/err.log` (LOGDIR defined outside the linted file): 2.4 cannot start it without a
    shell (AH00089); the fix's "|$" runs it through sh as 2.2 did, with the variable substituted."""
    from httpd24.apache import HttpdError, Instance

    original = 'ErrorLog "|cat >> ${LOGDIR}/err.log"\n'
    migrated = fixed(original, "HT202")
    assert migrated == 'ErrorLog "|$cat >> ${LOGDIR}/err.log"\n'
    extra = f"Define LOGDIR {tmp_path}"
    with pytest.raises(HttpdError, match="AH00089|unable to start piped log program"):
        Instance({"site.conf": original}, "site.conf", [], httpd=httpd, extra=extra).start()
    with Instance({"site.conf": migrated}, "site.conf", [], httpd=httpd, extra=extra):
        pass
    assert (tmp_path / "err.log").exists()

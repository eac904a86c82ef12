"""Piped logs: 2.2 ran ``"|command"`` through ``/bin/sh -c``, 2.4 runs it directly."""

from __future__ import annotations

import re

from ..config import edit
from ..engine import Applicability, Rule, Severity, register

#: Directives whose file argument may be a pipe, with the index of that argument.
#: (ForensicLog also goes through ap_open_piped_log; GlobalLog is 2.4-only, so a
#: configuration holding it was written for 2.4's semantics already.)
_PIPED = {"errorlog": 0, "customlog": 0, "transferlog": 0, "forensiclog": 0}

#: Characters after which ``sh -c`` and a direct exec read a command differently.
_SHELL_SYNTAX = re.compile(r"""[^A-Za-z0-9_@%+=:,./\- \t]""")
#: A ``${VAR}`` the configuration does not define (httpd resolves it from the environment at start-up).
_VARIABLE = re.compile(r"\$\{[^}]*\}")


def needs_shell(command: str) -> str | None:
    """Why ``sh -c command`` differs from httpd 2.4's direct exec, or None if it does not.

    httpd 2.4 (APR_PROGRAM_ENV) splits the command at whitespace and calls
    ``execv``: no PATH search, no quoting, no variables, globs, redirections,
    pipes or ``;``. A command whose program is an absolute path and whose words
    hold only plain characters runs the same either way.
    """
    words = command.split()
    if not words:
        return "the command is empty"
    match = _SHELL_SYNTAX.search(command)
    if match:
        return f"it uses shell syntax ({match.group(0)!r})"
    if not words[0].startswith("/"):
        return f"'{words[0]}' is not an absolute path (2.4 does not search PATH)"
    if "=" in words[0]:
        return "it starts with a variable assignment"
    return None


@register
class PipedLogShell(Rule):
    """
    ## What it does
    Finds piped logs written `"|command"` (ErrorLog, CustomLog, TransferLog,
    ForensicLog) whose command relies on the shell: shell syntax (quotes,
    `$VAR`, `~`, `*`, `;`, `&&`, `>`, `2>&1`, backquotes ...) or a program
    named without an absolute path.

    ## Why is this bad?
    httpd 2.2 started a piped logger through `/bin/sh -c "command"`. 2.4
    splits the command at whitespace and executes the program directly,
    without a shell and without searching `PATH` (research notes §3.5,
    `server/log.c`). A command such as `|rotatelogs /var/log/x 86400` or
    `|/usr/bin/logger -t "web server"` then fails to start or gets other
    arguments, and the log is lost. `"|$command"` asks 2.4 for the shell; it
    was accepted (and ignored) by 2.2.12 and later, and `"||command"` meant
    "no shell" already in 2.2.

    A command whose program is an absolute path and which uses no shell syntax
    behaves the same either way and is not reported: keeping it as it is saves
    a shell process per logger.

    `${VAR}` is substituted before the command is read, by 2.2 as by 2.4
    (research notes §3.7). A variable the configuration does not define (an
    environment variable) is judged by the text around it: `"|rotatelogs
    ${LOGDIR}/x 86400"` still needs the shell. Only a program named by such
    a variable (`"|${ROTATELOGS} /x 86400"`) depends on its value; that is
    reported for a person to check, without a fix.

    Severity: error when the program is not an absolute path (2.4 cannot
    start it and refuses to start: AH00104 "unable to start piped log
    program", AH00015 "Unable to open logs"); warning otherwise (2.4 starts,
    but the logger gets the shell syntax as arguments).

    ## Example
    ```apache
    CustomLog "|rotatelogs /var/log/apache2/access.%Y%m%d 86400" combined
    ErrorLog "|/usr/bin/logger -t httpd 2>/dev/null"
    ```

    ## Use instead
    ```apache
    CustomLog "|$rotatelogs /var/log/apache2/access.%Y%m%d 86400" combined
    ErrorLog "|$/usr/bin/logger -t httpd 2>/dev/null"
    ```

    ## Fix safety
    Preserve: `|$` writes out 2.2's shell explicitly, so the command line is
    read exactly as 2.2 read it. Rewriting the command for a direct exec
    (absolute program path, no shell syntax) is a person's choice.
    """

    code = "HT202"
    about_22_behaviour = True
    name = "piped-log-shell-command"
    severity = Severity.ERROR
    summary = 'Piped log "|cmd" runs without a shell in 2.4'
    fix_availability = "always"
    directives = tuple(_PIPED)

    def check(self, ctx, item):
        node = item.node
        index = _PIPED[item.key]
        if len(item.args) <= index or len(node.args) <= index:
            return
        # ${VAR} is substituted before httpd (2.2 as 2.4) looks at the command: judge the value where the
        # configuration defines it, and the text around a variable it does not define.
        target = item.args[index]
        if not target.startswith("|") or target.startswith("||"):
            return
        command = target[1:]
        if command.startswith("$") and not _VARIABLE.match(command):
            return  # "|$cmd": the shell already
        plain = _VARIABLE.sub("x", command)
        if command.split() and command.split()[0].startswith("${") and not _SHELL_SYNTAX.search(plain):
            yield from self._undecided(item, command)
            return
        why = needs_shell(plain)
        if why is None:
            return
        # A program 2.4 cannot find makes it refuse to start (AH00104, AH00015 "Unable to open logs").
        severity = Severity.ERROR if not plain.split() or not plain.split()[0].startswith("/") else Severity.WARNING
        new_args = list(node.args)
        new_args[index] = "|$" + node.args[index][1:]
        yield self.finding(
            item,
            f'{node.name} pipes to a command that needs a shell ({why}): 2.4 runs "|cmd" without one;'
            f' write "|$cmd" to keep 2.2\'s /bin/sh -c',
            replacement=f"{node.name} " + " ".join(edit.quote(a) for a in new_args),
            fix=self.fix(
                'run the piped logger through the shell ("|$")',
                Applicability.PRESERVE,
                lambda: edit.set_args(node, new_args),
                node,
            ),
            severity=severity,
        )

    def _undecided(self, item, command: str):
        """The program is a variable the configuration does not define: its value decides."""
        node = item.node
        index = _PIPED[item.key]
        new_args = list(node.args)
        new_args[index] = "|$" + node.args[index][1:]
        variable = _VARIABLE.match(command).group(0)
        yield self.finding(
            item,
            f"{node.name} pipes to a program named by {variable}: whether 2.4 can run it without a shell depends"
            f" on its value (2.2 ran it through /bin/sh -c); check it: an absolute path runs the same, anything"
            f' else needs "|$cmd"',
            replacement=f"{node.name} " + " ".join(edit.quote(a) for a in new_args),
            severity=Severity.WARNING,
        )

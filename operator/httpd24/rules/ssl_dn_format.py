"""``*_DN`` SSL variables: 2.4 writes them in RFC 2253 form unless LegacyDNStringFormat is set."""

from __future__ import annotations

import re

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import loaded_before, scope_of

#: The variables as 2.4's mod_ssl reads them: any case but for the S/I letter (``*var == 'S'``), so
#: ``ssl_client_s_dn`` is no variable in 2.4 (HT221). Not part of a longer name, nor a request header
#: (``%{HTTP:...}``).
_DN = re.compile(r"(?<![A-Za-z0-9_])(?<!(?i:HTTP):)(?i:SSL_(?:CLIENT|SERVER)_)[SI](?i:_DN)(?![A-Za-z0-9_])")
_LINE = "SSLOptions +LegacyDNStringFormat"
#: Directives where the DN decides who gets in.
_ACCESS = frozenset({"sslrequire", "rewritecond", "sslusername", "require", "setenvif", "setenvifexpr"})


def _legacy_words(item) -> bool | None:
    """True/False when this SSLOptions line sets/clears LegacyDNStringFormat, None when silent."""
    state = None
    for word in item.args:
        sign, name = (word[0], word[1:]) if word[:1] in "+-" else ("", word)
        if name.lower() == "legacydnstringformat":
            state = sign != "-"
    if state is None and item.args and all(w[:1] not in "+-" for w in item.args):
        return False  # an absolute list without it resets the option
    return state


@register
class SSLDNVariableFormat(Rule):
    """
    ## What it does
    Finds directives that use the whole-DN SSL variables `SSL_CLIENT_S_DN`,
    `SSL_CLIENT_I_DN`, `SSL_SERVER_S_DN` or `SSL_SERVER_I_DN` (in
    `SSLRequire`, `RewriteCond %{SSL:...}`, `SSLUserName`, `Header`,
    `RequestHeader`, `LogFormat`/`CustomLog` `%{...}x`, ...) where
    `SSLOptions +LegacyDNStringFormat` is not in force.

    ## Why is this bad?
    mod_ssl 2.2 formatted these variables with OpenSSL's old one-line form
    (`/C=DE/O=Example/CN=Jane`); 2.4 uses the RFC 2253 form
    (`CN=Jane,O=Example,C=DE`). A comparison with the old string no longer
    matches: `SSLRequire` and `RewriteCond` rules deny (or allow) other
    clients, `SSLUserName` gives other user names (so `Require user` and
    group files stop matching), and logs and backend headers change. The
    per-component variables (`SSL_CLIENT_S_DN_CN` ...) are unchanged.

    ## Example
    ```apache
    <Location /admin>
        SSLRequire %{SSL_CLIENT_S_DN} eq "/C=DE/O=Example/CN=Jane"
    </Location>
    ```

    ## Use instead
    ```apache
    <Location /admin>
        SSLOptions +LegacyDNStringFormat
        SSLRequire %{SSL_CLIENT_S_DN} eq "/C=DE/O=Example/CN=Jane"
    </Location>
    ```

    ## Fix safety
    Preserve: `+LegacyDNStringFormat` writes out 2.2's format. The option is
    per directory, so the fix adds it just before the first use in each
    section (a relative `+` keeps the other options of enclosing sections).
    When mod_ssl is loaded only after the use, no fix is offered. Scripts
    that read these variables through `SSLOptions +StdEnvVars` see the new
    format too; the configuration cannot show that, and this rule does not
    report it.

    Each use is reported at its line; the fix adds the option once per
    section. Names count as 2.4 reads them: in any case but for the S/I
    letter, which 2.4's mod_ssl compares case-sensitively (2.2's did not), so
    `%{ssl_client_s_dn}` is empty in 2.4 whatever the option says: HT221
    reports it. `%{HTTP:SSL_CLIENT_S_DN}` is a request header.

    Severity: error where the variable decides access (`SSLRequire`,
    `RewriteCond`, `SSLUserName`, `Require`, `SetEnvIf`), warning elsewhere.
    """

    code = "HT207"
    about_22_behaviour = True
    name = "ssl-dn-variable-format"
    severity = Severity.ERROR
    summary = "*_DN SSL variables use RFC 2253 format in 2.4 unless LegacyDNStringFormat is set"
    fix_availability = "sometimes"

    def check_config(self, ctx):
        # The LegacyDNStringFormat state set in each scope, in reading order.
        settings: list[tuple[tuple, bool]] = []
        for item in ctx.items("ssloptions"):
            state = _legacy_words(item)
            if state is not None:
                settings.append((tuple(id(s) for s in scope_of(item)), state))
        fixes: dict[tuple, object] = {}  # one fix per scope, shared by the findings of its uses
        for item in ctx.live_items():
            if item.key == "ssloptions":
                continue
            raw = item.node.raw
            if "${" not in raw and _DN.search(raw) is None:  # one search per line, not per argument
                continue
            names = list(dict.fromkeys(m.group(0) for a in item.args for m in _DN.finditer(a)))
            if not names:
                continue
            scope = tuple(id(s) for s in scope_of(item))
            state = False
            for where, value in settings:  # outer scopes first is approximated by reading order
                if scope[: len(where)] == where:
                    state = value
            if state:
                continue
            node = item.node
            severity = Severity.ERROR if item.key in _ACCESS else Severity.WARNING
            message = (
                f"{node.name} uses {' and '.join(names)}, whose format changed in 2.4"
                " (RFC 2253 'CN=..,O=..' instead of '/O=../CN=..'); "
            )
            if not loaded_before(ctx, "ssl_module", item):
                yield self.finding(
                    item,
                    message + f"add `{_LINE}` where mod_ssl is loaded, or compare with the new format",
                    severity=severity,
                )
                continue
            if scope not in fixes:
                fixes[scope] = self.fix(
                    "keep 2.2's DN string format", Applicability.PRESERVE,
                    lambda node=node: edit.insert_before(node, _LINE), node,
                )
            yield self.finding(
                item,
                message + f"`{_LINE}` keeps 2.2's",
                replacement=_LINE,
                fix=fixes[scope],
                severity=severity,
            )

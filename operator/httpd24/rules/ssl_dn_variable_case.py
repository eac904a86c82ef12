"""DN variables whose S or I is written in lower case: 2.2's mod_ssl found them, 2.4's does not."""

from __future__ import annotations

import re

from ..config import edit
from ..engine import Applicability, Rule, Severity, register

#: A DN variable as 2.2 read it: every letter in any case (``strcEQ(var, "S_DN")``, strcasecmp). 2.4 tests
#: the S/I letter with ``*var == 'S'``, so only that letter must be upper case; the rest of the name is
#: still read in any case, and a component (``_CN``, ``_Email``) was compared case-sensitively by both.
_NAME = r"(?i:SSL_(?:CLIENT|SERVER)_)[SIsi](?i:_DN)(?:_[A-Za-z]+(?:_[0-9]+)?)?"
#: Where a name reaches mod_ssl's lookup as written: ``%{NAME}s`` (mod_headers), ``%{NAME}x`` (mod_log_config),
#: ``%{SSL:NAME}`` (mod_rewrite); in SSLRequire ``%{NAME}``; SSLUserName's argument. (``%{NAME}e`` reads the
#: environment, whose names httpd compares in any case.)
_IN_TEXT = re.compile(r"%\{(?:(?i:SSL):)?(" + _NAME + r")\}")
_WHOLE = re.compile(_NAME)
#: Directives where a ``%{NAME}`` without a letter after it is mod_ssl's variable.
_EXPRESSION = frozenset({"sslrequire"})
#: Directives where the name decides who gets in or where a request goes.
_ACCESS = frozenset({"sslrequire", "sslusername", "rewritecond", "rewriterule"})


def _lower_names(item) -> list[tuple[int, int, int]]:
    """(argument index, start, end) of each DN variable name with a lower-case S/I letter."""
    if item.key == "sslusername":
        name = item.args[0] if item.args else ""
        return [(0, 0, len(name))] if _WHOLE.fullmatch(name) and _letter_is_lower(name) else []
    found = []
    for index, arg in enumerate(item.args):
        for match in _IN_TEXT.finditer(arg):
            after = arg[match.end():match.end() + 1]
            looked_up = (match.group(0)[2:6].lower() == "ssl:" or after in ("s", "x")
                         or (item.key in _EXPRESSION and not after.isalpha()))
            if looked_up and _letter_is_lower(match.group(1)):
                found.append((index, match.start(1), match.end(1)))
    return found


def _letter_is_lower(name: str) -> bool:
    return name[len("SSL_CLIENT_")].islower()  # CLIENT and SERVER have the same length


def _as_2_4_reads(name: str) -> str:
    """The name with its ``SSL_..._X_DN`` part in upper case; a component stays as written."""
    prefix = len("SSL_CLIENT_S_DN")
    return name[:prefix].upper() + name[prefix:]


@register
class SSLDNVariableCase(Rule):
    """
    ## What it does
    Finds the DN variables of mod_ssl (`SSL_CLIENT_S_DN`, `SSL_SERVER_I_DN_CN`, ...) written with a
    lower-case `s` or `i` where mod_ssl looks them up: `%{...}s` in `Header`/`RequestHeader`,
    `%{...}x` in `LogFormat`/`CustomLog`, `%{SSL:...}` in `RewriteCond`/`RewriteRule`, `%{...}` in
    `SSLRequire`, and `SSLUserName`.

    ## Why is this bad?
    2.2's mod_ssl compared the whole name in any case, so `%{ssl_client_s_dn_cn}` worked. 2.4's tests
    the letter after `CLIENT_`/`SERVER_` case-sensitively: the variable is empty. An `SSLRequire`
    refuses every client, `SSLUserName` sets no user, a `RewriteCond` stops matching, headers say
    `(null)` and logs `-`. The rest of the name may still be written in any case; a component
    (`_CN`, `_Email`) was compared case-sensitively by both versions.

    ## Example
    ```apache
    <Location /admin>
        SSLRequire %{ssl_client_s_dn_CN} eq "Jane"
    </Location>
    ```

    ## Use instead
    ```apache
    <Location /admin>
        SSLRequire %{SSL_CLIENT_S_DN_CN} eq "Jane"
    </Location>
    ```

    ## Fix safety
    Safe: the name is written as 2.4 reads it (its `SSL_..._S_DN` part in upper case), which names
    the variable 2.2 read. The whole-DN variables then change format (HT207), which the next pass
    of `migrate` reports and keeps as 2.2 wrote them.

    Severity: error where the variable decides access or routing (`SSLRequire`, `SSLUserName`,
    `RewriteCond`, `RewriteRule`), warning in headers and logs.
    """

    code = "HT221"
    name = "ssl-dn-variable-case"
    severity = Severity.ERROR
    summary = "A DN variable with a lower-case S or I (%{ssl_client_s_dn}) is empty in 2.4"
    directives = ("header", "requestheader", "logformat", "customlog", "rewritecond", "rewriterule",
                  "sslrequire", "sslusername")
    fix_availability = "always"
    about_22_behaviour = True

    def check(self, ctx, item):
        found = _lower_names(item)
        if not found:
            return
        args = list(item.args)
        names = list(dict.fromkeys(args[index][start:end] for index, start, end in found))
        for index, start, end in reversed(found):  # right to left: earlier offsets stay valid
            arg = args[index]
            args[index] = arg[:start] + _as_2_4_reads(arg[start:end]) + arg[end:]
        written = ", ".join(_as_2_4_reads(n) for n in names)
        node = item.node
        yield self.finding(
            item,
            f"{node.name} uses {', '.join(names)}, which is empty in 2.4: 2.4's mod_ssl reads the S/I letter of "
            f"a DN variable case-sensitively (2.2 read any case); write {written}",
            replacement=f"{node.name} {' '.join(edit.quote(a) for a in args)}",
            fix=self.fix(f"write {written}", Applicability.SAFE, lambda: edit.set_args(node, args), node),
            severity=Severity.ERROR if item.key in _ACCESS else Severity.WARNING,
        )

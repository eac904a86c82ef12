"""SSLProtocol / SSLProxyProtocol naming SSLv2, which 2.4 no longer supports."""

from __future__ import annotations

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import unresolved

_DIRECTIVES = ("sslprotocol", "sslproxyprotocol")


def _split(word: str) -> tuple[str, str]:
    if word[:1] in ("+", "-"):
        return word[0], word[1:]
    return "", word


class _EnablesProtocol(Rule):
    protocol: str
    why: str
    fix_availability = "sometimes"
    directives = _DIRECTIVES

    def check(self, ctx, item):
        node = item.node
        if unresolved(item):
            return
        gone = self.protocol.lower()
        words = [_split(w) for w in node.args]
        if not any(p in ("", "+") and v.lower() == gone for p, v in words):
            return
        # A bare word resets the set (in 2.2 and 2.4): only what follows the last one counts.
        start = max((i for i, (p, _) in enumerate(words) if p == ""), default=0)
        if words[start][1].lower() != gone:
            start = 0  # keep the line as written: the words before the reset were there in 2.2 too
        pairs = list(zip(node.args, words))[start:]
        keep = [a for a, (p, v) in pairs if v.lower() != gone]
        enabling = [(p, v) for _, (p, v) in pairs if v.lower() != gone and p != "-"]
        message = f"{node.name} enables {self.protocol}: {self.why}"
        if not enabling:
            yield self.finding(
                item,
                message + "; the line enables no other protocol, so choose what 2.4 should offer"
                " (for example `all -SSLv3`)",
            )
            return
        yield self.finding(
            item,
            message + f"; remove {self.protocol} from the list",
            replacement=f"{node.name} " + " ".join(keep),
            fix=self.fix(
                f"remove {self.protocol}", Applicability.PRESERVE, lambda: edit.set_args(node, keep), node
            ),
        )


@register
class SSLProtocolSSLv2(_EnablesProtocol):
    """
    ## What it does
    Finds `SSLProtocol` and `SSLProxyProtocol` lines that enable SSLv2
    (`SSLv2` or `+SSLv2`).

    ## Why is this bad?
    mod_ssl 2.4 dropped SSLv2 and refuses to start: "SSLProtocol: SSLv2 is no
    longer supported" (`ssl_engine_config.c`). Current OpenSSL cannot speak
    SSLv2 either, so no 2.4 server can offer it.

    ## Example
    ```apache
    SSLProtocol +SSLv2 +TLSv1
    ```

    ## Use instead
    ```apache
    SSLProtocol +TLSv1
    ```

    ## Fix safety
    Preserve: the fix removes the SSLv2 word and keeps every other protocol
    of the line, i.e. everything of the 2.2 setting that 2.4 can still offer
    (a bare `SSLv2` reset the list, so what came before it goes too). SSLv2
    clients (there are none left in practice) can no longer connect, which is
    true of any 2.4 configuration. A line that enables nothing but SSLv2 has
    no 2.4 equivalent and is left to a person.
    """

    code = "HT203"
    name = "ssl-protocol-sslv2"
    severity = Severity.ERROR
    summary = "SSLProtocol enables SSLv2, which 2.4 refuses"
    protocol = "SSLv2"
    why = '2.4 refuses to start ("SSLv2 is no longer supported")'


@register
class SSLProtocolSSLv3(_EnablesProtocol):
    """
    ## What it does
    Finds `SSLProtocol` and `SSLProxyProtocol` lines that enable SSLv3
    (`SSLv3` or `+SSLv3`).

    ## Why is this bad?
    httpd 2.4 itself still knows SSLv3, but it refuses to start when the
    OpenSSL it is linked with was built without it: "SSLv3 not supported by
    this version of OpenSSL". OpenSSL 1.1.0 and later leave SSLv3 out by
    default, so the 2.4 builds of current distributions and the official
    `httpd:2.4` image all stop at such a line. (2.4.17 and later also leave
    SSLv3 out of the default protocol list.)

    ## Example
    ```apache
    SSLProtocol +SSLv3 +TLSv1
    ```

    ## Use instead
    ```apache
    SSLProtocol +TLSv1
    ```

    ## Fix safety
    Preserve: like HT203, the fix keeps every other protocol of the line,
    which is all a current 2.4 build can offer of it. A line that enables
    nothing but SSLv3 (and SSLv2) is left to a person.
    """

    code = "HT219"
    name = "ssl-protocol-sslv3"
    severity = Severity.ERROR
    summary = "SSLProtocol enables SSLv3, which current OpenSSL builds lack"
    protocol = "SSLv3"
    why = '2.4 built with OpenSSL 1.1 or later refuses to start ("SSLv3 not supported by this version of OpenSSL")'


@register
class SSLProtocolMinusSSLv2(Rule):
    """
    ## What it does
    Finds `-SSLv2` in `SSLProtocol` and `SSLProxyProtocol`.

    ## Why is this bad?
    It is harmless: mod_ssl 2.4 skips `-SSLv2` silently because SSLv2 cannot
    be enabled at all. The word only documents something that is no longer
    true.

    ## Example
    ```apache
    SSLProtocol all -SSLv2
    ```

    ## Use instead
    ```apache
    SSLProtocol all
    ```

    ## Fix safety
    Safe: 2.4 ignores the word, so removing it changes nothing. A line made
    only of `-SSLv2` is left alone.
    """

    code = "HT204"
    about_22_behaviour = True
    name = "ssl-protocol-minus-sslv2"
    severity = Severity.INFO
    summary = "-SSLv2 is ignored by 2.4's SSLProtocol"
    fix_availability = "sometimes"
    directives = _DIRECTIVES

    def check(self, ctx, item):
        node = item.node
        if unresolved(item):
            return
        words = [_split(w) for w in node.args]
        if not any(p == "-" and v.lower() == "sslv2" for p, v in words):
            return
        if any(p in ("", "+") and v.lower() == "sslv2" for p, v in words):
            return  # HT203 rewrites the line
        keep = [a for a, (p, v) in zip(node.args, words) if not (p == "-" and v.lower() == "sslv2")]
        if not keep:
            yield self.finding(item, f"{node.name} -SSLv2 has no effect in 2.4 (SSLv2 does not exist there)")
            return
        yield self.finding(
            item,
            f"{node.name}: -SSLv2 has no effect in 2.4 (SSLv2 does not exist there); it can go",
            replacement=f"{node.name} " + " ".join(keep),
            fix=self.fix("remove -SSLv2", Applicability.SAFE, lambda: edit.set_args(node, keep), node),
        )

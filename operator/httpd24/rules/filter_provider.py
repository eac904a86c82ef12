"""FilterProvider: 2.2's ``dispatch match`` pair becomes one ap_expr expression in 2.4.

The conversion follows 2.2.34's ``mod_filter.c`` (``filter_provider`` and
``filter_lookup``, research notes §3.4) word for word:

* dispatch: ``env=NAME`` (``r->subprocess_env``), ``req=NAME`` (request
  header), ``resp=NAME`` (response header, ``headers_out`` then
  ``err_headers_out``), ``handler`` (``r->handler``), any other word a response
  header; ``Content-Type`` (bare or ``resp=``) is ``r->content_type``;
* match: optional ``!``; ``<N <=N >N >=N =N`` integer compares of ``atoi()``
  values; ``/re/flags`` a regex up to the last ``/`` (only flag ``i`` counts);
  ``*`` "defined"; ``$str`` case-insensitive substring; anything else a
  case-insensitive exact match (``strcasecmp``);
* a missing value makes the match false (so a negated rule matches).

2.4 reads an absent value as the empty string, so an expression reproduces
"missing makes it false" by itself whenever the match cannot succeed on an
empty string; otherwise it must test that the value is there, which ap_expr can
do only as "not empty" (``-n``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..config import edit
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import unresolved

#: Regex delimiters ap_expr accepts after ``m`` (a plain ``/`` needs no ``m``).
_DELIMITERS = "/#|!,;:_%^?-.'"
#: Characters that are special in a PCRE outside a class.
_REGEX_SPECIAL = set("\\.^$|?*+()[]{}")
#: Names that ap_expr's %{func:NAME} reads literally (no '}', no escapes, no $N or %{).
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.:\-!#&'*+^`|~]+$")

_INT_OPS = {"<": "-lt", "<=": "-le", ">": "-gt", ">=": "-ge", "=": "-eq"}
_INT_NEGATED = {"-lt": "-ge", "-le": "-gt", "-gt": "-le", "-ge": "-lt", "-eq": "-ne"}
_INT_TEST = {
    "-lt": lambda a, b: a < b,
    "-le": lambda a, b: a <= b,
    "-gt": lambda a, b: a > b,
    "-ge": lambda a, b: a >= b,
    "-eq": lambda a, b: a == b,
}


class Unconvertible(ValueError):
    """The 2.2 line cannot be converted; the text says why."""


@dataclass(frozen=True)
class Conversion:
    expression: str
    exact: bool
    caveat: str = ""


def atoi(text: str) -> int:
    """C's atoi: leading whitespace, an optional sign, digits; anything else ends it."""
    m = re.match(r"[ \t\n\v\f\r]*([+-]?)(\d*)", text)
    assert m is not None
    digits = m.group(2)
    if not digits:
        return 0
    value = int(digits)
    return -value if m.group(1) == "-" else value


def escape_regex(text: str) -> str:
    return "".join("\\" + c if c in _REGEX_SPECIAL else c for c in text)


def regex_literal(pattern: str, icase: bool) -> str:
    """``/pattern/`` or ``m#pattern#`` with a delimiter the pattern does not hold (ap_expr has no escape for it)."""
    for delimiter in _DELIMITERS:
        if delimiter not in pattern:
            prefix = "" if delimiter == "/" else "m"
            return f"{prefix}{delimiter}{pattern}{delimiter}{'i' if icase else ''}"
    raise Unconvertible("the regular expression holds every delimiter ap_expr accepts")


def _matches_empty(pattern: str, icase: bool) -> bool:
    """Whether the regex matches the empty string (unknown -> True, the cautious answer)."""
    try:
        return re.search(pattern, "", re.I if icase else 0) is not None
    except re.error:
        return True


def dispatch_variable(condition: str) -> tuple[str, bool]:
    """The ap_expr word for a 2.2 dispatch, and whether "defined" equals "non-empty" for it."""
    if "=" in condition:
        kind, _, name = condition.partition("=")
        kind = kind.lower()
        if kind not in ("env", "req", "resp"):
            raise Unconvertible(f"'{condition}' is no dispatch 2.2 knew (it refused it too: unrecognized dispatch table)")
    else:
        kind, name = ("handler", "") if condition.lower() == "handler" else ("resp", condition)
    if kind == "resp" and name.lower() == "content-type":
        return "%{CONTENT_TYPE}", True
    if kind == "handler":
        return "%{HANDLER}", True
    if not name:
        raise Unconvertible(f"'{condition}' names no variable or header")
    if not _SAFE_NAME.match(name):
        raise Unconvertible(f"the name '{name}' cannot be written inside %{{...}}")
    function = {"env": "reqenv", "req": "req_novary", "resp": "resp"}[kind]
    return f"%{{{function}:{name}}}", False


def convert(condition: str, match: str) -> Conversion:
    """The 2.4 expression for ``FilterProvider f p condition match`` (2.2)."""
    variable, defined_is_nonempty = dispatch_variable(condition)
    negate = match.startswith("!")
    rest = match[1:] if negate else match
    head, body = rest[:1], rest[1:]

    test: str | None  # the comparison, None for "defined"
    negated_test: str | None
    if head in ("<", ">"):
        op = head
        if body.startswith("="):
            op, body = op + "=", body[1:]
        op = _INT_OPS[op]
        number = atoi(body)
        test, negated_test = f"{variable} {op} {number}", f"{variable} {_INT_NEGATED[op]} {number}"
        empty_matches = _INT_TEST[op](0, number)
    elif head == "=":
        number = atoi(body)
        test, negated_test = f"{variable} -eq {number}", f"{variable} -ne {number}"
        empty_matches = number == 0
    elif head == "/":
        end = body.rfind("/")
        if end < 0:
            raise Unconvertible(f"'{match}' is a regex without its closing '/' (2.2 refused it too: Bad regexp syntax)")
        pattern, flags = body[:end], body[end + 1 :]
        icase = "i" in flags
        literal = regex_literal(pattern, icase)
        test, negated_test = f"{variable} =~ {literal}", f"{variable} !~ {literal}"
        empty_matches = _matches_empty(pattern, icase)
    elif head == "*":
        test = negated_test = None
        empty_matches = True
    elif head == "$":
        if body:
            literal = regex_literal(escape_regex(body), True)
            test, negated_test = f"{variable} =~ {literal}", f"{variable} !~ {literal}"
            empty_matches = False
        else:
            test = negated_test = None  # contains "": any value matches
            empty_matches = True
    else:
        if not rest:
            raise Unconvertible("the match is empty")
        literal = regex_literal("^" + escape_regex(rest) + "$", True)
        test, negated_test = f"{variable} =~ {literal}", f"{variable} !~ {literal}"
        empty_matches = False

    if not empty_matches:
        # An absent value reads as "" in 2.4 and the test fails on "", as 2.2's "missing -> false" did.
        return Conversion(negated_test if negate else test, True)  # type: ignore[arg-type]
    exact = defined_is_nonempty
    caveat = "" if exact else (
        f"2.2 also matched a {'variable' if condition.lower().startswith('env=') else 'header'} that is present"
        " but empty; ap_expr cannot tell that from an absent one"
    )
    if negate:
        expression = f"-z {variable}" if negated_test is None else f"-z {variable} || {negated_test}"
    else:
        expression = f"-n {variable}" if test is None else f"-n {variable} && {test}"
    return Conversion(expression, exact, caveat)


@register
class FilterProviderSyntax(Rule):
    """
    ## What it does
    Finds `FilterProvider` lines in the 2.2 form `FilterProvider filter
    provider dispatch match` and writes the dispatch and match as the one
    ap_expr expression 2.4 takes.

    ## Why is this bad?
    2.4's FilterProvider takes three arguments, the last an expression, and
    refuses to start on the old form: "FilterProvider takes three arguments,
    filter-name provider-name match-expression".

    ## Example
    ```apache
    FilterProvider COMPRESS DEFLATE resp=Content-Type $text/html
    FilterProvider SSI INCLUDES handler server-parsed
    FilterProvider GZ DEFLATE req=Accept-Encoding !$gzip
    FilterProvider BIG DEFLATE resp=Content-Length >4096
    ```

    ## Use instead
    ```apache
    FilterProvider COMPRESS DEFLATE "%{CONTENT_TYPE} =~ m#text/html#i"
    FilterProvider SSI INCLUDES "%{HANDLER} =~ /^server-parsed$/i"
    FilterProvider GZ DEFLATE "%{req_novary:Accept-Encoding} !~ /gzip/i"
    FilterProvider BIG DEFLATE "%{resp:Content-Length} -gt 4096"
    ```

    The conversion keeps 2.2's meaning, which the 2.4 manual's own examples
    do not: 2.2 compared strings without regard to case (`$text/html` and
    plain words), so the expressions use `/.../i` (ap_expr's `=` is
    case-sensitive); `$str` is a substring, written as a regex with the
    special characters escaped; request headers are read with `req_novary`,
    because `req` would add the header to `Vary`, which 2.2 never did;
    `env=` is `reqenv` (ap_expr's `env` also looks at notes and the process
    environment). A missing value made 2.2's match false (and a `!` match
    true); 2.4 reads it as an empty string, so where a match could succeed
    on an empty string the expression also tests `-n` (or `-z` when
    negated).

    ## Fix safety
    Safe when the expression is exact. That is every form except those that
    match an empty value (`*`, `$` alone, an integer compare that holds for
    0 such as `<5`, a regex that matches "") on a header or environment
    variable: 2.2 told a present-but-empty value from an absent one, ap_expr
    cannot, and such a line gets a Preserve fix whose message says so. For
    `handler` and `Content-Type` every form is exact. Lines 2.2 itself
    refused (an unknown dispatch, a regex without its closing `/`) and names
    that cannot be written inside `%{...}` get no fix.
    """

    code = "HT201"
    name = "filter-provider-22-syntax"
    severity = Severity.ERROR
    summary = "FilterProvider takes an ap_expr expression in 2.4"
    fix_availability = "sometimes"
    directives = ("filterprovider",)

    def check(self, ctx, item):
        node = item.node
        if len(node.args) != 4:
            return  # three words: 2.4 form; anything else was refused by 2.2 as well
        fname, pname, condition, match = node.args
        base = "FilterProvider uses the 2.2 form 'dispatch match'; 2.4 takes one expression and refuses four arguments"
        if unresolved(item):
            yield self.finding(item, base + "; it holds a ${VAR}, so write the expression by hand")
            return
        try:
            conversion = convert(condition, match)
        except Unconvertible as error:
            yield self.finding(item, f"{base}; write the expression by hand: {error}")
            return
        new_args = [fname, pname, conversion.expression]
        replacement = "FilterProvider " + " ".join(edit.quote(a) for a in new_args)
        applicability = Applicability.SAFE if conversion.exact else Applicability.PRESERVE
        message = f"{base}: {conversion.expression}"
        if conversion.caveat:
            message += f" (nearly exact: {conversion.caveat})"
        yield self.finding(
            item,
            message,
            replacement=replacement,
            fix=self.fix(
                "write the dispatch and match as an ap_expr expression",
                applicability,
                lambda: edit.set_args(node, new_args),
                node,
            ),
        )

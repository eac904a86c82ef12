"""HT201: FilterProvider 2.2 -> ap_expr.

Besides the textual cases, a real 2.4 server runs every converted expression
(SUBSTITUTE applied or not) over a matrix of requests, and each answer is
compared with what 2.2's ``filter_lookup`` decides for the same inputs; the
model of 2.2 below is written from 2.2.34's ``mod_filter.c``, independently of
the rule's converter.
"""

import re

import pytest
from apache_fixture import httpd  # noqa: F401
from ruletest import findings, fixed

from httpd24.apache import Instance, configtest
from httpd24.engine import Applicability

MODULES = ["filter_module", "substitute_module", "deflate_module"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('FilterProvider F DEFLATE "%{CONTENT_TYPE} =~ m#text/html#i"\n', id="already-2.4"),
        pytest.param("<IfVersion < 2.3>\nFilterProvider F DEFLATE resp=Content-Type $text/html\n</IfVersion>\n", id="dead-ifversion"),
        pytest.param(
            "<IfModule !mod_authz_core.c>\nFilterProvider F DEFLATE resp=Content-Type $text/html\n</IfModule>\n",
            id="dead-ifmodule",
        ),
        pytest.param("# FilterProvider F DEFLATE resp=Content-Type $text/html\n", id="comment"),
        pytest.param("FilterProvider F DEFLATE a b c\n", id="five-words-refused-by-both"),
    ],
)
def test_noop(text):
    assert findings(text, "HT201") == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "FilterProvider COMPRESS DEFLATE resp=Content-Type $text/html\n",
            'FilterProvider COMPRESS DEFLATE "%{CONTENT_TYPE} =~ m#text/html#i"\n',
            id="content-type-substring",
        ),
        pytest.param(
            "FilterProvider C DEFLATE Content-Type text/html\n",
            'FilterProvider C DEFLATE "%{CONTENT_TYPE} =~ m#^text/html$#i"\n',
            id="bare-content-type-exact-case-insensitive",
        ),
        pytest.param(
            "FilterProvider SSI INCLUDES handler server-parsed\n",
            'FilterProvider SSI INCLUDES "%{HANDLER} =~ /^server-parsed$/i"\n',
            id="handler",
        ),
        pytest.param(
            "FilterProvider GZ DEFLATE req=Accept-Encoding !$gzip\n",
            'FilterProvider GZ DEFLATE "%{req_novary:Accept-Encoding} !~ /gzip/i"\n',
            id="request-header-negated-substring",
        ),
        pytest.param(
            "FilterProvider BIG DEFLATE resp=Content-Length >4096\n",
            'FilterProvider BIG DEFLATE "%{resp:Content-Length} -gt 4096"\n',
            id="int-gt",
        ),
        pytest.param(
            "FilterProvider F DEFLATE X-Mode <=3\n",
            'FilterProvider F DEFLATE "-n %{resp:X-Mode} && %{resp:X-Mode} -le 3"\n',
            id="bare-header-int-le-holds-for-zero",
        ),
        pytest.param(
            "FilterProvider F DEFLATE env=small !<100\n",
            'FilterProvider F DEFLATE "-z %{reqenv:small} || %{reqenv:small} -ge 100"\n',
            id="env-negated-int",
        ),
        pytest.param(
            "FilterProvider F DEFLATE env=big =7\n",
            'FilterProvider F DEFLATE "%{reqenv:big} -eq 7"\n',
            id="int-eq-nonzero",
        ),
        pytest.param(
            "FilterProvider F DEFLATE req=User-Agent \"/MSIE [56]/\"\n",
            'FilterProvider F DEFLATE "%{req_novary:User-Agent} =~ /MSIE [56]/"\n',
            id="regex-quoted-with-space-in-2.2-word",
        ),
        pytest.param(
            "FilterProvider F DEFLATE req=User-Agent !/^mozilla\\/4/ix\n",
            'FilterProvider F DEFLATE "%{req_novary:User-Agent} !~ m#^mozilla\\/4#i"\n',
            id="regex-with-slash-icase-unknown-flag-dropped",
        ),
        pytest.param(
            "FilterProvider F DEFLATE env=no-gzip *\n",
            'FilterProvider F DEFLATE "-n %{reqenv:no-gzip}"\n',
            id="defined",
        ),
        pytest.param(
            "FilterProvider F DEFLATE env=no-gzip !*\n",
            'FilterProvider F DEFLATE "-z %{reqenv:no-gzip}"\n',
            id="not-defined",
        ),
        pytest.param(
            "FilterProvider F DEFLATE handler *\n",
            'FilterProvider F DEFLATE "-n %{HANDLER}"\n',
            id="handler-defined",
        ),
        pytest.param(
            "FilterProvider F DEFLATE resp=Content-Type $application/x-javascript+\n",
            'FilterProvider F DEFLATE "%{CONTENT_TYPE} =~ m#application/x-javascript\\+#i"\n',
            id="substring-escaped",
        ),
        pytest.param(
            "FilterProvider F DEFLATE req=X-A !/^$/\n",
            'FilterProvider F DEFLATE "-z %{req_novary:X-A} || %{req_novary:X-A} !~ /^$/"\n',
            id="regex-matching-empty",
        ),
        pytest.param(
            '<Location /x>\n  FilterProvider  "my filter" DEFLATE "resp=Content-Type" "$text/html; charset=utf-8"\n</Location>\n',
            '<Location /x>\n  FilterProvider  "my filter" DEFLATE "%{CONTENT_TYPE} =~ m#text/html; charset=utf-8#i"\n</Location>\n',
            id="quoted-words-in-location",
        ),
    ],
)
def test_fix(before, after):
    assert fixed(before, "HT201") == after


@pytest.mark.parametrize(
    ("text", "applicability"),
    [
        ("FilterProvider F DEFLATE resp=Content-Type $text/html\n", Applicability.SAFE),
        ("FilterProvider F DEFLATE handler !*\n", Applicability.SAFE),
        ("FilterProvider F DEFLATE req=X <5\n", Applicability.PRESERVE),
        ("FilterProvider F DEFLATE env=X *\n", Applicability.PRESERVE),
        ("FilterProvider F DEFLATE req=X $\n", Applicability.PRESERVE),
    ],
)
def test_applicability(text, applicability):
    [finding] = findings(text, "HT201")
    assert finding.fix.applicability == applicability
    assert ("present but empty" in finding.message) == (applicability == Applicability.PRESERVE)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("FilterProvider F DEFLATE foo=bar x\n", "unrecognized dispatch"),
        ("FilterProvider F DEFLATE req=X /abc\n", "closing '/'"),
        ("FilterProvider F DEFLATE env=${X} x\n", "${VAR}"),
        ("FilterProvider F DEFLATE req=X{} x\n", "cannot be written"),
    ],
)
def test_unconvertible_needs_a_person(text, reason):
    [finding] = findings(text, "HT201")
    assert finding.fix is None
    assert reason in finding.message


# --- real httpd ----------------------------------------------------------------------------

MATCHES = [
    "gzip", "!gzip", "$gzip", "!$gzip", "$", "!$", "/^gz/", "/^GZ/i", "!/zip$/", "/^$/", "!/^$/", "/x*/",
    "*", "!*", "<5", "<=5", ">5", ">=10", "=0", "!=0", "=5", "!<5", "text/html", "$text/", "!$text/plain",
    "send-as-is", "!send-as-is", "/^text/i", "TEXT/PLAIN", "Send-As-Is", "!Gzip",
]
VALUES = [None, "", "gzip", "GZIP", "GZIP, deflate", "x-gzip", "5", "10", "abc", "0", "-3", "text/html", "Text/Html"]


def atoi(text):
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def model_22(match, value):
    """2.2.34 filter_lookup for one provider: True when the provider applies."""
    negate = match.startswith("!")
    if negate:
        match = match[1:]
    if value is None:
        result = False
    else:
        head, rest = match[:1], match[1:]
        if head == "<" and rest.startswith("="):
            result = atoi(value) <= atoi(rest[1:])
        elif head == "<":
            result = atoi(value) < atoi(rest)
        elif head == ">" and rest.startswith("="):
            result = atoi(value) >= atoi(rest[1:])
        elif head == ">":
            result = atoi(value) > atoi(rest)
        elif head == "=":
            result = atoi(value) == atoi(rest)
        elif head == "/":
            end = rest.rfind("/")
            flags = re.I if "i" in rest[end + 1 :] else 0
            result = re.search(rest[:end], value, flags) is not None
        elif head == "*":
            result = True
        elif head == "$":
            result = rest.lower() in value.lower()
        else:
            result = value.lower() == match.lower()
    return result != negate


def _converted(condition, match):
    [finding] = findings(f'FilterProvider F SUBSTITUTE "{condition}" "{match}"\n', "HT201")
    assert finding.fix is not None, finding.message
    return finding.replacement.split(" ", 3)[3], finding.fix.applicability


def _site(cases, extra=""):
    """One <Location> per case, each with its own smart filter."""
    lines = ["Substitute s/hello/REPLACED/", "AddHandler send-as-is .asis", extra]
    for n, (condition, match) in enumerate(cases):
        expression, _ = _converted(condition, match)
        lines.append(f"FilterDeclare F{n}")
        lines.append(f"FilterProvider F{n} SUBSTITUTE {expression}")
        lines.append(f'<Location "/c{n}/">\n    FilterChain F{n}\n</Location>')
    lines.append("DocumentRoot docs")
    return "\n".join(lines) + "\n"


def _run(cases, files, requests, extra=""):
    """Start 2.4 with every case and return {(case, request id): replaced?}."""
    answers = {}
    site = _site(cases, extra)
    docs = {f"docs/c{n}/{name}": body for n in range(len(cases)) for name, body in files.items()}
    modules = MODULES + ["asis_module", "mime_module", "setenvif_module", "authz_core_module", "authn_core_module"]
    with Instance({"site.conf": site, **docs}, "site.conf", modules) as srv:
        for n, _case in enumerate(cases):
            for rid, (path, headers) in requests.items():
                response = srv.request(f"/c{n}/{path}", headers=headers)
                assert response.status == 200, (cases[n], rid, response.status, srv.error_log()[-2000:])
                answers[n, rid] = "REPLACED" in response.text
                # 2.2 never added the dispatch header to Vary (ap_expr's req() would).
                assert "x-q" not in (response.header("Vary") or "").lower(), (cases[n], response.header("Vary"))
    return answers


def _compare(cases, answers, requests, value_of):
    mismatches = []
    for n, (condition, match) in enumerate(cases):
        _, applicability = _converted(condition, match)
        for rid in requests:
            value = value_of(rid)
            expected = model_22(match, value)
            if answers[n, rid] != expected:
                approximate = applicability == Applicability.PRESERVE and value == ""
                if not approximate:
                    mismatches.append((condition, match, rid, value, "2.2 applies" if expected else "2.2 skips"))
    return mismatches


@pytest.mark.apache
@pytest.mark.slow
def test_real_httpd_request_header_and_env_dispatch_match_22(httpd):
    cases = [(c, m) for c in ("req=X-Q", "env=qvar") for m in MATCHES]
    requests = {i: ("plain.txt", {} if v is None else {"X-Q": v}) for i, v in enumerate(VALUES)}
    # SetEnvIf copies the request header into qvar (present-but-empty too), so env= sees the same values.
    answers = _run(cases, {"plain.txt": "hello\n"}, requests, extra='SetEnvIf X-Q "^(.*)$" qvar=$1')
    assert _compare(cases, answers, requests, lambda rid: VALUES[rid]) == []


@pytest.mark.apache
@pytest.mark.slow
def test_real_httpd_response_header_content_type_and_handler_dispatch_match_22(httpd):
    files = {"plain.txt": "hello\n"}
    values = {}
    for i, v in enumerate(VALUES):
        header = "" if v is None else f"X-R: {v}\n"
        files[f"r{i}.asis"] = f"Status: 200 OK\nContent-Type: text/plain\n{header}\nhello\n"
        values[f"r{i}.asis"] = v
    content_types = ["text/html", "TEXT/HTML; charset=UTF-8", "Text/Plain", "application/x-gzip", "5", "TEXT/HTML"]
    for i, ct in enumerate(content_types):
        files[f"t{i}.asis"] = f"Status: 200 OK\nContent-Type: {ct}\n\nhello\n"
    cases = [(c, m) for c in ("resp=X-R", "X-R") for m in MATCHES]
    requests = {name: (name, {}) for name in files if name.startswith("r")}
    answers = _run(cases, files, requests)
    assert _compare(cases, answers, requests, values.get) == []

    cases = [(c, m) for c in ("resp=Content-Type", "Content-Type", "handler") for m in MATCHES]
    requests = {name: (name, {}) for name in files if name.startswith("t") or name == "plain.txt"}
    answers = _run(cases, files, requests)

    def value_of(condition):
        def value(rid):
            if condition == "handler":  # r->handler while filters run: AddHandler's, else the bare type
                return "send-as-is" if rid.endswith(".asis") else "text/plain"
            return "text/plain" if rid == "plain.txt" else content_types[int(rid[1])]
        return value

    for kind in ("resp=Content-Type", "Content-Type", "handler"):
        subset = [c for c in cases if c[0] == kind]
        sub_answers = {(subset.index(cases[n]), rid): a for (n, rid), a in answers.items() if cases[n][0] == kind}
        assert _compare(subset, sub_answers, requests, value_of(kind)) == []


@pytest.mark.apache
def test_real_httpd_refuses_22_form_accepts_fix(httpd):
    text = (
        "FilterDeclare COMPRESS\n"
        "FilterProvider COMPRESS DEFLATE resp=Content-Type $text/html\n"
        "FilterProvider COMPRESS DEFLATE req=Accept-Encoding !$gzip\n"
        "FilterProvider COMPRESS DEFLATE resp=Content-Length >=4096\n"
        "FilterProvider COMPRESS DEFLATE env=no-gzip !*\n"
        "FilterProvider COMPRESS DEFLATE handler /^server-(parsed|info)$/\n"
        "FilterChain COMPRESS\n"
    )
    before = configtest({"f.conf": text}, "f.conf", MODULES, httpd=httpd)
    assert not before.ok and "FilterProvider takes three arguments" in before.output
    after = configtest({"f.conf": fixed(text, "HT201")}, "f.conf", MODULES, httpd=httpd)
    assert after.ok, after.output

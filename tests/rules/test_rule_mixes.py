"""Random mixes of the rules' documented examples, migrated and judged by the real ``apache2 -t``.

Each rule's examples pass on their own (tests/rules/test_documented_examples_apache.py); configurations
hold many of them at once: in virtual hosts, ``<Location>`` sections, one ``<Directory>`` together,
``<IfModule>``, ``<IfDefine>`` and dead ``<IfVersion < 2.3>`` branches, across files an ``Include``
wildcard reads, and spelled otherwise as httpd reads alike (directive names in any case, tabs,
continuation lines, CRLF); under each ``--defaults`` policy in turn. For each mix: ``migrate`` is
idempotent and leaves no fixable error; the result passes ``apache2 -t`` with exactly the modules
``httpd24 modules`` names (unless a finding that needs a person stands at the line apache2 refuses);
and loading one module fewer fails wherever the list says ``-t`` would notice. Mixing found defects
that no single example shows: examples httpd refuses at the top level, a [configtest] claim for a
module only an ``<IfModule>`` tested, the accept mutex written for an MPM loaded in an undecided block,
and (looking at that one) HT404's lines added inside the ``<IfDefine>`` of the last LoadModule.

``HTTPD24_SEED`` and ``HTTPD24_MIXES_COUNT`` replay or lengthen a run; a failure names its mix.
"""

from __future__ import annotations

import functools
import os
import random
import re

import pytest
from apache_env import STUBS, neutralise, pki  # noqa: F401
from apache_fixture import httpd  # noqa: F401
from test_documented_examples import RULES, _examples

from httpd24 import api
from httpd24.apache import configtest, run_user
from httpd24.apache.table import directives, modules as standard_modules
from httpd24.config import DEFAULT_TARGET, Target
from httpd24.engine import Severity
from httpd24.engine.modules import DEBIAN_BUILTIN, required_modules

pytestmark = pytest.mark.apache

SEED = int(os.environ.get("HTTPD24_SEED") or random.SystemRandom().randrange(2**31))
COUNT = int(os.environ.get("HTTPD24_MIXES_COUNT") or 150)

#: Examples that cannot be mixed: HT003's byte order mark belongs at a file's start, HT408's needs two keys.
UNMIXABLE = {"HT003", "HT408"}
SNIPPETS = [(f"{rule.code} {heading}", text) for rule in RULES if rule.code not in UNMIXABLE
            for heading, text in _examples(rule).items()]

#: Directives httpd refuses in a <VirtualHost> although ``-L`` lists them there (GLOBAL_ONLY at run time).
_MAIN_SERVER_ONLY = frozenset("""
    acceptmutex coredumpdirectory davlockdb enablesendfile group ldaptrustedclientcert ldaptrustedglobalcert
    listen loadmodule lockfile maxclients maxconnectionsperchild maxrequestsperchild maxrequestsperthread
    maxrequestworkers maxspareservers maxsparethreads minspareservers minsparethreads mutex namevirtualhost
    pidfile rewritelock scoreboardfile serverlimit serverroot sslmutex sslpassphrasedialog sslrandomseed
    sslsessioncache startservers threadlimit threadsperchild user watchdogmutexpath win32disableacceptex
""".split())
#: ``ProxyPass`` with a path is refused inside <Location>, though its context allows directories.
_NOT_IN_LOCATION = frozenset({"proxypass", "proxypassreverse"} | {"directory", "directorymatch", "location",
                                                                    "locationmatch", "virtualhost"})


def _keys(text: str) -> list[str]:
    return [line.split()[0].strip("<>").lower() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "</"))]


def _fits(text: str, context: str, refused: frozenset[str]) -> bool:
    """Whether every directive of a snippet may stand in ``context`` (unknown ones: removed in 2.4, kept out)."""
    contexts = _contexts()
    return all(key not in refused and context in contexts.get(key, "") for key in _keys(text))


@functools.cache
def _contexts() -> dict[str, str]:
    """Directive -> the contexts ``apache2 -L`` allows it in (every module's that defines it)."""
    found: dict[str, str] = {}
    for info in directives():
        key = info.name.strip("<>").lower()
        found[key] = found.get(key, "") + info.contexts
    return found


def _indented(text: str) -> str:
    return "".join("    " + line if line.strip() else line for line in text.splitlines(keepends=True))


#: Directives :func:`apache_env.neutralise` rewrites line by line: not split over continuation lines.
_REWRITTEN = ("include", "documentroot", "loadmodule", "loadfile", "serverroot", "user", "group", "errorlog",
              "customlog", "transferlog", "scriptlog", "globallog", "rewritemap", "mutex", "ssl", "ldaptrusted")
_LINE = re.compile(r"^(\s*)(</?)?(\w+)(.*)$")


def respelled(rng: random.Random, text: str) -> str:
    """The same configuration spelled otherwise, as httpd reads it alike: directive names in any case, tabs,
    arguments continued on the next line, CRLF line ends."""
    out = []
    for line in text.splitlines():
        found = _LINE.match(line)
        if found and not line.lstrip().startswith("#"):
            indent, tag, name, rest = found.groups()
            name = rng.choice((name, name, name.lower(), name.upper()))
            indent = indent.replace("    ", "\t") if rng.random() < 0.3 else indent
            words = rest.split(" ")
            if not tag and len(words) > 2 and not name.lower().startswith(_REWRITTEN) and rng.random() < 0.25:
                cut = rng.randrange(2, len(words))
                rest = " ".join(words[:cut]) + " \\\n   " + " ".join(words[cut:])
            line = indent + (tag or "") + name + rest
        out.append(line + "\n")
    return "".join(out).replace("\n", "\r\n") if rng.random() < 0.2 else "".join(out)


#: What the mixes' <IfModule> sections test: modules apache2 -t loads or not, and the 2.2/2.4 switch.
_TESTED = ("mod_rewrite.c", "!mod_authz_core.c", "mod_ssl.c", "mod_nosuch.c", "mod_authz_core.c")


def mix(seed: int, index: int) -> tuple[list[str], dict[str, bytes]]:
    """(the examples drawn, the configuration's files: ``httpd.conf`` and maybe ``conf.d/N.conf``)."""
    rng = random.Random(f"{seed}:mix:{index}")
    names, parts, together = [], [], []
    for name, text in rng.sample(SNIPPETS, rng.choice((2, 3, 4, 5, 6))):
        names.append(name)
        r = rng.random()
        if r < 0.25 and _fits(text, "virtual host", _MAIN_SERVER_ONLY):
            text = f"<VirtualHost *:80>\n    ServerName h{rng.randrange(9)}.example\n{_indented(text)}</VirtualHost>\n"
        elif r < 0.35:
            text = f"<IfModule {rng.choice(_TESTED)}>\n{_indented(text)}</IfModule>\n"
        elif r < 0.4:
            text = f"<IfVersion < 2.3>\n{_indented(text)}</IfVersion>\n"
        elif r < 0.45:  # apache2 -t runs without -D SSL: an undecided block it does not read
            text = f"<IfDefine SSL>\n{_indented(text)}</IfDefine>\n"
        elif r < 0.55 and _fits(text, "directory", _NOT_IN_LOCATION):
            text = f"<Location /l{rng.randrange(3)}>\n{_indented(text)}</Location>\n"
        elif r < 0.7 and _fits(text, "directory", _NOT_IN_LOCATION):
            together.append(text)  # one section holds several examples: their fixes meet
            continue
        if rng.random() < 0.2:  # and a condition around that
            text = f"<IfModule {rng.choice(_TESTED)}>\n{_indented(text)}</IfModule>\n"
        parts.append(text)
    if together:
        section = f"<Directory /srv/www>\n{_indented(''.join(together))}</Directory>\n"
        parts.insert(rng.randrange(len(parts) + 1), section)
    files: dict[str, bytes] = {}
    # an Include wildcard reads the later ones (not where an example holds an Include of its own: a cycle)
    if len(parts) > 2 and rng.random() < 0.4 and not any(n.startswith(("HT403", "HT408")) for n in names):
        files.update({f"conf.d/{n}.conf": text.encode() for n, text in enumerate(parts[2:])})
        parts = [*parts[:2], "Include conf.d/*.conf\n"]
    main = "".join(parts)
    if "<IfVersion" in main or any(b"<IfVersion" in v for v in files.values()):
        main = "LoadModule version_module modules/mod_version.so\n" + main
    files = {"httpd.conf": main.encode(), **files}
    if rng.random() < 0.5:
        files = {name: respelled(rng, data.decode()).encode() for name, data in files.items()}
    return names, files


def _lines_of(data: bytes, first: int) -> range:
    """The lines of the directive that starts at line ``first``: httpd names its last when it refuses it."""
    lines = data.decode().splitlines()
    last = first
    while last <= len(lines) and lines[last - 1].rstrip().endswith("\\"):
        last += 1
    return range(first, last + 1)


def judge(files: dict[str, bytes], httpd, pki, defaults: str | None = None,  # noqa: F811
          target: Target = DEFAULT_TARGET) -> list[str]:
    """What is wrong with the migration of one mix (nothing: []) under a ``--defaults`` policy, with the
    modules named for ``target``."""
    migration = api.migrate(api.load_mapping(files, entry="httpd.conf"), defaults=defaults)
    out = dict(migration.files)
    problems = []
    if api.migrate(api.load_mapping(out, entry="httpd.conf"), defaults=defaults).files != out:
        problems.append("migrate(migrate(x)) != migrate(x)")
    left = [f for f in api.lint(api.load_mapping(out, entry="httpd.conf"), defaults=defaults)
            if f.fixable and f.severity == Severity.ERROR]
    problems += [f"fixable error left: {f.location} {f.code} {f.message}" for f in left]
    # the modules for the binary that judges them: Debian's apache2, which builds some in
    requirements = required_modules(api.load_mapping(out, entry="httpd.conf"), target=target, builtin=DEBIAN_BUILTIN)
    names = requirements.names()
    if [name for name in names if name not in standard_modules()]:
        return problems  # a third-party module (HT402, HT406): not on this machine
    user, group = run_user()
    tree = {**STUBS, **pki}
    for name, data in out.items():
        tree["site.conf" if name == "httpd.conf" else name] = neutralise(data.decode(), user=user, group=group)[0]
    result = configtest(tree, "site.conf", names, httpd=httpd)
    if not result.ok:
        refused = re.search(r"line (\d+) of (?:\S*/)?(site\.conf|conf\.d/\d+\.conf)", result.output)
        where = (refused.group(2).replace("site.conf", "httpd.conf"), int(refused.group(1))) if refused else None
        if not [f for f in migration.remaining if not f.fixable and f.severity != Severity.INFO
                and where in [(f.file, line) for line in _lines_of(out[f.file], f.line)]]:
            problems.append(f"apache2 -t refuses it, and no finding needing a person is there:\n{result.output}")
        return problems
    for module in requirements.modules:
        if module.checked_by_configtest and not module.is_mpm and not httpd.is_builtin(module.name):
            if configtest(tree, "site.conf", [n for n in names if n != module.name], httpd=httpd).ok:
                problems.append(f"apache2 -t passes without {module.name}: " + "; ".join(map(str, module.reasons)))
    return problems


def test_mixes_of_documented_examples_migrate_to_what_apache2_accepts(httpd, pki, capsys):  # noqa: F811
    bad = []
    for index in range(COUNT):
        names, files = mix(SEED, index)
        defaults = (None, "keep-2.2", "adopt-2.4")[index % 3]
        # the modules `httpd24 modules` names (an <IfDefine SSL> block may be read: what it needs is listed,
        # conditional), or those for apache2 -t as it runs here, without -D (as the operator's pods run)
        target = (DEFAULT_TARGET, Target(defines=frozenset()))[index // 3 % 2]
        if problems := judge(files, httpd, pki, defaults, target):
            shown = "".join(f"--- {name}\n{data.decode()}" for name, data in files.items())
            bad.append(f"mix {index} ({', '.join(names)}; --defaults {defaults}; defines {target.defines}):\n"
                       + "\n".join(problems) + "\n" + shown)
    with capsys.disabled():
        print(f"\n[rule mixes] HTTPD24_SEED={SEED} HTTPD24_MIXES_COUNT={COUNT}: {len(bad)} wrong")
    assert not bad, f"seed {SEED}: {len(bad)} of {COUNT} mixes:\n\n" + "\n\n".join(bad[:3])


def test_mixes_reach_every_context():
    """The mixes are not vacuous: they put examples in each kind of place and split files."""
    drawn = [mix(SEED, index)[1] for index in range(200)]
    texts = [b"".join(files.values()) for files in drawn]
    for marker in (b"<VirtualHost *:80>", b"<IfModule !mod_authz_core.c>", b"<IfVersion < 2.3>", b"<IfDefine SSL>",
                   b"<Location /l", b"<Directory /srv/www>"):
        assert any(marker in text for text in texts), marker
    assert any("conf.d/0.conf" in files for files in drawn)
    assert any(b"\\\r\n" in text for text in texts) and any(b"\tREQUIRE" in text.upper() for text in texts)

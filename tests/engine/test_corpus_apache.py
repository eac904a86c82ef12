"""The proof on the real httpd: every corpus file, migrated, passes Debian's ``apache2 -t``
with exactly the modules ``required_modules`` names -- unless the tool reported a remaining
finding that needs a person at the line apache2 complains about -- and the module list is
exact: loading one module fewer than named makes ``apache2 -t`` fail wherever ``-t`` can see
that module in use.

What the harness does to a migrated file before ``-t`` (test environment, not migration; the
line numbers are kept, so apache2's messages point at the migrated file's lines):

* build templates (``@@ServerRoot@@``, ``@exp_cgidir@``, Apache::Test's ``@SERVERROOT@``,
  Koha's ``__LOG_DIR__``, Cobbler's ``@@webroot@@`` ...) get plausible values (:data:`PLACEHOLDERS`);
  none is skipped;
* ``LoadModule``/``LoadFile`` lines are commented out: the server config around the file loads
  exactly the required modules (the configuration's own lines point at 2.2 paths);
* ``ServerRoot`` is commented out (the temporary server root is used), ``User``/``Group`` name
  the user the test runs children as (httpd checks that the user exists);
* ``Include``s of absolute paths outside the file are commented out (they would read this
  machine's /etc/apache2);
* SSL certificate/key/CA paths point at a throw-away self-signed certificate (mod_ssl reads them
  during ``-t``);
* an ``.htaccess`` file is wrapped in ``<Directory "/srv/corpus">`` (that is where httpd reads it).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from apache_env import STUBS, neutralise, pki  # noqa: F401
from apache_fixture import httpd  # noqa: F401

from httpd24 import api
from httpd24.apache import configtest, run_user
from httpd24.config import ConfigSet
from httpd24.engine import Severity
from httpd24.engine.modules import required_modules

CORPUS = Path("/work/shared/corpus")
FILES = CORPUS / "files"

#: Build-time placeholders -> values a real installation would have.
PLACEHOLDERS = {
    "@@ServerRoot@@": "/usr/local/apache2",
    "@@Port@@": "80",
    "@@SSLPort@@": "443",
    "@@LoadModule@@": "",
    "@exp_htdocsdir@": "/usr/local/apache2/htdocs",
    "@exp_cgidir@": "/usr/local/apache2/cgi-bin",
    "@exp_sysconfdir@": "/usr/local/apache2/conf",
    "@exp_runtimedir@": "/usr/local/apache2/logs",
    "@exp_logfiledir@": "/usr/local/apache2/logs",
    "@exp_manualdir@": "/usr/local/apache2/manual",
    "@exp_iconsdir@": "/usr/local/apache2/icons",
    "@exp_errordir@": "/usr/local/apache2/error",
    "@rel_sysconfdir@": "conf",
    "@rel_logfiledir@": "logs",
    "@rel_runtimedir@": "logs",
    "@SERVERROOT@": "/srv/apache-test",
    "@SERVERNAME@": "localhost",
    "@PORT@": "8529",
    "@CGI_MODULE@": "mod_cgid.c",
    "@PHP_MODULE@": "mod_php5.c",
    "@ACCESS_MODULE@": "mod_authz_host.c",
    "@@webroot@@": "/var/www",
    "@@virtualenv@@": "",
    "@@install_data@@": "/usr/share",
}
_GENERIC = re.compile(r"@@(\w+)@@|@(\w+)@|__([A-Z][A-Z_]*[A-Z])__")


def substitute(text: str) -> tuple[str, list[str]]:
    used = []
    for key, value in PLACEHOLDERS.items():
        if key in text:
            used.append(key)
            text = text.replace(key, value)

    def generic(match: re.Match) -> str:
        name = next(g for g in match.groups() if g)
        used.append(match.group(0))
        lower = name.lower()
        if "port" in lower:
            return "8080"
        if lower.endswith(("_ip", "ip")):
            return "127.0.0.1"
        if "host" in lower or "name" in lower:
            return "localhost"
        if "email" in lower:
            return "webmaster@example.org"
        if "servers" in lower:
            return "127.0.0.1:11211"
        return "/srv/" + lower.replace("_", "-")

    return _GENERIC.sub(generic, text), used


def corpus_files() -> list[tuple[str, str]]:
    with open(CORPUS / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [(row["file"], row["notes"]) for row in rows]


def is_htaccess(name: str) -> bool:
    return name.endswith(".htaccess")


def vhost_include(text: str) -> bool:
    """A file meant to be included inside <VirtualHost> (ServerAlias at its top level)."""
    depth = 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("</"):
            depth -= 1
        elif stripped.startswith("<"):
            depth += 1
        elif depth == 0 and stripped.lower().startswith("serveralias"):
            return True
    return False


class Prepared:
    def __init__(self, name: str, pki: dict[str, bytes]):
        raw = (FILES / name).read_bytes().decode("utf-8", "surrogateescape")
        self.name = name
        self.source, self.placeholders = substitute(raw)
        self.configset = api.load_mapping({name: self.source.encode("utf-8", "surrogateescape")}, entry=name)
        self.migration = api.migrate(self.configset)
        self.migrated = self.migration.files[name].decode("utf-8", "surrogateescape")
        migrated_set = ConfigSet.from_mapping({name: self.migration.files[name]}, entry=name)
        self.requirements = required_modules(migrated_set)
        #: What the input itself needs: why the MPM was chosen, before the migration loaded it.
        self.input_requirements = required_modules(self.configset)
        user, group = run_user()
        text, self.notes = neutralise(self.migrated, user=user, group=group)
        self.offset = 0
        if is_htaccess(name):
            text = '<Directory "/srv/corpus">\n' + text + ("" if text.endswith("\n") else "\n") + "</Directory>\n"
            self.offset = 1
        elif vhost_include(text):
            text = "<VirtualHost *:80>\n" + text + ("" if text.endswith("\n") else "\n") + "</VirtualHost>\n"
            self.offset = 1
        self.files = {"site.conf": text, **STUBS, **pki}
        self.entry = "site.conf"

    def configtest(self, modules, httpd):
        return configtest(self.files, self.entry, modules, httpd=httpd)

    def needs_person(self) -> list:
        """Remaining findings that no automatic fix addresses (a person must decide)."""
        return [f for f in self.migration.remaining if not f.fixable and f.severity != Severity.INFO]

    def failing_line(self, output: str) -> int | None:
        match = re.search(r"line (\d+) of site\.conf", output)
        return int(match.group(1)) - self.offset if match else None


#: Files whose migrated form still fails on apache2 -t because a rule owned by another range
#: does not exist yet. Each entry: the reason, naming the missing finding. (strict: when the
#: rule lands and the file passes, the xfail turns into a failure, so this list stays honest.)
KNOWN_GAPS: dict[str, str] = {}

NAMES = [name for name, _ in corpus_files()]
_PREPARED: dict[str, Prepared] = {}


def prepared_file(name: str, pki) -> Prepared:
    if name not in _PREPARED:
        _PREPARED[name] = Prepared(name, pki)
    return _PREPARED[name]


def checkable(module, httpd, prepared) -> bool:
    """Whether dropping ``module`` must make ``-t`` fail: an unguarded, unconditional configtest
    reason, not compiled into this binary; the MPM unless it is event (configtest() loads event
    whenever no MPM is named) or the input asked for it only by tuning it in an ``<IfModule>`` on it
    (guarded: under another MPM httpd skips the block). Runtime/startup-only requirements are
    documented in the reasons."""
    if module.is_mpm:
        chosen = prepared.input_requirements.get(module.name)
        return module.name != "mpm_event_module" and chosen is not None and chosen.checked_by_configtest
    return module.checked_by_configtest and not httpd.is_builtin(module.name)


@pytest.mark.apache
@pytest.mark.parametrize("name", NAMES)
def test_migrated_corpus_file_passes_configtest_with_exact_modules(name, httpd, pki, request):
    if name in KNOWN_GAPS:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_GAPS[name], strict=True))
    prepared = prepared_file(name, pki)
    modules = prepared.requirements.names()
    result = prepared.configtest(modules, httpd)
    if result.ok:
        return
    line = prepared.failing_line(result.output)
    people = prepared.needs_person()
    at_line = [f for f in people if f.line == line]
    assert at_line, (
        f"{name}: apache2 -t fails with exactly {modules} and no remaining finding that needs a person "
        f"is at line {line}:\n{result.output}\nremaining findings needing a person: "
        + "; ".join(f"{f.location} {f.code} {f.message}" for f in people)
    )


@pytest.mark.apache
@pytest.mark.parametrize("name", NAMES)
def test_corpus_module_list_is_exact(name, httpd, pki):
    """Loading one module fewer than named makes apache2 -t fail, for every module -t can see."""
    prepared = prepared_file(name, pki)
    modules = prepared.requirements.names()
    files = prepared.files
    if not prepared.configtest(modules, httpd).ok:
        # Take out the lines a person must decide on (third-party directives, ...) and judge the rest.
        lines = {f.line + prepared.offset for f in prepared.needs_person()}
        text = "".join(
            ("# [test] " + line) if number in lines else line
            for number, line in enumerate(files["site.conf"].splitlines(keepends=True), 1)
        )
        files = {**files, "site.conf": text}
        result = configtest(files, prepared.entry, modules, httpd=httpd)
        assert result.ok, f"{name}: fails -t even without the lines needing a person:\n{result.output}"
    checked = []
    for module in prepared.requirements.modules:
        if not checkable(module, httpd, prepared):
            continue  # runtime/startup-only, guarded by <IfModule>, or compiled into Debian's apache2
        fewer = [m for m in modules if m != module.name] + (["mpm_event_module"] if module.is_mpm else [])
        result = configtest(files, prepared.entry, fewer, httpd=httpd)
        assert not result.ok, (
            f"{name}: apache2 -t passes without {module.name}, which required_modules names for: "
            + "; ".join(str(r) for r in module.reasons)
        )
        checked.append(module.name)


@pytest.mark.apache
def test_corpus_exactness_is_not_vacuous(httpd, pki):
    """Most corpus files have modules -t can check, and in total well over a hundred are checked."""
    per_file = [sum(checkable(m, httpd, p) for m in p.requirements.modules) for p in (prepared_file(n, pki) for n in NAMES)]
    assert sum(per_file) >= 120
    assert sum(1 for count in per_file if count) >= len(NAMES) * 3 // 4


@pytest.mark.apache
def test_corpus_templates_are_substituted_not_skipped(pki):
    templates = [n for n in NAMES if _GENERIC.search((FILES / n).read_text("utf-8", "replace"))]
    assert templates  # the corpus has build templates (apache's *.conf.in, Apache::Test, Koha, Cobbler)
    for name in templates:
        assert prepared_file(name, pki).placeholders, name
        assert not _GENERIC.search(prepared_file(name, pki).migrated), name


@pytest.mark.parametrize("name", NAMES)
def test_corpus_migration_is_idempotent_and_leaves_no_fixable_error(name):
    source = (FILES / name).read_bytes()
    once = api.migrate(api.load_mapping({name: source}, entry=name))
    twice = api.migrate(api.load_mapping({name: once.files[name]}, entry=name))
    assert twice.files[name] == once.files[name]
    assert twice.applied == []
    left = api.lint(api.load_mapping({name: once.files[name]}, entry=name))
    assert not [f for f in left if f.fixable and f.severity == Severity.ERROR]

"""Access control under <IfModule>/<IfDefine> conditions nothing decides (httpd24.access.worlds).

A fix is offered only when it means, in every world the conditions allow, what the original means
there. The apache tests run each configuration in both worlds on real apache2: the module is
``mod_setenvif.c`` (the differential servers load it) or ``mod_ssl.c`` (they do not), and the
engine, which knows neither, must treat both names alike. The reference is 2.2's inheritance made
explicit for the server that runs it (``normalize_22`` with ``differential.reference_target``) on
2.4 + mod_access_compat.
"""

from __future__ import annotations

import pytest
from httpd24.access import normalize_22
from httpd24.apache import differential
from httpd24.config import DEFAULT_TARGET, ConfigSet, Target
from httpd24.engine import lint, migrate
from test_differential_conditions import renamed

DOCROOT = "DocumentRoot /srv/www\n"
LOADED, NOT_LOADED = "mod_setenvif.c", "mod_ssl.c"

#: The condition decides the answer: no fix.
DECIDES = {
    "inside the section": "<Directory /srv/www>\n    Order deny,allow\n    <IfModule {m}>\n        Deny from all\n"
                          "    </IfModule>\n</Directory>\n",
    "two branches disagree": "<Directory /srv/www>\n    <IfModule {m}>\n        Order deny,allow\n        Deny from all\n"
                             "    </IfModule>\n    <IfModule !{m}>\n        Order allow,deny\n        Allow from all\n"
                             "    </IfModule>\n</Directory>\n",
    # 2.2 merges the address rules of /srv into /srv/www, which has none of its own (only Satisfy any):
    # where the module is not loaded, nothing restricts /srv/www.
    "a section it inherits from": "<IfModule {m}>\n<Directory /srv>\n    Order deny,allow\n    Deny from all\n"
                                  "    Allow from 127.0.0.2\n</Directory>\n</IfModule>\n<Directory /srv/www>\n"
                                  "    AuthType Basic\n    AuthName private\n    AuthUserFile /etc/httpd24-none\n"
                                  "    Require valid-user\n    Satisfy any\n</Directory>\n",
    # The Alias decides which <Directory> /files/ maps to: without the module it is /srv/www's, which
    # restricts it (Satisfy any: the address or a user); with it, nothing does.
    "an Alias it maps through": "<IfModule {m}>\nAlias /files/ /srv/files/\n</IfModule>\n<Directory /srv/www>\n"
                                "    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Directory>\n"
                                "<Location /files/>\n    AuthType Basic\n    AuthName private\n"
                                "    AuthUserFile /etc/httpd24-none\n    Require valid-user\n    Satisfy any\n"
                                "</Location>\n",
    # Where the module is not loaded the section has AuthType and no Require: 2.2 asked for no password,
    # 2.4 answers 500 (HT504). As read, it is already 2.4 and nothing is reported.
    "a Require only one world has": "<Location /a>\n    AuthType Basic\n    AuthName private\n"
                                    "    AuthUserFile /etc/httpd24-none\n    <IfModule {m}>\n"
                                    "        Require valid-user\n    </IfModule>\n</Location>\n",
    "a define": "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n    <IfDefine LOCKDOWN>\n"
                "        Deny from all\n    </IfDefine>\n</Directory>\n",
}
#: All of a section's lines in one branch: the translation is right inside it, wrong outside it.
ONE_BRANCH = ("<Location /a>\n    <IfModule {m}>\n        Order deny,allow\n        Deny from all\n"
              "    </IfModule>\n</Location>\n")
#: The answer is the same whichever way the condition falls: the fix stays.
AGREES = {
    "all of the section's lines in one branch": ONE_BRANCH,
    "whole section inside": "<IfModule {m}>\n<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n"
                            "    Allow from 127.0.0.2\n</Directory>\n</IfModule>\n",
    "condition adds nothing": "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n    <IfModule {m}>\n"
                              "        Allow from 127.0.0.2\n    </IfModule>\n</Directory>\n",
    "both sections inside": "<IfModule {m}>\n<Directory /srv>\n    Order deny,allow\n    Deny from all\n</Directory>\n"
                            "<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n"
                            "</IfModule>\n",
    "an Alias that changes nothing": "<IfModule {m}>\nAlias /files/ /srv/files/\n</IfModule>\n<Directory /srv/www>\n"
                                     "    Order deny,allow\n    Deny from all\n</Directory>\n<Location /files/>\n"
                                     "    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n</Location>\n",
    # The two sections never apply together: read as one, /srv/www would inherit /srv's address rules,
    # which no server gives it (found by test_differential_conditions, seed 3, index 109); each keeps the
    # translation of the one world it exists in.
    "opposite branches": "<IfModule {m}>\n<Directory /srv>\n    Order deny,allow\n    Deny from all\n"
                         "    Allow from 127.0.0.2\n</Directory>\n</IfModule>\n<IfModule !{m}>\n<Directory /srv/www>\n"
                         "    AuthType Basic\n    AuthName private\n    AuthUserFile /etc/httpd24-none\n"
                         "    Require valid-user\n    Satisfy any\n</Directory>\n</IfModule>\n",
    "2.2/2.4 dual blocks": "<Directory /srv/www>\n    <IfModule mod_version.c>\n        <IfVersion < 2.4>\n"
                           "            Order allow,deny\n            Allow from all\n        </IfVersion>\n"
                           "        <IfVersion >= 2.4>\n            Require all granted\n        </IfVersion>\n"
                           "    </IfModule>\n    <IfModule !mod_version.c>\n        Order allow,deny\n"
                           "        Allow from all\n    </IfModule>\n</Directory>\n",
}

def configset(text: str) -> ConfigSet:
    return ConfigSet.from_mapping({"httpd.conf": DOCROOT + text}, entry="httpd.conf")


def reference(text: str, httpd) -> ConfigSet:
    """The 2.2 meaning of ``text`` on the differential server, which loads mod_setenvif and not mod_ssl."""
    return normalize_22(configset(text), differential.reference_target(httpd))


def access_findings(text: str, target: Target = DEFAULT_TARGET) -> list:
    return [f for f in lint(configset(text), target=target) if f.code.startswith("HT5")]


@pytest.mark.parametrize("name", DECIDES)
def test_no_fix_when_the_condition_decides_the_answer(name):
    text = DECIDES[name].format(m=NOT_LOADED)
    findings = access_findings(text)
    assert findings and all(f.fix is None for f in findings)
    [asked] = [f for f in findings if "nothing here decides" in f.message]
    assert ("<IfDefine LOCKDOWN>" if name == "a define" else f"{NOT_LOADED}>") in asked.message  # <IfModule [!]...>
    assert "--module/--define" in asked.message
    assert migrate(configset(text)).files["httpd.conf"] == (DOCROOT + text).encode()


def test_a_target_that_decides_the_module_brings_the_fix_back():
    text = DECIDES["inside the section"].format(m=NOT_LOADED)
    loaded = Target(modules=frozenset({"ssl_module", "authz_core_module", "authz_host_module"}))
    assert [f.fix is not None for f in access_findings(text, loaded)] == [True]
    migrated = migrate(configset(text), target=loaded).files["httpd.conf"].decode()
    assert "Require all denied" in migrated and "Order" not in migrated
    not_loaded = Target(modules=frozenset({"authz_core_module", "authz_host_module"}))
    assert [f.fix is not None for f in access_findings(text, not_loaded)] == [True]
    migrated = migrate(configset(text), target=not_loaded).files["httpd.conf"].decode()
    assert "Require all granted" in migrated and "Deny from all" in migrated  # the dead branch stays as written


def test_a_section_whose_lines_all_sit_in_one_branch_gets_its_translation_inside_it():
    """Where the branch is not read the section has no access control of its own, in 2.2 as in 2.4."""
    text = ONE_BRANCH.format(m=NOT_LOADED) + AGREES["condition adds nothing"].format(m=LOADED)
    migrated = migrate(configset(text)).files["httpd.conf"].decode()
    assert migrated == DOCROOT + (
        f"<Location /a>\n    <IfModule {NOT_LOADED}>\n        Require all denied\n    </IfModule>\n</Location>\n"
        f"<Directory /srv/www>\n    Require all granted\n</Directory>\n")


def test_lines_in_one_branch_still_need_a_person_when_the_section_needs_something_without_them():
    text = ("<Location /a>\n    AuthType Basic\n    AuthName private\n    AuthUserFile /etc/httpd24-none\n"
            f"    <IfModule {NOT_LOADED}>\n        Order deny,allow\n        Deny from all\n"
            "        Require valid-user\n    </IfModule>\n</Location>\n")
    findings = access_findings(text)
    assert findings and all(f.fix is None for f in findings)
    assert any("nothing here decides" in f.message for f in findings)


@pytest.mark.parametrize("name", AGREES)
def test_fix_stays_when_every_world_agrees(name):
    text = AGREES[name].format(m=NOT_LOADED)
    findings = access_findings(text)
    assert findings and all(f.fix is not None for f in findings if f.code == "HT501")
    migrated = migrate(configset(text)).files["httpd.conf"]
    after = ConfigSet.from_mapping({"httpd.conf": migrated}, entry="httpd.conf")
    assert not [f for f in lint(after) if f.code == "HT501"]  # no 2.2 access control left that 2.4 reads


@pytest.mark.apache
@pytest.mark.parametrize("name", AGREES)
def test_fixes_kept_answer_as_the_original_in_both_worlds(httpd, assert_all_ok, name):
    cases = []
    for module in (LOADED, NOT_LOADED):
        migrated = migrate(configset(AGREES[name].format(m=module)))
        assert not [f for f in migrated.remaining if f.code.startswith("HT5")]
        cases.append(differential.Case(f"{name} / {module}", reference(AGREES[name].format(m=module), httpd),
                                       migrated.files))
    assert_all_ok(differential.compare_many(cases, httpd=httpd), "kept fixes")


@pytest.mark.apache
def test_the_translation_as_if_the_branch_were_read_is_wrong_on_the_server_without_the_module(httpd):
    """Why there is no fix: written as the loaded world reads it, the server without the module answers otherwise."""
    as_read = Target(modules=frozenset({"setenvif_module", "authz_core_module", "authz_host_module"}))
    for name in ("all of the section's lines, written outside their branch", "inside the section",
                 "a section it inherits from", "an Alias it maps through", "a Require only one world has"):
        loaded_text = DECIDES.get(name, ONE_BRANCH).format(m=LOADED)
        written = migrate(configset(loaded_text), target=as_read)
        assert not [f for f in written.remaining if f.code == "HT501"], name
        reports = differential.compare_many([
            differential.Case("loaded", reference(loaded_text, httpd), written.files),
            differential.Case("not loaded", reference(DECIDES.get(name, ONE_BRANCH).format(m=NOT_LOADED), httpd),
                              {"httpd.conf": written.files["httpd.conf"].replace(LOADED.encode(), NOT_LOADED.encode())}),
        ], httpd=httpd)
        assert [r.ok for r in reports] == [True, False], (name, [r.format(limit=3) for r in reports])


@pytest.mark.apache
def test_verify_reads_each_condition_as_the_reference_server_does(httpd):
    """``migrate --verify`` makes 2.2's inheritance explicit for the server it runs, which loads no mod_ssl:
    there /srv/www inherits nothing, and answers everyone (Satisfy any without address rules)."""
    original = configset(DECIDES["a section it inherits from"].format(m=NOT_LOADED))
    by_hand = DOCROOT + DECIDES["a section it inherits from"].format(m=NOT_LOADED).replace(
        "    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n", "    Require ip 127.0.0.2\n").replace(
        "    Require valid-user\n    Satisfy any\n", "    Require all granted\n")
    report = differential.verify(original, by_hand, httpd=httpd)
    assert report.ok, report.format(limit=3)
    wrong = by_hand.replace("    Require all granted\n", "    Require valid-user\n    Require ip 127.0.0.2\n")
    assert not differential.verify(original, wrong, httpd=httpd).ok  # as if mod_ssl were loaded


#: Four sibling directories, each with a line in a branch of its own module that changes nothing:
#: more conditions than one section is tried under, but each section depends on one of them.
MODULES = (LOADED, "mod_status.c", NOT_LOADED, "mod_info.c")  # the differential servers load the first two
SIBLINGS = "".join(f"<Directory /srv/www/{d}>\n    Order allow,deny\n    Allow from all\n    <IfModule {m}>\n"
                   f"        Allow from 127.0.0.2\n    </IfModule>\n</Directory>\n" for d, m in zip("abcd", MODULES))


def test_a_change_only_another_world_needs_is_reported_under_many_conditions():
    """Once more than three conditions were about, a section fine as read but not in some world went
    unreported: here /a has no Require where mod_ssl is not loaded (2.4 answers 500, 2.2 asked nothing)."""
    text = SIBLINGS.replace("mod_info.c", "mod_dav.c") + DECIDES["a Require only one world has"].format(m=NOT_LOADED)
    [asked] = [f for f in access_findings(text) if "<Location /a>" in f.message]
    assert asked.code == "HT504" and asked.fix is None
    assert f"<IfModule {NOT_LOADED}>" in asked.message and "mod_status.c" not in asked.message  # only its own


def test_sections_that_each_depend_on_one_of_many_conditions_keep_their_fixes():
    findings = access_findings(SIBLINGS)
    assert len(findings) == 4 and all(f.fix is not None for f in findings)
    migrated = migrate(configset(SIBLINGS)).files["httpd.conf"].decode()
    assert "Order" not in migrated and migrated.count("Require all granted") == 4


@pytest.mark.apache
def test_fixes_under_many_conditions_answer_as_the_original_in_every_world_tried(httpd, assert_all_ok):
    """Each module loaded or not: as written, every name swapped with its opposite, and two mixed ways."""
    migrated = migrate(configset(SIBLINGS)).files["httpd.conf"].decode()
    loaded, not_loaded = MODULES[:2], MODULES[2:]
    renamings = [{}, dict(zip(loaded + not_loaded, not_loaded + loaded)),
                 {loaded[0]: not_loaded[0], not_loaded[0]: loaded[0]},
                 {loaded[1]: not_loaded[1], not_loaded[1]: loaded[1]}]
    cases = []
    for names in renamings:
        original, translation = (renamed(SIBLINGS, names), renamed(migrated, names))
        cases.append(differential.Case(f"renamed {names}", reference(original, httpd), {"httpd.conf": translation}))
    assert_all_ok(differential.compare_many(cases, httpd=httpd), "fixes under many conditions")



#: .htaccess files run as the DocumentRoot's <Directory> in the differential harness.
HTACCESS = {
    "lines in a branch": "<IfModule {m}>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</IfModule>\n",
    "Limit": "<Limit GET POST>\norder deny,allow\ndeny from all\nallow from 127.0.0.2\n</Limit>\n",
    "LimitExcept": "<LimitExcept GET>\nOrder allow,deny\nAllow from 127.0.0.1\n</LimitExcept>\n",
}


@pytest.mark.apache
def test_htaccess_lines_in_a_branch_or_a_limit_answer_as_the_original(httpd, assert_all_ok):
    cases, target = [], differential.reference_target(httpd)
    for name, text in HTACCESS.items():
        migrated = migrate(ConfigSet.from_mapping({".htaccess": text.format(m=NOT_LOADED)}, entry=".htaccess"))
        assert not [f for f in migrated.remaining if f.code.startswith("HT5")], name
        for module in (LOADED, NOT_LOADED):
            original = ConfigSet.from_mapping({".htaccess": text.format(m=module)}, entry=".htaccess")
            candidate = migrated.files[".htaccess"].decode().replace(NOT_LOADED, module)
            reference = normalize_22(original, target)
            cases.append(differential.Case(f"{name} / {module}", reference, {".htaccess": candidate}))
    assert_all_ok(differential.compare_many(cases, httpd=httpd), ".htaccess")

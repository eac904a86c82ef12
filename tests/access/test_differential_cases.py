"""Hand-written 2.2 access-control cases, translated by httpd24.access and proven on real apache2.

Reference: normalize_22(original) on apache2 + mod_access_compat; candidate:
translate(original) on apache2 without it; every status of the request matrix
must match (httpd24.apache.differential).
"""

from __future__ import annotations

import re

import pytest

from httpd24.access import build, decide_compat, normalize_22, normalize_notes
from httpd24.apache import differential
from httpd24.config import ConfigSet
from httpd24.engine import migrate
from test_differential_harness import AUTH, DOCROOT, RULE6, STATUS_22

pytestmark = pytest.mark.apache

GROUPS = "    AuthGroupFile /etc/httpd/groups\n"
NO_REALM = AUTH.replace('    AuthName "restricted"\n', "")
NO_USER_FILE = AUTH.replace("    AuthUserFile /etc/httpd/users\n", "")


def configset(text: str) -> ConfigSet:
    return ConfigSet.from_mapping({"httpd.conf": text}, entry="httpd.conf")


def _forms() -> list[tuple[str, str]]:
    out = []
    for item in differential.ADDRESS_ITEMS:
        out.append((f"allow,deny Allow from {item}",
                    DOCROOT + f"<Directory /srv/www>\n    Order allow,deny\n    Allow from {item}\n</Directory>\n"))
        out.append((f"deny,allow Deny from {item}",
                    DOCROOT + f"<Directory /srv/www>\n    Order deny,allow\n    Deny from {item}\n</Directory>\n"))
    out += [
        ("mutual-failure", DOCROOT + "<Directory /srv/www>\n    Order mutual-failure\n    Allow from 127.0.0\n"
         "    Deny from 127.0.0.2\n</Directory>\n"),
        ("allow,deny both", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0\n"
         "    Deny from 127.0.0.2 env=HTTPD24_A\n</Directory>\n"),
        ("deny,allow both", DOCROOT + "<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n"
         "    Allow from 127.0.0.2 127.1 env=HTTPD24_A\n</Directory>\n"),
        ("deny,allow env=!", DOCROOT + "<Directory /srv/www>\n    Order deny,allow\n    Deny from env=!HTTPD24_A\n"
         "    Allow from 127.0.0.9\n</Directory>\n"),
        ("allow,deny alone denies all", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n</Directory>\n"),
        ("deny,allow alone allows all", DOCROOT + "<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n"
         "<Directory /srv/www>\n    Order deny,allow\n</Directory>\n"),
        ("case-insensitive keywords", DOCROOT + "<Directory /srv/www>\n    order Allow,Deny\n    allow FROM ALL\n"
         "    DENY from 127.0.0.2\n</Directory>\n"),
        ("several Allow lines", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0.1\n"
         "    Allow from 127.1.2.3\n    Deny from 127.0.0.0/255.255.255.0\n</Directory>\n"),
    ]
    return out


SATISFY = [
    ("satisfy any + deny all + auth", DOCROOT + f"<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n"
     f"    Allow from 127.0.0.2\n{AUTH}    Require user alice\n    Satisfy Any\n</Directory>\n"),
    ("satisfy all + group", DOCROOT + f"<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0\n"
     f"{AUTH}{GROUPS}    Require group admins\n    Satisfy All\n</Directory>\n"),
    ("satisfy any, no host rules", DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require valid-user\n    Satisfy any\n</Directory>\n"),
    ("satisfy any + deny all, no Require", DOCROOT + "<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n"
     "    Satisfy Any\n</Directory>\n"),
    ("authtype without require", DOCROOT + f"<Directory /srv/www>\n{AUTH}</Directory>\n"),
    # mod_auth_basic and mod_auth_digest need a realm: without an AuthName in effect every request they
    # authenticate gets 500 ("need AuthName", AH01615 / AH01780), credentials or not, on 2.2 as on 2.4.
    ("basic without AuthName", DOCROOT + f"<Directory /srv/www>\n{NO_REALM}    Require valid-user\n</Directory>\n"),
    ("digest without AuthName", DOCROOT + "<Directory /srv/www>\n    AuthType Digest\n"
     "    AuthUserFile /etc/httpd/users\n    Require valid-user\n</Directory>\n"),
    ("without AuthName, satisfy any + allow", DOCROOT + f"<Directory /srv/www>\n{NO_REALM}    Require user alice\n"
     "    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.2\n    Satisfy any\n</Directory>\n"),
    ("AuthName of the parent section, AuthType of the child", DOCROOT + "<Directory /srv/www>\n    AuthName \"r\"\n"
     f"</Directory>\n<Directory /srv/www/a>\n{NO_REALM}    Require valid-user\n</Directory>\n"),
    # Basic credentials with no AuthUserFile in effect: mod_authn_file has no file to open (AH01619 on 2.4), 500;
    # without credentials 401 as ever. Inherited on its own, like AuthName.
    ("basic without AuthUserFile", DOCROOT + f"<Directory /srv/www>\n{NO_USER_FILE}    Require valid-user\n</Directory>\n"),
    ("AuthUserFile of the parent section", DOCROOT + "<Directory /srv/www>\n    AuthUserFile /etc/httpd/users\n"
     f"</Directory>\n<Directory /srv/www/a>\n{NO_USER_FILE}    Require user alice\n</Directory>\n"),
    ("require user list", DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require user bob carol\n</Directory>\n"),
    ("require env deny + satisfy any", DOCROOT + f"<Directory /srv/www>\n    Order allow,deny\n    Allow from env=HTTPD24_A\n"
     f"{AUTH}    Require valid-user\n    Satisfy any\n</Directory>\n"),
    # Both modules not authoritative: 2.2 admitted alice or any admin (HT507's "any of them" case). The
    # harness drops the Authz*Authoritative lines (2.4 refuses them), so the reference reads the lines as
    # 2.4 does -- 2.2's meaning here -- and the translation's <RequireAny> must answer the same.
    ("user or group, neither module authoritative", DOCROOT + f"<Directory /srv/www>\n    Order allow,deny\n"
     f"    Allow from 127.0.0\n{AUTH}{GROUPS}    AuthzUserAuthoritative Off\n    AuthzGroupFileAuthoritative Off\n"
     "    Require user alice\n    Require group admins\n</Directory>\n"),
]

LIMIT = [
    ("limit post auth", DOCROOT + f"<Directory /srv/www>\n{AUTH}    <Limit POST PUT>\n        Require valid-user\n"
     "    </Limit>\n</Directory>\n"),
    ("limitexcept get deny", DOCROOT + "<Directory /srv/www>\n    <LimitExcept GET>\n        Order deny,allow\n"
     "        Deny from all\n    </LimitExcept>\n</Directory>\n"),
    ("limit with host rules", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "    <Limit DELETE>\n        Order deny,allow\n        Deny from all\n        Allow from 127.0.0.1\n    </Limit>\n</Directory>\n"),
    ("limit satisfy any", DOCROOT + f"<Location /a>\n{AUTH}    Require valid-user\n    Order deny,allow\n    Deny from all\n"
     "    Allow from 127.0.0.1\n    <Limit GET>\n        Satisfy Any\n    </Limit>\n</Location>\n"),
    ("limitexcept require under inherited allow", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n"
     f"    Allow from all\n</Directory>\n<Location /a>\n{AUTH}    <LimitExcept GET OPTIONS>\n        Require valid-user\n"
     "    </LimitExcept>\n</Location>\n"),
    # 2.4 grants the methods none of a section's Require lines applies to when they all sit in <Limit>:
    # here 2.2 denies GET /c (inherited address rules, no Require for GET). Found by the random proof
    # (seed 1865002328, index 69): the section was left alone as already 2.4.
    ("limit only require, inherited deny", DOCROOT + f"<Directory />\n    Order mutual-failure\n    Satisfy Any\n{AUTH}"
     "    Require user alice\n</Directory>\n<Location /c>\n    <Limit DELETE>\n"
     f"{AUTH.replace('    ', '        ')}        Require user alice\n    </Limit>\n</Location>\n"),
    # 2.4 takes a <Limit> inside another when it narrows the methods around it (tests/access/test_rules.py
    # has those it refuses); the lines after the inner section are the outer one's again.
    ("limit nested in limitexcept", DOCROOT + "<Directory /srv/www>\n    <LimitExcept GET>\n"
     "        <Limit POST DELETE>\n            Order deny,allow\n            Deny from all\n            Allow from 127.0.0.2\n"
     "        </Limit>\n    </LimitExcept>\n</Directory>\n"),
    ("limit nested in limit, lines after it", DOCROOT + "<Directory /srv/www>\n    <Limit GET POST>\n"
     "        Order deny,allow\n        Deny from all\n        <Limit POST>\n            Allow from 127.0.0.1\n"
     "        </Limit>\n        Allow from 127.0.0.2\n    </Limit>\n</Directory>\n"),
    ("limitexcept nested in limitexcept", DOCROOT + f"<Directory /srv/www>\n{AUTH}    <LimitExcept GET>\n"
     "        <LimitExcept GET OPTIONS>\n            Require valid-user\n        </LimitExcept>\n    </LimitExcept>\n"
     "</Directory>\n"),
    # TRACE is answered before access control; <LimitExcept TRACE> limits every other method.
    ("limitexcept TRACE", DOCROOT + "<Directory /srv/www>\n    <LimitExcept TRACE>\n        Order deny,allow\n"
     "        Deny from all\n    </LimitExcept>\n</Directory>\n"),
]

#: Mixed 2.2/2.4 sections, translated to answer as 2.4 + mod_access_compat does.
HYBRID = [
    # mod_authz_core skips a Require line or container limited to other methods, as GRANTED under an
    # AND (the top of a section's tree, AuthMerging And) and NEUTRAL under an OR.
    ("hybrid limit require ip", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "</Directory>\n<Directory /srv/www/a>\n    <Limit POST>\n        Require ip 127.0.0.2\n    </Limit>\n</Directory>\n"),
    ("hybrid limit require container", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "</Directory>\n<Directory /srv/www/a>\n    <LimitExcept GET>\n        <RequireAny>\n            Require ip 127.0.0.2\n"
     "            Require env HTTPD24_A\n        </RequireAny>\n    </LimitExcept>\n</Directory>\n"),
    ("hybrid limit post container", DOCROOT + "<Directory /srv/www/a>\n    Order allow,deny\n    Allow from all\n"
     "    <Limit POST>\n        <RequireAll>\n            Require ip 127.0.0.2\n"
     "            Require not env HTTPD24_A\n        </RequireAll>\n    </Limit>\n</Directory>\n"),
    ("hybrid limit require, authmerging and", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "</Directory>\n<Directory /srv/www/a>\n    Require ip 127.0.0.1 127.0.0.2\n</Directory>\n<Directory /srv/www/a/b>\n"
     "    AuthMerging And\n    <Limit POST>\n        Require ip 127.0.0.2\n    </Limit>\n</Directory>\n"),
    ("hybrid limit require, authmerging or", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "</Directory>\n<Directory /srv/www/a>\n    Require ip 127.0.0.1\n</Directory>\n<Directory /srv/www/a/b>\n"
     "    AuthMerging Or\n    <Limit POST>\n        Require ip 127.0.0.2\n    </Limit>\n</Directory>\n"),
    # mod_authz_core's merge when a section sets AuthMerging but has no Require line: `And`/`Or` keeps what
    # is inherited and, as the last of a Location group, says how the group joins the directories' lines;
    # an explicit `Off` takes the inherited lines away.
    ("authmerging or without require ends a location group", DOCROOT + "<Location /a>\n    Order mutual-failure\n"
     f"    Deny from 127.0.0.8/29\n{GROUPS}    Require group admins\n</Location>\n<Location /a/b>\n    AuthMerging Or\n"
     "    Order Deny,Allow\n    Allow from 127.1.2\n</Location>\n<Directory />\n    <RequireAny>\n"
     "        Require ip 127.0.0.2\n        Require env HTTPD24_A\n    </RequireAny>\n</Directory>\n"),
    ("authmerging off without require", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "    Require ip 127.0.0.2\n</Directory>\n<Directory /srv/www/a>\n    AuthMerging Off\n</Directory>\n"),
    ("authmerging off without require, then address rules", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n"
     "    Allow from all\n    Require ip 127.0.0.2\n</Directory>\n<Directory /srv/www/a>\n    AuthMerging Off\n</Directory>\n"
     "<Directory /srv/www/a/b>\n    Order deny,allow\n    Deny from 127.0.0.9\n</Directory>\n"),
    ("authmerging off without require under deny rules", DOCROOT + "<Directory /srv/www>\n    Order deny,allow\n"
     "    Deny from 127.0.0.9\n    Require ip 127.0.0.1 127.0.0.9\n</Directory>\n<Directory /srv/www/a>\n"
     "    AuthMerging Off\n</Directory>\n"),
    ("authmerging and without require", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "    Require ip 127.0.0.2\n</Directory>\n<Directory /srv/www/a>\n    AuthMerging And\n</Directory>\n"),
    # `AuthType None` switches the inherited authentication off; a Require that needs no user answers 200.
    ("AuthType None with Require all granted", DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require valid-user\n"
     "</Directory>\n<Directory /srv/www/a>\n    AuthType None\n    Require all granted\n</Directory>\n"
     "<Directory /srv/www/c>\n    Order allow,deny\n    Allow from 127.0.0.1\n</Directory>\n"),
    ("AuthType None without a Require of its own", DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require valid-user\n"
     "    Order allow,deny\n    Allow from all\n</Directory>\n<Directory /srv/www/a>\n    AuthType None\n"
     "</Directory>\n<Directory /srv/www/c>\n    Require ip 127.0.0.1\n</Directory>\n"),
    # /a/ meets both sections, /a only the Location: the one form the translator tries for both must be
    # told apart from the other by a request with the variable a Require line inside <RequireAll> names.
    ("inherited require tree names a variable", DOCROOT + "<DirectoryMatch \"^/srv/www/a/\">\n    <RequireAll>\n"
     "        Require ip 127.0.0.0/8\n        Require not env HTTPD24_B\n    </RequireAll>\n"
     f"{AUTH}{GROUPS}    Require group staff\n</DirectoryMatch>\n<Location /a>\n    Order Allow,Deny\n"
     "    Allow from 127\n</Location>\n"),
]

LOCATION_BESIDE_HTACCESS = {
    "httpd.conf": DOCROOT + "<Location />\n    Satisfy ALL\n</Location>\n<Directory /srv/w*>\n</Directory>\n",
    "srv/www/.htaccess": "Require group admins\n"}

INHERITANCE = [
    # A fragment's <Location /> also meets what an Alias of the configuration including it maps elsewhere (the
    # harness asks for /srv/wv through one): the DocumentRoot's .htaccess is not certain there, and its Require
    # written into the Location applied to /srv/wv, where 2.2 applied nothing (campaign htaccess 91, index 20).
    ("a fragment's Location / beside the DocumentRoot's .htaccess", LOCATION_BESIDE_HTACCESS),
    ("child only Satisfy", DOCROOT + f"<Directory /srv/www>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1\n"
     f"{AUTH}    Require valid-user\n</Directory>\n<Directory /srv/www/a>\n    Satisfy Any\n</Directory>\n"),
    ("child drops inherited Satisfy Any", DOCROOT + f"<Directory /srv/www>\n    Order allow,deny\n    Allow from 127.0.0.1\n"
     f"    Satisfy Any\n{AUTH}    Require valid-user\n</Directory>\n<Directory /srv/www/a>\n    Order allow,deny\n"
     "    Allow from 127.0.0.2\n</Directory>\n"),
    ("parent address rules, child Require", DOCROOT + "<Directory /srv/www>\n    Order deny,allow\n    Deny from 127.0.0.2\n"
     f"</Directory>\n<Directory /srv/www/a>\n{AUTH}    Require valid-user\n</Directory>\n"),
    ("child replaces Require", DOCROOT + f"<Directory /srv/www>\n{AUTH}{GROUPS}    Require group admins\n</Directory>\n"
     "<Directory /srv/www/a>\n    Require user bob\n</Directory>\n"),
    ("location after directory", DOCROOT + "<Directory /srv/www>\n    Order deny,allow\n    Deny from 127.0.0.9\n"
     "</Directory>\n<Location /a>\n    Order allow,deny\n    Allow from 127.0.0\n</Location>\n"),
    ("files in directory", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n"
     "    <Files secret.txt>\n        Order allow,deny\n        Deny from all\n    </Files>\n</Directory>\n"),
    ("filesmatch", DOCROOT + "<FilesMatch \"\\.log$\">\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1\n"
     "</FilesMatch>\n"),
    ("directory root deny, docroot allow", DOCROOT + "<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n"
     "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n<Directory /srv/www/c>\n"
     "    Order deny,allow\n    Deny from all\n    Allow from 127.1\n</Directory>\n"),
    ("three levels", DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require valid-user\n    Order allow,deny\n"
     "    Allow from 127.0.0\n    Satisfy any\n</Directory>\n<Directory /srv/www/a>\n    Order deny,allow\n"
     "    Deny from 127.0.0.1\n</Directory>\n<Directory /srv/www/a/b>\n    Require user carol\n</Directory>\n"),
    ("locationmatch", DOCROOT + "<LocationMatch \"^/c/\">\n    Order allow,deny\n    Allow from 127.0.0.2\n</LocationMatch>\n"),
    ("directorymatch", DOCROOT + "<DirectoryMatch \"^/srv/www/a/\">\n    Order deny,allow\n    Deny from 127.1\n"
     "</DirectoryMatch>\n"),
    # httpd sorts regex <Directory> sections too by the number of "/" (counted in the regex), then by
    # reading order: "^/srv/www/(a|c)" (3) merges before "^/srv/www/a/" (4), whose Require all granted
    # then replaced the Require user carol (found by the explicit random generator, seed 2, index 207).
    ("directorymatch merged by slashes", DOCROOT + "<DirectoryMatch \"^/srv/www/a/\">\n    Order allow,deny\n"
     f"    Allow from all\n</DirectoryMatch>\n<DirectoryMatch \"^/srv/www/(a|c)\">\n{AUTH}    Require user carol\n"
     "</DirectoryMatch>\n"),
    ("virtual host", DOCROOT + "<VirtualHost *:80>\n    DocumentRoot /srv/www\n    <Location /c>\n        Order deny,allow\n"
     "        Deny from all\n    </Location>\n</VirtualHost>\n"),
    # Without an AuthType `Require valid-user` and `Require user carol` both answer 500, so `Require user carol`
    # answered as 2.2 wherever the <Files> is the last section; the <Location> brings AuthType Basic to
    # /d/f.html, where 2.2 asked for any valid user (seed 30301, index 923 of the random run, reduced).
    ("files in two contexts, a later section brings AuthType", DOCROOT + "<Directory />\n    Require valid-user\n"
     "    <Files f.html>\n        Order allow,deny\n        Allow from all\n    </Files>\n</Directory>\n"
     f"<Directory /srv/www/a/b>\n{AUTH}    Require user carol\n</Directory>\n<Location /d>\n{AUTH}</Location>\n"),
    # `AuthType None` replaces the parent's AuthType (2.2: a type no authentication module owns; 2.4: none), so
    # the inherited `Require valid-user` answers 500 under /a, with or without credentials.
    ("AuthType None under an authenticated section", DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require valid-user\n"
     "</Directory>\n<Directory /srv/www/a>\n    AuthType None\n</Directory>\n"),
    ("AuthType None with Satisfy Any and Allow from all", DOCROOT + f"<Directory /srv/www>\n{AUTH}"
     "    Require valid-user\n</Directory>\n<Directory /srv/www/a>\n    AuthType None\n    Order allow,deny\n"
     "    Allow from all\n    Satisfy Any\n</Directory>\n"),
    ("AuthType None under address rules with Satisfy Any", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n"
     f"    Allow from 127.0.0.1\n    Satisfy Any\n{AUTH}    Require valid-user\n</Directory>\n"
     "<Directory /srv/www/a>\n    AuthType None\n</Directory>\n<Directory /srv/www/a/b>\n    Order deny,allow\n"
     "    Deny from 127.0.0.2\n</Directory>\n"),
    ("AuthType None alone, no Require anywhere", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n"
     "    Allow from all\n</Directory>\n<Directory /srv/www/a>\n    AuthType None\n</Directory>\n"),
    # More sections may meet the <Files> than their subsets can be tried one by one (2^12).
    ("shared hosting: many user directories and a Files section", DOCROOT + "<Directory />\n    Order deny,allow\n"
     "    Deny from all\n</Directory>\n<Files ~ \"^\\.ht\">\n    Order allow,deny\n    Deny from all\n"
     "    Satisfy All\n</Files>\n" + "".join(
         f"<Directory /srv/www/u{n}>\n    <Limit GET POST>\n        Order allow,deny\n        Allow from all\n"
         f"    </Limit>\n    <LimitExcept GET POST>\n        Order deny,allow\n        Deny from all\n"
         f"    </LimitExcept>\n</Directory>\n" for n in range(12))),
]


# Without FollowSymLinks (or with SymLinksIfOwnerMatch) where a file lies, httpd's directory walk looks at the
# file's name (lstat) and stops there: the <Directory> sections of the file's own depth (`/srv/www/*`) do not
# apply to it, as they do with FollowSymLinks (tests/access/test_options_walk.py). The harness dropped Options
# lines, so nothing ran these; kept, the model of 2.2 (which judges what the normalisation cannot make
# explicit) still took `<Directory /srv/www/*>` to deny /f.html and /a/f.html (against_model found them all).
SYMLINKS = [
    ("-FollowSymLinks: a wildcard directory does not meet the files beside it", DOCROOT
     + "<Directory /srv/www>\n    Options -FollowSymLinks\n    Order allow,deny\n    Allow from 127.0.0.1 127.0.0.2\n"
     "</Directory>\n<Directory /srv/www/*>\n    Order deny,allow\n    Deny from 127.0.0.2\n</Directory>\n"
     "<Directory /srv/www/a/b>\n</Directory>\n"),
    ("SymLinksIfOwnerMatch on the server: a wildcard directory asks for a user only below it", DOCROOT
     + f"Options SymLinksIfOwnerMatch\n<Directory /srv/www/*>\n{AUTH}    Require valid-user\n    Order allow,deny\n"
     "    Allow from 127.0.0.9\n    Satisfy any\n</Directory>\n<Directory /srv/www/a/b>\n</Directory>\n"),
    ("Options None in a wildcard directory: the one below it meets no file", DOCROOT
     + "<Directory /srv/www>\n    Order deny,allow\n    Deny from 127.1\n</Directory>\n<Directory /srv/www/*>\n"
     "    Options None\n    Order allow,deny\n    Allow from all\n</Directory>\n<Directory /srv/www/*/*>\n"
     "    Order allow,deny\n    Allow from 127.0.0.2\n</Directory>\n<Directory /srv/www/a/b>\n</Directory>\n"),
    ("Options Indexes then +FollowSymLinks below: the walk follows again", DOCROOT
     + "<Directory /srv/www>\n    Options Indexes\n</Directory>\n<Directory /srv/www/a>\n    Options +FollowSymLinks\n"
     "</Directory>\n<Directory /srv/www/*>\n    Order deny,allow\n    Deny from 127.0.0.1\n</Directory>\n"
     "<Directory /srv/www/a/*>\n    Order deny,allow\n    Deny from 127.0.0.2\n</Directory>\n"
     "<Directory /srv/www/a/b>\n</Directory>\n"),
    # /a is a directory (the harness puts /a/f.html in it): asked for without its slash, the walk finds a
    # directory there and tests `/srv/www/[ac]` against "/srv/www/a/", whatever the options. The model, told
    # nothing of the disk, took /a for a file and met the section only through FollowSymLinks (seed 3132,
    # index 1111 of the wide run).
    ("a directory asked for without its slash meets its sections without FollowSymLinks", DOCROOT
     + "Options -FollowSymLinks\n<Location /a>\n</Location>\n<Directory /srv/www/[ac]>\n    Order deny,allow\n"
     "    Deny from 127.0.0.2\n</Directory>\n"),
]


@pytest.mark.parametrize("group", ["forms", "satisfy", "limit", "inheritance", "spec", "symlinks"])
def test_translation_matches(httpd, translation_cases, assert_all_ok, group):
    items = {
        "forms": _forms(),
        "satisfy": SATISFY,
        "limit": LIMIT,
        "inheritance": INHERITANCE,
        "spec": [(f"spec §5.2 rule 6 {k}", DOCROOT + v[0]) for k, v in RULE6.items()] + [("spec §4 server-status", STATUS_22)],
        "symlinks": SYMLINKS,
    }[group]
    reports = differential.compare_many(translation_cases(items), httpd=httpd)
    assert all(r.requests for r in reports if r.ok)
    assert_all_ok(reports, group)
    # The model of 2.2, which judges the random configurations the normalisation cannot make
    # explicit, must answer as the real servers here (virtual hosts are not judged).
    wrong = {label: differential.against_model(r, text)[:3] for (label, text), r in zip(items, reports)
             if "<VirtualHost" not in text and differential.against_model(r, text)}
    assert wrong == {}


def test_a_whole_servers_requests_stay_where_its_document_root_and_aliases_map(httpd, translation_cases):
    """A whole server configuration (a PidFile) has every Alias there is: nothing reaches /srv/wv, so the
    harness asks for nothing through /__fs, and the Location's translation (the .htaccess is certain under it)
    answers as 2.2 wherever a request can go."""
    whole = {**LOCATION_BESIDE_HTACCESS,
             "httpd.conf": "PidFile run/httpd.pid\n" + LOCATION_BESIDE_HTACCESS["httpd.conf"]}
    [report] = differential.compare_many(translation_cases([("whole", whole)]), httpd=httpd)
    assert report.ok, report.format()
    assert report.requests and not any(q.path.startswith("/__fs/") for q in report.statuses)
    [fragment] = differential.compare_many(translation_cases([("fragment", LOCATION_BESIDE_HTACCESS)]), httpd=httpd)
    assert fragment.ok and any(q.path.startswith("/__fs/srv/wv/") for q in fragment.statuses), fragment.format()


def test_mixed_sections_answer_as_on_2_4_with_compat(httpd, translation_cases, assert_all_ok):
    """The translation answers as the original does on 2.4 with mod_access_compat, and so does the
    model of that server (2.2 refuses `Require ip`, so the model of 2.2 does not judge these)."""
    reports = differential.compare_many(translation_cases(HYBRID), httpd=httpd)
    assert_all_ok(reports, "mixed 2.2/2.4")
    wrong = {}
    for (label, text), report in zip(HYBRID, reports):
        model = build(configset(text))
        bad = [f"{q.describe()}: server {reference}" for q, (reference, _candidate) in report.statuses.items()
               if differential.access_answer(reference) != decide_compat(model, differential.model_request(q, report))]
        if bad:
            wrong[label] = bad[:3]
    assert wrong == {}


def test_server_status_translated_logs(httpd, access):
    original = configset(STATUS_22)
    report = differential.compare(access.normalize_22(configset(STATUS_22)), access.translate(original),
                                  name="server-status", httpd=httpd)
    assert report.ok, report.format()
    got = {q.source: b for q, (_a, b) in report.statuses.items() if q.path == "/server-status" and q.user is None}
    assert got == {"127.0.0.1": 200, "127.0.0.2": 403, "127.0.0.9": 403, "127.1.2.3": 403,
                   **({"::1": 403} if "::1" in differential.SOURCES else {})}
    logs = differential.last_logs()
    assert re.search(r'^127\.0\.0\.9 - - \[[^]]+\] "GET /server-status HTTP/1\.1" 403 ', logs["cand_access"], re.M)
    assert re.search(r'^127\.0\.0\.1 - - \[[^]]+\] "GET /server-status HTTP/1\.1" 200 ', logs["cand_access"], re.M)
    assert re.search(r"AH01797: client denied by server configuration: \S*/server-status", logs["ref_error"])
    assert re.search(r"AH01630: client denied by server configuration: \S*/server-status", logs["cand_error"])


def test_hybrid_ah01797_example(httpd, access):
    """Spec §5.2 rule 4: the migration must keep today's answer (403 for every client)."""
    hybrid = ("<Directory />\n    AllowOverride None\n    Order deny,allow\n    Deny from all\n</Directory>\n"
              "<Location /server-status>\n    SetHandler server-status\n    Require local\n</Location>\n")
    report = differential.compare(access.normalize_22(configset(hybrid)), access.translate(configset(hybrid)),
                                  name="AH01797 example", httpd=httpd)
    assert report.ok, report.format()
    assert {b for q, (_a, b) in report.statuses.items() if q.path == "/server-status"} == {403}


#: An AuthMerging alone, which the translation turns into `Require all granted` there: an `AuthMerging Or` written into
#: the Location would then grant every request under it (seed 605110615, index 345 of the mixed run). No single 2.4
#: form answers as today for /a and /a.log alike, so the Location needs a person.
AUTHMERGING_ALONE = (DOCROOT + "<Directory />\n    AuthMerging Or\n</Directory>\n<FilesMatch \"\\.log$\">\n"
                     f"    Order deny,allow\n    Allow from 127.0.0.2\n    Satisfy any\n{AUTH}    Require valid-user\n"
                     f"</FilesMatch>\n<Location /a>\n{AUTH}    Require user alice\n</Location>\n")


def test_an_authmerging_alone_is_not_taken_for_nothing_inherited(httpd):
    result = migrate(configset(AUTHMERGING_ALONE))
    assert not result.changed
    [location] = [f for f in result.remaining if f.code == "HT502" and f.message.startswith("<Location /a>")]
    assert location.fix is None and "its meaning depends on which other sections apply" in location.message
    # What the AuthMerging Or that was written answered, against today's answers on 2.4 with mod_access_compat:
    written = AUTHMERGING_ALONE.replace("<Directory />\n    AuthMerging Or\n", "<Directory />\n    Require all granted\n")
    written = written.replace("    Order deny,allow\n    Allow from 127.0.0.2\n    Satisfy any\n", "").replace(
        "    Require valid-user\n", "    <RequireAny>\n        Require ip 127.0.0.2\n        Require valid-user\n"
        "    </RequireAny>\n").replace("    Require user alice\n", "    AuthMerging Or\n    Require user alice\n")
    report = differential.compare(AUTHMERGING_ALONE, configset(written), name="authmerging alone", httpd=httpd)
    assert not report.ok and report.statuses  # the test can tell: that form opened /a to everyone


#: Seed 30301, index 923 of the random run, reduced. The <Files> was written `Require user carol` (its 2.2 meaning
#: under /srv/www/a/b, and under <Directory /> alone, where no AuthType applies, one that answers as `Require
#: valid-user` does: 500) and the <Location> `AuthMerging And` + `Require user alice`: carol and alice at /d/f.html,
#: where 2.2 let alice in. The address rules of <Directory /> stop `AuthMerging And` in the <Files> as well, and no
#: other 2.4 form keeps each context's inherited Require line without them.
LATER_AUTHTYPE = (DOCROOT + "<Directory />\n    Order deny,allow\n    Deny from 127.1.0.0/16\n    Require valid-user\n"
                  "    <Files f.html>\n        Order allow,deny\n        Allow from all\n    </Files>\n</Directory>\n"
                  f"<Directory /srv/www/a/b>\n{AUTH}    Require user carol\n</Directory>\n<Location /d>\n{AUTH}"
                  "    Require user alice\n</Location>\n")


def test_a_form_that_answers_as_2_2_only_without_a_later_authtype_is_left_to_a_person(httpd):
    result = migrate(configset(LATER_AUTHTYPE))
    assert not result.changed
    [files] = [f for f in result.remaining if f.code == "HT501" and f.message.startswith("<Files f.html>")]
    assert files.fix is None and "(<Directory />, <Directory /srv/www/a/b>)" in files.message
    assert "<Location /d> (httpd.conf:17) also applies and sets an AuthType" in files.message
    # The normalisation cannot make 2.2's inheritance explicit here: the 2.2 model judges what was written.
    _, notes = normalize_notes(configset(LATER_AUTHTYPE))
    assert notes
    written = LATER_AUTHTYPE.replace("    Order deny,allow\n    Deny from 127.1.0.0/16\n    Require valid-user\n",
                                     "    <RequireAll>\n        Require valid-user\n        Require not ip 127.1.0.0/16\n"
                                     "    </RequireAll>\n").replace(
        "        Order allow,deny\n        Allow from all\n", "        Require user carol\n").replace(
        "    Require user carol\n</Directory>", "    <RequireAll>\n        Require user carol\n"
        "        Require not ip 127.1.0.0/16\n    </RequireAll>\n</Directory>").replace(
        "    Require user alice\n", "    AuthMerging And\n    Require user alice\n")
    report = differential.compare(normalize_22(configset(LATER_AUTHTYPE)), configset(written), name="later authtype",
                                  httpd=httpd)
    wrong = differential.against_model(report, LATER_AUTHTYPE)
    assert any(m.request.path == "/d/f.html" and m.request.user == "alice" and m.candidate == 401 for m in wrong), (
        report.format())
    assert {m.request.path for m in wrong} == {"/d/f.html"}, [str(m) for m in wrong]


#: Mixed configurations with a section that sets AuthType where no Require applies: 2.4 with
#: mod_access_compat answers 500 there today (AH01627), and the migration must keep that answer, across
#: all of its passes, until a person adds the Require lines the section needs.
AUTHTYPE_500 = [
    # The Order/Allow of /srv/www would become `Require all granted`, which /srv/www/b inherits.
    ("under a section the translation gives Require lines", DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n"
     "    Allow from all\n</Directory>\n<Directory /srv/www/a>\n    Require ip 127.0.0.2\n</Directory>\n"
     f"<Directory /srv/www/b>\n{AUTH}</Directory>\n"),
    # Nothing around /srv/www/b: the first pass leaves it alone, and the next pass, which sees no
    # Order/Allow/Deny any more, must not read it as 2.2 (where it asked for no authentication).
    ("alone, after the mixed sections are rewritten", DOCROOT + "<Directory /srv/www/a>\n    Order allow,deny\n"
     "    Allow from all\n</Directory>\n<Directory /srv/www/c>\n    Require ip 127.0.0.2\n</Directory>\n"
     f"<Directory /srv/www/b>\n{AUTH}</Directory>\n"),
]


@pytest.mark.parametrize("label, text", AUTHTYPE_500, ids=[label for label, _ in AUTHTYPE_500])
def test_mixed_authtype_without_require_keeps_its_answer(httpd, label, text):
    result = migrate(configset(text))
    [asked] = [f for f in result.remaining if f.code == "HT504"]
    assert asked.fix is None and "500 there today" in asked.message and "<Directory /srv/www/b>" in asked.message
    if not result.changed:  # the rewrite waits for the person who adds the section's Require lines
        assert "<Directory /srv/www>" in asked.message
        assert all(f.fix is None and "needs a person" in f.message for f in result.remaining if f.code == "HT502")
        return
    report = differential.compare(text, configset(result.files["httpd.conf"].decode()), name=label, httpd=httpd)
    assert report.ok, report.format()
    assert {q.path.split("/")[1] for q, (reference, _) in report.statuses.items() if reference == 500} == {"b"}


def test_authtype_without_require_in_a_configuration_written_for_2_4_keeps_its_answer(httpd):
    """No Order/Allow/Deny anywhere, but a `Require ip` that 2.2 could not have used: the configuration
    runs on 2.4 already, where /srv/www/b answers 500 today, and `Require all granted` would open it."""
    text = (DOCROOT + "<Directory /srv/www/c>\n    Require ip 127.0.0.2\n</Directory>\n"
            f"<Directory /srv/www/b>\n{AUTH}</Directory>\n")
    result = migrate(configset(text))
    [asked] = [f for f in result.remaining if f.code == "HT504"]
    assert asked.fix is None and "500 there today" in asked.message
    report = differential.compare(text, configset(result.files["httpd.conf"].decode()), name="written for 2.4",
                                  httpd=httpd)
    assert report.ok, report.format()
    assert {q.path.split("/")[1] for q, (reference, _) in report.statuses.items() if reference == 500} == {"b"}


#: <Limit> names methods as httpd registers them, case-sensitively: `get` is not GET but a method of its
#: own that the section registers (2.2 and 2.4 alike), as is PURGE. 2.4's `Require method` refuses a
#: method nobody registered ("Invalid Method"), and the translation removes the <Limit> that did.
LIMIT_METHOD_NAMES = [
    ("lower-case LimitExcept", DOCROOT + "<Directory /srv/www>\n    <LimitExcept get>\n        Order deny,allow\n"
     "        Deny from all\n    </LimitExcept>\n</Directory>\n"),
    ("mixed-case Limit", DOCROOT + "<Directory /srv/www>\n    <Limit Get Post>\n        Order deny,allow\n"
     "        Deny from all\n    </Limit>\n</Directory>\n"),
    ("lower-case Limit around Require", DOCROOT + f"<Directory /srv/www>\n{AUTH}    <Limit post put>\n"
     "        Require valid-user\n    </Limit>\n    Order allow,deny\n    Allow from all\n</Directory>\n"),
    ("a method httpd does not know", DOCROOT + "<Directory /srv/www>\n    <Limit PURGE>\n        Order deny,allow\n"
     "        Deny from all\n    </Limit>\n</Directory>\n"),
    ("lower-case trace, a method of its own", DOCROOT + "<Directory /srv/www>\n    <Limit trace>\n"
     "        Order deny,allow\n        Deny from all\n    </Limit>\n</Directory>\n"),
    ("LimitExcept with a method httpd does not know", DOCROOT + "<Directory /srv/www>\n    <LimitExcept GET PURGE>\n"
     "        Order deny,allow\n        Deny from all\n    </LimitExcept>\n</Directory>\n"),
]


@pytest.mark.parametrize("label, text", LIMIT_METHOD_NAMES, ids=[label for label, _ in LIMIT_METHOD_NAMES])
def test_limit_method_names_are_read_as_httpd_registers_them(httpd, label, text):
    result = migrate(configset(text))
    migrated = result.files["httpd.conf"].decode()
    if "Order" in migrated:  # left to a person, who is told why
        assert any(f.code == "HT501" and "method" in f.message for f in result.remaining), result.remaining
        return
    report = differential.compare(text, configset(migrated), name=label, httpd=httpd)
    assert report.ok, report.format()


#: A file several sections include: a fix edits the file once, for all of them, while the translation
#: of each section was made for that section alone (its later passes read the edited text).
SHARED_FILES = [
    ("an Allow list two sections share", {
        "httpd.conf": DOCROOT + "<Directory /srv/www/a>\n    Order allow,deny\n    Include list.conf\n</Directory>\n"
                      "<Directory /srv/www/c>\n    Order allow,deny\n    Include list.conf\n</Directory>\n",
        "list.conf": "Allow from 127.0.0.1\n"}),
    ("a whole rule set, one section adding Satisfy Any and a user", {
        "httpd.conf": DOCROOT + f"<Directory /srv/www/a>\n    Include acl.conf\n{AUTH}    Require valid-user\n"
                      "    Satisfy any\n</Directory>\n<Directory /srv/www/c>\n    Include acl.conf\n    Satisfy all\n"
                      "</Directory>\n",
        "acl.conf": "Order deny,allow\nDeny from all\nAllow from 127.0.0.1\n"}),
]


@pytest.mark.parametrize("label, files", SHARED_FILES, ids=[label for label, _ in SHARED_FILES])
def test_a_file_several_sections_include_is_translated_for_all_of_them_or_left_alone(httpd, label, files):
    # The reference of `migrate --verify` leaves the shared lines as written (it raised "not attached").
    _, notes = normalize_notes(ConfigSet.from_mapping(files, entry="httpd.conf"))
    assert any("a file included by more than one section" in note for note in notes), notes
    result = migrate(ConfigSet.from_mapping(files, entry="httpd.conf"))
    migrated = {name: data.decode() for name, data in result.files.items()}
    if any("Order" in text or "Allow" in text for text in migrated.values()):  # left to a person, told why
        assert any(f.code == "HT501" and "included" in f.message for f in result.remaining), result.remaining
        return
    report = differential.compare(ConfigSet.from_mapping(files, entry="httpd.conf"),
                                  ConfigSet.from_mapping(migrated, entry="httpd.conf"), name=label, httpd=httpd)
    assert report.ok, report.format()


#: Sections whose access lines are all in one file they each include, and which need the same translation:
#: it is written once, in that file, for all of them.
SHARED_ALIKE = [
    ("two directories, one rule set", {
        "httpd.conf": DOCROOT + "<Directory /srv/www/a>\n    Include access.conf\n</Directory>\n"
                      "<Directory /srv/www/c>\n    Include access.conf\n</Directory>\n",
        "access.conf": "Order deny,allow\nDeny from all\nAllow from 127.0.0.1 127.1\n"}),
    ("under a translated parent, with Satisfy Any and a user", {
        "httpd.conf": DOCROOT + "<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n"
                      "<Directory /srv/www/a>\n    Include acl.conf\n</Directory>\n<Location /c>\n    Include acl.conf\n"
                      "</Location>\n",
        "acl.conf": AUTH + "Require valid-user\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\n"}),
]


@pytest.mark.parametrize("label, files", SHARED_ALIKE, ids=[label for label, _ in SHARED_ALIKE])
def test_a_file_sections_include_alike_is_translated_once_for_all_of_them(httpd, access, label, files):
    def original() -> ConfigSet:
        return ConfigSet.from_mapping(files, entry="httpd.conf")

    reference, notes = normalize_notes(original())
    assert not any("include" in note for note in notes), notes
    result = migrate(original())
    migrated = {name: data.decode() for name, data in result.files.items()}
    shared = next(name for name in files if name != "httpd.conf")
    assert not any(re.search(r"^\s*(Order|Allow|Deny|Satisfy)\b", text, re.M) for text in migrated.values()), migrated
    assert "Require" in migrated[shared] and migrated["httpd.conf"].count("Include") == 2, migrated
    for candidate in (ConfigSet.from_mapping(migrated, entry="httpd.conf"), access.translate(original())):
        report = differential.compare(reference, candidate, name=label, httpd=httpd)
        assert report.ok, report.format()
        answers = {answer for _, answer in report.statuses.values()}
        assert 200 in answers and answers & {401, 403}, answers


#: The same file included by sections that need different translations: one edit there cannot serve them all.
SHARED_UNLIKE = {
    "httpd.conf": DOCROOT + f"<Directory /srv/www/a>\n{AUTH}    Require valid-user\n    Satisfy any\n</Directory>\n"
                  "<Directory /srv/www/a/b>\n    Include acl.conf\n</Directory>\n<Directory /srv/www/c>\n"
                  "    Include acl.conf\n</Directory>\n",
    "acl.conf": "Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n",
}


def test_a_file_sections_include_unlike_is_left_to_a_person_with_the_includes_named(httpd):
    def original(files=SHARED_UNLIKE) -> ConfigSet:
        return ConfigSet.from_mapping(files, entry="httpd.conf")

    result = migrate(original())
    assert result.files["acl.conf"].decode() == SHARED_UNLIKE["acl.conf"]
    reasons = {f.message.split(":")[0]: f.message for f in result.remaining if "a person must decide" in f.message}
    assert set(reasons) == {"<Directory /srv/www/a/b>", "<Directory /srv/www/c>"}, reasons
    assert all("(httpd.conf:10, httpd.conf:13)" in r and "different translations" in r for r in reasons.values()), reasons
    # Why: with its lines copied into each section, each gets a translation of its own, and either one
    # written into the shared file for both changes some answers on apache2.
    inlined = SHARED_UNLIKE["httpd.conf"].replace("    Include acl.conf\n", "    Order deny,allow\n    Deny from all\n"
                                                  "    Allow from 127.0.0.2\n")
    own = migrate(configset(inlined)).files["httpd.conf"].decode()
    sections = re.findall(r"<Directory /srv/www/(?:a/b|c)>\n(.*?)</Directory>", own, re.S)
    assert len(set(sections)) == 2, own
    report = differential.compare(normalize_22(configset(inlined)), configset(own), name="each its own", httpd=httpd)
    assert report.ok, report.format()
    for text in sections:
        one = dict(SHARED_UNLIKE, **{"acl.conf": text.replace("\n    ", "\n").strip() + "\n"})
        one["httpd.conf"] = own.split("<Directory /srv/www/a/b>")[0] + SHARED_UNLIKE["httpd.conf"].split(
            "</Directory>\n", 1)[1]
        report = differential.compare(normalize_22(configset(inlined)), original(one), name="one for both", httpd=httpd)
        assert not report.ok and report.statuses, report.format()


#: A section whose access lines all sit in an undecided branch inside a <Limit>: the translation is written in
#: the branch (it holds only where that is read), so the <Limit> around it would keep only its methods, while
#: the translation says for itself which methods each line is for. Here 2.2 asks GET for a user (inherited
#: Require) and refuses POST; written inside <Limit POST>, 2.4 granted GET to anyone.
IN_A_BRANCH_IN_A_LIMIT = (DOCROOT + f"<Directory /srv/www>\n{AUTH}    Require valid-user\n</Directory>\n"
                          "<Directory /srv/www/a>\n    <Limit POST>\n        <IfModule mod_authz_host.c>\n"
                          "            Order deny,allow\n            Deny from all\n        </IfModule>\n    </Limit>\n"
                          "</Directory>\n")


def test_access_lines_in_a_branch_inside_a_limit_are_left_to_a_person(httpd):
    result = migrate(configset(IN_A_BRANCH_IN_A_LIMIT))
    assert not result.changed
    [asked] = [f for f in result.remaining if f.code == "HT501"]
    assert asked.fix is None and "<IfModule mod_authz_host.c>" in asked.message and "<Limit POST>" in asked.message
    _, notes = normalize_notes(configset(IN_A_BRANCH_IN_A_LIMIT))  # its --verify reference did not start
    assert any("<Limit POST>" in note for note in notes), notes
    # What was written, against today's answers (the same lines without the <IfModule>, which httpd reads).
    written = IN_A_BRANCH_IN_A_LIMIT.replace("            Order deny,allow\n            Deny from all\n",
                                             "            <RequireAll>\n                Require valid-user\n"
                                             "                Require not method POST\n            </RequireAll>\n")
    today = normalize_22(configset(IN_A_BRANCH_IN_A_LIMIT.replace("        <IfModule mod_authz_host.c>\n", "").replace(
        "        </IfModule>\n", "")))
    report = differential.compare(today, configset(written), name="written inside the <Limit>", httpd=httpd)
    assert not report.ok and any(q.method == "GET" and q.user is None and (reference, candidate) == (401, 200)
                                 for q, (reference, candidate) in report.statuses.items())
    # With the <IfModule> moved around the <Limit>, as the message says, the translation answers as today.
    moved = IN_A_BRANCH_IN_A_LIMIT.replace("    <Limit POST>\n        <IfModule mod_authz_host.c>\n",
                                           "    <IfModule mod_authz_host.c>\n        <Limit POST>\n").replace(
        "        </IfModule>\n    </Limit>\n", "        </Limit>\n    </IfModule>\n")
    migrated = migrate(configset(moved)).files["httpd.conf"].decode()
    assert "Order" not in migrated
    report = differential.compare(today, configset(migrated), name="IfModule around the Limit", httpd=httpd)
    assert report.ok, report.format()


# A wildcard <Directory> may meet a Location whose directory is written otherwise: /a/b maps into
# /srv/www/a/b, which /srv/www/*/b names. The plan took them for sections that never meet and wrote
# `Require all granted` into the Location, opening /a/b to everyone where 2.2 asked for alice or bob.
# Found by the wide random generator through migrate (seed 6, index 58), against the 2.2 model. The
# Location (`^/a/b` also matches /a/bc) meets the Directory for some of its URLs only: a person decides.
WILDCARD_UNDER_LOCATION = (DOCROOT + "<Location ~ \"^/a/b\">\n    Order deny,allow\n    Allow from 127.1.2.3\n"
                           "</Location>\n<Directory /srv/www/*/b>\n    Order allow,deny\n    Deny from all\n"
                           f"{AUTH}    Require user alice bob\n</Directory>\n")


def test_a_wildcard_directory_that_may_meet_a_location_is_left_to_a_person(access):
    with pytest.raises(access.TranslationError, match=r"<Location ~ \^/a/b>: its meaning depends on which other "
                       r"sections apply to the request \(<Directory /srv/www/\*/b>\)"):
        access.translate(configset(WILDCARD_UNDER_LOCATION))
    result = migrate(configset(WILDCARD_UNDER_LOCATION))
    assert "Require all granted" not in result.files["httpd.conf"].decode()
    assert any(f.code == "HT501" and f.line == 3 and not f.fixable for f in result.remaining)

"""What a <Files> section meets in a request for a directory, measured on apache2, and the model's reading.

httpd's file walk matches <Files> against what follows the last "/" of the request's file name (request.c,
2.2 as 2.4): `f.html` for /f.html (a directory asked without its slash: access is checked before mod_dir
redirects), and "" for /f.html/. Then mod_dir looks the DirectoryIndex file up in a subrequest of its own
(/f.html/index.html: the <Files> sections of *that* name apply) and answers with its refusal if it is refused
(mod_dir fixup_dir; the test harness writes an index.html in every directory).

The model matched a directory's own name for /f.html/ too (it took the slash off first): 403 where apache2
answers 200 for `<Files f.html>`; and it never looked at the index file: 200 where apache2 answers 403 for
`<Files *.html>`.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from apache_fixture import httpd  # noqa: F401

from httpd24.access import Request, build, decide_22, decide_compat
from httpd24.apache import Instance
from httpd24.apache.differential import access_answer
from httpd24.config import ConfigSet

SECTIONS = ("<Files f.html>", "<Files *.html>", "<Files index.html>", '<FilesMatch "^$">', "<Files *>")
PATHS = ("/", "/f.html", "/f.html/", "/f.html/index.html", "/g.txt")
#: section -> path -> status of apache2 (with mod_access_compat), 301 (mod_dir's redirect) read as 200.
MEASURED = {
    "<Files f.html>": {"/": 200, "/f.html": 403, "/f.html/": 200, "/f.html/index.html": 200, "/g.txt": 200},
    "<Files *.html>": {"/": 403, "/f.html": 403, "/f.html/": 403, "/f.html/index.html": 403, "/g.txt": 200},
    "<Files index.html>": {"/": 403, "/f.html": 200, "/f.html/": 403, "/f.html/index.html": 403, "/g.txt": 200},
    '<FilesMatch "^$">': {"/": 403, "/f.html": 200, "/f.html/": 403, "/f.html/index.html": 200, "/g.txt": 200},
    "<Files *>": {"/": 403, "/f.html": 403, "/f.html/": 403, "/f.html/index.html": 403, "/g.txt": 403},
}


def config(root: str, section: str) -> str:
    name = section.split()[0][1:]
    return (f"DocumentRoot {root}/www\nDirectoryIndex index.html\n<Directory {root}/www/f.html>\n</Directory>\n"
            f"{section}\n    Order allow,deny\n    Deny from all\n</{name}>\n")


@pytest.mark.apache
def test_apache2_meets_files_sections_in_a_directory_request_so(httpd):  # noqa: F811
    top = Path(tempfile.mkdtemp(prefix="httpd24-files-dir-"))
    try:
        top.chmod(0o755)
        (top / "www" / "f.html").mkdir(parents=True)
        for name in ("www/index.html", "www/f.html/index.html", "www/g.txt"):
            (top / name).write_text("hello\n")
        got = {}
        for section in SECTIONS:
            with Instance({"site.conf": config(str(top), section)}, "site.conf",
                          ["authz_core_module", "access_compat_module", "dir_module"], httpd=httpd) as srv:
                got[section] = {path: access_answer(srv.request(path).status) for path in PATHS}
        assert got == MEASURED
    finally:
        shutil.rmtree(top)


@pytest.mark.parametrize("decide", [decide_22, decide_compat])
def test_the_model_meets_them_as_apache2_does(decide):
    got = {}
    for section in SECTIONS:
        model = build(ConfigSet.from_mapping({"httpd.conf": config("/srv", section)}, entry="httpd.conf"))
        got[section] = {path: decide(model, Request(path, is_dir=path in ("/", "/f.html", "/f.html/"),
                                                      index="index.html"))
                        for path in PATHS}
    assert got == MEASURED

"""Driving a real Apache httpd 2.4 binary (Debian's ``apache2`` or the official image's ``httpd``).

Standard library only.  Used by ``migrate --verify``, the operator's
configtest gate and the tests.

* :func:`find_httpd` -> :class:`Httpd` | None (``HTTPD24_HTTPD`` overrides).
* :func:`server_config` -- a minimal main config (LoadModule lines, PidFile,
  Listen, ErrorLog, DefaultRuntimeDir, User/Group when root) that includes the
  caller's entry file.
* :func:`configtest` -- ``httpd -t`` on a mapping of files -> :class:`ConfigTestResult`.
* :func:`dump` -- ``httpd -t -D DUMP_INCLUDES | DUMP_RUN_CFG | DUMP_CONFIG | ...``.
* :class:`Instance` -- a real server on a free 127.0.0.1 port in a temp dir.
* :func:`request` -- one raw HTTP request from a chosen 127.0.0.0/8 source address;
  :func:`request_matrix` -- statuses for paths x sources x credentials x headers.
* :func:`htpasswd_file`, :func:`htgroup_file` -- password / group file contents.
* :mod:`httpd24.apache.table` -- the directive -> module table (data only).

Every run writes the caller's files into ``<tmp>/root`` (the ServerRoot; file
names are relative to it) and its own files into ``<tmp>/httpd24``; nothing
under /etc, /var or /run is read or written (unless the caller's configuration
names such paths itself).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: Public name -> the submodule that defines it. Loaded on first use (PEP 562): the linter needs only
#: :mod:`httpd24.apache.table`, and importing the rest (http.client, subprocess handling) made every
#: ``httpd24 lint`` start slower.
_EXPORTS = {
    "htgroup_file": "_auth", "htpasswd_file": "_auth", "htpasswd_line": "_auth", "write_htgroup": "_auth",
    "write_htpasswd": "_auth",
    "Response": "_client", "request": "_client", "request_matrix": "_client",
    "DEFAULT_MPM": "_httpd", "ConfigTestResult": "_httpd", "Httpd": "_httpd", "HttpdError": "_httpd",
    "configtest": "_httpd", "dump": "_httpd", "find_httpd": "_httpd", "load_modules": "_httpd",
    "run_user": "_httpd", "server_config": "_httpd", "write_tree": "_httpd",
    "Instance": "_instance", "free_port": "_instance",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from ._auth import htgroup_file, htpasswd_file, htpasswd_line, write_htgroup, write_htpasswd
    from ._client import Response, request, request_matrix
    from ._httpd import (
        DEFAULT_MPM,
        ConfigTestResult,
        Httpd,
        HttpdError,
        configtest,
        dump,
        find_httpd,
        load_modules,
        run_user,
        server_config,
        write_tree,
    )
    from ._instance import Instance, free_port

__all__ = [
    "DEFAULT_MPM",
    "ConfigTestResult",
    "Httpd",
    "HttpdError",
    "Instance",
    "Response",
    "configtest",
    "dump",
    "find_httpd",
    "free_port",
    "htgroup_file",
    "htpasswd_file",
    "htpasswd_line",
    "load_modules",
    "request",
    "request_matrix",
    "run_user",
    "server_config",
    "write_htgroup",
    "write_htpasswd",
    "write_tree",
]

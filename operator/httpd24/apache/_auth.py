"""Password and group files for tests (mod_authn_file / mod_authz_groupfile)."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
from typing import Iterable, Mapping

__all__ = ["htpasswd_line", "htpasswd_file", "htgroup_file", "write_htpasswd", "write_htgroup"]


def htpasswd_line(user: str, password: str, *, scheme: str = "auto") -> str:
    """One ``user:hash`` line.

    ``scheme``: ``"sha"`` (``{SHA}`` base64 SHA-1, computed in Python),
    ``"md5"`` / ``"bcrypt"`` (``htpasswd -n -b -m`` / ``-B`` from apache2-utils),
    ``"auto"``: md5 through ``htpasswd`` when it is installed, else sha.
    """
    if ":" in user or "\n" in user or "\n" in password:
        raise ValueError("user must not contain ':' or newlines")
    tool = shutil.which("htpasswd", path="/usr/bin:/usr/sbin:/usr/local/bin:/usr/local/apache2/bin:/bin")
    if scheme == "auto":
        scheme = "md5" if tool else "sha"
    if scheme == "sha":
        digest = base64.b64encode(hashlib.sha1(password.encode("utf-8")).digest()).decode("ascii")
        return f"{user}:{{SHA}}{digest}"
    if scheme in ("md5", "bcrypt"):
        if not tool:
            raise RuntimeError("htpasswd (apache2-utils) is not installed")
        flag = "-m" if scheme == "md5" else "-B"
        cp = subprocess.run([tool, "-n", "-b", flag, user, password], capture_output=True, text=True, timeout=30, check=True)
        return cp.stdout.strip()
    raise ValueError(f"unknown scheme {scheme!r}")


def htpasswd_file(users: Mapping[str, str], *, scheme: str = "auto") -> bytes:
    """The content of an AuthUserFile for ``users`` (name -> password)."""
    return "".join(htpasswd_line(u, p, scheme=scheme) + "\n" for u, p in users.items()).encode("utf-8")


def htgroup_file(groups: Mapping[str, Iterable[str]]) -> bytes:
    """The content of an AuthGroupFile: ``group: user1 user2`` lines."""
    return "".join(f"{g}: {' '.join(members)}\n" for g, members in groups.items()).encode("utf-8")


def write_htpasswd(path: str | os.PathLike[str], users: Mapping[str, str], *, scheme: str = "auto") -> None:
    with open(path, "wb") as f:
        f.write(htpasswd_file(users, scheme=scheme))


def write_htgroup(path: str | os.PathLike[str], groups: Mapping[str, Iterable[str]]) -> None:
    with open(path, "wb") as f:
        f.write(htgroup_file(groups))

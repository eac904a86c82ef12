#!/usr/bin/env python3
"""Generate the directive -> module table from a real Debian apache2 binary.

Writes ``operator/httpd24/engine/data/directives.tsv``, ``modules.tsv`` (see
``httpd24.apache.table`` for the columns) and ``build.txt`` (the server version
the table was made from, e.g. ``Apache/2.4.71 (Debian)``).  Mechanics:

1. Every ``*.so`` in the module directory is read as an ELF file; the one
   exported object symbol ending in ``_module`` is its LoadModule identifier.
2. For each MPM in turn, a main configuration loads that MPM plus every other
   shared module, and ``apache2 -L`` (directives with their module source file
   and allowed contexts) and ``apache2 -M`` (to check every module really
   loaded) are run.  The per-MPM results are merged, so MPM directives are
   listed once per MPM that provides them.
3. The source file of each module (``mod_rewrite.c``, ``event.c``,
   ``util_ldap.c``) is the name of the ``.c`` file embedded in the shared
   object (``STANDARD20_MODULE_STUFF`` stores ``__FILE__``) that mod_info's
   ``/server-info?list`` of a live server (all modules loaded) reports; the
   live list is also checked to be exactly the set of modules we found.
4. Compiled-in modules come from ``apache2 -l`` (source files) paired with the
   ``(static)`` lines of ``apache2 -M`` (identifiers), which httpd prints in
   the same order.
5. ``image_builtin``: the official ``httpd:2.4`` image compiles in only
   core.c, mod_so.c and http_core.c (its ``httpd -l``).

Contexts are the ``Allowed in`` text of ``-L`` in condensed form:
``server config, virtual host`` (only outside <Directory>...),
``directory`` (only inside), ``server config, virtual host, directory``
(anywhere), then ``.htaccess (any AllowOverride)`` or
``.htaccess (AllowOverride AuthConfig|Limit)`` and ``[no per-dir config]``.

Output is sorted and the script is deterministic: rerunning it on the same
build gives identical files.  Usage::

    python3 hack/gen_module_table.py [--binary /usr/sbin/apache2] [--module-dir DIR] [--check]

``--check`` writes nothing and exits 1 when the committed files differ.
"""

from __future__ import annotations

import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "operator" / "httpd24" / "engine" / "data"
IMAGE_BUILTIN = frozenset({"core.c", "mod_so.c", "http_core.c"})
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C", "LC_ALL": "C"}


# --- ELF ---------------------------------------------------------------------


def elf_module_symbol(path: str) -> str:
    """The exported ``*_module`` object symbol of a shared object (ELF64/ELF32, LE/BE)."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path}: not an ELF file")
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if is64:
            name, typ, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from(end + "IIQQQQIIQQ", data, off)
        else:
            name, typ, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from(end + "IIIIIIIIII", data, off)
        sections.append((typ, offset, size, link, entsize))
    found = []
    for typ, offset, size, link, entsize in sections:
        if typ != 11:  # SHT_DYNSYM
            continue
        str_off = sections[link][1]
        for j in range(size // entsize):
            so = offset + j * entsize
            if is64:
                st_name, st_info, st_other, st_shndx = struct.unpack_from(end + "IBBH", data, so)
            else:
                st_name, _v, _s, st_info, st_other, st_shndx = struct.unpack_from(end + "IIIBBH", data, so)
            if st_shndx == 0 or (st_info & 0xF) != 1 or (st_info >> 4) not in (1, 2):  # defined, OBJECT, GLOBAL/WEAK
                continue
            nend = data.index(b"\0", str_off + st_name)
            sym = data[str_off + st_name : nend].decode("ascii", "replace")
            if sym.endswith("_module"):
                found.append(sym)
    if len(found) != 1:
        raise ValueError(f"{path}: expected one exported *_module symbol, found {found}")
    return found[0]


def embedded_c_names(path: str) -> set[str]:
    return {m.decode() for m in re.findall(rb"(?<=\0)([A-Za-z0-9_]+\.c)(?=\0)", Path(path).read_bytes())}


# --- running the binary ------------------------------------------------------


def run(binary: str, conf: Path, *args: str) -> str:
    cp = subprocess.run([binary, "-d", str(conf.parent), "-f", str(conf), *args], capture_output=True, text=True, env=ENV, timeout=120)
    if cp.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(args)} failed ({cp.returncode}):\n{cp.stderr}{cp.stdout}")
    return cp.stdout


def main_config(tmp: Path, loads: list[tuple[str, str]], extra: str = "") -> Path:
    conf = tmp / "main.conf"
    lines = ["ServerName localhost", f'DefaultRuntimeDir "{tmp}"', f'PidFile "{tmp}/pid"', f'ErrorLog "{tmp}/error_log"']
    lines += [f'LoadModule {ident} "{path}"' for ident, path in loads]
    if extra:
        lines.append(extra)
    conf.write_text("\n".join(lines) + "\n")
    return conf


HEADER = re.compile(r"^(\S.*?) \(([^()\s]+\.c)\)$")


def condense(allowed: str, when: str | None) -> str:
    """``Allowed in *.conf ...`` (+ ``when AllowOverride ...``) -> condensed contexts."""
    rest = allowed[len("Allowed in *.conf ") :]
    parts = []
    if rest.startswith("only outside"):
        parts.append("server config, virtual host")
    elif rest.startswith("only inside"):
        parts.append("directory")
    elif rest.startswith("anywhere"):
        parts.append("server config, virtual host, directory")
    else:
        raise ValueError(f"unknown context text: {allowed!r}")
    if rest.endswith("and in .htaccess"):
        if when is None:
            parts.append(".htaccess")
        elif when == "when AllowOverride isn't None":
            parts.append(".htaccess (any AllowOverride)")
        elif when.startswith("when AllowOverride includes "):
            kinds = when[len("when AllowOverride includes ") :].split(" or ")
            parts.append(f".htaccess (AllowOverride {'|'.join(kinds)})")
        else:
            raise ValueError(f"unknown override text: {when!r}")
    if "[no per-dir config]" in rest:
        parts.append("[no per-dir config]")
    return ", ".join(parts)


def parse_L(text: str) -> list[tuple[str, str, str]]:
    """``apache2 -L`` output -> [(directive, source, contexts)]."""
    rows = []
    cur: list | None = None

    def flush():
        if cur is not None:
            name, src, allowed, when = cur
            if allowed is None:
                raise ValueError(f"no 'Allowed in' line for {name}")
            rows.append((name, src, condense(allowed, when)))

    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.startswith("\t"):
            m = HEADER.match(line)
            if not m:
                if cur is not None and cur[2] is None:
                    continue  # a description that itself holds a newline
                raise ValueError(f"unexpected -L line: {line!r}")
            flush()
            cur = [m.group(1), m.group(2), None, None]
            continue
        body = line.strip()
        if cur is None:
            raise ValueError(f"-L continuation without a directive: {line!r}")
        if body.startswith("Allowed in *.conf "):
            cur[2] = body
        elif body.startswith("when AllowOverride") and cur[2] is not None:
            cur[3] = body
        # else: the description line
    flush()
    return rows


def parse_M(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s+(\S+) \((static|shared)\)$", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def live_module_list(mpm: tuple[str, str], loads: list[tuple[str, str]]) -> set[str]:
    """Module source names from mod_info's /server-info?list of a live server."""
    sys.path.insert(0, str(REPO / "operator"))
    from httpd24 import apache  # noqa: E402

    httpd = apache.find_httpd()
    conf = "\n".join(f'LoadModule {i} "{p}"' for i, p in loads if i != mpm[0])
    types = Path(srv_tmp := tempfile.mkdtemp(prefix="gen-mime-")) / "mime.types"
    types.write_text("text/html\thtml\n")
    conf += f'\nTypesConfig "{types}"'
    conf += "\n<Location /server-info>\n    SetHandler server-info\n</Location>\n"
    with apache.Instance({"all.conf": conf.encode()}, "all.conf", [mpm[0]], httpd=httpd, access_log=False) as srv:
        r = srv.request("/server-info?list")
        if r.status != 200:
            raise SystemExit(f"/server-info?list answered {r.status}:\n{srv.error_log()}")
        names = set(re.findall(r"<dd>([^<]+\.c)</dd>", r.text))
    types.unlink()
    os.rmdir(srv_tmp)
    return names


def generate(binary: str, module_dir: str, live: bool = True) -> tuple[str, str, str]:
    """(directives.tsv, modules.tsv, build.txt) texts for the binary's build."""
    sos = sorted(f for f in os.listdir(module_dir) if f.endswith(".so"))
    ident = {so: elf_module_symbol(os.path.join(module_dir, so)) for so in sos}
    mpms = [so for so in sos if ident[so].startswith("mpm_")]
    others = [so for so in sos if so not in mpms]
    if not mpms:
        raise SystemExit("no MPM modules found")

    directive_rows: set[tuple[str, str, str]] = set()
    sources_seen: set[str] = set()
    static: list[tuple[str, str]] = []
    live_names: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="gen-module-table-") as tmpd:
        tmp = Path(tmpd)
        builtin_sources = [l.strip() for l in run(binary, main_config(tmp, []), "-l").splitlines()[1:] if l.strip()]
        for mpm in mpms:
            loads = [(ident[mpm], os.path.join(module_dir, mpm))] + [(ident[so], os.path.join(module_dir, so)) for so in others]
            conf = main_config(tmp, loads)
            rows = parse_L(run(binary, conf, "-L"))
            directive_rows.update(rows)
            sources_seen.update(src for _, src, _ in rows)
            mods = parse_M(run(binary, conf, "-M"))
            shared = [m for m, kind in mods if kind == "shared"]
            if shared != [i for i, _ in loads]:
                raise SystemExit(f"-M does not list the loaded modules for {mpm}: {sorted(set(i for i, _ in loads) - set(shared))}")
            static = [m for m, kind in mods if kind == "static"]
            if live:
                live_names |= live_module_list((ident[mpm], os.path.join(module_dir, mpm)), loads)
    if len(static) != len(builtin_sources):
        raise SystemExit(f"-l {builtin_sources} and -M static {static} differ in length")

    # source file of each shared module
    known = sources_seen | live_names
    source = {}
    for so in sos:
        stem = so[: -len(".so")]
        names = embedded_c_names(os.path.join(module_dir, so))
        cands = names & known
        preferred = [stem + ".c", stem.replace("mod_mpm_", "") + ".c"]
        # mod_rewrite.so -> mod_rewrite.c, mod_mpm_event.so -> event.c when embedded;
        # otherwise the one embedded name httpd reports (mod_ldap.so -> util_ldap.c)
        pick = next((p for p in preferred if p in names), None)
        if pick is None and len(cands) == 1:
            pick = next(iter(cands))
        if pick is None:
            raise SystemExit(f"cannot tell the source file of {so}: candidates {sorted(cands)}")
        source[so] = pick
    if len(set(source.values())) != len(source):
        raise SystemExit(f"two shared objects claim the same source: {source}")
    if live:
        expected = set(source.values()) | set(builtin_sources)
        if live_names != expected:
            raise SystemExit(
                f"mod_info lists {sorted(live_names - expected)} that we do not know, misses {sorted(expected - live_names)}"
            )
    every_source = set(source.values()) | set(builtin_sources)
    unknown = {src for _, src, _ in directive_rows} - every_source
    if unknown:
        raise SystemExit(f"-L names modules we cannot place: {sorted(unknown)}")

    module_rows = []
    for ident_, src in zip(static, builtin_sources):
        so = "-" if src in IMAGE_BUILTIN else src[:-2] + ".so"
        module_rows.append((ident_, src, so, "yes", "yes" if src in IMAGE_BUILTIN else "no"))
    for so in sos:
        module_rows.append((ident[so], source[so], so, "no", "no"))
    module_rows.sort()
    drows = sorted(directive_rows, key=lambda r: (r[0].lower(), r[0], r[1], r[2]))

    d_text = "directive\tmodule\tcontexts\n" + "".join("\t".join(r) + "\n" for r in drows)
    m_text = "identifier\tsource\tso\tdebian_builtin\timage_builtin\n" + "".join("\t".join(r) + "\n" for r in module_rows)
    version = subprocess.run([binary, "-v"], capture_output=True, text=True, env=ENV, timeout=60).stdout.splitlines()[0]
    b_text = f"{version.split(':', 1)[1].strip()}\n"
    return d_text, m_text, b_text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default="/usr/sbin/apache2")
    ap.add_argument("--module-dir", default="/usr/lib/apache2/modules")
    ap.add_argument("--out", default=str(DATA))
    ap.add_argument("--no-live", action="store_true", help="skip the mod_info check on a live server")
    ap.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = ap.parse_args(argv)
    d_text, m_text, b_text = generate(args.binary, args.module_dir, live=not args.no_live)
    out = Path(args.out)
    pairs = [(out / "directives.tsv", d_text), (out / "modules.tsv", m_text), (out / "build.txt", b_text)]
    if args.check:
        stale = [str(p) for p, t in pairs if not p.exists() or p.read_text() != t]
        if stale:
            print("out of date: " + ", ".join(stale), file=sys.stderr)
            return 1
        print("up to date")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for p, t in pairs:
        p.write_text(t)
    print(f"wrote {out/'directives.tsv'} ({d_text.count(chr(10)) - 1} rows), {out/'modules.tsv'} ({m_text.count(chr(10)) - 1} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Defaults 2.4 changed (spec §2.2, research §3.6): AllowOverride, EnableSendfile, FileETag,
SSLProxyCheckPeerCN / SSLProxyCheckPeerName / SSLProxyCheckPeerExpire.

Each rule has a documented decision -- keep 2.2's behaviour or adopt 2.4's --
and reports either way. ``ctx.defaults`` (``--defaults``) overrides every
decision: ``"keep-2.2"`` applies the fix that writes the 2.2 value explicitly
(PRESERVE); ``"adopt-2.4"`` reports and leaves the 2.4 default in force (the
same fix is then only shown, never applied).
"""

from __future__ import annotations

import posixpath

from ..apache import table
from ..config import Comment, Directive, Item, Section, edit, glob_match, is_wildcard
from ..engine import Applicability, Rule, Severity, register
from ._ht2xx import in_directory_context, server_of

KEEP = "keep-2.2"
ADOPT = "adopt-2.4"


def decision(ctx, documented: str) -> str:
    """The policy for one changed default: the override if given, else the rule's decision."""
    return ctx.defaults if ctx.defaults in (KEEP, ADOPT) else documented


def applicability(choice: str) -> Applicability:
    return Applicability.PRESERVE if choice == KEEP else Applicability.DISPLAY_ONLY


def access_file_names(ctx) -> set[str]:
    names = {".htaccess"}
    for item in ctx.items("accessfilename"):
        names.update(item.args)
    return names


def is_htaccess(name: str, names: set[str]) -> bool:
    base = posixpath.basename(name)
    return base in names or base.endswith(".htaccess")


def htaccess_documents(ctx) -> list[str]:
    names = access_file_names(ctx)
    return [name for name in ctx.configset.documents if is_htaccess(name, names)]


def _server_items(ctx):
    """Live items that are not in .htaccess files."""
    htaccess = set(htaccess_documents(ctx))  # judged per file, not per line
    if not htaccess:
        return ctx.live_items()
    return (item for item in ctx.live_items() if item.document.name not in htaccess)


def serving_anchor(ctx) -> Item | Section | None:
    """Where a server-wide default is written: before the main server's first DocumentRoot,
    else before the first <VirtualHost>, else before the first <Directory>, or before the
    outermost section that holds it (an <IfModule>; a <VirtualHost> around the <Directory>):
    written inside, it would hold for that section only, and the rule would ask again. None for
    a configuration that serves no files (a module's settings, an .htaccess file).
    Computed once per lint pass (several rules ask)."""
    cache = ctx.__dict__.setdefault("_httpd24_serving_anchor", [])
    if not cache:
        cache.append(_serving_anchor(ctx))
    return cache[0]


def _serving_anchor(ctx) -> Item | Section | None:
    first_vhost = first_directory = None
    for item in _server_items(ctx):
        if item.key == "documentroot" and item.in_section("virtualhost") is None and not item.context:
            return item
        if item.key == "virtualhost" and first_vhost is None:
            first_vhost = item
        if item.key == "directory" and first_directory is None:
            first_directory = item
    first = first_vhost or first_directory
    return first.context[0] if first is not None and first.context else first


def _set_server_wide(ctx, key: str) -> bool:
    """Whether ``key`` is set outside every per-directory section (and .htaccess file) of the main server, or
    of every virtual host: a setting in a <Directory> (<Location>, <Files>, ...) covers only that section,
    and the rest of the site still gets 2.4's default."""
    vhosts = [item.node for item in _server_items(ctx) if item.key == "virtualhost"]
    set_in: set[int] = set()
    for item in _server_items(ctx):
        if item.key != key or in_directory_context(item):
            continue
        server = server_of(item)
        if server is None:
            return True  # the main server's value is every virtual host's default too
        set_in.add(id(server))
    return bool(vhosts) and all(id(v) in set_in for v in vhosts)


class _ServerDefault(Rule):
    """A server-wide default written once, before the anchor."""

    key: str
    value_22: str
    value_24: str
    documented = ADOPT
    fix_availability = "sometimes"

    def why_adopt(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def check_config(self, ctx):
        if _set_server_wide(ctx, self.key):
            return
        anchor = serving_anchor(ctx)
        if anchor is None:
            return
        choice = decision(ctx, self.documented)
        node = getattr(anchor, "node", anchor)
        text = f"{self.name_22} {self.value_22}"
        fix = self.fix(f"write {text} (2.2's default) explicitly", applicability(choice),
                       lambda: edit.insert_before(node, text), node)
        if choice == KEEP:
            message = (f"{self.name_22} defaults to {self.value_24} in 2.4 ({self.value_22} in 2.2); "
                       f"keeping 2.2's behaviour: write `{text}`")
        else:
            message = (f"{self.name_22} defaults to {self.value_24} in 2.4 ({self.value_22} in 2.2); "
                       f"2.4's default is adopted ({self.why_adopt()}); write `{text}` to keep 2.2's")
        yield self.finding(anchor, message, replacement=text, fix=fix)

    name_22: str


@register
class EnableSendfileDefault(_ServerDefault):
    """
    ## What it does
    Reports a configuration that serves files and does not set
    `EnableSendfile` for the whole server (the main server, or every virtual
    host), whose default changed from `On` (2.2) to `Off` (2.4). A setting
    in a `<Directory>` or other section covers only that section.

    ## Why is this bad?
    The server now copies files through user space instead of using the
    kernel's `sendfile`: slightly more CPU for large static files, but no
    stale or truncated responses on network file systems (NFS, SMB, many
    container volume drivers) where sendfile is broken -- the reason 2.4
    changed the default.

    ## Example
    ```apache
    DocumentRoot /var/www/html
    ```

    ## Use instead
    ```apache
    # 2.4's default (the decision of this rule): nothing to write.
    # To keep 2.2's behaviour (--defaults keep-2.2):
    EnableSendfile On
    DocumentRoot /var/www/html
    ```

    ## Fix safety
    Decision: adopt 2.4's `Off` (correct on every file system; the finding
    says so and the fix is only shown). With `--defaults keep-2.2` the fix
    writes `EnableSendfile On` before the main server's first `DocumentRoot`
    (preserve: 2.2's default, written out).
    """

    code = "HT302"
    about_22_behaviour = True
    name = "enable-sendfile-default"
    severity = Severity.INFO
    summary = "EnableSendfile defaults to Off in 2.4 (On in 2.2)"
    key = "enablesendfile"
    name_22 = "EnableSendfile"
    value_22 = "On"
    value_24 = "Off"

    def why_adopt(self) -> str:
        return "sendfile serves stale or truncated files from network file systems"


@register
class FileETagDefault(_ServerDefault):
    """
    ## What it does
    Reports a configuration that serves files and does not set `FileETag`
    for the whole server (the main server, or every virtual host), whose
    default changed from `INode MTime Size` (2.2) to `MTime Size` (2.4). A
    setting in a `<Directory>` or other section covers only that section.

    ## Why is this bad?
    ETags of 2.4 no longer contain the file's inode number, so they change
    once after the upgrade (clients revalidate their caches once), and --
    the reason for the change -- the same file served by several replicas or
    servers now gets the same ETag on each of them.

    ## Example
    ```apache
    DocumentRoot /var/www/html
    ```

    ## Use instead
    ```apache
    # 2.4's default (the decision of this rule): nothing to write.
    # To keep 2.2's ETags (--defaults keep-2.2):
    FileETag INode MTime Size
    DocumentRoot /var/www/html
    ```

    ## Fix safety
    Decision: adopt 2.4's `MTime Size` (identical ETags across replicas, as
    a Deployment with several pods needs). With `--defaults keep-2.2` the fix
    writes `FileETag INode MTime Size` (preserve).
    """

    code = "HT303"
    about_22_behaviour = True
    name = "file-etag-default"
    severity = Severity.INFO
    summary = "FileETag defaults to MTime Size in 2.4 (INode MTime Size in 2.2)"
    key = "fileetag"
    name_22 = "FileETag"
    value_22 = "INode MTime Size"
    value_24 = "MTime Size"

    def why_adopt(self) -> str:
        return "identical ETags on every replica"


_PEER_CHECKS = (
    ("sslproxycheckpeercn", "SSLProxyCheckPeerCN"),
    ("sslproxycheckpeername", "SSLProxyCheckPeerName"),
    ("sslproxycheckpeerexpire", "SSLProxyCheckPeerExpire"),
)


@register
class SSLProxyCheckPeerDefault(Rule):
    """
    ## What it does
    Finds `SSLProxyEngine on` in a server (the main server or a
    `<VirtualHost>`) that does not set `SSLProxyCheckPeerCN`,
    `SSLProxyCheckPeerName` and `SSLProxyCheckPeerExpire`.

    ## Why is this bad?
    2.2 did not check the certificate of an HTTPS backend for its name or its
    expiry (`SSLProxyCheckPeerCN off`, `SSLProxyCheckPeerExpire off`); 2.4
    checks both by default, and adds `SSLProxyCheckPeerName on` (subjectAltName
    and CN against the backend's host name). A backend whose certificate is
    self-signed for another name or expired -- common for internal services
    -- now gets 502 Bad Gateway instead of being proxied.

    ## Example
    ```apache
    SSLProxyEngine on
    ProxyPass /app https://backend.internal/
    ```

    ## Use instead
    ```apache
    # 2.4's checks (the decision of this rule): give the backend a valid
    # certificate for the name in the URL. To keep 2.2's behaviour
    # (--defaults keep-2.2):
    SSLProxyEngine on
    SSLProxyCheckPeerCN off
    SSLProxyCheckPeerName off
    SSLProxyCheckPeerExpire off
    ```

    ## Fix safety
    Decision: adopt 2.4's checks (they are what makes proxied HTTPS secure);
    the warning says that bad backends will now answer 502, and the fix is
    only shown. With `--defaults keep-2.2` the fix writes the missing ones of
    the three settings `off` after `SSLProxyEngine` (preserve).
    """

    code = "HT304"
    about_22_behaviour = True
    name = "ssl-proxy-check-peer-default"
    severity = Severity.WARNING
    summary = "SSLProxyCheckPeerCN/Name/Expire default to on in 2.4 (off in 2.2): bad backends give 502"
    directives = ("sslproxyengine",)
    fix_availability = "sometimes"

    def check(self, ctx, item):
        if not item.args or item.args[0].lower() != "on":
            return
        server = item.in_section("virtualhost")
        missing = []
        for key, name in _PEER_CHECKS:
            settings = [other for other in ctx.items(key) if other.in_section("virtualhost") is server]
            if server is not None and not settings:
                # a vhost inherits what the main server sets
                settings = [other for other in ctx.items(key) if other.in_section("virtualhost") is None]
            if not settings:
                missing.append(name)
        if not missing:
            return
        choice = decision(ctx, ADOPT)
        text = "\n".join(f"{name} off" for name in missing)
        node = item.node
        fix = self.fix("write " + ", ".join(f"{n} off" for n in missing) + " (2.2's behaviour)",
                       applicability(choice), lambda: edit.insert_after(node, text), node)
        names = "/".join(missing)
        if choice == KEEP:
            message = (f"2.4 checks HTTPS backends' certificates ({names} default to on; 2.2 did not check); "
                       "keeping 2.2's behaviour: write them off")
        else:
            message = (f"2.4 checks HTTPS backends' certificates ({names} default to on; 2.2 did not check): "
                       "a backend with a certificate for another name or an expired one now gives 502; "
                       "2.4's checks are adopted -- fix the backend certificates, or write them off to keep 2.2's")
        yield self.finding(item, message, replacement=text.replace("\n", "; "), fix=fix)


# -- AllowOverride -----------------------------------------------------------------------------

_MAX_CLASSES = ("AuthConfig", "FileInfo", "Indexes", "Limit", "Options")


def override_classes(ctx, document_name: str) -> list[str]:
    """The AllowOverride classes the live directives of one .htaccess file need (from the table)."""
    by_name = table.override_classes()
    needed: set[str] = set()
    for item in ctx.live_items():
        if item.file != document_name:
            continue
        key = "<" + item.key if isinstance(item.node, Section) else item.key
        classes = [c for c in by_name.get(key, ()) if c in _MAX_CLASSES]
        if classes:
            needed.add(classes[0])
    return sorted(needed)


def _covered(path: str, overridden: set[str], wildcards: list[str]) -> bool:
    """``path`` or one of its parent directories has its own AllowOverride (a set lookup per level), or a
    wildcard <Directory> with one matches them: httpd's directory walk matches a wildcard section against
    as many components of the path as the section has (fnmatch per component, so ``*`` does not cross a
    ``/``), and what it sets applies to everything below the directory it matched."""
    if "/" in overridden:
        return True
    level = path
    while level:
        if level in overridden:
            return True
        level = level.rpartition("/")[0]
    return any(glob_match(pattern, path) for pattern in wildcards)


def _has_override(section: Section) -> bool:
    """AllowOverride in the section, also inside its <IfModule>/<IfDefine>/<IfVersion> blocks."""
    for child in section.children:
        if isinstance(child, Section) and child.key in ("ifmodule", "ifdefine", "ifversion", "if", "else", "elseif"):
            if _has_override(child):
                return True
        elif isinstance(child, Directive) and child.key == "allowoverride":
            return True
    return False


def _mentions_htaccess(section: Section, positions: dict[int, dict[int, int]]) -> bool:
    """Whether a comment in ``section``, or in the comment block right above it, speaks of .htaccess files.

    ``positions``: each parent's node positions (by id), made once per parent and shared by the
    calls of one check: looking for the section in its parent's list from the start, once per
    section, was quadratic (50,000 flat <Directory> blocks took 39 s).
    """
    nodes = list(section.children)
    # the comment block right above the section counts too
    parent = section.parent
    siblings = getattr(parent, "children", [])
    index = None
    if parent is not None:
        where = positions.get(id(parent))
        if where is None:
            where = positions[id(parent)] = {id(n): i for i, n in enumerate(siblings)}
        index = where.get(id(section))
    if index is not None:
        i = index - 1
        while i >= 0 and isinstance(siblings[i], Comment):
            nodes.append(siblings[i])
            i -= 1
    return any(isinstance(n, Comment) and (".htaccess" in n.text or "allowoverride" in n.text.lower()) for n in nodes)


#: Lines only a whole server configuration has (a fragment such as extra/httpd-ssl.conf may have a Listen):
#: the same as the access model's (``httpd24.access.model._WHOLE_SERVER_KEYS``).
_WHOLE_SERVER_KEYS = ("serverroot", "pidfile", "user")


def _has_main_server(ctx, names) -> bool:
    """Whether the set holds the main server configuration (where 2.2's compiled-in default applies)."""
    for item in ctx.items("listen", "loadmodule", *_WHOLE_SERVER_KEYS):
        if not item.context and not is_htaccess(item.file, names):
            return True
    return False


def _path(section: Section, args: list[str]) -> str | None:
    if section.key != "directory" or not args or args[0] == "~":
        return None
    return _unquoted_dir(args[0])


def _merged_before(item: Item, path: str, server: int | None,
                   setting: list[tuple[Item, str, int | None]]) -> Item | None:
    """A section with an AllowOverride that a wildcard section ``path`` (of ``item``) meets at the same depth
    and that httpd merges before it (sections of one depth in reading order, a host's after the main
    server's): `AllowOverride All` appended to ``item`` would override it where both apply, where 2.2
    applied that section's (campaign vhosts 92, index 263, on apache2)."""
    if not is_wildcard(path):
        return None  # a literal section that a wildcard one with an AllowOverride matches is covered by it
    depth = len([c for c in path.split("/") if c])
    for other, other_path, other_server in setting:
        if other_server not in (None, server) or len([c for c in other_path.split("/") if c]) != depth:
            continue
        if not (glob_match(path, other_path) or glob_match(other_path, path)):
            continue
        if (other_server is None and server is not None) or (other_server == server and other.order < item.order):
            return other
    return None


def _unquoted_dir(arg: str) -> str:
    return arg.strip("\"'").rstrip("/") or "/"


def _server(item: Item) -> int | None:
    """The server an item belongs to: the id of its <VirtualHost>; None: the main one."""
    host = item.in_section("virtualhost")
    return id(host) if host is not None else None


def _reach(overridden: dict[int | None, list[str]], server: int | None) -> tuple[set[str], list[str]]:
    """The paths (and among them the wildcards) of the sections with an AllowOverride that reach ``server``'s
    directories: a host merges the main server's sections and its own, not another host's."""
    paths = overridden.get(None, []) + (overridden.get(server, []) if server is not None else [])
    return set(paths), [p for p in paths if is_wildcard(p)]


def allow_override_for(ctx, directory: str) -> Item | None:
    """The AllowOverride line in effect for ``directory`` (a path as the set names it, or absolute): the one
    of the most specific main-server <Directory> (literal or wildcard; httpd ignores it in regex sections)
    that matches it or a parent; None when none sets it (2.2's default All, 2.4's None)."""
    root = ctx.configset.server_root
    target = posixpath.join(root, directory).rstrip("/")
    best, depth = None, -1
    for override in ctx.items("allowoverride"):
        section = override.in_section("directory")
        if section is None or override.in_section("virtualhost") is not None:
            continue
        path = _path(section, section.args)
        if path is None:
            continue
        pattern = posixpath.join(root, path).rstrip("/")
        if pattern.count("/") >= depth and glob_match(pattern, target):
            best, depth = override, pattern.count("/")
    return best


@register
class AllowOverrideDefault(Rule):
    """
    ## What it does
    Finds `<Directory>` sections whose directory gets no `AllowOverride` --
    neither in the section nor from a `<Directory>` of a parent directory
    (a virtual host's section from the main server's or its own, not another
    host's; a main server's section from the main server's, and is left to
    HT505 where a host sets one above it, which an `AllowOverride All`
    written there would override), including
    `<Directory />`, and wildcard ones (`<Directory /srv/*>`
    covers everything below each directory it matches, `*` within one path
    component) -- so 2.2 read `.htaccess` files there (default `AllowOverride
    All`) and 2.4 does not (default `None`, 2.3.9+). `AllowOverride` in a
    `<DirectoryMatch>` or `<Directory ~>` does not count: httpd (2.2 as 2.4)
    ignores it there.
    A whole server configuration (`ServerRoot`, `PidFile` or `User` at the
    top level) without a `<Directory />` of its main server, where a
    `DocumentRoot` or an `Alias` target lies in no `<Directory>` with an
    `AllowOverride`, gets one finding for the root: 2.2's default applied
    there and to its parents, which no section's own line reaches.
    In a set made of `.htaccess` files only, it names the `AllowOverride`
    classes the server configuration must grant for them to be read at all.

    ## Why is this bad?
    2.2 applied the `.htaccess` files there; 2.4 does not. With no
    `AllowOverride` in effect at all, 2.4 (measured on 2.4.71) still opens
    them but refuses every directive in them ("... not allowed here"), so
    every request below such a directory answers 500; with an explicit
    `AllowOverride None` (what 2.4's own httpd.conf writes for `/`) they are
    ignored silently -- rewrite rules, authentication and `Deny from all`
    protections in them stop applying, and a directory that was protected
    may become readable.

    ## Example
    ```apache
    AccessFileName .htaccess
    <Directory /var/www/app>
        Options FollowSymLinks
    </Directory>
    ```

    ## Use instead
    ```apache
    AccessFileName .htaccess
    <Directory /var/www/app>
        Options FollowSymLinks
        AllowOverride All
    </Directory>
    ```

    ## Fix safety
    Decision: keep 2.2's `All` where the configuration has or relies on
    `.htaccess` files -- the set holds `.htaccess` files, it sets
    `AccessFileName`, or a comment in or right above the section mentions
    `.htaccess`/`AllowOverride` -- by appending `AllowOverride All` to the
    section (preserve: 2.2's default written out), or, for the root, by
    writing `<Directory />` with `AllowOverride All` after the main server's
    `DocumentRoot` (which then covers every section). Elsewhere 2.4's `None` is
    adopted (faster, and no surprise overrides) and the fix is only shown --
    in a set that holds the main server configuration (`ServerRoot`,
    `PidFile`, `User`, `Listen` or `LoadModule` at the top level); a fragment without evidence
    is not reported, since the main configuration including it decides
    (stock 2.2 ones write `<Directory />` `AllowOverride None`).
    `--defaults keep-2.2` / `adopt-2.4` override the decision. A wildcard
    section that httpd merges after a section with an `AllowOverride` it
    matches at the same depth (`<Directory /srv/w*>` after
    `<Directory /srv/www>`) gets no fix: `All` written there would override
    that section's. A fragment without `<Directory />` gets no root finding: the main configuration
    including it may set one.
    """

    code = "HT301"
    about_22_behaviour = True
    name = "allow-override-default"
    severity = Severity.WARNING
    summary = "AllowOverride defaults to None in 2.4 (All in 2.2): .htaccess files are ignored, or refused with a 500"
    fix_availability = "sometimes"

    def check_config(self, ctx):
        htaccess = htaccess_documents(ctx)
        names = access_file_names(ctx)
        server_docs = [n for n in ctx.configset.documents if not is_htaccess(n, names)]
        if not server_docs:
            for name in htaccess:
                yield from self._htaccess_only(ctx, name)
            return
        relies_globally = bool(htaccess) or ctx.has("accessfilename")
        main = _has_main_server(ctx, names)
        sections: list[tuple[Item, str, int | None]] = []
        setting: list[tuple[Item, str, int | None]] = []  # the sections with an AllowOverride, in reading order
        main_paths: set[str] = set()  # of the main server's sections, with an AllowOverride or not
        for item in ctx.items("directory"):
            path = _path(item.node, item.args)
            if is_htaccess(item.file, names):
                continue
            if path is None:
                continue
            server = _server(item)
            if server is None:
                main_paths.add(path)
            (setting if _has_override(item.node) else sections).append((item, path, server))
        #: server (id of its <VirtualHost>; None: the main one) -> the paths of its sections with an AllowOverride
        overridden: dict[int | None, list[str]] = {}
        for _item, path, server in setting:
            overridden.setdefault(server, []).append(path)
        # where requests map to: DocumentRoots and Alias targets (the last argument of both)
        roots = [(_unquoted_dir(i.args[-1]), _server(i)) for i in ctx.items("documentroot", "alias", "scriptalias")
                 if len(i.args) == (1 if i.key == "documentroot" else 2) and not is_htaccess(i.file, names)]
        whole = [i for i in ctx.items(*_WHOLE_SERVER_KEYS) if not i.context and not is_htaccess(i.file, names)]
        if whole and "/" not in main_paths and any(not _covered(path, *_reach(overridden, s)) for path, s in roots):
            choice = decision(ctx, KEEP if relies_globally else ADOPT)
            yield self._no_root_section(ctx, names, whole[0], choice, relies_globally)
            if choice == KEEP:
                overridden.setdefault(None, []).append("/")  # what the fix writes covers every section below
        positions: dict[int, dict[int, int]] = {}  # for _mentions_htaccess
        reach: dict[int | None, tuple[set[str], list[str]]] = {}  # server -> (paths, wildcards) that reach it
        hosts_own = [(set(own), [p for p in own if is_wildcard(p)]) for key, own in overridden.items() if key is not None]
        for item, path, server in sections:
            if server not in reach:
                reach[server] = _reach(overridden, server)
            if _covered(path, *reach[server]):
                continue  # a parent directory (or this one, elsewhere) sets it
            if server is None and path != "/" and any(_covered(posixpath.dirname(path), *own) for own in hosts_own):
                # A main-server section merges into every host, and its `AllowOverride All` would override, below
                # it, what a host set above it (`<Directory />` None): left to HT505. A host's line at this very
                # path is merged after the main server's and keeps deciding for that host.
                continue
            relies = relies_globally or _mentions_htaccess(item.node, positions)
            choice = decision(ctx, KEEP if relies else ADOPT)
            if choice == ADOPT and not main and ctx.defaults != ADOPT:
                # A fragment (no main server here): the main configuration that includes it
                # decides the default for "/" -- stock 2.2 ones set `AllowOverride None` there.
                continue
            node = item.node
            fix = self.fix("append AllowOverride All (2.2's default)", applicability(choice),
                           lambda node=node: edit.append_child(node, "AllowOverride All"), node)
            change = ("2.2 applied .htaccess files there (All); 2.4 does not (None: with no AllowOverride in "
                      "effect it refuses their directives with a 500, with an explicit None it ignores them)")
            if (before := _merged_before(item, path, server, setting)) is not None:
                where = f"{before.file}:{before.node.location.line}"
                message = (f"<Directory {path}> has no AllowOverride: {change}; `AllowOverride All` written here "
                           f"would override <Directory {_path(before.node, before.args)}> ({where}), which httpd "
                           "merges before it (same depth) and 2.2 applied there: write AllowOverride in sections "
                           "of the directories it should open, or move this section above that one")
                yield self.finding(item, message, replacement="AllowOverride All")
                continue
            if choice == KEEP:
                why = ("the configuration uses .htaccess files" if relies
                       else "--defaults keep-2.2")
                message = (f"<Directory {path}> has no AllowOverride: {change}; keeping 2.2's behaviour ({why}): "
                           "write AllowOverride All")
            else:
                message = (f"<Directory {path}> has no AllowOverride: {change}; 2.4's default is adopted (nothing "
                           "suggests .htaccess files here) -- write AllowOverride All (or the classes needed) if "
                           "the site has them, or AllowOverride None to ignore them")
            yield self.finding(item, message, replacement="AllowOverride All", fix=fix)

    def _no_root_section(self, ctx, names, whole: Item, choice, relies):
        """A whole server configuration without ``<Directory />``: 2.2's compiled-in All applied wherever no
        section set one, the DocumentRoot's parents too, which no section's own line reaches (measured:
        tests/rules/test_changed_defaults.py). The finding stands on the main server's DocumentRoot (else on
        ``whole``, a line only a whole configuration has), and the fix writes 2.2's default out after it."""
        anchor = next((i for i in ctx.items("documentroot") if not i.context and not is_htaccess(i.file, names)),
                      whole)
        document = ctx.configset.documents[anchor.file]
        text = f"<Directory />\n{edit.indent_unit(document)}AllowOverride All\n</Directory>"
        fix = self.fix("write <Directory /> with AllowOverride All (2.2's default)", applicability(choice),
                       lambda: edit.insert_after(anchor.node, text), anchor.node)
        change = ("2.2 applied .htaccess files wherever no <Directory> sets AllowOverride (its compiled-in All for "
                  "/), 2.4 does not (None: with no AllowOverride in effect it refuses their directives with a "
                  "500, with an explicit None it ignores them)")
        if choice == KEEP:
            why = "the configuration uses .htaccess files" if relies else "--defaults keep-2.2"
            message = (f"the main server has no <Directory />: {change}; keeping 2.2's behaviour ({why}): write "
                       "<Directory /> with AllowOverride All")
        else:
            message = (f"the main server has no <Directory />: {change}; 2.4's default is adopted (nothing suggests "
                       ".htaccess files) -- write <Directory /> with AllowOverride None to ignore them (as 2.4's "
                       "own httpd.conf does), or All if the site has them")
        return self.finding(anchor, message, replacement=text.replace("\n", "; "), fix=fix)

    def _htaccess_only(self, ctx, name):
        doc = ctx.configset.documents[name]
        first = next((n for n in doc.directives() if ctx.view.is_live(n)), None)
        if first is None:
            return
        classes = override_classes(ctx, name)
        grant = " ".join(classes) if classes else "All"
        message = (f"{name} is read only where the server configuration allows it (2.2's default: All): under "
                   "`AllowOverride None` 2.4 ignores it, and where no AllowOverride is written at all it answers "
                   f"500 for its lines; its <Directory> needs `AllowOverride {grant}`")
        yield self.finding(first, message, replacement=f"AllowOverride {grant}")

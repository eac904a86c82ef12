"""The 2.2 lock directives AcceptMutex, LockFile, RewriteLock and SSLMutex (and 2.3's SSLStaplingMutex and
WatchdogMutexPath), replaced in 2.4 by ``Mutex mechanism[:directory] mutex-name`` (mpm-accept, rewrite-map,
ssl-cache, ssl-stapling, watchdog-callback).

Two facts drive the fixes (both checked against the real 2.4 ``apache2 -t``):

* a 2.2 lock path names a *file*; 2.4's ``Mutex`` takes a *directory* ("Invalid
  Mutex directory in argument fcntl:/x/accept.lock") that must exist when httpd
  starts; both resolve a relative path against ServerRoot;
* 2.4's event MPM has no accept mutex ("Mutex type mpm-accept is not valid");
  only prefork and worker register ``mpm-accept``.
"""

from __future__ import annotations

from ..config import Liveness, edit, module_identifier
from ..engine import Applicability, Rule, Severity, register
from ._ht1xx import directory_of, quote
from .modules_includes import requirements_of

#: 2.2 AcceptMutex values (mpm_common.c, case-insensitive).
ACCEPT_MECHANISMS = ("default", "flock", "fcntl", "posixsem", "pthread", "sysvsem")
#: Mechanisms whose lock lives in a file, or may (APR's default is file-based on some systems).
FILE_MECHANISMS = ("default", "yes", "flock", "fcntl", "file")
#: 2.2.x SSLMutex / ap_parse_mutex mechanisms (2.4's Mutex parses the same words).
SSL_MECHANISMS = ("default", "yes", "flock", "fcntl", "file", "posixsem", "sysvsem", "sem", "pthread")

#: mod_ssl's lock directives (SSLStaplingMutex: 2.3 only) -> their 2.4 mutex name; both took SSLMutex's words.
_SSL_MUTEXES = {"sslmutex": "ssl-cache", "sslstaplingmutex": "ssl-stapling"}

#: Module identifiers of the MPMs (2.2 names included) -> the MPM's short name.
MPM_NAMES = {
    "mpm_prefork_module": "prefork",
    "mpm_worker_module": "worker",
    "mpm_event_module": "event",
    "mpm_winnt_module": "winnt",
    "mpm_netware_module": "netware",
    "mpmt_os2_module": "os2",
    # 2.0/2.2 MPMs that 2.4 does not have
    "perchild_module": "perchild",
    "mpm_perchild_module": "perchild",
    "beos_module": "beos",
    "mpm_beos_module": "beos",
    "leader_module": "leader",
    "threadpool_module": "threadpool",
}


def mpm_of(ctx, item) -> str | None:
    """The MPM the item is read under: an enclosing positive <IfModule> on an MPM, else the one
    MPM the configuration loads for certain (not one in an undecided block: HT404 loads another beside
    it), else the one the target names, else, in a configuration that loads its own modules, the one
    HT404 loads; None when unknown."""
    mpm = _mpm_section(item)
    if mpm:
        return mpm
    certain = {load.args[0] for load in ctx.module_loads() if load.live is Liveness.LIVE}
    for modules in (certain, ctx.target.modules or ()):
        found = {MPM_NAMES[m] for m in modules if m in MPM_NAMES}
        if len(found) == 1:
            return found.pop()
    if ctx.module_loads():
        # HT404 loads the MPM with the other LoadModule lines, which may come after this line (Debian's
        # LockFile, before `Include mods-enabled/*.load`): an <IfModule !mpm_event_module> here
        # would be read before any MPM is loaded, and be true under the event MPM too.
        return MPM_NAMES.get(requirements_of(ctx).mpm)
    return None


def _mechanism_arg(mechanism: str, directory: str | None) -> str:
    if directory and mechanism in FILE_MECHANISMS:
        return f"{mechanism}:{directory}"
    return mechanism


def _accept_text(doc, mechanism: str, directory: str | None, mpm: str | None) -> str:
    """The 2.4 lines for the accept mutex under ``mpm`` ("" when that MPM has none)."""
    if mpm == "event":
        return ""
    line = f"Mutex {quote(_mechanism_arg(mechanism, directory))} mpm-accept"
    if mpm in ("prefork", "worker"):
        return line
    return f"<IfModule !mpm_event_module>\n{edit.indent_unit(doc)}{line}\n</IfModule>"


def _rewrite(node, text: str) -> None:
    if text:
        edit.replace(node, text)
    else:
        edit.remove(node)


class _AcceptJob:
    """Every AcceptMutex and LockFile of the configuration, converted in one edit.

    LockFile only gives the directory of the accept lock, AcceptMutex only its
    mechanism: converting one without the other would lose the directory or
    let a ``Mutex default:dir`` override the mechanism. So every finding of
    HT109/HT110 carries the same whole job, and the fix loop applies it once.
    """

    def __init__(self, ctx):
        self.accepts = _last_readings([i for i in ctx.items("acceptmutex")
                                       if len(i.node.args) == 1 and i.node.args[0].lower() in ACCEPT_MECHANISMS])
        self.locks = _last_readings([i for i in ctx.items("lockfile") if len(i.node.args) == 1])
        self.directory = directory_of(self.locks[-1].node.args[0]) if self.locks else None
        self.edits: list[tuple[object, str]] = []
        self.inserts: list[tuple[object, str]] = []
        #: The LockFile whose Mutex line is written elsewhere (before the MPM-specific AcceptMutex lines).
        self.moved = None
        #: What each AcceptMutex became, for the LockFile's message: (mechanism, whether its line takes the directory).
        self.written: list[tuple[str, bool]] = []
        for item in self.accepts:
            mechanism = item.node.args[0].lower()
            text = _accept_text(item.document, mechanism, self.directory, mpm_of(ctx, item))
            self.edits.append((item.node, text))
            self.written.append((item.node.args[0], bool(text) and mechanism in FILE_MECHANISMS))
        #: An AcceptMutex outside any MPM-specific <IfModule> sets the mechanism for every MPM, and the
        #: LockFile only adds its directory; otherwise the MPMs without an AcceptMutex still need the
        #: LockFile's directory with the default mechanism.
        sections = {_mpm_section(i) for i in self.accepts}
        self.covered = None in sections or {"prefork", "worker"} <= sections
        self.lock_text = ""
        if not self.locks:
            return
        last = self.locks[-1]
        for item in self.locks[:-1]:
            self.edits.append((item.node, ""))
        if self.covered:
            self.edits.append((last.node, ""))
            return
        self.lock_text = _accept_text(last.document, "default", self.directory, mpm_of(ctx, last))
        position = {id(i.node): n for n, i in enumerate(ctx.view.items)}
        first = self.accepts[0] if self.accepts else None
        if first is not None and position[id(first.node)] < position[id(last.node)]:
            # 2.2 took the mechanism from AcceptMutex wherever it was; in 2.4 the last Mutex line wins,
            # so the default line must come before the MPM-specific ones, at the LockFile's level.
            outer = [s for s in first.context if all(s is not t for t in last.context)]
            anchor = outer[0] if outer else first.node
            if self.lock_text:
                self.inserts.append((anchor, self.lock_text))
                self.moved = last.node
            self.edits.append((last.node, ""))
        else:
            self.edits.append((last.node, self.lock_text))

    def _comments(self) -> tuple[list, str]:
        """The comments above the removed lines, and what becomes of them, for the recorded change.

        Above the moved LockFile they go with its Mutex line; above a line that is only removed (its
        directory or mechanism went into another line, or the MPM has no accept mutex) they stay:
        httpd ignores them, and only a person knows whether they still say something true."""
        travelling: list = []
        notes = []
        for node, text in self.edits:
            comments = edit.comments_above(node) if not text else []
            if not comments:
                continue
            first, last = comments[0].location.line, comments[-1].location.end_line
            lines = f"line {first}" if first == last else f"lines {first}-{last}"
            if node is self.moved:
                travelling = comments
                notes.append(f"the comment above {node.name} ({lines}) moves with it")
            else:
                notes.append(f"the comment above {node.name} ({lines}) stays")
        return travelling, "".join("; " + note for note in notes)

    def lock_fate(self) -> str:
        """Where the directory of a LockFile that AcceptMutex covers goes: into a Mutex line, or nowhere."""
        if any(carries for _, carries in self.written):
            return f"its directory {self.directory} moves into the Mutex line that replaces AcceptMutex"
        if self.written and all(mechanism.lower() not in FILE_MECHANISMS for mechanism, _ in self.written):
            names = ", ".join(sorted({f"AcceptMutex {mechanism}" for mechanism, _ in self.written}))
            return f"{names} uses no lock file (2.2 ignored LockFile beside it), nor does the Mutex line that replaces it"
        return f"{_EVENT_NOTE}, so the AcceptMutex goes and nothing takes the directory {self.directory}"

    def text_for(self, node) -> str:
        return next(text for n, text in self.edits if n is node)

    def fix(self, rule):
        edits = list(self.edits)
        inserts = list(self.inserts)
        comments, note = self._comments()
        if comments:
            inserts = [(anchor, "\n".join(c.raw.strip() for c in comments) + "\n" + text) for anchor, text in inserts]

        def apply() -> None:
            for anchor, text in inserts:
                edit.insert_before(anchor, text)
            for comment in comments:
                edit.remove(comment)
            for node, text in edits:
                _rewrite(node, text)

        return rule.fix("convert AcceptMutex/LockFile to Mutex ... mpm-accept" + note, Applicability.SAFE, apply,
                        *(node for node, _ in edits), *comments)


def _last_readings(items: list) -> list:
    """``items`` with each line once, at the last place httpd reads it (a file included twice is read twice,
    and its line is edited once)."""
    last = {id(item.node): item for item in items}
    return [item for item in items if last[id(item.node)] is item]


def _mpm_section(item) -> str | None:
    for section in reversed(item.context):
        if section.key == "ifmodule" and section.args and not section.args[0].startswith("!"):
            mpm = MPM_NAMES.get(module_identifier(section.args[0]))
            if mpm:
                return mpm
    return None


_EVENT_NOTE = "2.4's event MPM has no accept mutex"


def _accept_message(text: str) -> str:
    if not text:
        return _EVENT_NOTE + ": remove it"
    if text.startswith("<IfModule"):
        return "use " + text.splitlines()[1].strip() + " (only prefork and worker have it; " + _EVENT_NOTE + ")"
    return "use " + text


@register
class AcceptMutex(Rule):
    """
    ## What it does
    Finds `AcceptMutex`.

    ## Why is this bad?
    2.4 has no `AcceptMutex` (start-up fails). The accept mutex of the
    prefork and worker MPMs is set with `Mutex mechanism mpm-accept`; its
    lock file goes in the *directory* given after the mechanism. 2.4's event
    MPM has no accept mutex at all, and refuses `Mutex ... mpm-accept`.

    ## Example
    ```apache
    AcceptMutex fcntl
    LockFile /var/lock/apache2/accept.lock
    ```

    ## Use instead
    ```apache
    <IfModule !mpm_event_module>
        Mutex fcntl:/var/lock/apache2 mpm-accept
    </IfModule>
    ```

    ## Fix safety
    Safe. The mechanism is kept (2.2 and 2.4 use the same names), and the
    directory of the last `LockFile` goes with it for file-based mechanisms
    (`default`, `flock`, `fcntl`; 2.2 ignored LockFile for the others).
    When the MPM is known (an enclosing `<IfModule mpm_prefork_module>` or
    `prefork.c`, a single MPM loaded, or the target's), the line is written
    plainly for prefork/worker and dropped for event; when it is not, it is
    wrapped in `<IfModule !mpm_event_module>`, which keeps every MPM
    starting. AcceptMutex and LockFile are converted together (HT110).
    """

    code = "HT109"
    name = "accept-mutex"
    severity = Severity.ERROR
    summary = "AcceptMutex is replaced by Mutex ... mpm-accept"
    fix_availability = "sometimes"
    directives = ("acceptmutex",)

    def check(self, ctx, item):
        node = item.node
        if len(node.args) != 1 or node.args[0].lower() not in ACCEPT_MECHANISMS:
            yield self.finding(item, f"AcceptMutex is not in 2.4 (start-up fails), and '{' '.join(node.args)}' is "
                                     "not a 2.2 mechanism either; write Mutex <mechanism> mpm-accept")
            return
        job = _AcceptJob(ctx)
        text = job.text_for(node)
        yield self.finding(
            item,
            f"AcceptMutex is not in 2.4 (start-up fails): {_accept_message(text)}",
            replacement=text.replace("\n", " ").replace("    ", " ") if text else "",
            fix=job.fix(self),
        )


@register
class LockFile(Rule):
    """
    ## What it does
    Finds `LockFile`.

    ## Why is this bad?
    2.4 has no `LockFile` (start-up fails). It named the accept lock *file*
    of 2.2 (the PID was appended); 2.4's `Mutex mechanism:directory
    mpm-accept` takes the *directory* the lock file is created in, and
    refuses a path that is not an existing directory.

    ## Example
    ```apache
    LockFile ${APACHE_LOCK_DIR}/accept.lock
    ```

    ## Use instead
    ```apache
    <IfModule !mpm_event_module>
        Mutex default:${APACHE_LOCK_DIR} mpm-accept
    </IfModule>
    ```

    ## Fix safety
    Safe: the lock goes in the same directory (a bare file name was relative
    to ServerRoot in 2.2, and a relative directory is in 2.4, so it becomes
    `.`), with 2.2's default mechanism unless an `AcceptMutex` names one
    (then the line is folded into that conversion, HT109). The MPM rules are
    those of HT109: no accept mutex on event, so nothing is written there.
    When the Mutex line must go elsewhere (before MPM-specific `AcceptMutex`
    lines), the comment block right above the LockFile goes with it; above
    a line that is only removed, the comment stays. The recorded change
    says which.
    """

    code = "HT110"
    name = "lock-file"
    severity = Severity.ERROR
    summary = "LockFile is replaced by Mutex ...:directory mpm-accept"
    fix_availability = "sometimes"
    directives = ("lockfile",)

    def check(self, ctx, item):
        node = item.node
        if len(node.args) != 1:
            yield self.finding(item, "LockFile is not in 2.4 (start-up fails): write Mutex default:<directory> "
                                     "mpm-accept (prefork/worker only)")
            return
        job = _AcceptJob(ctx)
        text = job.text_for(node)
        if node is not job.locks[-1].node:
            message = "LockFile is not in 2.4 (start-up fails); a later LockFile overrides this one: remove it"
        elif job.covered:
            message = f"LockFile is not in 2.4 (start-up fails): {job.lock_fate()}; remove it"
        else:
            text = job.lock_text
            message = (f"LockFile is not in 2.4 (start-up fails), and 2.4 takes the lock's directory, not a file: "
                       f"{_accept_message(text)}")
        yield self.finding(item, message, replacement=text.replace("\n", " ").replace("    ", " "), fix=job.fix(self))


@register
class RewriteLock(Rule):
    """
    ## What it does
    Finds `RewriteLock`.

    ## Why is this bad?
    2.4's mod_rewrite has no `RewriteLock` (start-up fails). The lock that
    serialises `RewriteMap prg:` programs is the `rewrite-map` mutex, set
    with `Mutex mechanism:directory rewrite-map`; 2.4 always creates it when
    a prg map is used.

    ## Example
    ```apache
    RewriteLock /var/run/apache2/rewrite_lock
    ```

    ## Use instead
    ```apache
    Mutex default:/var/run/apache2 rewrite-map
    ```

    ## Fix safety
    Safe: 2.2 created this lock with APR's default mechanism in the named
    file; `default:` plus the file's directory does the same in 2.4 (the
    directory must exist, as the file's directory had to).
    """

    code = "HT111"
    name = "rewrite-lock"
    severity = Severity.ERROR
    summary = "RewriteLock is replaced by Mutex ...:directory rewrite-map"
    fix_availability = "sometimes"
    directives = ("rewritelock",)

    def check(self, ctx, item):
        node = item.node
        if len(node.args) != 1:
            yield self.finding(item, "RewriteLock is not in 2.4 (start-up fails): write Mutex default:<directory> "
                                     "rewrite-map")
            return
        text = f"Mutex {quote('default:' + directory_of(node.args[0]))} rewrite-map"
        yield self.finding(
            item,
            f"RewriteLock is not in 2.4 (start-up fails), and 2.4 takes the lock's directory, not a file: use {text}",
            replacement=text,
            fix=self.fix(f"replace RewriteLock by {text}", Applicability.SAFE, lambda: edit.replace(node, text), node),
        )


@register
class SSLMutex(Rule):
    """
    ## What it does
    Finds `SSLMutex`, and `SSLStaplingMutex` of the 2.3 development
    releases (the OCSP stapling lock, written with the same words; 2.4's
    `ssl-stapling` mutex, which also refuses `none`).

    ## Why is this bad?
    2.4's mod_ssl has no `SSLMutex` (start-up fails). The session-cache lock
    is the `ssl-cache` mutex: `Mutex mechanism[:directory] ssl-cache`. 2.2's
    path named a *file*; 2.4's names the directory, which must exist. 2.4
    refuses `none` for this mutex ("None is not allowed for mutex type
    ssl-cache") and creates it only when the session cache needs one.

    ## Example
    ```apache
    SSLMutex file:/var/run/apache2/ssl_mutex
    SSLMutex sem
    ```

    ## Use instead
    ```apache
    Mutex file:/var/run/apache2 ssl-cache
    Mutex sem ssl-cache
    ```

    ## Fix safety
    Safe. 2.2.x parsed `SSLMutex` with the same `ap_parse_mutex` as 2.4's
    `Mutex`, so each mechanism word keeps its meaning (`yes` = `default`,
    `file` = fcntl or flock, `sem` = posixsem or sysvsem); only the path
    changes, from the file to its directory, and it is kept only for
    mechanisms that use a file (`default`, `flock`, `fcntl`, `file`): 2.2
    ignored it for semaphores and pthread, and 2.4 would check it as a
    directory. `none`/`no` (2.2's default) is removed: 2.4 cannot switch the
    lock off; it adds locking only where concurrent processes share the
    cache, and no response changes.
    """

    code = "HT112"
    name = "ssl-mutex"
    severity = Severity.ERROR
    summary = "SSLMutex (and 2.3's SSLStaplingMutex) is replaced by Mutex ... ssl-cache (ssl-stapling)"
    fix_availability = "sometimes"
    directives = tuple(_SSL_MUTEXES)

    def check(self, ctx, item):
        node = item.node
        name = node.name
        mutex = _SSL_MUTEXES[item.key]
        if len(node.args) != 1:
            yield self.finding(item, f"{name} is not in 2.4 (start-up fails): write Mutex <mechanism>[:directory] "
                                     f"{mutex}")
            return
        value = node.args[0]
        mechanism, _, path = value.partition(":")
        mechanism = mechanism.lower()
        if mechanism in ("none", "no"):
            yield self.finding(
                item,
                f"{name} {value} is not in 2.4 (start-up fails), and 2.4 refuses 'Mutex none {mutex}': it locks "
                "whenever it needs to; remove the line",
                fix=self.fix(f"remove {name}", Applicability.SAFE, lambda: edit.remove(node), node),
            )
            return
        if mechanism not in SSL_MECHANISMS:
            yield self.finding(item, f"{name} is not in 2.4 (start-up fails), and '{value}' is no mechanism it knew; "
                                     f"write Mutex <mechanism>[:directory] {mutex}")
            return
        if mechanism == "yes":
            mechanism = "default"
        directory = directory_of(path) if path else None
        text = f"Mutex {quote(_mechanism_arg(mechanism, directory))} {mutex}"
        dropped = f" (the name '{path}' meant nothing to {mechanism} and is dropped)" if path and mechanism not in FILE_MECHANISMS else ""
        yield self.finding(
            item,
            f"{name} is not in 2.4 (start-up fails): use {text}{dropped}",
            replacement=text,
            fix=self.fix(f"replace {name} by {text}", Applicability.SAFE, lambda: edit.replace(node, text), node),
        )


@register
class WatchdogMutexPath(Rule):
    """
    ## What it does
    Finds `WatchdogMutexPath`, a directive of mod_watchdog in the 2.3
    development releases (never in a 2.2 or 2.4 release).

    ## Why is this bad?
    2.4 refuses to start ("Invalid command 'WatchdogMutexPath'"): the
    watchdog's lock is the `watchdog-callback` mutex, set with
    `Mutex mechanism[:directory] watchdog-callback`.

    ## Example
    ```apache
    WatchdogMutexPath /var/run/apache2
    ```

    ## Use instead
    ```apache
    Mutex default:/var/run/apache2 watchdog-callback
    ```

    ## Fix safety
    No fix: what the 2.3 directive's path named (the lock's directory, as
    2.4's `Mutex` takes it, or a file) is not known from any released
    source; the message gives the `Mutex` line for a person to check.
    """

    code = "HT122"
    name = "watchdog-mutex-path"
    severity = Severity.ERROR
    summary = "WatchdogMutexPath (2.3) is replaced by Mutex ...:directory watchdog-callback"
    directives = ("watchdogmutexpath",)

    def check(self, ctx, item):
        args = item.node.args
        text = f"Mutex {quote('default:' + args[0])} watchdog-callback" if len(args) == 1 else ""
        yield self.finding(
            item,
            "WatchdogMutexPath (a 2.3 development directive) is not in 2.4 (start-up fails): the watchdog's lock "
            f"is set with {text or 'Mutex default:<directory> watchdog-callback'}; check that the path is the "
            "directory for the lock, and that it exists",
            replacement=text,
        )

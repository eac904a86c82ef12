"""What the operator wants for one HttpdServer: the plan (files, modules, findings) and the objects.

Pure functions: a ConfigMap and an HttpdServer in, Kubernetes object bodies
and status out. The operator (:mod:`httpd24.k8s.operator`) does the I/O and
the configtest gate (:mod:`httpd24.k8s.rollout_gate`) sits between
:func:`plan` and :func:`deployment`.
"""

from __future__ import annotations

import base64
import datetime
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from .. import api
from ..config import DEFAULT_TARGET, Target
from ..config.gcpause import trees_freed_before_collection
from ..engine import SourceVersion
from ..engine.modules import ModuleRequirements
from . import mainconf
from .review import DefaultsPolicy, Layout, layout_of, tally
from .review_policy import ServerPolicy
from .models_server import (CONTENT_DIR, CONTENT_VARIABLE, GROUP, KIND, MAIN_KEY, SECRETS_DIR, VERSION, ContentVolume,
                            HttpdServerSpec)

MANAGED_BY = "httpd24-operator"
LABEL_SERVER = "httpd24.io/server"
LABEL_MANAGED = "app.kubernetes.io/managed-by"
ANNOTATION_HASH = "httpd24.io/config-hash"
ANNOTATION_AUDIT = "httpd24.io/audit-findings"
#: On the pod template: a digest of the versions of spec.secrets (only when the operator watches Secrets).
ANNOTATION_SECRETS = "httpd24.io/secrets-version"
RUN_AS = 33  # www-data in the official (Debian-based) httpd image
CONDITION_TYPES = ("ConfigValid", "Migrated", "RolledOut", "Ready")
_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")


class PlanError(Exception):
    """The HttpdServer or its ConfigMap cannot be turned into a deployment; ``reason`` is a CamelCase word."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass
class Plan:
    """Everything the pods of one HttpdServer will mount, and what the engine said about it."""

    spec: HttpdServerSpec
    files: dict[str, bytes]  # the bundle: user files (as stored or migrated) + httpd24-main.conf
    hash: str
    modules: list[mainconf.LoadedModule]
    ports: list[int]
    findings: dict[str, int]
    migrated: bool  # whether the migration changed any file
    applied: int = 0  # rewrites made by the migration
    remaining: int = 0  # error/warning findings left that need a person (info findings do not count)
    remaining_text: list[str] = field(default_factory=list)
    secret_files: list[str] = field(default_factory=list)  # mainconf.secret_paths of spec.secrets
    content: list[str] = field(default_factory=list)  # names of spec.content (at /srv/httpd24/<name>)
    #: Findings of the rules the namespace's HttpdPolicies leave out (neither counted above nor fixed),
    #: and what the Migrated condition says of them ("" when there are none).
    left_out: int = 0
    left_out_text: str = ""

    @property
    def mpm(self) -> str:
        return next(m.name for m in self.modules if m.name.startswith("mpm_"))


def configmap_name(server: str, hash_: str) -> str:
    return f"{server[:242]}-{hash_[:10]}"


def configmap_files(configmap: Mapping[str, Any]) -> dict[str, bytes]:
    """The files of a ConfigMap: ``data`` as UTF-8 plus decoded ``binaryData``."""
    files = {k: v.encode("utf-8") for k, v in (configmap.get("data") or {}).items()}
    for k, v in (configmap.get("binaryData") or {}).items():
        files[k] = base64.b64decode(v)
    return files


def _severity_counts(findings) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        sev = getattr(f.severity, "name", str(f.severity)).lower()
        counts[sev] = counts.get(sev, 0) + 1
    return counts


def audit_count(annotations: Mapping[str, str] | None) -> int:
    """How many findings admission recorded in audit mode (annotation ``httpd24.io/audit-findings``).

    Accepts a JSON list of findings, a JSON object with ``count``/``total`` or per-severity counts,
    or a plain number; anything else counts as one finding.
    """
    raw = (annotations or {}).get(ANNOTATION_AUDIT)
    if not raw:
        return 0
    try:
        value = json.loads(raw)
    except ValueError:
        return 1
    if isinstance(value, list):
        return len(value)
    if isinstance(value, int):
        return max(value, 0)  # "-1": admission could not parse it (the plan reports the parse error)
    if isinstance(value, dict):
        for key in ("count", "total"):
            if isinstance(value.get(key), int):
                return value[key]
        if isinstance(value.get("findings"), list):
            return len(value["findings"])
        nums = [v for v in value.values() if isinstance(v, int)]
        return sum(nums) if nums else 1
    return 1


def plan(name: str, namespace: str, spec: HttpdServerSpec, configmap: Mapping[str, Any],
         policy: ServerPolicy = ServerPolicy()) -> Plan:
    """Compute the files to deploy for an HttpdServer from its ConfigMap (raises :class:`PlanError`).

    ``policy``: what the namespace's HttpdPolicies decide, as admission applies it to the ConfigMap's
    review: the rules left out (their findings are neither counted nor fixed) and the changed defaults."""
    if not _DNS_LABEL.match(name):
        raise PlanError("InvalidName", f"the name {name!r} must be a DNS label (it names the Service)")
    files = configmap_files(configmap)
    entry = spec.configMapRef.entry
    if MAIN_KEY in files:
        raise PlanError("ReservedKey", f"ConfigMap {spec.configMapRef.name} has a key {MAIN_KEY}; the operator generates that file, rename the key")
    if entry not in files:
        raise PlanError(
            "EntryNotFound",
            f"ConfigMap {spec.configMapRef.name} has no key {entry!r} (keys: {', '.join(sorted(files)) or 'none'}); "
            "set spec.configMapRef.entry",
        )
    secret_files = _secret_files(spec)
    if secret_files and SECRETS_DIR in files:
        raise PlanError("ReservedKey", f"ConfigMap {spec.configMapRef.name} has a key {SECRETS_DIR!r}, the directory where "
                        "spec.secrets mounts the Secrets; rename the key")
    content = [c.name for c in spec.content or ()]
    twice = sorted({n for n in content if content.count(n) > 1})
    if twice:
        raise PlanError("InvalidContent", f"spec.content names {', '.join(twice)} more than once; give each volume its own name")
    if content and mainconf.CONTENT_STAND_INS in files:
        raise PlanError("ReservedKey", f"ConfigMap {spec.configMapRef.name} has a key {mainconf.CONTENT_STAND_INS!r}, where the "
                        "configtest puts its stand-ins of spec.content; rename the key")
    # The trees go before the collector resumes: the operator plans 16 servers at a time.
    layout = layout_of(configmap)  # the annotations, read as admission reads them
    defaults = changed_defaults(policy, spec, layout)
    ignored = policy.ignored
    with trees_freed_before_collection() as trees:
        files, applied, findings, left_out, required, own_listen = _read(files, entry, defaults, spec.migration,
                                                                         layout.source_version,
                                                                         frozenset(ignored.codes), trees,
                                                                         pod_target(bool(content)))
    counts = _severity_counts(findings)
    try:
        modules = mainconf.modules_to_load(required.to_load(builtin="image"), spec.extraModules or ())
    except ValueError as e:
        raise PlanError("ModuleConflict", str(e)) from None
    if spec.ports:
        ports = [p.port for p in spec.ports]
    else:
        ports = own_listen or [mainconf.DEFAULT_PORT]
    main = mainconf.render_main(
        entry=entry, modules=modules, listen=[] if own_listen else ports, owner=f"{namespace}/{name}", content=bool(content)
    )
    bundle = mainconf.bundle(files, main)
    needs_person = [f for f in findings[applied:] if _severity_counts([f]).get("info", 0) == 0]
    return Plan(
        spec=spec,
        files=bundle,
        hash=mainconf.config_hash(bundle, secret_files, content),
        modules=modules,
        ports=ports,
        findings=counts,
        migrated=spec.migration == "migrated" and bundle != mainconf.bundle(configmap_files(configmap), main),
        applied=applied,
        remaining=len(needs_person),
        remaining_text=[f"{f.code} {f.file}:{f.line}: {f.message}" for f in needs_person[:5]],
        secret_files=secret_files,
        content=content,
        left_out=len(left_out),
        left_out_text=tally(left_out, f"left out by {ignored.by}") if left_out else "",
    )


def changed_defaults(policy: ServerPolicy, spec: HttpdServerSpec, layout: Layout) -> DefaultsPolicy:
    """How the plan decides 2.2 defaults that changed in 2.4: an HttpdPolicy's choice wins, as in
    admission; then the server's own ``spec.defaults``; then the ConfigMap's ``httpd24.io/defaults``
    that admission read; else (None) each rule's documented choice, as admission and the CLI make it.
    So a ``migrated`` server finds nothing left to rewrite in what the migrate webhook stored."""
    return policy.defaults or spec.defaults or layout.defaults


#: The ``-D`` names of the pod's httpd command (the official image's ``httpd-foreground`` passes FOREGROUND).
COMMAND_DEFINES = ("FOREGROUND",)


def pod_target(content: bool) -> Target:
    """What the pod's httpd runs with: its defines are all known (the command's and the main
    configuration's), so an ``<IfDefine SSL>`` block is one it never reads, and loads nothing for."""
    return replace(DEFAULT_TARGET, defines=frozenset(COMMAND_DEFINES) | mainconf.defined(content))


def _read(
    files: dict[str, bytes], entry: str, defaults: DefaultsPolicy, migration: str, source_version: SourceVersion,
    ignored: frozenset[str], trees: list, target: Target,
) -> tuple[dict[str, bytes], int, list[api.Finding], list[api.Finding], ModuleRequirements, list[int]]:
    """Files to deploy, how many findings were fixed, the findings (fixed first) and those of the
    ``ignored`` rules (all without their trees), the modules the files need on ``target`` (the pod) and
    their own Listen ports; every tree parsed is put in ``trees``."""
    cs = api.load_mapping(files, entry=entry, server_root=mainconf.SERVER_ROOT)
    trees.append(cs)
    if cs.errors:
        raise PlanError("ParseError", "; ".join(str(e) for e in cs.errors[:5]))
    exclude = (lambda finding: finding.code in ignored) if ignored else None
    try:
        if migration != "migrated":
            left_out: list[api.Finding] = []
            findings = [f.detached() for f in api.lint(cs, defaults=defaults, source_version=source_version,
                                                       exclude=exclude, excluded=left_out)]
            return (files, 0, findings, [f.detached() for f in left_out],
                    api.required_modules(cs, target=target), mainconf.listen_ports(cs))
        migration = api.migrate(cs, defaults=defaults, source_version=source_version, exclude=exclude)
        if migration.failures:
            raise PlanError("MigrationFailed", "; ".join(migration.failures[:3]))
        files = dict(migration.files)
        deployed = migration.configset or api.load_mapping(files, entry=entry, server_root=mainconf.SERVER_ROOT)
        if deployed is not cs:
            trees.append(deployed)
        # what was rewritten plus what is left: the findings of the stored text, without linting twice
        findings = [f.detached() for f in (*migration.applied, *migration.remaining)]
        return (files, len(migration.applied), findings, migration.excluded,
                api.required_modules(deployed, target=target), mainconf.listen_ports(deployed))
    except api.ParseError as e:
        raise PlanError("ParseError", str(e)) from None


def secret_hint(p: Plan, gate_output: str) -> str:
    """What to do when ``httpd -t`` missed a file under ``secrets/``: the gate had only the keys of ``spec.secrets``."""
    if f"{SECRETS_DIR}/" not in gate_output or "does not exist or is empty" not in gate_output:
        return ""
    mounted = ", ".join(p.secret_files) if p.secret_files else "no Secret"
    return (f"\n-> the pods have {mounted} under {SECRETS_DIR}/; list the Secret holding that file, with the key, "
            f"in spec.secrets (name, keys)")


def content_hint(p: Plan, gate_output: str) -> str:
    """What to do when ``httpd -t`` met ``${HTTPD24_CONTENT}`` undefined: it is defined only with ``spec.content``."""
    if p.content or f"${{{CONTENT_VARIABLE}}} is not defined" not in gate_output:
        return ""
    return (f"\n-> ${{{CONTENT_VARIABLE}}} names the spec.content volumes, and this HttpdServer lists none; add the "
            f"volume the configuration serves from to spec.content (name, persistentVolumeClaim or configMap)")


def _secret_files(spec: HttpdServerSpec) -> list[str]:
    """Where the pods read ``spec.secrets`` (raises :class:`PlanError` on names or keys the volume cannot hold)."""
    secrets = spec.secrets or []
    names = [s.name for s in secrets]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise PlanError("InvalidSecrets", f"spec.secrets names {', '.join(twice)} more than once; list each Secret once with all its keys")
    for s in secrets:
        bad = sorted({k for k in s.keys if k in (".", "..") or s.keys.count(k) > 1})
        if bad:
            raise PlanError("InvalidSecrets", f"spec.secrets {s.name}: key {bad[0]!r} is not a file name or is listed twice; list each key once")
    return mainconf.secret_paths(secrets)


# --- objects ---------------------------------------------------------------------------------


def owner_reference(server: Mapping[str, Any]) -> dict[str, Any]:
    meta = server["metadata"]
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": KIND,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def owned_metadata(server: Mapping[str, Any], name: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """Metadata of an object the HttpdServer owns: its namespace, the operator's labels, the owner reference."""
    meta: dict[str, Any] = {"name": name, "namespace": server["metadata"]["namespace"],
                            "labels": labels(server["metadata"]["name"])}
    if annotations:
        meta["annotations"] = annotations
    meta["ownerReferences"] = [owner_reference(server)]
    return meta


def labels(name: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "httpd",
        "app.kubernetes.io/instance": name,
        LABEL_MANAGED: MANAGED_BY,
        LABEL_SERVER: name,
    }


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def configmap(server: Mapping[str, Any], p: Plan) -> dict[str, Any]:
    """The generated, immutable ConfigMap holding exactly the files the gate tested (named by their hash)."""
    name = server["metadata"]["name"]
    data: dict[str, str] = {}
    binary: dict[str, str] = {}
    for key, content in p.files.items():
        text = _utf8(content)
        if text is None:
            binary[key] = base64.b64encode(content).decode("ascii")
        else:
            data[key] = text
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": owned_metadata(server, configmap_name(name, p.hash), {ANNOTATION_HASH: p.hash}),
        "immutable": True,
        "data": data,
    }
    if binary:
        body["binaryData"] = binary
    return body


def deployment(server: Mapping[str, Any], p: Plan, secrets_version: str | None = None) -> dict[str, Any]:
    """The Deployment: non-root, read-only root filesystem, no capabilities, mounting the generated ConfigMap.

    ``secrets_version`` (see :data:`ANNOTATION_SECRETS`) goes on the pod template, so a change rolls the pods.
    """
    name = server["metadata"]["name"]
    spec = p.spec
    ports = [{"name": n, "containerPort": port, "protocol": "TCP"} for n, port in zip(port_names(p), p.ports)]
    pod_security: dict[str, Any] = {
        "runAsNonRoot": True,
        "runAsUser": RUN_AS,
        "runAsGroup": RUN_AS,
        "fsGroup": RUN_AS,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    if any(port < 1024 for port in p.ports):
        # A safe sysctl (namespaced): lets the non-root httpd bind the 2.2 config's Listen 80.
        pod_security["sysctls"] = [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"}]
    container: dict[str, Any] = {
        "name": "httpd",
        "image": spec.image,
        "command": ["httpd", "-d", mainconf.SERVER_ROOT, "-f", f"{mainconf.SERVER_ROOT}/{MAIN_KEY}",
                    *(f"-D{name}" for name in COMMAND_DEFINES)],
        "ports": ports,
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "readinessProbe": {"tcpSocket": {"port": p.ports[0]}, "periodSeconds": 5},
        "livenessProbe": {"tcpSocket": {"port": p.ports[0]}, "periodSeconds": 20, "failureThreshold": 6},
        "volumeMounts": [
            {"name": "config", "mountPath": mainconf.SERVER_ROOT, "readOnly": True},
            {"name": "run", "mountPath": mainconf.RUN_DIR},
            {"name": "logs", "mountPath": "/usr/local/apache2/logs"},
            {"name": "tmp", "mountPath": "/tmp"},
            *({"name": f"content-{c.name}", "mountPath": f"{CONTENT_DIR}/{c.name}", "readOnly": c.readOnly}
              for c in spec.content or ()),
        ],
    }
    if spec.resources is not None:
        container["resources"] = spec.resources.model_dump(exclude_none=True)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": owned_metadata(server, name, {ANNOTATION_HASH: p.hash}),
        "spec": {
            "replicas": spec.replicas,
            "revisionHistoryLimit": 5,
            "selector": {"matchLabels": {LABEL_SERVER: name}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
            "template": {
                "metadata": {"labels": labels(name), "annotations": {
                    ANNOTATION_HASH: p.hash, **({ANNOTATION_SECRETS: secrets_version} if secrets_version else {})}},
                "spec": {
                    "automountServiceAccountToken": False,
                    "enableServiceLinks": False,
                    "securityContext": pod_security,
                    # replicas on different nodes where the scheduler can (never a reason not to schedule)
                    "topologySpreadConstraints": [{
                        "maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                        "labelSelector": {"matchLabels": {LABEL_SERVER: name}},
                    }],
                    "containers": [container],
                    "volumes": [
                        _config_volume(configmap_name(name, p.hash), spec),
                        {"name": "run", "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}},
                        {"name": "logs", "emptyDir": {"sizeLimit": "256Mi"}},
                        {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
                        *(_content_volume(c) for c in spec.content or ()),
                    ],
                },
            },
        },
    }


def _config_volume(configmap_name: str, spec: HttpdServerSpec) -> dict[str, Any]:
    """The ServerRoot volume: the generated ConfigMap, plus ``spec.secrets`` at ``secrets/<secret>/<key>``
    in one projected volume (a Secret volume mounted inside the ConfigMap's would need a mount point in a
    read-only volume). Keys are readable by the pod's group only (httpd's user is in it: fsGroup)."""
    if not spec.secrets:
        return {"name": "config", "configMap": {"name": configmap_name}}
    sources: list[dict[str, Any]] = [{"configMap": {"name": configmap_name}}]
    for s in spec.secrets:
        items = [{"key": key, "path": f"{SECRETS_DIR}/{s.name}/{key}", "mode": 0o440} for key in s.keys]
        sources.append({"secret": {"name": s.name, "items": items}})
    return {"name": "config", "projected": {"sources": sources, "defaultMode": 0o444}}


def _content_volume(content: ContentVolume) -> dict[str, Any]:
    """One ``spec.content`` volume (its name is a DNS label of at most 50 characters: ``content-`` fits)."""
    if content.persistentVolumeClaim is not None:
        source = {"persistentVolumeClaim": {"claimName": content.persistentVolumeClaim.claimName,
                                            "readOnly": content.readOnly}}
    else:
        assert content.configMap is not None  # the model allows exactly one source
        source = {"configMap": {"name": content.configMap.name}}
    return {"name": f"content-{content.name}", **source}


def disruption_budget(server: Mapping[str, Any]) -> dict[str, Any]:
    """At most one pod evicted at a time (a node drain, a cluster upgrade): the others keep serving.
    With one replica it still lets a drain proceed."""
    name = server["metadata"]["name"]
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": owned_metadata(server, name),
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {LABEL_SERVER: name}}},
    }


def port_names(p: Plan) -> list[str]:
    """Unique port names: the spec's names where given and unique, else ``http`` / ``http-<port>``."""
    given = [port.name for port in p.spec.ports] if p.spec.ports else []
    names = []
    for i, port in enumerate(p.ports):
        name = given[i] if i < len(given) else ("http" if i == 0 else "")
        if not name or name in names or given.count(name) > 1:
            name = f"http-{port}"
        names.append(name[:15])
    return names


def service(server: Mapping[str, Any], p: Plan) -> dict[str, Any]:
    name = server["metadata"]["name"]
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": owned_metadata(server, name),
        "spec": {
            **({"clusterIP": "None"} if p.spec.service == "Headless" else {}),
            "selector": {LABEL_SERVER: name},
            "ports": [
                {"name": n, "port": port, "targetPort": port, "protocol": "TCP"}
                for n, port in zip(port_names(p), p.ports)
            ],
        },
    }


# --- status ----------------------------------------------------------------------------------


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(type_: str, ok: bool | None, reason: str, message: str = "", generation: int | None = None) -> dict[str, Any]:
    status = "Unknown" if ok is None else ("True" if ok else "False")
    return {"type": type_, "status": status, "reason": reason, "message": message[:4000], "observedGeneration": generation}


def merge_conditions(old: list[dict[str, Any]] | None, new: list[dict[str, Any]], at: str | None = None) -> list[dict[str, Any]]:
    """Conditions in the fixed order, keeping ``lastTransitionTime`` where the status did not change."""
    at = at or now()
    previous = {c.get("type"): c for c in old or []}
    merged = {c["type"]: dict(c) for c in new}
    out = []
    for type_ in CONDITION_TYPES + tuple(t for t in merged if t not in CONDITION_TYPES):
        cond = merged.get(type_) or previous.get(type_)
        if cond is None:
            continue
        cond = dict(cond)
        before = previous.get(type_)
        if before is not None and before.get("status") == cond["status"] and before.get("lastTransitionTime"):
            cond["lastTransitionTime"] = before["lastTransitionTime"]
        else:
            cond.setdefault("lastTransitionTime", at)
            if type_ in merged:
                cond["lastTransitionTime"] = at
        out.append({k: v for k, v in cond.items() if v is not None})
    return out


def findings_summary(counts: Mapping[str, int], audit: int = 0, left_out: int = 0) -> dict[str, Any]:
    e, w, i = counts.get("error", 0), counts.get("warning", 0), counts.get("info", 0)
    text = f"{e}E {w}W {i}I" + (f" {audit}A" if audit else "")
    return {"error": e, "warning": w, "info": i, "audit": audit, "total": e + w + i + audit, "text": text,
            "leftOut": left_out}


def rollout_state(dep: Mapping[str, Any] | None, hash_: str | None) -> tuple[bool, str, dict[str, int]]:
    """Whether the Deployment runs ``hash_`` on every replica; a reason word; replica counts."""
    if not dep:
        return False, "NoDeployment", {"replicas": 0, "readyReplicas": 0, "updatedReplicas": 0}
    st = dep.get("status") or {}
    want = (dep.get("spec") or {}).get("replicas", 1)
    counts = {
        "replicas": int(st.get("replicas") or 0),
        "readyReplicas": int(st.get("readyReplicas") or 0),
        "updatedReplicas": int(st.get("updatedReplicas") or 0),
    }
    tmpl = ((dep.get("spec") or {}).get("template") or {}).get("metadata") or {}
    if hash_ is not None and (tmpl.get("annotations") or {}).get(ANNOTATION_HASH) != hash_:
        return False, "NotApplied", counts
    if int(st.get("observedGeneration") or 0) < int((dep.get("metadata") or {}).get("generation") or 0):
        return False, "Progressing", counts
    for c in st.get("conditions") or []:
        if c.get("type") == "Progressing" and c.get("reason") == "ProgressDeadlineExceeded":
            return False, "ProgressDeadlineExceeded", counts
    done = (
        counts["updatedReplicas"] >= want
        and counts["replicas"] == want
        and int(st.get("availableReplicas") or 0) >= want
    )
    return done, ("Complete" if done else "Progressing"), counts

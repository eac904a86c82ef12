"""``httpd24 operator``: the admission webhooks and the operator in one kopf process.

``add_arguments(parser)`` and ``run(args) -> int`` are what ``httpd24.cli`` wires;
``python -m httpd24.k8s.main`` runs the same thing on its own.

Exit codes: 0 stopped by a signal; 2 bad options or certificate files; 1 the operator failed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

log = logging.getLogger("httpd24.operator")

HANDLER_MODULES = ("httpd24.k8s.admission", "httpd24.k8s.operator")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    scope = parser.add_argument_group("scope")
    scope.add_argument("-n", "--namespace", dest="namespaces", action="append", default=[], metavar="NS",
                       help="serve HttpdServers in this namespace (repeat; globs allowed); default: all namespaces")
    scope.add_argument("-A", "--all-namespaces", action="store_true", help="serve every namespace (the default)")
    scope.add_argument("--operator-namespace", default=os.environ.get("POD_NAMESPACE", ""),
                       help="the operator's own namespace, never reviewed (default: $POD_NAMESPACE)")
    scope.add_argument("--exclude-namespace", dest="excluded", action="append", default=[], metavar="NS",
                       help="a namespace the webhooks never review (repeat); kube-system always is")
    scope.add_argument("--no-admission", action="store_true", help="run without the admission webhooks")
    scope.add_argument("--no-operator", action="store_true", help="run only the admission webhooks")

    hooks = parser.add_argument_group("admission webhooks")
    hooks.add_argument("--default-mode", choices=["audit", "warn", "migrate", "enforce"], default="warn",
                       help="mode where no namespace label or HttpdPolicy sets one (default: warn)")
    hooks.add_argument("--review-workers", type=int, default=min(4, os.cpu_count() or 1),
                       help="worker processes for reviews (the engine is CPU-bound); 0 reviews in the event loop "
                            "(default: the number of CPUs, at most 4)")
    hooks.add_argument("--webhook-addr", default="0.0.0.0", help="listen address (default: 0.0.0.0)")
    hooks.add_argument("--webhook-port", type=int, default=9443, help="listen port (default: 9443)")
    hooks.add_argument("--webhook-host", default=None,
                       help="host name or IP the apiserver uses to reach the webhooks (URL mode; default: the "
                            "listen address, or localhost for 0.0.0.0)")
    hooks.add_argument("--webhook-url", default=None,
                       help="public base URL of the webhooks, e.g. https://10.0.0.5:9443 (overrides host/port in "
                            "the managed configurations)")
    hooks.add_argument("--webhook-service", default=None, metavar="NAMESPACE/NAME[:PORT]",
                       help="reach the webhooks through this Service instead of a URL (in-cluster)")
    hooks.add_argument("--manage-webhooks", action="store_true",
                       help="create/replace the Validating and Mutating WebhookConfigurations at start-up and delete "
                            "them at exit (local development and tests; the Helm chart makes them in a cluster)")
    hooks.add_argument("--keep-webhooks", action="store_true", help="with --manage-webhooks: do not delete at exit")
    hooks.add_argument("--webhook-name", default="httpd24", help="name of the managed configurations (default: httpd24)")
    hooks.add_argument("--failure-policy", choices=["Fail", "Ignore"], default="Fail",
                       help="failurePolicy of the managed configurations (default: Fail)")
    hooks.add_argument("--timeout-seconds", type=int, default=10,
                       help="timeoutSeconds of the managed configurations, 1-30 (default: 10)")

    tls = parser.add_argument_group("webhook TLS")
    tls.add_argument("--tls-cert-file", default=None, help="serving certificate (PEM); re-read when it changes")
    tls.add_argument("--tls-key-file", default=None, help="its private key (PEM)")
    tls.add_argument("--tls-ca-file", default=None, help="CA bundle for the caBundle field (default: the certificate)")
    tls.add_argument("--tls-dir", default=None,
                     help="without --tls-cert-file: make (or reuse) ca.crt, tls.crt, tls.key here (default: a temp dir)")
    tls.add_argument("--tls-san", action="append", default=[], metavar="NAME",
                     help="extra host name or IP for a generated certificate (repeat)")
    tls.add_argument("--cert-check-interval", type=float, default=60.0,
                     help="seconds between checks of the certificate files for changes (default: 60)")

    ops = parser.add_argument_group("observability")
    ops.add_argument("--metrics-addr", default="0.0.0.0", help="listen address of /metrics, /healthz, /readyz")
    ops.add_argument("--metrics-port", type=int, default=8080, help="metrics and probes port; 0 disables (default: 8080)")
    ops.add_argument("--liveness", default=None, metavar="URL",
                     help="kopf's own liveness endpoint, e.g. http://0.0.0.0:8081/kopf-healthz")
    ops.add_argument("--log-format", choices=["text", "json"], default="text", help="log format (default: text)")
    ops.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    ops.add_argument("-q", "--quiet", action="store_true", help="warnings and errors only")


def _service(value: str) -> tuple[str, str, int]:
    target, _, port = value.partition(":")
    namespace, _, name = target.partition("/")
    if not namespace or not name:
        raise ValueError(f"--webhook-service must be NAMESPACE/NAME[:PORT], got {value!r}")
    return namespace, name, int(port or 443)


def _tls(args: argparse.Namespace, host: str) -> tuple[str, str, str | None]:
    from . import certs

    if args.tls_cert_file or args.tls_key_file:
        if not (args.tls_cert_file and args.tls_key_file):
            raise certs.CertError("--tls-cert-file and --tls-key-file go together")
        info = certs.load(args.tls_cert_file, args.tls_key_file)
        if host not in info.sans and not args.webhook_service:
            log.warning("the certificate covers %s, not %s: the apiserver will refuse it", ", ".join(info.sans), host)
        return args.tls_cert_file, args.tls_key_file, args.tls_ca_file
    directory = args.tls_dir or tempfile.mkdtemp(prefix="httpd24-webhook-tls-")
    sans = [host, *args.tls_san]
    if args.webhook_addr not in ("0.0.0.0", "::", ""):
        sans.append(args.webhook_addr)
    if args.webhook_service:
        namespace, name, _ = _service(args.webhook_service)
        sans += [f"{name}.{namespace}.svc", f"{name}.{namespace}.svc.cluster.local"]
    files = certs.ensure(directory, sans)
    log.info("webhook TLS files in %s (CA %s)", directory, files.ca)
    return str(files.cert), str(files.key), str(files.ca)


def _configure_logging(args: argparse.Namespace) -> None:
    import kopf

    fmt = kopf.LogFormat.JSON if args.log_format == "json" else kopf.LogFormat.FULL
    kopf.configure(verbose=args.verbose, quiet=args.quiet, log_format=fmt)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def _import_handlers(args: argparse.Namespace) -> list[str]:
    loaded = []
    for module in HANDLER_MODULES:
        if module.endswith(".admission") and args.no_admission:
            continue
        if module.endswith(".operator") and args.no_operator:
            continue
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
            log.info("%s is not there; running without it", module)
            continue
        loaded.append(module)
    return loaded


def run(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; returns the exit code."""
    try:
        import kopf  # noqa: F401
    except ImportError:
        print("httpd24 operator needs the operator extra: pip install 'httpd24[operator]'", file=sys.stderr)
        return 2
    _configure_logging(args)
    # Importing the admission module registers its kopf handlers: only when webhooks are on.
    from . import certs, review

    if not 1 <= args.timeout_seconds <= 30:
        print(f"--timeout-seconds must be 1..30, got {args.timeout_seconds}", file=sys.stderr)
        return 2
    service = None
    try:
        if args.webhook_service:
            service = _service(args.webhook_service)
        host = args.webhook_host or ("localhost" if args.webhook_addr in ("0.0.0.0", "::", "") else args.webhook_addr)
        tls = _tls(args, host) if not args.no_admission else None
    except (ValueError, certs.CertError) as error:
        print(f"httpd24 operator: {error}", file=sys.stderr)
        return 2
    excluded = {"kube-system", *args.excluded}
    if args.operator_namespace:
        excluded.add(args.operator_namespace)
    modules = _import_handlers(args)
    log.info("handlers from %s", ", ".join(modules) or "nothing")
    if "httpd24.k8s.operator" in modules:
        from . import operator

        operator.NAMESPACES = tuple(n for n in args.namespaces if n)
    reviewer = None
    if not args.no_admission:
        from . import admission

        admission.CONFIG.default_mode = review.Mode.parse(args.default_mode) or review.DEFAULT_MODE
        admission.CONFIG.excluded_namespaces = frozenset(excluded)
        reviewer = admission.REVIEWER
        reviewer.workers = max(0, args.review_workers)
        reviewer.start()  # before kopf's threads exist
    try:
        return asyncio.run(_main(args, tls, host, service, sorted(excluded)))
    except KeyboardInterrupt:
        return 0
    finally:
        if reviewer is not None:
            reviewer.stop()


async def _main(args, tls, host, service, excluded) -> int:
    import kopf

    from . import metrics, rollout_api, webhooks, webhooks_manage

    settings = kopf.OperatorSettings()
    # Nothing is written on user objects: kopf keeps handler progress and the last-handled
    # state in the status of the operator's own resources, never in annotations of ConfigMaps
    # (the webhooks and indexes write nothing at all).
    settings.persistence.progress_storage = kopf.StatusProgressStorage(field="status.kopf.progress")
    settings.persistence.diffbase_storage = kopf.StatusDiffBaseStorage(field="status.kopf.last-handled")
    settings.posting.level = logging.WARNING
    settings.watching.server_timeout = 300
    settings.execution.max_workers = 4
    settings.admission.managed = None
    stopping: list[Any] = []
    if tls is not None:
        from . import admission

        certfile, pkeyfile, cafile = tls
        server = admission.Server(
            addr=args.webhook_addr, port=args.webhook_port, host=host,
            certfile=certfile, pkeyfile=pkeyfile, cafile=cafile, file_check_interval=args.cert_check_interval,
        )
        settings.admission.server = server
        if args.manage_webhooks:
            ca_bundle = base64.b64encode(Path(cafile or certfile).read_bytes()).decode()
            url = None if service else (args.webhook_url or f"https://{_url_host(host)}:{args.webhook_port}")
            validating, mutating = webhooks.webhook_configurations(
                url=url, service=service, ca_bundle=ca_bundle, name=args.webhook_name,
                failure_policy=args.failure_policy, timeout_seconds=args.timeout_seconds,
                excluded_namespaces=excluded,
            )

            async def manage(client_config: dict) -> None:
                bundle = client_config.get("caBundle") or ca_bundle
                for config in (validating, mutating):
                    for hook in config["webhooks"]:
                        hook["clientConfig"]["caBundle"] = bundle
                async with rollout_api.Kube() as kube:
                    await webhooks_manage.apply_configurations(kube, [validating, mutating])

            server.on_listen.append(manage)
            if not args.keep_webhooks:
                stopping.append(lambda: _delete_webhooks(args.webhook_name))
    runner = None
    if args.metrics_port:
        runner = await metrics.serve(args.metrics_addr, args.metrics_port)
        log.info("metrics and probes on %s:%d", args.metrics_addr, args.metrics_port)
    namespaces = [n for n in args.namespaces if n]
    try:
        await kopf.operator(
            settings=settings,
            standalone=True,
            clusterwide=not namespaces,
            namespaces=namespaces,
            liveness_endpoint=args.liveness,
        )
    finally:
        for action in stopping:
            try:
                await action()
            except Exception as error:  # the cluster may be gone already
                log.warning("clean-up failed: %s", error)
        if runner is not None:
            await runner.cleanup()
    return 0


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


async def _delete_webhooks(name: str) -> None:
    from . import rollout_api, webhooks_manage

    async with rollout_api.Kube() as kube:
        await webhooks_manage.delete_configurations(kube, name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="httpd24 operator", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())

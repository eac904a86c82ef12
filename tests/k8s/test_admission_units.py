"""Certificates, webhook configurations and the operator's options (no cluster)."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import ssl

import pytest

from httpd24.k8s import certs, webhooks


# -- certificates ------------------------------------------------------------------------------------------
def test_ensure_makes_a_ca_and_a_serving_cert_that_tls_accepts(tmp_path):
    files = certs.ensure(tmp_path, ["127.0.0.1", "webhook.ns.svc"])
    info = certs.load(files.cert, files.key)
    assert set(info.sans) == {"127.0.0.1", "webhook.ns.svc"}
    assert info.not_after > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=300)
    assert (tmp_path / "tls.key").stat().st_mode & 0o077 == 0
    # a real TLS handshake, verified against the CA, for the IP SAN
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(files.cert, files.key)
    client_ctx = ssl.create_default_context(cafile=str(files.ca))

    async def handshake():
        async def handle(reader, writer):
            writer.write(b"ok")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_ctx)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_ctx)
        data = await reader.read()
        writer.close()
        server.close()
        return data

    assert asyncio.run(handshake()) == b"ok"


def test_ensure_keeps_valid_files_and_remakes_for_new_sans(tmp_path):
    first = certs.ensure(tmp_path, ["127.0.0.1"])
    ca, cert = first.ca.read_bytes(), first.cert.read_bytes()
    again = certs.ensure(tmp_path, ["127.0.0.1"])
    assert again.cert.read_bytes() == cert
    wider = certs.ensure(tmp_path, ["127.0.0.1", "localhost"])
    assert wider.cert.read_bytes() != cert
    assert wider.ca.read_bytes() == ca  # the caBundle stays right
    assert set(certs.load(wider.cert, wider.key).sans) == {"127.0.0.1", "localhost"}


def test_load_refuses_a_key_of_another_certificate(tmp_path):
    a = certs.ensure(tmp_path / "a", ["a"])
    b = certs.ensure(tmp_path / "b", ["b"])
    with pytest.raises(certs.CertError, match="does not belong"):
        certs.load(a.cert, b.key)
    (tmp_path / "junk.pem").write_text("junk")
    with pytest.raises(certs.CertError, match="not a readable PEM certificate"):
        certs.load(tmp_path / "junk.pem", a.key)


# -- webhook configurations -----------------------------------------------------------------------------------
def test_webhook_configurations_select_labelled_configmaps_outside_excluded_namespaces():
    validating, mutating = webhooks.webhook_configurations(
        url="https://127.0.0.1:9443/", ca_bundle="Q0E=", excluded_namespaces=["httpd24-system"], timeout_seconds=5
    )
    assert validating["kind"] == "ValidatingWebhookConfiguration"
    assert mutating["kind"] == "MutatingWebhookConfiguration"
    v, m = validating["webhooks"][0], mutating["webhooks"][0]
    assert v["clientConfig"] == {"url": "https://127.0.0.1:9443/validate-configmap", "caBundle": "Q0E="}
    assert m["clientConfig"]["url"] == "https://127.0.0.1:9443/mutate-configmap"
    for hook in (v, m):
        assert hook["objectSelector"] == {"matchLabels": {"httpd24.io/config": "true"}}
        assert hook["namespaceSelector"]["matchExpressions"] == [
            {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["httpd24-system", "kube-system"]}
        ]
        assert hook["sideEffects"] == "None" and hook["failurePolicy"] == "Fail" and hook["timeoutSeconds"] == 5
        assert hook["rules"][0]["resources"] == ["configmaps"]
        assert hook["rules"][0]["operations"] == ["CREATE", "UPDATE"]
    assert m["reinvocationPolicy"] == "Never" and "reinvocationPolicy" not in v


def test_webhook_configurations_with_a_service_and_bad_values():
    validating, _ = webhooks.webhook_configurations(service=("httpd24-system", "httpd24", 443), failure_policy="Ignore")
    hook = validating["webhooks"][0]
    assert hook["clientConfig"] == {
        "service": {"namespace": "httpd24-system", "name": "httpd24", "port": 443, "path": "/validate-configmap"}
    }
    assert hook["failurePolicy"] == "Ignore"
    with pytest.raises(ValueError, match="timeoutSeconds"):
        webhooks.webhook_configurations(url="https://x", timeout_seconds=31)
    with pytest.raises(ValueError, match="exactly one"):
        webhooks.webhook_configurations()


def test_handler_ids_are_the_url_paths():
    pytest.importorskip("kopf")
    import kopf

    from httpd24.k8s import admission  # noqa: F401  (registers the handlers)

    ids = {h.id for h in kopf.get_default_registry()._webhooks.get_all_handlers()}
    assert {webhooks.VALIDATE_ID, webhooks.MUTATE_ID} <= ids


# -- review workers ------------------------------------------------------------------------------------------------
def test_a_review_goes_to_the_least_busy_worker_and_a_validation_to_where_its_mutation_went():
    from httpd24.k8s.admission import Reviewer

    reviewer = Reviewer(workers=3)
    reviewer.in_flight = [2, 0, 1]
    assert reviewer.choose("shop/web", "mutate") == 1
    reviewer.in_flight = [0, 3, 0]
    assert reviewer.choose("shop/api", "validate") == 0  # no mutation seen: the least busy
    assert reviewer.choose("shop/web", "validate") == 1  # its analysis is cached there, however busy
    assert reviewer.choose("shop/web", "validate") == 0  # once: the next request is placed anew


def test_placements_waiting_for_their_validation_are_bounded():
    from httpd24.k8s.admission import Reviewer

    reviewer = Reviewer(workers=2)
    reviewer.in_flight = [0, 0]
    for n in range(Reviewer.PLACED_LIMIT + 10):  # mutations whose validation never came (denied)
        reviewer.choose(f"shop/web-{n}", "mutate")
    assert len(reviewer.placed) == Reviewer.PLACED_LIMIT
    assert "shop/web-0" not in reviewer.placed and f"shop/web-{Reviewer.PLACED_LIMIT + 9}" in reviewer.placed


# -- the operator's options ----------------------------------------------------------------------------------------
def parse(*argv):
    from httpd24.k8s import main

    parser = argparse.ArgumentParser()
    main.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_option_defaults():
    args = parse()
    assert args.namespaces == [] and args.webhook_port == 9443 and args.metrics_port == 8080
    assert args.failure_policy == "Fail" and args.timeout_seconds == 10 and args.default_mode == "warn"
    assert args.log_format == "text" and not args.manage_webhooks


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--timeout-seconds", "45"], "--timeout-seconds must be 1..30"),
        (["--tls-cert-file", "/nonexistent.crt"], "--tls-cert-file and --tls-key-file go together"),
        (["--tls-cert-file", "/nonexistent.crt", "--tls-key-file", "/nonexistent.key"], "not a readable PEM"),
        (["--webhook-service", "just-a-name"], "NAMESPACE/NAME"),
    ],
)
def test_bad_options_exit_2_with_a_message(argv, message, capsys):
    from httpd24.k8s import main

    assert main.run(parse("--no-operator", *argv)) == 2
    assert message in capsys.readouterr().err


# -- the metrics endpoints ---------------------------------------------------------------------------------------------------
def test_metrics_endpoints():
    from aiohttp.test_utils import TestClient, TestServer

    from httpd24.k8s import metrics

    state = metrics.State()

    async def scenario():
        client = TestClient(TestServer(metrics.app(state)))
        await client.start_server()
        try:
            assert (await client.get("/healthz")).status == 200
            not_ready = await client.get("/readyz")
            assert not_ready.status == 503
            assert "the webhook server and the indexes" in await not_ready.text()
            state.ready = state.indexed = True
            assert (await client.get("/readyz")).status == 200
            state.log_request(namespace="a", name="b", webhook="validate-configmap")
            log = json.loads(await (await client.get("/debug/requests")).text())
            assert log[0]["name"] == "b"
            metrics.DECISIONS.labels("validate-configmap", "warn", "allowed", "false").inc()
            text = await (await client.get("/metrics")).text()
            assert "httpd24_admission_decisions_total" in text
        finally:
            await client.close()

    asyncio.run(scenario())

"""The webhook's review workers: real worker processes, answers matched to their calls, death and restart."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal

import pytest

from httpd24.k8s import review as r
from httpd24.k8s.admission import Reviewer
from httpd24.k8s.review import Mode
from httpd24.k8s.review_workers import Worker, WorkerDied, WorkerError

WARN = {"mode": int(Mode.WARN), "stage": "validate"}


def configmap(text: str, name: str = "web") -> dict:
    return {"metadata": {"name": name, "namespace": "team"}, "data": {"httpd.conf": text}}


def config(n: int, lines: int = 20) -> str:
    """A distinct config (no cache hit) with a finding on line 2 + ``n % 7``."""
    body = [f"ServerName www{n}.example.com"] + ["# filler"] * (n % 7) + ["MaxClients 10"]
    return "\n".join(body + ["KeepAliveTimeout 5"] * lines) + "\n"


def here(body: dict) -> r.Decision:
    r.CACHE.clear()
    return r.review_portable(body, WARN)


@pytest.fixture
def worker():
    started = Worker(multiprocessing.get_context("forkserver"), r.review_portable, "test worker")
    started.start()
    yield started
    started.stop()
    assert not started.process.is_alive()


def test_concurrent_calls_get_their_own_answers(worker):
    bodies = [configmap(config(n), f"web-{n}") for n in range(24)]

    async def scenario():
        return await asyncio.gather(*(worker.call(body, WARN) for body in bodies))

    answers = asyncio.run(scenario())
    assert [a.findings for a in answers] == [here(b).findings for b in bodies]
    assert len({a.findings[0].line for a in answers}) == 7  # the answers do differ


def test_a_configuration_larger_than_a_pipe_crosses_both_ways(worker):
    """1 MiB out (the pipe holds 64 KiB: the loop writes the rest as the worker reads) and an answer of
    thousands of findings back in many reads."""
    text = "ServerName big.example.com\n" + "".join(f"MaxClients {n}\n" for n in range(20_000))
    text += "# a comment that pads the configuration\n" * 20_000
    body = configmap(text)

    async def scenario():
        return await asyncio.wait_for(worker.call(body, WARN), 120)

    answer = asyncio.run(scenario())
    assert len(answer.findings) == 20_000 and answer.findings == here(body).findings


def test_a_cancelled_call_does_not_take_the_next_calls_answer(worker):
    slow, quick = configmap(config(1, 20_000), "slow"), configmap(config(2), "quick")

    async def scenario():
        first = asyncio.ensure_future(worker.call(slow, WARN))
        await asyncio.sleep(0.05)
        first.cancel()
        return await worker.call(quick, WARN)

    assert asyncio.run(scenario()).findings == here(quick).findings


def test_an_exception_in_the_worker_is_raised_to_the_caller_and_the_worker_goes_on(worker):
    async def scenario():
        with pytest.raises(WorkerError, match="ValueError: 99 is not a valid Mode"):
            await worker.call(configmap(config(3)), {"mode": 99, "stage": "validate"})
        return await worker.call(configmap(config(4)), WARN)

    assert asyncio.run(scenario()).findings == here(configmap(config(4))).findings


def test_a_killed_worker_fails_its_calls_and_is_started_again(worker):
    async def scenario():
        await worker.call(configmap(config(5)), WARN)
        killed = worker.process.pid
        os.kill(killed, signal.SIGKILL)
        with pytest.raises(WorkerDied):
            await worker.call(configmap(config(6)), WARN)
        assert worker.process.pid != killed and worker.process.is_alive()
        return await worker.call(configmap(config(7)), WARN)

    assert asyncio.run(scenario()).findings == here(configmap(config(7))).findings


def test_the_reviewer_answers_a_request_whose_worker_died_itself():
    reviewer = Reviewer(workers=1)
    reviewer.start()
    try:
        body = configmap(config(8))

        async def scenario():
            os.kill(reviewer.pool[0].process.pid, signal.SIGKILL)
            return await reviewer.review("team/web", body, 0, mode=Mode.WARN, stage="validate")

        answer = asyncio.run(scenario())
        assert [(f.code, f.file, f.line) for f in answer.findings] == here(body).findings
        assert reviewer.in_flight == [0]
    finally:
        reviewer.stop()


def test_a_worker_killed_before_its_first_call_is_started_again_and_answers():
    """Killed before the event loop attached to its pipes (a worker the requests had not reached yet): its
    death shows while the loop attaches. The call must not wait for an answer that never comes, and the loop
    must not keep transports on the dead worker's descriptors, which the kernel gives to the next file
    opened (in the webhook, a connection from the apiserver: requests were written into it as TLS records).
    A free descriptor below the pipes' makes the restarted worker's pipes get other numbers."""
    hole = os.open(os.devnull, os.O_RDONLY)
    started = Worker(multiprocessing.get_context("forkserver"), r.review_portable, "test worker")
    started.start()
    os.close(hole)
    try:
        killed = started.process.pid
        os.kill(killed, signal.SIGKILL)
        started.process.join(5)

        async def scenario():
            with pytest.raises(WorkerDied):
                await asyncio.wait_for(started.call(configmap(config(9)), WARN), 20)
            assert started.process.pid != killed and started.process.is_alive()
            return await asyncio.wait_for(started.call(configmap(config(10)), WARN), 20)

        assert asyncio.run(scenario()).findings == here(configmap(config(10))).findings
    finally:
        started.stop()

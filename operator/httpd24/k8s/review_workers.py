"""Worker processes for reviews, driven by the event loop itself over two pipes each.

The engine is CPU-bound Python, so the webhook reviews in worker processes (one per core).
``concurrent.futures.ProcessPoolExecutor`` hands every call through two threads of the calling
process (its queue feeder and its result manager), and each hand-off waits for the GIL, which
the event loop holds while it reads the next request: a round trip with a 1,000-line ConfigMap
cost the webhook's process ~0.3 ms of CPU, against ~0.05 ms over pipes the loop reads itself.

A worker reads length-prefixed pickles (``multiprocessing.Connection`` frames) from one pipe
and answers them in order on another. The loop writes through a pipe transport, which buffers
what the pipe cannot take yet (a 1 MiB ConfigMap never blocks the loop), and matches answers
to calls in order. A worker that dies fails the calls it holds with :class:`WorkerDied` and is
started again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import struct
from collections import deque
from typing import Any, Callable

log = logging.getLogger("httpd24.admission")

#: The frame header of ``multiprocessing.Connection`` (its form for frames over 2 GiB is never
#: needed: a request is at most the webhook's largest body).
_HEADER = struct.Struct("!i")


class WorkerDied(Exception):
    """The worker process ended (killed for memory?) before it answered."""


class WorkerError(Exception):
    """The function raised in the worker: its type and message."""


def _serve(fn: Callable[..., Any], requests: Any, answers: Any) -> None:
    """The worker's loop: argument tuples in, ``(True, result)`` or ``(False, error)`` out, until
    the webhook closes the request pipe."""
    while True:
        try:
            args = pickle.loads(requests.recv_bytes())
        except EOFError:
            return
        try:
            answer: tuple[bool, Any] = (True, fn(*args))
        except Exception as error:  # the webhook answers the request; the worker goes on
            answer = (False, f"{type(error).__name__}: {error}")
        answers.send_bytes(pickle.dumps(answer, pickle.HIGHEST_PROTOCOL))


class _Answers(asyncio.Protocol):
    """Cuts the answer pipe's bytes into frames and hands each to its worker."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            end = _HEADER.size + size
            if len(self.buffer) < end:
                return
            frame = self.buffer[_HEADER.size:end]
            del self.buffer[:end]
            self.worker.answered(frame)

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.lost()


class Worker:
    """One process running ``fn``; :meth:`call` from the event loop, :meth:`call_blocking` before it runs."""

    def __init__(self, context: Any, fn: Callable[..., Any], name: str) -> None:
        self.context, self.fn, self.name = context, fn, name
        self.process: Any = None
        self.requests: Any = None  # our end of the request pipe (a Connection)
        self.answers: Any = None  # our end of the answer pipe
        self.pending: deque[asyncio.Future] = deque()
        self.reader: asyncio.ReadTransport | None = None
        self.writer: asyncio.WriteTransport | None = None
        self.attaching: asyncio.Future | None = None
        #: The answer pipe closed while :meth:`_attach` ran (:meth:`lost`).
        self.died_attaching = False
        self.stopping = False

    def start(self) -> None:
        requests_out, self.requests = self.context.Pipe(duplex=False)
        self.answers, answers_in = self.context.Pipe(duplex=False)
        self.process = self.context.Process(
            target=_serve, args=(self.fn, requests_out, answers_in), name=self.name, daemon=True
        )
        self.process.start()
        requests_out.close()  # the worker's ends: the answer pipe reads EOF once the worker is gone
        answers_in.close()
        self.reader = self.writer = self.attaching = None
        self.died_attaching = False

    def call_blocking(self, *args: Any, timeout: float) -> Any:
        """A call before the event loop attaches to the pipes (the warm-up at start)."""
        self.requests.send_bytes(pickle.dumps(args, pickle.HIGHEST_PROTOCOL))
        if not self.answers.poll(timeout):
            raise TimeoutError(f"{self.name} did not answer within {timeout} s")
        return _result(pickle.loads(self.answers.recv_bytes()))

    async def call(self, *args: Any) -> Any:
        if self.writer is None:
            if self.attaching is None:
                self.attaching = asyncio.ensure_future(self._attach())
            try:
                await asyncio.shield(self.attaching)
            except OSError as error:
                self.attaching = None
                raise WorkerDied(f"cannot reach {self.name}: {error}") from error
        if self.writer is None or self.writer.is_closing():
            raise WorkerDied(f"{self.name} is gone")
        future = asyncio.get_running_loop().create_future()
        self.pending.append(future)
        data = pickle.dumps(args, pickle.HIGHEST_PROTOCOL)
        self.writer.writelines((_HEADER.pack(len(data)), data))
        return _result(await future)

    async def _attach(self) -> None:
        loop = asyncio.get_running_loop()
        # Views of the Connections' descriptors: the transports must not close them (stop() does).
        reader, _ = await loop.connect_read_pipe(
            lambda: _Answers(self), os.fdopen(self.answers.fileno(), "rb", buffering=0, closefd=False)
        )
        self.reader = reader
        writer, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(self.requests.fileno(), "wb", buffering=0, closefd=False)
        )
        self.writer = writer
        if self.died_attaching:  # lost() waited for both transports: it takes them off now
            self.died_attaching = False
            self.lost()

    def answered(self, frame: bytearray) -> None:
        future = self.pending.popleft()
        if not future.done():  # a cancelled call (the apiserver gave up) still gets its answer: dropped
            future.set_result(pickle.loads(frame))

    def lost(self) -> None:
        """The answer pipe closed: the process is gone. Fail what it held and start it anew.

        A worker that died before the loop attached to its pipes shows it while :meth:`_attach` waits
        for the write transport: its descriptors are closed only once that transport exists and can be
        taken off them, else it would be made on a descriptor the kernel has given to something else
        (a connection from the apiserver), and the call would wait on a worker that was started again.
        """
        if self.stopping:
            return
        if self.writer is None:
            self.died_attaching = True
            return
        pending, self.pending = self.pending, deque()
        self._detach()
        self.process.join(1)
        log.error("%s ended (exit code %s, out of memory?) holding %d review(s); starting it again",
                  self.name, self.process.exitcode, len(pending))
        for connection in (self.requests, self.answers):
            connection.close()
        for future in pending:
            if not future.done():
                future.set_exception(WorkerDied(f"{self.name} ended (exit code {self.process.exitcode})"))
        self.start()

    def _detach(self) -> None:
        """Take the event loop off the pipes. The writer is aborted, not closed: a close keeps a
        half-written request and its descriptor's callbacks until flushed, and a restarted worker's
        pipes may get the same descriptor numbers."""
        for transport, end in ((self.reader, "close"), (self.writer, "abort")):
            if transport is not None:
                try:
                    getattr(transport, end)()
                except RuntimeError:  # its event loop has ended (asyncio.run returned): nothing to tell it
                    pass

    def stop(self) -> None:
        self.stopping = True
        self._detach()
        for connection in (self.requests, self.answers):
            if connection is not None:
                connection.close()  # the worker reads EOF and returns
        if self.process is not None:
            self.process.join(5)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(5)


def _result(answer: tuple[bool, Any]) -> Any:
    ok, value = answer
    if not ok:
        raise WorkerError(value)
    return value

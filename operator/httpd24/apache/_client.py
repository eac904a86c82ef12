"""A raw HTTP client whose source address can be chosen inside 127.0.0.0/8.

Access control by client address (``Require ip``, ``Allow from``) is tested by
binding the client socket to e.g. 127.0.0.2 before connecting to the server on
127.0.0.1 (Linux routes the whole of 127.0.0.0/8 to the loopback interface).
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import socket
from dataclasses import dataclass
from email.message import Message
from typing import Iterable, Mapping, Sequence

__all__ = ["Response", "request", "request_matrix"]


@dataclass(frozen=True)
class Response:
    """``status`` (int), ``reason``, ``headers`` (case-insensitive
    :class:`email.message.Message`: ``headers["Location"]``,
    ``headers.get_all("Set-Cookie")``), ``body`` (bytes, de-chunked)."""

    status: int
    headers: Message
    body: bytes
    reason: str = ""

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name, default)


def request(
    port: int,
    path: str = "/",
    *,
    source: str = "127.0.0.1",
    method: str = "GET",
    user: str | None = None,
    password: str | None = None,
    headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    host: str | None = None,
    timeout: float = 5,
    body: bytes | None = None,
    server: str = "127.0.0.1",
    http_version: str = "1.1",
) -> Response:
    """Send one request to ``server:port`` from ``source`` and read the answer.

    The request is written byte for byte as given (``path`` is not quoted or
    normalised); HTTP/1.1 requests carry ``Connection: close``.  ``host``
    defaults to ``localhost`` (pass ``""`` to send no Host header).  A
    ``user`` adds ``Authorization: Basic`` (``password`` defaults to "").
    ``headers`` may be a mapping or a list of pairs (to repeat a header).
    """
    src = ipaddress.ip_address(source)
    if src.version == 4 and not src.is_loopback:
        raise ValueError(f"source must be a loopback address, not {source}")
    lines = [f"{method} {path} HTTP/{http_version}"]
    if host is None:
        host = "localhost"
    if host:
        lines.append(f"Host: {host}")
    if user is not None:
        token = base64.b64encode(f"{user}:{password or ''}".encode()).decode("ascii")
        lines.append(f"Authorization: Basic {token}")
    items = list(headers.items()) if isinstance(headers, Mapping) else list(headers or ())
    for k, v in items:
        lines.append(f"{k}: {v}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    if http_version == "1.1":
        lines.append("Connection: close")
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")

    family = socket.AF_INET6 if src.version == 6 else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.bind((source, 0))
        sock.connect((server, port))
        sock.sendall(raw)
        resp = http.client.HTTPResponse(sock, method=method)
        resp.begin()
        data = resp.read()
        return Response(resp.status, resp.msg, data, resp.reason)
    finally:
        sock.close()


def request_matrix(
    port: int,
    paths: Iterable[str],
    *,
    sources: Iterable[str] = ("127.0.0.1",),
    credentials: Iterable[tuple[str | None, str | None]] = ((None, None),),
    headers: Iterable[Mapping[str, str] | None] = (None,),
    method: str = "GET",
    timeout: float = 5,
) -> dict[tuple[str, str, str | None, str | None, int], int]:
    """Status of every combination of path x source x (user, password) x headers.

    Keys are ``(path, source, user, password, headers_index)``; values the
    HTTP status.  Requests go one after the other in a fixed order, so two
    servers given the same matrix can be compared key by key.
    """
    header_sets = list(headers)
    cred_list = list(credentials)
    source_list = list(sources)
    out = {}
    for path in paths:
        for src in source_list:
            for user, password in cred_list:
                for i, hdrs in enumerate(header_sets):
                    r = request(port, path, source=src, method=method, user=user, password=password, headers=hdrs, timeout=timeout)
                    out[(path, src, user, password, i)] = r.status
    return out

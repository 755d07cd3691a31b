"""The desk's HTTP server underneath aiohttp: a connection cap with idle eviction, and JSON
errors (never aiohttp's plain-text pages) for requests too malformed to reach a handler.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
import time
import uuid
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from bot import metrics
from bot.desk import Desk

__all__ = [
    "BACKLOG",
    "DESK",
    "FD_RESERVE",
    "HANDLER_ARGS",
    "SECURITY_HEADERS",
    "TOKEN",
    "DeskSite",
    "connection_limit",
    "error_response",
    "http_code",
]

log = logging.getLogger("vramchat.web")

DESK: web.AppKey[Desk] = web.AppKey("desk", Desk)
TOKEN: web.AppKey[bytes | None] = web.AppKey("token", bytes)

# aiohttp refuses request lines over 8190 bytes with its own plain-text 400; a 4096-char
# Thai question percent-encodes to ~37 KB, so allow far more and refuse it ourselves.
MAX_LINE_BYTES = 65536
HANDLER_ARGS: dict[str, Any] = {"max_line_size": MAX_LINE_BYTES, "max_field_size": MAX_LINE_BYTES}
BACKLOG = 128
# Descriptors kept free under a connection flood: asyncio accepts up to BACKLOG sockets per
# event-loop turn, builds each one's transport in a task a turn later, admits it (evicting an
# idle one) a turn after that, and the evicted socket closes one more turn on: four batches
# can hold descriptors at once. 64 more for logs, data files and Redis.
FD_RESERVE = 4 * BACKLOG + 64

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
}


def error_response(status: int, code: str, message: str, **extra: Any) -> web.Response:
    body: dict[str, Any] = {"error": {"code": code, "message": message, **extra}}
    return web.json_response(body, status=status)


def http_code(status: int) -> str:
    return {
        400: "bad_request",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        405: "method_not_allowed",
        413: "too_large",
    }.get(status, f"http_{status}")


class _ConnectionCap:
    """At most ``limit`` open connections; past it the oldest idle one is closed.

    An idle keep-alive or never-speaking socket is cheap for a client to hold and costs us a
    file descriptor; running out of those stops every accept (and asyncio logs each failed
    attempt). Closing the oldest idle connection first keeps the desk reachable for someone
    with a real request, the way web servers reuse keep-alive slots; only when every slot is
    busy with a request is the newcomer turned away.
    """

    def __init__(self, limit: int, idle_timeout_s: float) -> None:
        self.limit = limit
        self.idle_timeout_s = idle_timeout_s
        self.open: dict[_DeskHandler, None] = {}  # insertion order: oldest first
        self.closed = 0
        self._warned = -math.inf

    def admit(self, handler: _DeskHandler) -> None:
        self.open[handler] = None
        if len(self.open) <= self.limit:
            return
        victim = next((h for h in self.open if h is not handler and h.idle()), handler)
        self.open.pop(victim, None)
        self.closed += 1
        now = time.monotonic()
        if now - self._warned > 60:  # once a minute, not once per connection
            self._warned = now
            log.warning(
                "connection cap of %d reached: closing idle connections (%d closed so far)",
                self.limit,
                self.closed,
            )
        victim.force_close()

    def release(self, handler: _DeskHandler) -> None:
        self.open.pop(handler, None)


class _DeskHandler(RequestHandler):
    """aiohttp's connection handler with JSON for its own errors and a place under the cap.

    aiohttp answers a malformed request (bad request line, oversized header) itself, before
    any middleware runs, with a plain-text body; the API promises JSON for every error.
    """

    __slots__ = ("_cap",)

    def __init__(
        self, manager: web.Server, cap: _ConnectionCap, *, loop: asyncio.AbstractEventLoop
    ) -> None:
        super().__init__(manager, loop=loop, **HANDLER_ARGS, keepalive_timeout=cap.idle_timeout_s)
        self._cap = cap

    def idle(self) -> bool:
        """Waiting for a request (none in progress): safe to close without losing an answer."""
        waiter = self._waiter
        return waiter is not None and not waiter.done() and not self._request_in_progress

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._cap.admit(self)

    def connection_lost(self, exc: BaseException | None) -> None:
        self._cap.release(self)
        super().connection_lost(exc)

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if request.writer.output_size > 0:
            raise ConnectionError("response already started, cannot send the error")
        if status >= 500:
            rid = uuid.uuid4().hex[:12]
            metrics.ERRORS.labels("web").inc()
            log.error("HTTP error %d from the server (ref %s)", status, rid, exc_info=exc)
            response = error_response(
                status,
                "internal" if status == 500 else http_code(status),
                f"Something went wrong on our side. Quote reference {rid} to the developers.",
                reference=rid,
            )
        else:
            status, text = _low_level_error(status, exc)
            log.info("refused a malformed HTTP request from %s: %s", request.remote, text)
            response = error_response(status, http_code(status), text)
        for name, value in SECURITY_HEADERS.items():
            response.headers[name] = value
        response.force_close()
        return response


def _low_level_error(status: int, exc: BaseException | None) -> tuple[int, str]:
    """Status and a short message for a request aiohttp could not parse (no request echo)."""
    if isinstance(exc, LineTooLong):
        # the parser hands over the start of what was too long: a target begins with "/"
        start = exc.args[0] if exc.args else b""
        start = start.encode("latin-1", "replace") if isinstance(start, str) else start
        if isinstance(start, bytes | bytearray) and bytes(start[:4]).startswith(
            (b"/", b"http", b"*")
        ):
            return 414, f"The request line is longer than {MAX_LINE_BYTES:,} bytes."
        return 431, f"A request header is longer than {MAX_LINE_BYTES:,} bytes."
    if isinstance(exc, HttpProcessingError):
        kind = type(exc).__name__
        return status, f"Malformed HTTP request ({kind})."
    return status, "Malformed HTTP request."


def connection_limit(requested: int) -> int:
    """The configured cap, lowered to fit the process's open-file limit with a reserve."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return requested
    return max(16, min(requested, soft - FD_RESERVE))


class DeskSite(web.BaseSite):
    """A TCP listener whose connections get :class:`_DeskHandler`: JSON errors and the cap."""

    __slots__ = ("_host", "_port", "cap")

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        max_connections: int,
        idle_timeout_s: float,
    ) -> None:
        super().__init__(runner, backlog=BACKLOG)
        self._host = host
        self._port = port
        self.cap = _ConnectionCap(connection_limit(max_connections), idle_timeout_s)

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        manager = self._runner.server
        assert manager is not None
        cap = self.cap
        self._server = await loop.create_server(
            lambda: _DeskHandler(manager, cap, loop=loop),
            self._host,
            self._port,
            backlog=self._backlog,
            reuse_address=True,
        )

"""The desk's two middlewares: one JSON error path with a reference id, and the bearer token
for ``/v1/*``. Kept apart from the routes so each file has one job."""

from __future__ import annotations

import hmac
import logging
import re
import uuid
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot import metrics
from bot.logs import REQUEST_ID
from bot.web.server import SECURITY_HEADERS, TOKEN, error_response, http_code

__all__ = ["ApiError", "Handler", "auth_middleware", "errors_middleware"]

log = logging.getLogger("vramchat.web")

_RID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ApiError(Exception):
    """An error we mean to show: status, stable code and a message safe for the client."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


# --------------------------------------------------------------------------- middlewares


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """One error path: JSON for every failure, a reference id (and a logged traceback) for bugs."""
    rid = request.headers.get("X-Request-ID", "")
    rid = rid if _RID.match(rid) else uuid.uuid4().hex[:12]
    token = REQUEST_ID.set(rid)
    try:
        try:
            response = await handler(request)
        except ApiError as exc:
            response = error_response(exc.status, exc.code, exc.message)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            response = error_response(exc.status, http_code(exc.status), exc.reason)
            for name in ("Allow", "WWW-Authenticate", "Retry-After"):
                if name in exc.headers:
                    response.headers[name] = exc.headers[name]
        except Exception:
            metrics.ERRORS.labels("web").inc()
            log.exception("unexpected error on %s %s (ref %s)", request.method, request.path, rid)
            response = error_response(
                500,
                "internal",
                f"Something went wrong on our side. Quote reference {rid} to the developers.",
                reference=rid,
            )
        response.headers["X-Request-ID"] = rid
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if request.path.startswith("/v1/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response
    finally:
        REQUEST_ID.reset(token)


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Bearer token for ``/v1/*`` when one is configured; the page and probes stay open."""
    token = request.app[TOKEN]
    if (
        token is not None
        and request.path.startswith("/v1/")
        and not _token_ok(request.headers.get("Authorization", ""), token)
    ):
        response = error_response(
            401, "unauthorized", "This API needs 'Authorization: Bearer <token>'."
        )
        response.headers["WWW-Authenticate"] = 'Bearer realm="vramchat"'
        return response
    return await handler(request)


def _token_ok(header: str, token: bytes) -> bool:
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        return False
    try:
        # aiohttp hands over undecodable header bytes as surrogates: they are no token of ours
        return hmac.compare_digest(given.strip().encode("utf-8"), token)
    except UnicodeEncodeError:
        return False

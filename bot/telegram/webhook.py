"""Telegram webhook mode that answers an update before telling Telegram it arrived.

PTB's own webhook server replies 200 as soon as an update arrives and answers it later, so a
crash or restart in between loses the question: Telegram does not redeliver a confirmed
update. Here the 200 is the confirmation, exactly as the next ``getUpdates`` offset is for
:class:`~bot.telegram.delivery.Poller`: it is sent only after the reply went out (or was
given up on) and the update id was recorded. A failure before that leaves the update with
Telegram, which redelivers it; :class:`~bot.telegram.delivery.HandledUpdates` skips a copy
that was answered already.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from typing import Any, Final

from aiohttp import web
from telegram import Update

from bot import health
from bot.desk import Desk
from bot.settings import Settings
from bot.telegram.base import ALLOWED_UPDATES, TgApp
from bot.telegram.delivery import (
    HandledUpdates,
    answer_once,
    handled_updates,
    lane,
    running,
    state_file,
)
from bot.web.server import DeskSite, error_response

__all__ = ["MAX_BODY_BYTES", "SECRET_HEADER", "WebhookServer", "serve_webhook"]

SECRET_HEADER: Final = "X-Telegram-Bot-Api-Secret-Token"
#: An update is a few KB (a 4,096-character message with its entities); far more is not one.
MAX_BODY_BYTES: Final = 1 << 20
MAX_CONNECTIONS: Final = 100  # Telegram opens at most 100 (setWebhook max_connections)
IDLE_TIMEOUT_S: Final = 75.0

log = logging.getLogger("vramchat.telegram")


class WebhookServer:
    """An aiohttp server on ``host:port`` whose POST ``/<path>`` answers one update.

    One chat's updates are answered in the order they arrived (a lock per chat, dropped
    when idle), different chats side by side. :meth:`close` refuses new updates with 503
    (Telegram retries them), lets the ones in progress finish and get their 200, then stops.
    """

    def __init__(
        self, app: TgApp, handled: HandledUpdates, *, secret: str, path: str = "telegram"
    ) -> None:
        self.app = app
        self.handled = handled
        self._secret = secret.encode("utf-8")
        self.path = "/" + path.strip("/")
        self._lanes: dict[str, tuple[asyncio.Lock, int]] = {}
        self._inflight: set[asyncio.Task[bool]] = set()
        self._closing = False
        self._runner: web.AppRunner | None = None

    def _web_app(self) -> web.Application:
        web_app = web.Application(client_max_size=MAX_BODY_BYTES)
        web_app.router.add_route("*", self.path, self._handle)
        web_app.router.add_route("*", "/{tail:.*}", self._not_found)
        return web_app

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (JSON errors and a connection cap as the desk has)."""
        # close() has finished every answer before the runner's shutdown: what is left is
        # writing those 200s, so the wait for connections can be short
        self._runner = web.AppRunner(self._web_app(), access_log=None, shutdown_timeout=5.0)
        await self._runner.setup()
        site = DeskSite(
            self._runner,
            host,
            port,
            max_connections=MAX_CONNECTIONS,
            idle_timeout_s=IDLE_TIMEOUT_S,
        )
        await site.start()
        self.app.bot_data[health.TELEGRAM_POLLING] = True

    async def close(self) -> None:
        """Finish the updates in progress (each gets its 200), then stop listening."""
        self._closing = True
        while self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()  # waits for the handlers to send those 200s
            self._runner = None
        self.app.bot_data[health.TELEGRAM_POLLING] = False

    async def _not_found(self, request: web.Request) -> web.Response:
        return error_response(404, "not_found", "Nothing here.")

    async def _handle(self, request: web.Request) -> web.Response:
        if request.method != "POST":
            return error_response(405, "method_not_allowed", "Telegram POSTs updates here.")
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "replace")
        if not hmac.compare_digest(given, self._secret):
            return error_response(403, "forbidden", "Wrong or missing secret token.")
        try:
            data: Any = json.loads(await request.read())
        except web.HTTPRequestEntityTooLarge:
            return error_response(413, "too_large", f"Updates are under {MAX_BODY_BYTES} bytes.")
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            return error_response(400, "bad_request", "The body is not JSON.")
        update = self._update(data)
        if update is None:
            return error_response(400, "bad_request", "The body is not a Telegram update.")
        if self._closing:  # not confirmed: Telegram delivers it again after the restart
            return error_response(503, "stopping", "Stopping; send it again later.")
        task = asyncio.ensure_future(self._answer(update))
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        # shielded: if the connection drops, the answer still completes and is recorded
        await asyncio.shield(task)
        return web.json_response({"ok": True})

    def _update(self, data: Any) -> Update | None:
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            return None
        try:
            return Update.de_json(data, self.app.bot)
        except Exception as exc:  # whatever de_json trips over, it is a bad request
            log.info("refused a malformed update: %s", type(exc).__name__)
            return None

    async def _answer(self, update: Update) -> bool:
        """:func:`answer_once` behind this chat's lock; a redelivered copy waits, then skips."""
        key = lane(update)
        lock, users = self._lanes.get(key, (asyncio.Lock(), 0))
        self._lanes[key] = (lock, users + 1)
        try:
            async with lock:
                return await answer_once(self.app, self.handled, update)
        finally:
            lock, users = self._lanes[key]
            if users <= 1:
                del self._lanes[key]
            else:
                self._lanes[key] = (lock, users - 1)


async def serve_webhook(
    app: TgApp, settings: Settings, desk: Desk, stop: asyncio.Event | None = None
) -> None:
    """``vram telegram`` with TELEGRAM_WEBHOOK_URL: :class:`WebhookServer` until SIGINT,
    SIGTERM or ``stop`` is set (the signal handlers set it).

    The server listens before ``setWebhook`` so Telegram's first POST finds it; the webhook
    stays set on the way out, so Telegram keeps new updates for the next start.
    """
    secret = settings.telegram_webhook_secret
    assert settings.telegram_webhook_url and secret is not None  # Settings checks both
    bot_id = settings.require_telegram().split(":", 1)[0]
    handled = handled_updates(settings, desk, state_file(bot_id))
    server = WebhookServer(
        app, handled, secret=secret.get_secret_value(), path=settings.telegram_webhook_path
    )
    stopping = stop if stop is not None else asyncio.Event()
    async with running(app, stopping.set):
        try:
            await server.start(settings.telegram_webhook_listen, settings.telegram_webhook_port)
            await app.bot.set_webhook(
                settings.telegram_webhook_url,
                secret_token=secret.get_secret_value(),
                allowed_updates=ALLOWED_UPDATES,
            )
            await stopping.wait()
        finally:
            await server.close()

"""Telegram delivery: patient sends, and long polling that never loses or repeats an answer.

:class:`PatientRateLimiter` retries each Bot API call through 429s, 5xx and network errors;
:class:`Poller` confirms an update only after it was answered (:func:`answer_once`, shared with the
webhook server in :mod:`bot.telegram.webhook`), and :class:`HandledUpdates`
remembers what was answered so a redelivered update is not answered twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, Final

from telegram import Update
from telegram.error import (
    BadRequest,
    Conflict,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import AIORateLimiter

from bot import health
from bot.desk import Desk
from bot.settings import Settings
from bot.store import StateStore
from bot.telegram.base import ALLOWED_UPDATES, PLATFORM, TgApp

__all__ = [
    "SEND_BUDGET_S",
    "HandledUpdates",
    "PatientRateLimiter",
    "Poller",
    "answer_once",
    "handled_updates",
    "lane",
    "running",
    "serve_polling",
    "state_file",
]

#: How long one Bot API call keeps retrying 5xx, network errors and 429s before giving up.
SEND_BUDGET_S: Final = 60.0
HANDLED_TTL_S: Final = 24 * 3600.0  # Telegram keeps an unconfirmed update for 24 hours

log = logging.getLogger("vramchat.telegram")


class PatientRateLimiter(AIORateLimiter):
    """PTB's throttling, plus retries: every ``retry_after`` of a 429 is honoured, and 5xx
    or network errors are retried with jittered exponential backoff, for up to
    :data:`SEND_BUDGET_S` per call. Errors that a retry cannot fix (400, 403, 401) raise at
    once. A read timeout is retried too, so in that rare case Telegram may have delivered the
    first copy: one duplicate is preferred to a lost answer.
    """

    def __init__(self, budget_s: float = SEND_BUDGET_S, first_backoff_s: float = 0.5) -> None:
        super().__init__(max_retries=0)
        self.budget_s = budget_s
        self.first_backoff_s = first_backoff_s

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.budget_s
        backoff = self.first_backoff_s
        chat_id = data.get("chat_id")
        chat = chat_id is not None
        with suppress(ValueError, TypeError):
            chat_id = int(chat_id)  # type: ignore[arg-type]
        group: int | str | bool = (
            chat_id
            if (isinstance(chat_id, int) and chat_id < 0) or isinstance(chat_id, str)
            else False
        )
        paid = bool(data.get("allow_paid_broadcast", False))
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self._run_request(
                    chat=chat,
                    group=group,
                    allow_paid_broadcast=paid,
                    callback=callback,
                    args=args,
                    kwargs=kwargs,
                )
            except RetryAfter as exc:
                wait = exc._retry_after.total_seconds() + 0.1
                reason = f"429, retry after {wait:.1f}s"
            except BadRequest:
                raise
            except NetworkError as exc:
                wait = backoff * random.uniform(0.8, 1.2)
                backoff = min(backoff * 2, 8.0)
                reason = f"{type(exc).__name__}: {exc}"
            if loop.time() + wait > deadline:
                log.warning("%s gave up after %d attempts (%s)", endpoint, attempt, reason)
                raise
            log.info("%s attempt %d failed (%s); retrying", endpoint, attempt, reason)
            await asyncio.sleep(wait)


class HandledUpdates:
    """The update ids already answered, so a redelivered update is not answered twice.

    Telegram redelivers every update the bot has not confirmed (by asking for a later
    offset); the poller confirms only after a reply was sent or given up on, so after a kill
    some answered updates come back. Their ids are kept as store memos (shared through Redis
    when it is configured) and, for a single process, appended to a small file:
    one id per line, written before the next update starts, so it survives SIGKILL (the
    kernel has the bytes); it is rewritten with the newest ids when it grows past twice
    :attr:`keep`. ``vram telegram`` keeps that file at :func:`state_file`.
    """

    def __init__(
        self, store: StateStore, bot_id: int | str, path: Path | None = None, keep: int = 2000
    ) -> None:
        self.store = store
        self.bot_id = bot_id
        self.path = path
        self.keep = keep
        self._ids: OrderedDict[int, None] = OrderedDict()
        self._lines = 0
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="ascii", errors="replace")
        except FileNotFoundError:
            return
        except OSError as exc:
            log.warning("%s cannot be read (%s); starting without it", path, exc)
            self.path = None
            return
        for line in text.split():
            if line.isascii() and line.isdigit():
                self._remember(int(line))
        self._lines = len(self._ids)

    def _remember(self, update_id: int) -> None:
        self._ids[update_id] = None
        self._ids.move_to_end(update_id)
        while len(self._ids) > self.keep:
            self._ids.popitem(last=False)

    def _key(self, update_id: int) -> str:
        return f"{PLATFORM}:update:{self.bot_id}:{update_id}"

    async def done(self, update_id: int) -> bool:
        if update_id in self._ids:
            return True
        return await self.store.get_memo(self._key(update_id)) is not None

    async def mark(self, update_id: int) -> None:
        self._remember(update_id)
        await self.store.put_memo(self._key(update_id), "1", HANDLED_TTL_S)
        if self.path is not None:
            try:
                await asyncio.to_thread(self._append, self.path, update_id)
            except OSError as exc:
                log.warning(
                    "TELEGRAM_STATE_FILE cannot be written (%s); keeping ids in memory", exc
                )
                self.path = None

    def _append(self, path: Path, update_id: int) -> None:
        self._lines += 1
        path.parent.mkdir(parents=True, exist_ok=True)
        if self._lines > 2 * self.keep:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text("".join(f"{i}\n" for i in self._ids), encoding="ascii")
            os.replace(tmp, path)
            self._lines = len(self._ids)
            return
        with path.open("a", encoding="ascii") as f:
            f.write(f"{update_id}\n")


def lane(update: Update) -> str:
    """Updates of one chat are answered in order; different chats run side by side."""
    chat = update.effective_chat
    if chat is not None:
        return f"c{chat.id}"
    user = update.effective_user
    return f"u{user.id}" if user is not None else f"n{update.update_id}"


async def answer_once(app: TgApp, handled: HandledUpdates, update: Update) -> bool:
    """Answer ``update`` unless it was answered before, then record it; False if skipped.

    An update whose handler raised is recorded too: process_update already handed the error
    to on_error (which logs it and apologises), and answering it again would repeat that.
    Callers keep one chat's updates in order, so a redelivered copy waits for the first.
    """
    if await handled.done(update.update_id):
        log.info("update %s was answered already (redelivered); skipped", update.update_id)
        return False
    try:
        await app.process_update(update)
    except Exception:  # process_update hands handler errors to on_error already
        log.exception("update %s could not be processed", update.update_id)
    await handled.mark(update.update_id)
    return True


class Poller:
    """Long polling that confirms an update only after it was answered (or given up on).

    PTB's own poller confirms a batch as soon as it is fetched, so a kill loses whatever was
    fetched but not yet answered. Here a batch is fetched, answered (one chat in order, chats
    concurrently), each answered id recorded in :class:`HandledUpdates`, and only then is the
    next offset asked for. On SIGTERM the current batch is finished and confirmed.
    """

    def __init__(
        self, app: TgApp, handled: HandledUpdates, *, timeout: int = 30, limit: int = 100
    ) -> None:
        self.app = app
        self.handled = handled
        self.timeout = timeout
        self.limit = limit
        self.offset: int | None = None
        self.stopping = asyncio.Event()
        self._quiet = False

    async def run(self) -> None:
        """Poll until :meth:`stop`; returns after the last batch is answered and confirmed."""
        bot = self.app.bot
        backoff = 1.0
        self.app.bot_data[health.TELEGRAM_POLLING] = True
        try:
            await self._poll(bot, backoff)
        finally:
            self.app.bot_data[health.TELEGRAM_POLLING] = False

    async def _poll(self, bot: Any, backoff: float) -> None:
        while not self.stopping.is_set():
            fetch = asyncio.ensure_future(
                bot.get_updates(
                    offset=self.offset,
                    timeout=self.timeout,
                    limit=self.limit,
                    allowed_updates=ALLOWED_UPDATES,
                )
            )
            stop = asyncio.ensure_future(self.stopping.wait())
            await asyncio.wait({fetch, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if not fetch.done():
                fetch.cancel()
                with suppress(asyncio.CancelledError, TelegramError):
                    await fetch
                break
            try:
                updates: Sequence[Update] = fetch.result()
            except InvalidToken:
                raise
            except (NetworkError, Conflict, RetryAfter) as exc:
                if not self._quiet:
                    log.warning("getUpdates failed (%s); retrying until it works", exc)
                    self._quiet = True
                wait = exc._retry_after.total_seconds() if isinstance(exc, RetryAfter) else backoff
                backoff = min(backoff * 2, 30.0)
                with suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), wait)
                continue
            if self._quiet:
                log.warning("getUpdates works again")
                self._quiet = False
            backoff = 1.0
            if updates:
                await self.answer(updates)
                self.offset = updates[-1].update_id + 1
        await self._confirm()

    async def answer(self, updates: Sequence[Update]) -> None:
        lanes: dict[str, list[Update]] = {}
        for update in updates:
            lanes.setdefault(lane(update), []).append(update)
        await asyncio.gather(*(self._answer_lane(lane) for lane in lanes.values()))

    async def _answer_lane(self, updates: list[Update]) -> None:
        for update in updates:
            await answer_once(self.app, self.handled, update)

    async def _confirm(self) -> None:
        """Tell Telegram the last batch is done, so a clean restart does not see it again."""
        if self.offset is None:
            return
        try:
            await self.app.bot.get_updates(offset=self.offset, timeout=0, limit=1)
        except TelegramError as exc:  # the ids file/store still prevents double answers
            log.info("could not confirm the last updates on the way out: %s", exc)

    def stop(self) -> None:
        self.stopping.set()


def state_file(bot_id: int | str) -> Path:
    """Where one bot's answered update ids survive a restart of a single process.

    ``~/.local/state/vramchat/telegram-<bot id>.updates`` (the XDG state location). Where the
    home directory is not writable (a read-only container) the ids stay in the store: in
    memory, or in Redis when ``VRAMCHAT_REDIS_URL`` is set, which is what replicas need.
    """
    return Path.home() / ".local" / "state" / "vramchat" / f"{PLATFORM}-{bot_id}.updates"


def handled_updates(settings: Settings, desk: Desk, path: Path | None = None) -> HandledUpdates:
    """The answered-update record for this bot; ``path=None`` keeps it in the store only."""
    token = settings.require_telegram()
    return HandledUpdates(desk.store, token.split(":", 1)[0], path)


@asynccontextmanager
async def running(app: TgApp, on_signal: Callable[[], object]) -> AsyncIterator[None]:
    """The one lifecycle of both delivery modes: SIGINT/SIGTERM call ``on_signal``; the app is
    initialised, its post_init run and started; on the way out it is stopped, post_stop run,
    shut down, and the signal handlers removed."""
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM)
    for sig in signals:
        with suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, on_signal)
    try:
        async with app:
            if app.post_init is not None:
                await app.post_init(app)
            await app.start()
            try:
                yield
            finally:
                await app.stop()
                if app.post_stop is not None:
                    await app.post_stop(app)
    finally:
        for sig in signals:
            with suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)


async def serve_polling(app: TgApp, settings: Settings, desk: Desk) -> None:
    """``vram telegram`` without a webhook: :class:`Poller` until SIGINT or SIGTERM."""
    bot_id = settings.require_telegram().split(":", 1)[0]
    poller = Poller(app, handled_updates(settings, desk, state_file(bot_id)))
    async with running(app, poller.stop):
        await app.bot.delete_webhook()
        await poller.run()

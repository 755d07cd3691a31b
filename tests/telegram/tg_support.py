"""Helpers shared by the Telegram tests: the fake's import, settings, and a bot harness."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from bot.desk import Desk
from bot.settings import Settings
from bot.telegram.app import Poller, TgApp, build_application, handled_updates
from engine import Catalog

try:  # tests/ is on sys.path in pytest's default (prepend) import mode
    from fakes.telegram_api import FakeTelegram, free_port, parse_telegram_html, post_webhook
except ImportError:  # the repository root is on sys.path instead
    from tests.fakes.telegram_api import (
        FakeTelegram,
        free_port,
        parse_telegram_html,
        post_webhook,
    )

__all__ = [
    "Bot",
    "FakeTelegram",
    "JsonDict",
    "free_port",
    "make_settings",
    "parse_telegram_html",
    "post_webhook",
    "running_bot",
    "valid_token",
    "visible",
]

JsonDict = dict[str, Any]


def visible(sent: JsonDict) -> str:
    """What the user sees for a sent/edited HTML message (the fake validated it already)."""
    return parse_telegram_html(sent["text"])


def valid_token() -> str:
    """Shaped like a BotFather token, so Settings.require_telegram accepts it."""
    return f"123456:{secrets.token_urlsafe(30)}"


def make_settings(fake: FakeTelegram, **extra: Any) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_token=fake.token,
        telegram_base_url=fake.base_url,
        **extra,
    )


@dataclass
class Bot:
    """The running bot plus helpers to talk to it the way Telegram would."""

    fake: FakeTelegram
    app: TgApp
    desk: Desk

    def __repr__(self) -> str:
        """PTB's Application repr shows the token; keep it out of assertion output."""
        return f"<Bot {self.fake!r}>"

    @property
    def catalog(self) -> Catalog:
        return self.desk.catalog

    def sent_to(self, chat_id: int) -> list[JsonDict]:
        return [m for m in self.fake.sent_messages if m["chat_id"] == chat_id]

    async def say(self, text: str, *, chat_id: int = 42, timeout: float = 5, **kw: Any) -> JsonDict:
        """Send a message and wait for the bot's next sendMessage in that chat."""
        before = len(self.sent_to(chat_id))
        self.fake.push_update(self.fake.message_update(text, chat_id=chat_id, **kw))
        await self.fake.wait_for(lambda: len(self.sent_to(chat_id)) > before, timeout)
        return self.sent_to(chat_id)[before]

    async def press(
        self, data: str, message: JsonDict, *, edits_message: bool = True, **kw: Any
    ) -> JsonDict:
        """Press an inline button; wait for its answerCallbackQuery and return it.
        ``edits_message=False`` for buttons that ask a new question (a tapped example)."""
        answers = len(self.fake.callback_answers)
        edits = len(self.fake.edits)
        update = self.fake.callback_update(data, message, **kw)
        self.fake.push_update(update)
        query_id = update["callback_query"]["id"]
        await self.fake.wait_for(
            lambda: any(a["callback_query_id"] == query_id for a in self.fake.callback_answers)
        )
        answer = self.fake.callback_answers[answers]
        if "text" not in answer and edits_message:  # an edit follows a silent answer
            await self.fake.wait_for(lambda: len(self.fake.edits) > edits)
        return answer

    async def settle(self) -> None:
        """Let PTB finish the update it is processing (for 'no reply' assertions)."""
        await asyncio.sleep(0.3)


@asynccontextmanager
async def running_bot(fake: FakeTelegram, desk: Desk, settings: Settings) -> AsyncIterator[Bot]:
    """build_application and the Poller (the path main() uses) with the manual lifecycle:
    the bot polls ``fake`` while the block runs, and is stopped cleanly after it."""
    app = build_application(settings, desk)
    async with app:
        await app.start()
        poller = Poller(app, handled_updates(settings, desk), timeout=1)
        task = asyncio.create_task(poller.run())
        try:
            yield Bot(fake, app, desk)
        finally:
            poller.stop()
            await asyncio.wait_for(task, 30)
            await app.stop()

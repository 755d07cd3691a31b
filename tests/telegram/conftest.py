"""Fixtures for the Telegram adapter: a strict fake Bot API and the real PTB app polling it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest
from tg_support import Bot, FakeTelegram, make_settings, running_bot, valid_token

from bot.desk import Desk
from engine import Catalog, load_catalog


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The shipped data, loaded once: the tests compare the bot with engine.ask on it."""
    return load_catalog()


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read the environment; nothing from the developer's shell may leak in."""
    for name in list(os.environ):
        if name.startswith(("TELEGRAM_", "VRAMCHAT_")):
            monkeypatch.delenv(name)


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(token=valid_token()) as server:
        yield server


@pytest.fixture
def desk(catalog: Catalog) -> Desk:
    return Desk(catalog, rate_per_minute=1000, staff_ids={"7"})


@pytest.fixture
async def bot(fake: FakeTelegram, desk: Desk) -> AsyncIterator[Bot]:
    """build_application and the Poller (the path main() uses), with the manual lifecycle."""
    settings = make_settings(fake)
    async with running_bot(fake, desk, settings) as bot:
        yield bot

"""Faults during a flood, through the fakes to the real apps: every update gets exactly one
reply and the app keeps running.

tests/telegram and tests/discord already cover single faults (one 429 storm, one getUpdates
500, one callback 429/500, a reconnect and an invalid session); these mix them under load:
bursts of 429 with retry_after, 5xx, dropped connections and malformed bodies on both the
polling and the sending side, and a gateway close 4000 with its RESUME in mid-flood.

The Telegram fake cannot delay a response past the client timeout, so a timeout is modelled
by a dropped connection (PTB sees a NetworkError either way).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from bot.desk import Desk
from engine import Catalog, load_catalog
from engine.i18n import t
from tests.robustness.support import (
    DISCORD_TOKEN,
    FakeDiscord,
    FakeTelegram,
    discord_bot,
    parse_telegram_html,
    telegram_app,
    telegram_token,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def apology_prefix(catalog: Catalog) -> str:
    return t(catalog, "en", "render.apology", ref="").rstrip()


# --------------------------------------------------------------------------- Telegram


async def test_telegram_flood_with_mixed_faults_answers_each_update_once(catalog: Catalog) -> None:
    """Phases of a flood, each with its faults queued first; the bot never stops polling.

    429 bursts land the answer late (every retry_after is honoured), and so do a 5xx and a
    dropped connection on sendMessage (retried with backoff). A malformed body is not
    retried (the message may have been delivered), so that update gets the apology with a
    reference instead, exactly once.
    """
    desk = Desk(catalog, rate_per_minute=1000)
    async with FakeTelegram(token=telegram_token()) as fake, telegram_app(fake, desk) as app:
        phases: list[tuple[list[dict[str, Any]], list[dict[str, Any]], int]] = [
            # (getUpdates faults, sendMessage faults, apologies expected)
            ([{"status": 502}], [{"status": 429, "retry_after": 1, "times": 2}], 0),
            ([{"drop_connection": True}], [{"status": 500}], 0),
            ([{"malformed": True}], [{"drop_connection": True}], 0),
            ([{"status": 429, "retry_after": 1}], [{"malformed": True}], 1),
            ([], [{"status": 429, "retry_after": 1, "times": 2}], 0),
        ]
        pushed: Counter[int] = Counter()
        expected_apologies = 0
        chat = 0
        for get_faults, send_faults, apologies in phases:
            for fault in get_faults:
                fake.fail_next("getUpdates", **fault)
            for fault in send_faults:
                fake.fail_next("sendMessage", **fault)
            for _ in range(8):  # a flood: eight users at once
                chat += 1
                for text in ("70b int4", "and 128k?"):
                    fake.push_update(fake.message_update(text, chat_id=chat, user_id=chat))
                    pushed[chat] += 1
            expected_apologies += apologies
            want = sum(pushed.values())
            await fake.wait_for(lambda w=want: len(fake.sent_messages) >= w, timeout=30)
        await asyncio.sleep(0.5)  # a duplicate would arrive now

        sent = Counter(m["chat_id"] for m in fake.sent_messages)
        assert sent == pushed
        assert set(fake.deliveries.values()) == {1}  # no update was handled twice
        texts = [parse_telegram_html(m["text"]) for m in fake.sent_messages]
        assert sum(x.startswith(apology_prefix(catalog)) for x in texts) == expected_apologies
        kinds = Counter(kind for _, kind in fake.faults)
        assert kinds == {"429": 5, "502": 1, "500": 1, "drop": 2, "malformed": 2}
        assert app.running and app.updater is not None and app.updater.running


async def test_telegram_polling_survives_a_run_of_get_updates_faults(catalog: Catalog) -> None:
    """Five getUpdates failures in a row (every kind) while updates pile up: all answered."""
    desk = Desk(catalog, rate_per_minute=1000)
    async with FakeTelegram(token=telegram_token()) as fake, telegram_app(fake, desk) as app:
        await fake.wait_for_call("getUpdates")
        faults: list[dict[str, Any]] = [
            {"status": 500},
            {"drop_connection": True},
            {"malformed": True},
            {"status": 502},
            {"status": 429, "retry_after": 1},
        ]
        chat = 0
        for served, fault in enumerate(faults, 1):
            fake.fail_next("getUpdates", **fault)
            await fake.wait_for(lambda n=served: len(fake.faults) == n, timeout=10)
            for _ in range(4):  # these arrive while the poller backs off
                chat += 1
                fake.push_update(fake.message_update("13b fp8", chat_id=chat, user_id=chat))
        await fake.wait_for(lambda: len(fake.sent_messages) >= 20, timeout=40)
        await asyncio.sleep(0.3)
        assert Counter(m["chat_id"] for m in fake.sent_messages) == dict.fromkeys(range(1, 21), 1)
        assert set(fake.deliveries.values()) == {1}
        assert len(fake.faults) == 5
        assert app.updater is not None and app.updater.running


# --------------------------------------------------------------------------- Discord


def slash(fake: FakeDiscord, query: str, user: int) -> dict[str, Any]:
    return fake.slash_interaction("vram", [fake.option("query", query)], user_id=str(user))


async def test_discord_flood_with_429_bursts_5xx_and_a_resume(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty interactions from twenty users while callbacks get a 429 burst and 5xx, and the
    gateway is closed with 4000 mid-flood: each gets exactly one callback, within 3 s."""
    desk = Desk(catalog, rate_per_minute=1000)
    async with FakeDiscord(token=DISCORD_TOKEN) as fake:
        fake.patch(monkeypatch)
        bot = discord_bot(desk)
        async with fake.running(bot, token=DISCORD_TOKEN):
            fake.fail_next("POST", r"/callback$", status=429, retry_after=0.2, times=3)
            fake.fail_next("POST", r"/callback$", status=502, times=1)
            payloads = []
            for i in range(20):
                payloads.append(slash(fake, "70b int4 128k", 1000 + i))
                await fake.dispatch("INTERACTION_CREATE", payloads[-1])
            await fake.close_gateway(code=4000)
            fake.fail_next("POST", r"/callback$", status=500, times=1)
            for i in range(20):  # dispatch waits for the RESUME before sending these
                payloads.append(slash(fake, "13b fp8", 1000 + i))
                await fake.dispatch("INTERACTION_CREATE", payloads[-1])
            await fake.wait_for(lambda: all(fake.response_for(p) for p in payloads), timeout=20)
            await asyncio.sleep(0.3)

            ids = {p["id"] for p in payloads}
            accepted = Counter(
                r.params["interaction_id"]
                for r in fake.interaction_responses
                if r.params.get("interaction_id") in ids
            )
            assert accepted == dict.fromkeys(ids, 1)
            assert not [
                r for r in fake.followups if r.params.get("token") in {p["token"] for p in payloads}
            ]

            def edits(p: dict[str, Any]) -> list[Any]:
                return [r for r in fake.webhook_edits if r.params.get("token") == p["token"]]

            # a first try that failed is followed by a deferral; the answer is then the edit
            deferred = [p for p in payloads if fake.response_for(p).json["type"] == 5]  # type: ignore[union-attr]
            await fake.wait_for(lambda: all(edits(p) for p in deferred), timeout=20)
            for p in payloads:
                rec = fake.response_for(p)
                assert rec is not None
                if p in deferred:
                    (edit,) = edits(p)
                    assert edit.json["embeds"]  # answers, not apologies
                else:
                    assert rec.json["data"]["embeds"]
            assert fake.faults_served == 5
            assert fake.resume_count[0] == 1 and fake.identify_count[0] == 1
            assert not bot.is_closed()

"""Delivery under platform faults: a 5xx blip, a 429 storm, and a SIGKILL with updates pending.

The fake Bot API injects the faults; the real PTB application (and, for the kill, the real
``vram telegram`` process) talks to it over loopback. Every case counts replies per question:
none lost, none doubled. Figures are in docs/RELIABILITY.md.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from pathlib import Path

from test_telegram_main import child_env, stop, vram_telegram
from tg_support import Bot, FakeTelegram

QUESTIONS = 10


def push_questions(fake: FakeTelegram, n: int = QUESTIONS) -> list[int]:
    """One question in each of ``n`` private chats; returns the chat ids."""
    chats = list(range(100, 100 + n))
    for chat in chats:
        fake.push_update(fake.message_update("70b int4", chat_id=chat, user_id=chat))
    return chats


def replies_per_chat(fake: FakeTelegram, chats: list[int]) -> Counter[int]:
    counts = Counter(m["chat_id"] for m in fake.sent_messages)
    return Counter({chat: counts[chat] for chat in chats})


async def all_confirmed(fake: FakeTelegram, last_update_id: int, timeout: float) -> None:
    """Wait until the bot asked for an offset past ``last_update_id`` (it confirmed them)."""

    def confirmed() -> bool:
        return any(
            int(call.params.get("offset") or 0) > last_update_id
            for call in fake.calls_to("getUpdates")
        )

    await fake.wait_for(confirmed, timeout)


async def test_a_502_blip_on_send_loses_and_doubles_nothing(bot: Bot) -> None:
    fake = bot.fake
    fake.fail_for("sendMessage", 1.0, status=502)
    chats = push_questions(fake)
    await fake.wait_for(lambda: len(fake.sent_messages) >= QUESTIONS, timeout=30)
    await all_confirmed(fake, QUESTIONS, timeout=10)
    assert fake.fault_count >= QUESTIONS  # every first attempt hit the blip
    assert set(replies_per_chat(fake, chats).values()) == {1}
    assert len(fake.sent_messages) == QUESTIONS


async def test_a_429_storm_is_waited_out(bot: Bot) -> None:
    """Telegram says "retry after 3" for 7 seconds; every reply still goes out, once."""
    fake = bot.fake
    fake.fail_for("sendMessage", 7.0, status=429, retry_after=3)
    chats = push_questions(fake)
    await fake.wait_for(lambda: len(fake.sent_messages) >= QUESTIONS, timeout=60)
    await all_confirmed(fake, QUESTIONS, timeout=10)
    assert [kind for _, kind in fake.faults].count("429") >= 2 * QUESTIONS
    assert set(replies_per_chat(fake, chats).values()) == {1}
    # no retry came before its retry_after: at most one failed attempt per reply per 3 s
    assert [kind for _, kind in fake.faults].count("429") <= 3 * QUESTIONS


async def test_a_failed_apology_is_retried_too(bot: Bot) -> None:
    """A short outage of every send: the answer itself is retried, so nobody gets an apology."""
    fake = bot.fake
    fake.fail_next("sendMessage", status=500, times=3)
    reply = await bot.say("13b fp8", timeout=30)
    assert "13B" in reply["text"] or "13b" in reply["text"].lower()
    assert len(fake.sent_messages) == 1


async def test_sigkill_with_pending_updates_then_restart_answers_each_once(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Kill ``vram telegram`` while it holds fetched, partly answered updates; the restarted
    process answers the rest, and skips the ones answered before the kill."""
    group = -100
    pending = 8
    asked: list[int] = []
    ids: list[int] = []
    for user in range(1, pending + 1):
        update = fake.message_update(
            "/vram 70b int4", chat_id=group, user_id=user, chat_type="group"
        )
        ids.append(fake.push_update(update))
        asked.append(update["message"]["message_id"])
    last_update_id = max(ids)
    fake.delay("sendMessage", 0.5)  # each answer is in flight for a while: a kill lands in one
    env = child_env(fake, fake.token, HOME=str(tmp_path))  # both runs share the state file

    async with vram_telegram(env, tmp_path / "first.log") as proc:
        # the 4th send is held by the fake: three answers are out and recorded
        await fake.wait_for(lambda: len(fake.calls_to("sendMessage")) >= 4, timeout=30)
        proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 15)
    before = len(fake.sent_messages)
    assert 3 <= before < pending

    fake.delay("sendMessage", 0)
    async with vram_telegram(env, tmp_path / "second.log") as proc:
        await fake.wait_for(lambda: len(fake.sent_messages) >= pending, timeout=30)
        await all_confirmed(fake, last_update_id, timeout=15)
        assert await stop(proc) == 0

    answered = Counter(m["reply_parameters"]["message_id"] for m in fake.sent_messages)
    assert answered == Counter(asked), answered  # each question exactly once
    assert all(fake.deliveries[u] >= 2 for u in ids[:before])  # they did come back
    assert "answered already (redelivered); skipped" in (tmp_path / "second.log").read_text()
    state = tmp_path / ".local" / "state" / "vramchat" / f"telegram-{fake.bot_id}.updates"
    assert sorted(int(x) for x in state.read_text().split()) == ids

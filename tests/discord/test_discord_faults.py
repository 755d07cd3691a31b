"""A flaky Discord REST API inside the 3 s interaction window: nothing lost, nothing doubled.

The fake answers the interaction-callback route with 5xx for a while, or slowly; the bot must
get a first response in within Discord's 3 s (answer or deferral) and then put the answer in
the original response, exactly once per interaction.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from dc_support import TOKEN, embed_text, make_bot, make_desk, make_settings

from engine import Catalog
from tests.fakes.discord_api import FakeDiscord, RecordedRequest

QUESTIONS = ("70b int4 128k", "13b fp8", "8b bf16 32k", "405b int4", "mixtral fp16")
THINKING = 5  # deferred channel message


def vram(fake: FakeDiscord, query: str) -> dict[str, Any]:
    return fake.slash_interaction("vram", [fake.option("query", query)])


def callbacks(fake: FakeDiscord, payload: dict[str, Any]) -> list[RecordedRequest]:
    """Accepted first responses of one interaction (Discord takes at most one)."""
    return [
        r for r in fake.interaction_responses if r.params.get("interaction_id") == payload["id"]
    ]


def edits(fake: FakeDiscord, payload: dict[str, Any]) -> list[RecordedRequest]:
    return [r for r in fake.webhook_edits if r.params.get("token") == payload["token"]]


def answer_of(fake: FakeDiscord, payload: dict[str, Any]) -> str | None:
    """The text the user ends up seeing in the original response, if any."""
    first = callbacks(fake, payload)
    if len(first) != 1:
        return None
    later = edits(fake, payload)
    if later:
        return embed_text(later[-1].json["embeds"][0]) if later[-1].json.get("embeds") else None
    data = first[0].json.get("data") or {}
    return embed_text(data["embeds"][0]) if data.get("embeds") else None


async def settle(fake: FakeDiscord, payloads: list[dict[str, Any]], timeout: float) -> None:
    """Wait until every interaction shows an answer (or the timeout: then the test fails)."""
    with contextlib.suppress(TimeoutError):
        await fake.wait_for(lambda: all(answer_of(fake, p) for p in payloads), timeout)
    await asyncio.sleep(0.3)  # room for a stray duplicate to show up


@pytest.mark.parametrize(
    ("status", "routes"),
    [(502, r"/callback$"), (500, r"/callback$"), (503, r"^/(interactions|webhooks)/")],
    ids=["502 on callbacks", "500 on callbacks", "503 on callbacks and edits"],
)
async def test_two_seconds_of_5xx_inside_the_window_lose_no_interaction(
    fake: FakeDiscord, catalog: Catalog, status: int, routes: str
) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        fake.fail_for("POST" if routes.endswith("$") else "*", routes, 2.0, status=status)
        payloads = [vram(fake, q) for q in QUESTIONS]
        for payload in payloads:
            await fake.dispatch("INTERACTION_CREATE", payload)
        await settle(fake, payloads, timeout=30)
        lost = [p["id"] for p in payloads if answer_of(fake, p) is None]
        assert not lost, fake.summary()
        for payload in payloads:
            (first,) = callbacks(fake, payload)  # one first response, no duplicate
            assert first.json["type"] == THINKING
            assert len(edits(fake, payload)) == 1
        assert "A100 SXM" in (answer_of(fake, payloads[0]) or "")
        assert fake.faults_served >= len(payloads)
        assert not fake.channel_messages and not fake.followups  # nothing posted twice


async def test_a_slow_callback_is_not_answered_twice(fake: FakeDiscord, catalog: Catalog) -> None:
    """A first response that takes 1 s to be taken: the retry finds it acknowledged."""
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        fake.delay_next("POST", r"/callback$", 1.0)
        payload = vram(fake, "70b int4 128k")
        await fake.dispatch("INTERACTION_CREATE", payload)
        await settle(fake, [payload], timeout=15)
        assert len(callbacks(fake, payload)) == 1
        assert "A100 SXM" in (answer_of(fake, payload) or "")
        assert len(edits(fake, payload)) <= 1 and not fake.followups


async def test_an_outage_past_the_window_is_logged_not_raised(
    fake: FakeDiscord, catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        fake.fail_for("POST", r"/callback$", 4.0, status=502)
        payload = vram(fake, "70b int4 128k")
        await fake.dispatch("INTERACTION_CREATE", payload)
        await asyncio.sleep(3.5)  # the whole window, and a little more
        assert any("3 s window" in r.getMessage() for r in caplog.records)
        assert not callbacks(fake, payload)
        # the next one, whose window overlaps the end of the outage, is answered as usual
        again = vram(fake, "13b fp8")
        await fake.dispatch("INTERACTION_CREATE", again)
        await settle(fake, [again], timeout=10)
        assert answer_of(fake, again)

"""200 simultaneous conversations with follow-ups: each keeps its own context.

Through ``Desk.answer`` with chat keys, all at once with ``asyncio.gather``. The in-process
store never yields, so a second run uses a store that yields (and reorders) at every await,
the way a network store (Redis) would interleave the conversations.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.desk import Desk
from bot.store import MemoryStore
from engine import Answer, Catalog, Context, context_of, load_catalog

SIZES = [1 + i for i in range(200)]  # user i asks about a (1 + i)B model: all different


class YieldingStore(MemoryStore):
    """MemoryStore that gives the loop away (for a random while) before each operation."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    async def _pause(self) -> None:
        await asyncio.sleep(self.rng.choice([0, 0, 0.001, 0.003]))

    async def get_context(self, key: str) -> Context | None:
        await self._pause()
        return await super().get_context(key)

    async def put_context(self, key: str, ctx: Context) -> None:
        await self._pause()
        await super().put_context(key, ctx)

    async def hit(self, user_key: str, limit: int, window_s: float) -> float:
        await self._pause()
        return await super().hit(user_key, limit, window_s)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


async def conversation(desk: Desk, platform: str, i: int) -> tuple[Answer, Answer]:
    chat, user = f"chat{i}", f"user{i}"
    first = await desk.answer(f"{SIZES[i]}b fp8", platform=platform, chat_key=chat, user_key=user)
    await asyncio.sleep(0)
    second = await desk.answer("and 128k?", platform=platform, chat_key=chat, user_key=user)
    assert isinstance(first, Answer) and isinstance(second, Answer)
    return first, second


@pytest.mark.parametrize("store", ["memory", "yielding"])
async def test_200_conversations_keep_their_own_context(catalog: Catalog, store: str) -> None:
    desk = Desk(catalog, MemoryStore() if store == "memory" else YieldingStore(seed=7))
    platforms = ["telegram", "discord"]
    results = await asyncio.gather(*(conversation(desk, platforms[i % 2], i) for i in range(200)))
    for i, (first, second) in enumerate(results):
        ctx1, ctx2 = context_of(first), context_of(second)
        assert ctx1 is not None and ctx2 is not None, i
        assert ctx1.request.model is not None and ctx2.request.model is not None
        assert ctx1.request.model.params_b == pytest.approx(SIZES[i]), i
        assert ctx2.request.model.params_b == pytest.approx(SIZES[i]), i  # its own size
        assert ctx1.request.precision == ctx2.request.precision == "fp8", i
        assert ctx2.request.context_tokens == 128 * 1024 != ctx1.request.context_tokens, i


async def test_same_chat_key_on_two_platforms_are_two_conversations(catalog: Catalog) -> None:
    desk = Desk(catalog)
    await desk.answer("7b fp8", platform="telegram", chat_key="42", user_key="42")
    await desk.answer("70b int4", platform="discord", chat_key="42", user_key="42")
    tg = await desk.answer("and 128k?", platform="telegram", chat_key="42", user_key="42")
    assert isinstance(tg, Answer)
    ctx = context_of(tg)
    assert ctx is not None and ctx.request.model is not None
    assert ctx.request.model.params_b == pytest.approx(7)

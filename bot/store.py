"""Where the adapters' shared state lives: follow-up contexts, rate-limit windows and memos.

:class:`StateStore` is the interface; :class:`MemoryStore` keeps everything in this process
(nothing to install, lost on restart), :class:`bot.state_redis.RedisStore` shares it between
processes. Memos are small opaque strings with a lifetime: what a button needs to redraw its
message, and which Telegram updates were already answered.

This module imports neither :mod:`bot.desk` nor redis, so both can import it.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from typing import Protocol

from engine import Context, Conversations, Request, pick_lang

__all__ = ["MemoryStore", "StateStore", "context_from_json", "context_to_json"]


class StateStore(Protocol):
    """Where follow-up context, rate-limit counters and memos live."""

    async def get_context(self, key: str) -> Context | None: ...

    async def put_context(self, key: str, ctx: Context) -> None: ...

    async def hit(self, user_key: str, limit: int, window_s: float) -> float:
        """Count one question; return 0 if allowed, else seconds until the next is allowed."""
        ...

    async def get_memo(self, key: str) -> str | None:
        """A memo written by :meth:`put_memo` (here or, when shared, by another process)."""
        ...

    async def put_memo(self, key: str, value: str, ttl_s: float) -> None:
        """Keep ``value`` under ``key`` for about ``ttl_s`` seconds."""
        ...


class MemoryStore:
    """In-process store: nothing to install, state is lost on restart (by design)."""

    def __init__(self, ttl_s: float = 1800.0, max_chats: int = 10_000, max_memos: int = 20_000):
        self.conversations = Conversations(max_chats=max_chats, ttl_s=ttl_s)
        self._hits: dict[str, list[float]] = {}
        self.max_memos = max_memos
        self._memos: OrderedDict[str, tuple[float, str]] = OrderedDict()

    async def get_context(self, key: str) -> Context | None:
        return self.conversations.get(key)

    async def put_context(self, key: str, ctx: Context) -> None:
        self.conversations.put(key, ctx)

    async def hit(self, user_key: str, limit: int, window_s: float) -> float:
        now = time.monotonic()
        stamps = [s for s in self._hits.get(user_key, []) if now - s < window_s]
        if len(stamps) >= limit:
            self._hits[user_key] = stamps
            return window_s - (now - stamps[0])
        stamps.append(now)
        self._hits[user_key] = stamps
        if len(self._hits) > 100_000:  # forget idle users rather than grow without bound
            self._hits = {k: v for k, v in self._hits.items() if v and now - v[-1] < window_s}
        return 0.0

    async def get_memo(self, key: str) -> str | None:
        found = self._memos.get(key)
        if found is None:
            return None
        expires, value = found
        if expires < time.monotonic():
            del self._memos[key]
            return None
        self._memos.move_to_end(key)
        return value

    async def put_memo(self, key: str, value: str, ttl_s: float) -> None:
        self._memos[key] = (time.monotonic() + ttl_s, value)
        self._memos.move_to_end(key)
        while len(self._memos) > self.max_memos:  # the least recently used go first
            self._memos.popitem(last=False)


def context_to_json(ctx: Context) -> str:
    request = ctx.request.model_dump(mode="json")
    return json.dumps(
        {
            "request": request,
            "pick": ctx.pick_card,
            "count": ctx.pick_count,
            "vram_gb": ctx.vram_gb,
            "budget_usd": ctx.budget_usd,
            "mac": ctx.mac,
            "listing": ctx.listing,
            "lang": ctx.lang,
        }
    )


def _positive(value: object) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None  # type: ignore[arg-type]


def context_from_json(text: str) -> Context:
    """A stored context; the keys added later ("count", "vram_gb", "budget_usd", "mac",
    "listing", "lang") may be absent from contexts stored before them."""
    raw = json.loads(text)
    count = raw.get("count")
    pick_count = (
        count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else None
    )
    return Context(
        Request.model_validate(raw["request"]),
        raw.get("pick"),
        pick_count,
        _positive(raw.get("vram_gb")),
        _positive(raw.get("budget_usd")),
        mac if isinstance(mac := raw.get("mac"), str) and mac else None,
        listing if (listing := raw.get("listing")) in ("budget", "capacity") else None,
        lang=pick_lang(lang) if isinstance(lang := raw.get("lang"), str) else None,
    )

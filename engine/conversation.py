"""Short follow-up memory: the last request per chat, bounded in size and in time.

In-process by default; the bots can swap in a shared store (see ``bot/state.py``) that keeps
the same two methods, so several processes share one conversation.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from engine.answer_types import Context


class Conversations:
    """An LRU of ``chat key -> Context`` whose entries expire after ``ttl_s`` seconds."""

    def __init__(
        self,
        max_chats: int = 10_000,
        ttl_s: float = 1800.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_chats = max_chats
        self.ttl_s = ttl_s
        self._clock = clock
        self._items: OrderedDict[str, tuple[float, Context]] = OrderedDict()

    def get(self, key: str) -> Context | None:
        item = self._items.get(key)
        if item is None:
            return None
        stamp, ctx = item
        if self._clock() - stamp > self.ttl_s:
            del self._items[key]
            return None
        self._items.move_to_end(key)
        return ctx

    def put(self, key: str, ctx: Context | None) -> None:
        if ctx is None:
            return
        self._items[key] = (self._clock(), ctx)
        self._items.move_to_end(key)
        while len(self._items) > self.max_chats:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

"""Short follow-up memory: the last request per chat, bounded in size and in time; and
what a list answer (a budget's, a card's capacity) keeps for the next message.

In-process by default; the bots can swap in a shared store (see ``bot/state.py``) that keeps
the same two methods, so several processes share one conversation.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from engine.answer_types import Answer, Context, Request
from engine.catalog import Catalog
from engine.limits import DEFAULT_CONTEXT
from engine.understand.asks import short_followup
from engine.understand.query import CardAsk, Query


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


def listing_context(answer: Answer) -> Context | None:
    """What a budget's or a capacity's list keeps: the budget or the hardware, and the
    context and users it was sized at, so "and at 32k?" asks the same list again."""
    rows = answer.budget
    shape = {"context_tokens": rows[0].context_tokens, "batch": rows[0].batch} if rows else {}
    req = Request(**shape)  # type: ignore[arg-type]  # two ints
    if answer.kind == "budget" and answer.budget_usd:
        return Context(req, budget_usd=answer.budget_usd, listing="budget", lang=answer.lang)
    fit = answer.fit
    if answer.kind == "capacity" and fit is not None:
        name = fit.card.split("× ", 1)[-1] if fit.count > 1 else fit.card
        return Context(
            req, name, fit.count, fit.vram_gb, mac=fit.mac, listing="capacity", lang=answer.lang
        )
    return None


def after_listing(q: Query, prev: Context, cat: Catalog) -> None:
    """A message after a list: one that changes only the context, the users or the KV cache
    ("and with 4 users at 16k?", "a przy 32k?"), or a short follow-up, gets the same list
    at what it says (the rest as before); one that names a model stays within the budget."""
    if prev.listing == "budget" and q.has_subject and q.budget_usd is None and q.followup:
        if not (q.cards or q.owned or q.vram_gb is not None):
            q.budget_usd = prev.budget_usd
        return
    said = short_followup(q.text.lower())
    shape_only = q.context_tokens is not None or q.batch is not None or q.kv_dtype is not None
    other = q.task or q.precision or q.count or q.vram_gb or q.budget_usd or q.cards or q.owned
    if q.has_subject or other or not (shape_only or said):
        return
    if said is not None:
        q.followup, q.short = True, said[0]
        q.lang = q.lang or said[1]  # type: ignore[assignment]  # one of en, pl, th
    was = prev.request  # what the list was sized at, where this message says nothing new
    if q.context_tokens is None and was.context_tokens != DEFAULT_CONTEXT:
        q.context_tokens = was.context_tokens
    if q.batch is None and was.batch != 1:
        q.batch = was.batch
    if prev.listing == "budget":
        q.budget_usd = prev.budget_usd
        return
    q.wants_what_fits = True
    name = prev.pick_card or ""
    if name in cat.card_by_name:
        q.cards = [CardAsk(name, prev.pick_count)]
    elif name in cat.owned_by_name:
        q.owned = [CardAsk(name, prev.pick_count)]
    else:
        q.vram_gb = prev.vram_gb
        q.unified = prev.mac is not None  # a Mac's list: judged on its GPU's share again

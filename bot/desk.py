"""The one service every adapter calls: rate limit, follow-up memory, engine, metrics, log line.

Adapters translate platform events into ``Desk.answer(...)`` and render the result; the
per-user limit and the conversation memory live behind :class:`bot.store.StateStore` so
several processes can share them (in-process by default, Redis when configured).
"""

from __future__ import annotations

import gc
import logging
import math
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from bot import metrics
from bot.settings import Settings
from bot.store import MemoryStore, StateStore
from engine import (
    Answer,
    Catalog,
    CatalogError,
    Context,
    RequestOptions,
    ask,
    compare,
    context_of,
    fleet_shrink,
    load_catalog,
    pick_lang,
    warm_up,
)

__all__ = [
    "Desk",
    "Limited",
    "desk_for",
    "error_reference",
    "settle_heap",
]

log = logging.getLogger("vramchat.desk")


@dataclass(frozen=True)
class Limited:
    """The per-user limit refused a question; adapters answer politely with the wait."""

    retry_after_s: float
    lang: str  # one of ours (en, pl, th): the reply language, already picked

    @property
    def seconds(self) -> int:
        """The wait to tell a person: whole seconds, rounded up, at least one."""
        return max(1, math.ceil(self.retry_after_s))


class Desk:
    """Holds the catalog (reloadable) and the shared state; answers questions."""

    def __init__(
        self,
        catalog: Catalog,
        store: StateStore | None = None,
        rate_per_minute: int = 20,
        staff_ids: set[str] | None = None,
    ) -> None:
        self.catalog = catalog
        self.store: StateStore = store or MemoryStore()
        self.rate_per_minute = rate_per_minute
        self.staff_ids = staff_ids or set()

    def reload(self) -> str | None:
        """Reload data; on a bad file keep serving the old catalog and return the reason."""
        try:
            fresh = load_catalog(self.catalog.data_dir, self.catalog.price_book)
        except CatalogError as exc:
            metrics.RELOADS.labels("refused").inc()
            log.error("data reload refused, old data keeps serving: %s", exc)
            return str(exc)
        shrink = fleet_shrink(self.catalog, fresh)
        if shrink is not None:
            metrics.RELOADS.labels("refused").inc()
            log.error("data reload refused, old data keeps serving: %s", shrink)
            return shrink
        warm_up(fresh)  # still off the loop: the first questions on the new data stay fast
        self.catalog = fresh
        metrics.RELOADS.labels("ok").inc()
        log.info("data reloaded from %s (prices as of %s)", fresh.data_dir, fresh.prices_as_of)
        return None

    async def answer(
        self,
        text: str,
        *,
        platform: str,
        chat_key: str | None = None,
        user_key: str | None = None,
        locale: str | None = None,
        lang: str | None = None,
        previous: Context | None = None,
        remember: bool = True,
        options: RequestOptions | None = None,
        compared: Sequence[str | RequestOptions] | None = None,
    ) -> Answer | Limited:
        """Answer one question; ``previous`` overrides the chat's remembered context, and
        ``options`` are the values the adapter holds as fields (they win over the text).
        With ``compared`` the answer puts those items side by side (``text`` is unused)."""
        rid = uuid.uuid4().hex[:8]
        if user_key is not None:
            wait = await self.store.hit(f"{platform}:{user_key}", self.rate_per_minute, 60.0)
            if wait > 0:
                metrics.RATE_LIMITED.labels(platform).inc()
                log.info("rid=%s platform=%s rate_limited wait=%.1fs", rid, platform, wait)
                return Limited(wait, pick_lang(lang) or pick_lang(locale) or "en")
        key = f"{platform}:{chat_key}" if chat_key else None
        prev = previous
        if prev is None and key is not None:
            prev = await self.store.get_context(key)
        start = time.perf_counter()
        if compared is not None:
            answer = compare(compared, lang, locale=locale, catalog=self.catalog, options=options)
        else:
            answer = ask(
                text, lang, locale=locale, catalog=self.catalog, previous=prev, options=options
            )
        elapsed = time.perf_counter() - start
        ctx = context_of(answer)
        if remember and key is not None and ctx is not None:
            await self.store.put_context(key, ctx)
        metrics.QUESTIONS.labels(platform, answer.kind, answer.lang).inc()
        metrics.LATENCY.labels(platform).observe(elapsed)
        log.info(
            "rid=%s platform=%s kind=%s lang=%s latency_ms=%.2f",
            rid,
            platform,
            answer.kind,
            answer.lang,
            elapsed * 1000,
        )
        return answer

    def is_staff(self, platform: str, user_id: str | int) -> bool:
        return f"{platform}:{user_id}" in self.staff_ids or str(user_id) in self.staff_ids


def desk_for(settings: Settings, catalog: Catalog) -> Desk:
    """The Desk a long-running process serves from, with the shared store its settings name."""
    from bot.state_redis import make_store  # redis is imported only by processes that run

    desk = Desk(
        catalog,
        make_store(settings),
        rate_per_minute=settings.vramchat_rate_per_minute,
        staff_ids=settings.staff_ids,
    )
    warm_up(catalog)
    settle_heap()
    return desk


def settle_heap() -> None:
    """Move the start-up objects (catalog, indexes, libraries) out of the collector's sight.

    Some 95,000 long-lived objects otherwise get walked by every full collection (~80 ms on
    a small VM), which showed up as latency spikes under load (docs/BENCHMARKS.md).
    """
    gc.collect()
    gc.freeze()


def error_reference() -> str:
    """A short id the user can quote; the log line carries the same id and the traceback."""
    return uuid.uuid4().hex[:8]

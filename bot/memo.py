"""The one button-memo type: what a bot message's buttons need to redraw it or ask again.

A button carries only a short reference (Telegram allows 64 bytes of callback data, Discord
100 characters of ``custom_id``); the memo behind it holds the person's own question, the
typed options that were applied to it, the conversation it followed, and the answers shown.
A press re-asks that same question with changed :class:`engine.RequestOptions`, so no
adapter writes English for the engine to read back.

:class:`Memos` keeps a bounded in-process map and, when the state store is shared (Redis),
writes each memo there as well, so a press on a message another replica sent (or this
process before a restart) still works.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from bot.store import MemoryStore, StateStore, context_from_json, context_to_json
from engine import Answer, Candidate, Context, Pick, RequestOptions

__all__ = ["MEMO_TTL_S", "ButtonMemo", "Memos", "alternative_options", "candidate_options"]

#: Button memos outlive any reasonable use of an old message.
MEMO_TTL_S = 7 * 24 * 3600.0

log = logging.getLogger("vramchat.memo")


@dataclass
class ButtonMemo:
    """One bot message's state. ``original`` answered ``question`` with ``options``;
    ``current`` is what the message shows now (an alternative card, or the original)."""

    question: str
    lang: str
    previous: Context | None
    original: Answer
    current: Answer
    math: bool = False
    options: RequestOptions | None = None
    owner: str | None = None  # the asker's platform user id, where buttons are theirs alone


def alternative_options(pick: Pick) -> RequestOptions:
    """A follow-up of the answer ``pick`` sits on: the same request on that card set (and
    that precision, when the alternative changes it). Ask it with the answer's context."""
    return RequestOptions(card=pick.card, count=pick.count, precision=pick.precision)


def candidate_options(memo: ButtonMemo, candidate: Candidate) -> RequestOptions:
    """The original question's options with the model the person picked from a clarify."""
    return (memo.options or RequestOptions()).model_copy(update={"model_id": candidate.id})


def _to_json(memo: ButtonMemo) -> str:
    same = memo.current is memo.original
    return json.dumps(
        {
            "question": memo.question,
            "lang": memo.lang,
            "previous": context_to_json(memo.previous) if memo.previous else None,
            "original": memo.original.model_dump(mode="json"),
            "current": None if same else memo.current.model_dump(mode="json"),
            "math": memo.math,
            "options": memo.options.model_dump() if memo.options else None,
            "owner": memo.owner,
        }
    )


def _from_json(text: str) -> ButtonMemo:
    raw: dict[str, Any] = json.loads(text)
    original = Answer.model_validate(raw["original"])
    current = original if raw["current"] is None else Answer.model_validate(raw["current"])
    previous = context_from_json(raw["previous"]) if raw["previous"] else None
    options = RequestOptions(**raw["options"]) if raw.get("options") else None
    owner = raw.get("owner")
    return ButtonMemo(
        str(raw["question"]),
        str(raw["lang"]),
        previous,
        original,
        current,
        bool(raw["math"]),
        options,
        None if owner is None else str(owner),
    )


class Memos:
    """Bounded map ``ref -> ButtonMemo``; the oldest answers lose their buttons first."""

    def __init__(
        self,
        platform: str = "telegram",
        *,
        store: StateStore | None = None,
        max_items: int = 5000,
        ref_bytes: int = 4,
    ) -> None:
        self.platform = platform
        self.max_items = max_items
        self.ref_bytes = ref_bytes
        self._ref = re.compile(rf"[0-9a-f]{{{2 * ref_bytes}}}")
        self._items: OrderedDict[str, ButtonMemo] = OrderedDict()
        self.store = None if isinstance(store, MemoryStore) else store

    def add(self, memo: ButtonMemo) -> str:
        ref = secrets.token_hex(self.ref_bytes)
        while ref in self._items:
            ref = secrets.token_hex(self.ref_bytes)
        self._put(ref, memo)
        return ref

    def _put(self, ref: str, memo: ButtonMemo) -> None:
        self._items[ref] = memo
        self._items.move_to_end(ref)
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)

    def get(self, ref: str) -> ButtonMemo | None:
        memo = self._items.get(ref)
        if memo is not None:
            self._items.move_to_end(ref)
        return memo

    def _key(self, ref: str) -> str:
        return f"{self.platform}:btn:{ref}"

    async def save(self, ref: str) -> None:
        """Write the entry's current state to the shared store (no-op in-process)."""
        memo = self._items.get(ref)
        if self.store is not None and memo is not None:
            await self.store.put_memo(self._key(ref), _to_json(memo), MEMO_TTL_S)

    async def load(self, ref: str) -> ButtonMemo | None:
        """This process's entry, else the shared store's; None when neither knows ``ref``."""
        memo = self.get(ref)
        if memo is not None or self.store is None or not self._ref.fullmatch(ref):
            return memo
        raw = await self.store.get_memo(self._key(ref))
        if raw is None:
            return None
        try:
            memo = _from_json(raw)
        except (ValueError, KeyError, TypeError) as exc:  # an older release wrote it
            log.warning("dropping unreadable button memo %s: %s", ref, exc)
            return None
        self._put(ref, memo)
        return memo

    def __len__(self) -> int:
        return len(self._items)

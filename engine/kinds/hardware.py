"""The hardware a fit or limit is judged on: a card and a count, an owned card, or a plain
amount of VRAM, and the two yes/no questions about it (is it rented, does it run the weights).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from engine import native
from engine.answer_types import Request
from engine.kinds.base import Builder
from engine.models import Card, OwnedCard
from engine.recommend import Workload, set_allowed


class Hardware(NamedTuple):
    """The asked hardware: a card and a count, or a plain amount of memory (``card`` None).

    Built by ``card_hardware``, ``owned_hardware`` and ``capacity_hardware`` only: a named
    tuple (every fit builds one per target) with what the ladder reads of the known card
    stored once, not derived on every read."""

    label: str
    card: Card | None
    count: int  # type: ignore[assignment]  # the field shadows tuple.count, never called
    vram_gb: float
    owned: OwnedCard | None  # a card we do not rent (hardware.yaml); card is None
    fp8: bool | None  # FP8 support; None for a plain VRAM amount (the hardware is not known)
    bandwidth_gbps: float | None  # the set's, None for a plain VRAM amount
    name: str  # the known card's name, else the label


def card_hardware(card: Card, count: int | None) -> Hardware:
    n = count or card.min_count
    label = card.name if n == 1 else f"{n}× {card.name}"
    row = (label, card, n, card.vram_gb * n, None, card.fp8, card.bandwidth_gbps * n, card.name)
    return _tuple_new(Hardware, row)


def owned_hardware(card: OwnedCard, count: int | None) -> Hardware:
    n = count or 1
    label = card.name if n == 1 else f"{n}× {card.name}"
    row = (label, None, n, card.vram_gb * n, card, card.fp8, card.bandwidth_gbps * n, card.name)
    return _tuple_new(Hardware, row)


def capacity_hardware(label: str, vram_gb: float) -> Hardware:
    return _tuple_new(Hardware, (label, None, 1, vram_gb, None, None, None, label))


_tuple_new: Final = tuple.__new__


def offered(hw: Hardware, w: Workload) -> tuple[bool, str | None]:
    """Whether the fleet rents this set for the workload, and the rule that says no."""
    if hw.card is None:
        return False, None
    why = set_allowed(hw.card, hw.count, w)
    return why is None, why


def runnable(b: Builder, hw: Hardware, req: Request) -> bool:
    """FP8 weights need FP8 hardware; a plain VRAM amount is given the benefit of the doubt
    only for what was asked."""
    if req.task != "inference":
        return True
    if req.weight_parts is None:  # native.needs_fp8, without the call for one precision
        if not b.cat.precision_by_name[req.precision].needs_fp8:
            return True
    elif not native.needs_fp8(b.cat, req):
        return True
    return bool(hw.fp8) if hw.fp8 is not None else req.precision == b.q.precision


def asked_hardware(b: Builder) -> tuple[Card | None, int, str, float]:
    """(card or None for a plain amount, count, label, GB) of a capacity question."""
    q = b.q
    if q.cards:
        card = b.cat.card_by_name[q.cards[0].name]
        count = q.cards[0].count or card.min_count
        label = f"{count}× {card.name}" if count > 1 else card.name
        return card, count, label, card.vram_gb * count
    if q.owned:  # a card we do not rent ("what fits on my 4060 ti"): its memory, no price
        mine = b.cat.owned_by_name[q.owned[0].name]
        count = q.owned[0].count or 1
        label = f"{count}× {mine.name}" if count > 1 else mine.name
        return None, count, label, mine.vram_gb * count
    assert q.vram_gb is not None
    return None, 1, f"{b.num(q.vram_gb, 1)} GB", q.vram_gb

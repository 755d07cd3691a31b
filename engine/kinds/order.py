"""The order of "what would make it fit", smallest change first, and the changes below 4 bits.

One order for every fit question (the answer's headline and line 1 say the first):
1. what keeps the cards and the precision: an 8-bit KV cache, then a shorter context or fewer
   users that keep at least half of what was asked;
2. a lighter precision on the same cards (alone, then with an 8-bit cache);
3. a lighter precision with a shorter context or fewer users, and a deeper cut of either;
4. a format below 4 bits on the same cards (only when no 4-bit one fits them): it keeps the
   hardware the question is about, at a quality cost the line says;
5. more cards, the fewest first.

Within one step, an option with real room comes before a tight one (SIZING.md rule 4), and a
tight one before one at the very edge (under vLLM's 10% too): a tight option leads only when
no option of an equally small change has room, and its line says it is tight. Within a step
and a level of room, the heavier weights come first (8-bit before 6-bit, and on an FP8 card
FP8 before Q8_0: both are 8-bit and the card runs FP8 natively), then the old order.
"""

from __future__ import annotations

from typing import Final

from engine.answer_types import FitChange, Request
from engine.kinds.base import Builder
from engine.kinds.combos import cache_sums, change, room_level
from engine.kinds.hardware import Hardware
from engine.kinds.probe import Probe
from engine.kinds.rungs import really_lighter
from engine.sizing import OVERHEAD_GB

# The sub-4-bit GGUF types tried when no ladder rung fits, heaviest first.
LOW_BITS: Final = ("q3_k_m", "q3_k_s", "q2_k", "iq3_xxs", "iq2_xs")
_RANK: Final = {
    "kv_cache": 0,
    "context": 1,
    "batch": 1,
    "precision": 2,
    "precision_kv": 3,
    "precision_context": 4,
    "precision_batch": 4,
    "low_bits": 5,
    "low_bits_kv": 5,
    "cards": 6,
}


# The steps of the module's order: the changes of one step are equally small.
_STEP: Final = {0: 0, 1: 0, 2: 1, 3: 1, 4: 2, 5: 3, 6: 4}


def _rank(c: FitChange, req: Request) -> int:
    rank = _RANK.get(c.change, 4)
    if c.change == "context" and 2 * c.context_tokens < req.context_tokens:
        rank = 4  # a cut to less than half the asked context is a big change
    if c.change == "batch" and 2 * c.batch < req.batch:
        rank = 4
    return rank


def ordered(changes: list[FitChange], req: Request, b: Builder | None = None) -> list[FitChange]:
    """The changes smallest first (the module's order; stable within a step and a level of
    room). ``b``: the catalog's bits per weight for the "heavier first" rule (None: skip it)."""
    if len(changes) < 2:  # most answers: one change, or none
        return changes
    by_name = b.cat.precision_by_name if b is not None else {}

    def key(c: FitChange) -> tuple[int, int, int, int, int, int]:
        rank = _rank(c, req)
        level = room_level(c.headroom_gb, c.total_gb + c.headroom_gb, c.count)
        fmt = by_name.get(c.precision)
        heavy = -int(fmt.bits) if fmt is not None and rank in (2, 3, 4) else 0
        fp8 = 0 if fmt is None or fmt.needs_fp8 else 1
        return _STEP.get(rank, 2), level, heavy, fp8 if heavy else 0, rank, c.count

    return sorted(changes, key=key)


def low_bits(b: Builder, hw: Hardware, req: Request, p: Probe) -> list[FitChange]:
    """The heaviest sub-4-bit GGUF type lighter than the asked precision that fits the asked
    hardware as asked, or else with llama.cpp's q8_0 cache (one change, or none)."""
    by_name = b.cat.precision_by_name
    m = req.model
    assert m is not None
    asked_bits = by_name[req.precision].bits
    small: tuple[float, float] | None = None
    ctx, batch, n = req.context_tokens, req.batch, hw.count
    cache, spill = p.cache_at(ctx, batch)  # room_at's, the same for every type
    for name in LOW_BITS:
        fmt = by_name.get(name)
        if fmt is None or not really_lighter(fmt.bits, asked_bits):
            continue
        weights = m.params_b * (fmt.bits / 8)  # bytes_per_param, without the property call
        total = weights + cache + OVERHEAD_GB  # p.room_at(ctx, batch, weights), term for term
        room = p.vram - total - spill
        if room >= 0:
            return [change("low_bits", req, name, ctx, batch, n, total, room, None, req.kv_dtype)]
        if req.kv_dtype in ("q8_0", "q4_0"):
            continue
        if small is None:
            small = cache_sums(b, hw, req, "q8_0")
        kv, extra = small
        total = weights + kv + OVERHEAD_GB
        room = hw.vram_gb - total - extra * n
        if room >= 0:
            return [change("low_bits_kv", req, name, ctx, batch, n, total, room, None, "q8_0")]
    return []

"""The order of "what would make it fit", smallest change first, and the changes below 4 bits.

One order for every fit question (the answer's headline and line 1 say the first):
1. what keeps the cards and the precision: an 8-bit KV cache, then a shorter context or fewer
   users that keep at least half of what was asked;
2. a lighter precision on the same cards (alone, then with an 8-bit cache);
3. a lighter precision with a shorter context or fewer users, and a deeper cut of either;
4. a format below 4 bits on the same cards (only when no 4-bit one fits them): it keeps the
   hardware the question is about, at a quality cost the line says;
5. more cards, the fewest first.
"""

from __future__ import annotations

from engine.answer_types import FitChange, Request
from engine.kinds.base import Builder
from engine.kinds.combos import cache_sums, change
from engine.kinds.hardware import Hardware
from engine.kinds.probe import Probe
from engine.kinds.rungs import really_lighter
from engine.sizing import OVERHEAD_GB

# The sub-4-bit GGUF types tried when no ladder rung fits, heaviest first.
LOW_BITS = ("q3_k_m", "q3_k_s", "q2_k", "iq3_xxs", "iq2_xs")
_RANK = {
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


def _rank(c: FitChange, req: Request) -> tuple[int, int]:
    rank = _RANK.get(c.change, 4)
    if c.change == "context" and 2 * c.context_tokens < req.context_tokens:
        rank = 4  # a cut to less than half the asked context is a big change
    if c.change == "batch" and 2 * c.batch < req.batch:
        rank = 4
    return rank, c.count


def ordered(changes: list[FitChange], req: Request) -> list[FitChange]:
    """The changes smallest first (the module's order; stable within a step)."""
    if len(changes) < 2:  # most answers: one change, or none
        return changes
    return sorted(changes, key=lambda c: _rank(c, req))


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
        weights = m.params_b * fmt.bytes_per_param
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

"""Changes of two slots at once, and the changes of a training run that does not fit.

A one-slot change is not always enough: "32b at 128k on my 4090" fits in no precision at
128k and at no context in BF16, yet INT4 at about 22k does. A training run has its own
slots: the sequence length, the batch and the method (full -> LoRA -> QLoRA).
"""

from __future__ import annotations

from typing import Final

from engine.answer_types import FitChange, ModelRef, Request
from engine.kinds.base import Builder
from engine.kinds.hardware import Hardware
from engine.kinds.probe import CTX_STEP, Probe, context_cap
from engine.kinds.rungs import Rung
from engine.models import Task
from engine.recommend import TIGHT_PER_CARD_GB, TIGHT_SINGLE_GB, kv_extra_gb
from engine.sizing import LORA_BASE_PRECISION, OVERHEAD_GB, Breakdown, kv_cache_gb, training

# A context this long is what a chat needs: the heaviest rung that keeps it is the change
# to offer; below it, the rung that keeps the most.
USEFUL_CONTEXT: Final = 8192
# ... and the rung that keeps the most, said too when it keeps this many times more.
MUCH_MORE: Final = 1.5
# The shortest training sequence a change offers (below 1k steps of CTX_STEP)
SHORTEST_SEQUENCE: Final = 512
# Each training method and the lighter ones to try after it, heaviest first.
LIGHTER: Final[dict[str, tuple[Task, ...]]] = {"full": ("lora", "qlora"), "lora": ("qlora",)}


def fit_change(
    kind: str, precision: str, kv_dtype: str, ctx: int, batch: int, count: int, total: float,
    room: float, task: str | None,
) -> FitChange:  # fmt: skip
    """``FitChange(...)`` with these fields, made in field order (no keyword call), the fields
    as one dict literal set as its __dict__ (why: ``engine.frozen._SET``); the float fields
    keep the generated __init__'s int-to-float step."""
    c = _new(FitChange)
    _set(
        c,
        "__dict__",
        {
            "change": kind,
            "precision": precision,
            "kv_dtype": kv_dtype,
            "context_tokens": ctx,
            "batch": batch,
            "count": count,
            "total_gb": float(total),
            "headroom_gb": float(room),
            "task": task,
            "max_context_tokens": None,
        },
    )
    return c


def change(
    kind: str, req: Request, precision: str, ctx: int, batch: int, count: int, total: float,
    room: float, task: str | None = None, kv_dtype: str | None = None,
) -> FitChange:  # fmt: skip
    """A change that keeps the request's cache type unless ``kv_dtype`` says another."""
    kvd = kv_dtype or req.kv_dtype
    return fit_change(kind, precision, kvd, ctx, batch, count, total, room, task)


_new: Final = object.__new__
_set: Final = object.__setattr__  # Frozen.__setattr__ refuses every assignment

EDGE_SHARE: Final = (
    0.10  # under this share of the VRAM left (vLLM's default 10%), a fit is at the edge
)


def room_level(room: float, vram: float, count: int) -> int:
    """0: real room (SIZING.md rule 4: 5 GB on one card, 2 GB per card on a set); 1: tight;
    2: at the edge too (under ``EDGE_SHARE`` of the VRAM, as ``ladder._lead`` reads it)."""
    tight = TIGHT_SINGLE_GB if count == 1 else TIGHT_PER_CARD_GB * count
    if room >= tight:
        return 0
    return 1 if room >= min(tight, vram * EDGE_SHARE) else 2


def _steps(most: int) -> list[int]:
    """The round contexts up to ``most`` tokens, longest first: 1k, 2k, 3k, 4k, 6k, 8k, 12k,
    16k, ... (powers of two and one and a half times them)."""
    out, k = [], 1024
    while k <= most:
        out += [k] + ([k * 3 // 2] if k >= 2048 and k * 3 // 2 <= most else [])
        k *= 2
    return sorted(set(out), reverse=True)


def roomy_cut(
    p: Probe, hw: Hardware, batch: int, most: int, keep: int, weights: float | None = None
) -> int:
    """The context a cut offers, given ``most``, the longest that fits: the longest round
    step that leaves real room (``room_level`` 0), or else room past the edge, as long as it
    keeps ``keep`` tokens; else the longest round step that keeps them, or ``most`` (the
    change then says it is tight). A cut
    that lands on the last byte is no cut a person can run."""
    for best_level in (0, 1):
        for ctx in _steps(most):
            if ctx < keep:
                break
            _, room = p.room_at(ctx, batch, weights)
            if room_level(room, hw.vram_gb, hw.count) <= best_level:
                return ctx
    return next((ctx for ctx in _steps(most) if ctx >= keep), most)  # round, if tight


def asked_cut(p: Probe, hw: Hardware, req: Request, most: int) -> FitChange:
    """The asked precision with a shorter context: ``roomy_cut`` of ``most``, the longest
    that fits, keeping half the asked context (and a chat's 8k) when ``most`` does."""
    ctx = req.context_tokens
    keep = max((ctx + 1) // 2, USEFUL_CONTEXT) if 2 * most >= ctx else USEFUL_CONTEXT
    cut = roomy_cut(p, hw, req.batch, most, min(most, keep))
    total, room = p.room_at(cut, req.batch)
    c = change("context", req, req.precision, cut, req.batch, hw.count, total, room)
    c.__dict__["max_context_tokens"] = most if cut < most else None
    return c


def tight_best(
    b: Builder, hw: Hardware, req: Request, room: float, near: list[Rung]
) -> list[FitChange]:
    """When the best rung is tight (``room``: its GB left): the rungs of ``near`` (lighter
    than the asked one) that have more room with an 8-bit cache (``with_small_cache``)."""
    level = room_level(room, hw.vram_gb, hw.count)
    return with_small_cache(b, hw, req, near, level) if level else []


def precision_and_limit(
    b: Builder, hw: Hardware, req: Request, p: Probe, shown: list[Rung], context: bool,
    users: bool, cache: bool = True,
) -> list[FitChange]:  # fmt: skip
    """When no rung fits as asked: a lighter rung with a shorter context (``context``: the
    asked precision fits at none) and one with fewer users (``users``: at no user count)
    (``shown``: the rungs the hardware runs, most bytes first; ``p``: the asked request's
    probe; ``cache``: try an 8-bit cache, when that alone does not do it)."""
    out: list[FitChange] = []
    lighter = [g for g in shown if g.weights < p.weights]
    if cache:  # all else as asked
        out += with_small_cache(b, hw, req, lighter)
    # a shorter context or fewer users keep the cache type asked: only the formats whose
    # server has it (an FP8 cache is vLLM's, q8_0 and q4_0 are llama.cpp's)
    kept_cache = [g for g in lighter if cache_runs(req.kv_dtype, g.split)]
    if context and kept_cache:
        out += _shorter_context(hw, req, p, kept_cache)
    if req.batch > 1 and users and kept_cache:
        want = (req.batch + 1) // 2
        last = kept_cache[-1]
        held = p.most_users(req.context_tokens, last.weights)
        chosen: tuple[Rung, int] | None = (last, held) if held else None
        if held >= want:  # the heaviest that keeps half the users, as for the context
            for g in kept_cache[:-1]:
                n = p.most_users(req.context_tokens, g.weights)
                if n >= want:
                    chosen = (g, n)
                    break
        if chosen is not None:
            g, held = chosen
            total, room = p.room_at(req.context_tokens, held, g.weights)
            ctx = req.context_tokens
            out.append(
                change("precision_batch", req, g.precision, ctx, held, hw.count, total, room)
            )
    return out


def _shorter_context(hw: Hardware, req: Request, p: Probe, lighter: list[Rung]) -> list[FitChange]:
    """The heaviest lighter rung that keeps a useful context, and the lightest, which keeps
    the most, when that is much more (Q4_K_M at 9k, INT4 at 22k): a lighter rung never keeps
    less, so the lightest is searched first and the others only until one keeps enough."""
    steps = context_cap(req) // CTX_STEP
    last = lighter[-1]
    most = p.longest(req.batch, steps, last.weights) * CTX_STEP
    if not most:
        return []
    useful = min(USEFUL_CONTEXT, req.context_tokens)
    picked: list[tuple[Rung, int]] = []
    for g in lighter[:-1]:
        ctx = p.longest(req.batch, steps, g.weights) * CTX_STEP
        if ctx >= useful:
            picked.append((g, ctx))
            break
    if not picked or most >= MUCH_MORE * picked[0][1]:
        picked.append((last, most))
    out = []
    for g, most in picked:
        ctx = roomy_cut(p, hw, req.batch, most, min(useful, most), g.weights)
        total, room = p.room_at(ctx, req.batch, g.weights)
        c = change("precision_context", req, g.precision, ctx, req.batch, hw.count, total, room)
        c.__dict__["max_context_tokens"] = most if ctx < most else None
        out.append(c)
    return out


def with_small_cache(
    b: Builder, hw: Hardware, req: Request, lighter: list[Rung], level: int = 3
) -> list[FitChange]:
    """The heaviest lighter rung that, with an 8-bit KV cache, fits at the asked context and
    user count, and when it is tight the heaviest that has more room (``room_level``): FP8
    for the formats vLLM serves, q8_0 for GGUF (llama.cpp has no FP8 cache). On an FP8 card
    FP8 is tried before Q8_0 (both 8-bit). ``room_on``'s sums (weights + cache + overhead, a
    set's copied cache on every card). ``level``: only rungs with more room than this
    ``room_level`` (a tight best rung's own)."""
    m = req.model
    out: list[FitChange] = []
    if m is None or not lighter:
        return out
    by_name = b.cat.precision_by_name
    tried = sorted(lighter, key=lambda g: (-int(by_name[g.precision].bits), not g.fp8))
    sums: dict[str, tuple[float, float]] = {}  # cache type -> (its GB, a set's copy per card)
    for g in tried:
        kvd = small_cache(g.split)
        if kvd == req.kv_dtype:
            continue
        if kvd not in sums:
            sums[kvd] = cache_sums(b, hw, req, kvd)
        kv, extra = sums[kvd]
        total = g.weights + kv + OVERHEAD_GB
        room = hw.vram_gb - total - extra * hw.count
        if room < 0 or room_level(room, hw.vram_gb, hw.count) >= level:
            continue
        level = room_level(room, hw.vram_gb, hw.count)
        ctx, batch = req.context_tokens, req.batch
        out.append(
            change("precision_kv", req, g.precision, ctx, batch, hw.count, total, room, None, kvd)
        )
        if level == 0:
            break
    return out


def cache_sums(b: Builder, hw: Hardware, req: Request, kv_dtype: str) -> tuple[float, float]:
    """(the request's KV cache in ``kv_dtype``, GB; the part of it a set copies to each card
    beyond its share): ``room_on``'s cache terms for another cache type."""
    m = req.model
    assert m is not None
    kv = kv_cache_gb(m, b.cat.kv_by_name[kv_dtype].bytes, req.context_tokens, req.batch)
    extra = 0.0
    if hw.count > 1 and (hw.card is not None or hw.owned is not None):
        extra = kv_extra_gb(kv, hw.count, None if m.mla else m.kv_heads, bool(m.mla))
    return kv, extra


def cache_runs(kv_dtype: str, gguf: bool) -> bool:
    """Whether a format's server has this KV cache type: FP16 and FP32 everywhere, FP8 in
    vLLM only, q8_0 and q4_0 in llama.cpp (GGUF) only."""
    if kv_dtype == "fp8":
        return not gguf
    return gguf or kv_dtype not in ("q8_0", "q4_0")


def small_cache(gguf: bool) -> str:
    """The 8-bit KV cache a format's server has: q8_0 in llama.cpp (GGUF), FP8 in vLLM."""
    return "q8_0" if gguf else "fp8"


def _longest_sequence(
    m: ModelRef, task: Task, bd: Breakdown, seq: int, batch: int, vram: float, rank: int | None
) -> tuple[int, float] | None:
    """The longest sequence in whole 1k steps, below ``seq``, at which the run (``bd``: its
    breakdown at ``seq``) fits in ``vram``: (tokens, total GB). Activations grow in proportion
    to the tokens of a step and nothing else does, so the border comes from one division;
    ``training`` at the border is the check (the breakdown's own sums)."""
    act = bd.parts.get("activations", 0.0)
    if act <= 0 or seq <= SHORTEST_SEQUENCE:
        return None
    fixed, per_token = bd.total - act, act / seq
    steps = min(int((vram - fixed) / per_token) // CTX_STEP, (seq - 1) // CTX_STEP)
    # a step up when the estimate says it nearly fits: a rounding at the border never loses
    # a step, and no training() is summed for a step the estimate rules out
    if steps < (seq - 1) // CTX_STEP and fixed + per_token * (steps + 1) * CTX_STEP <= vram + 1e-6:
        steps += 1
    while steps > 0:
        total = training(m, task, steps * CTX_STEP, batch, rank).total
        if vram - total >= 0:
            return steps * CTX_STEP, total
        steps -= 1
    if fixed + per_token * SHORTEST_SEQUENCE > vram + 0.01:  # not even half of 1k: no sum
        return None
    total = training(m, task, SHORTEST_SEQUENCE, batch, rank).total  # below 1k: half of it
    return (SHORTEST_SEQUENCE, total) if vram - total >= 0 else None


def training_changes(b: Builder, hw: Hardware, req: Request) -> list[FitChange]:
    """A training run that does not fit: a shorter sequence, batch 1, then the first lighter
    method that fits as asked or with a shorter sequence. Sized with ``training`` straight
    (the breakdown's sums, no request built for each setup tried)."""
    m = req.model
    assert m is not None and req.task != "inference"
    out: list[FitChange] = []
    n, vram, task, seq, batch = hw.count, hw.vram_gb, req.task, req.context_tokens, req.batch
    rank = req.lora_rank
    asked = b.breakdown(req)  # the answer's own
    found = _longest_sequence(m, task, asked, seq, batch, vram, rank)
    if batch > 1:  # one sequence a step first; a shorter one too if that is not enough
        one = training(m, task, seq, 1, rank)
        if vram - one.total >= 0:
            out.append(_train("train_batch", req, req.precision, seq, 1, n, one.total, vram, task))
        elif found is None and (shorter := _longest_sequence(m, task, one, seq, 1, vram, rank)):
            tokens, total = shorter
            out.append(
                _train("batch_sequence", req, req.precision, tokens, 1, n, total, vram, task)
            )
    if found is not None:
        tokens, total = found
        out.append(_train("sequence", req, req.precision, tokens, batch, n, total, vram, task))
    for lighter in LIGHTER.get(task, ()):
        precision = LORA_BASE_PRECISION[lighter]
        bd = training(m, lighter, seq, batch, rank)
        if vram - bd.total >= 0:
            out.append(_train("method", req, precision, seq, batch, n, bd.total, vram, lighter))
            break
        if batch > 1:  # the sequence as asked, one at a time
            alone = training(m, lighter, seq, 1, rank).total
            if vram - alone >= 0:
                out.append(_train("method_batch", req, precision, seq, 1, n, alone, vram, lighter))
                break
        found = _longest_sequence(m, lighter, bd, seq, batch, vram, rank)
        if found is not None:
            tokens, total = found
            kind = "method_sequence"
            out.append(_train(kind, req, precision, tokens, batch, n, total, vram, lighter))
            break
    return out


def _train(
    kind: str, req: Request, precision: str, seq: int, batch: int, count: int, total: float,
    vram: float, task: Task,
) -> FitChange:  # fmt: skip
    return change(kind, req, precision, seq, batch, count, total, vram - total, task)

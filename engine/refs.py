"""Catalog entries -> the parts of an answer: a card's facts, a model's shape, or the typical
shape a bare size ("70b") is sized with.
"""

from __future__ import annotations

import math
import weakref
from bisect import bisect_left
from typing import Final

from engine import native
from engine.answer_types import CardInfo, ModelRef
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.models import Card, ModelSpec, Shape


def card_info(cat: Catalog, card: Card) -> CardInfo:
    return CardInfo(
        name=card.name,
        vram_gb=card.vram_gb,
        bandwidth_gbps=card.bandwidth_gbps,
        monthly_usd=card.monthly_usd,
        fp8=card.fp8,
        usd_per_gb_month=card.usd_per_gb_month,
        gbps_per_usd_month=card.gbps_per_usd_month,
        usd_per_gpu_hour=card.monthly_usd / cat.fleet.provider.hours_per_month,
        memory_type=card.memory_type,
        min_count=card.min_count,
        interconnect=card.interconnect,
        link_gbps=card.link_gbps,
        platform=card.platform,
        arch=card.arch,
        regions=card.regions,
        set_sizes=card.set_sizes,
    )


def model_ref(m: ModelSpec) -> ModelRef:
    """The shape of a catalog (or pasted) model; one immutable ref per spec object, built once
    (a weak reference drops it with the spec, and guards against a reused id)."""
    hit = _refs.get(id(m))
    if hit is not None and hit[0]() is m:
        return hit[1]
    ref = _model_ref(m)
    key = id(m)
    _refs[key] = (weakref.ref(m, lambda _: _refs.pop(key, None)), ref)
    return ref


_refs: Final[dict[int, tuple[weakref.ref[ModelSpec], ModelRef]]] = {}


def _model_ref(m: ModelSpec) -> ModelRef:
    return ModelRef(
        id=m.id,
        name=m.name,
        params_b=m.params_b,
        active_params_b=m.active_params_b,
        layers=m.layers,
        kv_heads=m.kv_heads,
        head_dim=m.head_dim,
        attention_heads=m.attention_heads,
        assumed=False,
        mla=m.mla,
        sliding_window=m.sliding_window,
        sliding_layers=m.sliding_layers,
        max_context_tokens=m.max_context_tokens,
        shape_source=m.source,
        **native.ref_fields(m),
    )


def _assumed(size_b: float, like: Shape | ModelSpec, source: str) -> ModelRef:
    """A bare size sized with the attention shape of ``like`` (named in ``shape_source``)."""
    return ModelRef(
        name=None,
        params_b=size_b,
        layers=like.layers,
        kv_heads=like.kv_heads,
        head_dim=like.head_dim,
        attention_heads=like.attention_heads,
        assumed=True,
        shape_source=source,
    )


def typical_ref(cat: Catalog, size_b: float) -> ModelRef:
    """A bare size: the guide's typical shape, or the nearest real dense GQA model's shape.

    One immutable ref per size and catalog, made on the size's first ask (the same few sizes
    are asked again and again); the memo starts over when it holds ``TYPICAL_KEPT``."""
    kept = _typical_kept(cat)
    ref = kept.get(size_b)
    if ref is None:
        if len(kept) >= TYPICAL_KEPT:
            kept.clear()
        ref = kept[size_b] = _typical_ref(cat, size_b)
    return ref


TYPICAL_KEPT: Final = 256


@per_catalog
def _typical_kept(cat: Catalog) -> dict[float, ModelRef]:
    return {}


def _typical_ref(cat: Catalog, size_b: float) -> ModelRef:
    for s in cat.shapes:
        if abs(s.params_b - size_b) < 1e-9:
            return _assumed(size_b, s, s.like)
    sizes, picks = _dense(cat)
    # The nearest on the log scale is next to ``size_b`` in the sorted sizes; a window of two
    # on each side holds it and anything that could tie with it.
    at = bisect_left(sizes, size_b)
    like, best = None, None
    for params_b, released, index, m in picks[max(at - 2, 0) : at + 2]:
        k = (abs(math.log(params_b / size_b)), released, index)  # index: the first one wins
        if best is None or k < best:
            like, best = m, k
    assert like is not None
    return _assumed(size_b, like, like.name)


@per_catalog
def _dense(
    cat: Catalog,
) -> tuple[tuple[float, ...], tuple[tuple[float, str, int, ModelSpec], ...]]:
    """The real dense GQA models a bare size may borrow a shape from: per size, the one the
    tie-break (the release date read backwards, then catalog order) picks, sorted by size."""
    winners: dict[float, tuple[float, str, int, ModelSpec]] = {}
    for index, m in enumerate(cat.models):
        if m.moe is None and m.mla is None and m.kv_heads < m.attention_heads:
            row = (m.params_b, m.released[::-1], index, m)
            old = winners.get(m.params_b)
            if old is None or row[1:3] < old[1:3]:
                winners[m.params_b] = row
    picks = tuple(sorted(winners.values(), key=lambda r: r[0]))
    return tuple(r[0] for r in picks), picks

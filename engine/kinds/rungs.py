"""The rung table of a fit ladder: the asked request and every ladder precision the catalog
has, with the sums each hardware reads (none depends on the hardware), most bytes first.
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from typing import Final, NamedTuple

from engine import native
from engine.answer_types import ModelRef, Request
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.kinds.base import Builder
from engine.sizing import OVERHEAD_GB

# Weight precisions a fit is tried at: the sources' three, INT8 and the common GGUF types.
LADDER: Final = ("bf16", "fp8", "q8_0", "int8", "q6_k", "q5_k_m", "q4_k_m", "int4")
# A precision is lighter than the asked one only when it drops at least this many bits per
# weight: INT4 (4.0) is not lighter than MXFP4 (4.25) or NVFP4 (4.5) under another name.
LIGHTER_BITS: Final = 0.5


def really_lighter(bits: float, asked_bits: float) -> bool:
    """Whether a format of ``bits`` per weight is a real step down from ``asked_bits``."""
    return bits <= asked_bits - LIGHTER_BITS


class Rung(NamedTuple):
    """One precision of the ladder with the sums every hardware reads: none depends on it."""

    req: Request | None  # None until asked for (``rung_request``): most rungs are only compared
    precision: str
    total: float  # the breakdown's total, GB
    weights: float
    kv: float  # the breakdown's KV cache part (kv_cache_gb of the request)
    fp8: bool  # FP8 weights: only FP8 hardware (or the asked plain amount) runs them
    read: float  # weights read per decoded token, GB
    split: bool  # GGUF: llama.cpp splits a set by layers


def rungs(b: Builder, req: Request) -> list[Rung]:
    """The asked inference request and every ladder precision the catalog has, most bytes
    first (the rungs and their order do not depend on the hardware)."""
    key = ("rungs", id(req))
    hit = b.memo.get(key)
    if hit is None:
        hit = b.memo[key] = (req, _rungs(b, req))
    result: list[Rung] = hit[1]
    return result


def _rungs(b: Builder, req: Request) -> list[Rung]:
    m = req.model
    assert m is not None
    asked = _eager(b, req)
    rows = model_rows(b.cat, m)
    if rows is None:  # a mixed checkpoint among the rungs: every rung the long way
        return _rungs_sorted(b, req, asked)
    kv = asked.kv  # one cache sum serves every rung (Builder._breakdown's memo)
    # the rows are sorted by weights already: the asked rung goes before the first that
    # weighs no more (the stable sort of _rungs_sorted puts it first among equals)
    table: list[Rung] = []
    add = table.append
    said, asked_weights = req.precision, asked.weights
    floor = _shipped_floor(b, req)
    placed = False
    for p, w, fp8, read, gguf in rows:
        if p == said:
            continue
        if floor is not None and w < asked_weights and b.cat.precision_by_name[p].bits > floor:
            continue  # the shipped 4-bit checkpoint under another name: not a lighter one
        if not placed and w <= asked_weights:
            add(asked)
            placed = True
        # Rung(*row), without its Python-level __new__
        add(_tuple_new(Rung, (None, p, w + kv + OVERHEAD_GB, w, kv, fp8, read, gguf)))
    if not placed:
        add(asked)
    return table


def _rungs_sorted(b: Builder, req: Request, asked: Rung) -> list[Rung]:
    m = req.model
    assert m is not None
    cat = b.cat
    table = [asked]
    kv = asked.kv
    active = m.active_params_b or m.params_b
    split_parts = m.embeddings_b is not None  # parts_for gives None for every one without
    floor = _shipped_floor(b, req)
    for p, bpp, fp8, gguf in _ladder_rows(cat):
        if p == req.precision:
            continue
        if floor is not None and m.params_b * bpp < asked.weights and bpp * 8 > floor:
            continue  # as in _rungs
        parts = native.parts_for(cat, m, p) if split_parts else None
        if parts is not None:  # a mixed checkpoint: the request and its sums, the long way
            table.append(_eager(b, req.model_copy(update={"precision": p, "weight_parts": parts})))
            continue
        # Builder._breakdown / inference() / read_per_token_gb for one precision, term for term
        w = m.params_b * bpp
        row = (None, p, w + kv + OVERHEAD_GB, w, kv, fp8, active * bpp, gguf)
        table.append(_tuple_new(Rung, row))
    table.sort(key=_by_weights, reverse=True)  # stable: ties keep their order, as -weights did
    return table


def _shipped_floor(b: Builder, req: Request) -> float | None:
    """For a quantised checkpoint with parts (gpt-oss's MXFP4 experts and BF16 rest, an AWQ
    model): the most bits per weight a lighter rung may have (``really_lighter``): a rung
    that counts every parameter at about the same width is not lighter, only counted
    otherwise. None for any other request."""
    if req.weight_parts is None:
        return None
    bits = b.cat.precision_by_name[req.precision].bits
    return bits - LIGHTER_BITS if bits < 16 else None


_ModelRow = tuple[str, float, bool, float, bool]  # precision, weights, FP8, read, GGUF


def model_rows(cat: Catalog, m: ModelRef) -> tuple[_ModelRow, ...] | None:
    """What a rung of ``m`` reads that no request changes, per ladder precision, most
    weights first (ties in ladder order): the weights and the read per token (the sums of
    ``_rungs_sorted``), FP8 and GGUF. None when a ladder precision splits ``m``'s weights
    (a mixed checkpoint, sized the long way). Per catalog and model object, each kept with
    its model (so its id is not reused meanwhile); the memo starts over at ``ROWS_KEPT``."""
    kept = _rows_kept(cat)
    hit = kept.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    rows: list[_ModelRow] = []
    active = m.active_params_b or m.params_b
    split = m.embeddings_b is not None and any(
        native.parts_for(cat, m, p) is not None for p, _, _, _ in _ladder_rows(cat)
    )
    for p, bpp, fp8, gguf in _ladder_rows(cat):
        rows.append((p, m.params_b * bpp, fp8, active * bpp, gguf))
    result = None if split else tuple(sorted(rows, key=_row_weights, reverse=True))
    if len(kept) >= ROWS_KEPT:
        kept.clear()
    kept[id(m)] = (m, result)
    return result


ROWS_KEPT: Final = 256
_row_weights: Final = itemgetter(1)


@per_catalog
def _rows_kept(cat: Catalog) -> dict[int, tuple[ModelRef, tuple[_ModelRow, ...] | None]]:
    return {}


@lru_cache(maxsize=8)
def _ladder_rows(cat: Catalog) -> tuple[tuple[str, float, bool, bool], ...]:
    """(name, bytes per parameter, needs FP8, GGUF) of each ladder precision the catalog has,
    in ladder order; per catalog (``bytes_per_param`` is ``bits / 8``, read once here)."""
    by_name = cat.precision_by_name
    return tuple(
        (p, by_name[p].bytes_per_param, by_name[p].needs_fp8, by_name[p].gguf)
        for p in LADDER
        if p in by_name
    )


_tuple_new: Final = tuple.__new__
_by_weights: Final = itemgetter(3)  # Rung.weights


def _eager(b: Builder, r: Request) -> Rung:
    bd = b.breakdown(r)
    parts = bd.parts
    return Rung(
        r,
        r.precision,
        bd.total,
        parts["weights"],
        parts["kv_cache"],
        native.needs_fp8(b.cat, r),
        native.read_per_token_gb(b.cat, r),
        b.layer_split(r),
    )


def rung_request(b: Builder, req: Request, g: Rung) -> Request:
    """The request of a rung of ``req``'s ladder: one object per rung for the whole answer
    (the limit searches memoise by it)."""
    if g.req is not None:
        return g.req
    key = ("rung", id(req), g.precision)
    hit = b.memo.get(key)
    if hit is None:
        r = req.model_copy(update={"precision": g.precision, "weight_parts": None})
        hit = b.memo[key] = (req, r)
    result: Request = hit[1]
    return result

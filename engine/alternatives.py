"""The alternatives shown beside a rental pick: every set of the fleet that holds the need,
cheapest first, read only as far as the shown ones are found (SIZING.md's rules, from
:mod:`engine.recommend`).
"""

from __future__ import annotations

import math
from functools import lru_cache
from operator import itemgetter
from typing import Final

from engine.answer_types import Pick
from engine.catalog import Catalog
from engine.models import Card
from engine.recommend import (
    Workload,
    fleet_sets,
    holding_sets,
    is_tight,
    make_pick,
    recommend,
    set_headroom_gb,
    set_serves,
)

_LIMIT: Final = 2  # alternatives shown at most
FASTER_PRICE: Final = 2.5  # a faster card costs at most this many times the pick

# A configuration that holds the need, turned into a Pick when shown: a plain tuple of
# (price, -decode ceiling: ties on price go to the faster card, cards in the set, card),
# built for every set of every sizing answer (a named tuple costs several times more)
_Option = tuple[float, float, int, Card]


def _options(
    catalog: Catalog, w: Workload, start: int = 0, dearest: float = math.inf
) -> tuple[list[_Option], int]:
    """The sets from row ``start`` of the per-catalog table of the sets that hold the need
    (``holding_sets``) up to the first dearer than ``dearest`` that are allowed, cheapest
    first, ties to the faster; and the row it stopped at. (The table is sorted by price: a
    cut falls between two prices, so the pieces, each sorted, are the whole list sorted.)

    ``set_headroom_gb`` and ``set_allowed`` written out with the workload's fields read once
    and the cards' from a per-catalog table: this runs over the sets of the fleet. (A set's
    count is always one of its card's ``set_sizes``: the table is built from them.)"""
    need, read, split = w.need_gb, w.weights_read_gb, w.layer_split
    rows = holding_sets(catalog, need, w.needs_fp8)
    out: list[_Option] = []
    stop = start
    for stop in range(start, len(rows)):
        card, n, capacity, price, no_full, bw_one, bw_n = rows[stop]
        if price > dearest:
            break
        if n > 1 and not set_serves(n, capacity, no_full, w):  # a single holds the need
            continue
        # decode_for(...) or 0.0, written out: bandwidth x (1 if split else n) / read
        decode = (bw_one if split else bw_n) / read if read else 0.0
        out.append((price, -decode, n, card))
    else:
        stop = len(rows)
    if _price_ties(catalog):  # else the table's own order, cheapest first, is the sorted one
        out.sort(key=_by_price_then_speed)
    return out, stop


_by_price_then_speed: Final = itemgetter(0, 1)


@lru_cache(maxsize=8)
def _price_ties(catalog: Catalog) -> bool:
    """Whether two sets of the fleet cost the same: only then can the speed reorder
    ``_options`` (its sets come from a table sorted by price, and the sort is stable)."""
    prices = [s[3] for s in fleet_sets(catalog)]
    return len(set(prices)) < len(prices)


def recommend_with_alternatives(
    catalog: Catalog, w: Workload, budget: float | None = None
) -> tuple[Pick | None, int | None, list[Pick]]:
    """``recommend`` and its ``alternatives``: the pick is the first single card of the
    options, or else their first set (what ``recommend``'s scans find)."""
    pick, nodes = recommend(catalog, w)
    if pick is None:
        return None, nodes, []
    return pick, None, alternatives(catalog, w, pick, budget)


def alternatives(
    catalog: Catalog, w: Workload, pick: Pick, budget: float | None = None
) -> list[Pick]:
    """Up to two useful other options: a CUDA card when the pick is ROCm, a faster card at a
    modest premium, a cheaper multi-card set, or more room when the pick is tight.

    Each reason takes the first option (cheapest first) that meets it and is not taken yet
    (the pick counts as taken), until two are taken. The options up to the faster card's
    price cap are made first; the dearer ones only when a scan needs them. With a monthly
    ``budget`` no option above it is offered: the person said what they can spend."""
    chosen: list[tuple[_Option, str]] = []
    taken: list[tuple[str, int]] = [(pick.card, pick.count)]
    cap = math.inf if budget is None else budget
    near, stop = _options(catalog, w, 0, min(pick.monthly_usd * FASTER_PRICE, cap))
    far: list[_Option] | None = None
    if catalog.card_by_name[pick.card].platform != "CUDA":
        o = _cuda(near, taken)
        if o is None:
            far = _options(catalog, w, stop, cap)[0]
            o = _cuda(far, taken)
        _take(chosen, taken, o, "cuda")
    if pick.decode_tok_s:
        _take(chosen, taken, _faster(near, taken, pick), "faster")
    if len(chosen) < _LIMIT:
        _take(chosen, taken, _cheaper_set(near, taken, pick.monthly_usd), "cheaper_set")
    if pick.tight and len(chosen) < _LIMIT:
        o = _roomier(near, taken, w)
        if o is None:
            more = far if far is not None else _options(catalog, w, stop, cap)[0]
            o = _roomier(more, taken, w)
        _take(chosen, taken, o, "roomier")
    return [make_pick(catalog, o[3], o[2], w, reason) for o, reason in chosen]


def _take(
    chosen: list[tuple[_Option, str]], taken: list[tuple[str, int]], o: _Option | None, why: str
) -> None:
    if o is not None:
        chosen.append((o, why))
        taken.append((o[3].name, o[2]))


# an option is (price, -decode, n, card); the scans are plain loops, each stopping where
# the price rules the rest out (the options are cheapest first)


def _cuda(options: list[_Option], taken: list[tuple[str, int]]) -> _Option | None:
    for o in options:
        if o[3].platform == "CUDA" and (o[3].name, o[2]) not in taken:
            return o
    return None


def _faster(options: list[_Option], taken: list[tuple[str, int]], pick: Pick) -> _Option | None:
    """At least 1.5 times the pick's speed for at most FASTER_PRICE times its price."""
    assert pick.decode_tok_s is not None
    floor = pick.decode_tok_s * 1.5
    for o in options:  # the options up to FASTER_PRICE times the pick's price
        if -o[1] >= floor and (o[3].name, o[2]) not in taken:
            return o
    return None


def _cheaper_set(
    options: list[_Option], taken: list[tuple[str, int]], price: float
) -> _Option | None:
    for o in options:
        if o[0] >= price:
            break
        if o[2] > 1 and (o[3].name, o[2]) not in taken:
            return o
    return None


def _roomier(options: list[_Option], taken: list[tuple[str, int]], w: Workload) -> _Option | None:
    """The first option not taken that is not tight for the workload."""
    for o in options:
        if (o[3].name, o[2]) not in taken and not is_tight(set_headroom_gb(o[3], o[2], w), o[2]):
            return o
    return None

"""Which card (or set of cards) to rent for a memory need: the rules of SIZING.md.

1. The cheapest single card that holds the need; FP8 weights only on FP8 cards; cards rented
   at least two at a time (B200) are never single.
2. Only when no single card fits: the cheapest allowed multi-card set, discounted; sets are
   card data (``set_sizes``, ``full_ft_sets``); inference sets use tensor parallelism, so the
   card count must divide the attention-head count.
3. Beyond one 8-card node: a cluster quote of N nodes, no price.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from typing import Final, NamedTuple

from engine.answer_types import Pick
from engine.catalog import Catalog
from engine.models import Card, Task
from engine.sizing import cluster_nodes, decode_ceiling_tok_s

TIGHT_SINGLE_GB: Final = 5.0
TIGHT_PER_CARD_GB: Final = 2.0


class Workload(NamedTuple):
    """What a set of cards must satisfy, beyond holding ``need_gb``.

    A named tuple, not a frozen dataclass: every ladder rung and card search builds one, and
    a tuple is built several times faster (still immutable, fields by name)."""

    need_gb: float
    task: Task
    needs_fp8: bool
    attention_heads: int | None
    weights_read_gb: float | None  # bytes read per decoded token (active weights), GB
    kv_gb: float = 0.0  # the part of need_gb that is KV cache and recurrent state
    kv_heads: int | None = None  # KV heads tensor parallelism splits (None: not known)
    kv_replicated: bool = False  # an MLA latent cache: every card holds all of it
    layer_split: bool = False  # llama.cpp (GGUF) runs a set layer by layer: no pooled bandwidth


def kv_extra_per_card_gb(w: Workload, count: int) -> float:
    """Cache a card holds beyond its even 1/count share: tensor parallelism copies an MLA latent
    to every card, and KV heads fewer than the cards are copied so each card has one."""
    return kv_extra_gb(w.kv_gb, count, w.kv_heads, w.kv_replicated)


def kv_extra_gb(kv_gb: float, count: int, kv_heads: int | None, replicated: bool) -> float:
    """:func:`kv_extra_per_card_gb` from the plain numbers: a context or batch search probes
    with these without building a Workload per probe."""
    if count == 1 or not kv_gb:
        return 0.0
    if replicated:
        share = 1.0
    elif kv_heads and kv_heads < count:
        share = 1 / kv_heads
    else:
        return 0.0
    return kv_gb * share - kv_gb / count


def set_headroom_gb(card: Card, count: int, w: Workload) -> float:
    """Room left over the whole set, judged card by card (copied caches count on each card)."""
    return card.vram_gb * count - w.need_gb - kv_extra_per_card_gb(w, count) * count


def set_price(catalog: Catalog, card: Card, count: int) -> tuple[float, float, float]:
    """(list price, discount %, price) for ``count`` cards a month."""
    list_usd = card.monthly_usd * count
    pct = _discounts(catalog)[count] if count > 1 else 0.0
    return list_usd, pct, list_usd * (1 - pct / 100)


@lru_cache(maxsize=8)
def _discounts(catalog: Catalog) -> _Pcts:
    return _Pcts(catalog)


class _Pcts(dict[int, float]):
    """``catalog.discount_pct`` by card count, each count summed on its first ask; per catalog."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog

    def __missing__(self, count: int) -> float:
        pct = self[count] = self.catalog.discount_pct(count)
        return pct


def is_tight(headroom_gb: float, count: int) -> bool:
    if count == 1:
        return headroom_gb < TIGHT_SINGLE_GB
    return headroom_gb / count < TIGHT_PER_CARD_GB


def decode_for(
    card: Card, count: int, weights_read_gb: float | None, layer_split: bool = False
) -> float | None:
    """Ceiling for a set: tensor parallelism pools bandwidth (the link cost is a caveat); a
    split by layers reads each card's share in turn, so one card's bandwidth sets the pace."""
    if not weights_read_gb:
        return None
    lanes = 1 if layer_split else min(count, NODE_CARDS)
    return decode_ceiling_tok_s(card.bandwidth_gbps * lanes, weights_read_gb)


# One server's cards (cards.yaml cluster.cards_per_node): tensor parallelism stays inside a
# node; a set of more nodes splits the layers between them, so a single stream pools one
# node's bandwidth, the nodes taking their turns (16x H100: 8 cards' bandwidth, not 16).
NODE_CARDS: Final = 8


def stream_bandwidth_gbps(set_gbps: float, count: int) -> float:
    """The bandwidth one stream pools from a tensor-parallel set of ``count`` cards."""
    return set_gbps if count <= NODE_CARDS else set_gbps * NODE_CARDS / count


def make_pick(
    catalog: Catalog, card: Card, count: int, w: Workload, reason: str | None = None
) -> Pick:
    row = _pick_rows(catalog).get((card.name, count))
    if row is None or row[0] is not card:  # a set the fleet does not offer: the long way
        row = _pick_row(catalog, card, count)
    _, fixed, bw_one, bw_n = row
    # set_headroom_gb(card, count, w), written out: one card copies no cache
    extra = 0.0 if count == 1 else kv_extra_gb(w.kv_gb, count, w.kv_heads, w.kv_replicated)
    headroom = card.vram_gb * count - w.need_gb - extra * count
    read = w.weights_read_gb
    # Trusted numbers computed here: stored straight (Pick.model_construct with every field
    # given, the defaults loop skipped), as this runs for every configuration shown: the
    # set's own fields copied from its row's dict (in field order), then the workload's
    p = _new(Pick)
    d = p.__dict__
    d.update(fixed)
    d["headroom_gb"] = headroom
    # is_tight(headroom, count), written out
    d["tight"] = headroom < TIGHT_SINGLE_GB if count == 1 else headroom / count < TIGHT_PER_CARD_GB
    d["reason"] = reason
    # decode_for(card, count, read, split): bandwidth x (1 if split else count) / read
    d["decode_tok_s"] = ((bw_one if w.layer_split else bw_n) / read) if read else None
    return p


_new: Final = object.__new__
_PickRow = tuple[Card, dict[str, object], float, float]


@lru_cache(maxsize=8)
def _pick_rows(catalog: Catalog) -> dict[tuple[str, int], _PickRow]:
    """What ``make_pick`` reads of every set the fleet offers, computed once per catalog."""
    return {(c.name, n): _pick_row(catalog, c, n) for c, n, _, _ in fleet_sets(catalog)}


def _pick_row(catalog: Catalog, card: Card, count: int) -> _PickRow:
    """(card, the Pick fields the set alone decides, every field in declaration order with
    the workload's as None, bandwidth x 1, x count)."""
    list_usd, pct, price = set_price(catalog, card, count)
    hourly = card.hourly_usd * count if card.hourly_usd is not None else None
    fixed: dict[str, object] = {
        "card": card.name,
        "count": count,
        "monthly_usd": price,
        "headroom_gb": None,
        "tight": None,
        "list_usd": list_usd,
        "discount_pct": pct,
        "reason": None,
        "decode_tok_s": None,
        "hourly_usd": hourly,
        "precision": None,
        "need_gb": None,
    }
    return card, fixed, card.bandwidth_gbps * 1, card.bandwidth_gbps * min(count, NODE_CARDS)


def set_allowed(card: Card, count: int, w: Workload) -> str | None:
    """Why ``count`` of ``card`` cannot serve the workload, or None when it can."""
    if w.needs_fp8 and not card.fp8:
        return "no_fp8"
    if count == 1:
        return "min_count" if card.min_count > 1 else None
    if count not in card.set_sizes:
        return "no_such_set"
    if w.task == "full" and not card.full_ft_sets:
        return "no_full_ft_sets"
    if w.task == "inference" and w.attention_heads and w.attention_heads % count:
        return "heads_not_divisible"
    if w.task == "inference" and w.kv_heads and w.kv_heads > count and w.kv_heads % count:
        return "kv_heads_not_divisible"
    return None


@lru_cache(maxsize=8)
def fleet_sets(catalog: Catalog) -> tuple[tuple[Card, int, float, float], ...]:
    """Every (card, count, capacity GB, price) the fleet offers, cheapest first; per catalog."""
    out = [
        (card, n, card.vram_gb * n, set_price(catalog, card, n)[2])
        for card in catalog.cards
        for n in (1, *card.set_sizes)
    ]
    return tuple(sorted(out, key=lambda s: s[3]))


@lru_cache(maxsize=8)
def cheapest_price(catalog: Catalog) -> float:
    """The lowest monthly price of any set the fleet offers: no pick costs less."""
    return min(s[3] for s in fleet_sets(catalog))


@lru_cache(maxsize=8)
def _singles(catalog: Catalog) -> tuple[tuple[Card, int, float, float], ...]:
    """The single cards of :func:`fleet_sets`, in the same order."""
    return tuple(s for s in fleet_sets(catalog) if s[1] == 1)


def _cheapest_single(catalog: Catalog, w: Workload) -> tuple[Card, int] | None:
    """``_cheapest(_singles(catalog), w)``, read from a per-catalog table by the need."""
    steps = _single_steps(catalog)
    if steps is None:
        return _cheapest(_singles(catalog), w)
    caps, cards = steps[1 if w.needs_fp8 else 0]
    k = bisect_left(caps, w.need_gb)  # the smallest capacity at or above the need
    return (cards[k], 1) if k < len(caps) else None


_Steps = tuple[tuple[float, ...], tuple[Card, ...]]


@lru_cache(maxsize=8)
def _single_steps(catalog: Catalog) -> tuple[_Steps, _Steps] | None:
    """For a need without and with FP8 weights: the capacities of the single cards one may
    rent alone, ascending, and for each the cheapest such card that holds that much (a need
    fits the cards that hold the first capacity at or above it). None when two single cards
    cost the same: the speed breaks that tie, so the scan decides."""
    singles = _singles(catalog)
    if len({s[3] for s in singles}) < len(singles):
        return None
    out = []
    for fp8 in (False, True):
        ok = [s for s in singles if s[0].min_count <= 1 and (s[0].fp8 or not fp8)]
        caps = sorted({s[2] for s in ok})
        out.append((tuple(caps), tuple(next(s[0] for s in ok if s[2] >= c) for c in caps)))
    return out[0], out[1]


def _cheapest(
    sets: tuple[tuple[Card, int, float, float], ...], w: Workload
) -> tuple[Card, int] | None:
    """The first of ``sets`` that ``engine.alternatives._options`` would sort first: the cheapest that holds the
    need, ties to the faster, then to the earlier. ``sets`` are cheapest first, so the scan
    stops at the first dearer one once something is found."""
    best: tuple[Card, int] | None = None
    best_price = best_neg = 0.0
    need, fp8 = w.need_gb, w.needs_fp8
    for card, n, capacity, price in sets:
        if best is not None and price > best_price:
            break
        if capacity < need:
            continue
        if n == 1:  # set_allowed for one card, written out: most scans see single cards only
            if (fp8 and not card.fp8) or card.min_count > 1:
                continue
        elif set_headroom_gb(card, n, w) < 0 or set_allowed(card, n, w) is not None:
            continue
        neg = -(decode_for(card, n, w.weights_read_gb, w.layer_split) or 0.0)
        if best is None or neg < best_neg:  # the same price here: the faster wins
            best, best_price, best_neg = (card, n), price, neg
    return best


# A set of the fleet with what the scans read of its card: (card, count, capacity, price, no
# full fine-tuning sets, bandwidth x 1, x count)
SetRow = tuple[Card, int, float, float, bool, float, float]
_Holding = tuple[tuple[float, ...], tuple[tuple[SetRow, ...], ...], tuple[tuple[SetRow, ...], ...]]


@lru_cache(maxsize=8)
def _holding_table(catalog: Catalog) -> _Holding:
    """The distinct capacities of the fleet's sets, ascending, and for each the rows of the
    sets that hold at least that much, cheapest first (the order of :func:`fleet_sets`):
    all of them, and those of FP8 cards only. A single card rented two at a time is never an
    option and is left out. Per catalog: a scan reads only the sets that hold the need, with
    no capacity, FP8 or minimum-count test per set."""
    caps = tuple(sorted({s[2] for s in fleet_sets(catalog)}))
    every, fp8 = [], []
    for c in caps:
        rows = [
            (
                card,
                n,
                capacity,
                price,
                not card.full_ft_sets,
                card.bandwidth_gbps * 1,
                card.bandwidth_gbps * n,
            )
            for card, n, capacity, price in fleet_sets(catalog)
            if capacity >= c and not (n == 1 and card.min_count > 1)
        ]
        every.append(tuple(rows))
        fp8.append(tuple(r for r in rows if r[0].fp8))
    return caps, tuple(every), tuple(fp8)


def holding_sets(catalog: Catalog, need_gb: float, needs_fp8: bool) -> tuple[SetRow, ...]:
    """The rows of the fleet's sets that hold ``need_gb`` (capacity at or above it) and run
    FP8 weights when ``needs_fp8``, cheapest first."""
    caps, every, fp8 = _holding_table(catalog)
    k = bisect_left(caps, need_gb)  # the smallest capacity at or above the need
    if k == len(caps):
        return ()
    return fp8[k] if needs_fp8 else every[k]


def set_serves(n: int, capacity: float, no_full: bool, w: Workload) -> bool:
    """Whether a holding-table set of ``n`` cards serves ``w``: ``set_headroom_gb`` >= 0 and
    ``set_allowed`` is None, term for term (a single in the table always does)."""
    kv_gb, kv_heads = w.kv_gb, w.kv_heads
    extra = 0.0  # kv_extra_gb(kv_gb, n, kv_heads, replicated), term for term
    if kv_gb:
        if w.kv_replicated:
            extra = kv_gb * 1.0 - kv_gb / n
        elif kv_heads and kv_heads < n:
            extra = kv_gb * (1 / kv_heads) - kv_gb / n
    inference, heads = w.task == "inference", w.attention_heads
    return not (
        capacity - w.need_gb - extra * n < 0
        or (w.task == "full" and no_full)
        or (inference and heads and heads % n)
        or (inference and kv_heads and kv_heads > n and kv_heads % n)
    )


def cheapest_holding_set(catalog: Catalog, w: Workload) -> tuple[Card, int] | None:
    """``_cheapest(fleet_sets(catalog), w)`` over the sets that hold the need only, with
    ``set_headroom_gb``, ``set_allowed`` and ``decode_for`` written out (the same terms)."""
    best: tuple[Card, int] | None = None
    best_price = best_neg = 0.0
    need, read, split = w.need_gb, w.weights_read_gb, w.layer_split
    for card, n, capacity, price, no_full, bw_one, bw_n in holding_sets(catalog, need, w.needs_fp8):
        if best is not None and price > best_price:
            break
        if n > 1 and not set_serves(n, capacity, no_full, w):
            continue
        neg = -((bw_one if split else bw_n) / read if read else 0.0)
        if best is None or neg < best_neg:  # the same price here: the faster wins
            best, best_price, best_neg = (card, n), price, neg
    return best


def cheapest_set(catalog: Catalog, w: Workload) -> tuple[Card, int] | None:
    """The (card, count) ``recommend`` picks, with no Pick made: a caller that may drop it
    reads its price first (``set_price``)."""
    return _cheapest_single(catalog, w) or cheapest_holding_set(catalog, w)


def recommend(catalog: Catalog, w: Workload) -> tuple[Pick | None, int | None]:
    """(pick, None) or (None, cluster nodes) when even the largest node is too small.

    The pick is the first single card of the options or else its first set, found without
    building and sorting the whole list."""
    best = _cheapest_single(catalog, w) or cheapest_holding_set(catalog, w)
    if best is not None:
        return make_pick(catalog, best[0], best[1], w), None
    node = catalog.card_by_name[catalog.fleet.cluster.card]
    node_gb = node.vram_gb * catalog.fleet.cluster.cards_per_node
    return None, cluster_nodes(w.need_gb, node_gb)


def tensor_parallel_counts(attention_heads: int, max_cards: int = NODE_CARDS) -> list[int]:
    """Multi-card counts that split the attention heads evenly (vLLM refuses the others)."""
    return [n for n in range(2, max_cards + 1) if attention_heads % n == 0]


def min_tensor_parallel(need_gb: float, card_vram_gb: float, attention_heads: int) -> int | None:
    """Fewest cards that hold ``need_gb`` and split the heads evenly (1 when one card holds it)."""
    if card_vram_gb >= need_gb:
        return 1
    for n in tensor_parallel_counts(attention_heads):
        if n * card_vram_gb >= need_gb:
            return n
    return None

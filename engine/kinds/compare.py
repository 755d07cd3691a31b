"""The compare answer: two or more full answers side by side, with a one-line verdict.

Each alternative is answered as if asked alone (so every number is the one that question
gets); this module only labels them by what differs and says which one wins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

from engine.answer_types import Answer, Fit, Note, Section
from engine.kinds.base import Builder
from engine.lazyre import lazy
from engine.recommend import set_price, stream_bandwidth_gbps
from engine.text.labels import model_label, name_before, request_label
from engine.text.voice import Voice, ctx_label, precision_label


def labels(v: Voice, items: list[Answer]) -> list[str]:
    """Each item named by the slots that differ between the items (the model, the precision,
    the context...), or its whole request when nothing tells them apart."""
    reqs = [a.request for a in items]
    if not all(reqs):
        return [
            (
                a.card.name
                if a.card
                else a.fit.card  # a capacity list's hardware label has its count already
                if a.kind == "capacity" and a.fit is not None
                else (a.request and request_label(v, a.request)) or "?"
            )
            for a in items
        ]
    parts: list[list[str]] = [[] for _ in items]
    getters: list[Callable[[int], str]] = [
        lambda i: model_label(v, reqs[i]),  # type: ignore[arg-type]
        lambda i: reqs[i].precision.upper(),  # type: ignore[union-attr]
        lambda i: ctx_label(reqs[i].context_tokens),  # type: ignore[union-attr]
        lambda i: v.t("label.batch", batch=reqs[i].batch),  # type: ignore[union-attr]
        lambda i: v.t("label.kv", kv=reqs[i].kv_dtype.upper()),  # type: ignore[union-attr]
        lambda i: _hw(items[i]),
    ]
    for get in getters:
        values = [get(i) for i in range(len(items))]
        if len(set(values)) > 1:
            for i, value in enumerate(values):
                parts[i].append(value)
    return [
        " · ".join(p) if p else request_label(v, reqs[i])  # type: ignore[arg-type]
        for i, p in enumerate(parts)
    ]


def _hw(a: Answer) -> str:
    f = a.fit
    if f is None:
        return ""
    return f.card if f.count == 1 else f"{f.count}× {f.card}"


def _with_memory(v: Voice, label: str, vram_gb: float | None) -> str:
    """A card's label with its memory ("A100 SXM (80 GB)"); a plain amount is its own."""
    amount = f"{v.gb(vram_gb or 0.0)} GB"
    return label if label == amount else f"{label} ({amount})"


class CardSet(NamedTuple):
    """A compared card as asked: one card, or a set of them ("2x h100 or 1x h200")."""

    label: str
    vram_gb: float
    bandwidth_gbps: float  # what one stream pools (tensor parallel within a node)
    monthly_usd: float | None  # None: a set we do not rent


def card_set(v: Voice, a: Answer, count: int | None) -> CardSet:
    c = a.card
    assert c is not None
    n = count or 1
    if n == 1:
        return CardSet(c.name, c.vram_gb, c.bandwidth_gbps, c.monthly_usd)
    card = v.cat.card_by_name[c.name]
    price = set_price(v.cat, card, n)[2] if n in card.set_sizes else None
    bw = stream_bandwidth_gbps(c.bandwidth_gbps * n, n)
    return CardSet(f"{n}× {c.name}", c.vram_gb * n, bw, price)


def row(v: Voice, a: Answer, label: str, count: int | None = None) -> str:
    if a.kind == "card" and a.card is not None:
        c = card_set(v, a, count)
        if c.monthly_usd is None:
            return v.t(
                "compare.row_card_unrented",
                card=c.label,
                vram=v.gb(c.vram_gb),
                bw=v.num(c.bandwidth_gbps),
            )
        return v.t(
            "compare.row_card",
            card=c.label,
            vram=v.gb(c.vram_gb),
            bw=v.num(c.bandwidth_gbps),
            price=v.usd(c.monthly_usd),
            per_gb=v.usd(c.monthly_usd / c.vram_gb),
        )
    if a.kind == "fit":
        return f"{label}: {a.headline}"
    if a.kind == "capacity" and a.fit is not None:
        label = _with_memory(v, label, a.fit.vram_gb)
        if not a.budget:
            return v.t("compare.row_capacity_none", label=label)
        top = a.budget[0]  # the list is largest first
        return v.t(
            "compare.row_capacity",
            label=label,
            model=name_before(top.model, top.precision),
            prec=precision_label(top.precision),
            need=v.gb(top.need_gb),
        )
    total = (a.memory_gb or {}).get("total", 0.0)
    p = a.recommendation
    if p is None:
        return v.t("compare.row_cluster", label=label, total=v.gb(total))
    speed = v.t("compare.speed", tok=v.num(p.decode_tok_s)) if p.decode_tok_s else ""
    return v.t(
        "compare.row",
        label=label,
        total=v.gb(total),
        kv=v.gb((a.memory_gb or {}).get("kv_cache", 0.0)),
        card=p.card if p.count == 1 else f"{p.count}× {p.card}",
        price=v.usd(p.monthly_usd),
        speed=speed,
    )


def verdict(
    v: Voice, items: list[Answer], names: list[str], counts: list[int | None] | None = None
) -> str:
    if all(a.kind == "card" and a.card is not None for a in items):
        sets = [
            card_set(v, a, n) for a, n in zip(items, counts or [None] * len(items), strict=True)
        ]
        big = max(sets, key=lambda c: c.vram_gb)
        fast = max(sets, key=lambda c: c.bandwidth_gbps)
        rented = [c for c in sets if c.monthly_usd is not None]
        cheap = min(rented, key=lambda c: c.monthly_usd or 0.0) if rented else None
        same = len({c.vram_gb for c in sets}) == 1  # "the most memory" only when it differs
        return v.t(
            "compare.verdict_cards_same_vram" if same else "compare.verdict_cards",
            big=big.label,
            vram=v.gb(big.vram_gb),
            fast=fast.label,
            bw=v.num(fast.bandwidth_gbps),
            cheap=cheap.label if cheap else "—",
            price=v.usd(cheap.monthly_usd or 0.0) if cheap else "—",
        )
    held = [(a.fit, n) for a, n in zip(items, names, strict=True) if a.kind == "capacity"]
    if len(held) == len(items) or _memory_each(items, counts):
        sizes = _memory_each(items, counts) or [
            (f.vram_gb or 0.0) if f is not None else 0.0 for f, _ in held
        ]
        held = [(None, n) for n in names]
        most = max(sizes)
        if len(set(sizes)) == 1:
            return v.t("compare.verdict_capacity_same", vram=v.gb(most))
        name = held[sizes.index(most)][1]
        return v.t("compare.verdict_capacity", big=_with_memory(v, name, most))
    if all(a.kind == "fit" and a.fit is not None for a in items):
        return _fit_verdict(v, items, names)
    sized = [(a, n) for a, n in zip(items, names, strict=True) if a.memory_gb]
    if len(sized) < 2:
        return ""
    low = min(sized, key=lambda x: x[0].memory_gb["total"])  # type: ignore[index]
    high = max(sized, key=lambda x: x[0].memory_gb["total"])  # type: ignore[index]
    priced = [a for a, _ in sized if a.recommendation is not None]
    params = {
        "low": low[1],
        "low_gb": v.gb(low[0].memory_gb["total"]),  # type: ignore[index]
        "high": high[1],
        "high_gb": v.gb(high[0].memory_gb["total"]),  # type: ignore[index]
    }
    if not priced:
        return v.t("compare.verdict_memory", cheap="—", price="—", **params)
    cheapest = min(priced, key=lambda a: a.recommendation.monthly_usd)  # type: ignore[union-attr]
    pick = cheapest.recommendation
    assert pick is not None
    same = len({(a.recommendation.card, a.recommendation.count) for a in priced}) == 1  # type: ignore[union-attr]
    key = "compare.verdict_same" if same and len(priced) == len(sized) else "compare.verdict_memory"
    where = pick.card if pick.count == 1 else f"{pick.count}× {pick.card}"
    return v.t(key, cheap=where, price=v.usd(pick.monthly_usd), **params)


_PER_GB: Final = lazy(r"per\s*gb|/\s*gb|za\s*gb|ต่อ\s*gb")


def per_gb_line(v: Voice, sets: list[CardSet]) -> str:
    """ "Why is the 3090 cheaper than the A5000 per GB": which of two is cheaper per GB, said
    whatever the question assumed."""
    if len(sets) != 2 or any(not c.monthly_usd for c in sets):
        return ""
    cheap, dear = sorted(sets, key=lambda c: (c.monthly_usd or 0.0) / c.vram_gb)
    low, high = (cheap.monthly_usd or 0.0) / cheap.vram_gb, (dear.monthly_usd or 0.0) / dear.vram_gb
    return v.t("compare.per_gb", cheap=cheap.label, dear=dear.label, low=v.usd(low),
               high=v.usd(high))  # fmt: skip


def extra_line(v: Voice, sets: list[CardSet]) -> str:
    """Two rented cards (or sets): what the dearer one's extra money buys over the other, in
    memory and bandwidth (decode speed follows it); "" when not two, or priced the same."""
    if len(sets) != 2 or any(c.monthly_usd is None for c in sets):
        return ""
    cheap, dear = sorted(sets, key=lambda c: c.monthly_usd or 0.0)
    lo, hi = cheap.monthly_usd or 0.0, dear.monthly_usd or 0.0
    if hi <= lo or lo <= 0:
        return ""
    gb = dear.vram_gb - cheap.vram_gb
    if abs(gb) < 0.5:
        memory = v.t("compare.extra_mem_same")
    elif gb > 0:
        memory = v.t("compare.extra_mem_more", gb=v.gb(gb), pct=v.num(gb / cheap.vram_gb * 100))
    else:
        memory = v.t("compare.extra_mem_less", gb=v.gb(-gb))
    ratio = dear.bandwidth_gbps / cheap.bandwidth_gbps - 1
    pct = v.num(abs(ratio) * 100)
    key = "same" if abs(ratio) < 0.005 else "more" if ratio > 0 else "less"
    bandwidth = v.t(f"compare.extra_bw_{key}", pct=pct)
    return v.t("compare.extra", dear=dear.label, cheap=cheap.label, usd=v.usd(hi - lo),
               pct=v.num((hi / lo - 1) * 100), memory=memory, bandwidth=bandwidth)  # fmt: skip


def _memory_each(items: list[Answer], counts: list[int | None] | None) -> list[float]:
    """Each item's memory when cards and "what fits" lists are mixed ("2x 3090 vs 5090": a
    card's sheet beside a capacity list), so the verdict still says which holds the most;
    [] when not such a mix."""
    kinds = {a.kind for a in items}
    if kinds != {"card", "capacity"} or any(a.kind == "card" and a.card is None for a in items):
        return []
    out = []
    for a, n in zip(items, counts or [None] * len(items), strict=True):
        if a.kind == "card" and a.card is not None:
            out.append(a.card.vram_gb * (n or 1))
        elif a.fit is not None:
            out.append(a.fit.vram_gb or 0.0)
        else:
            return []
    return out


def _fit_verdict(v: Voice, items: list[Answer], names: list[str]) -> str:
    """Which holds it as asked (and which with the most room), or, when none does, the best
    each one runs: the comparison picks, it does not only list."""
    fits = [(a.fit, n) for a, n in zip(items, names, strict=True) if a.fit and a.fit.fits]
    rooms = {round(f.headroom_gb, 1) for f, _ in fits if f is not None}
    if len(fits) == 1 or len(rooms) == 1:  # one, or the same room on each: no "most"
        line = v.t("compare.verdict_fit", names=", ".join(n for _, n in fits))
    elif fits:
        most, name = max(fits, key=lambda x: x[0].headroom_gb)
        line = v.t(
            "compare.verdict_fit_room",
            names=", ".join(n for _, n in fits),
            name=name,
            headroom=v.room(most.headroom_gb),
        )
    if fits:
        line += _price_and_speed(v, [(f, n) for f, n in fits if f is not None])
        held = {n for _, n in fits}
        rest = [(a, n) for a, n in zip(items, names, strict=True) if n not in held]
        if rest:  # the others: the best each runs, as when none holds it
            line += " " + v.t("compare.others", items="; ".join(_best_each(v, rest)))
        return line
    every = list(zip(items, names, strict=True))
    return v.t("compare.verdict_fit_best", items="; ".join(_best_each(v, every)))


def _best_each(v: Voice, items: list[tuple[Answer, str]]) -> list[str]:
    """Each item's best option that fits, or that even its lightest does not."""
    parts = []
    for a, n in items:
        f = a.fit
        assert f is not None
        lead = f.changes[0] if f.changes else None
        if lead is not None and lead.change == "precision_kv" and lead.count == f.count:
            # the item's own answer leads with this (a lighter KV cache too): said the same
            prec, kv, room = lead.precision.upper(), lead.kv_dtype, v.room(lead.headroom_gb)
            parts.append(v.t("compare.best_at_kv", name=n, prec=prec, kv=kv, headroom=room))
        elif f.best is not None:
            prec, room = f.best.precision.upper(), v.room(f.best.headroom_gb)
            parts.append(v.t("compare.best_at", name=n, prec=prec, headroom=room))
        elif len(f.options) > 1:  # a ladder: even its lightest rung does not fit
            lowest = f.options[-1].precision.upper()
            parts.append(v.t("compare.best_none", name=n, prec=lowest))
        else:  # one way to run it (a training job): it does not fit
            parts.append(v.t("compare.best_no", name=n))
    return parts


def _price_and_speed(v: Voice, fits: list[tuple[Fit, str]]) -> str:
    """Among several that hold it: the cheapest to rent and the fastest, when they differ in
    those ("whats faster and cheaper")."""
    if len(fits) < 2:
        return ""
    out = ""
    priced = [(f, n) for f, n in fits if f.monthly_usd]
    if len(priced) >= 2 and len({f.monthly_usd for f, _ in priced}) > 1:
        f, n = min(priced, key=lambda x: x[0].monthly_usd or 0.0)
        out += " " + v.t("compare.cheapest", name=n, price=v.usd(f.monthly_usd or 0.0))
    timed = [(f, n) for f, n in fits if f.decode_tok_s]
    if len(timed) >= 2 and len({round(f.decode_tok_s or 0.0) for f, _ in timed}) > 1:
        f, n = max(timed, key=lambda x: x[0].decode_tok_s or 0.0)
        out += " " + v.t("compare.fastest", name=n, tok=v.num(f.decode_tok_s or 0.0))
    return out


def item_notes(items: list[Answer], names: list[str]) -> list[Note]:
    """The items' assumptions (a typical shape, a default context): one every item makes is
    said once, another is said with the name of the item that makes it."""
    out: list[Note] = []
    seen: set[tuple[str, str]] = set()
    for a, name in zip(items, names, strict=True):
        for n in a.assumptions:
            if (n.code, n.text) in seen:
                continue
            seen.add((n.code, n.text))
            shared = all(any(m.text == n.text for m in other.assumptions) for other in items)
            out.append(n if shared else Note(code=n.code, text=f"{name}: {n.text}"))
    return out


def compare(b: Builder, answer_one: Callable[[Builder], Answer]) -> Answer:
    """Answer every alternative alone, then put them side by side."""
    items = [answer_one(Builder(b.cat, b.lang, q, b.prev)) for q in b.q.alternatives]
    counts = [q.cards[0].count if q.cards else None for q in b.q.alternatives]
    names = labels(b.voice, items)
    names = [
        card_set(b.voice, a, n).label if a.kind == "card" and a.card is not None else name
        for a, n, name in zip(items, counts, names, strict=True)
    ]
    one_line = verdict(b.voice, items, names, counts)
    rows = [row(b.voice, a, n, c) for a, n, c in zip(items, names, counts, strict=True)]
    if all(a.kind == "card" and a.card is not None for a in items):  # what the extra buys
        sets = [card_set(b.voice, a, n) for a, n in zip(items, counts, strict=True)]
        extra = extra_line(b.voice, sets)
        rows += [extra] if extra else []
        if _PER_GB.search(b.q.text.lower()) and (per_gb := per_gb_line(b.voice, sets)):
            one_line = per_gb + " " + one_line  # the asked comparison first, premise or not
    b.assumptions.extend(item_notes(items, names))
    answer = Answer(
        kind="compare",
        items=items,
        verdict=one_line,
        headline=one_line or b.t("headline.compare", items=" vs ".join(names)),
        sections=[
            Section.model_construct(
                title=b.t("headline.compare", items=" vs ".join(names)), lines=rows
            )
        ],
    )
    return b.finish(answer)

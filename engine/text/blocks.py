"""Text blocks of an answer: headline and sections, per kind.

Pure presentation of numbers the kinds already computed; every word comes from the
message tables, every number is rounded half-up here and nowhere earlier.
"""

from __future__ import annotations

from typing import Any

from engine.answer_types import Answer, BudgetOption, Pick, Request
from engine.limits import DEFAULT_CONTEXT
from engine.recommend import is_tight, set_price
from engine.text.formulas import math_lines
from engine.text.labels import (
    alternatives_section,
    card_lines,
    ctx_text,
    memory_lines,
    name_before,
    pick_line,
    request_label,
)
from engine.text.voice import Voice, section


def describe(v: Voice, a: Answer) -> Answer:
    """The answer with its headline and sections (and math) written in. Every caller hands
    over an answer it has just built and nothing else holds: filled in place, not copied."""
    if a.kind == "sizing" and a.request is not None:
        a.__dict__.update(_sizing_blocks(v, a))
    elif a.kind == "card" and a.card is not None:
        a.__dict__.update(_card_blocks(v, a))
    elif a.kind == "cards":
        a.__dict__.update(_cards_blocks(v, a))
    elif a.kind in ("budget", "capacity"):
        a.__dict__.update(_budget_blocks(v, a))
    return a


def _sizing_blocks(v: Voice, a: Answer) -> dict[str, Any]:
    req = a.request
    assert req is not None and a.memory_gb is not None
    fill, const, num = v.fill, v.const, v.nums[0]
    sections = [section(const["section.memory"], memory_lines(v, a))]
    total = v.gbs[a.memory_gb["total"]]
    headline = fill["headline.sizing:request,total"]((request_label(v, req), total))
    if a.budget_usd is not None and a.recommendation is not None:
        headline = budget_headline(v, a, total)
    card_lines: list[str] = []
    p = a.recommendation
    if p is not None:
        line = pick_line(v, p)
        if a.budget_usd is not None and p.monthly_usd > a.budget_usd:  # said, not left to sums
            line += " " + fill["pick.over_budget:budget"]((v.usds[a.budget_usd],))
        card_lines.append(line)
        if p.decode_tok_s:
            tok = num[p.decode_tok_s]
            if p.count == 1 and a.decode_kv_tok_s:
                line = fill["decode.line_kv:tok,kv"]((tok, num[a.decode_kv_tok_s]))
            elif p.count == 1:
                line = fill["decode.line:tok"]((tok,))
            elif v.cat.precision_by_name[req.precision].gguf:  # llama.cpp: split by layers
                line = fill["decode.line_layers:tok,count"]((tok, p.count))
            else:
                c = v.cat.card_by_name[p.card]
                line = fill["decode.line_set:tok,count,link,gbps"](
                    (tok, p.count, v.link(c.interconnect), num[c.link_gbps or 0])
                )
            if a.decode_kv_tok_s and p.count > 1:  # the lower ceiling on the same line
                line += " · " + fill["decode.kv_line:tok"]((num[a.decode_kv_tok_s],))
            card_lines.append(line)
    elif a.cluster_nodes:
        cluster = v.cat.fleet.cluster.card
        card_lines.append(fill["pick.cluster:nodes,card"]((a.cluster_nodes, cluster)))
    title = "section.card_single" if _cheaper_set_shown(a) else "section.card"
    sections.append(section(const[title], card_lines))
    if a.alternatives:
        sections.extend(alternatives_section(v, a.alternatives))
    return {"headline": headline, "sections": sections, "math": math_lines(v, a)}


def _cheaper_set_shown(a: Answer) -> bool:
    """Whether the answer shows a multi-card set cheaper than its single-card pick: then the
    pick's block is the cheapest *single* card, not the cheapest rental that holds it."""
    p = a.recommendation
    if p is None or p.count != 1:
        return False
    price = p.monthly_usd
    for o in a.alternatives:  # a loop, not any() over a generator: no frame per answer
        if o.count > 1 and o.monthly_usd < price:
            return True
    for w in (a.within_budget, a.budget_asked):
        if w is not None and w.count > 1 and w.monthly_usd < price:
            return True
    return False


def _set(p: Pick) -> str:
    return p.card if p.count == 1 else f"{p.count}× {p.card}"


def _setup(v: Voice, req: Request, p: Pick) -> str:
    """How a budget pick runs: its precision, or the lighter training method."""
    if p.reason and p.reason != "inference":  # a training run: its method says the setup
        return v.const["task." + p.reason]
    return (p.precision or req.precision).upper()


def budget_headline(v: Voice, a: Answer, total: str) -> str:
    """A model asked with a budget: the pick within it, or the first lighter setup that is,
    or the cheapest there is (what the budget would have to reach)."""
    req, p, usd = a.request, a.recommendation, v.usds
    assert req is not None and p is not None and a.budget_usd is not None
    label, budget, fill = request_label(v, req), usd[a.budget_usd], v.fill
    w = a.within_budget
    if w is not None and w == a.budget_asked:  # as asked, on a set cheaper than the pick
        p = w
    if p.monthly_usd <= a.budget_usd:
        spec = "headline.budget_yes:budget,request,total,hw,price"
        return fill[spec]((budget, label, total, _set(p), usd[p.monthly_usd]))
    low = a.budget_asked or p  # the cheapest the setup as asked costs
    if w is not None:
        spec = "headline.budget_lower:budget,request,total,price,setup,hw,cost,need"
        return fill[spec](
            (
                budget,
                label,
                total,
                usd[low.monthly_usd],
                _setup(v, req, w),
                _set(w),
                usd[w.monthly_usd],
                v.gbs[w.need_gb or 0.0],
            )
        )
    f = a.budget_floor
    if f is None:  # no lighter setup at all: the cheapest the setup as asked costs
        spec = "headline.budget_none:budget,request,total,setup,hw,cost"
        return fill[spec](
            (budget, label, total, _setup(v, req, low), _set(low), usd[low.monthly_usd])
        )
    spec = "headline.budget_none:budget,request,total,setup,hw,cost"
    return fill[spec]((budget, label, total, _setup(v, req, f), _set(f), usd[f.monthly_usd]))


def _card_blocks(v: Voice, a: Answer) -> dict[str, Any]:
    c = a.card
    assert c is not None
    headline = v.t("headline.card", card=c.name, vram=v.gbs[c.vram_gb], price=v.usds[c.monthly_usd])
    card = v.cat.card_by_name.get(c.name)
    if card is not None and card.min_count > 1:  # never rented alone: said first
        n = card.min_count
        headline = v.t(
            "headline.card_sets",
            card=c.name,
            vram=v.gbs[c.vram_gb],
            price=v.usds[c.monthly_usd],
            min=n,
            set_price=v.usds[set_price(v.cat, card, n)[2]],
        )
    return {
        "headline": headline,
        "sections": [section("", card_lines(v, c))],
    }


def _cards_blocks(v: Voice, a: Answer) -> dict[str, Any]:
    lines = [
        v.t(
            "cards.row",
            card=c.name,
            vram=v.gbs[c.vram_gb],
            bw=v.nums[0][c.bandwidth_gbps],
            price=v.usds[c.monthly_usd],
            per_gb=v.usds[c.usd_per_gb_month],
            per_usd=v.nums[2][c.gbps_per_usd_month],
            hour=v.usds[c.usd_per_gpu_hour],
            fp8="FP8" if c.fp8 else "—",
        )
        for c in a.cards
    ]
    return {
        "headline": v.t("headline.cards", n=len(a.cards)),
        "sections": [
            section(v.t("cards.header"), lines),
            section("", [min_term(v)]),
        ],
    }


def _budget_blocks(v: Voice, a: Answer) -> dict[str, Any]:
    return budget_blocks(v, a)


def users_label(v: Voice, batch: int) -> str:
    return v.t("label.users_one") if batch == 1 else v.t("label.users", n=batch)


def budget_blocks(v: Voice, a: Answer, asked: tuple[int, int] | None = None) -> dict[str, Any]:
    """A budget's or a card's list. A budget leads with what it gets: its best model at the
    context and users it was sized at; a card's list says them when they were ``asked``
    (context tokens, users)."""
    ctx, batch = asked or (DEFAULT_CONTEXT, 1)
    users = users_label(v, batch)
    said = asked is not None
    if a.kind == "capacity":
        f = a.fit
        cap, n = (f.gpu_share_gb or f.vram_gb, f.count) if f is not None else (None, 0)
        lines = [capacity_row(v, o, cap, n) for o in a.budget]
        vram = v.gbs[cap or 0] if a.fit else "?"  # a Mac's: what its GPU gets by default
        if not lines and said:
            lines = [v.t("capacity.none_at", vram=vram, ctx=ctx_text(v, ctx), users=users)]
        elif not lines:
            lines = [v.t("capacity.none", vram=vram)]
    else:
        lines = [
            v.t(
                "budget.row",
                model=name_before(o.model, o.precision),
                prec=o.precision.upper(),
                need=v.gbs[o.need_gb],
                card=o.card if o.count == 1 else f"{o.count}× {o.card}",
                price=v.usds[o.monthly_usd],
            )
            + _tight(v, o)
            for o in a.budget
        ]
    if not lines:
        lines = [v.t("budget.none")]
    title = ""
    if a.kind == "capacity" and a.fit is not None:
        key = "headline.capacity_vram" if a.fit.card.endswith(" GB") else "headline.capacity"
        params: dict[str, Any] = {"card": a.fit.card, "vram": v.gbs[a.fit.vram_gb or 0]}
        if a.fit.mac is not None and a.fit.gpu_share_gb is not None:  # judged on that share
            key = "headline.capacity_mac"
            params.update(card=a.fit.mac, share=v.gbs[a.fit.gpu_share_gb])
        if said:
            key, params = key + "_at", {**params, "ctx": ctx_text(v, ctx), "users": users}
        headline = v.t(key, **params)
    elif a.budget:
        title = v.t("headline.budget", budget=v.usds[a.budget_usd or 0])
        o = a.budget[0]
        headline = v.t(
            "headline.budget_best",
            budget=v.usds[a.budget_usd or 0],
            model=name_before(o.model, o.precision),
            prec=o.precision.upper(),
            ctx=ctx_text(v, ctx),
            users=users,
            need=v.gbs[o.need_gb],
            card=o.card if o.count == 1 else f"{o.count}× {o.card}",
            price=v.usds[o.monthly_usd],
        )
        if tight := _tight(v, o):  # the lead is the best model, said with its thin margin
            headline = headline.removesuffix(".") + tight + "."
    else:
        headline = v.t("headline.budget", budget=v.usds[a.budget_usd or 0])
    return {
        "headline": headline,
        "sections": [section(title, lines)],
    }


def _tight(v: Voice, o: BudgetOption, vram_gb: float | None = None, count: int = 0) -> str:
    """ " (tight: 1.9 GB left)" for an entry whose set keeps under the tight margin (the rule
    of a pick's "tight fit"), else nothing."""
    if vram_gb is None:
        card = v.cat.card_by_name.get(o.card)
        if card is None:
            return ""
        vram_gb = card.vram_gb * o.count
    room = vram_gb - o.need_gb
    if not is_tight(room, count or o.count):
        return ""
    return " " + v.fill["budget.tight:gb"]((v.rooms[room],))


def capacity_row(v: Voice, o: BudgetOption, vram_gb: float | None = None, count: int = 0) -> str:
    """One model on the asked hardware: its own speed and price, or the rental that does it."""
    model = name_before(o.model, o.precision)
    params = {"model": model, "prec": o.precision.upper(), "need": v.gbs[o.need_gb]}
    if o.offered:
        key = "capacity.row"
        params.update(card=o.card, price=v.usds[o.monthly_usd], tok=v.nums[0][o.decode_tok_s or 0])
    else:
        rent = o.rent_card or "?"
        if (o.rent_count or 1) > 1:
            rent = f"{o.rent_count}× {rent}"
        key = "capacity.row_owned" if o.decode_tok_s else "capacity.row_plain"
        params.update(
            card=o.card, rent=rent, price=v.usds[o.monthly_usd], tok=v.nums[0][o.decode_tok_s or 0]
        )
    return v.t(key, **params) + _tight(v, o, vram_gb, count)


def min_term(v: Voice) -> str:
    """Every per-hour figure comes with the rule that there are no hourly rentals."""
    prov = v.cat.fleet.provider
    cheapest = min(v.cat.cards, key=lambda c: c.monthly_usd)
    week = cheapest.monthly_usd * prov.min_term_days * 24 / prov.hours_per_month
    return v.t("card.min_term", days=prov.min_term_days, week=v.usds[week])

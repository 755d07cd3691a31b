"""Short follow-ups after an answer: "cheaper?" (a cheaper way to run the same model than
the last pick) and "why?" (the last verdict again, its sums and its reason said first).

A repeat of the last answer word for word tells the person nothing; each of these leads with
a line of its own (``Answer.follows_up`` says which, and the renderers put it first).
"""

from __future__ import annotations

from typing import Final

from engine.answer_types import Answer, Pick, Request
from engine.kinds.base import Builder
from engine.kinds.fit import fit
from engine.kinds.rungs import rung_request, rungs
from engine.kinds.sizing import sizing
from engine.kinds.within import cheapest, within_budget
from engine.recommend import recommend, set_price
from engine.sizing import LORA_BASE_PRECISION
from engine.text.labels import request_label
from engine.text.voice import render_text

_CENT: Final = 0.005  # prices closer than this are the same price


def _hw(count: int, card: str) -> str:
    return card if count == 1 else f"{count}× {card}"


def last_price(b: Builder) -> tuple[str, int, float] | None:
    """(card, count, monthly price) of the last answer's pick, when it is a set we rent."""
    prev = b.prev
    if prev is None or prev.pick_card not in b.cat.card_by_name:
        return None
    card = b.cat.card_by_name[prev.pick_card or ""]
    count = prev.pick_count or card.min_count
    return card.name, count, set_price(b.cat, card, count)[2]


def _lighter_request(req: Request, pick: Pick) -> Request:
    """The request of a lighter setup ``within_budget`` found (its precision, or for a
    training run its method at that method's base precision)."""
    if req.task != "inference" and pick.reason in LORA_BASE_PRECISION:
        task = pick.reason
        upd = {"task": task, "precision": LORA_BASE_PRECISION[task], "weight_parts": None}
        return req.model_copy(update=upd)
    if pick.precision is None or pick.precision == req.precision:
        return req
    return req.model_copy(update={"precision": pick.precision, "weight_parts": None})


def _lighter(b: Builder, req: Request, price: float) -> tuple[Request, Pick] | None:
    """The first precision lighter than ``req``'s (fewer GB, not an 8-bit twin of the same
    size) whose cheapest set costs less than ``price``; a format of the asked one's kind
    (GGUF or not) first, as the asker would serve it with the same engine."""
    asked = b.breakdown(req).total
    gguf = b.cat.precision_by_name[req.precision].gguf
    lighter = [
        r
        for r in (rung_request(b, req, g) for g in rungs(b, req))
        if b.breakdown(r).total < asked - _CENT
    ]
    same_kind = [r for r in lighter if b.cat.precision_by_name[r.precision].gguf == gguf]
    for r in (*same_kind, *(r for r in lighter if r not in same_kind)):
        pick = cheapest(b, r)
        if pick is not None and pick.monthly_usd < price - _CENT:
            return r, pick
    return None


def _answer_on(b: Builder, req: Request, pick: Pick) -> Answer:
    """The full answer for ``req`` with ``pick`` as its pick: a sizing when the fleet's rule
    picks that set anyway, else the fit on that set (a cheaper set than the rule's one)."""
    rule, _ = recommend(b.cat, b.workload(req, b.breakdown(req).total))
    if rule is not None and (rule.card, rule.count) == (pick.card, pick.count):
        return sizing(b, req)
    return fit(b, req.model_copy(update={"card": pick.card, "count": pick.count}))


def cheaper(b: Builder, req: Request) -> Answer:
    """A cheaper way to run ``req`` than the last pick: the fleet's pick for it, or else its
    cheapest set of any size, at the same precision, when it costs less; else the first lighter setup whose cheapest set costs less; when none
    does, the same answer, saying plainly that nothing is cheaper."""
    req = req.model_copy(update={"card": None, "count": None})
    last = last_price(b)
    if last is None or req.model is None:  # no price to beat (a person's own card)
        return sizing(b, req)
    card, count, price = last
    rule, _ = recommend(b.cat, b.workload(req, b.breakdown(req).total))
    same = cheapest(b, req)
    found: tuple[Request, Pick] | None = None
    if rule is not None and rule.monthly_usd < price - _CENT:  # the fleet's own pick first
        found = req, rule.model_copy(update={"need_gb": b.breakdown(req).total})
    elif same is not None and same.monthly_usd < price - _CENT:
        found = req, same
    elif req.task == "inference":
        found = _lighter(b, req, price)
    elif (lighter := within_budget(b, req, price - 2 * _CENT)) is not None:
        found = _lighter_request(req, lighter), lighter  # a lighter training method
    v = b.voice
    was = {"was_hw": _hw(count, card), "was_price": v.usds[price]}
    if found is None:
        answer = sizing(b, req)
        line = b.t("followup.no_cheaper", request=request_label(v, req), **was)
        return lead_with(answer, "no_cheaper", line)
    new_req, pick = found
    answer = _answer_on(b, new_req, pick)
    line = b.t(
        "followup.cheaper",
        request=request_label(v, new_req),
        hw=_hw(pick.count, pick.card),
        price=v.usds[pick.monthly_usd],
        total=v.gbs[pick.need_gb or b.breakdown(new_req).total],
        **was,
    )
    return lead_with(answer, "cheaper", line)


def why(b: Builder, answer: Answer) -> Answer:
    """The last verdict again with its reason first: the memory sum, and what the pick or the
    asked hardware has against it; the math shown too."""
    mem, req, v = answer.memory_gb, answer.request, b.voice
    if not mem or req is None:
        return lead_with(answer, "why", None)
    parts = " + ".join(
        b.t("followup.part", part=b.t(f"mem.{k}"), gb=v.gbs[gb])
        for k, gb in mem.items()
        if k != "total"
    )
    total = v.gbs[mem["total"]]
    sums = b.t("followup.sum", prec=req.precision.upper(), parts=parts, total=total)
    fit_, rec = answer.fit, answer.recommendation
    if answer.kind == "fit" and fit_ is not None:
        hw = _hw(fit_.count, fit_.card)
        vram = v.gbs[fit_.vram_gb or 0.0]
        if fit_.fits:
            reason = b.t("followup.why_fits", hw=hw, vram=vram, room=v.gbs[fit_.headroom_gb])
        elif fit_.headroom_gb >= 0:  # memory enough: a rule says no (FP8 on a card without)
            reason = b.t("followup.why_rule", hw=hw, vram=vram)
        else:
            reason = b.t("followup.why_short", hw=hw, vram=vram, short=v.gbs[-fit_.headroom_gb])
    elif rec is not None:
        card = b.cat.card_by_name.get(rec.card)
        key = "followup.why_pick_fp8" if card is not None and _needs_fp8(b, req) else None
        reason = b.t(
            key or "followup.why_pick",
            total=total,
            hw=_hw(rec.count, rec.card),
            vram=v.gbs[(card.vram_gb if card else 0.0) * rec.count],
            price=v.usds[rec.monthly_usd],
        )
    else:
        reason = b.t("followup.why_cluster", total=total, card=b.cat.fleet.cluster.card)
    return lead_with(answer, "why", f"{sums}; {reason}")


def _needs_fp8(b: Builder, req: Request) -> bool:
    p = b.cat.precision_by_name.get(req.precision)
    return req.task == "inference" and p is not None and p.needs_fp8


def lead_with(answer: Answer, what: str, line: str | None) -> Answer:
    """``answer`` answering the short follow-up ``what``: ``line`` is its headline (it says
    the request and its total again), and the math is shown for "why" and "math"."""
    d = answer.__dict__
    d["follows_up"] = what
    if what in ("why", "math"):
        d["show_math"] = True
    if line:
        d["headline"] = line
        d["text"] = render_text(answer)
    return answer

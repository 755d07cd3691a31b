"""A model asked about with a budget ("can I run llama 70b for under $500/month?"): whether
the pick fits the budget, and if not, the heaviest precision (or, for training, the first
lighter method) whose cheapest rental does.
"""

from __future__ import annotations

from engine.answer_types import Pick, Request
from engine.kinds.base import Builder
from engine.kinds.combos import LIGHTER
from engine.kinds.ladder import LEAD_STEP
from engine.kinds.rungs import rung_request, rungs
from engine.models import Task
from engine.recommend import (
    cheapest_holding_set,
    make_pick,
    recommend,
    set_allowed,
    set_headroom_gb,
    set_price,
)
from engine.sizing import LORA_BASE_PRECISION


def cheapest(b: Builder, r: Request) -> Pick | None:
    """The cheapest rental of ``r`` of any size, single cards among the sets (a budget may buy
    two cheap cards where the rule's pick is one dear one), with its precision and need."""
    need = b.breakdown(r).total
    w = b.workload(r, need)
    pick, _ = recommend(b.cat, w)
    found = cheapest_holding_set(b.cat, w)
    if found is not None and (pick is None or (found[0].name, found[1]) != (pick.card, pick.count)):
        other = make_pick(b.cat, found[0], found[1], w)
        if pick is None or other.monthly_usd < pick.monthly_usd:
            pick = other
    if pick is None:
        return None
    return pick.model_copy(update={"precision": r.precision, "need_gb": need, "reason": r.task})


def within_budget(b: Builder, req: Request, budget_usd: float) -> Pick | None:
    """The cheapest rental of the first lighter setup that costs no more than the budget, with
    its precision, need and (``reason``) the task it runs; None: none does. The asked setup
    itself is the caller's pick."""
    if req.task == "inference":
        asked = b.breakdown(req).total
        later = [
            r
            for r in (rung_request(b, req, g) for g in rungs(b, req))
            if r.precision != req.precision and b.breakdown(r).total <= asked  # INT8 for FP8
        ]
    else:
        later = [_method(req, t) for t in LIGHTER.get(req.task, ())]
    found: Pick | None = None
    for r in later:
        pick = cheapest(b, r)  # its reason: the task it runs
        if pick is None or pick.monthly_usd > budget_usd:
            continue
        if found is None:
            found = pick
            if not pick.tight or r.task != "inference":
                return found
        elif (pick.need_gb or 0.0) < (found.need_gb or 0.0) * LEAD_STEP:
            break  # no cliff to a much smaller format for the room
        elif not pick.tight:  # a step lighter with real room, as a fit's lead does
            return pick
    return found


def _method(req: Request, task: Task) -> Request:
    """``req`` trained with a lighter method, at that method's base precision."""
    return req.model_copy(
        update={"task": task, "precision": LORA_BASE_PRECISION[task], "weight_parts": None}
    )


def cheapest_of_all(b: Builder, req: Request) -> Pick | None:
    """The cheapest rental of the lightest setup: what the budget would have to reach."""
    if req.task == "inference":
        table = rungs(b, req)
        return cheapest(b, rung_request(b, req, table[-1])) if table else None
    tasks = LIGHTER.get(req.task, ())
    return cheapest(b, _method(req, tasks[-1])) if tasks else None


def named_set_note(b: Builder, req: Request, budget_usd: float) -> Request:
    """A budget asked with a card set named too ("my buddy says we need 4 h100s"): the
    budget is what is answered, and the named set is judged against it in a note of its own.
    Returns the request without the set, for the budget's answer."""
    if req.card is None:
        return req
    card = b.cat.card_by_name[req.card]
    count = req.count or card.min_count
    need = b.breakdown(req).total
    w = b.workload(req, need)
    hw = card.name if count == 1 else f"{count}× {card.name}"
    params = {"hw": hw, "total": b.gb(need), "vram": b.gb(card.vram_gb * count)}
    if set_headroom_gb(card, count, w) < 0 or set_allowed(card, count, w) == "no_fp8":
        b.caveat("named_set_short", **params)
    else:
        price = set_price(b.cat, card, count)[2]
        code = "named_set_within"
        if price > budget_usd:  # "you do not need it" only when a cheaper set holds it
            low = cheapest(b, req)
            code = "named_set_over" if low and low.monthly_usd < price else "named_set_dear"
        b.caveat(code, price=b.usd(price), budget=b.usd(budget_usd), **params)
    return req.model_copy(update={"card": None, "count": None})

"""The sizing answer (how much memory, which card to rent) and the notes fit answers share."""

from __future__ import annotations

from engine.alternatives import alternatives, recommend_with_alternatives
from engine.answer_new import new_answer
from engine.answer_types import Answer, Pick, Request
from engine.kinds import ladder
from engine.kinds.base import Builder
from engine.kinds.terms import hourly_note
from engine.kinds.within import cheapest, cheapest_of_all, within_budget
from engine.recommend import (
    Workload,
    cheapest_price,
    cheapest_set,
    holding_sets,
    make_pick,
    set_price,
)
from engine.sizing import (
    ADAPTER_RANK,
    adapter_fraction,
    kv_bytes_per_token,
    quick_rule_gb,
    training,
)
from engine.text.blocks import describe
from engine.text.speed import lead_with, rental_speed_lead
from engine.understand.asks import asks_speed


def sizing(b: Builder, req: Request) -> Answer:
    assert req.model is not None
    bd = b.breakdown(req)
    need = bd.total
    w = b.workload(req, need)
    pick, nodes, alts = recommend_with_alternatives(b.cat, w, b.q.budget_usd)
    inference = req.task == "inference"
    if pick is not None:
        if inference and len(alts) < 2:  # lower_precision_alt's own first test, before a call
            alts = lower_precision_alt(b, req, pick, alts)
        b.pick_notes(pick, req)
    else:
        b.caveat("cluster", nodes=nodes, card=b.cat.fleet.cluster.card)
    b.model_notes(req)
    quick = kvbpt = kv_lower = None  # what only an inference answer shows
    if inference:
        if req.weight_parts is None:
            bpp = b.cat.precision_by_name[req.precision].bits / 8  # bytes_per_param
        else:
            bpp = bd.parts["weights"] / req.model.params_b
        quick = quick_rule_gb(req.model.params_b, bpp)
        kvbpt = kv_bytes_per_token(
            req.model, b.cat.kv_by_name[req.kv_dtype].bytes, req.context_tokens
        )
        if pick is not None:
            kv_lower = _kv_lower(b, req, pick, w)
    else:
        training_notes(b, req)
    budget, within, floor, asked = b.q.budget_usd, None, None, None
    if budget is not None and pick is not None and pick.monthly_usd > budget:
        asked = cheapest(b, req)  # the rule's pick is one card; a cheaper set may be within
        if asked is not None and asked.monthly_usd <= budget:
            within = asked
        else:
            within = within_budget(b, req, budget)
            floor = cheapest_of_all(b, req) if within is None else None
            if floor is not None and asked is not None and floor.monthly_usd >= asked.monthly_usd:
                floor = None  # a lighter setup that costs no less: the one asked is said
    if within is not None:
        alts = _beside(b, w, within, asked, alts)
    shown = within if within is not None else pick
    if shown is not None:
        hourly_note(b, shown.card, shown.count, shown.monthly_usd)
    answer = new_answer(
        {
            "kind": "sizing",
            "budget_usd": budget,
            "within_budget": within,
            "budget_floor": floor,
            "budget_asked": asked,
            "decode_kv_tok_s": kv_lower,
            "request": req,
            "memory_gb": bd.as_dict(),
            "recommendation": pick,
            "alternatives": alts,
            "decode_tok_s": pick.decode_tok_s if pick else None,
            "cluster_nodes": nodes,
            "quick_rule_gb": quick,
            "kv_bytes_per_token": kvbpt,
        }
    )
    answer = describe(b.voice, answer)
    if pick is not None and pick.decode_tok_s and asks_speed(b.q.text.lower()):
        lead_with(answer, rental_speed_lead(b.voice, req, pick))  # "how fast is llama 70b"
    return b.finish(answer)


def _beside(
    b: Builder, w: Workload, within: Pick, asked: Pick | None, alts: list[Pick]
) -> list[Pick]:
    """The alternatives beside the budget's pick: when that is the setup as asked on a cheaper
    set, the options are made beside it (none dearer than the budget); the pick itself is
    never offered again as an alternative."""
    if within is asked:
        alts = alternatives(b.cat, w, within, b.q.budget_usd)
    key = (within.card, within.count, within.precision)
    return [o for o in alts if (o.card, o.count, o.precision or within.precision) != key]


def _kv_lower(b: Builder, req: Request, pick: Pick, w: Workload) -> float | None:
    """``ladder.decode(...)[1]`` on the pick's set, from the workload's read and cache (the
    request's very sums): the lower ceiling that also reads the KV cache."""
    if req.task != "inference":
        return None
    bw = b.cat.card_by_name[pick.card].bandwidth_gbps * pick.count  # card_hardware's
    if w.layer_split:  # llama.cpp reads the cards' layers one after another
        bw /= pick.count
    read, kv = w.weights_read_gb, w.kv_gb
    assert read is not None
    return bw / (read + kv) if kv > ladder.KV_READ_SHARE * read else None


def training_notes(b: Builder, req: Request) -> None:
    if req.task == "inference":
        return
    assert req.model is not None
    if req.task == "full":
        b.caveat("zero_offload")
        b.caveat("hf_accounting", gb=b.gb(req.model.params_b * 18))
        lora = training(req.model, "lora", req.context_tokens, req.batch).total
        qlora = training(req.model, "qlora", req.context_tokens, req.batch).total
        b.caveat("cheaper_methods", lora=b.gb(lora), qlora=b.gb(qlora))
    if req.task in ("lora", "qlora") and req.lora_rank not in (None, ADAPTER_RANK):
        pct = adapter_fraction(req.lora_rank) * 100
        b.assume("lora_rank", rank=req.lora_rank, pct=b.num(pct, 2))
    elif req.task in ("lora", "qlora"):
        b.assume("lora_defaults")


def lower_precision_alt(b: Builder, req: Request, pick: Pick, alts: list[Pick]) -> list[Pick]:
    """Quantizing onto a small card often beats full precision on a big one."""
    if req.task != "inference" or len(alts) >= 2:
        return alts
    cap = pick.monthly_usd * 0.6
    if b.q.budget_usd is not None:  # never offered above what the person can spend
        cap = min(cap, b.q.budget_usd)
    if cap < cheapest_price(b.cat):  # no rental is that much cheaper
        return alts
    current = b.cat.precision_by_name[req.precision]
    assert req.model is not None
    parts = b.breakdown(req).parts
    for lower in ("fp8", "int4"):
        p = b.cat.precision_by_name[lower]
        if p.bits >= current.bits:
            continue
        # a need a hair under the lighter request's (its weights, this cache and overhead):
        # when even the cheapest set of the fleet that holds it costs more than the cap, so
        # does the pick the lighter request would get (recommend's sets are among these)
        under = (req.model.params_b * (p.bits / 8) + parts["kv_cache"] + parts["overhead"]) * (
            1 - 1e-9
        )
        rows = holding_sets(b.cat, under, False)
        if not rows or rows[0][3] > cap:
            continue
        r2 = req.model_copy(update={"precision": lower, "weight_parts": None})
        need = b.breakdown(r2).total
        w2 = b.workload(r2, need)
        # recommend's pick, its price read first: most are dearer, and no Pick is made for them
        best = cheapest_set(b.cat, w2)
        if best is not None and set_price(b.cat, *best)[2] <= cap:
            cheaper = make_pick(b.cat, best[0], best[1], w2)
            return [
                *alts,
                cheaper.model_copy(
                    update={"reason": "lower_precision", "precision": lower, "need_gb": need}
                ),
            ]
    return alts

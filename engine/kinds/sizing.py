"""The answers with a memory breakdown: sizing (which card), fit (does it fit this card) and
limit (the longest context or most users a card holds).
"""

from __future__ import annotations

from engine.answer_types import Answer, Fit, Limit, Pick, Request
from engine.kinds.base import Builder
from engine.limits import MAX_BATCH, MAX_CONTEXT_TOKENS
from engine.recommend import (
    alternatives,
    decode_for,
    is_tight,
    recommend,
    set_allowed,
    set_headroom_gb,
    set_price,
)
from engine.sizing import max_batch, max_context_tokens, quick_rule_gb, training
from engine.text.blocks import describe
from engine.text.voice import ctx_label
from engine.understand import CardAsk


def sizing(b: Builder, req: Request) -> Answer:
    assert req.model is not None
    bd = b.breakdown(req)
    need = bd.total
    w = b.workload(req, need)
    pick, nodes = recommend(b.cat, w)
    alts: list[Pick] = []
    if pick is not None:
        alts = alternatives(b.cat, w, pick)
        alts = lower_precision_alt(b, req, pick, alts)
        b.pick_notes(pick, req)
    else:
        b.caveat("cluster", nodes=nodes, card=b.cat.fleet.cluster.card)
    b.model_notes(req)
    training_notes(b, req)
    prec = b.cat.precision_by_name[req.precision]
    bpp = (
        prec.bytes_per_param
        if req.weight_parts is None
        else bd.parts["weights"] / req.model.params_b
    )
    quick = quick_rule_gb(req.model.params_b, bpp)
    kvbpt = b.kv_per_token(req)
    answer = Answer(
        kind="sizing",
        request=req,
        memory_gb=bd.as_dict(),
        recommendation=pick,
        alternatives=alts,
        decode_tok_s=pick.decode_tok_s if pick else None,
        cluster_nodes=nodes,
        quick_rule_gb=quick if req.task == "inference" else None,
        kv_bytes_per_token=kvbpt,
    )
    return b.finish(describe(b.voice, answer))


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
    if req.task in ("lora", "qlora"):
        b.assume("lora_defaults")


def lower_precision_alt(b: Builder, req: Request, pick: Pick, alts: list[Pick]) -> list[Pick]:
    """Quantizing onto a small card often beats full precision on a big one."""
    if req.task != "inference" or len(alts) >= 2:
        return alts
    current = b.cat.precision_by_name[req.precision]
    for lower in ("fp8", "int4"):
        p = b.cat.precision_by_name[lower]
        if p.bits >= current.bits:
            continue
        r2 = req.model_copy(update={"precision": lower, "weight_parts": None})
        need = b.breakdown(r2).total
        cheaper, _ = recommend(b.cat, b.workload(r2, need))
        if cheaper is not None and cheaper.monthly_usd <= pick.monthly_usd * 0.6:
            return [
                *alts,
                cheaper.model_copy(
                    update={"reason": "lower_precision", "precision": lower, "need_gb": need}
                ),
            ]
    return alts


def fit(b: Builder, req: Request) -> Answer:
    assert req.model is not None
    bd = b.breakdown(req)
    need = bd.total
    w = b.workload(req, need)
    fits: list[Fit] = []
    asks = list(b.q.cards)
    if not asks and req.card:
        asks = [CardAsk(req.card, req.count)]
    for ask_ in asks:
        card = b.cat.card_by_name[ask_.name]
        count = ask_.count or card.min_count
        why = set_allowed(card, count, w)
        cap = card.vram_gb * count
        headroom = set_headroom_gb(card, count, w)
        ok = headroom >= 0 and why is None
        _, _, price = set_price(b.cat, card, count)
        fits.append(
            Fit(
                card=card.name,
                count=count,
                fits=ok,
                headroom_gb=headroom,
                tight=ok and is_tight(headroom, count),
                monthly_usd=price,
                reason=why,
                vram_gb=cap,
                decode_tok_s=decode_for(card, count, w.weights_read_gb),
            )
        )
        if why:
            b.caveat(f"why.{why}", card=card.name, count=count, heads=req.model.attention_heads)
    if b.q.vram_gb:
        cap = b.q.vram_gb
        fits.append(
            Fit(
                card=f"{b.num(cap, 1)} GB",
                count=1,
                fits=cap >= need,
                headroom_gb=cap - need,
                tight=cap >= need and is_tight(cap - need, 1),
                vram_gb=cap,
            )
        )
    pick, nodes = recommend(b.cat, w)
    b.model_notes(req)
    training_notes(b, req)
    first = fits[0] if fits else None
    if first is not None and first.tight:
        b.caveat(
            "tight" if first.count == 1 else "tight_set",
            headroom=b.gb(first.headroom_gb),
            per_card=b.gb(first.headroom_gb / first.count),
        )
    if first is not None and first.fits:
        b.edge_note(first.vram_gb or 0.0, first.headroom_gb)
    answer = Answer(
        kind="fit",
        request=req,
        memory_gb=bd.as_dict(),
        recommendation=pick,
        alternatives=[],
        decode_tok_s=first.decode_tok_s if first else None,
        cluster_nodes=nodes,
        fit=first,
        fits=fits,
        kv_bytes_per_token=b.kv_per_token(req),
    )
    return b.finish(describe(b.voice, answer))


def limit(b: Builder, req: Request) -> Answer:
    assert req.model is not None
    if b.q.cards:
        card = b.cat.card_by_name[b.q.cards[0].name]
        count = b.q.cards[0].count or card.min_count
        label, cap = card.name, card.vram_gb * count
    elif b.q.vram_gb:
        label, count, cap = f"{b.num(b.q.vram_gb, 1)} GB", 1, b.q.vram_gb
    else:
        name = b.prev_card() or ""
        card = b.cat.card_by_name[name]
        count, label, cap = card.min_count, card.name, card.vram_gb * card.min_count
    inf = req.model_copy(update={"task": "inference"})
    bd = b.breakdown(inf)
    fixed = bd.parts["weights"] + bd.parts["overhead"]
    free = cap - fixed
    kvb = b.cat.kv_by_name[req.kv_dtype].bytes
    cap_ctx = req.model.max_context_tokens or MAX_CONTEXT_TOKENS
    mctx = max_context_tokens(req.model, free, kvb, req.batch, cap_ctx)
    mb = max_batch(req.model, free, kvb, req.context_tokens)
    if req.model.max_context_tokens and mctx >= req.model.max_context_tokens:
        b.caveat("limit_model_max", max=ctx_label(req.model.max_context_tokens))
    if free <= 0:
        b.caveat("limit_no_room", need=b.gb(fixed), cap=b.gb(cap))
    b.model_notes(inf)
    b.assumptions = [n for n in b.assumptions if n.code != "default_context"]
    answer = Answer(
        kind="limit",
        request=inf.model_copy(update={"card": label if b.q.cards else None}),
        memory_gb=bd.as_dict(),
        limit=Limit(
            card=label,
            count=count,
            max_context_tokens=mctx,
            max_batch=min(mb, MAX_BATCH),
        ),
        kv_bytes_per_token=b.kv_per_token(inf),
    )
    return b.finish(describe(b.voice, answer))

"""The answers about hardware already chosen: fit (does it fit, at which precision, and what
would make it fit) and limit (the longest context or most users it holds).
"""

from __future__ import annotations

from typing import Final

from engine.answer_new import new_answer
from engine.answer_types import Answer, Fit, FitChange, Limit, LimitOption, Pick, Request
from engine.kinds import ladder
from engine.kinds.base import Builder
from engine.kinds.base import as_float as _float
from engine.kinds.combos import training_changes
from engine.kinds.ladder import Hardware, Rung
from engine.kinds.mac import (
    gpu_share,
    mac_label,
    mac_name,
    mac_notes,
    raise_limit_mb,
    wired_limit_gb,
)
from engine.kinds.order import LOW_BITS
from engine.kinds.probe import engine_limits
from engine.kinds.rig import adjust, capacity_label, rig_cards, rig_of
from engine.kinds.rungs import really_lighter
from engine.kinds.sizing import training_notes
from engine.kinds.terms import hourly_note
from engine.limits import MAX_BATCH, MAX_CONTEXT_TOKENS
from engine.recommend import Workload, is_tight, recommend, set_price
from engine.sizing import max_batch, max_context_tokens
from engine.text.fit import describe_fit
from engine.text.limit import describe_limit
from engine.text.speed import lead_with, speed_lead
from engine.text.voice import ctx_label
from engine.understand.asks import asks_speed, bridge_said


def targets(b: Builder, req: Request) -> list[Hardware]:
    """The hardware the question names: cards with their counts, then a plain VRAM amount.

    (The asks read in place, with plain loops: no list of pairs per answer.)"""
    q = b.q
    cat = b.cat
    cards, owned_cards = cat.card_by_name, cat.owned_by_name
    out: list[Hardware] = []
    asks = q.cards
    if asks:
        for c in asks:
            if c.name in cards:
                out.append(ladder.card_hardware(cards[c.name], c.count))
    elif req.card and req.card in cards:
        out.append(ladder.card_hardware(cards[req.card], req.count))
    if q.owned:
        for c in q.owned:
            out.append(ladder.owned_hardware(owned_cards[c.name], c.count))
    elif asks:  # a follow-up's owned card
        for c in asks:
            if c.name in owned_cards:
                out.append(ladder.owned_hardware(owned_cards[c.name], c.count))
    elif req.card and req.card in owned_cards:
        out.append(ladder.owned_hardware(owned_cards[req.card], req.count))
    if q.vram_gb:
        out.append(ladder.capacity_hardware(capacity_label(b), q.vram_gb))
    return out


def _best_request(
    b: Builder, req: Request, shown_rungs: list[Rung] | None, best_at: int | None
) -> Request | None:
    """The request of the first rung that fits (None: none does), made only when asked for."""
    if best_at is None:
        return None
    return req if shown_rungs is None else ladder.rung_request(b, req, shown_rungs[best_at])


def rental_for(b: Builder, req: Request) -> Pick | None:
    """The cheapest rental that runs ``req`` (with its precision and need for the text)."""
    need = b.breakdown(req).total
    pick, _ = recommend(b.cat, b.workload(req, need))
    if pick is None:
        return None
    return pick.model_copy(update={"precision": req.precision, "need_gb": need})


def fit_on(b: Builder, hw: Hardware, req: Request, w: Workload) -> Fit:
    """Every rung of the ladder on ``hw``, the asked one's verdict, limits and the changes
    (``w``: the asked request's workload), in one pass over the rung table: the best rung's
    speed, limit and change are read from its row and the asked request's probe, and its
    request is made only when a rental must be found for it."""
    shown_rungs, options, asked_at, best_at = ladder.ladder_options(b, hw, req)
    # the asked request is one of the rungs when the hardware runs it: its option is that one
    asked = options[asked_at] if asked_at is not None else ladder.option(b, hw, req)
    fits = asked.fits
    best = options[best_at] if best_at is not None else None
    mctx = mbatch = 0
    shown_rung = None  # the rung the speed lines show: the asked one when it fits, else the best
    if shown_rungs is not None:  # inference: the limit searches read the asked request's probe
        p = ladder.probe(b, hw, req)  # its searches give 0 when the hardware cannot run it
        steps = ladder.context_cap(req) // ladder.CTX_STEP
        mctx = p.longest(req.batch, steps) * ladder.CTX_STEP
        mbatch = p.most_users(req.context_tokens)
        if best_at is not None:
            g = shown_rungs[best_at]  # it fits, so it runs: only its weights differ from req's
            best_ctx = (
                mctx if g.req is req else p.longest(req.batch, steps, g.weights) * ladder.CTX_STEP
            )
            # this call's own fresh option, not shared yet: its one late field filled in place
            options[best_at].__dict__["max_context_tokens"] = best_ctx
            shown_rung = g
        if fits and asked_at is not None:
            shown_rung = shown_rungs[asked_at]
    elif best is not None:  # a training request: no context search
        best.__dict__["max_context_tokens"] = 0
    is_offered, why = ladder.offered(hw, w)
    dec = dec_kv = None
    if shown_rung is not None:
        assert req.model is not None
        dec, dec_kv = ladder.rung_decode(hw, shown_rung, ladder.by_layers(hw, req.model))
    card = hw.card
    price = None
    if card is not None and is_offered:
        price = set_price(b.cat, card, hw.count)[2]
    rental = None
    if not (is_offered and fits):
        shown = req if fits else _best_request(b, req, shown_rungs, best_at)
        rental = rental_for(b, shown) if shown is not None else None
    headroom = asked.headroom_gb
    if fits:
        changes: list[FitChange] = []
    elif shown_rungs is None:  # a training run: its own slots
        changes = training_changes(b, hw, req)
    else:
        changes = ladder.changes(b, hw, req, best, mctx, mbatch, shown_rungs, asked_at)
    link, gbps = (card.interconnect, card.link_gbps) if card is not None else (None, None)
    if card is not None and card.bridge_gbps and hw.count == 2 and bridge_said(b.q.text):
        link, gbps = BRIDGE, card.bridge_gbps  # "my 3090s with NVLink"
    # Fit(...) made straight: every field given in declaration order, as one dict literal set
    # as its __dict__ (why: engine.frozen._SET). The sums here are floats already; a plain
    # VRAM amount (maybe asked as an int) keeps the generated __init__'s float step.
    f = _new(Fit)
    _set(
        f,
        "__dict__",
        {
            "card": hw.name,
            "count": hw.count,
            "fits": fits,
            "headroom_gb": headroom,
            "tight": fits and is_tight(headroom, hw.count),
            "monthly_usd": price,
            "reason": why,
            "vram_gb": _float(hw.vram_gb),
            "decode_tok_s": dec,
            "options": options,  # this call's own fresh lists
            "best": best,
            "offered": is_offered,
            "max_context_tokens": mctx,
            "max_batch": mbatch,
            "changes": changes,
            "rental": rental,
            "interconnect": link,
            "link_gbps": gbps,
            "decode_kv_tok_s": dec_kv,
            "precision": req.precision,
            "gpu_share_gb": None,
            "raise_limit_mb": None,
            "raised_max_context_tokens": None,
            "raised_max_batch": None,
            "mac": None,
        },
    )
    return f


def mac_fit(b: Builder, hw: Hardware, req: Request, w: Workload) -> Fit:
    """A Mac judged against the memory its GPU may use by default (what loads as it comes);
    when only the whole memory holds the asked request, the fit on the whole, with the
    `sysctl` value that allows it. ``vram_gb`` stays the whole memory (follow-ups keep it)."""
    vram = hw.vram_gb
    f = fit_on(b, ladder.capacity_hardware(hw.label, gpu_share(vram)), req, w)
    whole = None if f.fits else fit_on(b, hw, req, w)
    if whole is not None and whole.fits:  # judged on the limit it says to set, not the whole
        mb = raise_limit_mb(b.breakdown(req).total, vram)
        f = fit_on(b, ladder.capacity_hardware(hw.label, wired_limit_gb(mb)), req, w)
        f.__dict__["raise_limit_mb"] = mb
    elif f.fits and req.task == "inference":  # the limits once the limit is raised
        p = ladder.probe(b, hw, req)
        steps = ladder.context_cap(req) // ladder.CTX_STEP
        f.__dict__["raised_max_context_tokens"] = p.longest(req.batch, steps) * ladder.CTX_STEP
        f.__dict__["raised_max_batch"] = p.most_users(req.context_tokens)
    d = f.__dict__
    d["vram_gb"], d["gpu_share_gb"] = _float(vram), gpu_share(vram)
    d["card"] = mac_label(b, vram, None if f.raise_limit_mb else gpu_share(vram))
    d["mac"] = mac_name(b)
    mac_notes(b, f, whole)
    return f


_new: Final = object.__new__
_set: Final = object.__setattr__  # Frozen.__setattr__ refuses every assignment
BRIDGE: Final = "NVLink bridge (pairs)"  # a bridge the person says their pair has


def fit(b: Builder, req: Request) -> Answer:
    return b.finish(fit_answer(b, req))


def fit_answer(b: Builder, req: Request, on: list[Hardware] | None = None) -> Answer:
    """The fit answer, described but not finished; ``on``: the hardware to judge it on
    instead of what the question names (a "what to buy" answer's chosen setup)."""
    assert req.model is not None
    bd = b.breakdown(req)
    w = b.workload(req, bd.total)
    mine = rig_of(b) if on is None else None  # the person's own cards, as one (kinds/rig.py)
    hws = on if on is not None else [mine.hw] if mine is not None else targets(b, req)
    mac = b.q.unified and mine is None  # a Mac: its memory is the plain amount asked
    fits = [
        mac_fit(b, hw, req, w)
        if mac and hw.card is None and hw.owned is None
        else fit_on(b, hw, req, w)
        for hw in hws
    ]
    if mine is not None:
        fits = [adjust(b, mine, req, fits[0])]
    for f in fits:
        if f.reason:
            card = b.cat.card_by_name.get(f.card)
            least = card.min_count if card is not None else f.count  # "why.min_count"'s
            heads = req.model.attention_heads
            b.caveat(f"why.{f.reason}", card=f.card, count=f.count, heads=heads, min=least)
    pick, nodes = recommend(b.cat, w)
    if fits and fits[0].monthly_usd is not None:  # "per hour?": the asked set's price
        hourly_note(b, fits[0].card, fits[0].count, fits[0].monthly_usd)
    elif fits and fits[0].rental is not None:
        r = fits[0].rental
        hourly_note(b, r.card, r.count, r.monthly_usd)
    b.model_notes(req)
    training_notes(b, req)
    first = fits[0] if fits else None
    alts: list[Pick] = []
    if first is not None:
        if first.tight:
            b.tight_note(first.headroom_gb, first.count, req.task)
        if first.fits and b.served_by_vllm(req):
            b.edge_note(first.vram_gb or 0.0, first.headroom_gb, bd.total, w.needs_fp8)
        rental = first.rental
        if (
            rental is not None
            and pick is not None
            and (rental.card, rental.count) != (pick.card, pick.count)
            and rental.monthly_usd < pick.monthly_usd  # "cheaper in FP8" only when it is
        ):
            alts.append(rental.model_copy(update={"reason": "lower_precision"}))
        # a set's speed line names the link it crosses (engine/text/fit.py)
    answer = new_answer(
        {
            "kind": "fit",
            "request": req,
            "memory_gb": bd.as_dict(),
            "recommendation": pick,
            "alternatives": alts,
            "decode_tok_s": first.decode_tok_s if first else None,
            "decode_kv_tok_s": first.decode_kv_tok_s if first else None,
            "cluster_nodes": nodes,
            "fit": first,
            "fits": fits,
            "kv_bytes_per_token": b.kv_per_token(req),
            "rig": rig_cards(b, mine, req, fits[0]) if mine is not None else [],
        }
    )
    describe_fit(b.voice, answer)
    if on is None and asks_speed(b.q.text.lower()):  # "how fast", "tok/s": its speed first
        lead_with(answer, speed_lead(b.voice, answer))
    return answer


def limit_hardware(b: Builder) -> Hardware | None:
    q = b.q
    if (mine := rig_of(b)) is not None:  # a person's rig of different cards: one pool
        return mine.hw
    if q.cards:
        return ladder.card_hardware(b.cat.card_by_name[q.cards[0].name], q.cards[0].count)
    if q.owned:
        return ladder.owned_hardware(b.cat.owned_by_name[q.owned[0].name], q.owned[0].count)
    if q.vram_gb and q.unified:  # a Mac: judged against its GPU's default share
        label = mac_label(b, q.vram_gb, gpu_share(q.vram_gb))
        return ladder.capacity_hardware(label, gpu_share(q.vram_gb))
    if q.vram_gb:
        return ladder.capacity_hardware(capacity_label(b), q.vram_gb)
    prev = b.prev_set()
    if prev is None:
        return None
    mine_before = b.cat.owned_by_name.get(prev[0])  # "my 7900 xtx", then "how many users?"
    if mine_before is not None:
        return ladder.owned_hardware(mine_before, prev[1])
    return ladder.card_hardware(b.cat.card_by_name[prev[0]], prev[1])


def low_bit_options(b: Builder, hw: Hardware, inf: Request) -> list[LimitOption]:
    """The heaviest sub-4-bit GGUF type that holds one user at the asked context (with the
    quality caveat), for a limit question nothing on the ladder answers."""
    asked_bits = b.cat.precision_by_name[inf.precision].bits
    for name in LOW_BITS:
        fmt = b.cat.precision_by_name.get(name)
        if fmt is None or not really_lighter(fmt.bits, asked_bits):
            continue
        r = inf.model_copy(update={"precision": name, "weight_parts": None})
        users = ladder.max_users(b, hw, r)
        if users == 0:
            continue
        b.caveat("low_bits_limit", prec=name.upper())
        q8 = r.model_copy(update={"kv_dtype": "fp8"})  # as the ladder's rows
        most = ladder.max_context(b, hw, r)
        return [LimitOption(precision=name, max_context_tokens=most, max_batch=users,
                            max_batch_kv_fp8=ladder.max_users(b, hw, q8))]  # fmt: skip
    return []


def limit(b: Builder, req: Request) -> Answer:
    assert req.model is not None
    hw = limit_hardware(b)
    assert hw is not None
    inf = req.model_copy(update={"task": "inference"})
    bd = b.breakdown(inf)
    fixed = bd.parts["weights"] + bd.parts["overhead"]
    kvb = b.cat.kv_by_name[req.kv_dtype].bytes
    cap_ctx = req.model.max_context_tokens or MAX_CONTEXT_TOKENS
    if hw.count == 1:  # one card or a VRAM amount: the exact token count
        free = hw.vram_gb - fixed
        mctx = max_context_tokens(req.model, free, kvb, req.batch, cap_ctx)
        mb = min(max_batch(req.model, free, kvb, req.context_tokens), MAX_BATCH)
        if not ladder.runnable(b, hw, inf):
            mctx = mb = 0
    else:  # a set: judged card by card, as tensor parallelism splits (or copies) the cache
        can = ladder.runnable(b, hw, inf)
        mctx = ladder.max_context(b, hw, inf) if can else 0
        mb = ladder.max_users(b, hw, inf) if can else 0
    if req.model.max_context_tokens and mctx >= req.model.max_context_tokens:
        b.caveat("limit_model_max", max=ctx_label(req.model.max_context_tokens))
    if hw.vram_gb - fixed <= 0:
        b.caveat("limit_no_room", need=b.gb(fixed), cap=b.gb(hw.vram_gb))
    options: list[LimitOption] = []
    if mb == 0:
        for r in ladder.ladder_requests(b, hw, inf):
            if r.precision == inf.precision:
                continue
            users = ladder.max_users(b, hw, r)
            kv8 = r.model_copy(update={"kv_dtype": "fp8"})
            # a rung that holds a user only with an FP8 cache still fits ("and at 32k?" was
            # answered with INT4 and an FP8 KV cache): kept, so no sub-4-bit format is offered
            users_fp8 = ladder.max_users(b, hw, kv8) if r.kv_dtype != "fp8" else users
            if users == 0 and users_fp8 == 0:
                continue
            options.append(
                LimitOption(
                    precision=r.precision,
                    max_context_tokens=ladder.max_context(b, hw, r if users else kv8),
                    max_batch=users,
                    max_batch_kv_fp8=users_fp8,
                )
            )
    if mb == 0 and not options:  # no 4-bit format either: the heaviest one below 4 bits
        options += low_bit_options(b, hw, inf)
    b.model_notes(inf)
    if hw.fp8:  # the hardware runs FP8: the cards left out elsewhere do not matter here
        b.caveats = [n for n in b.caveats if n.code != "fp8_cards"]
    b.assumptions = [n for n in b.assumptions if n.code not in ("default_context", "default_users")]
    kv8 = inf.model_copy(update={"kv_dtype": "fp8"})
    users_kv8 = ladder.max_users(b, hw, kv8) if mb and inf.kv_dtype != "fp8" else None
    # the card asked about, or kept from the last question ("my 4090", then "how many users
    # at 16k?"): the next follow-up stays on it; a recommended card is not the asker's
    named = hw.card.name if hw.card is not None and b.q.cards else req.card
    ctx90, users90 = engine_limits(b, hw, inf, fixed) if mctx or mb else (0, 0)
    plain = hw.card is None and hw.owned is None and hw.fp8 is None
    mac = mac_limits(b, inf) if b.q.unified and plain else None
    if mac is not None:  # llama.cpp on a Mac: no 90% plan, the raised limit instead
        b.caveat("mac_gpu_share", usable=b.gb(hw.vram_gb), vram=b.gb(mac[0]))
        ctx90 = users90 = 0
    answer = Answer(
        kind="limit",
        request=inf.model_copy(update={"card": named}),
        memory_gb=bd.as_dict(),
        limit=Limit(
            card=hw.name,
            count=hw.count,
            max_context_tokens=mctx,
            max_batch=mb,
            options=options,
            engine_context_tokens=ctx90 if (mctx or mb) and mac is None else None,
            engine_batch=users90 if (mctx or mb) and mac is None else None,
            gpu_share_gb=hw.vram_gb if mac is not None else None,
            raised_context_tokens=mac[1] if mac is not None else None,
            raised_batch=mac[2] if mac is not None else None,
            # a plain amount (no card, no rig: the FP8 support is not known) is kept as such
            vram_gb=(mac[0] if mac is not None else hw.vram_gb) if plain else None,
            mac=mac_name(b) if mac is not None else None,
        ),
        kv_bytes_per_token=b.kv_per_token(inf),
    )
    return b.finish(describe_limit(b.voice, answer, b.q.wants_limit, users_kv8))


def mac_limits(b: Builder, req: Request) -> tuple[float, int, int]:
    """A Mac's whole memory, and the longest context and most users on it once the GPU limit
    is raised (the limit answer's own figures are at the default share)."""
    vram = b.q.vram_gb or 0.0
    whole = ladder.capacity_hardware(f"{b.num(vram, 1)} GB", vram)
    return vram, ladder.max_context(b, whole, req), ladder.max_users(b, whole, req)

"""Text of the answers about chosen hardware: the fit ladder and the limits, verdict first."""

from __future__ import annotations

from functools import partial
from typing import Final

from engine.answer_types import TWO_SLOTS, Answer, Fit, FitChange, Request
from engine.native import VLLM_DEFAULT_SHARE
from engine.recommend import NODE_CARDS, set_price
from engine.text.choose import choice, hw_label
from engine.text.formulas import math_lines
from engine.text.labels import alternatives_section, fit_line, memory_lines, pick_line
from engine.text.labels import request_label as _request_label
from engine.text.mac import mac_raised_line
from engine.text.rig import rig_lines, rig_speed
from engine.text.rooms import below, most_tail, tight_tail
from engine.text.voice import Voice, ctx_label, section


def cap_gb(f: Fit) -> float:
    """The memory the verdict was judged against: a Mac's GPU share unless it was raised."""
    if f.gpu_share_gb is not None and f.raise_limit_mb is None:
        return f.gpu_share_gb
    return f.vram_gb or 0.0


def headline(v: Voice, a: Answer) -> str:
    """The verdict and the best option, in one sentence or two."""
    req, f = a.request, a.fit
    assert req is not None and a.memory_gb is not None
    fill, gb = v.fill, v.gbs
    total = gb[a.memory_gb["total"]]
    several = len(a.fits) > 1  # a choice between cards; a change is said in full there
    if several and (picked := choice(v, a, total, partial(_say_change, v, req))) is not None:
        return picked
    if f is None:
        return fill["headline.fit_no:request,total,card"]((_request_label(v, req), total, "?"))
    hw = hw_label(f)
    if not f.fits and f.vram_gb and total == gb[cap_gb(f)]:
        total = v.nums[2][a.memory_gb["total"]]  # "needs 48.01 GB", not 48 against 48
    if req.task != "inference":
        spec = (
            "headline.fit_yes:request,total,card"
            if f.fits
            else "headline.fit_no:request,total,card"
        )
        if not f.fits and f.changes:  # the first change that makes it fit, said at once
            then = change_line(v, f.changes[0], f, req)
            spec = "headline.fit_no_then:request,total,card,change"
            return fill[spec]((_request_label(v, req), total, hw, then))
        return fill[spec]((_request_label(v, req), total, hw))
    if f.fits and f.raise_limit_mb is not None:  # a Mac, past its GPU's default share
        return v.t(
            "headline.mac_raise",
            request=_request_label(v, req),
            hw=hw,
            total=total,
            share=gb[f.gpu_share_gb or 0],
            headroom=v.rooms[f.headroom_gb],
            ctx=ctx_label(f.max_context_tokens or 0),
        )
    if f.fits:
        trained = req.model.max_context_tokens if req.model is not None else None
        if trained and req.context_tokens > trained:  # "up to 40k" would deny the 128k asked
            spec = "headline.ladder_yes_beyond:request,hw,total,headroom,ctx"
            room = v.rooms[f.headroom_gb]
            return fill[spec]((_request_label(v, req), hw, total, room, ctx_label(trained)))
        return fill["headline.ladder_yes:request,hw,total,headroom,ctx"](
            (
                _request_label(v, req),
                hw,
                total,
                v.rooms[f.headroom_gb],
                ctx_label(f.max_context_tokens or 0),
            )
        )
    lead = f.changes[0] if f.changes else None  # the smallest change (kinds/order.py)
    if f.best is not None and lead is not None and lead.change != "precision":
        text = fill["headline.ladder_change:prec,hw,total,cap,change"](
            (req.precision.upper(), hw, total, gb[f.vram_gb or 0], change_line(v, lead, f, req))
        )
        trained = (req.model.max_context_tokens if req.model else None) or lead.context_tokens
        past = lead.context_tokens > trained  # as ladder_best_beyond says it
        return text + (" " + v.t("headline.trained_for", ctx=ctx_label(trained)) if past else "")
    if f.best is not None:
        best = f.best
        trained = req.model.max_context_tokens if req.model is not None else None
        beyond = bool(trained) and req.context_tokens > (trained or 0)  # not "up to 40k"
        key = "headline.ladder_best_beyond" if beyond else "headline.ladder_best"
        text = fill[key + ":prec,hw,total,cap,best,best_total,headroom,ctx"](
            (
                req.precision.upper(),
                hw,
                total,
                gb[cap_gb(f)],
                best.precision.upper(),
                gb[best.total_gb],
                v.rooms[below(best.headroom_gb, f.count)],
                ctx_label((trained if beyond else best.max_context_tokens) or 0),
            )
        )
        return text + roomier(v, f)
    lowest = f.options[-1] if f.options else None
    plain = f.card not in v.cat.card_by_name and f.card not in v.cat.owned_by_name and not a.rig
    # asked at the lowest rung already: "even INT4 needs" would repeat the question's own
    # number; with a change of two slots, that change is said instead
    two = lead is not None and lead.change in TWO_SLOTS
    at_lowest = lowest is None or lowest.precision == req.precision or two
    spec = (
        ("headline.ladder_none_capacity", "headline.ladder_none")[not plain]
        + ("_lowest" if at_lowest else "")
        + ":request,total,hw,cap,lowest,lowest_total"
    )
    text = fill[spec](
        (
            _request_label(v, req),
            total,
            hw,
            gb[cap_gb(f)],
            (lowest.precision if lowest else req.precision).upper(),
            gb[lowest.total_gb] if lowest else total,
        )
    )
    return text + (" " + change_line(v, lead, f, req) if lead is not None else "")


def roomier(v: Voice, f: Fit) -> str:
    """The heavier rung that fits only at the edge, when the answer leads with a lighter one
    that has room; else, when the best rung leaves vLLM less than its 10%, the next rung
    that leaves more."""
    assert f.best is not None
    edge = None  # of the rungs passed over, the lightest: the one a step above the lead
    for o in f.options:
        if o.precision == f.best.precision:
            break
        if o.fits and (edge is None or o.total_gb < edge.total_gb):  # FP8 before INT8
            edge = o
    if edge is not None:  # passed over for the lead: said, never hidden
        line = v.fill["ladder.edge:prec,total,headroom"]
        room = v.rooms[below(edge.headroom_gb, f.count)]
        return " " + line((edge.precision.upper(), v.gbs[edge.total_gb], room))
    cap = cap_gb(f)
    if f.best.headroom_gb >= cap * VLLM_DEFAULT_SHARE:
        return ""
    for o in f.options:
        if o.fits and o.headroom_gb >= cap * VLLM_DEFAULT_SHARE:
            total, room = v.gbs[o.total_gb], v.rooms[o.headroom_gb]
            line = v.fill["ladder.roomier:prec,total,headroom"]
            return " " + line((o.precision.upper(), total, room))
    return ""


_CHANGES: Final = {  # each change's spec, written once
    k: f"change.{k}:prec,ctx,batch,count,card,total,headroom,heads"
    for k in (
        "precision",
        "kv_cache",
        "kv_cache_q8",
        "context",
        "batch",
        "batch_one",
        "cards",
        "cards_not_rented",
        "low_bits",
        "low_bits_kv",
    )
}


# a training run's changes, with the method they train with
_TRAINING: Final = {
    k: f"change.{k}:task,ctx,batch,total,headroom"
    for k in (
        "sequence",
        "train_batch",
        "batch_sequence",
        "method",
        "method_batch",
        "method_sequence",
    )
}


def _say_change(v: Voice, req: Request, c: FitChange, f: Fit) -> str:
    return change_line(v, c, f, req)


def change_line(v: Voice, c: FitChange, f: Fit, req: Request) -> str:
    """One change, said with its numbers; a tight one says so (SIZING.md rule 4)."""
    return _change_text(v, c, f, req) + tight_tail(v, c)


def _change_text(v: Voice, c: FitChange, f: Fit, req: Request) -> str:
    assert req.model is not None
    training = _TRAINING.get(c.change)
    if training is not None:
        task = v.const["task." + (c.task or req.task)]
        room = v.rooms[below(c.headroom_gb, c.count)]
        return v.fill[training](
            (task, ctx_label(c.context_tokens), c.batch, v.gbs[c.total_gb], room)
        )
    one = c.change in ("batch", "precision_batch") and c.batch == 1  # not "1 users"
    key = c.change + "_one" if one else c.change
    if c.kv_dtype == "q8_0" and key in ("kv_cache", "precision_kv"):  # llama.cpp's cache
        key += "_q8"
    card = v.cat.card_by_name.get(f.card) if key == "cards" else None
    if card is not None and c.count not in card.set_sizes:
        key = "cards_not_rented"  # a fleet card in a set we do not rent: physics only
    spec = _CHANGES.get(key) or f"change.{key}:prec,ctx,batch,count,card,total,headroom,heads"
    return v.fill[spec](
        (
            c.precision.upper(),
            ctx_label(c.context_tokens),
            c.batch,
            c.count,
            f.card,
            v.gbs[c.total_gb],
            v.rooms[below(c.headroom_gb, c.count)],
            req.model.attention_heads,
        )
    )


def ladder_lines(v: Voice, f: Fit) -> list[str]:
    gb, room = v.gbs, v.rooms  # bound once: a ladder has up to a dozen rungs
    fits = v.fill["ladder.fits:prec,total,headroom"]
    short = v.fill["ladder.short:prec,total,headroom"]
    return [
        fits((o.precision.upper(), gb[o.total_gb], room[o.headroom_gb]))
        if o.fits
        else short((o.precision.upper(), gb[o.total_gb], room[-o.headroom_gb]))
        for o in f.options
    ]


def speed_lines(v: Voice, f: Fit, heads: int = 0) -> list[str]:
    """The ceiling only for hardware that holds an option; a set names the link it crosses."""
    if not f.decode_tok_s:
        return []
    fill, num = v.fill, v.nums[0]
    shown = (f.precision or "bf16") if f.fits or f.best is None else f.best.precision
    tok = num[f.decode_tok_s]
    if f.count == 1 and f.decode_kv_tok_s:
        line = fill["decode.line_kv:tok,kv"]((tok, num[f.decode_kv_tok_s]))
    elif f.count == 1:
        line = fill["decode.line:tok"]((tok,))
    elif v.cat.precision_by_name[shown].gguf:  # llama.cpp: split by layers
        line = fill["decode.line_layers:tok,count"]((tok, f.count))
    elif heads and heads % f.count:  # no tensor parallelism: split by layers
        line = fill["decode.line_by_layers:tok,count"]((tok, f.count))
    elif f.link_gbps is None:  # an owned set: the link between the cards is not known
        line = fill["decode.line_set_plain:tok,count"]((tok, f.count))
    elif f.count > NODE_CARDS:  # nodes take their turns: one node's bandwidth per stream
        line = fill["decode.line_nodes:tok,count,node,link"](
            (tok, f.count, NODE_CARDS, v.link(f.interconnect))
        )
    else:
        line = fill["decode.line_set:tok,count,link,gbps"](
            (tok, f.count, v.link(f.interconnect), num[f.link_gbps or 0])
        )
    if f.decode_kv_tok_s and f.count > 1:  # the lower ceiling on the same line
        line += " · " + fill["decode.kv_line:tok"]((num[f.decode_kv_tok_s],))
    if not f.fits and f.best is not None:  # not the precision asked: the line names its own
        line = fill["decode.in:precision,line"]((shown.upper(), line[:1].lower() + line[1:]))
    return [line]


def owned_lines(v: Voice, f: Fit, req: Request) -> list[str]:
    """Physics and renting are separate facts: what the set holds, then whether we rent it."""
    assert req.model is not None
    out: list[str] = []
    cat, fill = v.cat, v.fill
    holds = f.fits or f.best is not None
    rented = f.offered is False and f.card in cat.card_by_name
    if f.count > 1 and holds and rented:
        heads = req.model.attention_heads
        spec = (
            "fit.owned_shard:hw,heads,link,gbps"  # training shards over any count (ZeRO-3)
            if req.task != "inference"
            else "fit.owned_tp:hw,heads,link,gbps"
            if heads % f.count == 0
            else "fit.owned_layers:hw,heads,link,gbps"
        )
        link, gbps = v.link(f.interconnect), v.nums[0][f.link_gbps or 0]
        if f.count > NODE_CARDS and req.task == "inference":  # servers: TP inside each
            line = fill["fit.owned_nodes:hw,link,gbps,node"]((hw_label(f), link, gbps, NODE_CARDS))
        else:
            line = fill[spec]((hw_label(f), heads, link, gbps))
        out.append(line)
    if rented and f.reason == "min_count":  # one card of a card rented only in sets
        card = cat.card_by_name[f.card]
        n = card.min_count
        price = v.usds[set_price(cat, card, n)[2]]
        out.append(fill["fit.sets_only:card,min,price"]((f.card, n, price)))
    elif rented and holds and f.reason not in ("no_fp8", "no_full_ft_sets"):  # those: the
        out.append(fill["fit.not_offered:hw"]((hw_label(f),)))  # caveat says; short: memory
    if (mine := cat.owned_by_name.get(f.card)) is not None:  # never rented: physics only
        vram, bw = v.nums[0][mine.vram_gb], v.nums[0][mine.bandwidth_gbps]
        out.append(fill["fit.owned_card:card,vram,bw"]((mine.name, vram, bw)))
    r = f.rental
    if r is not None and holds:
        out.append(
            fill["fit.rental:prec,hw,price"](
                (
                    (r.precision or "").upper(),
                    r.card if r.count == 1 else f"{r.count}× {r.card}",
                    v.usds[r.monthly_usd],
                )
            )
        )
    return out


def limits_line(v: Voice, f: Fit, req: Request, named: bool) -> str:
    """The longest context and the most users the hardware holds; ``named``: with its name
    ("On RTX 5090 in Q4_K_M: ..."), when several were asked about."""
    spec = (
        "fit.limits_one:prec,ctx,batch,users,at"
        if f.max_batch == 1
        else "fit.limits:prec,ctx,batch,users,at"
    )
    values = (
        req.precision.upper(),
        ctx_label(f.max_context_tokens or 0),
        req.batch,
        v.nums[0][f.max_batch or 0],
        ctx_label(req.context_tokens),
    )
    if named:
        return v.fill[spec.replace(":prec", "_on:card,prec")]((hw_label(f), *values))
    return v.fill[spec](values)


def _change_lines(v: Voice, f: Fit, req: Request) -> list[str]:
    """Each change's list line; ``most_tail`` is "" without a round cut: called only with one."""
    return [
        change_line(v, c, f, req) + most_tail(v, c)
        if c.max_context_tokens
        else change_line(v, c, f, req)
        for c in f.changes
    ]


def _fit_lines(v: Voice, a: Answer, f: Fit | None, req: Request) -> list[str]:
    """The fit block: each card's verdict, the owned and rented facts, limits and speed; a
    part with nothing to say for this answer (no rig, no Mac) is not called."""
    fit_lines = [fit_line(v, x) for x in a.fits]
    if a.rig:  # a rig: its cards (rig_lines has nothing to say otherwise: no call)
        fit_lines += rig_lines(v, a)
    if f is not None:
        if f.offered is False or f.rental is not None or f.card in v.cat.owned_by_name:
            fit_lines += owned_lines(v, f, req)
        if req.task == "inference":  # "A or B": each one that holds it, named
            several = len(a.fits) > 1
            for x in a.fits if several else [f]:
                if x.fits:
                    fit_lines.append(limits_line(v, x, req, several))
                    if x.raised_max_context_tokens is not None:  # a Mac's: else no line
                        fit_lines += mac_raised_line(v, x, req)
        if f.decode_tok_s:
            assert req.model is not None
            heads = req.model.attention_heads
            fit_lines += rig_speed(v, f) if a.rig else speed_lines(v, f, heads)
    return fit_lines


def describe_fit(v: Voice, a: Answer) -> Answer:
    req, f = a.request, a.fit
    assert req is not None
    fill, const = v.fill, v.const
    sections = [section(const["section.fit"], _fit_lines(v, a, f, req))]
    if f is not None and f.changes:
        sections.append(section(const["section.changes"], _change_lines(v, f, req)))
    if f is not None and not f.fits and len(f.options) > 1:  # when it fits, the JSON has them
        title = v.ones["section.ladder:hw"][hw_label(f)]
        sections.append(section(title, ladder_lines(v, f)))
    sections.append(section(const["section.memory"], memory_lines(v, a)))
    card_lines: list[str] = []
    if a.recommendation is not None:
        card_lines.append(pick_line(v, a.recommendation))
    elif a.cluster_nodes:
        cluster = v.cat.fleet.cluster.card
        card_lines.append(fill["pick.cluster:nodes,card"]((a.cluster_nodes, cluster)))
    sections.append(section(const["section.cheapest"], card_lines))
    if a.alternatives:
        sections.extend(alternatives_section(v, a.alternatives))
    # the caller hands over an answer it has just built and nothing else holds: filled in
    # place, not copied
    d = a.__dict__
    d["headline"] = headline(v, a)
    d["sections"] = sections
    d["math"] = math_lines(v, a)
    return a

"""Text of the answers about chosen hardware: the fit ladder and the limits, verdict first."""

from __future__ import annotations

from typing import Any

from engine.answer_types import Answer, Fit, FitChange, Request, Section
from engine.native import VLLM_DEFAULT_SHARE
from engine.text.formulas import math_lines
from engine.text.labels import alternatives_section, fit_line, memory_lines, pick_line
from engine.text.labels import request_label as _request_label
from engine.text.voice import Voice, ctx_label


def hw_label(f: Fit) -> str:
    return f.card if f.count == 1 else f"{f.count}× {f.card}"


def headline(v: Voice, a: Answer) -> str:
    """The verdict and the best option, in one sentence or two."""
    req, f = a.request, a.fit
    assert req is not None and a.memory_gb is not None
    total = a.memory_gb["total"]
    if f is None:
        return v.t("headline.fit_no", request=_request_label(v, req), total=v.gb(total), card="?")
    hw = hw_label(f)
    if req.task != "inference":
        key = "headline.fit_yes" if f.fits else "headline.fit_no"
        return v.t(key, request=_request_label(v, req), total=v.gb(total), card=hw)
    if f.fits:
        return v.t(
            "headline.ladder_yes",
            request=_request_label(v, req),
            hw=hw,
            total=v.gb(total),
            headroom=v.room(f.headroom_gb),
            ctx=ctx_label(f.max_context_tokens or 0),
        )
    if f.best is not None:
        text = v.t(
            "headline.ladder_best",
            prec=req.precision.upper(),
            total=v.gb(total),
            hw=hw,
            cap=v.gb(f.vram_gb or 0),
            best=f.best.precision.upper(),
            best_total=v.gb(f.best.total_gb),
            headroom=v.room(f.best.headroom_gb),
            ctx=ctx_label(f.best.max_context_tokens or 0),
        )
        return text + roomier(v, f)
    lowest = f.options[-1] if f.options else None
    plain = f.card not in v.cat.card_by_name and f.card not in v.cat.owned_by_name
    return v.t(
        "headline.ladder_none_capacity" if plain else "headline.ladder_none",
        request=_request_label(v, req),
        total=v.gb(total),
        hw=hw,
        cap=v.gb(f.vram_gb or 0),
        lowest=(lowest.precision if lowest else req.precision).upper(),
        lowest_total=v.gb(lowest.total_gb if lowest else total),
    )


def roomier(v: Voice, f: Fit) -> str:
    """When the best rung leaves vLLM less than its 10%, the next rung that leaves more."""
    assert f.best is not None
    cap = f.vram_gb or 0
    if f.best.headroom_gb >= cap * VLLM_DEFAULT_SHARE:
        return ""
    for o in f.options:
        if o.fits and o.headroom_gb >= cap * VLLM_DEFAULT_SHARE:
            total, room = v.gb(o.total_gb), v.room(o.headroom_gb)
            return " " + v.t("ladder.roomier", prec=o.precision.upper(), total=total, headroom=room)
    return ""


def change_line(v: Voice, c: FitChange, f: Fit, req: Request) -> str:
    assert req.model is not None
    one = c.change == "batch" and c.batch == 1  # "one user at a time", not "1 users"
    return v.t(
        "change.batch_one" if one else f"change.{c.change}",
        prec=c.precision.upper(),
        ctx=ctx_label(c.context_tokens),
        batch=c.batch,
        count=c.count,
        card=f.card,
        total=v.gb(c.total_gb),
        headroom=v.room(c.headroom_gb),
        heads=req.model.attention_heads,
    )


def ladder_lines(v: Voice, f: Fit) -> list[str]:
    t, gb, room = v.t, v.gb, v.room  # bound once: a ladder has up to a dozen rungs
    return [
        t(
            "ladder.fits" if o.fits else "ladder.short",
            prec=o.precision.upper(),
            total=gb(o.total_gb),
            headroom=room(o.headroom_gb) if o.fits else gb(-o.headroom_gb),
        )
        for o in f.options
    ]


def speed_lines(v: Voice, f: Fit) -> list[str]:
    """The ceiling only for hardware that holds an option; a set names the link it crosses."""
    if not f.decode_tok_s:
        return []
    shown = (f.precision or "bf16") if f.fits or f.best is None else f.best.precision
    if f.count == 1 and f.decode_kv_tok_s:
        kv = v.num(f.decode_kv_tok_s)
        return [v.t("decode.line_kv", tok=v.num(f.decode_tok_s), kv=kv)]
    if f.count == 1:
        lines = [v.t("decode.line", tok=v.num(f.decode_tok_s))]
    elif v.cat.precision_by_name[shown].gguf:  # llama.cpp: split by layers
        lines = [v.t("decode.line_layers", tok=v.num(f.decode_tok_s), count=f.count)]
    elif f.link_gbps is None:  # an owned set: the link between the cards is not known
        lines = [v.t("decode.line_set_plain", tok=v.num(f.decode_tok_s), count=f.count)]
    else:
        lines = [
            v.t(
                "decode.line_set",
                tok=v.num(f.decode_tok_s),
                count=f.count,
                link=v.link(f.interconnect),
                gbps=v.num(f.link_gbps or 0),
            )
        ]
    if f.decode_kv_tok_s:  # the lower ceiling on the same line
        lines[-1] += " · " + v.t("decode.kv_line", tok=v.num(f.decode_kv_tok_s))
    return lines


def owned_lines(v: Voice, f: Fit, req: Request) -> list[str]:
    """Physics and renting are separate facts: what the set holds, then whether we rent it."""
    assert req.model is not None
    out: list[str] = []
    holds = f.fits or f.best is not None
    if f.count > 1 and holds and f.offered is False and f.card in v.cat.card_by_name:
        heads = req.model.attention_heads
        key = "fit.owned_tp" if heads % f.count == 0 else "fit.owned_layers"
        out.append(
            v.t(
                key,
                hw=hw_label(f),
                heads=heads,
                link=v.link(f.interconnect),
                gbps=v.num(f.link_gbps or 0),
            )
        )
    if f.offered is False and f.card in v.cat.card_by_name:
        out.append(v.t("fit.not_offered", hw=hw_label(f)))
    if (mine := v.cat.owned_by_name.get(f.card)) is not None:  # never rented: physics only
        bw = v.num(mine.bandwidth_gbps)
        out.append(v.t("fit.owned_card", card=mine.name, vram=v.num(mine.vram_gb), bw=bw))
    r = f.rental
    if r is not None and holds:
        out.append(
            v.t(
                "fit.rental",
                prec=(r.precision or "").upper(),
                hw=r.card if r.count == 1 else f"{r.count}× {r.card}",
                price=v.usd(r.monthly_usd),
            )
        )
    return out


def describe_fit(v: Voice, a: Answer) -> Answer:
    req, f = a.request, a.fit
    assert req is not None
    fit_lines = [fit_line(v, x) for x in a.fits]
    if f is not None:
        fit_lines += owned_lines(v, f, req)
        if f.fits and req.task == "inference":
            fit_lines.append(
                v.t(
                    "fit.limits_one" if f.max_batch == 1 else "fit.limits",
                    prec=req.precision.upper(),
                    ctx=ctx_label(f.max_context_tokens or 0),
                    batch=req.batch,
                    users=v.num(f.max_batch or 0),
                    at=ctx_label(req.context_tokens),
                )
            )
        fit_lines += speed_lines(v, f)
    sections = [Section.model_construct(title=v.t("section.fit"), lines=fit_lines)]
    if f is not None and f.changes:
        lines = [change_line(v, c, f, req) for c in f.changes]
        sections.append(Section.model_construct(title=v.t("section.changes"), lines=lines))
    if f is not None and not f.fits and len(f.options) > 1:  # when it fits, the JSON has them
        sections.append(
            Section.model_construct(
                title=v.t("section.ladder", hw=hw_label(f)), lines=ladder_lines(v, f)
            )
        )
    sections.append(Section.model_construct(title=v.t("section.memory"), lines=memory_lines(v, a)))
    card_lines: list[str] = []
    if a.recommendation is not None:
        card_lines.append(pick_line(v, a.recommendation))
    elif a.cluster_nodes:
        card_lines.append(v.t("pick.cluster", nodes=a.cluster_nodes, card=v.cat.fleet.cluster.card))
    sections.append(Section.model_construct(title=v.t("section.cheapest"), lines=card_lines))
    sections.extend(alternatives_section(v, a.alternatives))
    upd: dict[str, Any] = {
        "headline": headline(v, a),
        "sections": sections,
        "math": math_lines(v, a),
    }
    return a.model_copy(update=upd)

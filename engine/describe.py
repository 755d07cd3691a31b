"""Text blocks of an answer: headline, sections and the "show the math" lines.

Pure presentation of numbers the builder already computed; every word comes from the
message tables, every number is rounded half-up here and nowhere earlier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import native
from engine.models import Answer, Fit, Pick, Request, Section
from engine.sizing import (
    ADAPTER_BYTES,
    ADAPTER_FRACTION,
    FULL_FT_ACTIVATION_SHARE,
    GB,
    KV_K_AND_V,
    LORA_BASE_BYTES,
    QUICK_RULE_MARGIN,
    full_ft_bytes_per_param,
)

if TYPE_CHECKING:
    from engine.answer import _Builder


def _ctx(tokens: int) -> str:
    from engine.answer import ctx_label

    return ctx_label(tokens)


def model_label(b: _Builder, req: Request) -> str:
    assert req.model is not None
    if req.model.name:
        return req.model.name
    return b.t("label.bare_size", size=b.num(req.model.params_b, 1))


def request_label(b: _Builder, req: Request) -> str:
    parts = [model_label(b, req)]
    if req.task == "inference":
        parts.append(req.precision.upper())
        parts.append(b.t("label.context", ctx=_ctx(req.context_tokens)))
        if req.batch > 1:
            parts.append(b.t("label.batch", batch=req.batch))
        if req.kv_dtype != "fp16":
            parts.append(b.t("label.kv", kv=req.kv_dtype.upper()))
    else:
        parts.append(b.t(f"task.{req.task}"))
        parts.append(b.t("label.seq", seq=_ctx(req.context_tokens)))
        if req.batch > 1:
            parts.append(b.t("label.batch", batch=req.batch))
    return " · ".join(parts)


def pick_line(b: _Builder, p: Pick) -> str:
    vram = b.cat.card_by_name[p.card].vram_gb * p.count
    key = "pick.single" if p.count == 1 else "pick.set"
    text = b.t(
        key,
        count=p.count,
        card=p.card,
        vram=b.gb(vram),
        price=b.usd(p.monthly_usd),
        headroom=b.gb(p.headroom_gb),
    )
    if p.discount_pct:
        text += " " + b.t("pick.discount", pct=b.num(p.discount_pct), list=b.usd(p.list_usd or 0))
    if p.hourly_usd is not None:
        text += " " + b.t("pick.hourly", price=b.usd(p.hourly_usd))
    if p.tight:
        text += " " + b.t("pick.tight")
    return text


def alt_line(b: _Builder, p: Pick) -> str:
    base = pick_line(b, p)
    reason = b.t(f"alt.{p.reason}", precision=(p.precision or "").upper())
    if p.decode_tok_s:
        reason += " " + b.t("alt.decode", tok=b.num(p.decode_tok_s))
    return f"{base}: {reason}"


def memory_lines(b: _Builder, a: Answer) -> list[str]:
    mem = a.memory_gb or {}
    order = [
        "weights",
        "kv_cache",
        "gradients",
        "master_weights",
        "optimizer",
        "adapters",
        "activations",
        "overhead",
    ]
    lines = [b.t("mem.line", part=b.t(f"mem.{k}"), gb=b.gb(mem[k])) for k in order if k in mem]
    lines.append(b.t("mem.total", gb=b.gb(mem.get("total", 0))))
    if a.quick_rule_gb is not None:
        lines.append(b.t("mem.quick_rule", gb=b.gb(a.quick_rule_gb)))
    return lines


def fit_line(b: _Builder, f: Fit) -> str:
    key = ("fit.yes_tight" if f.tight else "fit.yes") if f.fits else "fit.no"
    return b.t(
        key,
        card=f.card if f.count == 1 else f"{f.count}× {f.card}",
        headroom=b.gb(abs(f.headroom_gb)),
        cap=b.gb(f.vram_gb or 0),
    )


def describe(b: _Builder, a: Answer) -> Answer:
    upd: dict[str, Any] = {}
    if a.kind in ("sizing", "fit") and a.request is not None:
        upd = _sizing_blocks(b, a)
    elif a.kind == "limit":
        upd = _limit_blocks(b, a)
    elif a.kind == "card" and a.card is not None:
        upd = _card_blocks(b, a)
    elif a.kind == "cards":
        upd = _cards_blocks(b, a)
    elif a.kind in ("budget", "capacity"):
        upd = _budget_blocks(b, a)
    return a.model_copy(update=upd)


def _sizing_blocks(b: _Builder, a: Answer) -> dict[str, Any]:
    req = a.request
    assert req is not None and a.memory_gb is not None
    total = a.memory_gb["total"]
    sections = [Section.model_construct(title=b.t("section.memory"), lines=memory_lines(b, a))]
    if a.kind == "fit":
        lines = [fit_line(b, f) for f in a.fits]
        if a.fit and a.fit.decode_tok_s:
            lines.append(b.t("decode.line", tok=b.num(a.fit.decode_tok_s)))
        sections.append(Section.model_construct(title=b.t("section.fit"), lines=lines))
        first = a.fit
        head_key = "headline.fit_yes" if first and first.fits else "headline.fit_no"
        where = "?"
        if first is not None:
            where = first.card if first.count == 1 else f"{first.count}× {first.card}"
        headline = b.t(head_key, request=request_label(b, req), total=b.gb(total), card=where)
    else:
        headline = b.t("headline.sizing", request=request_label(b, req), total=b.gb(total))
    card_lines: list[str] = []
    if a.recommendation is not None:
        card_lines.append(pick_line(b, a.recommendation))
        if a.recommendation.decode_tok_s and a.kind != "fit":
            card_lines.append(b.t("decode.line", tok=b.num(a.recommendation.decode_tok_s)))
    elif a.cluster_nodes:
        card_lines.append(b.t("pick.cluster", nodes=a.cluster_nodes, card=b.cat.fleet.cluster.card))
    title = "section.cheapest" if a.kind == "fit" else "section.card"
    sections.append(Section.model_construct(title=b.t(title), lines=card_lines))
    if a.alternatives:
        sections.append(
            Section.model_construct(
                title=b.t("section.alternatives"), lines=[alt_line(b, p) for p in a.alternatives]
            )
        )
    return {"headline": headline, "sections": sections, "math": math_lines(b, a)}


def math_lines(b: _Builder, a: Answer) -> list[str]:
    """The formula with this question's numbers filled in, plus where the shape came from."""
    req = a.request
    assert req is not None and req.model is not None and a.memory_gb is not None
    m = req.model
    mem = a.memory_gb
    lines: list[str] = []
    if req.task == "inference":
        prec = b.cat.precision_by_name[req.precision]
        kvb = b.cat.kv_by_name[req.kv_dtype].bytes
        lines.append(
            b.t(
                "math.weights",
                params=b.num(m.params_b, 2),
                bpp=b.num(mem["weights"] / m.params_b, 4),
                prec=(
                    req.precision.upper()
                    if req.weight_parts is None
                    else native.parts_label(b.cat, b.lang, req.weight_parts)
                ),
                gb=b.num(mem["weights"], 2),
            )
        )
        if m.mla is not None:
            lines.append(
                b.t(
                    "math.kv_mla",
                    layers=m.layers,
                    rank=m.mla.kv_lora_rank,
                    rope=m.mla.qk_rope_head_dim,
                    bytes=b.num(kvb),
                    ctx=b.num(req.context_tokens),
                    batch=req.batch,
                    gb=b.num(mem["kv_cache"], 2),
                )
            )
        else:
            lines.append(
                b.t(
                    "math.kv",
                    two=KV_K_AND_V,
                    layers=m.layers,
                    kv_heads=m.kv_heads,
                    head_dim=m.head_dim,
                    bytes=b.num(kvb),
                    ctx=b.num(req.context_tokens),
                    batch=req.batch,
                    gb=b.num(mem["kv_cache"], 2),
                )
            )
            if m.sliding_layers and m.sliding_window:
                lines.append(
                    b.t(
                        "math.kv_window",
                        layers=m.sliding_layers,
                        window=b.num(m.sliding_window),
                    )
                )
        if a.kv_bytes_per_token is not None:
            lines.append(
                b.t(
                    "math.kv_per_token",
                    bytes=b.num(a.kv_bytes_per_token),
                    mb=b.num(a.kv_bytes_per_token / 1e6, 2),
                )
            )
        lines.append(b.t("math.overhead", gb=b.num(mem["overhead"])))
        lines.append(b.t("math.total", gb=b.num(mem["total"], 2)))
        if a.quick_rule_gb is not None:
            lines.append(
                b.t(
                    "math.quick_rule",
                    params=b.num(m.params_b, 2),
                    bpp=b.num(prec.bytes_per_param, 4),
                    margin=b.num(QUICK_RULE_MARGIN, 1),
                    gb=b.num(a.quick_rule_gb, 2),
                )
            )
    elif req.task == "full":
        lines.append(
            b.t(
                "math.full",
                params=b.num(m.params_b, 2),
                bytes=b.num(full_ft_bytes_per_param()),
                share=b.num(FULL_FT_ACTIVATION_SHARE * 100),
                gb=b.num(mem["total"], 2),
            )
        )
    else:
        lines.append(
            b.t(
                "math.lora",
                params=b.num(m.params_b, 2),
                base=b.num(LORA_BASE_BYTES[req.task], 1),
                frac=b.num(ADAPTER_FRACTION * 100, 1),
                abytes=b.num(ADAPTER_BYTES),
                act=b.num(mem["activations"], 2),
                layers=m.layers,
                gb=b.num(mem["total"], 2),
            )
        )
    p = a.recommendation
    if p is not None:
        card = b.cat.card_by_name[p.card]
        lines.append(
            b.t(
                "math.price",
                count=p.count,
                monthly=b.usd(card.monthly_usd),
                pct=b.num(p.discount_pct),
                price=b.num(p.monthly_usd, 2),
            )
        )
        if p.decode_tok_s and req.task == "inference":
            lines.append(
                b.t(
                    "math.decode",
                    bw=b.num(card.bandwidth_gbps * p.count),
                    gb=b.num(native.read_per_token_gb(b.cat, req), 2),
                    tok=b.num(p.decode_tok_s, 1),
                )
            )
    shape = m.shape_source or "?"
    key = "math.shape_assumed" if m.assumed else "math.shape_source"
    lines.append(
        b.t(
            key,
            layers=m.layers,
            heads=m.attention_heads,
            kv_heads=m.kv_heads,
            head_dim=m.head_dim,
            source=shape,
        )
    )
    lines.append(b.t("math.units", gb=b.num(GB)))
    return lines


def _limit_blocks(b: _Builder, a: Answer) -> dict[str, Any]:
    req, lim = a.request, a.limit
    assert req is not None and lim is not None and a.memory_gb is not None
    card = lim.card if lim.count == 1 else f"{lim.count}× {lim.card}"
    lines = [
        b.t(
            "limit.context",
            tokens=b.num(lim.max_context_tokens or 0),
            label=f"{(lim.max_context_tokens or 0) / 1024:.0f}k",
            batch=req.batch,
        ),
        b.t("limit.batch", batch=b.num(lim.max_batch or 0), ctx=_ctx(req.context_tokens)),
    ]
    headline = b.t(
        "headline.limit", card=card, model=model_label(b, req), prec=req.precision.upper()
    )
    mem = a.memory_gb
    sections = [
        Section.model_construct(title=b.t("section.limit"), lines=lines),
        Section.model_construct(
            title=b.t("section.memory"),
            lines=[
                b.t("mem.line", part=b.t("mem.weights"), gb=b.gb(mem["weights"])),
                b.t("mem.line", part=b.t("mem.overhead"), gb=b.gb(mem["overhead"])),
            ],
        ),
    ]
    per_token = a.kv_bytes_per_token or 0
    mathl = [
        b.t(
            "math.limit",
            bytes=b.num(per_token),
            free=b.num(max(0.0, (lim.max_context_tokens or 0) * per_token * req.batch / GB), 2),
        )
    ]
    return {"headline": headline, "sections": sections, "math": mathl}


def card_lines(b: _Builder, c: Any) -> list[str]:
    return [
        b.t("card.memory", vram=b.gb(c.vram_gb), type=c.memory_type, bw=b.num(c.bandwidth_gbps)),
        b.t("card.price", price=b.usd(c.monthly_usd), hour=b.usd(c.usd_per_gpu_hour)),
        b.t("card.econ", per_gb=b.usd(c.usd_per_gb_month), per_usd=b.num(c.gbps_per_usd_month, 2)),
        b.t("card.fp8_yes" if c.fp8 else "card.fp8_no"),
        b.t("card.platform", platform=c.platform, arch=c.arch),
        b.t("card.sets", sizes=", ".join(str(n) for n in c.set_sizes) or "1", min=c.min_count),
        b.t("card.link", link=c.interconnect or "PCIe", gbps=b.num(c.link_gbps or 0)),
        b.t("card.regions", regions=", ".join(c.regions)),
    ]


def _card_blocks(b: _Builder, a: Answer) -> dict[str, Any]:
    c = a.card
    assert c is not None
    return {
        "headline": b.t(
            "headline.card", card=c.name, vram=b.gb(c.vram_gb), price=b.usd(c.monthly_usd)
        ),
        "sections": [Section.model_construct(title="", lines=card_lines(b, c))],
    }


def _cards_blocks(b: _Builder, a: Answer) -> dict[str, Any]:
    lines = [
        b.t(
            "cards.row",
            card=c.name,
            vram=b.gb(c.vram_gb),
            bw=b.num(c.bandwidth_gbps),
            price=b.usd(c.monthly_usd),
            per_gb=b.usd(c.usd_per_gb_month),
            per_usd=b.num(c.gbps_per_usd_month, 2),
            hour=b.usd(c.usd_per_gpu_hour),
            fp8="FP8" if c.fp8 else "—",
        )
        for c in a.cards
    ]
    return {
        "headline": b.t("headline.cards", n=len(a.cards)),
        "sections": [Section.model_construct(title=b.t("cards.header"), lines=lines)],
    }


def _budget_blocks(b: _Builder, a: Answer) -> dict[str, Any]:
    lines = [
        b.t(
            "budget.row",
            model=o.model,
            prec=o.precision.upper(),
            need=b.gb(o.need_gb),
            card=o.card if o.count == 1 else f"{o.count}× {o.card}",
            price=b.usd(o.monthly_usd),
        )
        for o in a.budget
    ]
    if not lines:
        lines = [b.t("budget.none")]
    if a.kind == "capacity" and a.fit is not None:
        key = "headline.capacity_vram" if a.fit.card.endswith(" GB") else "headline.capacity"
        headline = b.t(key, card=a.fit.card, vram=b.gb(a.fit.vram_gb or 0))
    else:
        headline = b.t("headline.budget", budget=b.usd(a.budget_usd or 0))
    return {
        "headline": headline,
        "sections": [Section.model_construct(title="", lines=lines)],
    }

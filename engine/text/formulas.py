""" "Show the math": the formulas with this question's numbers filled in, and where the model
shape came from.
"""

from __future__ import annotations

from engine import native
from engine.answer_types import Answer
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
from engine.text.voice import Voice


def math_lines(v: Voice, a: Answer) -> list[str]:
    """The formula with this question's numbers filled in, plus where the shape came from."""
    req = a.request
    assert req is not None and req.model is not None and a.memory_gb is not None
    m = req.model
    mem = a.memory_gb
    lines: list[str] = []
    if req.task == "inference":
        prec = v.cat.precision_by_name[req.precision]
        kvb = v.cat.kv_by_name[req.kv_dtype].bytes
        lines.append(
            v.t(
                "math.weights",
                params=v.num(m.params_b, 2),
                bpp=v.num(mem["weights"] / m.params_b, 4),
                prec=(
                    req.precision.upper()
                    if req.weight_parts is None
                    else native.parts_label(v.cat, v.lang, req.weight_parts)
                ),
                gb=v.num(mem["weights"], 2),
            )
        )
        if m.mla is not None:
            lines.append(
                v.t(
                    "math.kv_mla",
                    layers=m.layers,
                    rank=m.mla.kv_lora_rank,
                    rope=m.mla.qk_rope_head_dim,
                    bytes=v.num(kvb),
                    ctx=v.num(req.context_tokens),
                    batch=req.batch,
                    gb=v.num(mem["kv_cache"], 2),
                )
            )
        else:
            lines.append(
                v.t(
                    "math.kv",
                    two=KV_K_AND_V,
                    layers=m.layers,
                    kv_heads=m.kv_heads,
                    head_dim=m.head_dim,
                    bytes=v.num(kvb),
                    ctx=v.num(req.context_tokens),
                    batch=req.batch,
                    gb=v.num(mem["kv_cache"], 2),
                )
            )
            if m.sliding_layers and m.sliding_window:
                lines.append(
                    v.t(
                        "math.kv_window",
                        layers=m.sliding_layers,
                        window=v.num(m.sliding_window),
                    )
                )
        if a.kv_bytes_per_token is not None:
            lines.append(
                v.t(
                    "math.kv_per_token",
                    bytes=v.num(a.kv_bytes_per_token),
                    mb=v.num(a.kv_bytes_per_token / 1e6, 2),
                )
            )
        lines.append(v.t("math.overhead", gb=v.num(mem["overhead"])))
        lines.append(v.t("math.total", gb=v.num(mem["total"], 2)))
        if a.quick_rule_gb is not None:
            lines.append(
                v.t(
                    "math.quick_rule",
                    params=v.num(m.params_b, 2),
                    bpp=v.num(prec.bytes_per_param, 4),
                    margin=v.num(QUICK_RULE_MARGIN, 1),
                    gb=v.num(a.quick_rule_gb, 2),
                )
            )
    elif req.task == "full":
        lines.append(
            v.t(
                "math.full",
                params=v.num(m.params_b, 2),
                bytes=v.num(full_ft_bytes_per_param()),
                share=v.num(FULL_FT_ACTIVATION_SHARE * 100),
                gb=v.num(mem["total"], 2),
            )
        )
    else:
        lines.append(
            v.t(
                "math.lora",
                params=v.num(m.params_b, 2),
                base=v.num(LORA_BASE_BYTES[req.task], 1),
                frac=v.num(ADAPTER_FRACTION * 100, 1),
                abytes=v.num(ADAPTER_BYTES),
                act=v.num(mem["activations"], 2),
                layers=m.layers,
                gb=v.num(mem["total"], 2),
            )
        )
    p = a.recommendation
    if p is not None:
        card = v.cat.card_by_name[p.card]
        lines.append(
            v.t(
                "math.price",
                count=p.count,
                monthly=v.usd(card.monthly_usd),
                pct=v.num(p.discount_pct),
                price=v.num(p.monthly_usd, 2),
            )
        )
        if p.decode_tok_s and req.task == "inference":
            lines.append(
                v.t(
                    "math.decode",
                    bw=v.num(card.bandwidth_gbps * p.count),
                    gb=v.num(native.read_per_token_gb(v.cat, req), 2),
                    tok=v.num(p.decode_tok_s, 1),
                )
            )
    shape = m.shape_source or "?"
    key = "math.shape_assumed" if m.assumed else "math.shape_source"
    lines.append(
        v.t(
            key,
            layers=m.layers,
            heads=m.attention_heads,
            kv_heads=m.kv_heads,
            head_dim=m.head_dim,
            source=shape,
        )
    )
    lines.append(v.t("math.units", gb=v.num(GB)))
    return lines

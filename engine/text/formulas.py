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
    t, num, usd = v.t, v.num, v.usd  # bound once: about 30 calls per answer
    mem = a.memory_gb
    lines: list[str] = []
    if req.task == "inference":
        prec = v.cat.precision_by_name[req.precision]
        kvb = v.cat.kv_by_name[req.kv_dtype].bytes
        lines.append(
            t(
                "math.weights",
                params=num(m.params_b, 2),
                bpp=num(mem["weights"] / m.params_b, 4),
                prec=(
                    req.precision.upper()
                    if req.weight_parts is None
                    else native.parts_label(v.cat, v.lang, req.weight_parts)
                ),
                gb=num(mem["weights"], 2),
            )
        )
        if m.mla is not None:
            lines.append(
                t(
                    "math.kv_mla",
                    layers=m.layers,
                    rank=m.mla.kv_lora_rank,
                    rope=m.mla.qk_rope_head_dim,
                    bytes=num(kvb),
                    ctx=num(req.context_tokens),
                    batch=req.batch,
                    gb=num(mem["kv_cache"], 2),
                )
            )
        else:
            lines.append(
                t(
                    "math.kv",
                    two=KV_K_AND_V,
                    layers=m.layers,
                    kv_heads=m.kv_heads,
                    head_dim=m.head_dim,
                    bytes=num(kvb),
                    ctx=num(req.context_tokens),
                    batch=req.batch,
                    gb=num(mem["kv_cache"], 2),
                )
            )
            if m.sliding_layers and m.sliding_window:
                lines.append(
                    t(
                        "math.kv_window",
                        layers=m.sliding_layers,
                        window=num(m.sliding_window),
                    )
                )
        if a.kv_bytes_per_token is not None:
            lines.append(
                t(
                    "math.kv_per_token",
                    bytes=num(a.kv_bytes_per_token),
                    mb=num(a.kv_bytes_per_token / 1e6, 2),
                )
            )
        lines.append(t("math.overhead", gb=num(mem["overhead"])))
        lines.append(t("math.total", gb=num(mem["total"], 2)))
        if a.quick_rule_gb is not None:
            lines.append(
                t(
                    "math.quick_rule",
                    params=num(m.params_b, 2),
                    bpp=num(prec.bytes_per_param, 4),
                    margin=num(QUICK_RULE_MARGIN, 1),
                    gb=num(a.quick_rule_gb, 2),
                )
            )
    elif req.task == "full":
        lines.append(
            t(
                "math.full",
                params=num(m.params_b, 2),
                bytes=num(full_ft_bytes_per_param()),
                share=num(FULL_FT_ACTIVATION_SHARE * 100),
                gb=num(mem["total"], 2),
            )
        )
    else:
        lines.append(
            t(
                "math.lora",
                params=num(m.params_b, 2),
                base=num(LORA_BASE_BYTES[req.task], 1),
                frac=num(ADAPTER_FRACTION * 100, 1),
                abytes=num(ADAPTER_BYTES),
                act=num(mem["activations"], 2),
                layers=m.layers,
                gb=num(mem["total"], 2),
            )
        )
    p = a.recommendation
    if p is not None:
        card = v.cat.card_by_name[p.card]
        lines.append(
            t(
                "math.price",
                count=p.count,
                monthly=usd(card.monthly_usd),
                pct=num(p.discount_pct),
                price=num(p.monthly_usd, 2),
            )
        )
        if p.decode_tok_s and req.task == "inference":
            lines.append(
                t(
                    "math.decode",
                    bw=num(card.bandwidth_gbps * p.count),
                    gb=num(native.read_per_token_gb(v.cat, req), 2),
                    tok=num(p.decode_tok_s, 1),
                )
            )
    shape = m.shape_source or "?"
    key = "math.shape_assumed" if m.assumed else "math.shape_source"
    lines.append(
        t(
            key,
            layers=m.layers,
            heads=m.attention_heads,
            kv_heads=m.kv_heads,
            head_dim=m.head_dim,
            source=shape,
        )
    )
    lines.append(t("math.units", gb=num(GB)))
    return lines

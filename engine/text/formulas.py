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
    fill, num, usd = v.fill, v.num, v.usd  # bound once: about 30 calls per answer
    mem = a.memory_gb
    params = num(m.params_b, 2)
    total = num(mem["total"], 2)
    lines: list[str] = []
    if req.task == "inference":
        cat = v.cat
        prec = (
            req.precision.upper()
            if req.weight_parts is None
            else native.parts_label(cat, v.lang, req.weight_parts)
        )
        weights = mem["weights"]
        lines.append(
            fill["math.weights:params,bpp,prec,gb"](
                params, num(weights / m.params_b, 4), prec, num(weights, 2)
            )
        )
        kvb = num(cat.kv_by_name[req.kv_dtype].bytes)
        ctx, kv = num(req.context_tokens), num(mem["kv_cache"], 2)
        if m.mla is not None:
            mla = m.mla
            lines.append(
                fill["math.kv_mla:layers,rank,rope,bytes,ctx,batch,gb"](
                    m.layers, mla.kv_lora_rank, mla.qk_rope_head_dim, kvb, ctx, req.batch, kv
                )
            )
        else:
            lines.append(
                fill["math.kv:two,layers,kv_heads,head_dim,bytes,ctx,batch,gb"](
                    KV_K_AND_V, m.layers, m.kv_heads, m.head_dim, kvb, ctx, req.batch, kv
                )
            )
            if m.sliding_layers and m.sliding_window:
                window = num(m.sliding_window)
                lines.append(fill["math.kv_window:layers,window"](m.sliding_layers, window))
        per_token = a.kv_bytes_per_token
        if per_token is not None:
            mb = num(per_token / 1e6, 2)
            lines.append(fill["math.kv_per_token:bytes,mb"](num(per_token), mb))
        lines.append(fill["math.overhead:gb"](num(mem["overhead"])))
        lines.append(fill["math.total:gb"](total))
        if a.quick_rule_gb is not None:
            bpp = num(cat.precision_by_name[req.precision].bytes_per_param, 4)
            lines.append(
                fill["math.quick_rule:params,bpp,margin,gb"](
                    params, bpp, num(QUICK_RULE_MARGIN, 1), num(a.quick_rule_gb, 2)
                )
            )
    elif req.task == "full":
        lines.append(
            fill["math.full:params,bytes,share,gb"](
                params, num(full_ft_bytes_per_param()), num(FULL_FT_ACTIVATION_SHARE * 100), total
            )
        )
    else:
        lines.append(
            fill["math.lora:params,base,frac,abytes,act,layers,gb"](
                params,
                num(LORA_BASE_BYTES[req.task], 1),
                num(ADAPTER_FRACTION * 100, 1),
                num(ADAPTER_BYTES),
                num(mem["activations"], 2),
                m.layers,
                total,
            )
        )
    p = a.recommendation
    if p is not None:
        card = v.cat.card_by_name[p.card]
        lines.append(
            fill["math.price:count,monthly,pct,price"](
                p.count, usd(card.monthly_usd), num(p.discount_pct), num(p.monthly_usd, 2)
            )
        )
        if p.decode_tok_s and req.task == "inference":
            lines.append(
                fill["math.decode:bw,gb,tok"](
                    num(card.bandwidth_gbps * p.count),
                    num(native.read_per_token_gb(v.cat, req), 2),
                    num(p.decode_tok_s, 1),
                )
            )
    key = "math.shape_assumed" if m.assumed else "math.shape_source"
    lines.append(
        fill[key + ":layers,heads,kv_heads,head_dim,source"](
            m.layers, m.attention_heads, m.kv_heads, m.head_dim, m.shape_source or "?"
        )
    )
    lines.append(fill["math.units:gb"](num(GB)))
    return lines

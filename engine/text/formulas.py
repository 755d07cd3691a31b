""" "Show the math": the formulas with this question's numbers filled in, and where the model
shape came from.
"""

from __future__ import annotations

from engine import native
from engine.answer_types import Answer, ModelRef
from engine.sizing import (
    ADAPTER_BYTES,
    ADAPTER_FRACTION,
    FULL_FT_ACTIVATION_SHARE,
    GB,
    KV_K_AND_V,
    LORA_BASE_BYTES,
    QUICK_RULE_MARGIN,
    full_ft_bytes_per_param,
    grow_layers,
    recurrent_state_bytes,
)
from engine.text.labels import QUICK_RULE_SHORT
from engine.text.notes import model_texts
from engine.text.voice import Voice


def math_lines(v: Voice, a: Answer) -> list[str]:
    """The formula with this question's numbers filled in, plus where the shape came from."""
    req = a.request
    assert req is not None and req.model is not None and a.memory_gb is not None
    m = req.model
    mt = model_texts(v, m)  # the model's own lines, written once per language
    fill, usd = v.fill, v.usds  # bound once: about 30 calls per answer
    n0, n1, n2, n4 = v.nums[0], v.nums[1], v.nums[2], v.nums[4]
    mem = a.memory_gb
    params = n2[m.params_b]
    total = n2[mem["total"]]
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
                (params, n4[weights / m.params_b], prec, n2[weights])
            )
        )
        kvb = n0[cat.kv_by_name[req.kv_dtype].bytes]
        ctx, batch, kv_gb = n0[req.context_tokens], req.batch, n2[mem["kv_cache"]]
        mla = m.mla
        # the whole template filled here: a partial fill with the shape written in once per
        # model costs more on a pass over new models than these few values do on a repeat
        if mla is not None:
            lines.append(
                fill["math.kv_mla:layers,rank,rope,bytes,ctx,batch,gb"](
                    (m.layers, mla.kv_lora_rank, mla.qk_rope_head_dim, kvb, ctx, batch, kv_gb)
                )
            )
        elif _grouped(m, req.context_tokens):
            lines.append(_kv_groups(v, m, req.context_tokens, kvb, batch, kv_gb))
        else:
            lines.append(
                fill["math.kv:two,layers,kv_heads,head_dim,bytes,ctx,batch,gb"](
                    (KV_K_AND_V, m.layers, m.kv_heads, m.head_dim, kvb, ctx, batch, kv_gb)
                )
            )
            if m.sliding_layers and m.sliding_window:
                lines.append(mt.window or mt.make_window())
        per_token = a.kv_bytes_per_token
        if per_token is not None:
            mb = n2[per_token / 1e6]
            lines.append(fill["math.kv_per_token:bytes,mb"]((n0[per_token], mb)))
        lines.append(fill["math.overhead:gb"]((n0[mem["overhead"]],)))
        lines.append(fill["math.total:gb"]((total,)))
        if a.quick_rule_gb is not None:
            bpp = n4[cat.precision_by_name[req.precision].bytes_per_param]
            low = mem["total"] > a.quick_rule_gb * QUICK_RULE_SHORT
            lines.append(
                fill[f"math.quick_rule{'_low' if low else ''}:params,bpp,margin,gb"](
                    (params, bpp, n1[QUICK_RULE_MARGIN], n2[a.quick_rule_gb])
                )
            )
    elif req.task == "full":
        lines.append(
            fill["math.full:params,bytes,share,gb"](
                (params, n0[full_ft_bytes_per_param()], n0[FULL_FT_ACTIVATION_SHARE * 100], total)
            )
        )
    else:
        lines.append(
            fill["math.lora:params,base,frac,abytes,act,layers,gb"](
                (
                    params,
                    n1[LORA_BASE_BYTES[req.task]],
                    n1[ADAPTER_FRACTION * 100],
                    n0[ADAPTER_BYTES],
                    n2[mem["activations"]],
                    m.layers,
                    total,
                )
            )
        )
    p = a.recommendation
    if p is not None:
        card = v.cat.card_by_name[p.card]
        lines.append(
            fill["math.price:count,monthly,pct,price"](
                (p.count, usd[card.monthly_usd], n0[p.discount_pct], n2[p.monthly_usd])
            )
        )
        if p.decode_tok_s and req.task == "inference":
            lines.append(
                fill["math.decode:bw,gb,tok"](
                    (
                        n0[card.bandwidth_gbps * p.count],
                        n2[native.read_per_token_gb(v.cat, req)],
                        n1[p.decode_tok_s],
                    )
                )
            )
    lines.append(mt.shape or mt.make_shape())
    units = v.made.get("math.units")  # one text per language
    if units is None:
        units = v.made["math.units"] = fill["math.units:gb"]((n0[GB],))
    lines.append(units)
    return lines


def _grouped(m: ModelRef, ctx: int) -> bool:
    """Whether one "× layers" product would misstate the cache: layers of other kinds (fixed
    state, shared caches, another KV shape), or windowed layers capped below the context."""
    if m.layer_types is not None or m.full_attention is not None:
        return True
    return bool(m.sliding_layers and m.sliding_window and ctx > m.sliding_window)


def _kv_groups(v: Voice, m: ModelRef, ctx: int, kvb: str, batch: int, kv_gb: str) -> str:
    """The cache as a sum over the layers that keep one: full-attention layers hold the whole
    context, windowed ones at most their window; a recurrent state is added per sequence."""
    n0 = v.nums[0]
    full, sliding = grow_layers(m)
    shape = m.full_attention
    terms = []
    if full:
        heads, dim = (
            (shape.kv_heads, shape.head_dim) if shape is not None else (m.kv_heads, m.head_dim)
        )
        terms.append(
            v.t(
                "math.kv_term_full",
                layers=full,
                two=KV_K_AND_V,
                kv_heads=heads,
                head_dim=dim,
                ctx=n0[ctx],
            )
        )
    if sliding:
        window = min(ctx, m.sliding_window or ctx)
        terms.append(
            v.t(
                "math.kv_term_window",
                layers=sliding,
                two=KV_K_AND_V,
                kv_heads=m.kv_heads,
                head_dim=m.head_dim,
                window=n0[window],
            )
        )
    joined = " + ".join(terms) or "0"
    state = recurrent_state_bytes(m)
    if state:
        return v.t(
            "math.kv_groups_state",
            terms=joined,
            bytes=kvb,
            state=v.num(state / 1e6, 1),
            batch=batch,
            gb=kv_gb,
        )
    return v.t("math.kv_groups", terms=joined, bytes=kvb, batch=batch, gb=kv_gb)

""" "Show the math": the formulas with this question's numbers filled in, and where the model
shape came from.
"""

from __future__ import annotations

from collections.abc import Callable
from math import floor  # int(x + 0.5) for x >= 0, cheaper than a call of the int type
from typing import Any, Final

from engine import native
from engine.answer_types import Answer, ModelRef
from engine.models import Card, OwnedCard
from engine.recommend import NODE_CARDS, set_price
from engine.rounding import NEAR_HI, NEAR_LO, half_up_float, half_up_units, round_half_up
from engine.sizing import (
    ACTIVATION_GB_PER_STEP,
    ACTIVATION_LAYERS_PER_STEP,
    ADAPTER_BYTES,
    FT_SEQ_TOKENS,
    FULL_FT_ACTIVATION_SHARE,
    GB,
    KV_K_AND_V,
    LORA_BASE_BYTES,
    OVERHEAD_GB,
    QUICK_RULE_MARGIN,
    adapter_fraction,
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
    assert req is not None
    m, mem = req.model, a.memory_gb
    assert m is not None and mem is not None
    # each field read once: compiled, an answer's field is an attribute lookup
    params_b, weight_parts, precision = m.params_b, req.weight_parts, req.precision
    quick = a.quick_rule_gb
    mt = model_texts(v, m)  # the model's own lines, written once per language
    fill = v.fill  # bound once: about 30 calls per answer
    n0, n1, n2, _, n4 = v.nums  # the five memos (0 to 4 decimals), one unpacking
    params = n2[params_b]
    total = n2[mem["total"]]
    lines: list[str] = []
    if req.task == "inference":
        cat = v.cat
        prec = (
            precision.upper()
            if weight_parts is None
            else native.parts_label(cat, v.lang, weight_parts)
        )
        weights = mem["weights"]
        made = _made(v, "math.figures")  # lines of a few figures, by those figures
        key: tuple[Any, ...] = (params_b, weights, prec)
        line = made.get(key)
        if line is None:
            bpp_digits = _digits(
                weights / params_b, 4, lambda b: round(params_b, 2) * b, weights, 2
            )
            line = made[key] = fill["math.weights:params,bpp,prec,gb"](
                (params, v.num(weights / params_b, bpp_digits), prec, n2[weights])
            )
        lines.append(line)
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
        lines.append(v.ones["math.overhead:gb"][n0[mem["overhead"]]])  # the same few
        lines.append(fill["math.total:gb"]((total,)))
        if quick is not None:
            low = "_low" if mem["total"] > quick * QUICK_RULE_SHORT else ""
            margin = n1[QUICK_RULE_MARGIN]
            if weight_parts is not None:  # the rule on the checkpoint's own weights
                key = (low, weights, quick)
                line = made.get(key)
                if line is None:
                    d = _digits(weights, 2, lambda x: x * QUICK_RULE_MARGIN, quick, 2)
                    line = made[key] = fill[f"math.quick_rule_weights{low}:weights,margin,gb"](
                        (v.num(weights, d), margin, n2[quick])
                    )
            else:
                bpp = cat.precision_by_name[precision].bytes_per_param
                key = (low, params_b, bpp, quick)
                line = made.get(key)
                if line is None:
                    d = _digits(params_b, 2, lambda x: x * bpp * QUICK_RULE_MARGIN, quick, 2)
                    line = made[key] = fill[f"math.quick_rule{low}:params,bpp,margin,gb"](
                        (v.num(params_b, d), n4[bpp], margin, n2[quick])
                    )
            lines.append(line)
    else:
        lines.append(training_line(v, a))
    lines += hardware_lines(v, a)
    lines.append(mt.shape or mt.make_shape())
    units = v.made.get("math.units")  # one text per language
    if units is None:
        units = v.made["math.units"] = fill["math.units:gb"]((n0[GB],))
    lines.append(units)
    return lines


_SCALES: Final = tuple(10.0**i for i in range(8))  # 10**d for the decimals _digits tries, exact
_POW10: Final = tuple(10**i for i in range(8))


def _digits(
    value: float, start: int, result: Callable[[float], float], target: float, places: int
) -> int:
    """The fewest decimals (from ``start``, at most 7) to print ``value`` with so that the
    printed figure, put through ``result``, rounds to the printed ``target``: a line of the
    math must multiply out as written.

    Each figure's half-up rounding (on its ``repr``, as ``round_half_up``) is taken as whole
    units of its last decimal: two figures rounded to ``places`` agree when their units do. A
    figure x with t = x * 10**d in [0, 1e9) and more than 1e-6 from a half-way point has
    k = int(t + 0.5) units (``rounding.NumberMemo``'s proof), and k / 10**d (two exact
    floats, correctly rounded) is the Decimal's ``float``; any other figure (at a half,
    negative, huge) is rounded by ``half_up_units`` through ``Decimal``."""
    scale = _SCALES[places]
    t = target * scale
    if 0.0 <= t < 1e9 and not NEAR_LO < t % 1.0 < NEAR_HI:
        want: int | None = floor(t + 0.5)
    else:
        want = half_up_units(target, places)
        if want is None:  # an infinite or NaN target: the reference path
            return _digits_decimal(value, start, result, target, places)
    for d in range(start, 8):
        s = _SCALES[d]
        u = value * s
        if 0.0 <= u < 1e9 and not NEAR_LO < u % 1.0 < NEAR_HI:
            printed = floor(u + 0.5) / s
        else:
            k = half_up_units(value, d)
            if k is None:
                return _digits_decimal(value, start, result, target, places)
            printed = k / _POW10[d]
        got = result(printed)
        r = got * scale
        if 0.0 <= r < 1e9 and not NEAR_LO < r % 1.0 < NEAR_HI:
            if floor(r + 0.5) == want:
                return d
        elif half_up_units(got, places) == want:  # None (not finite) never equals
            return d
    return 7


def _digits_decimal(
    value: float, start: int, result: Callable[[float], float], target: float, places: int
) -> int:
    """``_digits`` through ``Decimal`` (the reference; any value)."""
    want = round_half_up(target, places)
    for d in range(start, 8):
        if round_half_up(result(float(round_half_up(value, d))), places) == want:
            return d
    return 7


def training_line(v: Voice, a: Answer) -> str:
    """A training run's sum, every factor written: the step's tokens scale the activations."""
    req, mem = a.request, a.memory_gb
    assert req is not None and req.model is not None and mem is not None
    m = req.model
    key = (
        req.task,
        m.params_b,
        m.layers,
        req.context_tokens * req.batch,
        mem["total"],
        req.lora_rank,
    )
    made = _made(v, "math.training")  # the line is of these figures alone
    line = made.get(key)
    if line is None:
        line = made[key] = _training_line(v, req.task, m, key[3], mem["total"], req.lora_rank)
    return line


def _training_line(
    v: Voice, task: str, m: ModelRef, tokens_n: int, total_gb: float, rank: int | None
) -> str:
    """``training_line``'s text, written on the first answer with these figures."""
    n0, n2 = v.nums[0], v.nums[2]
    tokens, ref = n0[tokens_n], n0[FT_SEQ_TOKENS]
    if task == "full":
        return v.fill["math.full:params,bytes,share,tokens,ref,gb"](
            (
                n2[m.params_b],
                n0[full_ft_bytes_per_param()],
                n0[FULL_FT_ACTIVATION_SHARE * 100],
                tokens,
                ref,
                n2[total_gb],
            )
        )
    steps = half_up_float(m.layers / ACTIVATION_LAYERS_PER_STEP)
    return v.fill["math.lora:params,base,frac,abytes,overhead,step,steps,layers,per,tokens,ref,gb"](
        (
            n2[m.params_b],
            v.nums[1][LORA_BASE_BYTES[task]],
            v.nums[2][adapter_fraction(rank) * 100],
            n0[ADAPTER_BYTES],
            n0[OVERHEAD_GB],
            n0[ACTIVATION_GB_PER_STEP],
            n0[steps],
            m.layers,
            ACTIVATION_LAYERS_PER_STEP,
            tokens,
            ref,
            n2[total_gb],
        )
    )


def hardware_lines(v: Voice, a: Answer) -> list[str]:
    """Price and decode ceiling of the hardware the question named (a fit's set), else of the
    pick: the math is of the answer's own hardware."""
    req, f, cat = a.request, a.fit, v.cat
    assert req is not None
    card: Card | OwnedCard | None = None
    count = 1
    if f is not None and f.count:
        card, count = cat.card_by_name.get(f.card) or cat.owned(f.card), f.count
    if card is None and a.recommendation is not None:
        card, count = cat.card_by_name[a.recommendation.card], a.recommendation.count
    if card is None:
        return []
    lines: list[str] = []
    made = _made(v, "math.hardware")
    if isinstance(card, Card):
        key = (card.name, count)  # the catalog's own card: its name says its prices
        price = made.get(key)
        if price is None:
            price = made[key] = price_line(v, card, count)
        lines.append(price)
    read = native.read_per_token_gb(cat, req) if req.task == "inference" else 0.0
    if read > 0:
        split = cat.precision_by_name[req.precision].gguf  # llama.cpp: the cards take turns
        bw = card.bandwidth_gbps * (1 if split else min(count, NODE_CARDS))
        decode = made.get((bw, read))  # the line is of these two figures alone
        if decode is None:
            tok = bw / read
            d = _digits(read, 2, lambda r: bw / r, tok, 1)
            decode = made[(bw, read)] = v.fill["math.decode:bw,gb,tok"](
                (v.nums[0][bw], v.num(read, d), v.nums[1][tok])
            )
        lines.append(decode)
    return lines


_MADE_SIZE: Final = (
    4096  # lines kept per voice and kind: emptied when full, so memory stays bounded
)


def _made(v: Voice, kind: str) -> dict[tuple[Any, ...], str]:
    """This voice's lines of one kind already written, by the figures they are made of (a
    pure result: the voice fixes the catalog and the language)."""
    made: dict[tuple[Any, ...], str] | None = v.made.get(kind)
    if made is None or len(made) >= _MADE_SIZE:
        made = v.made[kind] = {}
    return made


def price_line(v: Voice, card: Card, count: int) -> str:
    """``count`` cards' monthly price with its discount; from the hourly rate when the
    price book is hourly."""
    _, pct, price = set_price(v.cat, card, count)
    n0, n2 = v.nums[0], v.nums[2]
    if card.hourly_usd is not None:
        hours = v.cat.fleet.provider.hours_per_month
        return v.fill["math.price_hourly:count,hourly,hours,pct,price"](
            (count, n2[card.hourly_usd], n0[hours], n0[pct], n2[price])
        )
    return v.fill["math.price:count,monthly,pct,price"](
        (count, v.usds[card.monthly_usd], n0[pct], n2[price])
    )


def _grouped(m: ModelRef, ctx: int) -> bool:
    """Whether one "× layers" product would misstate the cache: layers of other kinds (fixed
    state, shared caches, another KV shape), or windowed layers capped below the context."""
    if m.layer_types is not None or m.full_attention is not None:
        return True
    if m.sliding_layers and m.sliding_window:  # no bool() call: a type call costs a few
        return ctx > m.sliding_window
    return False


def _kv_groups(v: Voice, m: ModelRef, ctx: int, kvb: str, batch: int, kv_gb: str) -> str:
    """The cache as a sum over the layers that keep one: full-attention layers hold the whole
    context, windowed ones at most their window; a recurrent state is added per sequence."""
    n0, fill = v.nums[0], v.fill
    full, sliding = grow_layers(m)
    shape = m.full_attention
    terms = []
    if full:
        heads, dim = (
            (shape.kv_heads, shape.head_dim) if shape is not None else (m.kv_heads, m.head_dim)
        )
        terms.append(
            fill["math.kv_term_full:layers,two,kv_heads,head_dim,ctx"](
                (full, KV_K_AND_V, heads, dim, n0[ctx])
            )
        )
    if sliding:
        window = min(ctx, m.sliding_window or ctx)
        terms.append(
            fill["math.kv_term_window:layers,two,kv_heads,head_dim,window"](
                (sliding, KV_K_AND_V, m.kv_heads, m.head_dim, n0[window])
            )
        )
    joined = " + ".join(terms) or "0"
    state = recurrent_state_bytes(m)
    if state:
        return fill["math.kv_groups_state:terms,bytes,state,batch,gb"](
            (joined, kvb, v.nums[1][state / 1e6], batch, kv_gb)
        )
    return fill["math.kv_groups:terms,bytes,batch,gb"]((joined, kvb, batch, kv_gb))

"""Card against card when neither holds the request as asked ("4090 or 3090 for qwen2.5
14b?"): say so once, what makes both fit, and then what still tells them apart (bandwidth and
price), so the answer chooses instead of printing two equal "no"s."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.answer_types import Answer, Fit, FitChange
from engine.recommend import set_price
from engine.text.labels import request_label
from engine.text.voice import Voice, ctx_label

# One change both cards share, said short (the headline stays one line); others in full.
_SHORT: Final = {
    "kv_cache": "headline.both_fit_kv8",
    "context": "headline.both_fit_ctx",
    "batch": "headline.both_fit_batch",
}


def hw_label(f: Fit) -> str:
    return f.card if f.count == 1 else f"{f.count}× {f.card}"


def _same_change(x: FitChange, y: FitChange) -> bool:
    keys = ("change", "precision", "kv_dtype", "context_tokens", "batch", "count")
    return all(getattr(x, k) == getattr(y, k) for k in keys)


def neither(
    v: Voice, a: Answer, total: str, change_text: Callable[[FitChange, Fit], str]
) -> str | None:
    """The headline of two rented sets that both fall short (None for any other pair)."""
    if len(a.fits) != 2 or any(f.fits for f in a.fits) or a.request is None:
        return None
    cards = [v.cat.card_by_name.get(f.card) for f in a.fits]
    x, y = a.fits
    cx, cy = cards
    if cx is None or cy is None or x.vram_gb is None or y.vram_gb is None:
        return None
    gb = v.gbs
    if x.vram_gb == y.vram_gb:
        text = v.t("headline.neither_same", total=total, vram=gb[x.vram_gb])
    else:
        text = v.t(
            "headline.neither",
            total=total,
            a=hw_label(x),
            va=gb[x.vram_gb],
            b=hw_label(y),
            vb=gb[y.vram_gb],
        )
    if x.best is not None and y.best is not None and x.best.precision == y.best.precision:
        text += v.t("headline.both_fit_in", prec=x.best.precision.upper(), gb=gb[x.best.total_gb])
    elif x.changes and y.changes and _same_change(x.changes[0], y.changes[0]):
        c = x.changes[0]
        short = _SHORT.get(c.change)
        if short is None:
            text += v.t("headline.both_fit_if", change=change_text(c, x))
        else:
            ctx = ctx_label(c.context_tokens)
            text += v.t(short, gb=gb[c.total_gb], ctx=ctx, batch=c.batch, count=c.count)
    fast, slow = (x, y) if cx.bandwidth_gbps * x.count >= cy.bandwidth_gbps * y.count else (y, x)
    cf, cs = (cx, cy) if fast is x else (cy, cx)
    ratio = (cf.bandwidth_gbps * fast.count) / (cs.bandwidth_gbps * slow.count)
    pf = set_price(v.cat, cf, fast.count)[2]
    ps = set_price(v.cat, cs, slow.count)[2]
    if ratio < 1.05:  # the same bandwidth within 5%: the price alone tells them apart
        cheap, dear = (fast, slow) if pf <= ps else (slow, fast)
        if pf != ps:
            text += v.t(
                "headline.neither_price",
                cheap=hw_label(cheap),
                diff=v.usds[abs(pf - ps)],
                other=hw_label(dear),
            )
        return text
    key = "headline.neither_fast_dearer" if pf > ps else "headline.neither_fast_cheaper"
    return text + v.t(
        key,
        fast=hw_label(fast),
        ratio=v.nums[1][ratio],
        slow=hw_label(slow),
        diff=v.usds[abs(pf - ps)],
    )


def choice(
    v: Voice, a: Answer, total: str, say_change: Callable[[FitChange, Fit], str]
) -> str | None:
    """ "X on A or B" where more than one holds it: which is cheaper to rent and which is
    faster, rather than the first one's verdict alone (None: one holds it, or nothing to
    tell them apart)."""
    req = a.request
    assert req is not None
    held = [f for f in a.fits if f.fits]
    if not held:  # neither holds it as asked: what makes both fit, then what differs
        return neither(v, a, total, say_change)
    if len(held) < 2:
        return None
    priced = [f for f in held if f.monthly_usd is not None]
    timed = [f for f in held if f.decode_tok_s]
    cheap = min(priced, key=lambda f: f.monthly_usd or 0.0) if len(priced) == len(held) else None
    fast = max(timed, key=lambda f: f.decode_tok_s or 0.0) if len(timed) == len(held) else None
    label, fill, num = request_label(v, req), v.fill, v.nums[0]
    price = v.usds[cheap.monthly_usd or 0.0] if cheap is not None else ""
    if len(held) > 2:
        if cheap is None or fast is None:
            return None
        spec = "headline.choice_many:count,request,total,cheap,price,fast,tok"
        tok = num[fast.decode_tok_s or 0.0]
        return fill[spec]((len(held), label, total, hw_label(cheap), price, hw_label(fast), tok))
    if fast is not None:
        other = next(f for f in held if f is not fast)
        tok, slower = num[fast.decode_tok_s or 0.0], num[other.decode_tok_s or 0.0]
        if cheap is fast:
            spec = "headline.choice_same:request,total,card,price,tok,other"
            return fill[spec]((label, total, hw_label(fast), price, tok, slower))
        if cheap is not None:
            spec = "headline.choice_two:request,total,cheap,price,fast,tok,other"
            return fill[spec]((label, total, hw_label(cheap), price, hw_label(fast), tok, slower))
        spec = "headline.choice_speed:request,total,fast,tok,other"
        return fill[spec]((label, total, hw_label(fast), tok, slower))
    if cheap is not None:
        return fill["headline.choice_price:request,total,cheap,price"](
            (label, total, hw_label(cheap), price)
        )
    return None

"""Line 1's change for a fit that does not hold as asked: the engine's first change (its
smallest, engine/kinds/order.py), in the short words line 1 has for it."""

from __future__ import annotations

from engine import Fit, FitChange, Pick, ctx_label

# the engine's changes, and their line-1 texts (a training run's are said in the headline)
_SHORT = {
    "kv_cache": "short.change_kv",
    "context": "short.change_context",
    "batch": "short.change_batch",
    "precision_kv": "short.change_kv",
    "precision_context": "short.change_context",
    "precision_batch": "short.change_batch",
    "low_bits": "short.change_low",
    "low_bits_kv": "short.change_low_kv",
    "cards": "short.change_cards",
}


def lead(fit: Fit) -> FitChange | None:
    """The change an answer leads with: the engine's first (its smallest), when line 1 has
    words for it ("precision" is the best rung's own line)."""
    if not fit.changes:
        return None
    c = fit.changes[0]
    return c if c.change in _SHORT or c.change == "precision" else None


def on_the_same(fit: Fit, rec: Pick | None) -> bool:
    """Whether line 1's change needs no pick beside it: it keeps the asked hardware, or it
    names the very set the pick is."""
    c = lead(fit)
    if c is None:
        return False
    return c.change != "cards" or (rec is not None and (rec.card, rec.count) == (fit.card, c.count))


def change_words(fit: Fit, c: FitChange) -> tuple[str, dict[str, object], bool]:
    """(the message key, its values but the room, whether it is tight) of a change."""
    key = _SHORT[c.change]
    if c.change in ("kv_cache", "precision_kv") and c.kv_dtype == "q8_0":  # llama.cpp's
        key += "_q8"
    if c.change in ("batch", "precision_batch") and c.batch == 1:
        key = "short.change_batch_one"
    tight = c.headroom_gb < 5 if c.count == 1 else c.headroom_gb / c.count < 2
    values: dict[str, object] = {
        "prec": c.precision.upper(),
        "ctx": ctx_label(c.context_tokens),
        "batch": c.batch,
        "count": c.count,
        "card": fit.card,
    }
    return key, values, tight

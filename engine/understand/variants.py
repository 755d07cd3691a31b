"""A card named with an amount of memory: its own ("4090 24gb") or a variant's the catalog
does not know ("h100 nvl 94gb", "a100 40gb"). A variant is sized as that amount, so the
answer has one verdict, not the known card's and the amount's side by side.
"""

from __future__ import annotations

from engine.lazyre import lazy
from engine.understand.query import Query

_AMOUNT_AFTER = lazy(r"\s*(?:[a-z]{1,5}\s+){0,2}?(\d+(?:[.,]\d+)?)\s*(?:gb|gib|g)\b")


def amount_after(s: str, end: int) -> float | None:
    """The amount said right after a card's name, up to two short words on ("h100 nvl 94gb",
    "a100 40gb", "4060 ti 16gb"): the card's own memory, or a variant's."""
    if s.find("g", end) < 0:  # every form ends in "gb", "gib" or "g"
        return None
    m = _AMOUNT_AFTER.match(s, end)
    return float(m.group(1).replace(",", ".")) if m is not None else None


def variant_amount(q: Query, said: float) -> None:
    """A single card named with an amount it does not have: the catalog does not know that
    variant, so the amount is the card (one verdict, not the card's and the amount's)."""
    named = [c for c in (*q.cards, *q.owned) if c.said_gb == said]
    if len(named) == 1 and len(q.cards) + len(q.owned) == 1 and named[0].count is None:
        q.variant = (named[0].name, q.vram_gb or said)
        q.cards, q.owned = [], []


# A release's version as people write it: "v3.1", "3.1", "2.5"
_VERSION = lazy(r"(?<![\w.])v?(\d+\.\d+)(?![\w.])")


def version_alias(q: Query) -> str | None:
    """The alias a question's version came from when the model's own name lacks it
    ("deepseek v3.1" is an alias of DeepSeek-V3, the same shape): said back, so a person
    sees which release was sized. The alias as the model's maker spells it, or None."""
    if q.model is None or "." not in q.text:  # every version holds a "."
        return None
    name = q.model.name.lower()
    for version in _VERSION.findall(q.text.lower()):
        if version in name:
            continue
        spelled = [a for a in q.model.aliases if version in a.lower() and "/" not in a]
        if spelled:
            return max(spelled, key=lambda a: (a != a.lower(), -len(a)))
    return None


# "a6000 ada", "rtx a6000 ada": the RTX 6000 Ada (Ada Lovelace), which people name after the
# RTX A6000 (Ampere) it followed; read before the cards, so the A6000's alias does not win.
_A6000_ADA = lazy(r"(?<![\w.])(?:rtx\s*)?a6000\s*ada(?![\w.])")


def ada_spelling(s: str) -> str:
    return _A6000_ADA.sub("rtx 6000 ada", s)

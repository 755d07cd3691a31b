"""The one formatting voice every text builder shares: messages in the reply language and
numbers rounded half up, only here, at the end.
"""

from __future__ import annotations

from typing import Any

from engine.answer_types import Answer
from engine.catalog import Catalog
from engine.i18n import _Params, t
from engine.rounding import fmt_gb, fmt_num, fmt_usd


class Voice:
    """The catalog's messages and number formats in one language."""

    def __init__(self, cat: Catalog, lang: str) -> None:
        self.cat = cat
        self.lang = lang
        # Bound once per answer: about 27 lookups each (the same rules as engine.i18n.t).
        self._en = cat.messages["en"]
        self._table = cat.messages.get(lang) or self._en

    def t(self, key: str, **params: Any) -> str:
        text = self._table.get(key) or self._en.get(key) or key
        if "{" not in text:  # nothing to fill: format_map would return it unchanged
            return text
        return text.format_map(_Params(params))

    def gb(self, value: float) -> str:
        return fmt_gb(value, self.lang)

    def usd(self, value: float) -> str:
        return fmt_usd(value, self.lang)

    def link(self, name: str | None) -> str:
        """A card link's name in the reply language (cards.yaml names it in English)."""
        name = name or "PCIe"
        key = f"link.{name}"
        return self._table.get(key) or self._en.get(key) or name

    def room(self, value: float) -> str:
        """GB to spare: a real but tiny margin reads "<0.1", never "0" (which says it does not
        fit, or fits exactly)."""
        return room_gb(value, self.lang)

    def num(self, value: float, decimals: int = 0) -> str:
        return fmt_num(value, decimals, self.lang, trim=True)


def room_gb(value: float, lang: str) -> str:
    if 0 < value < 0.05:
        return "<" + fmt_num(0.1, 1, lang)
    return fmt_gb(value, lang)


def task_label(cat: Catalog, lang: str, task: str) -> str:
    return t(cat, lang, f"task.{task}")


def precision_label(precision: str) -> str:
    return precision.upper()


def ctx_label(tokens: int) -> str:
    if tokens % (1024 * 1024) == 0:
        return f"{tokens // (1024 * 1024)}M"
    if tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return f"{tokens:,}"


def render_text(a: Answer) -> str:
    """Plain text: the fallback every platform can show (and what ``vram ask`` prints)."""
    out = [a.headline] if a.headline else []
    for s in a.sections:
        if s.title:
            out.append("")
            out.append(s.title)
        out.extend(s.lines)
    notes = [n.text for n in a.caveats]
    if notes:
        out.append("")
        out.extend(f"! {n}" for n in notes)
    if a.assumptions:
        out.append("")
        out.extend(f"~ {n.text}" for n in a.assumptions)
    return "\n".join(out).strip()

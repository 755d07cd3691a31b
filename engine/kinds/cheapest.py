"""The cheapest card with a feature: "cheapest card with fp8", "cheapest 80gb card"."""

from __future__ import annotations

from engine.answer_types import Answer, Section
from engine.kinds.base import Builder
from engine.kinds.fleet import card
from engine.models import Card
from engine.recommend import set_price


def cheapest_card(b: Builder, fp8: bool, gb: float | None) -> Answer:
    """ "Cheapest card with FP8", "cheapest 80gb card": the fleet's cheapest card that has it
    (a card rented only in sets at its smallest set's price), then that card's sheet."""
    cat = b.cat

    def least(c: Card) -> float:
        return set_price(cat, c, c.min_count)[2] if c.min_count > 1 else c.monthly_usd

    ok = [c for c in cat.cards if (c.fp8 or not fp8) and c.vram_gb >= (gb or 0.0)]
    if not ok:
        big = max(cat.cards, key=lambda c: c.vram_gb)
        answer = card(b, big.name)
        lead = b.t("headline.cheapest_none", card=big.name, vram=b.gb(big.vram_gb))
    else:
        pick = min(ok, key=lambda c: (least(c), c.vram_gb))
        answer = card(b, pick.name)
        key = (
            "headline.cheapest_fp8_gb"
            if fp8 and gb
            else "headline.cheapest_" + ("fp8" if fp8 else "gb")
        )
        lead = b.t(key, card=pick.name, price=b.usd(least(pick)), gb=b.gb(gb or 0.0),
                   vram=b.gb(pick.vram_gb))  # fmt: skip
    answer.sections.insert(0, Section(title="", lines=[answer.headline]))
    answer.__dict__["headline"] = lead
    return b.finish(answer)

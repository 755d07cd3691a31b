"""A card people own that we do not rent, asked about itself ("rx 7900 xtx specs", "is a 3060
good for llms?", "czy 4070 ti super nada się do llm"): the card's own figures from
data/hardware.yaml, the "what fits on it" list that is the useful part, and, apart from
both, that we do not rent it and which card we do rent in its place.

The list is :func:`engine.kinds.fleet.what_fits`'s own (the same rows as "what fits on a
7900 xtx"); this only puts the card's sheet above it and the rental below it.
"""

from __future__ import annotations

from engine.answer_types import Answer, OwnedCardInfo, Section
from engine.kinds.base import Builder
from engine.kinds.fleet import what_fits
from engine.models import Card, OwnedCard
from engine.refs import card_info
from engine.text.labels import name_before


def owned_card(b: Builder) -> Answer:
    """The owned card's sheet, what fits on it, and the rental nearest to it."""
    ask = b.q.owned[0]
    mine = b.cat.owned_by_name[ask.name]
    count = ask.count or 1
    answer = what_fits(b)  # kind "capacity": its rows, headline and notes as usual
    rent = nearest_rental(b, mine, count)
    answer.__dict__["owned_card"] = OwnedCardInfo(
        name=mine.name,
        vendor=mine.vendor,
        arch=mine.arch,
        vram_gb=mine.vram_gb,
        bandwidth_gbps=mine.bandwidth_gbps,
        fp8=mine.fp8,
        count=count,
        rental=card_info(b.cat, rent) if rent is not None else None,
    )
    listing = answer.sections[0] if answer.sections else Section(title="", lines=[])
    sheet = [
        b.t("owned.maker", vendor=mine.vendor, arch=mine.arch),
        b.t("card.fp8_yes" if mine.fp8 else "card.fp8_no"),
    ]
    d = answer.__dict__
    d["sections"] = [
        Section(title="", lines=sheet),
        Section(title=answer.headline, lines=listing.lines),  # "What fits on ... (24 GB)"
        Section(title=b.t("owned.rent_title"), lines=_rental_lines(b, mine, count, rent)),
        *answer.sections[1:],
    ]
    d["headline"] = _headline(b, mine, count, answer)
    return b.finish(answer)  # the text again, with the sheet (notes are kept once each)


def nearest_rental(b: Builder, mine: OwnedCard, count: int) -> Card | None:
    """The cheapest card we rent alone with at least the owned cards' memory, FP8 too when
    they compute FP8 (else any); the faster one on a tie. None when no single card holds it."""
    need = mine.vram_gb * count
    singles = [c for c in b.cat.cards if c.min_count == 1 and c.vram_gb >= need]
    like = [c for c in singles if c.fp8 or not mine.fp8] or singles
    return min(like, key=lambda c: (c.monthly_usd, -c.bandwidth_gbps), default=None)


def _headline(b: Builder, mine: OwnedCard, count: int, a: Answer) -> str:
    """ "Radeon RX 7900 XTX: 24 GB, 960 GB/s, no FP8; the biggest it runs: ..." """
    fp8 = b.t("owned.fp8_yes" if mine.fp8 else "owned.fp8_no")
    bw = b.num(mine.bandwidth_gbps)
    if count > 1:
        line = b.t("owned.sheet_set", count=count, card=mine.name, vram=b.gb(mine.vram_gb * count),
                   each=b.gb(mine.vram_gb), bw=bw, fp8=fp8)  # fmt: skip
    else:
        line = b.t("owned.sheet", card=mine.name, vram=b.gb(mine.vram_gb), bw=bw, fp8=fp8)
    if not a.budget:
        return line
    top = a.budget[0]
    model = name_before(top.model, top.precision)
    return line + b.t("owned.biggest", model=model, prec=top.precision.upper(),
                      need=b.gb(top.need_gb))  # fmt: skip


def _rental_lines(b: Builder, mine: OwnedCard, count: int, rent: Card | None) -> list[str]:
    """That we do not rent it (the words of an owned card's fit), then what we rent instead."""
    hw = mine.name if count == 1 else f"{count}× {mine.name}"
    vram = b.gb(mine.vram_gb * count)
    first = b.t("fit.owned_card", card=hw, vram=vram, bw=b.num(mine.bandwidth_gbps * count))
    if rent is None:
        return [first, b.t("owned.no_rental", vram=vram)]
    return [
        first,
        b.t(
            "owned.rental",
            rent=rent.name,
            vram=b.gb(rent.vram_gb),
            bw=b.num(rent.bandwidth_gbps),
            price=b.usd(rent.monthly_usd),
        ),
    ]

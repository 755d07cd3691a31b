"""The short form every chat surface leads with: the verdict, card and price on line 1.

A customer on a phone needs yes/no, the card, its price and the next step before any
breakdown. This module picks those few lines from the Answer's own fields (no sizing
arithmetic: every number was computed by the engine, it is only rounded here for display),
and lists the detail blocks (everything the answer knows) that the renderers put behind a
"details" control.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.render.clip import ELLIPSIS, clip, spaced, units
from bot.render.lead import change_words, lead, on_the_same
from engine import (
    Answer,
    Catalog,
    Fit,
    Note,
    Pick,
    fmt_gb,
    fmt_num,
    fmt_usd,
    t,
)

__all__ = [
    "MAX_SHORT_CHARS",
    "MAX_SHORT_LINES",
    "Block",
    "detail_blocks",
    "short_lines",
    "units",
]

MAX_SHORT_LINES = 8
MAX_SHORT_CHARS = 450  # visible characters, counted in UTF-16 units as Telegram and Discord do
LINE_MAX = 170  # one caveat or alternative never crowds out the rest
# caveats that change the decision come first; the others wait in the details
_URGENT = (
    "per_hour",  # asked for: the question's own answer
    "truncated",
    "why.",
    "tight",
    "cluster",
    "limit_no_room",
    "beyond_max_context",
    "fp8_cards",
    "mac_gpu_share_over",
)
# which alternative to offer next to the pick: safer when the pick is tight, else cheaper
_SAFER = ("roomier", "faster", "cuda")
_CHEAPER = ("lower_precision", "cheaper_set")


def _shaped(lines: list[str], more_line: bool) -> list[str]:
    """A chat's first message: each line within its share; where the details follow at once
    (plain text, Markdown) whole lines, as the terminal wraps them."""
    if not more_line:
        return [spaced(line) for line in lines if line]
    return [clip(line, LINE_MAX if i else 2 * LINE_MAX) for i, line in enumerate(lines) if line]


@dataclass(frozen=True)
class Block:
    """One group of detail lines under an optional title (kind says how to style it)."""

    title: str
    lines: list[str]
    kind: str = "section"  # section | caveats | assumptions | math


def _margin(lang: str, gb: float) -> str:
    """A real but tiny margin reads "<0.1", as in the engine's text, never "0" (none at all)."""
    return "<" + fmt_num(0.1, 1, lang) if 0 < gb < 0.05 else fmt_gb(gb, lang)


def _room(cat: Catalog, lang: str, headroom_gb: float, tight: bool) -> str:
    key = "short.tight" if tight else "short.room"
    return t(cat, lang, key, gb=_margin(lang, headroom_gb))


def _per_month(cat: Catalog, lang: str, usd: float) -> str:
    return t(cat, lang, "short.per_month", price=fmt_usd(usd, lang))


def _pick_line(cat: Catalog, lang: str, pick: Pick) -> str:
    """ "1× A100 SXM · $990/mo · tight: 0.1 GB left" (without the verdict mark)."""
    return t(
        cat,
        lang,
        "short.pick",
        count=pick.count,
        card=pick.card,
        price=_per_month(cat, lang, pick.monthly_usd),
        room=_room(cat, lang, pick.headroom_gb, pick.tight),
    )


def _alternative(answer: Answer) -> Pick | None:
    """The one alternative worth a line: safer if the pick is tight, otherwise the cheapest
    that costs less than the pick, otherwise by its reason."""
    alts = answer.alternatives
    rec = answer.recommendation
    if answer.budget_usd is not None:  # within the budget, and not line 1's option again
        shown = answer.within_budget or rec
        alts = [
            a
            for a in alts
            if a.monthly_usd <= answer.budget_usd
            and (shown is None or (a.card, a.count) != (shown.card, shown.count))
        ]
    if not alts:
        return None
    if rec is not None and rec.tight:  # the cheapest way out of a tight fit
        roomy = sorted((a for a in alts if not a.tight), key=lambda a: a.monthly_usd)
        if roomy:
            return roomy[0]
    if rec is not None:  # an option that costs less than the pick comes first, whatever else
        cheaper = [a for a in alts if a.monthly_usd < rec.monthly_usd]
        if cheaper:
            return min(cheaper, key=lambda a: a.monthly_usd)
    for reason in _CHEAPER + _SAFER:
        for alt in alts:
            if alt.reason == reason:
                return alt
    return alts[0]


def _alt_line(cat: Catalog, lang: str, alt: Pick, rec: Pick | None) -> str:
    reason = alt.reason or "other"
    if rec is not None and rec.tight and not alt.tight and reason != "lower_precision":
        reason = "safer_cheaper" if alt.monthly_usd < rec.monthly_usd else "roomier"
    elif reason == "cuda" and rec is not None and alt.monthly_usd < rec.monthly_usd:
        reason = "cuda_cheaper"
    label = t(cat, lang, f"short.alt.{reason}", precision=(alt.precision or "").upper())
    room = (
        t(cat, lang, "short.needs", gb=fmt_gb(alt.need_gb, lang))
        if alt.precision and alt.need_gb is not None
        else _room(cat, lang, alt.headroom_gb, alt.tight)
    )
    return t(
        cat,
        lang,
        "short.alt",
        label=label,
        count=alt.count,
        card=alt.card,
        price=_per_month(cat, lang, alt.monthly_usd),
        room=room,
    )


def _caveat(answer: Answer) -> Note | None:
    for prefix in _URGENT:
        for note in answer.caveats:
            if note.code.startswith(prefix):
                return note
    return answer.caveats[0] if answer.caveats else None


def _asked_fits(answer: Answer) -> list[Fit]:
    """The fit on each card or set the question named ("X on A or B": two)."""
    if len(answer.fits) > 1:
        return list(answer.fits)
    return [answer.fit] if answer.fit is not None else []


def _fit_verdict(cat: Catalog, lang: str, fit: Fit) -> str:
    """Line 1 of a fit answer for one asked card or set: yes with its room, or the best
    precision it holds, or no with how short it is."""
    if fit.fits and fit.raise_limit_mb is not None:  # a Mac, past its GPU's default share
        room = _room(cat, lang, fit.headroom_gb, fit.tight)
        first = t(cat, lang, "short.fits_raise", card=fit.card, mb=fit.raise_limit_mb, room=room)
    elif fit.fits:
        price = f" · {_per_month(cat, lang, fit.monthly_usd)}" if fit.monthly_usd else ""
        first = t(
            cat,
            lang,
            "short.fits",
            count=fit.count,
            card=fit.card,
            price=price,
            room=_room(cat, lang, fit.headroom_gb, fit.tight),
        )
    elif (c := lead(fit)) is not None and c.change != "precision":
        # the smallest change first (the engine's order), as the headline says it
        gb = -fit.headroom_gb
        key = "short.no_fit_rule" if gb <= 0 else "short.no_fit"
        first = t(cat, lang, key, count=fit.count, card=fit.card, gb=_margin(lang, gb))
        key, values, tight = change_words(fit, c)
        first += " · ✅ " + t(cat, lang, key, room=_room(cat, lang, c.headroom_gb, tight), **values)
    elif fit.best is not None and fit.precision:  # the ladder's best rung on this hardware
        first = t(
            cat,
            lang,
            "short.no_fit_best",
            prec=fit.precision.upper(),
            count=fit.count,
            card=fit.card,
            best=fit.best.precision.upper(),
            room=_room(cat, lang, fit.best.headroom_gb, fit.best.headroom_gb < 5),
        )
    else:  # no: how short it is, or memory enough and a rule says no (FP8 on a card without)
        gb = -fit.headroom_gb
        key = "short.no_fit_rule" if gb <= 0 else "short.no_fit"
        first = t(cat, lang, key, count=fit.count, card=fit.card, gb=_margin(lang, gb))
    named = " + " in fit.card or fit.card.endswith(" GB") or fit.gpu_share_gb is not None
    if named and fit.count == 1:  # a person's rig, a Mac, a card said with its amount
        first = first.replace(f"1× {fit.card}", fit.card)
    return first


def _over_budget(answer: Answer, cat: Catalog, budget: float) -> str:
    """Line 1 when the pick costs more than the budget asked: the lighter setup within it,
    or the cheapest there is."""
    lang, req = answer.lang, answer.request
    within = answer.within_budget
    p = within or answer.budget_floor or answer.budget_asked
    key = "short.over_budget" if within is not None else "short.none_in_budget"
    if p is None or req is None:
        return t(cat, lang, "short.none_in_budget_plain", budget=fmt_usd(budget, lang))
    task = p.reason if p.reason in ("full", "lora", "qlora") else None  # a training run's
    setup = t(cat, lang, f"task.{task}") if task else (p.precision or req.precision).upper()
    return t(
        cat,
        lang,
        key,
        budget=fmt_usd(budget, lang),
        setup=setup,
        count=p.count,
        card=p.card,
        price=_per_month(cat, lang, p.monthly_usd),
    )


def _verdict(answer: Answer, cat: Catalog, teaser: bool) -> list[str]:
    """Line 1 (and the memory line) for answers that decide something; [] for the others.
    ``teaser``: a comparison's first rows too (not when every row follows at once)."""
    lang = answer.lang
    rec = answer.recommendation
    total = (answer.memory_gb or {}).get("total")
    if answer.leads_with == "buying" and answer.sections:  # "what to buy": the setup first
        others = answer.sections[0].lines  # the setups (the first is the headline's), a rental
        others = others[1:] if answer.buying else others
        return [answer.headline, *others[:2], *others[2:][-1:]]  # the rental line last
    if answer.kind == "fit" and answer.fit is not None:
        # "X on A or B": a verdict line for each card asked about, not the first alone
        fits = _asked_fits(answer)[:3]
        lines = [_fit_verdict(cat, lang, fit) for fit in fits]
        held = (  # on the asked hardware as it is: more cards still want the pick beside
            f.fits or (f.best is not None and f.precision) or on_the_same(f, rec) for f in fits
        )
        if rec is not None and not any(held):  # nothing asked holds it: what would
            lines[0] += " · ✅ " + _pick_line(cat, lang, rec)
        return [*lines, answer.headline]
    if answer.kind == "compare" and answer.verdict:
        rows = [line for s in answer.sections for line in s.lines][:4] if teaser else []
        return [t(cat, lang, "short.compare", verdict=answer.verdict), *rows]
    if answer.kind == "sizing":
        budget = answer.budget_usd
        if rec is not None and budget is not None and rec.monthly_usd > budget:
            w = answer.within_budget
            if w is not None and w == answer.budget_asked:  # as asked, on a cheaper set
                return ["✅ " + _pick_line(cat, lang, w), answer.headline]
            return [_over_budget(answer, cat, budget), answer.headline]
        if rec is not None:
            return ["✅ " + _pick_line(cat, lang, rec), answer.headline]
        if total is not None:
            return [
                t(
                    cat,
                    lang,
                    "short.cluster",
                    nodes=answer.cluster_nodes or "?",
                    card=cat.fleet.cluster.card,
                ),
                answer.headline,
            ]
    return []


def _lead(answer: Answer, lines: list[str]) -> list[str]:
    """A headline that opens with what was asked first ("how fast", or a follow-up's "cheaper?"
    or "why?"): line 1, the verdict after."""
    if (answer.leads_with or answer.follows_up) and answer.headline in lines:
        return [answer.headline, *(x for x in lines if x != answer.headline)]
    return lines


def _generic(answer: Answer, room_lines: int) -> tuple[list[str], int]:
    """Headline and the first lines of the answer for kinds that list rather than decide."""
    lines = [answer.headline] if answer.headline else []
    pool = [line for s in answer.sections for line in s.lines if line.strip()]
    take = max(0, room_lines - len(lines))
    if len(pool) > take:
        take = max(0, take - 1)  # keep a line to say how many more wait in the details
    lines.extend(pool[:take])
    return lines, max(0, len(pool) - take)


def short_lines(
    answer: Answer, catalog: Catalog, footer: str = "", *, more_line: bool = True
) -> list[str]:
    """At most 8 lines and 450 visible characters, the verdict first; ``footer`` goes last.

    ``footer`` is the "Prices as of" line, given only when the answer quotes a price;
    ``more_line`` says how many lines wait in the details; it is off when they follow at
    once, and then the short form keeps nothing the details repeat but the headline.
    """
    lang = answer.lang
    budget_lines = MAX_SHORT_LINES - (1 if footer else 0)
    lines = _lead(answer, _verdict(answer, catalog, more_line))
    hidden = 0
    if not lines and not more_line and answer.headline:
        # a list, a card sheet or a help text whose lines follow at once (plain text,
        # Markdown): the headline alone, or every line would be printed twice
        lines = [answer.headline]
        if (note := _caveat(answer)) is not None and note.code == "truncated":
            lines.append("⚠️ " + note.text)  # it may be why nothing was understood
    elif lines:
        alt = _alternative(answer)
        asked = [(f.card, f.count) for f in _asked_fits(answer)]
        if alt is not None and (alt.card, alt.count) not in asked:  # else line 1 said it
            lines.append(_alt_line(catalog, lang, alt, answer.recommendation))
        note = _caveat(answer)
        if note is not None and more_line:  # else "Watch out" follows with every caveat
            lines.append("⚠️ " + note.text)
    else:
        lines, hidden = _generic(answer, budget_lines)
        note = _caveat(answer)
        # a card's or a limit's urgent note, and "only the first 4,096 characters were read"
        # on any answer (it may be why nothing was understood)
        if note is not None and note.code == "truncated":
            lines.insert(1, "⚠️ " + note.text)  # right under the headline: it is the reason
        elif note is not None and answer.kind in ("card", "limit"):
            lines.append("⚠️ " + note.text)
    lines = _shaped(lines, more_line)
    if not lines:
        lines = [clip(answer.text, LINE_MAX) or ELLIPSIS]
    more = t(catalog, lang, "short.more", n=hidden) if hidden and more_line else ""
    tail = [x for x in (more, footer) if x]
    lines = lines[: MAX_SHORT_LINES - len(tail)]
    while len(lines) > 1 and _cost(lines + tail) > MAX_SHORT_CHARS:
        lines.pop()
        if not more and more_line:
            more = t(catalog, lang, "short.more_details")
            tail = [x for x in (more, footer) if x]
    if _cost(lines + tail) > MAX_SHORT_CHARS and more_line:
        room = MAX_SHORT_CHARS - _cost(tail) - (1 if tail else 0)
        lines = [clip(lines[0], room)]
    return lines + tail


def _cost(lines: list[str]) -> int:
    return sum(units(line) for line in lines) + max(0, len(lines) - 1)


def detail_blocks(answer: Answer, catalog: Catalog, math: bool = False) -> list[Block]:
    """Everything the answer knows, in order: sections, caveats, assumptions, the math."""
    lang = answer.lang
    blocks = [Block(s.title, list(s.lines)) for s in answer.sections if s.lines or s.title]
    if answer.caveats:
        title = t(catalog, lang, "render.watch_out")
        blocks.append(Block(title, [n.text for n in answer.caveats], "caveats"))
    if answer.assumptions:
        title = t(catalog, lang, "render.assumptions")
        blocks.append(Block(title, [n.text for n in answer.assumptions], "assumptions"))
    if (math or answer.show_math) and answer.math:  # asked in the words ("show the math")
        blocks.append(Block(t(catalog, lang, "render.show_math"), list(answer.math), "math"))
    return blocks

"""What to buy, or run at home, for a model: the fewest cards a person can own that hold it.

Judged by physics on desktop cards (every card of hardware.yaml, and the fleet's cards marked
``desktop`` in cards.yaml), never on the rental fleet: the same fit ladder as any owned card's
(engine/kinds/ladder.py), tried on one to four of each card. The chosen setup is then
answered as an owned-hardware fit (engine/kinds/fit.py), so its sums, speed, limits and
rental line are the fit's own; the options beside it are read from the same ladder rows.
There are no purchase prices in data: none is quoted; the cheapest rental is one last line.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from engine.answer_types import Answer, BuyOption, FitOption, Request, Section
from engine.kinds import ladder
from engine.kinds.base import Builder
from engine.kinds.fit import fit_answer
from engine.kinds.hardware import Hardware, card_hardware, owned_hardware
from engine.kinds.rungs import rungs
from engine.recommend import is_tight
from engine.text.buying import describe_buying
from engine.understand.asks import wants_to_buy

# Cards one desktop board takes: one, a pair, three or four; past four it is a server build.
HOME_COUNTS: Final = (1, 2, 3, 4)
# "4-bit": the formats of four to five bits per weight (INT4, Q4_K_M), where home setups go
# when the precision a model ships in needs more than a desktop holds
FOUR_BITS: Final = (4.0, 5.0)


class Row(NamedTuple):
    """One desktop setup (a card and a count) and its ladder: each precision's option."""

    hw: Hardware
    options: dict[str, FitOption]
    best: str | None  # the rung the ladder leads with on it (None: nothing fits)
    rented: bool  # a fleet card (cards.yaml), not an owned one


class Setup(NamedTuple):
    row: Row
    option: FitOption
    names: tuple[str, ...]  # the cards of this memory and count that hold it as well


class Home:
    """Every desktop card at each home count with its ladder (the fit's own rows), made a
    count at a time when first asked: most answers stop at one or two cards."""

    def __init__(self, b: Builder, req: Request) -> None:
        self.b, self.req = b, req
        self.fleet = [c for c in b.cat.card_by_name.values() if c.desktop]
        self._at: dict[int, list[Row]] = {}

    def at(self, n: int) -> list[Row]:
        rows = self._at.get(n)
        if rows is None:
            b = self.b
            hws = [card_hardware(c, n) for c in self.fleet]
            hws += [owned_hardware(c, n) for c in b.cat.owned_by_name.values()]
            rows = self._at[n] = []
            for hw in hws:
                _, options, _, best_at = ladder.ladder_options(b, hw, self.req)
                best = options[best_at].precision if best_at is not None else None
                rented = hw.card is not None
                rows.append(Row(hw, {o.precision: o for o in options}, best, rented))
        return rows


def _order(row: Row, option: FitOption, rank: int) -> tuple[bool, float, int, bool, float]:
    """Real room first, then the least memory a card, the heavier precision, a card the
    fleet also rents (its links are known), then the faster card."""
    hw = row.hw
    tight = is_tight(option.headroom_gb, hw.count)
    return tight, hw.vram_gb / hw.count, rank, not row.rented, -(hw.bandwidth_gbps or 0.0)


def smallest(
    home: Home | list[Row], precisions: list[str], most: int, least: int = 1, below_gb: float = 0.0
) -> Setup | None:
    """The fewest cards (``least`` to ``most``) that hold one of ``precisions`` (heaviest
    first), ordered by ``_order``; ``below_gb``: only cards with less memory than that."""
    for n in HOME_COUNTS:
        if n < least or n > most:
            continue
        held = []
        rows = home.at(n) if isinstance(home, Home) else home
        for row in rows:
            per_card = row.hw.vram_gb / n
            if row.hw.count != n or (below_gb and per_card >= below_gb):
                continue
            for rank, p in enumerate(precisions):  # each: a lighter one may have real room
                o = row.options.get(p)
                if o is not None and o.fits:
                    held.append((_order(row, o, rank), row, o))
        if not held:
            continue
        held.sort(key=lambda x: x[0])
        first = held[0]
        same = [r.hw.name for k, r, o in held if k[:3] == first[0][:3]]
        return Setup(first[1], first[2], tuple(dict.fromkeys(same)))
    return None


def _tight(s: Setup) -> bool:
    return is_tight(s.option.headroom_gb, s.row.hw.count)


def _four_bits(b: Builder, req: Request) -> list[str]:
    """The ladder's 4-bit rungs lighter than the request, heaviest first."""
    asked = b.cat.precision_by_name[req.precision].bits
    low, high = FOUR_BITS
    out = []
    for g in rungs(b, req):
        bits = b.cat.precision_by_name[g.precision].bits
        if g.precision != req.precision and low <= bits < high and bits < asked:
            out.append(g.precision)
    return out


def option(role: str, s: Setup, task: str | None = None) -> BuyOption:
    """One setup as the answer lists it; ``task``: a training method (then no decode speed:
    a training step is not a decode stream)."""
    hw, o = s.row.hw, s.option
    return BuyOption(
        role=role,
        card=hw.name,
        cards=list(s.names),
        count=hw.count,
        vram_gb=hw.vram_gb / hw.count,
        precision=o.precision,
        total_gb=o.total_gb,
        headroom_gb=o.headroom_gb,
        tight=is_tight(o.headroom_gb, hw.count),
        decode_tok_s=o.decode_tok_s if task is None else None,
        rented=s.row.rented,
        task=task,
    )


def _workstation(home: Home, verdict: Setup) -> Setup | None:
    """The single desktop card with the most memory, at the rung its ladder leads with (the
    higher-memory option), unless the verdict is that card already."""
    singles = [r for r in home.at(1) if r.best is not None]
    if not singles:
        return None
    top = max(r.hw.vram_gb for r in singles)
    if verdict.row.hw.count == 1 and verdict.row.hw.vram_gb >= top:
        return None
    best = [r for r in singles if r.hw.vram_gb == top]
    return smallest(best, [r.best for r in best if r.best is not None][:1], 1)


def _at_best(home: Home, s: Setup) -> Setup:
    """The setup found in 4-bit at the rung its ladder leads with, when that is heavier (one
    96 GB card holds a 70B at 32k in Q8_0, not only in Q4_K_M): the cards of its memory and
    count that hold that rung as well are named with it."""
    row = s.row
    if row.best is None or row.best == s.option.precision:
        return s
    best = row.options[row.best]
    if best.total_gb <= s.option.total_gb:
        return s
    n, per_card = row.hw.count, row.hw.vram_gb / row.hw.count
    same = [r for r in home.at(n) if r.hw.vram_gb / n == per_card]
    found = smallest(same, [row.best], n, n)
    return found if found is not None and found.row is row else Setup(row, best, (row.hw.name,))


def verdict_of(b: Builder, req: Request, home: Home) -> tuple[Setup | None, bool]:
    """The fewest desktop cards that hold it, and whether at a lighter precision than asked
    or shipped: as asked (up to four cards when the precision was said, one when it ships
    so), else in 4-bit on up to four, else as it ships on up to four."""
    said = b.q.precision is not None
    first = req.precision
    most = HOME_COUNTS[-1]
    verdict = smallest(home, [first], most if said else 1)
    if verdict is None and (four := _four_bits(b, req)):
        verdict = smallest(home, four, most)
        if verdict is not None:
            return _at_best(home, verdict), True
    if verdict is None and not said:
        verdict = smallest(home, [first], most)
    return verdict, False


def options(b: Builder, req: Request, home: Home) -> tuple[list[BuyOption], bool]:
    """The setups to list, the verdict first, and whether its precision is lighter than the
    one asked or shipped (the model needs more than a desktop holds in that)."""
    verdict, lighter = verdict_of(b, req, home)
    if verdict is None:
        return [], False
    first, most = req.precision, HOME_COUNTS[-1]
    out = [option("verdict", verdict)]
    # the precisions the verdict was found at (4-bit ones, when it was shown heavier)
    at = _four_bits(b, req) if lighter else [verdict.option.precision]
    n = verdict.row.hw.count
    vcard = verdict.row.hw.vram_gb / n
    snug = None if _tight(verdict) else smallest(home, at, n, n, vcard)
    if snug is not None and _tight(snug):  # a smaller card that holds it tight: said beside
        out.append(option("tight", snug))
    pair = smallest(home, at, 2, 2, vcard) if n == 1 else None
    if pair is not None and not _tight(pair):  # two smaller cards with real room
        out.append(option("pair", pair))
    if (big := _workstation(home, verdict)) is not None:
        out.append(option("workstation", big))
    if lighter and (shipped := smallest(home, [first], most)) is not None:
        out.append(option("shipped", shipped))
    if not lighter and (four := _four_bits(b, req)) and verdict.row.hw.count == 1:
        small = smallest(home, four, 1, 1, vcard)
        if small is not None:
            out.append(option("lighter", small))
    seen: set[tuple[str, int, str]] = set()
    kept = []
    for o in out:
        key = (o.card, o.count, o.precision)
        if key not in seen:
            seen.add(key)
            kept.append(o)
    return kept, lighter


def buying(b: Builder, req: Request) -> Answer:
    """ "Which gpu should I buy for 70b", "co kupić do qwen 32b", "รัน 70b ที่บ้าน": the fewest
    desktop cards that hold it, as a fit on them, with a couple of other setups beside it."""
    assert req.model is not None
    req = req.model_copy(update={"card": None, "count": None})
    home = Home(b, req)
    found, lighter = options(b, req, home)
    if not found:  # nothing a desktop holds: the fit on the largest card, and the rental
        top = max(home.at(1), key=lambda r: r.hw.vram_gb)
        asked = fit_answer(b, req, [top.hw])
        describe_buying(b.voice, asked, [], req, None, HOME_COUNTS[-1])
        return finish_buy(b, asked)
    v = found[0]
    row = next(r for r in home.at(v.count) if r.hw.name == v.card)
    shown = req
    if v.precision != req.precision:
        g = next(g for g in rungs(b, req) if g.precision == v.precision)
        shown = ladder.rung_request(b, req, g)
    answer = fit_answer(b, shown, [row.hw])
    answer.__dict__["alternatives"] = []  # rentals beside it: the one rental line says it
    full = b.breakdown(req).total if lighter else None
    describe_buying(b.voice, answer, found, req, full, HOME_COUNTS[-1])
    # a follow-up ("and at 32k?") refines the setup chosen
    answer.__dict__["request"] = shown.model_copy(update={"card": v.card, "count": v.count})
    return finish_buy(b, answer)


def buys(b: Builder) -> bool:
    """A buy question naming no hardware of its own ("which gpu to buy", "w domu")."""
    q = b.q
    named = q.cards or q.owned or q.vram_gb or q.unified
    return not named and wants_to_buy(q.text.lower())


def budget_said(b: Builder) -> str | None:
    """The amount a buy question gave to spend ("under $2000", "za 5000 zł"), as said: a
    purchase budget, which no data prices (only rentals are priced)."""
    q = b.q
    if q.other_money is not None:
        return q.other_money
    return b.usd(q.budget_usd) if q.budget_usd is not None else None


def buy_needs_model(b: Builder, amount: str) -> Answer:
    """ "co kupić do domu za 5000 zł do llm": what was read (buying, the amount), what is
    missing (the model or its size) and an example, not a request for a rental budget."""
    lines = [
        b.t("buy.need_model_read", amount=amount),
        b.t("buy.need_model_missing"),
        b.t("buy.need_model_example"),
    ]
    head = b.t("buy.need_model", amount=amount)
    return b.finish(Answer(kind="faq", headline=head, sections=[Section(title="", lines=lines)]))


def finish_buy(b: Builder, answer: Answer) -> Answer:
    b.caveat("buy_physics")
    if (amount := budget_said(b)) is not None:  # a purchase budget: said we cannot price it
        b.caveat("buy_budget", amount=amount)
    # the rental cards an FP8 checkpoint leaves out do not matter to what a person buys
    b.caveats = [n for n in b.caveats if n.code != "fp8_cards"]
    return b.finish(answer)

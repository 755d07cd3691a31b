"""``ask(text) -> Answer``: the one entry point every adapter calls.

Understanding says what was asked (:mod:`engine.understand`), typed options and the
conversation complete it (:mod:`engine.request`), and this module picks the kind of answer
(:mod:`engine.kinds`), which runs the arithmetic and writes the text in the asker's language.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from engine.answer_types import Answer, Context, Request, RequestOptions
from engine.catalog import Catalog, load_catalog
from engine.conversation import after_listing, listing_context
from engine.i18n import pick_lang
from engine.kinds.base import Builder
from engine.kinds.buying import budget_said, buy_needs_model, buying, buys
from engine.kinds.buying_train import buying_training
from engine.kinds.cheapest import cheapest_card
from engine.kinds.compare import compare as compare_kind
from engine.kinds.fit import fit, limit
from engine.kinds.fleet import budget, card, cards, what_fits
from engine.kinds.followup import cheaper, lead_with, why
from engine.kinds.owned import owned_card
from engine.kinds.sizing import sizing
from engine.kinds.talk import clarify, faq, faq_index, help_answer, invalid_option
from engine.kinds.within import named_set_note
from engine.lazyre import lazy
from engine.models import Card, Lang
from engine.recommend import Workload, set_allowed, set_headroom_gb
from engine.request import apply_options, build_request
from engine.understand import Query, parse
from engine.understand.asks import (
    about_card,
    about_owned_card,
    asks_price,
    asks_speed,
    owns_hardware,
    says_single,
    short_followup,
    wants_a_model,
    wants_math,
    wants_rental,
    wants_to_buy,
    weighs_cards,
)
from engine.understand.asks import (
    cheapest_card as asks_cheapest_card,
)
from engine.understand.variants import version_alias

__all__ = [
    "Context",
    "RequestOptions",
    "ask",
    "compare",
    "context_of",
    "default_catalog",
]

MAX_COMPARE: Final = 4  # items side by side, as many as a typed "X vs Y vs Z vs W"
# What one compared item says and another leaves out is shared ("llama 70b" vs "qwen 72b"
# with one precision), like the slots of a typed "X vs Y".
_SHARED: Final = ("precision", "context_tokens", "kv_dtype", "batch")
_SUBJECT: Final = ("model", "model_score", "others", "model_words", "size_b", "pasted", "shape")

# Card counts people build beyond the sets we rent: powers of two within a node, then whole
# 8-card nodes; past 64 cards the answer is a cluster quote, not a count of one card.
_HARDWARE_COUNTS: Final = (2, 4, 8, 16, 24, 32, 48, 64)

_FAQ_INDEX: Final = lazy(r"^\s*/?(?:faq|pytania|czesto zadawane|คำถามที่พบบ่อย)\s*[?!.]*\s*$", re.I)
# What _FAQ_INDEX can start with after the spaces (no other character folds to these under
# re.I, and str.lstrip strips exactly what \s matches): most texts skip the pattern.
_FAQ_FIRST: Final = frozenset("/fFpPcCค")


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    return load_catalog()


def ask(
    text: str,
    lang: str | None = None,
    *,
    locale: str | None = None,
    catalog: Catalog | None = None,
    previous: Context | None = None,
    options: RequestOptions | None = None,
) -> Answer:
    """Answer one question. ``lang`` forces the reply language; ``locale`` is only a hint;
    ``options`` are values the adapter already has as fields (they win over the text)."""
    cat = catalog or default_catalog()
    q = parse(text or "", cat)
    kept_lang = previous.lang if previous is not None else None  # the conversation's so far
    if previous is not None and previous.listing is not None:  # a budget's or a card's list
        after_listing(q, previous, cat)
        previous = None  # it has no request to refine: the query now says all there is
    if previous is not None and not (q.has_subject or q.cards or q.owned or q.has_modifier):
        previous = _short_followup(q, previous)
    if q.budget_usd is not None and q.wants_hourly:  # "$1 per hour": the month it comes to
        q.budget_usd *= cat.fleet.provider.hours_per_month  # (a kept budget is monthly)
    if previous is not None and previous.vram_gb and q.vram_gb is None:
        kept = _keep_amount(q, previous.vram_gb)  # a flag: q.vram_gb reads as None to mypy here
        q.unified = q.unified or (kept and previous.mac is not None)
    if previous is not None and previous.budget_usd and q.budget_usd is None:
        _keep_budget(q, previous.budget_usd)
    forced = pick_lang(lang)
    reply_lang: Lang = forced or q.lang or kept_lang or pick_lang(locale) or "en"
    b = Builder(cat, reply_lang, q, previous)
    if options is not None and (bad := apply_options(q, options, cat)) is not None:
        return invalid_option(b, *bad)
    if q.config_error is not None:  # a pasted config.json we could not read: say what is off
        code, _, keys = q.config_error.partition(":")
        return invalid_option(b, code, keys.replace(",", ", "))
    if q.invalid is not None and getattr(options, q.invalid[0], None) is None:
        return invalid_option(b, *q.invalid)  # "batch 0" was said: not "you did not say"
    if options is not None and (options.kind or options.faq_topic):
        return _named_kind(b, options)
    answer = _dispatch(b)
    if q.short == "why" and answer.kind in ("sizing", "fit"):
        return why(b, answer)
    if q.short == "math" or (q.short is None and wants_math(q.text.lower())):
        return lead_with(answer, "math", None)  # "show the math": the same answer, math shown
    return answer


def compare(
    items: Sequence[str | RequestOptions],
    lang: str | None = None,
    *,
    locale: str | None = None,
    catalog: Catalog | None = None,
    options: RequestOptions | None = None,
) -> Answer:
    """Answer two or more things side by side (a /compare command): each item is a person's
    own words ("llama 3.1 8b", "h100") or typed options; ``options`` apply to every item.

    Each item is answered as if asked alone, with what another item says and it leaves out
    shared (a model, a precision), then the kind "compare" puts them side by side with one
    verdict, exactly as a typed "X vs Y" would be answered."""
    cat = catalog or default_catalog()
    qs: list[Query] = []
    bad: tuple[str, str] | None = None
    for item in items[:MAX_COMPARE]:
        q = parse(item if isinstance(item, str) else "", cat)
        q.alternatives = []  # an item is one thing, even when its words say "or"
        for o in (item, options):
            if isinstance(o, RequestOptions) and bad is None:
                bad = apply_options(q, o, cat)
        qs.append(q)
    forced = pick_lang(lang)
    said = next((q.lang for q in qs if q.lang), None)
    reply_lang: Lang = forced or said or pick_lang(locale) or "en"
    top = Query(text="", lang=reply_lang, alternatives=qs)
    b = Builder(cat, reply_lang, top, None)
    if bad is not None:
        return invalid_option(b, *bad)
    qs = top.alternatives = _share(qs)
    vague = next((q for q in qs if q.unmatched_model and not q.has_subject), None)
    if vague is not None:  # "which model did you mean?" comes before any comparison
        return clarify(Builder(cat, reply_lang, vague, None))
    if len(qs) < 2:
        return _dispatch(Builder(cat, reply_lang, qs[0], None)) if qs else help_answer(b)
    return compare_kind(b, _dispatch)


def _share(qs: list[Query]) -> list[Query]:
    """Fill each item's unsaid slots from the first item that says them. The model is shared
    only into items that name no model at all (a card alone), never over a vague name; a
    model compared with cards ("70b int4", "4090", "5090") is that model on each card."""
    hardware = [q for q in qs if q.cards or q.vram_gb]
    models = [q for q in qs if q.has_subject and q not in hardware]
    keep = hardware if len(models) == 1 and hardware and len(hardware) + 1 == len(qs) else qs
    subject = next((q for q in qs if q.has_subject), None)
    for q in qs:
        if subject is not None and not q.has_subject and not q.model_words.strip():
            for name in _SUBJECT:
                setattr(q, name, getattr(subject, name))
        for name in _SHARED:
            if getattr(q, name) is None:
                src = next((o for o in qs if getattr(o, name) is not None), None)
                if src is not None:
                    setattr(q, name, getattr(src, name))
        if q.task is None and (src := next((o for o in qs if o.task), None)) is not None:
            q.task, q.task_generic = src.task, src.task_generic
    return keep


def _named_kind(b: Builder, options: RequestOptions) -> Answer:
    """The answer kind an adapter asked for by name (/gpus, /card X, /faq X, /help)."""
    if options.kind == "cards":
        return cards(b)
    if options.kind == "card" and b.q.cards:
        return card(b, b.q.cards[0].name)
    if b.q.faq_topic is not None:
        return faq(b, b.q.faq_topic)
    return help_answer(b)


def context_of(answer: Answer) -> Context | None:
    """The state a follow-up needs, or None when the answer has no request to refine (a
    budget's or a capacity's list keeps its budget or hardware and its context and users)."""
    if answer.request is None or answer.request.model is None:
        return listing_context(answer)
    rec = answer.recommendation
    pick, count = (rec.card, rec.count) if rec else (None, None)
    fit, vram = answer.fit, None
    if fit is not None:
        pick, count = fit.card, fit.count
        if answer.request.card is None:  # checked against a plain amount, not a card
            vram = fit.vram_gb
    mac = fit.mac if fit is not None and vram is not None else None
    lim = answer.limit
    if lim is not None:  # "how many users?" on the asker's card, Mac or rig: kept as the pick
        pick, count, vram, mac = lim.card, lim.count, lim.vram_gb, lim.mac
    return Context(answer.request, pick, count, vram, answer.budget_usd, mac, lang=answer.lang)


def _short_followup(q: Query, prev: Context) -> Context:
    """ "cheaper?", "why?", "show the math", "taniej?", "ทำไม" after an answer: "why" and
    "math" answer the same request again (``ask`` then leads with the reason or shows the
    math); "cheaper" the same need with the card dropped and the last pick kept, so the
    answer can beat its price. Any other message: ``prev`` as is."""
    said = short_followup(q.text.lower())
    if said is None:
        return prev
    what, lang = said
    q.followup = True
    q.short = what
    q.lang = q.lang or lang  # type: ignore[assignment]  # one of en, pl, th
    if what != "cheaper":
        return prev
    req = prev.request.model_copy(update={"card": None, "count": None})
    return Context(req, prev.pick_card, prev.pick_count, budget_usd=prev.budget_usd, lang=prev.lang)


def _keep_budget(q: Query, budget_usd: float) -> None:
    """A follow-up ("and at 32k?", "what about qwen2.5 72b?") stays within the budget it was
    asked with; one that names hardware asks about that hardware instead."""
    if q.cards or q.owned or q.vram_gb is not None:
        return
    if q.followup or (not q.has_subject and q.has_modifier):
        q.budget_usd = budget_usd


def _keep_amount(q: Query, vram_gb: float) -> bool:
    """A follow-up that names no hardware ("and at 32k?") stays on the last plain amount;
    one that asks what to rent ("which card do i need at 32k?") leaves it. True: kept."""
    if q.cards or q.owned or q.count is not None or wants_rental(q.text.lower()):
        return False
    if q.followup or (not q.has_subject and q.has_modifier):
        q.vram_gb = vram_gb
        return True
    return False


def _several(b: Builder, req: Request) -> Request:
    """ "On h100s" with no count: the smallest set of that card that holds the request; so
    too "what does it cost on b200": the price of the set it needs, not of one card."""
    uncounted = [a for a in b.q.cards if a.count is None]
    if req.model is None or not uncounted:
        return req
    low = b.q.text.lower()
    priced = asks_price(low) and not says_single(low)  # "a single h100": one, as said
    asks = [a for a in uncounted if a.several or priced]
    if not asks:
        return req
    need = b.breakdown(req).total
    w = b.workload(req, need)
    for a in asks:
        card = b.cat.card_by_name[a.name]
        sizes = sorted({n for n in (card.min_count, *card.set_sizes) if n >= card.min_count})
        ok = [n for n in sizes if set_allowed(card, n, w) is None]
        held = next((n for n in ok if set_headroom_gb(card, n, w) >= 0), None)
        if w.task != "inference":  # training shards by data parallelism: any count will do
            least = _least_count(card, w)
            held = least if least is not None and (held is None or least < held) else held
        if held is None:  # no set we rent holds it: the count the hardware itself needs
            more = (n for n in _HARDWARE_COUNTS if n > sizes[-1])
            held = next((n for n in more if set_headroom_gb(card, n, w) >= 0), None)
        a.count = held if held is not None else max(ok or sizes)
    first = b.q.cards[0]
    return req.model_copy(update={"count": first.count}) if first.name == req.card else req


def _least_count(card: Card, w: Workload) -> int | None:
    """The fewest cards whose memory holds a training run (ZeRO or FSDP shard it over any
    count; the heads rule is tensor parallelism's), at least the card's own minimum; None
    past the largest count we size (a cluster quote)."""
    first = max(card.min_count, math.ceil(w.need_gb / card.vram_gb))
    last = _HARDWARE_COUNTS[-1]
    return next((n for n in range(first, last + 1) if set_headroom_gb(card, n, w) >= 0), None)


def _weighs_two_cards(q: Query) -> bool:
    """Two different cards named and weighed ("is the h200 worth it over h100?")."""
    cards = q.cards
    if len(cards) != 2 or cards[0].name == cards[1].name or q.owned or q.vram_gb:
        return False
    return weighs_cards(q.text.lower())


def _prev_hw(b: Builder) -> bool:
    """Whether a follow-up has hardware from the last answer: its card, or the person's
    rig of different cards ("my 3090 + 3080", then "how many users at 16k?")."""
    if b.prev_set() is not None:
        return True
    return b.q.followup and b.prev is not None and " + " in (b.prev.pick_card or "")


def _dispatch(b: Builder) -> Answer:
    """Which kind of answer the question is, in the order that settles overlaps."""
    q = b.q
    # Typed options alone refine the previous answer (an alternative-card button, say).
    subject = q.has_subject  # a property: read once (nothing here changes it)
    if q.wants_help or (not q.text and not subject and not (b.prev is not None and q.has_modifier)):
        return help_answer(b)
    if not q.alternatives and not subject and _weighs_two_cards(q):  # "X over Y", "instead of"
        q.alternatives = [parse(f"{c.count or 1}x {c.name}", b.cat) for c in q.cards]
    if q.alternatives:  # "X vs Y": each alternative answered alone, side by side
        return compare_kind(b, _dispatch)
    if q.wants_cards and not subject:
        return cards(b)
    fp8 = q.precision == "fp8"  # "cheapest card with fp8", "cheapest 80gb card"
    if not subject and not q.cards and (fp8 or q.vram_gb) and asks_cheapest_card(q.text.lower()):
        return cheapest_card(b, fp8, q.vram_gb)
    if q.text.lstrip()[:1] in _FAQ_FIRST and _FAQ_INDEX.match(q.text):
        return faq_index(b)
    if q.wants_what_fits and not subject:
        return what_fits(b)
    if q.bad_size_b is not None:
        return help_answer(b, bad_size=True)
    for name in q.unknown_precisions:
        b.caveat("unknown_precision", name=name)
    if q.model is not None and (said := version_alias(q)) is not None:  # "deepseek v3.1"
        b.assume("version_alias", said=said, name=q.model.name)
    if q.variant is not None:  # "h100 nvl 94gb": a variant we do not know, sized as 94 GB
        b.assume("card_variant", card=q.variant[0], gb=b.num(q.variant[1], 1).removesuffix(".0"))
    if q.variant_word is not None:  # "h100 nvl": sized on the catalog's H100 SXM, said so
        said, name = q.variant_word
        gb = (b.cat.card_by_name.get(name) or b.cat.owned_by_name[name]).vram_gb
        b.assume("card_variant_word", said=said, card=name, gb=b.num(gb, 1).removesuffix(".0"))
    if q.extra_precisions and q.precision:
        b.caveat(
            "two_precisions",
            used=q.precision.upper(),
            ignored=", ".join(p.upper() for p in q.extra_precisions),
        )
    # "h100 na godziny", "h100 na stanie?": renting by the hour or stock (the FAQ, with that
    # card's figures), not the card's specs
    rental = q.faq_topic is not None and (q.wants_hourly or q.faq_topic == "regions")
    one_card = len(q.cards) == 1 and not subject and not q.followup
    if q.wants_card_info and one_card and not rental:
        return card(b, q.cards[0].name)  # "card h100" asks about the card itself
    merged = build_request(b)
    # "co kupić do domu za 5000 zł", "best gpu to buy under $2000": money to buy with, not rent
    buy_money = (q.other_money is not None or q.budget_usd is not None) and buys(b)
    if merged is None and buy_money:  # no model to size: what was read, what is missing
        return buy_needs_model(b, budget_said(b) or "")
    if merged is None and q.other_money is not None:  # "what fits 2000 zł": ask for dollars
        return invalid_option(b, "budget_currency", q.other_money)
    if q.other_money is not None and not buy_money:  # a model was asked about too: say so
        b.caveat("other_currency", value=q.other_money)
    if q.bpw is not None and merged is not None and merged[0].precision == q.bpw[1]:
        bits = b.cat.precision_by_name[q.bpw[1]].bits  # "exl2 4.65bpw": which type stood in
        b.assume("bpw", bpw=b.num(q.bpw[0], 2), prec=q.bpw[1].upper(), bits=b.num(bits, 2))
    if q.system_ram_gb is not None:  # "3090 + 64gb ram": memory the card cannot use
        alone = "caveat.system_ram_alone" if merged is None else None  # nothing sized
        b.caveat("system_ram", alone, ram=b.gb(q.system_ram_gb))
    if merged is None:
        if q.faq_topic is not None and not q.budget_usd:
            return faq(b, q.faq_topic)
        low = q.text.lower()
        if (
            q.owned
            and not q.cards
            and q.budget_usd is None
            and about_owned_card(low, q.model_words)
        ):
            return owned_card(b)  # "rx 7900 xtx specs", "is a 3060 good for llms?"
        if q.unmatched_model:
            return clarify(b)
        if q.budget_usd is not None:
            return budget(b)
        if q.cards:  # the card's sheet, unless what runs on it is asked ("i have 2x 3090")
            mine = owns_hardware(low) and not q.wants_card_info
            runs = q.wants_fit or wants_a_model(low) or (mine and not about_card(low))
            if runs and not q.model_words.split() and not wants_rental(low):
                return what_fits(b)  # "can I rent a single B200?" asks about the card
            return card(b, q.cards[0].name)
        if (q.owned or q.vram_gb) and not q.model_words.split():  # "rtx 4060 ti", "128gb"
            return what_fits(b)
        return help_answer(b, not_understood=True)
    req, model_note = merged
    if model_note:
        b.assume(model_note[0], **model_note[1])
    if q.short == "cheaper" and req.model is not None:
        return cheaper(b, req)  # a cheaper way than the last pick, said as such
    req = _several(b, req)
    # "ile tokenów/s", "how many tokens per second": the speed, not the longest context
    speed = q.wants_limit == "context" and asks_speed(q.text.lower())
    if q.wants_limit and not speed and (q.cards or q.owned or q.vram_gb or _prev_hw(b)):
        return limit(b, req)
    # "which gpu should i buy for 70b", "w domu", "ที่บ้าน": desktop cards, not the fleet
    named = q.cards or q.owned or q.vram_gb or q.unified
    if not named and wants_to_buy(q.text.lower()):
        return buying(b, req) if req.task == "inference" else buying_training(b, req)
    if q.budget_usd is not None and q.cards and req.task == "inference":
        return sizing(b, named_set_note(b, req, q.budget_usd))  # the budget, and the set
    if ((q.cards or q.owned or q.vram_gb) and req.task == "inference") or q.wants_fit:
        return fit(b, req)
    if (q.cards or q.owned) and req.task != "inference":
        return fit(b, req)
    if req.card is not None:  # a follow-up keeps checking the card it was about
        return fit(b, req)
    return sizing(b, req)

"""The answers in words: an FAQ topic, the FAQ index, "which model did you mean", help, and
the reply to a typed option that cannot be used.
"""

from __future__ import annotations

from typing import Final

from engine.answer_types import Answer, Candidate, Section
from engine.faq import answer as faq_lines
from engine.faq import faq_card
from engine.kinds.base import Builder
from engine.limits import MAX_SIZE_B, MIN_SIZE_B
from engine.recommend import set_price
from engine.refs import card_info
from engine.understand.asks import wants_a_model

HELP_EXAMPLES: Final = (1, 2, 3, 4, 5)  # message keys help.example_<n>: questions people type


def faq(b: Builder, topic: str) -> Answer:
    named = b.cat.card_by_name.get(b.q.cards[0].name) if len(b.q.cards) == 1 else None
    count = (b.q.cards[0].count or 1) if named is not None else 1
    if named is None and topic == "hourly_vs_monthly" and b.prev is not None:
        # "per hour?" after an answer: the set that answer was about, not an example card
        named = b.cat.card_by_name.get(b.prev.pick_card or "")
        count = b.prev.pick_count or 1
    body = faq_lines(b.cat, b.lang, topic, named)
    if topic == "regions" and named is not None and named.stock_free is None:
        # "do you have h100s in stock": say what the data holds, and where to ask for the rest
        known = ", ".join(f"{c.name} ({c.stock_free})" for c in b.cat.cards if c.stock_free)
        body = [b.t("faq.stock_unknown", card=named.name, known=known or "-"), *body]
    title = b.t(f"faq.{topic}.title")
    if topic == "hourly_vs_monthly" and named is not None:  # "h100 per hour?": the price first
        hours = b.cat.fleet.provider.hours_per_month
        by_hour = named.hourly_usd is not None  # a price book that rents by the hour
        if count > 1 and count in named.set_sizes and not by_hour:  # "8x h100 per hour"
            _, pct, month = set_price(b.cat, named, count)
            title = b.t(
                "faq.hourly_set",
                count=count,
                card=named.name,
                hour=b.voice.usds[month / hours],
                month=b.voice.usds[month],
                pct=b.num(pct),
            )
        else:
            title = b.t(
                "faq.hourly_card_book" if by_hour else "faq.hourly_card",
                card=named.name,
                hour=b.voice.usds[named.hourly_usd or named.monthly_usd / hours],
                month=b.voice.usds[named.monthly_usd],
                hours=hours,
            )
    one = faq_card(b.cat, topic, named)
    answer = Answer(
        kind="faq",
        faq_topic=topic,
        card=card_info(b.cat, one) if one is not None else None,
        headline=title,
        sections=[Section(title="", lines=body)],
    )
    return b.finish(answer)


def faq_index(b: Builder) -> Answer:
    lines = [f"• {b.t(f'faq.{t.id}.title')} (faq {t.id})" for t in b.cat.faq]
    return b.finish(
        Answer(
            kind="faq",
            headline=b.t("faq.index"),
            sections=[Section.model_construct(title="", lines=lines)],
        )
    )


def clarify(b: Builder) -> Answer:
    cands = [Candidate(id=o.model.id, name=o.model.name, score=o.score) for o in b.q.others[:5]]
    words = b.q.model_words.strip()
    if cands:
        head = b.t("clarify.which", words=words)
        lines = [f"• {c.name}" for c in cands] + [b.t("clarify.retry")]
    else:
        head = b.t("clarify.unknown", words=words)
        lines = [b.t("help.example")]
    answer = Answer(
        kind="clarify",
        candidates=cands,
        headline=head,
        sections=[Section(title="", lines=lines)],
    )
    return b.finish(answer)


def help_answer(b: Builder, not_understood: bool = False, bad_size: bool = False) -> Answer:
    head = b.t("help.not_understood" if not_understood else "help.title")
    if not_understood and wants_a_model(b.q.text.lower()):
        head = b.t("help.needs_hardware")
    if bad_size:  # "0b", "1e-28t": refused with the range that makes sense
        head = b.t("help.bad_size", min=b.num(MIN_SIZE_B, 2), max=b.num(MAX_SIZE_B))
    lines = [
        b.t("help.intro"),
        b.t("help.examples"),
        *(f"• {b.t(f'help.example_{n}')}" for n in HELP_EXAMPLES),  # in the reader's words
        b.t("help.defaults"),
    ]
    return b.finish(Answer(kind="help", headline=head, sections=[Section(title="", lines=lines)]))


def invalid_option(b: Builder, option: str, value: str) -> Answer:
    """A typed option nobody can size with (a context of 0, an unknown card): say which and
    what would work, instead of quietly using a default."""
    answer = Answer(
        kind="error",
        headline=b.t(f"option.{option}", value=value[:80]),
        sections=[Section(title="", lines=[b.t("help.example")])],
    )
    return b.finish(answer)

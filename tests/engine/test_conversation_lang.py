"""A follow-up that says nothing of its language ("qlora", "int4?", "8k") is answered in the
language of the conversation so far, not the platform's hint or English; one that does say
it switches; and the language survives the bot's context store."""

from __future__ import annotations

import pytest

from bot.store import context_from_json, context_to_json
from engine import ask, context_of


@pytest.mark.parametrize(
    ("first", "lang"),
    [
        ("czy llama 3.1 70b zmieści się na 2x 3090?", "pl"),
        ("llama 3.1 70b บน 2x 3090 ได้ไหม", "th"),
        ("does llama 3.1 70b fit on 2x 3090?", "en"),
    ],
)
@pytest.mark.parametrize("then", ["qlora", "int4", "32k"])
def test_a_wordless_follow_up_keeps_the_conversations_language(
    first: str, lang: str, then: str
) -> None:
    a = ask(first)
    assert a.lang == lang
    ctx = context_of(a)
    assert ctx is not None and ctx.lang == lang
    hint = "th" if lang != "th" else "pl"  # the platform hints another language
    b = ask(then, locale=hint, previous=ctx)
    assert b.lang == lang
    stored = context_from_json(context_to_json(ctx))
    assert stored.lang == lang and ask(then, previous=stored).lang == lang


def test_a_follow_up_in_another_language_switches() -> None:
    ctx = context_of(ask("czy llama 3.1 70b zmieści się na 2x 3090?"))
    assert ask("what about int4?", previous=ctx).lang == "en"


def test_a_context_stored_before_the_language_was_kept_still_loads() -> None:
    ctx = context_of(ask("70b int4"))
    assert ctx is not None
    old = context_to_json(ctx).replace(', "lang": "en"', "")
    assert '"lang"' not in old and context_from_json(old).lang is None

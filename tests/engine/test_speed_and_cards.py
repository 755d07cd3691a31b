"""Questions about speed and about the cards themselves, asked as new users ask them: a speed
question leads with the decode ceiling, "X over Y" compares two cards, a buying question is
about cards one can own, and the prices quoted are those of the set actually rented."""

from __future__ import annotations

import re

import pytest

from bot.render.short import short_lines
from engine import ask, default_catalog


def _tok(line: str) -> float:
    m = re.search(r"(\d+(?:[.,]\d+)?) (?:tokens/s|tok/s|token/s)", line)
    assert m is not None, line
    return float(m.group(1).replace(",", "."))


# -- 1. a speed question gets the decode ceiling first, then the fit


@pytest.mark.parametrize(
    ("q", "lang", "opens"),
    [
        ("how fast is llama 3.1 8b on a 4090 tok/s", "en", "Speed:"),
        ("tokens per second for mistral 7b on an L4?", "en", "Speed:"),
        ("jaka szybkość llama 3.1 8b na rtx 3090?", "pl", "Szybkość:"),
        ("llama 3.1 8b บน 4090 เร็วแค่ไหน", "th", "ความเร็ว:"),
    ],
)
def test_speed_question_leads_with_the_decode_ceiling(q: str, lang: str, opens: str) -> None:
    a = ask(q)
    assert a.kind == "fit" and a.lang == lang and a.fit is not None and a.fit.fits
    assert a.leads_with == "speed"
    first = a.headline.split(". ")[0]
    assert a.headline.startswith(opens)
    assert a.decode_tok_s is not None and _tok(first) == round(a.decode_tok_s)
    assert a.text.splitlines()[0].startswith(opens)  # the text too, not line 6
    assert short_lines(a, default_catalog())[0].startswith(opens)  # and the chat form


def test_speed_of_a_precision_that_does_not_fit_is_the_best_rungs() -> None:
    """FP8 of Qwen3 30B-A3B does not fit a 5090: the speed of the rung that does, said so,
    and "ile tokenów/s" is a speed, not the longest context."""
    a = ask("qwen3 30b a3b na rtx 5090 w fp8 ile tokenów/s?")
    assert a.kind == "fit" and a.lang == "pl"
    f = a.fit
    assert f is not None and not f.fits and f.best is not None and f.best.precision == "q6_k"
    assert f.decode_tok_s and a.decode_tok_s == f.decode_tok_s
    assert f.best.decode_tok_s == pytest.approx(f.decode_tok_s)
    assert a.headline.startswith("Szybkość: FP8 nie mieści się na RTX 5090; w Q6_K")
    assert _tok(a.headline.split(". ")[0]) == round(f.decode_tok_s)


def test_speed_with_no_card_named_is_the_picks() -> None:
    a = ask("how fast is llama 3.1 70b?")
    assert a.kind == "sizing" and a.recommendation is not None
    assert a.recommendation.decode_tok_s
    assert a.headline.startswith("Speed: about")
    assert a.recommendation.card in a.headline.split(". ")[0]
    assert _tok(a.headline) == round(a.recommendation.decode_tok_s)


def test_a_plain_fit_question_still_opens_with_the_verdict() -> None:
    a = ask("llama 3.1 8b on a 4090")
    assert a.leads_with is None and a.headline.startswith("Yes:")
    assert ask("ile tokenów kontekstu zmieszczę z llamą 3.1 70b int4 na a100?").kind == "limit"

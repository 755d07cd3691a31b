"""Answer kinds asked for by name and comparisons of typed items: what a /gpus, /card X,
/faq X or /compare command holds as fields reaches the engine as fields, never as a sentence,
and gets the same numbers a person typing the question would get.
"""

from __future__ import annotations

import pytest

from engine import LANGS, Answer, Catalog, RequestOptions, ask, compare, load_catalog, t


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def same(a: Answer, b: Answer) -> None:
    """Two answers that say the same: kind, headline, every line and every number."""
    assert (a.kind, a.lang, a.headline) == (b.kind, b.lang, b.headline)
    assert a.sections == b.sections
    assert a.card == b.card and a.cards == b.cards and a.faq_topic == b.faq_topic


@pytest.mark.parametrize("lang", LANGS)
def test_named_kinds_equal_the_typed_questions(cat: Catalog, lang: str) -> None:
    fleet = ask("", lang, catalog=cat, options=RequestOptions(kind="cards"))
    assert fleet.kind == "cards" and len(fleet.cards) == len(cat.cards)
    same(fleet, ask("gpus", lang, catalog=cat))
    one = ask("", lang, catalog=cat, options=RequestOptions(kind="card", card="a40"))
    assert one.card is not None and one.card.name == "A40"
    same(one, ask("card a40", lang, catalog=cat))
    topic = ask("", lang, catalog=cat, options=RequestOptions(kind="faq", faq_topic="kv_cache"))
    same(topic, ask("/faq kv_cache", lang, catalog=cat))
    same(
        ask("", lang, catalog=cat, options=RequestOptions(faq_topic="sales")),
        ask("/faq sales", lang, catalog=cat),
    )
    same(
        ask("", lang, catalog=cat, options=RequestOptions(kind="help")),
        ask("help", lang, catalog=cat),
    )


def test_the_named_kind_wins_over_the_text(cat: Catalog) -> None:
    """A card name that reads like a question ("4090 70b") is still the card."""
    a = ask("70b int4", catalog=cat, options=RequestOptions(kind="card", card="4090"))
    assert a.kind == "card" and a.card is not None and a.card.name == "RTX 4090"
    assert ask("70b", catalog=cat, options=RequestOptions(kind="cards")).kind == "cards"


@pytest.mark.parametrize(
    ("options", "value"),
    [
        (RequestOptions(kind="sizing"), "sizing"),
        (RequestOptions(kind="card"), "card"),  # which card?
        (RequestOptions(kind="card", card="zz9000"), "zz9000"),
        (RequestOptions(kind="faq"), ""),
        (RequestOptions(faq_topic="no_such_topic"), "no_such_topic"),
        (RequestOptions(kind="cards", faq_topic="kv_cache"), "kv_cache"),
    ],
)
def test_a_named_kind_that_cannot_be_answered_is_refused(
    cat: Catalog, options: RequestOptions, value: str
) -> None:
    a = ask("", "pl", catalog=cat, options=options)
    assert a.kind == "error"
    assert f"„{value}”" in a.headline
    assert a.headline != t(cat, "en", "help.title")


def test_compare_of_typed_items_equals_the_typed_question(cat: Catalog) -> None:
    typed = ask("llama 3.1 8b vs qwen2.5 7b at 32k", catalog=cat)
    assert typed.kind == "compare"
    a = compare(
        ["llama 3.1 8b", "qwen2.5 7b"], catalog=cat, options=RequestOptions(context_tokens="32k")
    )
    assert a.kind == "compare" and a.verdict == typed.verdict
    assert [i.memory_gb for i in a.items] == [i.memory_gb for i in typed.items]
    assert [i.recommendation for i in a.items] == [i.recommendation for i in typed.items]
    cards = compare(["h100", "a100"], catalog=cat)
    assert cards.verdict == ask("h100 vs a100", catalog=cat).verdict
    assert [i.card.name for i in cards.items if i.card] == ["H100 SXM", "A100 SXM"]


def test_compare_items_share_what_one_of_them_says(cat: Catalog) -> None:
    a = compare([RequestOptions(model_id="llama-3.1-70b"), "qwen2.5 72b int4"], catalog=cat,
                options=RequestOptions(context_tokens=32768))  # fmt: skip
    reqs = [i.request for i in a.items if i.request is not None]
    assert [(r.precision, r.context_tokens) for r in reqs] == [("int4", 32768)] * 2
    assert [r.model.id for r in reqs if r.model] == ["llama-3.1-70b", "qwen2.5-72b"]
    # a model compared with cards is that model on each card
    on_cards = compare(["70b int4", "4090", "a100"], catalog=cat)
    assert [i.kind for i in on_cards.items] == ["fit", "fit"]
    alone = ask("70b int4", catalog=cat, options=RequestOptions(card="A100 SXM"))
    assert on_cards.items[1].fit == alone.fit and alone.fit is not None and alone.fit.fits
    assert "A100 SXM" in (on_cards.verdict or "")
    # a vague name keeps its own clarify; it is never replaced by the other item's model
    vague = compare(["lama", "qwen2.5 7b"], catalog=cat)
    assert vague.kind == "clarify" and vague.candidates
    assert vague.headline == ask("lama", catalog=cat).headline


def test_compare_in_the_askers_language_and_bad_options(cat: Catalog) -> None:
    a = compare(["llama 3.1 8b", "qwen2.5 7b"], locale="th", catalog=cat)
    assert a.lang == "th" and all(i.lang == "th" for i in a.items)
    bad = compare(["70b", "13b"], catalog=cat, options=RequestOptions(precision="int3"))
    assert bad.kind == "error" and "int3" in bad.headline
    assert compare(["70b"], catalog=cat).kind == "sizing"
    assert compare([], catalog=cat).kind == "help"


@pytest.mark.parametrize("lang", ["pl", "th"])
def test_help_examples_are_in_the_readers_language(cat: Catalog, lang: str) -> None:
    """Each example is one a reader of that language would type, and it answers."""
    lines = ask("help", lang, catalog=cat).sections[0].lines
    english = ask("help", "en", catalog=cat).sections[0].lines
    examples = [line[2:] for line in lines if line.startswith("• ")]
    assert len(examples) == 5 and examples != [
        line[2:] for line in english if line.startswith("• ")
    ]
    for n, example in enumerate(examples, 1):
        assert example == t(cat, lang, f"help.example_{n}")
        answer = ask(example, catalog=cat)
        assert answer.lang == lang and answer.kind in {"sizing", "fit", "card"}, example
        english_answer = ask(t(cat, "en", f"help.example_{n}"), catalog=cat)
        assert answer.kind == english_answer.kind
        assert answer.memory_gb == english_answer.memory_gb

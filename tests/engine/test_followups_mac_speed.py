"""A speed follow-up on a Mac ("m3 max 64gb llama 70b?", "and qwen3 32b?", "how fast?") stays
on the Mac and does not contradict the fit after it: the data hold no Mac memory bandwidth,
so the lead says there is no estimate for that reason, never that the Mac holds the model at
no precision while the same headline says it fits in Q8_0."""

from __future__ import annotations

import pytest

from engine import Catalog, default_catalog
from tests.chat_support import chat as _chat


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


@pytest.mark.parametrize(
    ("lang", "texts", "none_words", "no_figure"),
    [
        ("en", ["m3 max 64gb llama 70b?", "and qwen3 32b?", "how fast?"],
         "no precision we size", "no memory bandwidth figure"),
        ("en", ["how fast is qwen3 32b on m3 max 64gb?"],
         "no precision we size", "no memory bandwidth figure"),
        ("pl", ["jak szybko qwen3 32b na m3 max 64gb?"],
         "w żadnej precyzji", "przepustowości pamięci"),
    ],
)  # fmt: skip
def test_mac_speed_follow_up_does_not_contradict_the_fit(
    cat: Catalog, lang: str, texts: list[str], none_words: str, no_figure: str
) -> None:
    a = _chat(cat, *texts)[-1]
    assert a.kind == "fit" and a.lang == lang and a.fit is not None
    assert a.fit.mac == "Mac M3 Max"
    assert a.fit.best is not None and a.fit.best.precision == "q8_0"  # it fits in Q8_0
    assert a.leads_with == "speed"
    assert none_words not in a.headline
    assert no_figure in a.headline
    assert "Q8_0" in a.headline
    assert a.headline.count("Mac M3 Max (64 GB") == 1  # the long label once, in the fit part

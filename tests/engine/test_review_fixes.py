"""Inputs a review of the day's change found mishandled, kept as plain examples."""

from __future__ import annotations

from engine import ask, load_catalog

CAT = load_catalog()


def test_a_huge_amount_after_a_card_is_no_variant_and_no_crash() -> None:
    for text in ("16-BIT a40 " + "9" * 300 + "gb", "is a 3090 " + "9" * 320 + "gb enough for 13b"):
        a = ask(text, catalog=CAT)
        assert a.kind not in ("error",) and a.headline
        assert not any("I know no" in x.text for x in a.assumptions)


def test_a_zero_amount_after_a_card_leaves_the_card() -> None:
    a = ask("a100 0gb llama 3.1 8b", catalog=CAT)
    assert a.kind == "fit" and a.fit is not None and a.fit.card == "A100 SXM"

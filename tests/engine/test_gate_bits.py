"""The word gates the parser reads before a scan: each text a gated pattern matches sets its
bit (the gate may only skip texts the pattern cannot match)."""

from __future__ import annotations

import re

import pytest

from engine.understand import gates as g
from engine.understand.catalog_words import MAC
from engine.understand.patterns import FOLLOWUP_ANYWHERE, KV_AFTER, KV_FIRST
from engine.understand.pipeline import _THINKING_OF
from engine.understand.rig import _ONE_MORE
from engine.understand.variants import _UNKNOWN_CARD, _VARIANT_WORD


def test_bits_are_distinct_and_common_ones_fit_one_digit() -> None:
    bits = g._ALL_BITS
    assert len(set(bits)) == len(bits)
    # the gates most questions hold stay below 2**30 (a one-digit int)
    for bit in (g.HAS_DIGIT, g.HAS_CARD_WORD, g.HAS_KM_END, g.HAS_ODD_NUMBER, *g.HAS_TASKS):
        assert bit < 1 << 30


@pytest.mark.parametrize(
    ("rx", "bit", "texts"),
    [
        (_VARIANT_WORD, g.HAS_VARIANT_WORD, [" nvl", "-sxm4", " pci-e", " pcie", " hgx", " dgx"]),
        (_ONE_MORE, g.HAS_ONE_MORE, [" and another one", " + a second card", " i drugą",
                                     ", one more gpu", " และอีกใบ", " oraz kolejną", " i jeszcze jedną"]),
        (_UNKNOWN_CARD, g.HAS_UNKNOWN_CARD, [" l40 ", " a10g ", " t4 ", " v100 ", " p40 ", " k80 ",
                                             " h800 ", " a800 ", " h20 ", " gh200 ", " b100 ",
                                             " mi250x ", " rx 7900 xtx ", " arc a770 ", " rtx 3050 ",
                                             " gtx 1080 ti ", " a16 ", " a30 ", " p100 "]),
        (FOLLOWUP_ANYWHERE, g.HAS_FOLLOW_WORD, [" what about llama instead ", " zamiast tego qwen ",
                                               " the same for 70b "]),
        (MAC, g.HAS_MAC_WORD, [" mac studio ", " m2 ultra ", " m3 max ", " macbook pro "]),
        (KV_FIRST, g.HAS_KV_WORD, [" kv cache fp8 ", " kv fp8 ", " cache in fp8 "]),
        (KV_AFTER, g.HAS_KV_WORD, [" fp8 kv cache ", " fp8 kv "]),
        (_THINKING_OF, g.HAS_THINKING, [" thinking of qwen "]),
    ],
)  # fmt: skip
def test_gated_forms_set_their_bit(rx: re.Pattern[str], bit: int, texts: list[str]) -> None:
    for text in texts:
        assert rx.search(text) is not None, text  # a form the pattern reads
        assert g.gates(text) & bit, text

"""The parser's query types and the memory breakdown write their ``__init__`` out (so that a
compiled build constructs them natively, deploy/native.py): each must still behave as the
dataclass it was, compiled or not."""

from __future__ import annotations

import copy
import pickle

from engine import catalog_memo, load_catalog
from engine.catalog import Catalog
from engine.catalog_memo import per_catalog
from engine.kinds.base import as_float
from engine.limits import MAX_TOKENS, tokens
from engine.sizing import Breakdown
from engine.understand.query import QUERY_FIELDS, CardAsk, ModelMatch, Query, new_query

# What each slot of a fresh query holds: "not said".
UNSAID = {"model_score": 0.0, "model_words": "", "pasted_guessed": (), "shape": {}}
LISTS = {"extra_precisions", "unknown_precisions", "others", "cards", "owned", "alternatives"}
FLAGS = {"task_generic", "unmatched_model", "followup", "unified", "rig"}


def test_a_new_query_has_every_slot_unsaid_but_the_ones_given() -> None:
    q = new_query("70b int4", True, "pl")
    assert (q.text, q.truncated, q.lang) == ("70b int4", True, "pl")
    for name in QUERY_FIELDS:
        if name in ("text", "truncated", "lang"):
            continue
        v = getattr(q, name)  # every slot is set: none raises AttributeError
        if name in LISTS:
            assert v == [], name
        elif name in UNSAID:
            assert v == UNSAID[name], name
        elif name in FLAGS or (name.startswith("wants_") and name != "wants_limit"):
            assert v is False, name
        else:
            assert v is None, name
    assert q == Query("70b int4", True, "pl") and q != Query("70b int4", False, "pl")


def test_a_query_keeps_its_own_lists_and_the_keywords_it_is_given() -> None:
    a, b = Query("a"), Query("b", model_words="llama", size_b=8.0, alternatives=[Query("c")])
    a.cards.append(CardAsk("H100"))
    assert b.cards == [] and (b.model_words, b.size_b) == ("llama", 8.0)
    assert [x.text for x in b.alternatives] == ["c"] and Query("d").alternatives == []
    name = "precision"  # the compare split copies slots by name
    setattr(a, name, "int4")
    assert getattr(a, name) == a.precision == "int4"
    assert not hasattr(a, "__dict__")  # slots, plain or compiled: a typo cannot add one


def test_cards_and_matches_copy_and_pickle_field_for_field() -> None:
    card = CardAsk("A100", 2, said_gb=40.0)
    assert copy.deepcopy([card]) == [card] and copy.deepcopy([card])[0] is not card
    assert pickle.loads(pickle.dumps(card)) == card
    assert (card.count, card.several, card.said_gb) == (2, False, 40.0)
    model = load_catalog().models[0]
    match = ModelMatch(model, 0.5)
    assert copy.copy(match) == match and pickle.loads(pickle.dumps(match)).score == 0.5


def test_a_breakdown_sums_its_parts_once_in_their_order() -> None:
    parts = {"weights": 0.1, "kv_cache": 0.2, "overhead": 2.0}
    bd = Breakdown(parts)
    assert bd.total == sum(parts.values()) == (0.1 + 0.2) + 2.0
    assert bd.as_dict() == {**parts, "total": bd.total}
    assert repr(bd) == f"Breakdown(parts={parts!r})"


def test_per_catalog_computes_once_per_catalog_object() -> None:
    calls: list[Catalog] = []

    def built(cat: Catalog) -> int:
        calls.append(cat)
        return len(calls)

    index = per_catalog(built)
    name = f"{__name__}.{built.__qualname__}"
    try:
        one = load_catalog()
        two = one.model_copy(update={"memo": {}})
        assert (index(one), index(one), index(two), index(one)) == (1, 1, 2, 1)
        assert one.memo[name] == 1 and catalog_memo._BUILDERS[name] is index
    finally:  # built for this test only, not for every catalog the cache writes
        del catalog_memo._BUILDERS[name]


def test_as_float_stores_an_int_as_a_float_and_the_rest_as_given() -> None:
    assert type(as_float(3)) is float and as_float(3) == 3.0
    assert as_float(2.5) == 2.5 and as_float(None) is None


def test_a_token_count_past_a_doubles_range_is_bounded_compiled_or_not() -> None:
    assert tokens(10**400) == tokens(10**400, "m") == MAX_TOKENS  # not OverflowError
    assert tokens(32, "k") == 32 * 1024 and tokens(1.5, "k") == 1536

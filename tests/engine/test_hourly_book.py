"""The hourly price book rents fewer cards than the monthly one (no MI300X): every question
the query table holds must still be answered under it, and a cluster quote must count nodes of
a card that book actually prices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Catalog, ask, load_catalog

TABLE: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent.parent / "queries" / "queries.yaml").read_text(encoding="utf-8")
)
BIG = ["1t model fp8", "405b full fine-tune", "what fits in 192 gb", "2t model bf16 128k"]


@pytest.fixture(scope="module")
def hourly() -> Catalog:
    return load_catalog(price_book="hourly")


def test_the_cluster_node_is_a_card_the_book_prices(hourly: Catalog) -> None:
    assert "MI300X" not in hourly.card_by_name  # the premise: the book has no MI300X
    assert hourly.fleet.cluster.card in hourly.card_by_name


@pytest.mark.parametrize("question", BIG)
def test_beyond_one_node_is_quoted_in_nodes_of_a_priced_card(
    hourly: Catalog, question: str
) -> None:
    a = ask(question, catalog=hourly)
    if a.cluster_nodes:
        assert hourly.fleet.cluster.card in a.text


def test_every_table_question_is_answered_under_the_hourly_book(hourly: Catalog) -> None:
    for case in TABLE:
        a = ask(str(case["q"]), catalog=hourly)
        assert a.kind and a.text, case["q"]

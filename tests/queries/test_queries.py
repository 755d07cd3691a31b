"""The query table: real-looking questions and what the engine must understand from them.

``queries.yaml`` lists each question with only the fields that matter for it; this test asks
the engine (follow-ups through the same Context chain a chat keeps) and compares those fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Answer, Catalog, Context, ask, context_of, load_catalog
from engine.understand import parse

TABLE: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "queries.yaml").read_text(encoding="utf-8")
)
FIELDS = {
    "kind", "model", "size", "task", "precision", "kv_dtype", "context_tokens", "batch",
    "card", "count", "lang", "cards", "limit", "faq", "budget", "candidates", "others",
    "assumed_model",
}  # fmt: skip


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _id(case: dict[str, Any]) -> str:
    prev = " > ".join(case.get("prev", []))
    return f"{prev} > {case['q']}" if prev else str(case["q"])


def test_table_is_big_enough() -> None:
    assert len(TABLE) >= 150
    for case in TABLE:
        assert set(case) <= {"q", "prev", "locale", "expect"}, case
        assert set(case["expect"]) <= FIELDS, case


def understood(answer: Answer, case: dict[str, Any], cat: Catalog) -> dict[str, Any]:
    """The fields of the table, read back from the answer (and the parser for two of them)."""
    req = answer.request
    model = req.model if req else None
    q = parse(case["q"], cat)
    got: dict[str, Any] = {
        "kind": answer.kind,
        "lang": answer.lang,
        "model": model.id if model else None,
        "size": model.params_b if model else None,
        "task": req.task if req else None,
        "precision": req.precision if req else None,
        "kv_dtype": req.kv_dtype if req else None,
        "context_tokens": req.context_tokens if req else None,
        "batch": req.batch if req else None,
        "card": req.card if req else None,
        "count": req.count if req else None,
        "cards": [f.card for f in answer.fits],
        "limit": q.wants_limit,
        "faq": answer.faq_topic,
        "budget": answer.budget_usd,
        "candidates": [c.id for c in answer.candidates],
        "others": [o.model.id for o in q.others],
        "assumed_model": any(n.code == "ambiguous_model" for n in answer.assumptions),
    }
    if answer.kind == "limit" and answer.limit is not None:
        got["card"] = answer.limit.card
        got["count"] = answer.limit.count
    return got


@pytest.mark.parametrize("case", TABLE, ids=[_id(c) for c in TABLE])
def test_query(case: dict[str, Any], cat: Catalog) -> None:
    previous: Context | None = None
    for text in case.get("prev", []):
        previous = context_of(ask(text, catalog=cat, previous=previous)) or previous
    answer = ask(case["q"], locale=case.get("locale"), catalog=cat, previous=previous)
    got = understood(answer, case, cat)
    want = case["expect"]
    diff = {}
    for key, value in want.items():
        have = got[key]
        if key in ("candidates", "others"):
            ok = all(v in have for v in value)
        elif key == "size" and value is not None and have is not None:
            ok = abs(have - value) < 1e-9
        else:
            ok = have == value
        if not ok:
            diff[key] = (value, have)
    assert not diff, f"{case['q']!r}: expected vs got {diff}\n{answer.text}"

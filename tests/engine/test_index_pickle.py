"""The catalog cache pickles the parser's indexes; each comes back field for field, compiled
(deploy/native.py) or not, and a catalog read back answers as the one it was written from."""

from __future__ import annotations

import pickle

from engine import ask, load_catalog
from engine.catalog_cache import build_indexes
from engine.understand.faq_match import faq_index
from engine.understand.model_index import model_index


def test_the_indexes_survive_a_pickle_round_trip() -> None:
    cat = load_catalog()
    for index in (faq_index(cat), model_index(cat), model_index(cat).completion):
        back = pickle.loads(pickle.dumps(index))
        assert type(back) is type(index)
        fields = zip(back.__reduce__()[1], index.__reduce__()[1], strict=True)
        for i, (got, want) in enumerate(fields):
            if type(want) is type(model_index(cat).completion):  # compared by identity
                got, want = got.__reduce__()[1], want.__reduce__()[1]
            assert got == want, (type(index).__name__, i)


def test_a_catalog_read_back_answers_the_same() -> None:
    cat = load_catalog()
    build_indexes(cat)  # what the cache writes: the catalog and its indexes, before any answer
    back = pickle.loads(pickle.dumps(cat))
    questions = ["70b int4 128k", "does qwen2.5 32b fit on my 4090?", "how to compute kv cache"]
    before = [ask(q, catalog=cat).to_json() for q in questions]
    assert [ask(q, catalog=back).to_json() for q in questions] == before


def test_each_pickled_index_lists_every_field_in_its_init_order() -> None:
    """``__reduce__`` rebuilds from the field tuple: a field missing there would be lost on
    both sides of a round trip, so the tuple is checked against the class's source (read
    with ``ast``: a compiled class has neither annotations nor a signature to inspect)."""
    import ast
    import importlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "engine" / "understand"
    for module, cls, const in (
        ("model_index", "ModelIndex", "_INDEX_FIELDS"),
        ("model_index", "CompletionKeys", "_COMPLETION_FIELDS"),
        ("faq_match", "FaqIndex", "_FAQ_FIELDS"),
    ):
        tree = ast.parse((root / f"{module}.py").read_text(encoding="utf-8"))
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
        declared = [
            n.target.id
            for n in node.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
        ]
        init = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
        params = [a.arg for a in init.args.args[1:]]
        names = getattr(importlib.import_module(f"engine.understand.{module}"), const)
        assert list(names) == params == declared, cls


def test_a_catalog_copy_dates_its_prices_from_its_own_book() -> None:
    cat = load_catalog()
    hourly = cat.model_copy(update={"price_book": "hourly"})
    assert hourly.prices_as_of == cat.price_books["hourly"].prices_as_of != cat.prices_as_of
    assert hourly.model_copy(update={"price_book": "monthly"}).prices_as_of == cat.prices_as_of

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

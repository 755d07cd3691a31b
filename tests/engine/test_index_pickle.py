"""The catalog cache pickles the parser's indexes; each comes back field for field, compiled
(deploy/native.py) or not, and a catalog read back answers as the one it was written from."""

from __future__ import annotations

import pickle
from dataclasses import fields

from engine import ask, load_catalog
from engine.catalog_cache import build_indexes
from engine.understand.faq_match import faq_index
from engine.understand.model_index import model_index


def test_the_indexes_survive_a_pickle_round_trip() -> None:
    cat = load_catalog()
    for index in (faq_index(cat), model_index(cat), model_index(cat).completion):
        back = pickle.loads(pickle.dumps(index))
        assert type(back) is type(index)
        for f in fields(index):
            got, want = getattr(back, f.name), getattr(index, f.name)
            if f.name == "completion":  # compared by identity (eq=False): its own fields
                got, want = [[getattr(x, g.name) for g in fields(x)] for x in (got, want)]
            assert got == want, f.name


def test_a_catalog_read_back_answers_the_same() -> None:
    cat = load_catalog()
    build_indexes(cat)  # what the cache writes: the catalog and its indexes, before any answer
    back = pickle.loads(pickle.dumps(cat))
    questions = ["70b int4 128k", "does qwen2.5 32b fit on my 4090?", "how to compute kv cache"]
    before = [ask(q, catalog=cat).to_json() for q in questions]
    assert [ask(q, catalog=back).to_json() for q in questions] == before

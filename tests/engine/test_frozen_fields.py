"""Frozen instances keep their fields in a dict of their own, however they were made: built,
copied with changes, constructed from trusted values, unpickled or copied by ``copy``."""

from __future__ import annotations

import copy
import pickle

import pytest

from engine import ask, load_catalog
from engine.answer_types import Request
from engine.frozen import FrozenInstanceError


def a_request() -> Request:
    req = ask("llama 3.1 70b int4 128k on an h100", catalog=load_catalog()).request
    assert req is not None
    return req


def test_every_way_of_making_one_gives_equal_independent_fields() -> None:
    req = a_request()
    fields = {n: getattr(req, n) for n in Request.model_fields}
    made = [
        Request(**fields),
        req.model_copy(),
        Request.model_construct(**fields),
        pickle.loads(pickle.dumps(req, protocol=pickle.HIGHEST_PROTOCOL)),
        copy.copy(req),
        copy.deepcopy(req),
    ]
    for other in made:
        assert other == req and hash(other) == hash(req)
        assert other.__dict__ is not req.__dict__ and other.__dict__ == req.__dict__
    changed = req.model_copy(update={"count": 7})
    assert (changed.count, req.count) == (7, req.count) and req.count != 7


def test_construct_fills_defaults_and_keeps_given_values() -> None:
    req = a_request()
    values = {n: getattr(req, n) for n in Request.model_fields if n != "weight_parts"}
    made = Request.model_construct(**values)
    assert made.weight_parts == Request.model_construct().weight_parts
    assert made.precision == req.precision


def test_still_frozen() -> None:
    req = a_request()
    with pytest.raises(FrozenInstanceError):
        req.count = 3  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del req.count

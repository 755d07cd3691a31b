"""Lazily compiled patterns behave as compiled ones, survive pickling (the catalog cache),
and importing the engine compiles none of the slot patterns and loads no logging."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys

import pytest

from engine.lazyre import lazy

SOURCES = [r"(\d+)\s*(k|m)\b", r"\bq[\s-]?lora\b", r"(?=(ab|a))", r"[\s_-]+"]
TEXTS = ["70b int4 128k", "qlora 13b", "abab a", "x_y-z  w", "", "1m 2k 3 k"]


@pytest.mark.parametrize("source", SOURCES)
def test_every_method_matches_re_compile(source: str) -> None:
    for text in TEXTS:
        for first in ("search", "findall", "sub"):  # compiled on whichever call comes first
            lz, rx = lazy(source, re.IGNORECASE), re.compile(source, re.IGNORECASE)
            if first == "sub":
                assert lz.sub("_", text) == rx.sub("_", text)
            getattr(lz, first)  # a bound method either way
            m1, m2 = lz.search(text), rx.search(text)
            assert (m1 and (m1.span(), m1.groups())) == (m2 and (m2.span(), m2.groups()))
            assert lz.findall(text) == rx.findall(text)
            assert [m.span() for m in lz.finditer(text)] == [m.span() for m in rx.finditer(text)]
            assert lz.split(text) == rx.split(text)
            assert lz.subn("-", text, 1) == rx.subn("-", text, 1)
            assert bool(lz.match(text, 1)) == bool(rx.match(text, 1))
            assert bool(lz.fullmatch(text)) == bool(rx.fullmatch(text))
            assert lz.groups == rx.groups and lz.pattern == rx.pattern


def test_pickles_before_and_after_first_use() -> None:
    lz = lazy(r"(\d+)b")
    fresh = pickle.loads(pickle.dumps(lz))
    assert fresh.search("70b") is not None and fresh.pattern == lz.pattern
    lz.search("7b")
    used = pickle.loads(pickle.dumps(lz))
    m = used.search("13b")
    assert m is not None and m.group(1) == "13"


def test_importing_the_engine_compiles_no_slot_pattern() -> None:
    code = (
        "import sys\n"
        "import engine\n"
        "from engine.understand import patterns\n"
        "print(type(patterns.BATCH).__name__, sorted(vars(patterns.BATCH)), 'logging' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["_Lazy", "['flags',", "'pattern']", "False"]

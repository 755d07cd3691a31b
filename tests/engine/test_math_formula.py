""" "Show the math" must add up as written: the KV cache line, multiplied out from the numbers
it prints, gives the GB it states, for every model in the catalog (windowed, hybrid, shared-KV
and MLA caches included) at short and long contexts. And the quick rule says when it falls
short of the full sum."""

from __future__ import annotations

import re

import pytest

from engine import ask, load_catalog
from engine.answer_types import Answer

CAT = load_catalog()
_NUM = r"[\d,]+(?:\.\d+)?"


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _kv_line(a: Answer) -> str:
    (line,) = [m for m in a.math if "KV" in m.partition("=")[0] and "×" in m]
    return line


def _product(text: str) -> float:
    """The numbers of one "a × b × c" term multiplied (words between them ignored)."""
    out = 1.0
    for piece in text.split("×"):
        found = re.findall(_NUM, piece)
        assert len(found) == 1, (piece, text)
        out *= _num(found[0])
    return out


def _multiplied(line: str) -> float:
    """GB the printed formula comes to, read back from the printed numbers alone."""
    body, _, _stated = line.rpartition("=")
    body = body.split("=", 1)[1]
    state = 0.0
    m = re.fullmatch(
        rf"\s*\(\((.*)\) × ({_NUM}) bytes \+ ({_NUM}) MB fixed state\) × batch (\d+)\s*", body
    )
    if m:
        terms, kvb, state_mb, batch = m.groups()
        state = _num(state_mb) * 1e6
    else:
        m = re.fullmatch(rf"\s*\((.*)\) × ({_NUM}) bytes × batch (\d+)\s*", body)
        if m:
            terms, kvb, batch = m.groups()
        elif "+" in body:  # MLA: layers × (rank + rope) × the rest
            return _mla(body)
        else:  # one product over the whole stack
            return _product(body) / 1e9
    grow = sum(_product(t) for t in terms.split(" + "))
    return (grow * _num(kvb) + state) * int(batch) / 1e9


def _mla(body: str) -> float:
    m = re.fullmatch(rf"\s*({_NUM}) layers × \(({_NUM}) \+ ({_NUM})\) × (.*)", body)
    assert m, body
    layers, rank, rope, rest = m.groups()
    return _num(layers) * (_num(rank) + _num(rope)) * _product(rest) / 1e9


def _stated(line: str) -> float:
    return _num(re.findall(rf"= ({_NUM}) GB$", line)[0])


@pytest.mark.parametrize("context", [2048, 32768, 131072])
def test_the_kv_line_multiplies_out_to_what_it_states(context: int) -> None:
    checked = 0
    for m in CAT.models:
        if m.max_context_tokens and context > m.max_context_tokens:
            continue
        a = ask(f"{m.name} bf16 {context} tokens", "en", catalog=CAT)
        if a.kind != "sizing" or a.request is None or a.request.model is None:
            continue
        line = _kv_line(a)
        assert _multiplied(line) == pytest.approx(_stated(line), abs=0.006), (m.id, line)
        checked += 1
    assert checked > 60


def test_windowed_layers_are_counted_at_their_window_in_the_formula() -> None:
    a = ask("gemma 3 27b 32k", "en", catalog=CAT)
    line = _kv_line(a)
    assert "10 full layers" in line and "52 windowed layers" in line and "1,024 tokens" in line
    assert "62 layers" not in line  # not the whole stack at the whole context


def test_a_hybrid_model_counts_only_its_attention_layers_and_the_state() -> None:
    a = ask("qwen3 next 80b 64k", "en", catalog=CAT)
    line = _kv_line(a)
    assert "12 full layers" in line and "fixed state" in line and "48 layers" not in line
    pl = _kv_line(ask("qwen3 next 80b 64k", "pl", catalog=CAT))
    assert "stałego stanu" in pl


def test_within_the_window_the_plain_formula_stays() -> None:
    a = ask("mistral 7b v0.1 2k ctx", "en", catalog=CAT)
    assert _kv_line(a).startswith("KV cache = 2 × 32 layers")


def test_the_quick_rule_says_when_it_falls_short() -> None:
    long = ask("70b int4 128k", "en", catalog=CAT)
    assert long.quick_rule_gb is not None and long.memory_gb is not None
    assert long.memory_gb["total"] > 1.1 * long.quick_rule_gb
    assert any("too low here" in s for sec in long.sections for s in sec.lines)
    assert any("short of the sum above" in s for s in long.math)
    short = ask("70b int4 4k", "en", catalog=CAT)
    assert not any("too low" in s for sec in short.sections for s in sec.lines)
    assert not any("short of the sum" in s for s in short.math)
    th = ask("70b int4 128k", "th", catalog=CAT)
    assert any("ต่ำเกินไป" in s for sec in th.sections for s in sec.lines)

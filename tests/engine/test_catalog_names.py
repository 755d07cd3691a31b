"""Every catalog entry is reachable by the ways people name it.

For each model: its display name, its HF repo id, the repo's basename, each Ollama tag among its
aliases (bare and with a quantisation suffix), and lower-case spaced spellings of its name (as
typed, and without filler words such as "instruct" or an active-parameter tag like "a3b"). Each
must resolve to that very entry. The few spellings that do not are listed below with the
reason, and what they must give instead.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from engine import Catalog, ask, load_catalog
from engine.models import ModelSpec
from engine.understand import parse

FILLER = {"instruct", "nvidia", "chat", "it"}
ACTIVE_TAG = re.compile(r"a\d+b")
QUANT_SUFFIX = re.compile(r"-(?:q\d|fp16|bf16)")

# Short forms of an official FP8 release: the base model sized at FP8 (the same numbers as the
# release; the release itself is named by its id, its name, or "<full base name> fp8").
BASE_AT_PRECISION: dict[str, tuple[str, str]] = {
    "qwen3 30b fp8": ("qwen3-30b-a3b", "fp8"),
    "qwen3 235b fp8": ("qwen3-235b-a22b", "fp8"),
}

# Family names that several entries of different sizes answer to: a clarify naming them.
AMBIGUOUS: dict[str, tuple[str, ...]] = {
    "phi 3.5": ("phi-3.5-mini", "phi-3.5-moe", "phi-3.5-vision"),
    "gemma 4": ("gemma-4-31b", "gemma-4-26b-a4b"),
    "olmo 3": ("olmo-3-7b", "olmo-3-32b"),
    "qwen3.5": ("qwen3.5-27b", "qwen3.5-397b-a17b"),
    "nemotron 3": ("nemotron-3-nano-30b-a3b", "nemotron-3-super-120b-a12b"),
}

# Names the catalog does not hold: said to be unknown, never sized as a near name.
UNKNOWN = (
    "magistral:24b",
    "magistral small 24b",
    "Kimi-K2-Instruct-0905",
    "moonshotai/Kimi-K2-Instruct-0905",
    "mistralai/Ministral-8B-Instruct-2410",
)


@cache
def _catalog() -> Catalog:
    return load_catalog()


def spaced(name: str) -> str:
    return " ".join(name.lower().replace("-", " ").replace("_", " ").split())


def short(name: str) -> str:
    words = spaced(name).split()
    return " ".join(w for w in words if w not in FILLER and not ACTIVE_TAG.fullmatch(w))


def spellings(m: ModelSpec) -> list[str]:
    out = {m.name, m.hf_repo, m.hf_repo.split("/")[-1], spaced(m.name), short(m.name)}
    for alias in m.aliases:
        if ":" in alias and "/" not in alias:  # an Ollama tag
            out.add(alias)
            if not QUANT_SUFFIX.search(alias):
                out.add(alias + "-q8_0")
    return sorted(out)


MODELS = _catalog().models


@pytest.mark.parametrize("model", MODELS, ids=[m.id for m in MODELS])
def test_every_spelling_reaches_its_entry(model: ModelSpec) -> None:
    cat = _catalog()
    wrong = {}
    for text in spellings(model):
        q = parse(text, cat)
        got = q.model.id if q.model else None
        if text in BASE_AT_PRECISION:
            assert (got, q.precision) == BASE_AT_PRECISION[text], text
        elif got != model.id:
            wrong[text] = got
    assert not wrong, wrong


def test_catalog_wide_numbers() -> None:
    """The size of the check, so a shrinking spelling list shows up."""
    checked = sum(len(spellings(m)) for m in MODELS)
    assert len(MODELS) >= 170
    assert checked >= 5 * len(MODELS)
    exceptions = [t for m in MODELS for t in spellings(m) if t in BASE_AT_PRECISION]
    assert sorted(exceptions) == sorted(BASE_AT_PRECISION)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("qwen3 next 80b", "qwen3-next-80b-a3b"),
        ("kimi k2 thinking", "kimi-k2-thinking"),
        ("nemotron nano 9b v2", "nemotron-nano-9b-v2"),
        ("gemma 4 31b", "gemma-4-31b"),
        ("deepseek v3.2", "deepseek-v3.2"),
        ("glm 5", "glm-5"),
        ("glm 5.1", "glm-5.1"),
        ("gemma 3 270m", "gemma-3-270m"),
        ("qwen3 0.6b", "qwen3-0.6b"),
        ("glm 4.5 355b", "glm-4.5"),
        ("minimax m2 230b", "minimax-m2"),
        ("qwen3:30b", "qwen3-30b-a3b"),
        ("Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b-fp8"),
        ("glm 4.5 fp8", "glm-4.5-fp8"),
        ("command r", "command-r-v01"),
        ("command r7b", "command-r7b"),
        ("command r 08 2024", "command-r-08-2024"),
        ("mistral small 2506", "mistral-small-3.2"),
        ("phi 3.5 vision", "phi-3.5-vision"),
    ],
)
def test_common_spellings(text: str, expected: str) -> None:
    q = parse(text, _catalog())
    assert q.model is not None and q.model.id == expected, (text, q.model_words, q.others)


def test_release_number_is_the_name_not_the_context() -> None:
    q = parse("Qwen3 30B-A3B Instruct 2507", _catalog())
    assert q.model is not None and q.model.id == "qwen3-30b-a3b-instruct-2507"
    assert q.context_tokens is None
    # A number no model name holds is still a context length.
    q = parse("llama 3.1 8b 2048", _catalog())
    assert q.context_tokens == 2048


@pytest.mark.parametrize("text", list(AMBIGUOUS), ids=list(AMBIGUOUS))
def test_ambiguous_spelling_asks_naming_both(text: str) -> None:
    answer = ask(text, catalog=_catalog())
    assert answer.kind == "clarify"
    offered = {c.id for c in answer.candidates}
    assert set(AMBIGUOUS[text]) <= offered, offered


@pytest.mark.parametrize("text", UNKNOWN)
def test_unknown_names_are_never_substituted(text: str) -> None:
    answer = ask(text, catalog=_catalog())
    assert answer.kind == "clarify"
    assert answer.request is None

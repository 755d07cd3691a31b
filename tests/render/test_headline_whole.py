"""Headlines are not cut mid-sentence: where the details follow at once (`vram ask`, plain
text, Markdown) the headline is whole, the terminal wraps it; where a chat's first message
must be short, a line is cut after a whole sentence or clause, never inside a number."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.render.clip import clip, units
from bot.render.markdown import format_markdown
from bot.render.short import LINE_MAX, short_lines
from bot.render.text import format_text
from engine import Catalog, ask, default_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


QUESTIONS = [
    "70b on a 7900 xtx",
    "5090 vs mac studio 128gb for 70b",
    "czy llama 3 8b zmieści się na mac mini 16gb?",
    "does qwen2.5 32b fit on my 4090?",
]


@pytest.mark.parametrize("text", QUESTIONS)
def test_plain_text_and_markdown_keep_the_whole_headline(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.headline
    whole = " ".join(a.headline.split())
    plain = format_text(a, cat)
    assert whole in " ".join(plain.split())
    assert "…" not in plain.split("\n\n")[0]
    assert whole.split()[-1] in format_markdown(a, cat)  # its last word is there too


def test_vram_ask_prints_the_7900_xtx_headline_whole() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "ask", "70b on a 7900 xtx"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "(llama.cpp)…" not in out
    assert "(llama.cpp): 23.7 GB, 0.3 GB to spare" in out


@pytest.mark.parametrize("text", QUESTIONS)
def test_chat_short_lines_end_at_a_statement(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    for line in short_lines(a, cat):
        if line.endswith("…"):  # a cut: after a whole clause, so no number is left dangling
            assert line[-2] not in "0123456789.,"
            assert not line[:-1].rstrip().endswith((" do", " to", " up", " at"))


def test_clip_cuts_after_a_sentence_and_never_inside_a_number() -> None:
    text = (
        "Nie w BF16 na Mac mini (potrzeba 19,1 GB, jest 12 GB). Tak w Q6_K: 9,7 GB, zostaje "
        "2,5 GB zapasu, kontekst do 8k tokenów na jednego użytkownika przy tej precyzji."
    )
    cut = clip(text, 100)
    assert cut == "Nie w BF16 na Mac mini (potrzeba 19,1 GB, jest 12 GB)."
    assert units(clip(text * 3, LINE_MAX)) <= LINE_MAX
    clause = "Use IQ2_XS with a q8_0 KV cache (llama.cpp): 23.7 GB; answers get noticeably worse"
    assert clip(clause, 70) == "Use IQ2_XS with a q8_0 KV cache (llama.cpp): 23.7 GB…"
    assert clip("short enough", 100) == "short enough"

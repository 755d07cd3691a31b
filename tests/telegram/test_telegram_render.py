"""bot/render/telegram.py without a network: HTML safety, the length guarantee, keyboards."""

from __future__ import annotations

import re

import pytest
from tg_support import parse_telegram_html

from bot.render.telegram import (
    MAX_MESSAGE_UTF16,
    callback_data,
    escape,
    format_faq_topics,
    format_help,
    format_html,
    format_notice,
    keyboard,
    parse_callback,
    utf16_len,
)
from bot.telegram.app import COMMANDS, file_url_for
from engine import Answer, Catalog, ask
from engine.answer_types import Candidate, Note, Pick, Section

PLACEHOLDER = re.compile(r"\{(\w+)")
QUESTIONS = [
    "70b int4 128k",
    "llama 3.1 70b fp8 32k batch 8",
    "does qwen2.5 32b fit on a 4090?",
    "qlora 13b",
    "full fine-tune 70b",
    "card a40",
    "gpus",
    "faq kv_cache",
    "llam",
    "help",
    "what can I serve for $500 a month",
    "max context for 70b int4 on a100",
    "ile vram dla 70b w int4?",
    "70b int4 ต้องใช้ vram เท่าไหร่",
]


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("math", [False, True])
def test_every_kind_is_valid_telegram_html(catalog: Catalog, question: str, math: bool) -> None:
    answer = ask(question, catalog=catalog)
    shown = parse_telegram_html(format_html(answer, catalog, math=math))
    assert 0 < utf16_len(shown) <= MAX_MESSAGE_UTF16
    assert answer.headline in shown
    if math and answer.math:
        assert answer.math[0] in shown


def hostile_answer() -> Answer:
    words = '<b>bold</b> & "q" <script> @everyone &amp;'
    return Answer(
        kind="sizing",
        headline=words,
        sections=[Section(title=words, lines=[words, "</i>", "&#0;"])],
        caveats=[Note(code="x", text=words)],
        assumptions=[Note(code="y", text=words)],
        math=["a < b & c > d"],
        prices_as_of="2026-09-01",
    )


def test_user_words_are_escaped_and_cannot_mention(catalog: Catalog) -> None:
    html_text = format_html(hostile_answer(), catalog, math=True)
    shown = parse_telegram_html(html_text)
    assert '<b>bold</b> & "q" <script>' in shown
    assert "&amp;" in shown and "</i>" in shown and "&#0;" in shown
    assert "@everyone" not in shown and "@\u2060everyone" in shown
    assert "⚠️ <b>bold</b>" in shown
    assert "a < b & c > d" in shown
    # no price quoted (no pick, no card): no price date; the details follow in a blockquote
    assert "Prices as of" not in shown
    assert "<blockquote>" in html_text  # opened: the math was asked for
    assert escape("<@x&>") == "&lt;@\u2060x&amp;&gt;"


@pytest.mark.parametrize("limit", [60, 200, 1000, MAX_MESSAGE_UTF16])
def test_long_answers_are_trimmed_by_whole_lines(catalog: Catalog, limit: int) -> None:
    lines = [f"line {i}: " + "é😀&<" * 20 for i in range(200)]
    answer = Answer(
        kind="sizing",
        recommendation=Pick(card="A40", count=1, monthly_usd=240, headroom_gb=8, tight=False),
        headline="Headline",
        sections=[Section(title="Title", lines=lines)],
        caveats=[Note(code="c", text="caveat")],
        prices_as_of="2026-09-01",
    )
    shown = parse_telegram_html(format_html(answer, catalog, limit=limit))
    assert utf16_len(shown) <= limit
    assert "…" in shown
    assert shown.startswith("✅ 1× A40 · $240/mo")
    assert "Prices as of 2026-09-01." in shown  # the short form keeps it, the details are cut
    kept = [line for line in shown.splitlines() if line.startswith("line ")]
    assert all(line in lines or line.endswith("…") for line in kept)


def test_one_huge_line_is_cut_inside_its_tag(catalog: Catalog) -> None:
    answer = Answer(kind="clarify", headline="<" * 9000)
    html_text = format_html(answer, catalog)
    shown = parse_telegram_html(html_text)
    assert utf16_len(shown) <= MAX_MESSAGE_UTF16
    assert html_text.startswith("<b>&lt;") and html_text.endswith("…</b>")
    assert parse_telegram_html(format_notice("&" * 5000)).endswith("…")


def test_empty_answer_still_sends_something(catalog: Catalog) -> None:
    assert parse_telegram_html(format_html(Answer(kind="error"), catalog)).strip()


def test_callback_data_round_trips_and_fits() -> None:
    for args in (("m", "abcd1234", None), ("a", "abcd1234", 1), ("c", "abcd1234", 4)):
        data = callback_data(*args)  # type: ignore[arg-type]
        assert len(data.encode()) <= 64
        assert parse_callback(data) == args
    for bad in ("", "m", "m:", "x:1", "a:ref:one", "a:b:c:d"):
        assert parse_callback(bad) is None
    with pytest.raises(ValueError, match="64 bytes"):
        callback_data("m", "r" * 70)


def test_keyboards(catalog: Catalog) -> None:
    sizing = ask("70b int4 128k", catalog=catalog)
    markup = keyboard(sizing, catalog, "ref1")
    assert markup is not None
    datas = [b.callback_data for row in markup.inline_keyboard for b in row]
    assert datas == ["m:ref1", "a:ref1:0", "a:ref1:1"]
    shown = keyboard(sizing, catalog, "ref1", math_shown=True, back=True)
    assert shown is not None
    datas = [b.callback_data for row in shown.inline_keyboard for b in row]
    assert datas[0] == "h:ref1" and datas[-1] == "b:ref1"

    clarify = ask("llam", catalog=catalog)
    markup = keyboard(clarify, catalog, "r")
    assert markup is not None
    assert [row[0].text for row in markup.inline_keyboard] == [c.name for c in clarify.candidates]
    assert keyboard(ask("card a40", catalog=catalog), catalog, "r") is None

    many = Answer(
        kind="sizing",
        math=["x"],
        alternatives=[
            Pick(card="A40", count=2, monthly_usd=456, headroom_gb=1, tight=False),
            Pick(card="L4", count=1, monthly_usd=250, headroom_gb=1, tight=False, precision="int4"),
            Pick(card="B200", count=2, monthly_usd=7000, headroom_gb=1, tight=False),
        ],
        candidates=[Candidate(id="x", name="X", score=1)],
    )
    markup = keyboard(many, catalog, "r")
    assert markup is not None
    labels = [row[0].text for row in markup.inline_keyboard]
    assert labels == ["Show the math", "2× A40 · $456/month", "1× L4 in INT4 · $250/month"]


def test_help_and_faq_topics(catalog: Catalog) -> None:
    for lang in ("en", "pl", "th"):
        help_text = parse_telegram_html(format_help(catalog, lang, "vram_bot"))
        assert "@vram_bot" in help_text
        topics = parse_telegram_html(format_faq_topics(catalog, lang))
        assert all(f"/faq {topic.id}" in topics for topic in catalog.faq)


def test_telegram_messages_exist_in_every_language(catalog: Catalog) -> None:
    keys = {k for k in catalog.messages["en"] if k.startswith("tg.")}
    assert {f"tg.cmd.{name}" for name in COMMANDS} <= keys
    for lang in ("pl", "th"):
        table = catalog.messages[lang]
        assert keys == {k for k in table if k.startswith("tg.")}
        for key in keys:
            en = catalog.messages["en"][key]
            assert set(PLACEHOLDER.findall(en)) == set(PLACEHOLDER.findall(table[key]))
            if key.startswith(("tg.cmd.", "tg.help.t", "tg.reload.d")):
                assert table[key] != en, f"{lang} {key} is not translated"
        for name in COMMANDS:
            assert 1 <= len(table[f"tg.cmd.{name}"]) <= 256


def test_file_url_follows_the_base_url() -> None:
    assert file_url_for("https://api.telegram.org/bot") == "https://api.telegram.org/file/bot"
    assert file_url_for("http://127.0.0.1:8081/bot/") == "http://127.0.0.1:8081/file/bot"

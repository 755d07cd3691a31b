"""Hostile input: arbitrary unicode up to 10,000 characters through ``engine.ask`` and every
renderer. Nothing raises; Telegram HTML parses and fits 4,096; Discord embeds fit every limit;
nothing the bot writes can mention @everyone, @here or a role; Markdown escapes ``<script>``.

Two sources of hostile answers: what ``engine.ask`` makes of the text (it echoes some of the
user's words), and answers whose every text field *is* the hostile text (the worst case a
future engine change could produce).
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.render.discord import format_embed
from bot.render.markdown import format_markdown
from bot.render.telegram import MAX_MESSAGE_UTF16, format_html
from bot.render.text import format_text
from engine import Answer, Catalog, ask, load_catalog
from engine.answer_types import Note, Section
from tests.robustness.support import embed_units, parse_telegram_html, units, utf16_len

CATALOG: Catalog = load_catalog()

BOUNDED = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)

# fmt: off
PIECES = [
    "@everyone", "@here", "@everyone@here", "<@&123>", "<@123>", "<@!123>", "<#123>", "</vram:1>",
    "<:e:1>", "<script>alert(1)</script>", "<b>", "</b>", "<i>x</i>", "&amp;", "&#0;", "&", "<", ">",
    "**", "__", "*", "_", "`", "```", "~~", "||", "> ", "# ", "- ", "[x](https://e.com)", "\\",
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u202a", "\u202e",
    "\u2066", "\u2069", "\x00", "\x07", "\x1b[31m", "\r\n", "\r", "\t", "\x7f", "\x85", "\u2028",
    "\ud7ff", "\U0010ffff", "שלום עולם", "مرحبا بالعالم", "ภาษาไทย", "zażółć gęślą jaźń",
    "👩‍👩‍👧‍👦", "🇵🇱", "𝕏𝔂𝔃", "a\u0301\u0301\u0301", "70b", "int4", "128k", "fp8",
    "llama 3.1 70b", "qwen", "a40", "h100", "4090", "batch 8", "and 128k?", "card", "gpus",
    "$300/month", "999999999999b", "1e309", "NaN", "-1", " ",
]
# fmt: on

pieces = st.sampled_from(PIECES)
short_text = st.lists(st.one_of(pieces, st.text(max_size=40)), max_size=60).map("".join)
long_text = st.builds(
    lambda unit, n: (unit * n)[:10_000],
    st.lists(pieces, min_size=1, max_size=6).map(" ".join),
    st.integers(min_value=100, max_value=5_000),
)
# Hypothesis draws long random text slowly; arbitrary code points stay short, and the long
# inputs (up to 10,000 characters) repeat hostile pieces and random words.
long_random = st.builds(
    lambda word, n: (word * n)[:10_000], st.text(min_size=1, max_size=30), st.integers(300, 10_000)
)
hostile = st.one_of(short_text, long_text, long_random, st.text(max_size=500))

_MENTION = re.compile(r"@(everyone|here)")
_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
_PRE = re.compile(r"<pre>.*?</pre>", re.DOTALL)


def check_telegram(answer: Answer) -> None:
    for math in (False, True):
        html = format_html(answer, CATALOG, math)
        visible = parse_telegram_html(html)  # raises like Telegram on bad HTML
        assert utf16_len(visible) <= MAX_MESSAGE_UTF16
        assert visible.strip()
        # Telegram mentions are @username: outside <pre> (shown as typed) every "@" is broken.
        prose = parse_telegram_html(_PRE.sub("", html))
        assert not re.search(r"@\w", prose), prose[:200]


def check_discord(answer: Answer, *, fences: bool = False) -> None:
    for math in (False, True):
        embed = format_embed(answer, CATALOG, math).to_dict()
        assert units(embed.get("title")) <= 256
        assert units(embed.get("description")) <= 4096
        fields = embed.get("fields") or []
        assert len(fields) <= 25
        for f in fields:
            assert 1 <= units(f["name"]) <= 256
            assert 1 <= units(f["value"]) <= 1024
        assert units((embed.get("footer") or {}).get("text")) <= 2048
        assert embed_units(embed) <= 6000
        every = [embed.get("title") or "", embed.get("description") or ""]
        every += [f["name"] + "\n" + f["value"] for f in fields]
        every.append((embed.get("footer") or {}).get("text") or "")
        for raw in every:
            if fences:
                assert raw.count("```") % 2 == 0
            # Inside a code block Discord shows text as typed: no mention renders or pings.
            text = _CODE_BLOCK.sub("", raw)
            assert not _MENTION.search(text), text[:200]
            assert "<@&" not in text and "<@" not in text and "<#" not in text


def check_markdown(answer: Answer) -> None:
    for math in (False, True):
        md = format_markdown(answer, CATALOG, math)
        assert md.count("```") % 2 == 0
        md = _CODE_BLOCK.sub("", md)  # a fenced block shows its text as typed
        lowered = md.lower()
        assert "<script" not in lowered
        assert "</script" not in lowered
        assert not _MENTION.search(md)


def check_all(answer: Answer) -> None:
    for math in (False, True):
        assert isinstance(format_text(answer, CATALOG, math), str)
    check_telegram(answer)
    check_discord(answer)
    check_markdown(answer)


def echoing(text: str, lang: str = "en", *, math: bool = False) -> Answer:
    """An answer whose every user-visible field is ``text`` (the math too, if ``math``).

    The math is the engine's own formula, never the user's words; renderers put it in code
    blocks as typed, so it only joins when a test is about that.
    """
    note = [Note(code="x", text=text)]
    return Answer(
        kind="sizing",
        lang=lang,  # type: ignore[arg-type]
        headline=text,
        sections=[Section(title=text, lines=[text, text]), Section(title="", lines=[text])],
        caveats=note,
        assumptions=note,
        math=[text] if math else ["weights = 70e9 x 0.5 B = 35 GB"],
        text=text,
        prices_as_of="2026-09-01",
    )


@BOUNDED
@given(text=hostile, locale=st.sampled_from([None, "en", "pl", "th", "xx"]))
def test_ask_and_every_renderer_survive_hostile_text(text: str, locale: str | None) -> None:
    answer = ask(text, locale=locale, catalog=CATALOG)
    assert isinstance(answer, Answer)
    check_all(answer)


@BOUNDED
@given(text=hostile, lang=st.sampled_from(["en", "pl", "th"]))
def test_renderers_survive_answers_made_of_hostile_text(text: str, lang: str) -> None:
    check_all(echoing(text, lang))


@BOUNDED
@given(first=hostile, second=hostile)
def test_follow_ups_of_hostile_text_never_raise(first: str, second: str) -> None:
    from engine import context_of

    previous = context_of(ask(first, catalog=CATALOG))
    check_all(ask(second, catalog=CATALOG, previous=previous))


def test_a_clipped_math_field_keeps_its_code_fence() -> None:
    answer = echoing(("@here @here" * 259)[:10_000])  # long user words, then a short formula
    check_discord(answer, fences=True)


def test_markdown_escapes_script_and_mentions() -> None:
    md = format_markdown(echoing("<script>alert(1)</script> @everyone"), CATALOG)
    assert "\\<script\\>" in md and "<script>" not in md
    assert "@\u200beveryone" in md


PATHOLOGICAL = {
    "one long word": "a" * 10_000,
    "one long model-ish word": ("llama-3.1-70b-instruct-" * 500)[:10_000],
    "model names repeated": ("llama 3.1 70b qwen2.5 72b mistral 7b deepseek v3 " * 250)[:10_000],
    "4,000 digits": "7" * 4_000,
    "digits and units": ("70b 128k int4 8x h100 $300 " * 400)[:10_000],
    "nested brackets": ("(" * 2_500 + "[" * 2_500 + "]" * 2_500 + ")" * 2_500),
    "html": ("<b><i><a href='x'>" * 600)[:10_000],
    "spaces and newlines": " \n\t" * 3_333,
    "emoji": "👩‍👩‍👧‍👦" * 1_400,
    "thai without spaces": ("ต้องใช้vramเท่าไรสำหรับ" * 500)[:10_000],
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_each_question_is_answered_within_half_a_second(text: str) -> None:
    ask("warm up 70b int4", catalog=CATALOG)
    start = time.perf_counter()
    answer = ask(text, catalog=CATALOG)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, f"{elapsed * 1000:.0f} ms"
    check_all(answer)

"""The short form on Telegram and Discord: at most 8 lines and 450 visible characters,
the verdict with the card and the price first, and nothing the answer knows lost on the way
(every section line and caveat is in the details view)."""

from __future__ import annotations

import pytest

from bot.render import footer, quotes_price
from bot.render.common import Links, link_buttons
from bot.render.discord import escape as dc_escape
from bot.render.discord import format_details, format_embed
from bot.render.discord_components import format_view
from bot.render.short import MAX_SHORT_CHARS, MAX_SHORT_LINES, short_lines, units
from bot.render.telegram import format_html
from bot.render.telegram import keyboard as tg_keyboard
from engine import Answer, Catalog, RequestOptions, ask, compare, load_catalog
from engine.models import LANGS
from engine.rounding import fmt_usd

try:
    from fakes.telegram_api import parse_telegram_html
except ImportError:  # the repository root is on sys.path instead
    from tests.fakes.telegram_api import parse_telegram_html

# Thirty questions of every kind; each is asked with the reply language forced to en, pl and
# th, and the natively phrased ones at the end also in their own words.
QUESTIONS = [
    "70b int4 128k",
    "llama 3.1 70b fp8 32k batch 8",
    "does qwen2.5 32b fit on a 4090?",
    "does llama 3.1 8b fit on a 4090",
    "does 70b fit in 48 gb",
    "llama 3.1 70b bf16 on 2x a100",
    "qlora 13b",
    "lora 70b",
    "full fine-tune 70b",
    "405b bf16 full fine-tune",
    "llama 3.1 405b fp8",
    "mixtral 8x7b int4",
    "deepseek v3 int4 32k",
    "8b fp16 kv fp8 1m context",
    "card a40",
    "card mi300x",
    "gpus",
    "faq kv_cache",
    "faq",
    "llam",
    "llama 3.1",
    "help",
    "zzzz qqqq",
    "what can I serve for $500 a month",
    "what fits on a 4090",
    "max context for 70b int4 on a100",
    "how many users for 8b on 4090",
    "ile vram dla 70b w int4?",
    "czy qwen2.5 14b zmieści się na 4090?",
    "70b int4 ต้องใช้ vram เท่าไหร่",
]
CASES = [(q, lang) for q in QUESTIONS for lang in LANGS]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def tg_short(answer: Answer, catalog: Catalog) -> tuple[str, str]:
    """(what the closed message shows, everything the message holds) for Telegram."""
    html_text = format_html(answer, catalog)
    head = html_text.split("\n<blockquote", 1)[0]
    assert html_text.count("<blockquote expandable>") <= 1
    return parse_telegram_html(head), parse_telegram_html(html_text)


def dc_short(answer: Answer, catalog: Catalog) -> str:
    e = format_embed(answer, catalog).to_dict()
    assert not e.get("fields")
    parts = [e.get("title") or "", e.get("description") or "", e.get("footer", {}).get("text", "")]
    return "\n".join(p for p in parts if p)


def verdict_parts(answer: Answer) -> list[str] | None:
    """What line 1 must carry: the mark, the card and its price, when the answer has them."""
    lang = answer.lang
    if answer.kind == "fit" and answer.fit is not None:
        fit = answer.fit
        if fit.fits:
            price = [fmt_usd(fit.monthly_usd, lang)] if fit.monthly_usd else []
            return ["✅", fit.card, *price]
        if fit.best is not None:  # the best rung that fits the asked hardware leads
            return ["❌", fit.card, fit.best.precision.upper()]
        rec = answer.recommendation
        extra = [rec.card, fmt_usd(rec.monthly_usd, lang)] if rec else []
        return ["❌", fit.card, *extra]
    if answer.kind == "sizing" and answer.recommendation is not None:
        rec = answer.recommendation
        return ["✅", f"{rec.count}× {rec.card}", fmt_usd(rec.monthly_usd, lang)]
    if answer.kind == "sizing":
        return ["❌"]
    return None


def check_short(text: str, answer: Answer, catalog: Catalog) -> None:
    lines = text.split("\n")
    assert len(lines) <= MAX_SHORT_LINES, text
    assert units(text) <= MAX_SHORT_CHARS, text
    assert all(line.strip() for line in lines), text
    parts = verdict_parts(answer)
    if parts:
        assert lines[0].startswith(parts[0]), text
        for part in parts:  # Markdown surfaces escape the underscores of "Q4_K_M"
            assert part in lines[0].replace("\\_", "_"), (part, text)
    note = footer(answer, catalog)
    if quotes_price(answer) and note:
        assert lines[-1] == note
    else:
        assert t_prices(catalog, answer.lang) not in text


def t_prices(catalog: Catalog, lang: str) -> str:
    """The fixed start of the "Prices as of" line in ``lang``."""
    from engine.i18n import t

    return t(catalog, lang, "render.prices_as_of", date="").split("{")[0].strip().rstrip(".")


@pytest.mark.parametrize(("question", "lang"), CASES)
def test_short_forms_are_short_and_lead_with_the_verdict(
    catalog: Catalog, question: str, lang: str
) -> None:
    answer = ask(question, lang, catalog=catalog)
    assert answer.lang == lang
    shown, _ = tg_short(answer, catalog)
    check_short(shown, answer, catalog)
    check_short(dc_short(answer, catalog), answer, catalog)


@pytest.mark.parametrize(("question", "lang"), CASES)
def test_details_hold_everything_the_answer_knows(
    catalog: Catalog, question: str, lang: str
) -> None:
    answer = ask(question, lang, catalog=catalog)
    known = [line for s in answer.sections for line in s.lines if line.strip()]
    known += [s.title for s in answer.sections if s.title]
    known += [n.text for n in answer.caveats + answer.assumptions]
    _, whole = tg_short(answer, catalog)
    details = format_details(answer, catalog, math=True).to_dict()
    blob = "\n".join(
        [details.get("title", ""), details.get("description") or ""]
        + [f"{f['name']}\n{f['value']}" for f in details.get("fields", [])]
    )
    for line in known:
        assert line.replace("@", "@\u2060") in whole, line
        assert dc_escape(line) in blob, line
    if answer.math:
        with_math = parse_telegram_html(format_html(answer, catalog, math=True))
        assert all(line in with_math for line in answer.math)
        assert answer.math[0] in blob
    # whatever the short form leaves out is one press away on Discord
    if answer.kind != "clarify" and len(known) > 2:
        view = format_view(answer, catalog, "0123456789ab")
        assert view is not None
        ids = [c["custom_id"] for row in view.to_components() for c in row["components"]]
        assert ids[0].startswith("vc:math:")


def test_native_questions_answer_in_their_language(catalog: Catalog) -> None:
    assert ask("ile vram dla 70b w int4?", catalog=catalog).lang == "pl"
    assert ask("70b int4 ต้องใช้ vram เท่าไหร่", catalog=catalog).lang == "th"
    pl = format_embed(ask("ile vram dla 70b w int4?", catalog=catalog), catalog).to_dict()
    assert pl["title"].startswith("✅ 1× A40 · $240/mies.")


def test_tight_pick_offers_the_safer_cheaper_set(catalog: Catalog) -> None:
    shown, _ = tg_short(ask("70b int4 128k", catalog=catalog), catalog)
    first, second, third, *_ = shown.split("\n")
    assert first == "✅ 1× A100 SXM · $990/mo · tight: 0.1 GB left"
    assert second.endswith("needs 79.9 GB")
    assert third == "Safer and cheaper: 2× A40 · $456/mo · 16.1 GB to spare"


# Typed requests: /compare items and the named kinds of /gpus, /card and /faq.
COMPARED = [
    (["llama 3.1 8b", "qwen2.5 7b"], RequestOptions(context_tokens="32k")),
    (["h100", "a100", "mi300x"], None),
    (["70b int4", "4090", "a100"], None),
    (["llama 3.1 70b", "qwen2.5 72b", "mixtral 8x7b"], RequestOptions(precision="int4")),
    (["lama", "qwen2.5 7b"], None),
]
NAMED = [
    RequestOptions(kind="cards"),
    RequestOptions(kind="card", card="mi300x"),
    RequestOptions(kind="faq", faq_topic="sales"),
    RequestOptions(kind="help"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_typed_requests_keep_the_short_form(catalog: Catalog, lang: str) -> None:
    answers = [compare(items, lang, catalog=catalog, options=o) for items, o in COMPARED]
    answers += [ask("", lang, catalog=catalog, options=o) for o in NAMED]
    for answer in answers:
        assert answer.lang == lang
        shown, whole = tg_short(answer, catalog)
        check_short(shown, answer, catalog)
        check_short(dc_short(answer, catalog), answer, catalog)
        if answer.kind == "compare":  # the verdict leads; every item's row is in the message
            assert answer.verdict and answer.verdict in shown.split("\n")[0]
            for line in answer.sections[0].lines:
                assert line.replace("@", "@\u2060") in whole


def test_link_buttons_follow_the_answer(catalog: Catalog) -> None:
    links = Links(rent="https://r.example/{card}/go", sales="https://s.example/")
    sizing = ask("70b int4 128k", catalog=catalog)
    assert link_buttons(sizing, catalog, links) == [
        ("Rent A100 SXM", "https://r.example/A100%20SXM/go")
    ]
    assert link_buttons(sizing, catalog, None) == []
    assert link_buttons(sizing, catalog, Links(sales="https://s.example/")) == []
    cluster = ask("405b full fine-tune", "pl", catalog=catalog)
    assert cluster.cluster_nodes and link_buttons(cluster, catalog, links) == [
        ("Porozmawiaj z działem sprzedaży", "https://s.example/")
    ]
    no_fit = ask("does 405b bf16 fit on a 4090", catalog=catalog)
    assert no_fit.fit is not None and not no_fit.fit.fits
    rented = [url for _, url in link_buttons(no_fit, catalog, links)]
    assert "RTX%204090" not in " ".join(rented)  # never a card that does not hold it
    for q in ("help", "faq kv_cache", "llama 3.1"):
        assert link_buttons(ask(q, catalog=catalog), catalog, links) == [], q
    markup = tg_keyboard(sizing, catalog, "abcd1234", links=links)
    assert markup is not None
    urls = [b.url for row in markup.inline_keyboard for b in row if b.url]
    assert urls == ["https://r.example/A100%20SXM/go"]


@pytest.mark.parametrize(("question", "lang"), CASES)
def test_plain_text_and_markdown_say_each_line_once(
    catalog: Catalog, question: str, lang: str
) -> None:
    """Where the details follow the short form at once (the terminal, a ticket), a line of
    the answer is not printed twice: the short form keeps only what the details do not say."""
    from bot.render import format_markdown, format_text

    answer = ask(question, lang, catalog=catalog)
    body = {line for s in answer.sections for line in s.lines if line.strip()}
    for text in (format_text(answer, catalog), format_markdown(answer, catalog)):
        shown = [line.strip().removeprefix("- ").rstrip() for line in text.split("\n")]
        for line in body:
            plain = line.strip()
            if "\\" in text:  # Markdown escapes: compare the escaped form
                from bot.render.markdown import escape_md

                plain = escape_md(plain.lstrip("• "))
            assert shown.count(plain) <= 1, (plain, text)
    plain_text = format_text(answer, catalog)
    for note in answer.caveats:  # the short form's warning is not "Watch out" again
        assert plain_text.count(note.text) <= 1, (note.text, plain_text)


@pytest.mark.parametrize(
    "question",
    ["glm-4.5-air on h100 or mi300x?", "70b fp8 on h100 or mi300x?", "405b on 4090 or 3090"],
)
def test_a_question_about_two_cards_gets_a_verdict_for_each(
    catalog: Catalog, question: str
) -> None:
    answer = ask(question, catalog=catalog)
    assert answer.kind == "fit" and len(answer.fits) == 2
    shown, _ = tg_short(answer, catalog)
    check_short(shown, answer, catalog)
    lines = shown.split("\n")
    for i, fit in enumerate(answer.fits):  # one line each, in the asked order
        assert fit.card in lines[i], (fit.card, shown)
        assert lines[i].startswith("✅" if fit.fits else "❌"), shown


def test_a_cut_message_says_so_under_the_headline(catalog: Catalog) -> None:
    from bot.render import format_text

    answer = ask("hello " * 800 + "llama 3.1 70b on h100", catalog=catalog)
    note = next(n.text for n in answer.caveats if n.code == "truncated")
    shown, _ = tg_short(answer, catalog)
    assert shown.split("\n")[1] == "⚠️ " + note
    assert format_text(answer, catalog).split("\n")[1] == "⚠️ " + note


def test_the_short_form_does_not_offer_the_asked_card_as_an_alternative(
    catalog: Catalog,
) -> None:
    answer = ask("llama 3.1 70b int8 32k on a100", catalog=catalog)
    assert answer.fit is not None and answer.fit.card == "A100 SXM"
    shown, _ = tg_short(answer, catalog)
    verdict, headline, *rest = shown.split("\n")
    assert "A100 SXM" in verdict and "A100 SXM" in headline
    assert not any("A100 SXM" in line for line in rest), shown  # no "cheaper: the same card"


@pytest.mark.parametrize(
    ("lang", "short", "need"),
    [("en", "<0.1 GB short", "48.01 GB"), ("pl", "brakuje <0,1 GB", "48,01 GB")],
)
def test_a_miss_by_a_hair_is_said_as_one(lang: str, short: str, need: str) -> None:
    """48.01 GB on 48 GB: not "0 GB short" beside "needs 48 GB, has 48 GB"."""
    cat = load_catalog()
    a = ask("llama 3.1 70b on 2x 4090 at int4 with 32k", lang, catalog=cat)
    assert a.fit is not None and not a.fit.fits and -0.05 < a.fit.headroom_gb < 0
    assert short in short_lines(a, cat)[0]
    assert need in a.headline
    assert short in a.text and " 0 GB short" not in a.text and "brakuje 0 GB" not in a.text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("does qwen2.5 32b fit on a single 3090 at 32k context?", "INT4 with an FP8 KV cache fits"),
        ("32b at 128k on my 4090", "INT4 at 12k context fits"),  # more room first
        ("70b bf16 for 40 users at 8k on an h100", "INT4 at 3k context fits"),
        ("qwen2.5 32b 128k na moim 4090", "INT4 z kontekstem 12k się mieści"),
    ],
)
def test_line_one_says_the_change_of_two_slots(catalog: Catalog, text: str, said: str) -> None:
    """No one precision fits as asked, a lighter one with a second change does: line 1 says
    that change on the asked card, not a rental in its place."""
    a = ask(text, catalog=catalog)
    first = short_lines(a, catalog)[0]
    assert first.startswith("❌") and "✅ " + said in first
    assert "/mo" not in first and "/mies" not in first


@pytest.mark.parametrize(
    "text", ["llama 2 13b for 32 users at 4k", "70b int4 128k", "llama 2 13b dla 32 osób przy 4k"]
)
def test_an_alternative_cheaper_than_the_pick_gets_the_line(catalog: Catalog, text: str) -> None:
    a = ask(text, catalog=catalog)
    rec = a.recommendation
    assert rec is not None
    cheaper = [x for x in a.alternatives if x.monthly_usd < rec.monthly_usd]
    assert cheaper
    best = min(cheaper, key=lambda x: x.monthly_usd)
    lines = short_lines(a, catalog)
    said = [line for line in lines if f"{best.count}× {best.card}" in line]
    assert said and fmt_usd(best.monthly_usd, a.lang) in said[0]

"""A "what to buy" answer on every surface: the chat short forms lead with the setup to buy
(the headline), then the other setups and the rental line last; nothing crashes on Telegram,
Discord, Markdown, plain text or `vram ask`, and the details hold every line."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.render.discord import escape as dc_escape
from bot.render.discord import format_details, format_embed
from bot.render.discord_components import format_view
from bot.render.markdown import format_markdown
from bot.render.short import MAX_SHORT_CHARS, MAX_SHORT_LINES, short_lines, units
from bot.render.telegram import format_html
from bot.render.telegram import keyboard as tg_keyboard
from bot.render.text import format_text
from engine import Catalog, ask, load_catalog

try:
    from fakes.telegram_api import parse_telegram_html
except ImportError:  # the repository root is on sys.path instead
    from tests.fakes.telegram_api import parse_telegram_html

QUESTIONS = [
    ("which gpu should i buy for 70b at home", "en"),
    ("what should I buy to run llama 3.1 8b locally", "en"),
    ("build a home rig for deepseek r1", "en"),
    ("buy gpu for kimi k2", "en"),  # nothing a desktop holds
    ("jaką kartę kupić do 70b", "pl"),
    ("co kupić żeby odpalić qwen 32b w domu", "pl"),
    ("ควรซื้อการ์ดจออะไรสำหรับ 70b", "th"),
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(("question", "lang"), QUESTIONS)
def test_the_short_form_leads_with_the_setup_to_buy(
    catalog: Catalog, question: str, lang: str
) -> None:
    a = ask(question, catalog=catalog)
    assert a.lang == lang and a.leads_with == "buying"
    lines = short_lines(a, catalog)
    assert lines[0] == a.headline
    assert len(lines) <= MAX_SHORT_LINES
    assert sum(units(x) for x in lines) + len(lines) - 1 <= MAX_SHORT_CHARS
    rent = a.sections[0].lines[-1]
    assert rent in lines  # the rental: its own line, after the setups
    assert lines.index(rent) > 0
    for o in a.buying[1:3]:  # the next setups follow the verdict
        assert any(o.cards[0] in x for x in lines[1:])


@pytest.mark.parametrize(("question", "lang"), QUESTIONS)
def test_every_surface_renders_it(catalog: Catalog, question: str, lang: str) -> None:
    a = ask(question, catalog=catalog)
    html_text = format_html(a, catalog)
    shown = parse_telegram_html(html_text.split("\n<blockquote", 1)[0])
    assert shown.split("\n")[0] == a.headline
    whole = parse_telegram_html(html_text)
    embed = format_embed(a, catalog).to_dict()
    assert (embed.get("title") or "") + (embed.get("description") or "")
    details = format_details(a, catalog).to_dict()
    blob = "\n".join(
        [details.get("title", ""), details.get("description") or ""]
        + [f"{f['name']}\n{f['value']}" for f in details.get("fields", [])]
    )
    for line in (x for s in a.sections for x in s.lines if x.strip()):
        assert line in whole, line
        assert dc_escape(line) in blob, line
    assert format_view(a, catalog, "0123456789ab") is not None
    tg_keyboard(a, catalog, "0123456789ab")
    assert a.headline in format_text(a, catalog)
    assert format_markdown(a, catalog)


def test_vram_ask_prints_the_setup_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "which gpu should i buy for 70b at home"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("At home: one RTX 6000 Ada / RTX A6000 (48 GB)")
    assert "MI300X" not in first
    assert main(["ask", "jaką kartę kupić do 70b", "--format", "json"]) == 0
    assert '"leads_with": "buying"' in capsys.readouterr().out

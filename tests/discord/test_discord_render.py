"""The Discord renderer without a network: escaping, limits, components, message tables."""

from __future__ import annotations

import re

import pytest

from bot.desk import Limited
from bot.render.discord import (
    EMBED_TOTAL_MAX,
    _units,
    escape,
    format_details,
    format_embed,
    format_limited,
)
from bot.render.discord_components import format_view
from engine import Answer, Catalog, ask
from engine.answer_types import Candidate, Note, Pick, Section
from engine.i18n import t
from engine.models import LANGS

TOKEN = "0123456789ab"
HOSTILE = "@everyone @here <@&123456789012345678> <@42> <#99> **bold** __u__ `x` ||s|| > q"


def limits_ok(embed_dict: dict[str, object]) -> None:
    """Discord's embed limits, counted in UTF-16 units as Discord counts them."""
    e = embed_dict
    title = str(e.get("title") or "")
    desc = str(e.get("description") or "")
    fields = list(e.get("fields") or [])  # type: ignore[call-overload]
    footer = str((e.get("footer") or {}).get("text") or "")  # type: ignore[attr-defined]
    assert _units(title) <= 256 and _units(desc) <= 4096 and _units(footer) <= 2048
    assert len(fields) <= 25
    total = _units(title) + _units(desc) + _units(footer)
    for f in fields:
        assert f["name"] and f["value"]
        assert _units(f["name"]) <= 256 and _units(f["value"]) <= 1024
        total += _units(f["name"]) + _units(f["value"])
    assert total <= EMBED_TOTAL_MAX


def test_escape_neutralises_markdown_and_every_mention_form() -> None:
    out = escape(HOSTILE)
    assert "@everyone" not in out and "@here" not in out
    assert not re.search(r"<@[&!]?\d", out) and "<#99>" not in out
    assert "\\*\\*bold\\*\\*" in out and "\\`x\\`" in out and "\\|\\|s\\|\\|" in out
    assert escape("@\u200beveryone") == "@\u200beveryone"  # not doubled


def test_sizing_embed(catalog: Catalog) -> None:
    a = ask("70b int4 128k", catalog=catalog)
    e = format_embed(a, catalog).to_dict()
    limits_ok(e)  # type: ignore[arg-type]
    assert e["title"] == "✅ 1× A100 SXM · $990/mo · tight: 0.1 GB left"
    assert a.headline in e["description"]
    details = format_details(a, catalog).to_dict()
    assert details["title"] == a.headline
    names = [f["name"] for f in details["fields"]]
    assert names[:3] == [s.title for s in a.sections]
    assert names[3] == "⚠️ Watch out" and names[4] == "Assumptions"
    assert "Show the math" not in names
    with_math = format_embed(a, catalog, math=True).to_dict()
    math_field = next(f for f in with_math["fields"] if f["name"] == "Show the math")
    assert math_field["value"].startswith("```\n") and math_field["value"].endswith("\n```")


@pytest.mark.parametrize("lang", LANGS)
def test_every_kind_renders_within_limits(catalog: Catalog, lang: str) -> None:
    for q in ["70b int4 128k", "llama 3.1", "gpus", "card a40", "/faq kv_cache", "help",
              "405b full fine-tune", "what can I serve for $500", "max context 70b on a100",
              "does qwen2.5 32b fit on a 4090?", "zzzz qqqq"]:  # fmt: skip
        a = ask(q, lang, catalog=catalog)
        for math in (False, True):
            limits_ok(format_embed(a, catalog, math=math).to_dict())  # type: ignore[arg-type]


def test_hostile_answer_is_escaped_and_cut_to_the_limits(catalog: Catalog) -> None:
    long = (HOSTILE + " 𝕏\\") * 60
    a = Answer(
        kind="sizing",
        headline=long,
        sections=[Section(title=long, lines=[long] * 30)] * 12 + [Section(title="", lines=[long])],
        caveats=[Note(code=f"c{i}", text=long) for i in range(40)],
        assumptions=[Note(code="a", text=long)],
        math=[long] * 50,
        prices_as_of="2026-09-01",
    )
    for math in (False, True):
        e = format_embed(a, catalog, math=math).to_dict()
        limits_ok(e)  # type: ignore[arg-type]
        blob = str(e)
        assert "@everyone" not in blob and "<@&1" not in blob
    cut = format_embed(a, catalog).to_dict()["title"]
    assert cut.endswith("…")
    before = cut[:-1]
    assert (len(before) - len(before.rstrip("\\"))) % 2 == 0  # no half escape left


def test_view_for_sizing_clarify_and_help(catalog: Catalog) -> None:
    sizing = ask("70b int4 128k", catalog=catalog)
    view = format_view(sizing, catalog, TOKEN)
    assert view is not None and view.timeout is None
    rows = view.to_components()[0]["components"]
    assert [c["custom_id"] for c in rows] == [
        f"vc:math:{TOKEN}", f"vc:alt:{TOKEN}:0", f"vc:alt:{TOKEN}:1",
    ]  # fmt: skip
    # alternative buttons carry the set's monthly price, as the engine quotes it
    assert [c["label"] for c in rows] == [
        "Details and the math", "4× RTX A6000 · $1,067/mo", "2× A40 · $456/mo",
    ]  # fmt: skip
    assert [round(a.monthly_usd) for a in sizing.alternatives[:2]] == [1067, 456]
    shown = format_view(sizing, catalog, TOKEN, math_shown=True)
    assert shown is not None and len(shown.children) == 2

    clarify = ask("llama 3.1", catalog=catalog)
    menu = format_view(clarify, catalog, TOKEN)
    assert menu is not None
    (select,) = menu.to_components()[0]["components"]
    assert select["custom_id"] == f"vc:pick:{TOKEN}"
    assert [o["label"] for o in select["options"]] == [c.name for c in clarify.candidates]

    helped = format_view(ask("help", catalog=catalog), catalog, TOKEN)
    assert helped is not None  # the short form hides the last examples: a details button
    assert [c["label"] for c in helped.to_components()[0]["components"]] == ["Details"]


def test_lower_precision_alternative_label_and_long_candidates(catalog: Catalog) -> None:
    pick = Pick(card="A40", count=2, monthly_usd=456, headroom_gb=1, tight=False)
    low = pick.model_copy(update={"reason": "lower_precision", "precision": "int4"})
    a = Answer(kind="sizing", lang="pl", alternatives=[low], math=["x"])
    view = format_view(a, catalog, TOKEN)
    assert view is not None
    labels = [c["label"] for c in view.to_components()[0]["components"]]
    assert labels == [t(catalog, "pl", "dc.button.details_math"), "2× A40 w INT4 · $456/mies."]

    cands = [Candidate(id="m" * 150, name="n" * 150, score=90)]
    menu = format_view(Answer(kind="clarify", candidates=cands), catalog, TOKEN)
    assert menu is not None
    option = menu.to_components()[0]["components"][0]["options"][0]
    assert len(option["label"]) <= 100 and len(option["value"]) <= 100


def test_rate_limited_text(catalog: Catalog) -> None:
    assert "wait 13 s" in format_limited(Limited(12.2, "en"), catalog)
    assert "13" in format_limited(Limited(12.2, "pl"), catalog)


def test_discord_messages_exist_in_every_language(catalog: Catalog) -> None:
    keys = {k for k in catalog.messages["en"] if k.startswith("dc.")}
    assert len(keys) > 30
    for lang in LANGS:
        assert keys <= set(catalog.messages[lang])
        for key in keys:
            if key.endswith(".desc"):
                assert 1 <= len(catalog.messages[lang][key]) <= 100, (lang, key)
    assert catalog.messages["pl"]["dc.cmd.help.name"] == "pomoc"
    assert catalog.messages["th"]["dc.cmd.help.name"] == "คำแนะนำ"

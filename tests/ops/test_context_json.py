"""The conversation context as the shared store keeps it: every field survives the trip, and
a context stored before a field existed still loads."""

from __future__ import annotations

import json

from bot.store import context_from_json, context_to_json
from engine import ask, context_of, load_catalog


def test_a_plain_amount_survives_the_store() -> None:
    ctx = context_of(ask("70b int4 in 48gb", catalog=load_catalog()))
    assert ctx is not None and ctx.vram_gb == 48.0
    back = context_from_json(context_to_json(ctx))
    assert back.request == ctx.request and back.pick_card == ctx.pick_card
    assert back.vram_gb == 48.0


def test_a_context_stored_without_the_amount_still_loads() -> None:
    ctx = context_of(ask("70b int4 on an h100", catalog=load_catalog()))
    assert ctx is not None and ctx.vram_gb is None
    old = json.loads(context_to_json(ctx))
    del old["vram_gb"]
    back = context_from_json(json.dumps(old))
    assert back.request == ctx.request and back.vram_gb is None
    old["vram_gb"] = "48"  # not a number: ignored, never an error
    assert context_from_json(json.dumps(old)).vram_gb is None


def test_every_field_survives_the_store() -> None:
    """The set's count and the budget too: a follow-up read back from the shared store is
    the one the same process would have kept."""
    cat = load_catalog()
    for text in (
        "70b on 2x h100",
        "can i run llama 3.1 70b for under $500/month?",
        "mixtral 8x7b q4 on my macbook pro m3 max 36gb",
    ):
        ctx = context_of(ask(text, catalog=cat))
        assert ctx is not None
        assert context_from_json(context_to_json(ctx)) == ctx


def test_a_context_stored_before_the_count_and_budget_still_loads() -> None:
    ctx = context_of(ask("can i run llama 3.1 70b for under $500/month?", catalog=load_catalog()))
    assert ctx is not None and ctx.budget_usd == 500.0
    old = json.loads(context_to_json(ctx))
    del old["budget_usd"], old["count"]
    back = context_from_json(json.dumps(old))
    assert back.budget_usd is None and back.pick_count is None
    old["budget_usd"], old["count"] = True, "2"  # not numbers: ignored, never an error
    back = context_from_json(json.dumps(old))
    assert back.budget_usd is None and back.pick_count is None


def test_the_store_writes_every_field_the_context_has() -> None:
    """A field added to ``Context`` must reach the store too, or a follow-up served by another
    process silently loses it (a Mac read back as a plain amount)."""
    ctx = context_of(ask("mixtral 8x7b q4 on my macbook pro m3 max 36gb", catalog=load_catalog()))
    assert ctx is not None and ctx.mac is not None
    stored = json.loads(context_to_json(ctx))
    names = set(type(ctx).model_fields)
    renamed = {"pick_card": "pick", "pick_count": "count"}
    assert {renamed.get(n, n) for n in names} <= set(stored)
    assert context_from_json(context_to_json(ctx)).mac == ctx.mac

"""The fit ladder, limits on sets, comparisons, capacity on the asked hardware, honest speed,
card link facts and rental questions: properties over the whole catalog, and the arithmetic
behind the examples (each number recomputed here from the sizing rules, not copied)."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, context_of, load_catalog
from engine.answer_types import Request
from engine.kinds import ladder
from engine.kinds.base import Builder
from engine.recommend import set_headroom_gb
from engine.refs import model_ref
from engine.understand import parse


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _builder(cat: Catalog) -> Builder:
    return Builder(cat, "en", parse("", cat), None)


def _req(cat: Catalog, model_id: str, **kw: object) -> Request:
    ref = model_ref(cat.model_by_id[model_id])
    return Request(model=ref, **kw)  # type: ignore[arg-type]


def test_fit_ladder_property_over_every_model_and_card(cat: Catalog) -> None:
    """fit.best really fits, no better-quality option that fits was skipped, and the longest
    context fits while one 1k step more does not (unless it is the model's own maximum)."""
    b = _builder(cat)
    checked = 0
    for m in cat.models:
        req = _req(cat, m.id)
        for card in cat.cards:
            hw = ladder.card_hardware(card, 1)
            reqs = ladder.ladder_requests(b, hw, req)
            options = [ladder.option(b, hw, r) for r in reqs]
            weights = [b.breakdown(r).parts["weights"] for r in reqs]
            assert weights == sorted(weights, reverse=True)  # best quality (most bytes) first
            best = next((i for i, o in enumerate(options) if o.fits), None)
            if best is not None:
                o, r = options[best], reqs[best]
                assert o.total_gb <= card.vram_gb
                assert o.headroom_gb == pytest.approx(card.vram_gb - o.total_gb)
                assert not any(x.fits for x in options[:best])
                assert not (card.fp8 is False and b.cat.precision_by_name[r.precision].needs_fp8)
            mctx = ladder.max_context(b, hw, req)
            if mctx:
                at = req.model_copy(update={"context_tokens": mctx})
                assert b.breakdown(at).total <= card.vram_gb
                if mctx + 1024 <= ladder.context_cap(req):
                    more = req.model_copy(update={"context_tokens": mctx + 1024})
                    assert b.breakdown(more).total > card.vram_gb
            checked += 1
    assert checked == len(cat.models) * len(cat.cards)


@pytest.mark.parametrize("count", [2, 4, 8])
def test_set_ladder_judges_card_by_card(cat: Catalog, count: int) -> None:
    """On a set, a rung fits only when every card holds its share (copied caches included)."""
    b = _builder(cat)
    card = cat.card_by_name["H200 SXM"]
    req = _req(cat, "deepseek-r1", context_tokens=131072, batch=8)
    hw = ladder.card_hardware(card, count)
    for r in ladder.ladder_requests(b, hw, req):
        o = ladder.option(b, hw, r)
        w = b.workload(r, b.breakdown(r).total)
        assert o.headroom_gb == pytest.approx(set_headroom_gb(card, count, w))
        assert o.fits == (o.headroom_gb >= 0)


def test_json_contract_fit_fields(cat: Catalog) -> None:
    a = ask("does qwen2.5 32b fit on a 4090", catalog=cat).to_json()
    f = a["fit"]
    for key in ("options", "best", "offered", "max_context_tokens", "max_batch"):
        assert key in f
    for o in f["options"]:
        assert set(o) >= {"precision", "kv_dtype", "context_tokens", "batch", "total_gb"}
        assert set(o) >= {"fits", "headroom_gb"}
    assert f["fits"] is False and f["best"] is not None
    # the lead: the first option that fits, or a step lighter when that one is at the edge
    # (Q4_K_M with 0.2 GB left on 24 GB -> INT4 with 3.6 GB)
    fitting = [o for o in f["options"] if o["fits"]]
    lead = next(o for o in fitting if o["precision"] == f["best"]["precision"])
    assert f["best"] == lead | {"max_context_tokens": f["best"]["max_context_tokens"]}
    edge = min(5.0, 0.1 * f["vram_gb"])
    assert all(o["headroom_gb"] < edge for o in fitting[: fitting.index(lead)])
    assert lead["headroom_gb"] >= edge or lead is fitting[0]
    assert f["max_context_tokens"] == 0 and f["max_batch"] == 0  # BF16 leaves nothing
    assert f["offered"] is True


def test_decode_is_null_when_nothing_fits(cat: Catalog) -> None:
    a = ask("does llama 3.1 405b fit on a 4090", catalog=cat)
    assert a.fit is not None and a.fit.best is None
    assert a.decode_tok_s is None and a.fit.decode_tok_s is None
    assert "tokens/s" not in a.text.split("Cheapest")[0]


def test_decode_ceiling_is_bandwidth_over_weights_with_kv_lower(cat: Catalog) -> None:
    a = ask("does llama 3.1 8b fit on an h100 at 128k batch 2", catalog=cat)
    assert a.fit is not None and a.fit.fits and a.request is not None
    weights = a.memory_gb["weights"]  # type: ignore[index]
    kv = a.memory_gb["kv_cache"]  # type: ignore[index]
    bw = cat.card_by_name["H100 SXM"].bandwidth_gbps
    assert a.decode_tok_s == pytest.approx(bw / weights)
    assert kv > 0.1 * weights
    assert a.decode_kv_tok_s == pytest.approx(bw / (weights + kv))


def test_moe_ceiling_reads_active_weights(cat: Catalog) -> None:
    a = ask("does mixtral 8x7b fit on 2x a100 sxm", catalog=cat)
    m = cat.model_by_id["mixtral-8x7b"]
    assert a.fit is not None and a.fit.fits and m.active_params_b
    bw = cat.card_by_name["A100 SXM"].bandwidth_gbps * 2
    assert a.decode_tok_s == pytest.approx(bw / (m.active_params_b * 2))
    assert "NVLink 3" in a.text and "600" in a.text


def test_every_gangable_card_has_a_link(cat: Catalog) -> None:
    for c in cat.cards:
        assert c.interconnect and c.link_gbps, c.name
    facts = {c.name: c.link_gbps for c in cat.cards}
    assert facts["A100 SXM"] == 600 and facts["H100 SXM"] == 900
    assert facts["H200 SXM"] == 900 and facts["B200"] == 1800
    assert "Infinity Fabric" in (cat.card_by_name["MI300X"].interconnect or "")
    for name in ("A100 SXM", "MI300X", "B200"):
        text = ask(f"card {name}", catalog=cat).text
        assert "(0 GB/s)" not in text


def test_tight_fit_names_the_next_card_up(cat: Catalog) -> None:
    a = ask("does gpt-oss-20b fit in 16 gb", catalog=cat)
    nxt = next(n.text for n in a.caveats if n.code == "vllm_headroom")
    need = a.memory_gb["total"]  # type: ignore[index]
    roomy = [c for c in cat.cards if c.vram_gb * 0.9 >= need and c.min_count == 1]
    assert min(roomy, key=lambda c: c.monthly_usd).name in nxt


def test_limit_on_a_recommended_set_after_follow_ups(cat: Catalog) -> None:
    a = ask("deepseek r1", catalog=cat)
    b = ask("fp8 instead", catalog=cat, previous=context_of(a))
    assert b.recommendation is not None and b.recommendation.count == 8
    c = ask("how many users on that?", catalog=cat, previous=context_of(b))
    assert c.kind == "limit" and c.limit is not None
    assert (c.limit.card, c.limit.count) == (b.recommendation.card, 8)
    assert (c.limit.max_batch or 0) > 0


def test_limit_gives_other_precisions_when_the_asked_one_leaves_nothing(cat: Catalog) -> None:
    a = ask("how many users on h100 for llama 3.3 70b", catalog=cat)
    assert a.limit is not None and a.limit.max_batch == 0
    got = {o.precision: o for o in a.limit.options}
    ref = model_ref(cat.model_by_id["llama-3.3-70b"])
    per_seq = 2 * ref.layers * ref.kv_heads * ref.head_dim * 2 * 8192 / 1e9
    free_fp8 = 80 - ref.params_b * 1 - 2
    assert got["fp8"].max_batch == int(free_fp8 // per_seq) == 2
    assert got["fp8"].max_batch_kv_fp8 == int(free_fp8 // (per_seq / 2)) == 5
    assert got["int4"].max_batch == int((80 - ref.params_b * 0.5 - 2) // per_seq) == 15


def test_capacity_uses_the_asked_hardware(cat: Catalog) -> None:
    a = ask("what can i run on a 4090", catalog=cat)
    card = cat.card_by_name["RTX 4090"]
    assert a.budget and all(o.monthly_usd == card.monthly_usd for o in a.budget)
    for o in a.budget:
        spec = cat.model_by_id[o.model_id]
        read = (spec.active_params_b or spec.params_b) * cat.precision_by_name[
            o.precision
        ].bytes_per_param
        if o.precision == spec.native_precision.experts:  # as released: BF16 outside experts
            continue  # (the mixed read is checked in tests/queries/test_qa2_examples.py)
        assert o.decode_tok_s == pytest.approx(card.bandwidth_gbps / read)
    rels = [cat.model_by_id[o.model_id].released for o in a.budget]
    assert rels[0] >= "2024"  # current models lead
    pair = ask("what fits on 2x 3090", catalog=cat)
    assert pair.budget and all(not o.offered and o.rent_card for o in pair.budget)
    assert max(o.need_gb for o in pair.budget) <= 48
    code = ask("what can i run on a 4090 for coding", catalog=cat)
    assert code.budget and all("code" in cat.model_by_id[o.model_id].tasks for o in code.budget)


def test_compare_items_are_full_answers(cat: Catalog) -> None:
    a = ask("qwen2.5 7b vs llama 3.1 8b kv cache at 32k", catalog=cat)
    assert a.kind == "compare" and len(a.items) == 2 and a.verdict
    for item in a.items:
        assert item.request is not None and item.request.context_tokens == 32768
        alone = ask(f"{item.request.model.name} 32k", catalog=cat)  # type: ignore[union-attr]
        assert item.memory_gb == alone.memory_gb
    j = a.to_json()
    assert j["kind"] == "compare" and len(j["items"]) == 2 and isinstance(j["verdict"], str)


def test_faq_with_a_card_carries_it(cat: Catalog) -> None:
    a = ask("cheapest vram per gb", catalog=cat)
    assert a.kind == "faq" and a.card is not None
    assert a.card.name == min(cat.cards, key=lambda c: c.usd_per_gb_month).name


@pytest.mark.parametrize(
    "q",
    [
        "best model under $500/month for coding",
        "co do kodu za 500 dolarów miesięcznie?",
        "โมเดลเขียนโค้ดงบ $500 ต่อเดือน",
    ],
)
def test_a_budget_for_coding_lists_code_models_only(cat: Catalog, q: str) -> None:
    a = ask(q, catalog=cat)
    assert a.kind == "budget" and a.budget
    assert all("code" in cat.model_by_id[o.model_id].tasks for o in a.budget)
    assert any(n.code == "coding_only" for n in a.assumptions)
    plain = ask("best model under $500/month", catalog=cat)
    assert any("code" not in cat.model_by_id[o.model_id].tasks for o in plain.budget)

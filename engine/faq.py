"""FAQ answers whose every number is computed now, from the engine and ``data/``.

The wording is in the message tables (``faq.<topic>``); this module only fills in figures, so
a price change in ``cards.yaml`` changes the answer and nothing can drift.
"""

from __future__ import annotations

from typing import Any, Final

from engine.answer_types import ModelRef, Pick
from engine.catalog import Catalog
from engine.models import Card, Task
from engine.recommend import Workload, decode_for, recommend, set_price
from engine.refs import typical_ref
from engine.sizing import (
    HF_FULL_FT_BYTES,
    LORA_BASE_BYTES,
    OVERHEAD_GB,
    QUICK_RULE_MARGIN,
    full_ft_bytes_per_param,
    inference,
    kv_bytes_per_token,
    quick_rule_gb,
    training,
)
from engine.text.voice import Voice

GIB: Final = 2**30


def _bpp(cat: Catalog, precision: str) -> float:
    return cat.precision_by_name[precision].bytes_per_param


def _need(cat: Catalog, ref: ModelRef, precision: str, ctx: int = 8192, batch: int = 1) -> float:
    return inference(ref, _bpp(cat, precision), 2.0, ctx, batch).total


def _pick(cat: Catalog, ref: ModelRef, need: float, task: Task, precision: str) -> Pick | None:
    prec = cat.precision_by_name[precision]
    w = Workload(
        need_gb=need,
        task=task,
        needs_fp8=prec.needs_fp8 and task == "inference",
        attention_heads=ref.attention_heads,
        weights_read_gb=ref.params_b * prec.bytes_per_param if task == "inference" else None,
    )
    return recommend(cat, w)[0]


def _pick_text(f: Voice, p: Pick | None) -> str:
    if p is None:
        return f.t("faq.cluster")
    name = p.card if p.count == 1 else f"{p.count}× {p.card}"
    return f"{name} {f.usd(p.monthly_usd)}"


def _size_params(cat: Catalog, f: Voice, size: float) -> dict[str, Any]:
    ref = typical_ref(cat, size)
    out: dict[str, Any] = {"size": f.num(size)}
    for prec in ("bf16", "fp8", "int4"):
        need = _need(cat, ref, prec)
        out[f"{prec}_gb"] = f.gb(need)
        out[f"{prec}_card"] = _pick_text(f, _pick(cat, ref, need, "inference", prec))
    out["kv_gb"] = f.gb(inference(ref, 2, 2.0, 8192, 1).parts["kv_cache"])
    for task in ("qlora", "lora", "full"):
        need = training(ref, task, 2048, 1).total
        out[f"{task}_gb"] = f.gb(need)
        out[f"{task}_card"] = _pick_text(f, _pick(cat, ref, need, task, "bf16"))
    return out


def params_for(cat: Catalog, lang: str, topic: str, named: Card | None = None) -> dict[str, Any]:
    f = Voice(cat, lang)
    r70 = typical_ref(cat, 70)
    if topic.startswith("size_"):
        return _size_params(cat, f, float(topic.removeprefix("size_").removesuffix("b")))
    if topic == "compute_vram":
        bd = inference(r70, _bpp(cat, "fp8"), 2.0, 8192, 1)
        return {
            "w": f.gb(bd.parts["weights"]),
            "kv": f.gb(bd.parts["kv_cache"]),
            "oh": f.num(OVERHEAD_GB),
            "total": f.gb(bd.total),
            "headroom": f.gb(80 - bd.total),
        }
    if topic == "kv_cache":
        per = kv_bytes_per_token(r70, 2.0)
        return {
            "mb": f.num(per / 1e6, 2),
            "bytes": f.num(per),
            "gb8k": f.gb(per * 8192 / 1e9),
            "gb128k": f.gb(per * 131072 / 1e9),
            "gb128k_fp8": f.gb(per * 131072 / 2e9),
            "r13": f.gb(kv_bytes_per_token(typical_ref(cat, 13), 2.0) * 8192 / 1e9),
        }
    if topic == "long_context":
        need32 = _need(cat, r70, "fp8", 32768)
        need128 = _need(cat, r70, "fp8", 131072)
        return {
            "kv32": f.gb(inference(r70, 1, 2.0, 32768, 1).parts["kv_cache"]),
            "need32": f.gb(need32),
            "need128": f.gb(need128),
            "card128": _pick_text(f, _pick(cat, r70, need128, "inference", "fp8")),
            "need128_kv8": f.gb(inference(r70, 1, 1.0, 131072, 1).total),
        }
    if topic == "finetune_24gb":
        r7, r13, r34 = typical_ref(cat, 7), typical_ref(cat, 13), typical_ref(cat, 34)
        return {
            "q7": f.gb(training(r7, "qlora", 2048, 1).total),
            "q13": f.gb(training(r13, "qlora", 2048, 1).total),
            "q34": f.gb(training(r34, "qlora", 2048, 1).total),
            "l7": f.gb(training(r7, "lora", 2048, 1).total),
            "l13": f.gb(training(r13, "lora", 2048, 1).total),
            "f7": f.gb(training(r7, "full", 2048, 1).total),
            "bytes": f.num(full_ft_bytes_per_param()),
        }
    if topic == "ft_methods":
        full = training(r70, "full", 2048, 1).total
        q = training(r70, "qlora", 2048, 1).total
        pf = _pick(cat, r70, full, "full", "bf16")
        pq = _pick(cat, r70, q, "qlora", "bf16")
        ratio = (pf.monthly_usd / pq.monthly_usd) if pf and pq else 0
        return {
            "full_bytes": f.num(full_ft_bytes_per_param()),
            "lora_bytes": f.num(LORA_BASE_BYTES["lora"]),
            "qlora_bytes": f.num(LORA_BASE_BYTES["qlora"], 1),
            "hf_bytes": f.num(HF_FULL_FT_BYTES),
            "full70": f.gb(full),
            "full70_card": _pick_text(f, pf),
            "q70": f.gb(q),
            "q70_card": _pick_text(f, pq),
            "ratio": f.num(ratio),
        }
    if topic in ("two_cards", "nvlink"):
        c = {n: _card(cat, n) for n in ("H100 SXM", "A40", "L40S", "RTX 5090")}
        _, _, pair = set_price(cat, c["RTX 5090"], 2)
        return {
            "nvlink": f.num(c["H100 SXM"].link_gbps or 0),
            "bridge": f.num(c["A40"].link_gbps or 0),
            "gen4": f.num(c["L40S"].link_gbps or 0),
            "gen5": f.num(c["RTX 5090"].link_gbps or 0),
            "pair_gb": f.gb(c["RTX 5090"].vram_gb * 2),
            "pair_bw": f.num(c["RTX 5090"].bandwidth_gbps * 2 / 1000, 2),
            "pair_price": f.usd(pair),
            "h100_gb": f.gb(c["H100 SXM"].vram_gb),
            "h100_bw": f.num(c["H100 SXM"].bandwidth_gbps / 1000, 2),
            "h100_price": f.usd(c["H100 SXM"].monthly_usd),
        }
    if topic == "cheapest_per_gb":
        ranked = sorted(cat.cards, key=lambda c: c.usd_per_gb_month)
        top = ", ".join(f"{c.name} {f.usd(c.usd_per_gb_month)}" for c in ranked[:4])
        dear = ranked[-1]
        best_bw = max(cat.cards, key=lambda c: c.gbps_per_usd_month)
        return {
            "top": top,
            "first": ranked[0].name,
            "first_vram": f.gb(ranked[0].vram_gb),
            "first_price": f.usd(ranked[0].monthly_usd),
            "first_per_gb": f.usd(ranked[0].usd_per_gb_month),
            "dear": dear.name,
            "dear_per_gb": f.usd(dear.usd_per_gb_month),
            "bw_card": best_bw.name,
            "bw": f.num(best_bw.gbps_per_usd_month, 2),
        }
    if topic == "bandwidth":
        r7, r34 = typical_ref(cat, 7), typical_ref(cat, 34)
        a40, r5090, a100, r4090 = (
            _card(cat, n) for n in ("A40", "RTX 5090", "A100 SXM", "RTX 4090")
        )
        w7 = r7.params_b * 2
        return {
            "w7": f.gb(w7),
            "a40": f.num(decode_for(a40, 1, w7) or 0),
            "r5090": f.num(decode_for(r5090, 1, w7) or 0),
            "a100_34": f.num(decode_for(a100, 1, r34.params_b * 2) or 0),
            "r4090_34": f.num(decode_for(r4090, 1, r34.params_b * 0.5) or 0),
            "a100_price": f.usd(a100.monthly_usd),
            "r4090_price": f.usd(r4090.monthly_usd),
            "pct": f.num((1 - r4090.monthly_usd / a100.monthly_usd) * 100),
        }
    if topic == "int4_quality":
        need = _need(cat, r70, "int4")
        return {
            "need": f.gb(need),
            "card": _pick_text(f, _pick(cat, r70, need, "inference", "int4")),
        }
    if topic == "gpu_counts":
        quick = quick_rule_gb(70, 2)
        return {
            "heads": r70.attention_heads,
            "quick": f.gb(quick),
            "margin": f.num(QUICK_RULE_MARGIN, 1),
            "three": f.gb(80 * 3),
            "four": f.gb(80 * 4),
        }
    if topic == "hourly_vs_monthly":
        prov = cat.fleet.provider
        cheapest = faq_card(cat, topic, named) or min(cat.cards, key=lambda c: c.monthly_usd)
        book = next(iter(cat.price_books.values()))
        b200, l40s = book.hourly_usd.get("B200", 0), book.hourly_usd.get("L40S", 0)
        return {
            "hours": prov.hours_per_month,
            "days": prov.min_term_days,
            "card": cheapest.name,
            "week": _week(cat, f, cheapest),
            "hour": f.usd(cheapest.monthly_usd / prov.hours_per_month),
            "b200": f.usd(b200),
            "l40s": f.usd(l40s),
            "saving": f.num((1 - l40s / b200) * 100 if b200 else 0),
            "date": book.prices_as_of,
        }
    if topic == "not_to_rent":
        r405 = typical_ref(cat, 405)
        prov = cat.fleet.provider
        return {
            "days": prov.min_term_days,
            "full405": f.gb(training(r405, "full", 2048, 1).parts["weights"] * 8),
            "full405_act": f.gb(training(r405, "full", 2048, 1).total),
            "regions": ", ".join(f"{r.id} {r.city}" for r in prov.regions),
        }
    if topic in ("payment", "regions", "sales", "discounts"):
        return _rental_params(cat, f)
    if topic == "gib":
        return {"pct": f.num((1 - 1e9 / GIB) * 100, 1)}
    if topic == "moe":
        mix = cat.model_by_id.get("mixtral-8x7b")
        total = mix.params_b if mix else 46.7
        active = (mix.active_params_b if mix else None) or 12.9
        return {
            "total": f.num(total, 1),
            "active": f.num(active, 1),
            "gb": f.gb(total * 2),
            "gb_active": f.gb(active * 2),
        }
    return {}


def _week(cat: Catalog, f: Voice, card: Card) -> str:
    """A week of the card, or of the smallest set of a card rented only in sets (named)."""
    prov = cat.fleet.provider
    least = card.min_count
    month = set_price(cat, card, least)[2] if least > 1 else card.monthly_usd
    week = f.usd(month * prov.min_term_days * 24 / prov.hours_per_month)
    return f"{week} ({least}× {card.name})" if least > 1 else week


def _card(cat: Catalog, name: str) -> Card:
    """A card the FAQ names by its catalog name, also under a price book that does not rent it."""
    card = cat.card_by_name.get(name)
    if card is None and cat.base is not None:
        card = cat.base.card_by_name[name]
    if card is None:
        raise KeyError(name)
    return card


def _rental_params(cat: Catalog, f: Voice) -> dict[str, Any]:
    """Payment, regions, stock and the cluster line: all read from cards.yaml."""
    prov = cat.fleet.provider
    cheapest = min(cat.cards, key=lambda c: c.monthly_usd)
    node = cat.card_by_name[cat.fleet.cluster.card]
    per_node = cat.fleet.cluster.cards_per_node
    return {
        "methods": ", ".join(prov.payment_methods),
        "days": prov.min_term_days,
        "card": cheapest.name,
        "week": f.usd(cheapest.monthly_usd * prov.min_term_days * 24 / prov.hours_per_month),
        "regions": ", ".join(f"{r.id} {r.city}" for r in prov.regions),
        "mi_region": ", ".join(node.regions),
        "stock": node.stock_free if node.stock_free is not None else "?",
        "deploy": prov.deploy_seconds,
        "node_gb": f.gb(node.vram_gb * per_node),
        "node_card": node.name,
        "discounts": ", ".join(f"{f.num(d.pct)}% ({d.count})" for d in cat.fleet.discounts),
    }


def faq_card(cat: Catalog, topic: str, named: Card | None = None) -> Card | None:
    """The one card an FAQ answer singles out (its facts go into the answer's JSON): the card
    the question named ("an h100 by the hour"), else the topic's own example."""
    if topic == "cheapest_per_gb":
        return min(cat.cards, key=lambda c: c.usd_per_gb_month)
    if topic == "hourly_vs_monthly" and named is not None:
        return named
    if topic in ("hourly_vs_monthly", "payment", "discounts"):
        return min(cat.cards, key=lambda c: c.monthly_usd)
    return None


def answer(cat: Catalog, lang: str, topic: str, named: Card | None = None) -> list[str]:
    key = "faq.size" if topic.startswith("size_") else f"faq.{topic}"
    text = Voice(cat, lang).t(key, **params_for(cat, lang, topic, named))
    return [line for line in text.strip().split("\n")]

"""The serving table the capacity and budget lists read: every catalog model at each
precision a list offers, at a context and a user count, with the cheapest card that serves
it; and its rows model by model in the order the lists rank them. A Mac's list has a table
of its own, in what its runtimes run (GGUF's Q8_0 and Q4_K_M, not INT4 or FP8 kernels).
"""

from __future__ import annotations

from functools import lru_cache

from engine.answer_types import BudgetOption
from engine.catalog import Catalog
from engine.limits import DEFAULT_CONTEXT
from engine.models import ModelSpec
from engine.recommend import Workload, recommend
from engine.refs import model_ref
from engine.sizing import inference, mixed_weights_gb


class ServingRow(BudgetOption):
    """One (model, precision) at a context and a user count, with its cheapest card."""

    nominal_b: float
    released_rank: int
    attention_heads: int
    read_gb: float  # weights read per decoded token (active weights)
    code: bool  # the catalog marks the model for code
    shipped: bool = False  # the model as released (MXFP4 experts, FP8 weights), not requantised


CURRENT_MONTHS = 18  # models released this long before the newest count as current


Shape = tuple[int, int, str]  # context tokens, users at once, KV cache dtype
DEFAULT_SHAPE: Shape = (DEFAULT_CONTEXT, 1, "fp16")


# The precisions a list offers, after the model as released: on a Mac the GGUF types
# llama.cpp and Ollama run there (engine/kinds/mac.py MAC_PRECISION), and no FP8 release
_PRECISIONS = ("shipped", "bf16", "fp8", "int4")
_MAC_PRECISIONS = ("shipped", "bf16", "q8_0", "q4_k_m")


@lru_cache(maxsize=32)
def serving_table(
    cat: Catalog, shape: Shape = DEFAULT_SHAPE, mac: bool = False
) -> tuple[ServingRow, ...]:
    """Every catalog model served at BF16, FP8 and INT4 (a Mac's: BF16, Q8_0 and Q4_K_M) at
    ``shape`` (8k and one user unless asked): computed once per shape. A model whose own
    maximum is below an asked context longer than the default is left out: it cannot serve it."""
    ctx, batch, kv = shape
    kvb = cat.kv_by_name[kv].bytes
    rows: list[ServingRow] = []
    order = {m.id: i for i, m in enumerate(sorted(cat.models, key=lambda m: m.released))}
    for m in cat.models:
        if ctx > max(m.max_context_tokens, DEFAULT_CONTEXT):
            continue
        ref = model_ref(m)
        shipped = _as_shipped(cat, m)
        # a release named for its precision ("GLM-4.7 FP8") is listed in that one only: in
        # another it is the base model's row, and "GLM-4.7 FP8 in INT4" reads as a contradiction
        last = m.name.rsplit(" ", 1)[-1].lower()
        named = last if last in cat.precision_by_name else None
        for prec in _MAC_PRECISIONS if mac else _PRECISIONS:
            as_released = prec == "shipped"
            if as_released:
                if shipped is None or (mac and cat.precision_by_name[shipped[0]].needs_fp8):
                    continue
                prec, weights, read = shipped
            if named is not None and prec != named:
                continue
            if as_released:
                need = inference(ref, 0, kvb, ctx, batch, weights).total
            else:
                p = cat.precision_by_name[prec]
                need = inference(ref, p.bytes_per_param, kvb, ctx, batch).total
                read = (m.active_params_b or m.params_b) * p.bytes_per_param
                if shipped is not None and need >= rows[-1].need_gb:
                    continue  # above the release's own bytes: an upcast, never an upgrade
            # the row's own precision: a release in FP8 runs on FP8 cards only
            needs_fp8 = cat.precision_by_name[prec].needs_fp8
            w = Workload(need, "inference", needs_fp8, m.attention_heads, read)
            pick, _ = recommend(cat, w)
            rows.append(
                ServingRow(
                    model=m.name,
                    model_id=m.id,
                    params_b=m.params_b,
                    precision=prec,
                    need_gb=need,
                    card=pick.card if pick else "",
                    count=pick.count if pick else 0,
                    monthly_usd=pick.monthly_usd if pick else float("inf"),
                    decode_tok_s=pick.decode_tok_s if pick else None,
                    released=m.released,
                    nominal_b=m.nominal_b,
                    released_rank=order[m.id],
                    attention_heads=m.attention_heads,
                    read_gb=read,
                    code="code" in m.tasks,
                    shipped=as_released,
                    context_tokens=ctx,
                    batch=batch,
                )
            )
    return tuple(rows)


def _as_shipped(cat: Catalog, m: ModelSpec) -> tuple[str, float, float] | None:
    """(precision, weights GB, GB read per token) of a checkpoint released below 16 bits
    (gpt-oss in MXFP4, DeepSeek in FP8); None for a BF16 release, which the BF16 row is."""
    n = m.native_precision
    top = n.experts or n.dense
    bpp = {k: cat.precision_by_name[k].bytes_per_param for k in {top, n.dense, n.embeddings}}
    if bpp[top] >= 2 and bpp[n.dense] >= 2:
        return None
    ref = model_ref(m)
    weights = mixed_weights_gb(ref, bpp[top], bpp[n.dense], bpp[n.embeddings])
    active = m.active_params_b or m.params_b
    read = active * bpp[n.dense]
    if m.moe is not None and n.experts is not None and ref.experts_b:
        routed = min(ref.experts_b * m.moe.experts_per_token / m.moe.experts, active)
        read = routed * bpp[n.experts] + (active - routed) * bpp[n.dense]
    return top, weights, read


@lru_cache(maxsize=8)
def current_cutoff(cat: Catalog) -> str:
    """The release month ("YYYY-MM") before which a model is no longer current; per catalog."""
    newest = max(m.released for m in cat.models)
    year, month = int(newest[:4]), int(newest[5:7])
    total = year * 12 + month - 1 - CURRENT_MONTHS
    return f"{total // 12:04d}-{total % 12 + 1:02d}"


@lru_cache(maxsize=32)
def by_rank(
    cat: Catalog, shape: Shape = DEFAULT_SHAPE, mac: bool = False
) -> tuple[tuple[ServingRow, ...], ...]:
    """The serving table's rows model by model (highest precision first), the models in the
    order the capacity and budget lists rank them: current models first, then by size; a
    size's newest base model first; distilled derivatives only when nothing else. The key ends
    in the model's own release rank, so no two models tie (a price never breaks a tie)."""
    cutoff = current_cutoff(cat)
    groups: dict[str, list[ServingRow]] = {}
    for r in serving_table(cat, shape, mac):
        groups.setdefault(r.model_id, []).append(r)
    ranked = sorted(
        groups.values(),
        key=lambda rows: (
            (rows[0].released or "") < cutoff,
            -rows[0].nominal_b,
            "distill" in rows[0].model_id,
            -rows[0].released_rank,
        ),
    )
    return tuple(tuple(rows) for rows in ranked)

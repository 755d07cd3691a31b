"""Models as they ship: the parameter split a mixed checkpoint needs, and the precision default.

A named model with no precision asked is sized as its official checkpoint stores it (gpt-oss:
MXFP4 experts + BF16 rest; DeepSeek-V3/R1: FP8 with block scales), and the answer says so with
the BF16 figure beside it. A bare size keeps the sources' BF16 baseline; an Ollama tag without a
quantisation means what the tag serves; an explicit precision always wins. This module holds
those rules so parsing and answering only call into it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from engine.answer_types import ModelRef, Request, WeightParts
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.lazyre import lazy
from engine.models import ModelSpec, Task
from engine.sizing import mixed_weights_gb

if TYPE_CHECKING:
    from engine.understand import Query

BASELINE: Final = "bf16"
OLLAMA_DEFAULT: Final = "q4_k_m"  # what library tags without a quantisation suffix serve
# "llama3.1:70b", "gpt-oss:120b", "qwen3:latest": a name, a colon and a size or "latest".
_OLLAMA_TAG: Final = lazy(r"(?<![\w./:-])[a-z][\w.\-]*:(?:\d+(?:\.\d+)?b|\d+x\d+b|latest)(?![\w.])")
VLLM_DEFAULT_SHARE: Final = 0.10  # vLLM takes 90% of a card by default: a fit inside 10% is an edge


def experts_b(m: ModelSpec) -> float | None:
    """Routed-expert parameters (billions) from config values, or None for a dense model."""
    if m.moe is None or m.moe.expert_intermediate_size is None or m.moe.moe_layers is None:
        return None
    width = m.moe.expert_hidden_size or m.hidden_size
    per_expert = m.moe.expert_matrices * width * m.moe.expert_intermediate_size
    return m.moe.moe_layers * m.moe.experts * per_expert / 1e9


def embeddings_b(m: ModelSpec) -> float:
    """embed_tokens plus lm_head (one matrix when they are tied), billions."""
    return m.vocab_size * m.hidden_size * (1 if m.tie_word_embeddings else 2) / 1e9


def ref_fields(m: ModelSpec) -> dict[str, Any]:
    """The ModelRef fields that carry a catalog model's split and layer layout."""
    return {
        "experts_b": experts_b(m),
        "embeddings_b": embeddings_b(m),
        "layer_types": m.layer_types,
        "recurrent_state": m.recurrent_state,
        "full_attention": m.full_attention,
    }


def parts_for(cat: Catalog, ref: ModelRef, precision: str) -> WeightParts | None:
    """How an asked-for precision spreads over a model's parts (None: every parameter).

    MXFP4 on an MoE model quantises the routed experts only; formats with scope ``linear`` keep
    embeddings and lm_head in BF16. The sources' plain types apply to every parameter.
    """
    scope = cat.precision_by_name[precision].scope
    if scope == "all" or ref.embeddings_b is None:
        return None
    if scope == "experts" and ref.experts_b:
        return WeightParts(experts=precision, dense=BASELINE, embeddings=BASELINE)
    return WeightParts(dense=precision, embeddings=BASELINE)


@per_catalog
def _sixteen_bit_ids(cat: Catalog) -> frozenset[str]:
    """The ids of the models whose every shipped part is 16-bit, once per catalog."""
    out = set()
    for m in cat.models:
        n = m.native_precision
        names = [n.dense, n.embeddings] + ([n.experts] if n.experts else [])
        if all(cat.precision_by_name[p].bits == 16 for p in names):
            out.add(m.id)
    return frozenset(out)


def _all_16_bit(cat: Catalog, m: ModelSpec) -> bool:
    return m.id in _sixteen_bit_ids(cat)


def is_ollama_tag(text: str) -> bool:
    # every tag has its colon (lowering makes none): most questions skip the lowering and search
    return ":" in text and _OLLAMA_TAG.search(text.lower()) is not None


def choose_weights(
    cat: Catalog,
    q: Query,
    ref: ModelRef,
    task: Task,
    precision: str | None,
    base: Request | None,
) -> tuple[str, WeightParts | None]:
    """The precision (and per-part split) a request is sized at; see the module docstring.

    ``precision`` is what the message asked, or what the conversation carried over.
    """
    if task != "inference":
        return precision or BASELINE, None
    if precision is not None:
        if q.precision is None and base is not None and base.precision == precision:
            same_model = base.model is not None and base.model.id == ref.id
            return precision, base.weight_parts if same_model else parts_for(cat, ref, precision)
        spec = cat.model_by_id.get(ref.id) if ref.id else None
        if spec is not None and not _all_16_bit(cat, spec):
            n = spec.native_precision
            if precision == (n.experts or n.dense):  # the shipped format, asked by name
                return precision, _shipped(spec, ref, as_released=False)
        return precision, parts_for(cat, ref, precision)
    spec = cat.model_by_id.get(ref.id) if ref.id and q.model is not None else None
    if spec is None:
        return BASELINE, None
    if is_ollama_tag(q.text):
        tag = spec.ollama_precision or OLLAMA_DEFAULT
        return tag, parts_for(cat, ref, tag)
    if _all_16_bit(cat, spec):
        return BASELINE, None
    n = spec.native_precision
    return n.experts or n.dense, _shipped(spec, ref)


def _shipped(spec: ModelSpec, ref: ModelRef, as_released: bool = True) -> WeightParts:
    """The parts of a model's official checkpoint, the same sizes asked by name or not
    (``as_released``: not asked, so the answer says how it was counted)."""
    n = spec.native_precision
    return WeightParts(
        experts=n.experts if ref.experts_b else None,
        dense=n.dense,
        embeddings=n.embeddings,
        as_released=as_released,
    )


def weights_gb(cat: Catalog, req: Request) -> float | None:
    """Weights of a mixed checkpoint, or None when one precision covers every parameter."""
    p = req.weight_parts
    if p is None or req.model is None:
        return None
    rate = {k: cat.precision_by_name[k].bits / 8 for k in _names(p)}  # bytes_per_param
    return mixed_weights_gb(
        req.model, rate[p.experts or p.dense], rate[p.dense], rate[p.embeddings]
    )


def _names(p: WeightParts) -> set[str]:
    return {p.dense, p.embeddings} | ({p.experts} if p.experts else set())


def needs_fp8(cat: Catalog, req: Request) -> bool:
    by_name = cat.precision_by_name
    p = req.weight_parts
    if p is None:
        return by_name[req.precision].needs_fp8
    # any part at an FP8 precision (the names of _names, without building the set)
    return (
        by_name[p.dense].needs_fp8
        or by_name[p.embeddings].needs_fp8
        or bool(p.experts and by_name[p.experts].needs_fp8)
    )


def read_per_token_gb(cat: Catalog, req: Request) -> float:
    """Weights one decoded token reads: the active experts at their rate, the rest at theirs."""
    m = req.model
    assert m is not None
    active = m.active_params_b or m.params_b
    p = req.weight_parts
    if p is None:
        return active * (cat.precision_by_name[req.precision].bits / 8)  # bytes_per_param, no call
    dense = cat.precision_by_name[p.dense].bits / 8
    spec = cat.model_by_id.get(m.id or "")
    if p.experts is None or spec is None or spec.moe is None or not m.experts_b:
        return active * dense
    share = spec.moe.experts_per_token / spec.moe.experts
    active_experts = min(m.experts_b * share, active)
    experts = cat.precision_by_name[p.experts].bits / 8
    return active_experts * experts + (active - active_experts) * dense


def parts_label(cat: Catalog, lang: str, p: WeightParts) -> str:
    """ "MXFP4 experts, BF16 rest" in the answer's language."""
    t = cat.messages[lang]
    if p.experts is not None and p.experts != p.dense:
        text = t["native.experts_rest"].format(experts=p.experts.upper(), rest=p.dense.upper())
    else:
        text = t["native.linear"].format(linear=p.dense.upper())
    if p.embeddings != p.dense:
        text += t["native.embeddings"].format(emb=p.embeddings.upper())
    return text

"""A pasted config.json (or a few of its key lines) -> the model shape it describes.

People paste the config of a model we do not list; its layers, heads, KV heads, head_dim,
MoE and sliding-window fields size it exactly, so it becomes a :class:`ModelSpec` (never a
catalog entry). The parameter count is derived from the same fields the way the checkpoint
lays out its matrices; the weights' dtype and ``quantization_config`` give the precision when
the message does not name one. A paste we cannot read is reported, never guessed around.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from engine.lazyre import lazy
from engine.models import MLA, LayerTypes, ModelSpec, MoE, NativePrecision
from engine.understand.patterns import hint

SOURCE: Final = "pasted config.json"
CONFIG_HINTS: Final = hint(
    "num_hidden_layers", "num_attention_heads", "hidden_size", "num_key_value_heads", "n_layer",
)  # fmt: skip
# '"num_hidden_layers": 80,' or 'num_hidden_layers = 80' or "'sliding_window': null"
_KEY_VALUE: Final = lazy(
    r"[\"']?([a-z_][a-z0-9_]{1,40})[\"']?\s*[:=]\s*"
    r"(\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|true|false|null|none"
    r"|\[[^\[\]]{0,4000}\])",
    re.I,
)
_REQUIRED: Final = ("num_hidden_layers", "hidden_size", "num_attention_heads")
MAX_DIM: Final = 1 << 20  # no real config has a dimension past this: a paste error
# Plain two-matrix MLPs (up, down; no gate): everything else here has a gated MLP.
_UNGATED: Final = ("falcon", "gpt2", "gpt_neox", "gptj", "bloom", "mpt", "starcoder", "opt", "phi")
_DTYPES: Final = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "half": "fp16"}


class Pasted:
    """What a paste gave: a shape and the precision it ships in, or why it cannot be read."""

    spec: ModelSpec | None
    precision: str | None
    error: str | None  # "config_malformed" or "config_missing"
    missing: tuple[str, ...]
    span: tuple[int, int]  # where the paste is in the lowered text, to cut it out
    guessed: tuple[str, ...]  # keys the paste left out, sized with a stated default

    def __init__(
        self,
        spec: ModelSpec | None,
        precision: str | None,
        error: str | None,
        missing: tuple[str, ...],
        span: tuple[int, int],
        guessed: tuple[str, ...] = (),
    ) -> None:
        self.spec = spec
        self.precision = precision
        self.error = error
        self.missing = missing
        self.span = span
        self.guessed = guessed


# The keys a shape is sized without, each with the default it then takes: said back with the
# answer, so a partial paste is never sized on a silent guess.
_DEFAULTED: Final = (
    ("num_key_value_heads", ("num_key_value_heads", "num_kv_heads")),
    ("intermediate_size", ("intermediate_size", "ffn_dim")),
    ("vocab_size", ("vocab_size",)),
    ("max_position_embeddings", ("max_position_embeddings", "seq_length")),
)
# Each left-out key's stand-in, as ``_spec`` applies it (said back in the config's own terms)
DEFAULTS: Final = {
    "num_key_value_heads": "num_key_value_heads = num_attention_heads",
    "intermediate_size": "intermediate_size = 4 × hidden_size",
    "vocab_size": "vocab_size = 32000",
    "max_position_embeddings": "max_position_embeddings = 1048576",
}


def guessed_keys(d: dict[str, Any]) -> tuple[str, ...]:
    """The keys of ``_DEFAULTED`` the paste does not give."""
    return tuple(name for name, keys in _DEFAULTED if all(_int(d, k) is None for k in keys))


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "none"):
        return None
    if text[:1] in "\"'":
        return text[1:-1]
    if text.startswith("["):
        return [_value(v.strip()) for v in text[1:-1].split(",") if v.strip()]
    return float(text) if re.search(r"[.e]", low) else int(text)


def _fields(text: str) -> tuple[dict[str, Any], bool]:
    """The config's keys: as JSON when it parses (nested text_config merged), else read key by
    key (truncated or hand-copied pastes). Returns the keys and whether the JSON parsed."""
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        try:
            data = json.loads(text[start : end + 1])
        except ValueError:
            data = None
        if isinstance(data, dict):
            inner = data.get("text_config")
            if isinstance(inner, dict):
                data = {**data, **inner}
            if any(k in data for k in _REQUIRED):  # not just a nested quantization_config
                return data, True
    out: dict[str, Any] = {}
    for m in _KEY_VALUE.finditer(text):
        key = m.group(1).lower()
        if key not in out or key in ("bits", "quant_method"):
            out[key] = _value(m.group(2))
    return out, False


def _int(d: dict[str, Any], *keys: str) -> int | None:
    for k in keys:
        v = d.get(k)
        if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
            continue
        if 0 < v <= MAX_DIM and float(v).is_integer():
            return int(v)
    return None


def precision_of_config(d: dict[str, Any]) -> str | None:
    """The precision the checkpoint ships in: quantization_config first, then the dtype."""
    qc = d.get("quantization_config")
    qd: dict[str, Any] = qc if isinstance(qc, dict) else d
    method = str(qd.get("quant_method") or qd.get("quant_algo") or "").lower()
    bits = _int(qd, "bits", "num_bits", "w_bit")
    group = _int(qd, "group_size", "q_group_size")
    if method in ("awq", "gptq", "compressed-tensors", "autoround") and (bits or 4) == 4:
        return "int4-g32" if group == 32 else "int4-g128"
    if method in ("awq", "gptq") and bits == 8:
        return "int8"
    if method in ("mxfp4", "nvfp4"):
        return method
    if method in ("fp8", "fbgemm_fp8") or "fp8" in method:
        return "fp8"
    if method == "bitsandbytes":
        return "int4" if qd.get("load_in_4bit") else "int8"
    dtype = str(d.get("torch_dtype") or d.get("dtype") or "").lower()
    return _DTYPES.get(dtype)


def _sliding(d: dict[str, Any], layers: int) -> tuple[int | None, int]:
    window = _int(d, "sliding_window")
    if window is None or d.get("use_sliding_window") is False:
        return None, 0
    types = d.get("layer_types")
    if isinstance(types, list) and types:
        return window, sum(1 for t in types if "sliding" in str(t))
    pattern = _int(d, "sliding_window_pattern")  # Gemma 3: 5 of every 6 layers slide
    if pattern and pattern > 1:
        return window, layers - layers // pattern
    if str(d.get("model_type", "")).startswith("gemma2"):
        return window, layers // 2
    return window, layers


def _spec(d: dict[str, Any], name: str) -> ModelSpec:
    layers, hidden, heads = (_int(d, k) or 0 for k in _REQUIRED)
    kv = _int(d, "num_key_value_heads", "num_kv_heads") or heads
    head_dim = _int(d, "head_dim") or hidden // heads
    inter = _int(d, "intermediate_size", "ffn_dim") or 4 * hidden
    vocab = _int(d, "vocab_size") or 32000
    tied = d.get("tie_word_embeddings") is True
    kv_rank, rope = _int(d, "kv_lora_rank"), _int(d, "qk_rope_head_dim")
    mla = MLA(kv_lora_rank=kv_rank, qk_rope_head_dim=rope) if kv_rank and rope else None
    if kv_rank and rope:
        nope = _int(d, "qk_nope_head_dim") or head_dim
        v_dim = _int(d, "v_head_dim") or head_dim
        q_rank = _int(d, "q_lora_rank")
        qk = heads * (nope + rope)
        attn = (hidden * q_rank + q_rank * qk if q_rank else hidden * qk) + heads * v_dim * hidden
        attn += hidden * (kv_rank + rope) + kv_rank * heads * (nope + v_dim)
    else:
        attn = 2 * hidden * heads * head_dim + 2 * hidden * kv * head_dim
    experts = _int(d, "n_routed_experts", "num_local_experts", "num_experts")
    moe, active, mlp = None, 0, 0
    if experts and experts > 1:
        top = _int(d, "num_experts_per_tok", "moe_topk", "top_k") or 2
        expert_inter = _int(d, "moe_intermediate_size") or inter
        shared = _int(d, "n_shared_experts", "num_shared_experts") or 0
        shared_inter = (_int(d, "shared_expert_intermediate_size") or 0) + shared * expert_inter
        dense_layers = min(_int(d, "first_k_dense_replace") or 0, layers - 1)
        moe_layers = layers - dense_layers
        per_expert = 3 * hidden * expert_inter
        routed = moe_layers * (experts * per_expert + hidden * experts)
        rest = moe_layers * 3 * hidden * shared_inter + dense_layers * 3 * hidden * inter
        mlp = routed + rest
        active = moe_layers * top * per_expert + rest
        moe = MoE(
            experts=experts,
            experts_per_token=min(top, experts),
            shared_experts=shared,
            expert_intermediate_size=expert_inter,
            moe_layers=moe_layers,
        )
    else:
        ungated = str(d.get("model_type", "")).startswith(_UNGATED) and "phi3" not in str(
            d.get("model_type", "")
        )
        mlp = layers * (2 if ungated else 3) * hidden * inter
    emb = vocab * hidden * (1 if tied else 2)
    total = emb + layers * attn + mlp
    window, sliding_layers = _sliding(d, layers)
    lt = None
    if window and 0 < sliding_layers < layers:
        lt = LayerTypes(full=layers - sliding_layers, sliding=sliding_layers)
    params_b = total / 1e9
    return ModelSpec(
        id="pasted-config",
        name=name,
        family=name,
        nominal_b=params_b,
        released="",
        hf_repo="",
        aliases=[],
        params_b=params_b,
        active_params_b=(emb + layers * attn + active) / 1e9 if moe else None,
        layers=layers,
        hidden_size=hidden,
        attention_heads=heads,
        kv_heads=kv,
        head_dim=head_dim,
        vocab_size=vocab,
        max_context_tokens=_int(d, "max_position_embeddings", "seq_length") or 1 << 20,
        sliding_window=window,
        sliding_layers=sliding_layers,
        mla=mla,
        moe=moe,
        intermediate_size=inter,
        tie_word_embeddings=tied,
        native_precision=NativePrecision(dense="bf16", source=SOURCE),
        layer_types=lt,
        source=SOURCE,
    )


def _name(d: dict[str, Any]) -> str:
    for key in ("_name_or_path", "model_type"):
        v = d.get(key)
        if isinstance(v, str) and v.strip():
            return v.strip().rstrip("/").split("/")[-1][:60]
    archs = d.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0][:60]
    return "config.json"


def _label(d: dict[str, Any]) -> str:
    return f"{_name(d)} (config.json)" if _name(d) != "config.json" else "config.json"


def read_config(low: str) -> Pasted | None:
    """The pasted config in a (lowered) message, or None when there is none. A paste is there
    when at least two of the shape keys are."""
    keys = [k for k in (*_REQUIRED, "num_key_value_heads", "n_layer") if k in low]
    if len(keys) < 2:
        return None
    hits = [m.span() for m in _KEY_VALUE.finditer(low)]
    brace, close = low.find("{"), low.rfind("}")
    start = min(([brace] if brace >= 0 else []) + [a for a, _ in hits[:1]], default=0)
    if hits and brace > hits[0][0]:  # key lines first, a nested "{...}" later
        start = hits[0][0]
    end = max(([close + 1] if close > start else []) + [b for _, b in hits[-1:]], default=0)
    d, _ = _fields(low[start:end])
    missing = tuple(k for k in _REQUIRED if _int(d, k) is None)
    if missing:
        code = "config_malformed" if any(k in d for k in _REQUIRED) else "config_missing"
        return Pasted(None, None, code, missing, (start, end))
    from pydantic import ValidationError  # only when a config was pasted

    try:
        # Frozen types do not check bounds when built in code: validate like a data file.
        spec = ModelSpec.model_validate(_spec(d, _label(d)).model_dump())
    except (ValidationError, ZeroDivisionError, ValueError, OverflowError):
        return Pasted(None, None, "config_malformed", (), (start, end))
    if spec.kv_heads > spec.attention_heads or spec.attention_heads % spec.kv_heads:
        return Pasted(None, None, "config_malformed", ("num_key_value_heads",), (start, end))
    return Pasted(spec, precision_of_config(d), None, (), (start, end), guessed_keys(d))

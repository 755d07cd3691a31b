"""Start-up warming for processes that answer for hours (the bots, the staff desk).

The engine builds what it needs on first use, so ``vram ask`` (one question, then exit) pays
only for what that question reaches. A long-running process would otherwise pay those
first-use costs inside its first real questions: each pattern compiled on first use (1-2 ms),
the fuzzy matcher's import on the first typo (~10 ms), pydantic's validator on the first pasted
config (~12 ms), and the per-catalog tables of each answer kind. :func:`warm_up` pays them
once, before the process takes questions and again for each reloaded catalog.
"""

from __future__ import annotations

from typing import Final

from engine.answer import ask
from engine.catalog import Catalog
from engine.catalog_cache import build_indexes
from engine.lazyre import compile_all

__all__ = ["WARM_QUESTIONS", "warm_up"]

# One of each kind of answer, in each language, with the paths they take first (a typo, a
# pasted config, a comparison, a training method, an owned card, a budget, a limit).
WARM_QUESTIONS: Final[tuple[tuple[str, str | None], ...]] = (
    ("70b int4 128k", None),
    ("does qwen2.5 32b fit on my 4090?", None),
    ("gpt-oss-120b on h100 or mi300x?", None),
    ("how many h100 for deepseek v3", None),
    ("max context for 70b int4 on an a40", None),
    ("how many users for llama 3.1 8b on an l4 at 8k", None),
    ("best model i can serve for $300/month", None),
    ("what fits on a 4060 ti", None),
    ("what fits in 48gb", None),
    ("rx 7900 xtx specs", None),  # an owned card asked about itself
    ("what can i run on a mac studio 128gb", None),  # a Mac's own serving table
    ("gpus", None),
    ("card a40", None),
    ("h100 per hour?", None),
    ("how to compute kv cache", None),
    ("help", None),
    ("does claude fit on a 4090", None),
    ("which gpu should i buy for 70b at home", None),  # what to buy: every desktop card
    ("7b vs 13b", None),
    ("qlora 13b", None),
    ("full fine-tune 7b on 8x h100", None),
    ("lama 3.1 70b fp8", None),  # a typo: the fuzzy matcher
    ('{"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32}', None),
    ("ile vram dla 70b w int4?", "pl"),
    ("czy qwen3 32b zmieści się na dwóch 4090?", "pl"),
    ("ต้องใช้ VRAM เท่าไร llama 3.1 8b fp8 32k", "th"),
    ("h100 กับ a100", "th"),
)


def warm_up(catalog: Catalog) -> None:
    """Pay the first-use costs now: indexes, patterns, and one answer of each kind.

    Answers do not depend on it (every table it fills is a pure function's memo).
    """
    build_indexes(catalog)
    compile_all()
    for text, lang in WARM_QUESTIONS:
        ask(text, lang, catalog=catalog)

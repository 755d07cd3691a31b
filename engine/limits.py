"""A request's defaults and bounds, and the one reader of token counts ("128k", "1M").

Defaults are what a question that does not say gets (inference at 8,192 tokens, batch 1);
bounds keep numbers nobody means (a 300-digit context, a "0b" model) away from the
arithmetic. The parser, the typed request options and autocomplete all read counts here.
"""

from __future__ import annotations

from typing import Final

from engine.lazyre import lazy

MAX_QUERY_CHARS: Final = 4096  # counted after Unicode normalisation
DEFAULT_CONTEXT: Final = 8192
DEFAULT_BATCH: Final = 1
K_TOKENS: Final = 1024  # "8k" = 8192 tokens, "128k" = 131072
M_TOKENS: Final = 1024 * 1024
MAX_CONTEXT_TOKENS: Final = 10 * M_TOKENS  # the clamp of a request's context
MAX_BATCH: Final = 100_000
MAX_TOKENS: Final = 1 << 40  # what the parser keeps before the clamp: no overflow, no huge ints
MIN_SIZE_B: Final = 0.01  # 10 million parameters: below this a "model size" is a typo
MAX_SIZE_B: Final = 100_000.0  # numbers past these are typos or tests, not workloads
MAX_VRAM_GB: Final = 100_000.0
MAX_BUDGET_USD: Final = 100_000_000.0
MAX_CARDS: Final = 1024

# A unit's first letter: "k", "tys.", "thousand", "พัน" -> 1024; "m", "mln", "million" -> 1024^2.
_UNITS: Final = {"k": K_TOKENS, "t": K_TOKENS, "พ": K_TOKENS, "m": M_TOKENS}
_TOKEN_COUNT: Final = lazy(r"^\s*(\d+(?:[.,]\d+)?)\s*([kKmM])?\s*$")


def tokens(value: int | float, unit: str | None = None) -> int:
    """``value`` tokens in ``unit`` (none, "k", "m", "tys", ...), bounded before ``round``.

    ``int | float``, not ``float``: compiled, a ``float`` argument is made a C double at the
    call, and an int past a double's range ("9999...9m", hundreds of digits) would raise
    OverflowError there, where Python multiplies it and bounds it here."""
    n = value * _UNITS.get((unit or " ")[0].lower(), 1)
    if n != n:  # NaN
        return 0
    return MAX_TOKENS if n >= MAX_TOKENS else round(n)


def parse_token_count(text: str) -> int | None:
    """A token count as typed in a form: "8k", "128k", "1M", "1.5k" or "131072"; None when
    it is not one, or is not at least one token."""
    m = _TOKEN_COUNT.match(text or "")
    if m is None:
        return None
    n = tokens(float(m.group(1).replace(",", ".")), m.group(2))
    return n if n >= 1 else None


def clamp_context(n: int) -> int:
    return max(1, min(int(n), MAX_CONTEXT_TOKENS))


def clamp_batch(n: int) -> int:
    return max(1, min(int(n), MAX_BATCH))

"""Half-up rounding and number formatting for display only.

Python's ``round()`` rounds half to even on the binary value (21.125 -> 21.12); the sizing
guide rounds half up on the decimal value (21.125 -> 21.13), so we go through ``Decimal``.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import lru_cache

_SEP = {"en": (",", "."), "pl": ("\u00a0", ","), "th": (",", ".")}


_DIGITS = 400  # a float has at most 309 integer digits: quantize never runs out of precision


def round_half_up(value: float, decimals: int = 0) -> Decimal:
    """Half up on the decimal value; infinities and NaN come back as they are."""
    d = Decimal(repr(float(value)))
    if not d.is_finite():
        return d
    with localcontext(prec=_DIGITS):
        return d.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


@lru_cache(maxsize=8192)
def fmt_num(value: float, decimals: int = 0, lang: str = "en", trim: bool = False) -> str:
    """Group thousands and use the language's decimal mark; ``trim`` drops a zero fraction.

    Cached: prices, capacities and shapes repeat across answers.
    """
    d = round_half_up(value, decimals)
    if trim and d == d.to_integral_value():
        d = d.quantize(Decimal(1))
        decimals = 0
    text = f"{d:,.{decimals}f}"
    group, point = _SEP.get(lang, _SEP["en"])
    return text.replace(",", "\0").replace(".", point).replace("\0", group)


def fmt_gb(value: float, lang: str = "en") -> str:
    """GB with one decimal below 100 and none above: precise where it matters, calm elsewhere."""
    return fmt_num(value, 1 if abs(value) < 100 else 0, lang, trim=True)


def fmt_usd(value: float, lang: str = "en") -> str:
    if value < 100 and value != int(value):
        return "$" + fmt_num(value, 2, lang)
    return "$" + fmt_num(value, 0, lang)

"""Half-up rounding and number formatting for display only.

Python's ``round()`` rounds half to even on the binary value (21.125 -> 21.12); the sizing
guide rounds half up on the decimal value (21.125 -> 21.13). The decimal value is the float's
shortest ``repr``; ``round_half_up`` rounds it through ``Decimal``, and ``fmt_num`` rounds the
same digits as a string (no ``Decimal`` on the common path, identical text: property-tested).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import lru_cache

_SEP = {"en": (",", "."), "pl": ("\u00a0", ","), "th": (",", ".")}
_POW10 = tuple(10**i for i in range(20))


_DIGITS = 400  # a float has at most 309 integer digits: quantize never runs out of precision


def round_half_up(value: float, decimals: int = 0) -> Decimal:
    """Half up on the decimal value; infinities and NaN come back as they are."""
    d = Decimal(repr(float(value)))
    if not d.is_finite():
        return d
    with localcontext(prec=_DIGITS):
        return d.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def _decimal_text(value: float, decimals: int, trim: bool) -> str:
    """The reference path: round through ``Decimal`` and let it format (any value)."""
    d = round_half_up(value, decimals)
    if trim and d == d.to_integral_value():
        d = d.quantize(Decimal(1))
        decimals = 0
    return f"{d:,.{decimals}f}"


def _fast_text(value: float, decimals: int, trim: bool) -> str | None:
    """The same text from the ``repr`` digits, for non-negative values ``repr`` writes without
    an exponent (every size, price and count the engine shows); None for anything else."""
    s = repr(float(value))
    if s[0] == "-" or "e" in s or "n" in s or not 0 <= decimals < len(_POW10):
        return None  # negatives (-0.0), exponents, inf and nan: the Decimal path
    whole, _, frac = s.partition(".")
    if len(frac) > decimals:
        n = int(whole + frac[:decimals]) + (frac[decimals] >= "5")  # half up on the digits
    else:
        n = int(whole + frac.ljust(decimals, "0"))
    scale = _POW10[decimals]
    head, tail = divmod(n, scale)
    if decimals == 0 or (trim and tail == 0):
        return f"{head:,}"
    return f"{head:,}." + str(tail).zfill(decimals)


@lru_cache(maxsize=8192)
def fmt_num(value: float, decimals: int = 0, lang: str = "en", trim: bool = False) -> str:
    """Group thousands and use the language's decimal mark; ``trim`` drops a zero fraction.

    Cached: prices, capacities and shapes repeat across answers.
    """
    text = _fast_text(value, decimals, trim)
    if text is None:
        text = _decimal_text(value, decimals, trim)
    if lang == "en" or lang == "th":
        return text
    group, point = _SEP.get(lang, _SEP["en"])
    return text.replace(",", "\0").replace(".", point).replace("\0", group)


def fmt_gb(value: float, lang: str = "en") -> str:
    """GB with one decimal below 100 and none above: precise where it matters, calm elsewhere."""
    return fmt_num(value, 1 if abs(value) < 100 else 0, lang, True)


def fmt_usd(value: float, lang: str = "en") -> str:
    if value < 100 and value != int(value):
        return "$" + fmt_num(value, 2, lang)
    return "$" + fmt_num(value, 0, lang)

"""Half-up rounding and number formatting for display only.

Python's ``round()`` rounds half to even on the binary value (21.125 -> 21.12); the sizing
guide rounds half up on the decimal value (21.125 -> 21.13). The decimal value is the float's
shortest ``repr``; ``round_half_up`` rounds it through ``Decimal``. ``fmt_num`` gives the same
text cheaper (property-tested against ``Decimal``): away from a half-way point the float's own
correctly rounded ``format`` agrees with it, near one the ``repr`` digits are rounded as a string
(see ``format_number``).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from math import floor, inf, nextafter  # floor(t + 0.5): int(t + 0.5) for t >= 0, cheaper
from typing import Final

_SEP: Final = {"en": (",", "."), "pl": ("\u00a0", ","), "th": (",", ".")}
_POW10: Final = tuple(10**i for i in range(20))
_PLACES: Final = 7  # decimals the float fast path serves (the engine shows 0 to 4)
_SCALE: Final = tuple(10.0**i for i in range(_PLACES))
_SPEC: Final = tuple(f",.{i}f" for i in range(_PLACES))
_PLAIN: Final = tuple(f"%.{i}f" for i in range(_PLACES))  # below 999 there is nothing to group
_ZEROS: Final = tuple("." + "0" * i for i in range(_PLACES))
_ONE: Final = _PLAIN[1]  # fmt_gb's two specs below 999
_WHOLE: Final = _PLAIN[0]
_WHOLES: Final = tuple(str(k) for k in range(1000))  # every whole number below 1,000, as written
_TENTHS: Final[dict[str, tuple[str, ...]]] = {}  # by decimal mark: k / 10 trimmed, k = 0 to 1,000
_TABLED: Final = 2  # decimal counts up to this make a miss's text from its digits (NumberMemo)
_MEMO_SIZE: Final = (
    4096  # per (language, decimals, trim): emptied when full, so memory stays bounded
)
_MEMO_KEYS: Final = 64  # memos kept at once (the engine uses about 20)


def _near_half() -> tuple[float, float]:
    """(lo, hi): for f = t % 1.0 (t finite and positive, so 0 <= f < 1), ``lo < f < hi``
    exactly when ``abs(f - 0.5) <= 1e-6``, the fast paths' "near a half-way point" test, as
    one chained comparison (no subtraction, no abs call). Below 0.25 both say far; from 0.25
    on f - 0.5 is exact, so the test is |f - 0.5| <= d (d the float 1e-6): lo is the largest
    float below 0.5 - d, hi the smallest above 0.5 + d (a float's Decimal is exact)."""
    with localcontext(prec=100):  # 0.5 +- d exactly: d ends 78 places after the point
        d = Decimal.from_float(1e-6)
        below, above = Decimal("0.5") - d, Decimal("0.5") + d
        lo, hi = float(below), float(above)
        if Decimal(lo) >= below:
            lo = nextafter(lo, -inf)
        if Decimal(hi) <= above:
            hi = nextafter(hi, inf)
    return lo, hi


# t % 1.0 strictly between these: t is near a half-way point (two plain float constants:
# compiled, a Final tuple read at import was never set)
NEAR_LO: Final = _near_half()[0]
NEAR_HI: Final = _near_half()[1]


_DIGITS: Final = 400  # a float has at most 309 integer digits: quantize never runs out of precision
_UNIT: Final = Decimal(1)


def round_half_up(value: float, decimals: int = 0) -> Decimal:
    """Half up on the decimal value; infinities and NaN come back as they are."""
    d = Decimal(repr(float(value)))
    if not d.is_finite():
        return d
    with localcontext(prec=_DIGITS):
        return d.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def half_up_float(value: float, decimals: int = 0) -> float:
    """``float(round_half_up(value, decimals))`` without ``Decimal`` where that is proven equal:
    for 0 <= t < 1e9 (t = value * 10**decimals, decimals 0 to 6) more than 1e-6 from a half-way
    point the half-up digits are k = int(t + 0.5) (``NumberMemo``'s proof), and k / 10**decimals
    (two exact floats) is the correctly rounded quotient, as ``float`` of the ``Decimal`` is."""
    if 0 <= decimals < _PLACES:
        scale = _SCALE[decimals]
        t = value * scale
        if 0.0 <= t < 1e9 and not NEAR_LO < t % 1.0 < NEAR_HI:
            return floor(t + 0.5) / scale
    return float(round_half_up(value, decimals))


def half_up_units(value: float, decimals: int) -> int | None:
    """``round_half_up(value, decimals)`` in units of 10**-decimals (k with the Decimal equal
    to k * 10**-decimals, so ``k / 10**decimals`` is its ``float``: int division is correctly
    rounded); None for infinities and NaN. Exact at every value: the scaled ``repr`` digits
    (``scaleb`` only moves the exponent) rounded half up to a whole."""
    d = Decimal(repr(float(value)))
    if not d.is_finite():
        return None
    with localcontext(prec=_DIGITS):
        return int(d.scaleb(decimals).quantize(_UNIT, rounding=ROUND_HALF_UP))


def _decimal_text(value: float, decimals: int, trim: bool) -> str:
    """The reference path: round through ``Decimal`` and let it format (any value)."""
    d = round_half_up(value, decimals)
    if trim and d == d.to_integral_value():
        with localcontext(prec=_DIGITS):  # a float's 309 digits (1e300 GB): the default 28 raise
            d = d.quantize(_UNIT)
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


def format_number(value: float, decimals: int = 0, lang: str = "en", trim: bool = False) -> str:
    """``fmt_num`` without its memo: group thousands, the language's decimal mark.

    A positive value that, scaled (t = value * 10**decimals), is below 1e9 and more than 1e-6
    away from a half-way point takes the float's own ``format``. Why that is half up on the
    ``repr`` digits r: the product's rounding error and |r - value| (half an ulp) are each
    below 1.2e-7 scaled, so r, the float and t lie on the same side of every half-way point
    k + 0.5, none on one; the correctly rounded ``format`` and half up on r pick the same k.
    Any other value rounds its ``repr`` digits as a string, or goes through ``Decimal``.
    """
    text = None
    if 0 <= decimals < _PLACES:
        t = value * _SCALE[decimals]
        if 0.0 < t < 1e9 and not NEAR_LO < t % 1.0 < NEAR_HI:  # t % 1.0: t's fraction, exactly
            # "%.Nf" is format's ".Nf" (the same correctly rounded digits) without the
            # grouping pass, which a value below 999 (999.0 rounded to 0 decimals) never needs
            text = _PLAIN[decimals] % value if value < 999.0 else format(value, _SPEC[decimals])
            if trim and decimals and text.endswith(_ZEROS[decimals]):
                text = text[: -decimals - 1]
    if text is None:
        text = _fast_text(value, decimals, trim) or _decimal_text(value, decimals, trim)
    if lang == "en" or lang == "th":
        return text
    group, point = _SEP.get(lang, _SEP["en"])
    return text.replace(",", "\0").replace(".", point).replace("\0", group)


class NumberMemo(dict[float, str]):
    """``format_number``'s texts for one language, decimal count and ``trim``, by value: a
    subscript is one C-level dict read on a repeat; a miss makes the text and keeps it.

    A miss on a value ``format_number``'s float path serves (0 < t < 1e9 and t, the value
    scaled, more than 1e-6 from a half-way point) writes the digits of k = int(t + 0.5): the
    exact scaled value lies within 6e-8 of t, so on t's side of every half-way point, and its
    correctly rounded digits (what ``format`` writes) are the integer nearest t; t + 0.5 is
    then more than 1e-6 from an integer and its float sum (error below 6e-8) has the same
    floor. The whole part is grouped as ``format`` groups it, the fraction's text (zero
    padded, or trimmed) comes from a table.
    """

    __slots__ = (
        "decimals",
        "digits",
        "fracs",
        "group",
        "grouped",
        "lang",
        "marks",
        "plain",
        "point",
        "scale",
        "trim",
        "unit",
        "zeros",
    )

    def __init__(self, lang: str, decimals: int, trim: bool) -> None:
        super().__init__()
        self.lang, self.decimals, self.trim = lang, decimals, trim
        inline = 0 <= decimals < _PLACES
        self.plain = _PLAIN[decimals] if inline else ""
        self.grouped = _SPEC[decimals] if inline else ""
        self.scale = _SCALE[decimals] if inline else 0.0  # 0.0: t is never positive
        self.zeros = _ZEROS[decimals] if inline and trim and decimals else ""
        # format_number's localisation; a language it does not know keeps the English marks
        self.marks = _SEP[lang] if lang in _SEP and lang not in ("en", "th") else None
        # the decimal mark alone: all a text below 999 (nothing grouped) needs swapped
        self.point = self.marks[1] if self.marks is not None and decimals else None
        # A miss's digits (__missing__): 10**decimals units a whole, each fraction's text by
        # its units (none when trimmed away); unit 0: no table, the float path (``text``).
        self.group = self.marks[0] if self.marks is not None else None
        self.unit = _POW10[decimals] if 0 <= decimals <= _TABLED else 0
        mark = self.point or "."
        self.fracs = tuple(
            mark + str(u).zfill(decimals) if decimals and (u or not trim) else ""
            for u in range(self.unit)
        )
        # what a miss reads, as one attribute (compiled, each attribute read is a lookup)
        self.digits: tuple[float, int, tuple[str, ...], str | None] = (
            self.scale,
            self.unit,
            self.fracs,
            self.group,
        )

    def text(self, value: float) -> str:
        """``format_number(value + 0.0, decimals, lang, trim)``, not kept."""
        t = value * self.scale
        if 0.0 < t < 1e9 and not NEAR_LO < t % 1.0 < NEAR_HI:  # format_number's float path
            if value < 999.0:  # nothing to group: "%.Nf" is format's ".Nf"
                text = self.plain % value
                if self.zeros and text.endswith(self.zeros):
                    text = text[: -self.decimals - 1]
                if self.point is not None:
                    text = text.replace(".", self.point)
                return text
            text = format(value, self.grouped)
            if self.zeros and text.endswith(self.zeros):
                text = text[: -self.decimals - 1]
            if self.marks is not None:
                group, point = self.marks
                text = text.replace(",", "\0").replace(".", point).replace("\0", group)
            return text
        return format_number(value + 0.0, self.decimals, self.lang, self.trim)

    def __missing__(self, value: float) -> str:
        """The text from the rounded digits (the same as ``text``), kept."""
        if len(self) >= _MEMO_SIZE:  # remember(), inline
            self.clear()
        scale, unit, fracs, group = self.digits
        t = value * scale
        if unit and 0.0 < t < 1e9 and not NEAR_LO < t % 1.0 < NEAR_HI:
            k = floor(t + 0.5)
            whole, part = k // unit, k % unit  # k > 0: divmod's pair, in native ints
            if whole < 1000:
                text = _WHOLES[whole] + fracs[part]
            else:
                text = format(whole, ",")
                if group is not None:
                    text = text.replace(",", group)
                text += fracs[part]
        else:
            text = self.text(value)
        self[value] = text
        return text


class GbMemo(dict[float, str]):
    """``fmt_gb``'s texts (trimmed) for one language, by value, made on a miss: below 100
    the one-decimal text, else the whole one (written from the rounded digits, as
    ``NumberMemo`` writes them: the same texts)."""

    __slots__ = ("group", "lang", "ones", "point", "tenths", "tiny", "wholes")

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang
        # fmt_gb's texts are fmt_num's (trimmed, one decimal or none): the same memos
        self.ones, self.wholes = number_memo(lang, 1, True), number_memo(lang, 0, True)
        marks = self.ones.marks
        self.point: str | None = marks[1] if marks is not None else None
        self.group = self.wholes.group
        self.tenths = _tenths(self.point or ".")
        self.tiny: str | None = None  # RoomMemo's text for a margin under 0.05

    def __missing__(self, value: float) -> str:
        if len(self) >= _MEMO_SIZE:
            self.clear()
        if 0.0 < value < 100.0:  # NumberMemo's digits: one decimal below 100, none above
            if value < 0.05 and self.tiny is not None:  # RoomMemo's tiny margin, inline
                text = self[value] = self.tiny
                return text
            t = value * 10.0
            if not NEAR_LO < t % 1.0 < NEAR_HI:
                text = self[value] = self.tenths[floor(t + 0.5)]
                return text
        elif 100.0 <= value < 1e9 and not NEAR_LO < value % 1.0 < NEAR_HI:
            whole = floor(value + 0.5)
            if whole < 1000:
                text = _WHOLES[whole]
            else:
                text = format(whole, ",")
                if self.group is not None:
                    text = text.replace(",", self.group)
            self[value] = text
            return text
        text = self[value] = self.make(value)
        return text

    def make(self, value: float) -> str:
        """``fmt_gb(value, lang)``: what the one-decimal or the whole memo would make."""
        if -100 < value < 100:
            t = value * 10.0
            if 0.0 < t < 1e9 and not NEAR_LO < t % 1.0 < NEAR_HI:
                text = _ONE % value
                if text.endswith(".0"):
                    text = text[:-2]
                elif self.point is not None:
                    text = text.replace(".", self.point)
                return text
            return self.ones[value]
        if 0.0 < value < 999.0 and not NEAR_LO < value % 1.0 < NEAR_HI:
            return _WHOLE % value  # no decimals, nothing to group: no mark to swap
        return self.wholes[value]


class RoomMemo(GbMemo):
    """GB to spare: as ``GbMemo``, but a real, tiny margin (below 0.05) reads "<0.1", never
    "0" (``GbMemo.__missing__`` writes it: one call a miss, not two)."""

    __slots__ = ()

    def __init__(self, lang: str) -> None:
        super().__init__(lang)
        self.tiny = "<" + fmt_num(0.1, 1, lang)


def _tenths(point: str) -> tuple[str, ...]:
    """k / 10 with this decimal mark, a zero tenth trimmed ("12", "12.5"), for k to 1,000."""
    table = _TENTHS.get(point)
    if table is None:
        table = _TENTHS[point] = tuple(
            f"{k // 10}{point}{k % 10}" if k % 10 else str(k // 10) for k in range(1001)
        )
    return table


_MEMOS: Final[dict[tuple[str, int, bool], NumberMemo]] = {}


def number_memo(lang: str, decimals: int, trim: bool) -> NumberMemo:
    """The texts already made for this language, decimal count and ``trim``, by value.

    A pure function's results (the key holds every input but the value): sizes, prices and
    shapes repeat within and across answers. A dict keys 0.0 and -0.0 alike, so both are
    written as "0" (:func:`remember`): the text never depends on which came first.
    """
    key = ("en" if lang == "th" else lang, decimals, trim)  # Thai writes numbers as English
    memo = _MEMOS.get(key)
    if memo is None:
        if len(_MEMOS) >= _MEMO_KEYS:  # odd languages or decimal counts: start over
            _MEMOS.clear()
        memo = _MEMOS[key] = NumberMemo(key[0], decimals, trim)
    return memo


def remember(memo: dict[float, str], value: float, decimals: int, lang: str, trim: bool) -> str:
    """Make the text ``memo`` (``number_memo(lang, decimals, trim)``) lacks, and keep it."""
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    text = memo[value] = format_number(value + 0.0, decimals, lang, trim)  # -0.0 reads 0
    return text


def fmt_num(value: float, decimals: int = 0, lang: str = "en", trim: bool = False) -> str:
    """Group thousands and use the language's decimal mark; ``trim`` drops a zero fraction.

    Memoised: prices, capacities and shapes repeat across answers.
    """
    return number_memo(lang, decimals, trim)[value]


def fmt_gb(value: float, lang: str = "en") -> str:
    """GB with one decimal below 100 and none above: precise where it matters, calm elsewhere."""
    return fmt_num(value, 1 if abs(value) < 100 else 0, lang, True)


def fmt_usd(value: float, lang: str = "en") -> str:
    """Dollars: cents below $100 when there are any, whole dollars otherwise."""
    if value < 100 and value != int(value):
        return "$" + fmt_num(value, 2, lang)
    return "$" + fmt_num(value, 0, lang)


class UsdMemo(dict[float, str]):
    """``fmt_usd``'s texts for one language, by value, made on a miss."""

    __slots__ = ("lang",)

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def __missing__(self, value: float) -> str:
        return remember_usd(self, value, self.lang)


_USD_MEMOS: Final[dict[str, UsdMemo]] = {}


def usd_memo(lang: str) -> UsdMemo:
    """``fmt_usd``'s texts already made in this language, by value (as ``number_memo``)."""
    lang = "en" if lang == "th" else lang  # the same texts (``number_memo``)
    memo = _USD_MEMOS.get(lang)
    if memo is None:
        if len(_USD_MEMOS) >= _MEMO_KEYS:
            _USD_MEMOS.clear()
        memo = _USD_MEMOS[lang] = UsdMemo(lang)
    return memo


def remember_usd(memo: dict[float, str], value: float, lang: str) -> str:
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    text = memo[value] = fmt_usd(value, lang)
    return text

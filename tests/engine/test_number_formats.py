"""The string fast path of ``fmt_num`` must give the very text the ``Decimal`` path gives.

Every number an answer shows goes through ``fmt_num``; the fast path rounds the float's repr
digits half up as a string, so it is checked against ``Decimal`` over a wide range of values,
every decimal count the engine uses, both ``trim`` settings and every language.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import load_catalog
from engine.rounding import (
    _decimal_text,
    _fast_text,
    fmt_gb,
    fmt_num,
    fmt_usd,
    format_number,
)
from engine.text.voice import Voice

CAT = load_catalog()
LANGS = ["en", "pl", "th", "xx"]

FINITE = st.floats(allow_nan=False, allow_infinity=False)
DISPLAYED = st.one_of(
    st.floats(min_value=1e-4, max_value=1e6),
    st.floats(min_value=1e-4, max_value=9e15),
    st.just(0.0),
    st.integers(min_value=0, max_value=10**15).map(lambda n: n / 1000),  # exact ties: x.xx5
    st.integers(min_value=0, max_value=10**9).map(lambda n: n / 8),  # binary ties: .125, .5
)


uncached = format_number  # the memo keys 0.0 and -0.0 alike: compare the function itself


def reference(value: float, decimals: int, lang: str, trim: bool) -> str:
    text = _decimal_text(value, decimals, trim)
    group, point = {"pl": ("\u00a0", ",")}.get(lang, (",", "."))
    return text.replace(",", "\0").replace(".", point).replace("\0", group)


@settings(max_examples=2000, deadline=None)
@given(DISPLAYED, st.integers(min_value=0, max_value=4), st.booleans())
def test_fast_path_equals_decimal_on_displayed_values(
    value: float, decimals: int, trim: bool
) -> None:
    fast = _fast_text(value, decimals, trim)
    assert fast is not None  # these are the values the fast path exists for
    assert fast == _decimal_text(value, decimals, trim)


@settings(max_examples=2000, deadline=None)
@given(FINITE, st.integers(min_value=0, max_value=6), st.booleans())
def test_fast_path_equals_decimal_or_declines(value: float, decimals: int, trim: bool) -> None:
    fast = _fast_text(value, decimals, trim)
    if fast is None:
        assert value < 0 or math.copysign(1, value) < 0 or "e" in repr(value)
    else:
        assert fast == _decimal_text(value, decimals, trim)


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(FINITE, DISPLAYED, st.integers(min_value=0, max_value=10**12)),
    st.integers(min_value=-1, max_value=8),
    st.booleans(),
)
def test_format_number_equals_decimal(value: float, decimals: int, trim: bool) -> None:
    """Every path (the float's format, the repr digits, Decimal) gives the Decimal text."""
    try:
        expected = _decimal_text(value, decimals, trim)
    except (InvalidOperation, ValueError) as e:  # beyond 28 digits, or no such decimal count
        with pytest.raises(type(e)):
            format_number(value, decimals, "en", trim)
        return
    assert format_number(value, decimals, "en", trim) == expected


@settings(max_examples=3000, deadline=None)
@given(
    st.integers(min_value=0, max_value=10**8),
    st.integers(min_value=0, max_value=4),
    st.integers(min_value=-3, max_value=3),
    st.booleans(),
)
def test_float_format_path_next_to_half_way_points(
    k: int, decimals: int, ulps: int, trim: bool
) -> None:
    """Floats a few ulps either side of a half-way point (k + 0.5) / 10**decimals."""
    value = (k + 0.5) / 10**decimals
    for _ in range(abs(ulps)):
        value = math.nextafter(value, math.inf if ulps > 0 else -math.inf)
    assert format_number(value, decimals, "en", trim) == _decimal_text(value, decimals, trim)


def test_format_number_on_common_values_and_ties() -> None:
    assert format_number(21.3456789, 1, "en", True) == "21.3"
    assert format_number(1234.5678, 2, "pl") == "1\u00a0234,57"
    assert format_number(40.0, 1, "en", True) == "40"
    assert format_number(21.125, 2) == "21.13"  # a half-way point: the repr digits decide
    assert format_number(2.675, 2) == "2.68"  # binary 2.67499...: the decimal value rules
    assert format_number(0.0, 1) == "0.0"
    assert format_number(-0.0, 1, "en", True) == "-0"  # the Decimal path keeps the sign


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(FINITE, DISPLAYED, st.sampled_from([math.inf, -math.inf, math.nan])),
    st.integers(min_value=0, max_value=3),
    st.sampled_from(["en", "pl", "th", "xx"]),
    st.booleans(),
)
def test_fmt_num_equals_the_decimal_formatting(
    value: float, decimals: int, lang: str, trim: bool
) -> None:
    try:
        expected = reference(value, decimals, lang, trim)
    except InvalidOperation:  # trimming a float beyond 28 digits: the Decimal path's own limit
        with pytest.raises(InvalidOperation):
            uncached(value, decimals, lang, trim)
        return
    assert uncached(value, decimals, lang, trim) == expected


@pytest.mark.parametrize(
    ("value", "decimals", "trim", "text"),
    [
        (21.125, 2, False, "21.13"),  # half up on the decimal value, not half to even
        (0.05, 1, False, "0.1"),
        (2.675, 2, False, "2.68"),  # repr 2.675 (binary 2.67499...): the decimal value rules
        (999.95, 1, False, "1,000.0"),
        (1234567.0, 0, False, "1,234,567"),
        (40.0, 1, True, "40"),
        (39.96, 1, True, "40"),
        (0.0, 2, False, "0.00"),
        (-0.04, 1, False, "-0.0"),  # negatives keep Decimal's sign (the Decimal path)
        (1e16, 0, False, "10,000,000,000,000,000"),
        (1e-7, 2, False, "0.00"),
    ],
)
def test_known_values(value: float, decimals: int, trim: bool, text: str) -> None:
    assert fmt_num(value, decimals, "en", trim) == text
    assert _decimal_text(value, decimals, trim) == text


def test_languages_and_wrappers() -> None:
    assert fmt_num(1234.5, 1, "pl") == "1\u00a0234,5"
    assert fmt_num(1234.5, 1, "th") == "1,234.5"
    assert fmt_gb(140.04, "en") == "140"
    assert fmt_gb(15.0, "pl") == "15"
    assert fmt_gb(15.05, "pl") == "15,1"
    assert fmt_usd(12.5) == "$12.50"
    assert fmt_usd(1999.5) == "$2,000"


VOICE_VALUES = st.one_of(
    st.floats(min_value=-1e15, max_value=1e15), DISPLAYED, st.integers(-(10**6), 10**9)
)


@settings(max_examples=1500, deadline=None)
@given(VOICE_VALUES, st.integers(min_value=0, max_value=6), st.sampled_from(LANGS))
def test_the_voice_formats_as_the_functions(value: float, decimals: int, lang: str) -> None:
    """The voice reads the memos directly: the same text as fmt_gb, fmt_num and fmt_usd."""
    v = Voice(CAT, lang)
    for _ in range(2):  # made, then read back from the memo
        assert v.gb(value) == fmt_gb(value, lang)
        room = "<" + fmt_num(0.1, 1, lang) if 0 < value < 0.05 else fmt_gb(value, lang)
        assert v.room(value) == room
        assert v.num(value, decimals) == fmt_num(value, decimals, lang, True)
        assert v.usd(value) == fmt_usd(value, lang)


def test_minus_zero_reads_as_zero_whichever_comes_first() -> None:
    """A dict keys 0.0 and -0.0 alike: the text must not depend on which was written first."""
    from engine.rounding import fmt_gb, fmt_num

    for first, second in ((-0.0, 0.0), (0.0, -0.0)):
        for lang in ("en", "pl", "th", "zz-first-" + str(first)):
            assert (
                fmt_num(first, 1, lang)
                == fmt_num(second, 1, lang)
                == "0.0".replace(".", "," if lang == "pl" else ".")
            )
            assert fmt_gb(first, lang) == fmt_gb(second, lang) == "0"


@pytest.mark.parametrize("value", [1e28, 1e300, 1.7976931348623157e308])
@pytest.mark.parametrize("decimals", [1, 2])
def test_whole_numbers_past_28_digits_trim_without_raising(value: float, decimals: int) -> None:
    """A 300-digit amount said in a question ("t4 999...9gb") reaches the trimmed text: the
    Decimal path keeps every digit of the float instead of raising at the default precision."""
    text = format_number(value, decimals, "en", trim=True)
    assert "." not in text and int(text.replace(",", "")) == int(Decimal(repr(value)))
    assert format_number(value, decimals, "pl", trim=True).replace("\u00a0", ",") == text

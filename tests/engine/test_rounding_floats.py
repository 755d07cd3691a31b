"""The float short cuts of the math view agree with the Decimal reference they replace."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from engine.rounding import half_up_float, half_up_units, round_half_up
from engine.text.formulas import _digits, _digits_decimal

_VALUES = st.one_of(
    st.floats(min_value=0, max_value=1e9, allow_nan=False),
    st.integers(min_value=0, max_value=10**8).map(lambda n: n / 1000 + 0.0005),  # halves
    st.integers(min_value=0, max_value=10**6).map(lambda n: n / 8),
)


@given(_VALUES, st.integers(min_value=0, max_value=6))
def test_half_up_float_is_the_decimal_half_up(value: float, places: int) -> None:
    assert half_up_float(value, places) == float(round_half_up(value, places))


@given(
    st.one_of(_VALUES, st.floats(min_value=-1e12, max_value=1e25, allow_nan=False)),
    st.integers(min_value=0, max_value=6),
)
def test_half_up_units_is_exact(value: float, places: int) -> None:
    units = half_up_units(value, places)
    assert units is not None
    assert Decimal(units).scaleb(-places) == round_half_up(value, places)


@given(_VALUES, st.integers(min_value=0, max_value=4), st.floats(min_value=0.01, max_value=1e4))
def test_the_digits_a_figure_needs_match_the_decimal_path(
    value: float, places: int, k: float
) -> None:
    def times(x: float) -> float:
        return x * k

    target = value * k
    assert _digits(value, 0, times, target, places) == _digits_decimal(
        value, 0, times, target, places
    )

"""The fast text paths give exactly the slow ones' text: positional fills against the
message rules of ``Voice.t``, the number memos against ``format_number``."""

from __future__ import annotations

from string import Formatter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import load_catalog
from engine.i18n import _Params
from engine.rounding import GbMemo, NumberMemo, RoomMemo, fmt_gb, format_number
from engine.text.fills import Fills, OneFills, partial, percent_template
from engine.text.voice import Voice

CAT = load_catalog()
VALUES = st.one_of(st.text(alphabet="a%{}s1 ", max_size=4), st.integers(-5, 5000), st.floats(0, 99))


def _fields(text: str) -> list[str]:
    try:
        return list(dict.fromkeys(n for _, n, _, _ in Formatter().parse(text) if n))
    except ValueError:
        return []


def _t_rules(text: str, params: dict[str, Any]) -> str:
    """What ``Voice.t`` gives for a message ``text`` (its %-template, else format_map)."""
    pct = percent_template(text)
    if pct is not None:
        try:
            return pct % params
        except KeyError:
            pass
    if "{" not in text:
        return text
    return text.format_map(_Params(params))


@pytest.mark.parametrize("lang", ["en", "pl", "th", "xx"])
def test_every_message_fills_as_voice_t_does(lang: str) -> None:
    """Each shipped message, with its fields in order, reversed, one short, one extra after
    them and one before them (every field then leaves a value out before it)."""
    v = Voice(CAT, lang)
    for key, text in CAT.messages["en"].items():
        names = _fields(text)
        for ns in (names, names[::-1], names[:-1], [*names, "zz"], ["zz", *names]):
            values = tuple(f"<{i}%>" if i % 2 else i * 1000 for i in range(len(ns)))
            spec = f"{key}:{','.join(ns)}" if ns else key
            assert v.fill[spec](values) == v.t(key, **dict(zip(ns, values, strict=True)))
            if not ns:
                assert v.const[key] == v.t(key)


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="ab{}%()sx_ 0!:", max_size=16),
    st.lists(st.sampled_from(["a", "b", "x", "x_"]), unique=True, max_size=4),
    st.data(),
)
def test_any_text_fills_as_voice_t_does(text: str, names: list[str], data: Any) -> None:
    values = tuple(data.draw(VALUES) for _ in names)
    pct = {"k": p} if (p := percent_template(text)) is not None else {}
    spec = f"k:{','.join(names)}" if names else "k"
    params = dict(zip(names, values, strict=True))
    for join in (False, True):  # the template's own %, and its pieces joined (compiled)
        fills = Fills({"k": text}, pct, join)
        try:
            want = _t_rules(text or "k", params)  # an empty text reads as its key
        except (ValueError, IndexError) as e:  # a broken template fails the same way
            with pytest.raises(type(e)):
                fills[spec](values)
            continue
        assert fills[spec](values) == want


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_joined_fills_write_what_the_templates_write(lang: str) -> None:
    """Each shipped message's fill joined from its pieces (the compiled path) against the
    template's ``%`` (the Python path), fields in order, reversed and with one left out."""
    v = Voice(CAT, lang)
    by_pct, joined = Fills(v._table, v.pct, False), Fills(v._table, v.pct, True)
    for key, text in CAT.messages["en"].items():
        names = _fields(text)
        for ns in (names, names[::-1], names[1:]):
            values = tuple((i * 7, f"<{i}%%>", i * 1000 + 0.5, True)[i % 4] for i in range(len(ns)))
            spec = f"{key}:{','.join(ns)}" if ns else key
            assert joined[spec](values) == by_pct[spec](values)


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_a_one_value_fill_is_the_fill(lang: str) -> None:
    """``ones[spec][x]`` gives ``fill[spec]((x,))`` for every one-field message, first time
    and repeated (a str and an int value each), and a full memo starts over."""
    v = Voice(CAT, lang)
    for key, text in CAT.messages["en"].items():
        names = _fields(text)
        if len(names) != 1:
            continue
        spec = f"{key}:{names[0]}"
        for value in ("<1%>", 4096, "<1%>", 4096):
            assert v.ones[spec][value] == v.fill[spec]((value,))
    ones = OneFills(Fills({"k": "a {x} b"}, {}))
    for i in range(5000):
        assert ones["k:x"][i] == f"a {i} b"
    assert 0 < len(ones["k:x"]) <= 4096


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="ab{}%()sx_ 0!:", max_size=16),
    st.lists(st.sampled_from(["a", "b", "x", "x_"]), unique=True, max_size=4),
    st.integers(0, 4),
    st.data(),
)
def test_a_partial_fill_is_the_whole_fill(
    text: str, names: list[str], given_count: int, data: Any
) -> None:
    """Values written in ahead (a model's shape in its formula) give the text the whole fill
    gives, whatever order or repeats the message takes its fields in."""
    values = tuple(data.draw(VALUES) for _ in names)
    pct = {"k": p} if (p := percent_template(text)) is not None else {}
    spec = f"k:{','.join(names)}" if names else "k"
    ahead = min(given_count, len(names))
    for join in (False, True):
        fills = Fills({"k": text}, pct, join)
        try:
            want = fills[spec](values)
        except (ValueError, IndexError, TypeError) as e:
            with pytest.raises(type(e)):
                partial(fills, spec, values[:ahead])(values[ahead:])
            continue
        assert partial(fills, spec, values[:ahead])(values[ahead:]) == want


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12),
        st.integers(0, 10**9).map(lambda n: n / 1000),
        st.integers(0, 10**6).map(lambda n: n / 8),
    ),
    st.integers(0, 6),
    st.sampled_from(["en", "pl", "th", "xx"]),
    st.booleans(),
)
def test_number_memo_texts_are_format_number(
    value: float, decimals: int, lang: str, trim: bool
) -> None:
    assert NumberMemo(lang, decimals, trim)[value] == format_number(
        value + 0.0, decimals, lang, trim
    )


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-500, max_value=5000), st.sampled_from(["en", "pl", "th"]))
def test_gb_and_room_memos_read_as_fmt_gb(value: float, lang: str) -> None:
    gb = fmt_gb(value + 0.0, lang)
    assert GbMemo(lang)[value] == gb
    room = "<" + format_number(0.1, 1, lang) if 0 < value < 0.05 else gb
    assert RoomMemo(lang)[value] == room


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_number_memo_around_grouping_and_half_way(lang: str) -> None:
    """Where the plain and the grouped spec part (999 rounding up to 1,000) and half-way
    points (the Decimal path), for every decimal count the engine shows."""
    values = [998.95, 998.9951, 999.0, 999.4, 999.49999, 999.5, 999.95, 999.96, 999.99999]
    values += [1000.0, 1000.05, 0.05, 0.25, 2.675, 12.345, 99.95, 100.0, 1e-7, 0.0, -0.0]
    for decimals in range(5):
        for trim in (False, True):
            memo = NumberMemo(lang, decimals, trim)
            for value in values:
                assert memo[value] == format_number(value + 0.0, decimals, lang, trim)

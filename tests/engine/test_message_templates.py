"""The voice fills messages from ``%``-templates made once per catalog; every message, in
every language, must read exactly as ``engine.i18n.t`` (``str.format_map``) writes it, with
all its placeholders given, some missing, or none, and for texts no message has yet.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Catalog, load_catalog, t
from engine.i18n import _Params
from engine.text.fills import percent_template
from engine.text.labels import memory_fills, memory_line, memory_rows
from engine.text.voice import Voice

CAT = load_catalog()
VALUES = st.one_of(
    st.text(max_size=8),  # may hold %, {, } and the like: written as they are
    st.integers(min_value=-(10**6), max_value=10**9),
    st.floats(allow_nan=False),
    st.booleans(),
)


def fields(text: str) -> list[str]:
    try:
        return sorted({n for _, n, _, _ in string.Formatter().parse(text) if n})
    except ValueError:
        return []


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return CAT


@pytest.mark.parametrize("lang", ["en", "pl", "th", "xx"])
def test_every_message_reads_as_format_map_writes_it(cat: Catalog, lang: str) -> None:
    v = Voice(cat, lang)
    for key in cat.messages["en"]:
        names = fields(cat.messages["en"][key])
        full = {n: f"<{n}%>" for n in names}
        assert v.t(key, **full) == t(cat, lang, key, **full), key
        assert v.t(key) == t(cat, lang, key), key  # nothing given: placeholders stay
        if names:
            some = dict(list(full.items())[1:])
            assert v.t(key, **some) == t(cat, lang, key, **some), key


def test_unknown_keys_read_as_themselves(cat: Catalog) -> None:
    v = Voice(cat, "pl")
    assert v.t("no.such.key", x=1) == t(cat, "pl", "no.such.key", x=1) == "no.such.key"


@settings(max_examples=1500, deadline=None)
@given(
    st.text(alphabet="ab{}%()sx_ 0!:", max_size=14),
    st.dictionaries(st.sampled_from(["a", "b", "x", "x_"]), VALUES, max_size=4),
)
def test_percent_template_equals_format_map(text: str, params: dict[str, object]) -> None:
    """Any text: the template gives format_map's result, raises KeyError where a value is
    missing (the voice then takes format_map's path), or is None (format_map's path)."""
    pct = percent_template(text)
    if pct is None:
        return
    if "{" not in text:
        assert pct % params == text  # engine.i18n.t never formats such a text
        return
    try:
        got = pct % params
    except KeyError:
        with pytest.raises(KeyError):
            text.format_map(params)
        return
    assert got == text.format_map(_Params(params))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["en", "pl", "th"]), st.floats(min_value=0, max_value=5000))
def test_memory_rows_read_as_the_full_message(lang: str, gb: float) -> None:
    v = Voice(CAT, lang)
    rows = memory_rows(CAT)[lang]
    assert rows  # the shipped tables take the part names in advance
    for part in rows:
        full = t(CAT, lang, "mem.line", part=t(CAT, lang, f"mem.{part}"), gb=v.gb(gb))
        assert memory_line(v, part, gb) == full


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_memory_fills_write_the_rows(lang: str) -> None:
    """A row's text before and after its GB, joined around a GB text (one with a "%" too),
    is the row's own ``%``; each shipped part has its pieces."""
    rows, fills = memory_rows(CAT)[lang], memory_fills(CAT)[lang]
    assert set(fills) == set(rows)
    for part, (head, tail) in fills.items():
        for gb in ("12.5", "1,024", "<0.1", "5%"):
            assert head + gb + tail == rows[part] % {"gb": gb}

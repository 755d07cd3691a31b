"""The one formatting voice every text builder shares: messages in the reply language and
numbers rounded half up, only here, at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Final

from engine.answer_types import Answer, Section
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.i18n import _Params, t
from engine.rounding import GbMemo, NumberMemo, RoomMemo, UsdMemo, fmt_num, number_memo, usd_memo
from engine.text.fills import Consts, Fills, OneFills, percent_template


@per_catalog
def message_tables(cat: Catalog) -> dict[str, dict[str, str]]:
    """Per language, every key's text with the English fallback already applied (the rules
    of engine.i18n.t), so a lookup is one dict read."""
    en = cat.messages["en"]
    return {
        lang: {k: table.get(k) or en.get(k) or k for k in {**en, **table}}
        for lang, table in cat.messages.items()
    }


@per_catalog
def percent_tables(cat: Catalog) -> dict[str, dict[str, str]]:
    """Per language, each message as a ``%``-template (about a third cheaper to fill)."""
    out: dict[str, dict[str, str]] = {}
    for lang, table in message_tables(cat).items():
        out[lang] = {}
        for key, text in table.items():
            pct = percent_template(text)
            if pct is not None:
                out[lang][key] = pct
    return out


_Tables = tuple[str, dict[str, str], dict[str, str], Fills, Consts, OneFills, dict[Any, Any]]


@per_catalog
def voice_tables(cat: Catalog) -> dict[str, _Tables]:
    """Per language of the catalog: the table a voice reads, its texts, templates, fills and
    one-value fills, and the texts made once per model or precision in that language (``engine.text.notes``)."""
    tables, pcts = message_tables(cat), percent_tables(cat)
    fills = {k: Fills(table, pcts[k]) for k, table in tables.items()}
    consts = {k: Consts(f) for k, f in fills.items()}
    ones = {k: OneFills(f) for k, f in fills.items()}
    out: dict[str, _Tables] = {}
    for lang in cat.messages:
        k = lang if tables.get(lang) else "en"
        out[lang] = (k, tables[k], pcts[k], fills[k], consts[k], ones[k], {})
    return out


_Memos = tuple[list[NumberMemo], GbMemo, RoomMemo, UsdMemo]
_NUMBER_MEMOS: Final[dict[str, _Memos]] = {}


def _number_memos(lang: str) -> _Memos:
    """A language's memos of trimmed numbers (by decimals, 0 to 4), GB, room and dollars."""
    if len(_NUMBER_MEMOS) >= 16:  # the engine speaks three languages: odd ones start over
        _NUMBER_MEMOS.clear()
    nums = [number_memo(lang, d, True) for d in range(5)]
    memos = _NUMBER_MEMOS[lang] = (nums, GbMemo(lang), RoomMemo(lang), usd_memo(lang))
    return memos


class Voice:
    """The catalog's messages and number formats in one language.

    ``made`` holds the texts written once per model (by ref id) and per precision (by name)
    in this language (``engine.text.notes``). ``ones`` holds one-value fills' texts by
    their value (``OneFill``), for messages whose value repeats. The number texts already made in this
    language are dicts by value (``nums[decimals]``,
    ``gbs``, ``rooms``, ``usds``): a subscript is one C-level read on a repeat, and a miss
    makes the text and keeps it; hot text builders subscript them directly.
    """

    def __init__(self, cat: Catalog, lang: str) -> None:
        self.cat = cat
        self.lang = lang
        tables = voice_tables(cat)
        self.table_lang, self._table, self.pct, self.fill, self.const, self.ones, self.made = (
            tables.get(lang) or tables["en"]
        )
        self.nums, self.gbs, self.rooms, self.usds = _NUMBER_MEMOS.get(lang) or _number_memos(lang)

    def t(self, key: str, **params: Any) -> str:
        try:
            return self.pct[key] % params
        except KeyError:  # an unknown key, or a placeholder without a value
            return self.t_slow(key, params)

    def text(self, key: str) -> str:
        """The message as written (unfilled), with the English fallback."""
        return self._table.get(key) or key

    def t_slow(self, key: str, params: dict[str, Any]) -> str:
        """The engine.i18n.t rules in full: a missing placeholder stays as written."""
        text = self._table.get(key) or key
        if "{" not in text:  # nothing to fill: format_map would return it unchanged
            return text
        return text.format_map(_Params(params))

    def gb(self, value: float) -> str:
        """GB with one decimal below 100 and none above (``engine.rounding.fmt_gb``)."""
        return self.gbs[value]

    def usd(self, value: float) -> str:
        return self.usds[value]

    def link(self, name: str | None) -> str:
        """A card link's name in the reply language (cards.yaml names it in English)."""
        name = name or "PCIe"
        key = f"link.{name}"
        en = self.cat.messages["en"]
        text = (self.cat.messages.get(self.lang) or en).get(key) or en.get(key) or name
        if "{bridge}" in text:  # an optional bridge's own speed, from cards.yaml
            cards = self.cat.fleet.cards
            bridge = next((c.bridge_gbps for c in cards if c.interconnect == name), None) or 0.0
            text = text.replace("{bridge}", self.nums[0 if bridge.is_integer() else 1][bridge])
        return text

    def room(self, value: float) -> str:
        """GB to spare: a real but tiny margin reads "<0.1", never "0" (which says it does not
        fit, or fits exactly)."""
        return self.rooms[value]

    def num(self, value: float, decimals: int = 0) -> str:
        if 0 <= decimals < 5:
            return self.nums[decimals][value]
        return fmt_num(value, decimals, self.lang, trim=True)


@per_catalog
def _voices(cat: Catalog) -> dict[str, Voice]:
    return {}


def voice_of(cat: Catalog, lang: str) -> Voice:
    """The catalog's voice in ``lang``, one per catalog and language: a voice holds no
    answer's state (its tables and memos are the catalog's and the language's)."""
    voices = _voices(cat)
    v = voices.get(lang)
    if v is None:
        if len(voices) >= 16:  # the engine speaks three languages: odd ones start over
            voices.clear()
        v = voices[lang] = Voice(cat, lang)
    return v


_new: Final = object.__new__
_SECTION: Final = Section  # compiled, a static: no read of the imported name per section


def section(title: str, lines: list[str]) -> Section:
    """``Section.model_construct(title=title, lines=lines)`` without the keyword dict and the
    defaults walk (a Section has no defaults and both fields are given): half the cost."""
    s: Section = _new(_SECTION)
    d = s.__dict__
    d["title"] = title
    d["lines"] = lines
    return s


def task_label(cat: Catalog, lang: str, task: str) -> str:
    return t(cat, lang, f"task.{task}")


def precision_label(precision: str) -> str:
    return precision.upper()


def _ctx_text(tokens: int) -> str:
    if tokens % (1024 * 1024) == 0:
        return f"{tokens // (1024 * 1024)}M"
    if tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return f"{tokens:,}"


class _CtxLabels(dict[int, str]):
    """The context labels made so far ("8k", "1M", "3,000"), by token count: the same few
    counts are labelled several times an answer, and a hit is one C-level read."""

    def __missing__(self, tokens: int) -> str:
        if len(self) >= 4096:
            self.clear()
        text = self[tokens] = _ctx_text(tokens)
        return text


CTX_LABELS: Final = _CtxLabels()
ctx_label: Final[Callable[[int], str]] = CTX_LABELS.__getitem__  # a label: "8k", "128k", "1M"


_TEXT: Final = attrgetter("text")  # a note's text


def render_text(a: Answer) -> str:
    """Plain text: the fallback every platform can show (and what ``vram ask`` prints)."""
    # each field read once: compiled, every read of an answer's field is an attribute lookup
    headline, caveats, assumptions = a.headline, a.caveats, a.assumptions
    out = [headline] if headline else []
    for s in a.sections:
        title = s.title
        if title:
            out += ("", title)
        out += s.lines
    text = "\n".join(out)
    # the notes joined by their own prefix (map over a C getter: no comprehension frame);
    # the text is stripped, so an empty body before them reads as it did
    if caveats:
        text += "\n\n! " + "\n! ".join(map(_TEXT, caveats))
    if assumptions:
        text += "\n\n~ " + "\n~ ".join(map(_TEXT, assumptions))
    return text.strip()

"""The one formatting voice every text builder shares: messages in the reply language and
numbers rounded half up, only here, at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from string import Formatter
from types import FunctionType
from typing import Any, Final

from engine.answer_types import Answer, Section
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.i18n import _Params, t
from engine.rounding import GbMemo, NumberMemo, RoomMemo, UsdMemo, fmt_num, number_memo, usd_memo

_FORMATTER: Final = Formatter()


@per_catalog
def message_tables(cat: Catalog) -> dict[str, dict[str, str]]:
    """Per language, every key's text with the English fallback already applied (the rules
    of engine.i18n.t), so a lookup is one dict read."""
    en = cat.messages["en"]
    return {
        lang: {k: table.get(k) or en.get(k) or k for k in {**en, **table}}
        for lang, table in cat.messages.items()
    }


def percent_template(text: str, fixed: dict[str, str] | None = None) -> str | None:
    """``text`` as a ``%``-template giving what ``text.format_map(params)`` gives (``%s`` and
    ``format(v, "")`` agree for the str, int and float values the builders pass); the
    ``fixed`` fields already written in. None when a field has a spec, a conversion or a
    name ``%`` cannot take, or the text does not parse: those keep the ``format_map`` path."""
    if "{" not in text:  # never formatted (engine.i18n.t): a lone "}" stays as written
        return text.replace("%", "%%")
    out: list[str] = []
    try:
        for literal, name, spec, conversion in _FORMATTER.parse(text):
            out.append(literal.replace("%", "%%"))
            if name is None:
                continue
            if spec or conversion or not name.isidentifier():
                return None
            if fixed is not None and name in fixed:
                out.append(fixed[name].replace("%", "%%"))
            else:
                out.append(f"%({name})s")
    except ValueError:
        return None
    return "".join(out)


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


def positional_template(text: str, names: list[str]) -> tuple[list[str], tuple[int, ...]] | None:
    """``text`` as the literals between its fields (``%``-escaped) and the index in ``names``
    of each field's value: ``"%s".join(literals) % tuple(values[i] for i in order)`` gives
    what ``text.format_map(dict(zip(names, values)))`` gives (``%s`` and ``format(v, "")``
    agree for the str, int and float values the builders pass). None when a field is not
    among ``names`` (it stays as written), has a spec or a conversion, or the text does not
    parse: those keep ``Voice.t``'s path."""
    if "{" not in text:  # never formatted (engine.i18n.t): a lone "}" stays as written
        return [text.replace("%", "%%")], ()
    literals = [""]
    order: list[int] = []
    try:
        for literal, name, spec, conversion in _FORMATTER.parse(text):
            literals[-1] += literal.replace("%", "%%")
            if name is None:
                continue
            if spec or conversion or name not in names:
                return None
            literals.append("")
            order.append(names.index(name))
    except ValueError:
        return None
    return literals, tuple(order)


def in_order(literals: list[str], order: tuple[int, ...], count: int) -> str | None:
    """The template taking all ``count`` values as given, when its fields take them in
    order: a value it leaves out is read by a ``%.0s`` (which writes nothing)."""
    if any(b <= a for a, b in pairwise(order)):
        return None  # another order, or a value twice
    out, nxt = [literals[0]], 0
    for i, literal in zip(order, literals[1:], strict=True):
        out.append("%.0s" * (i - nxt) + "%s" + literal)
        nxt = i + 1
    out.append("%.0s" * (count - nxt))
    return "".join(out)


_SMALL: Final = tuple(str(k) for k in range(1000))  # str(k): the whole numbers a fill takes most


class Joined:
    """A fill as its message's literal pieces with each value's text between them, joined:
    compiled, cheaper than the template's ``%`` (which parses the template on every fill).
    A value's text is what ``%s`` writes (``str(v)``); any order, or a value twice."""

    def __init__(self, literals: list[str], order: tuple[int, ...]) -> None:
        """``literals`` and ``order`` as ``positional_template`` gives them (%-escaped)."""
        parts: list[str] = []
        slots: list[int] = []
        for k, literal in enumerate(literals):
            if k:  # a value's slot before each literal but the first
                slots.append(len(parts))
                parts.append("")
            if literal:  # an empty piece would only cost the join a step
                parts.append(literal.replace("%%", "%"))
        self.parts, self.slots, self.order = parts, tuple(slots), order

    def __call__(self, values: tuple[Any, ...]) -> str:
        parts = self.parts.copy()
        slots, order = self.slots, self.order
        for k in range(len(order)):
            v = values[order[k]]
            if type(v) is str:
                parts[slots[k]] = v
            elif type(v) is int and 0 <= v < 1000:
                parts[slots[k]] = _SMALL[v]
            else:
                parts[slots[k]] = str(v)
        return "".join(parts)


def _compiled() -> bool:
    """Whether this module runs compiled (deploy/native.py): a compiled function is no
    Python function."""
    return not isinstance(_compiled, FunctionType)


#: Fills join their pieces when compiled; as Python, the template's own ``%`` (one C call)
#: is the cheaper of the two.
JOIN: Final = _compiled()


class _Reordered:
    """A fill whose message takes the values in another order (or one twice)."""

    def __init__(self, template: str, order: tuple[int, ...]) -> None:
        self.template, self.order = template, order

    def __call__(self, values: tuple[Any, ...]) -> str:
        return self.template % tuple([values[i] for i in self.order])


class _Slow:
    """A fill for a message whose fields the positional path cannot take: ``Voice.t``'s rules."""

    def __init__(self, key: str, names: list[str], text: str, pct: str | None) -> None:
        self.key, self.names, self.text, self.pct = key, names, text, pct

    def __call__(self, values: tuple[Any, ...]) -> str:
        params = dict(zip(self.names, values, strict=True))
        if self.pct is not None:
            try:
                return self.pct % params
            except KeyError:
                pass
        if "{" not in self.text:
            return self.text
        return self.text.format_map(_Params(params))


class Fills(dict[str, Callable[[tuple[Any, ...]], str]]):
    """One message table's fills by spec, made on first use: ``fills["key:a,b"]((x, y))`` is
    ``Voice.t("key", a=x, b=y)``; mostly the template's own ``%`` (one C-level call, no
    keyword dict), as the message writes the fields in the spec's order; ``join``: a
    ``Joined`` fill instead (the cheaper one compiled)."""

    def __init__(self, table: dict[str, str], pct: dict[str, str], join: bool = JOIN) -> None:
        super().__init__()
        self.table, self.pct, self.join = table, pct, join
        self.parsed: dict[str, tuple[list[str], tuple[int, ...]] | None] = {}  # by partial()

    def __missing__(self, spec: str) -> Callable[[tuple[Any, ...]], str]:
        key, colon, fields = spec.rpartition(":")  # keys may hold spaces, never ":"
        if not colon:
            key = fields
        names = fields.split(",") if colon and fields else []
        text = self.table.get(key) or key
        found = positional_template(text, names)
        fill: Callable[[tuple[Any, ...]], str]
        if found is None:
            fill = _Slow(key, names, text, self.pct.get(key))
        elif self.join:
            fill = Joined(*found)
        elif (given := in_order(*found, len(names))) is not None:
            fill = given.__mod__
        else:
            fill = _Reordered("%s".join(found[0]), found[1])
        self[spec] = fill
        return fill


def partial(fills: Fills, spec: str, given: tuple[Any, ...]) -> Callable[[tuple[Any, ...]], str]:
    """``fills[spec]`` with its first values ``given`` written in once: the fill then takes the
    rest (``partial(f, "k:a,b,c", (x,))((y, z))`` is ``f["k:a,b,c"]((x, y, z))``). The
    message must take the values it is left in order; otherwise the whole fill is kept."""
    key, colon, fields = spec.rpartition(":")
    names = fields.split(",") if colon and fields else []
    parsed = fills.parsed
    if spec not in parsed:  # the message's parse, once per table
        parsed[spec] = positional_template(fills.table.get(key) or key, names) if colon else None
    found = parsed[spec]
    whole = fills[spec]
    if found is None:
        return lambda rest: whole(given + rest)
    literals, order = found
    nfixed, nxt = len(given), len(given)
    out = [literals[0]]
    for i, literal in zip(order, literals[1:], strict=True):
        if i < nfixed:  # format(v, "") is what format_map writes (str, int, float)
            out.append(format(given[i], "").replace("%", "%%") + literal)
        elif i < nxt:  # a value it is left, asked again or out of order
            return lambda rest: whole(given + rest)
        else:
            out.append("%.0s" * (i - nxt) + "%s" + literal)
            nxt = i + 1
    out.append("%.0s" * (len(names) - nxt))
    return "".join(out).__mod__


class Consts(dict[str, str]):
    """One message table's texts that take no value (titles, fixed phrases), by key:
    ``consts[key]`` is ``Voice.t(key)``, made on first use."""

    def __init__(self, fills: Fills) -> None:
        super().__init__()
        self.fills = fills

    def __missing__(self, key: str) -> str:
        text = self[key] = self.fills[key](())
        return text


_ONE_SIZE: Final = 4096  # texts kept per one-value fill: emptied when full, so memory stays bounded


class OneFill(dict[Any, str]):
    """A one-value fill's texts by that value, made on a miss: ``one[x]`` is
    ``fill((x,))``. For a message whose value repeats across answers (a context, a batch
    size): a repeat is one C-level read, not a format. Its values must be of one type (str
    or int), as equal keys share a text (``1`` and ``1.0`` would, and they write apart)."""

    __slots__ = ("fill",)

    def __init__(self, fill: Callable[[tuple[Any, ...]], str]) -> None:
        super().__init__()
        self.fill = fill

    def __missing__(self, value: Any) -> str:
        if len(self) >= _ONE_SIZE:
            self.clear()
        text = self[value] = self.fill((value,))
        return text


class OneFills(dict[str, OneFill]):
    """One message table's one-value fills by spec (``"key:field"``), made on first use:
    ``ones[spec][x]`` is ``fills[spec]((x,))``."""

    __slots__ = ("fills",)

    def __init__(self, fills: Fills) -> None:
        super().__init__()
        self.fills = fills

    def __missing__(self, spec: str) -> OneFill:
        one = self[spec] = OneFill(self.fills[spec])
        return one


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


def section(title: str, lines: list[str]) -> Section:
    """``Section.model_construct(title=title, lines=lines)`` without the keyword dict and the
    defaults walk (a Section has no defaults and both fields are given): half the cost."""
    s = _new(Section)
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
    if caveats:
        out.append("")
        out += ["! " + n.text for n in caveats]
    if assumptions:
        out.append("")
        out += ["~ " + n.text for n in assumptions]
    return "\n".join(out).strip()

"""A message's fills: its template written once per spec (``"key:a,b"``), then filled
with the values in the spec's order, as ``Voice.t`` would fill them by name.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from string import Formatter
from types import FunctionType
from typing import Any, Final

from engine.i18n import _Params

_FORMATTER: Final = Formatter()


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

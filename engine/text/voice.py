"""The one formatting voice every text builder shares: messages in the reply language and
numbers rounded half up, only here, at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from string import Formatter
from typing import Any

from engine.answer_types import Answer
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.i18n import _Params, t
from engine.rounding import fmt_num, number_memo, remember, remember_usd, usd_memo

_FORMATTER = Formatter()


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


def positional_template(text: str, names: list[str]) -> str | None:
    """``text`` as a ``str.format`` template of positional fields, the i-th being ``names[i]``:
    ``template.format(*values)`` gives what ``text.format_map(dict(zip(names, values)))``
    gives. None when a field is not among ``names`` (it stays as written: the slow path),
    has a nested spec, or the text does not parse."""
    if "{" not in text:  # never formatted (engine.i18n.t): every brace stays as written
        return text.replace("{", "{{").replace("}", "}}")
    out: list[str] = []
    try:
        for literal, name, spec, conversion in _FORMATTER.parse(text):
            out.append(literal.replace("{", "{{").replace("}", "}}"))
            if name is None:
                continue
            if name not in names or (spec and "{" in spec):
                return None
            conv = f"!{conversion}" if conversion else ""
            out.append(f"{{{names.index(name)}{conv}{':' + spec if spec else ''}}}")
    except ValueError:
        return None
    return "".join(out)


class _Slow:
    """A fill for a message whose fields the positional path cannot take: ``Voice.t``'s rules."""

    def __init__(self, key: str, names: list[str], text: str, pct: str | None) -> None:
        self.key, self.names, self.text, self.pct = key, names, text, pct

    def __call__(self, *values: Any) -> str:
        params = dict(zip(self.names, values, strict=True))
        if self.pct is not None:
            try:
                return self.pct % params
            except KeyError:
                pass
        if "{" not in self.text:
            return self.text
        return self.text.format_map(_Params(params))


class Fills(dict[str, Callable[..., str]]):
    """One message table's fills by spec, made on first use: ``fills["key:a,b"](x, y)`` is
    ``Voice.t("key", a=x, b=y)`` (``fills["key"]()`` is ``Voice.t("key")``), mostly one
    C-level ``str.format`` call: no keyword dict, no Python frame."""

    def __init__(self, table: dict[str, str], pct: dict[str, str]) -> None:
        super().__init__()
        self.table, self.pct = table, pct

    def __missing__(self, spec: str) -> Callable[..., str]:
        key, colon, fields = spec.rpartition(":")  # keys may hold spaces, never ":"
        if not colon:
            key = fields
        names = fields.split(",") if colon and fields else []
        text = self.table.get(key) or key
        tpl = positional_template(text, names)
        fill = tpl.format if tpl is not None else _Slow(key, names, text, self.pct.get(key))
        self[spec] = fill
        return fill


_Tables = tuple[str, dict[str, str], dict[str, str], Fills]


@per_catalog
def voice_tables(cat: Catalog) -> dict[str, _Tables]:
    """Per language of the catalog: the table a voice reads, its texts, templates and fills."""
    tables, pcts = message_tables(cat), percent_tables(cat)
    fills = {k: Fills(table, pcts[k]) for k, table in tables.items()}
    out: dict[str, _Tables] = {}
    for lang in cat.messages:
        k = lang if tables.get(lang) else "en"
        out[lang] = (k, tables[k], pcts[k], fills[k])
    return out


_NUMBER_MEMOS: dict[str, tuple[list[dict[float, str]], dict[float, str]]] = {}


def _number_memos(lang: str) -> tuple[list[dict[float, str]], dict[float, str]]:
    """A language's memos of trimmed numbers (by decimals, 0 to 4) and of dollar amounts."""
    if len(_NUMBER_MEMOS) >= 16:  # the engine speaks three languages: odd ones start over
        _NUMBER_MEMOS.clear()
    memos = _NUMBER_MEMOS[lang] = ([number_memo(lang, d, True) for d in range(5)], usd_memo(lang))
    return memos


class Voice:
    """The catalog's messages and number formats in one language."""

    def __init__(self, cat: Catalog, lang: str) -> None:
        self.cat = cat
        self.lang = lang
        tables = voice_tables(cat)
        self.table_lang, self._table, self._pct, self.fill = tables.get(lang) or tables["en"]
        # The number texts already made in this language, by value: one dict read on a repeat.
        memos = _NUMBER_MEMOS.get(lang) or _number_memos(lang)
        self._num, self._usd = memos
        self._gb0, self._gb1 = memos[0][0], memos[0][1]

    def t(self, key: str, **params: Any) -> str:
        try:
            return self._pct[key] % params
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
        if -100 < value < 100:
            return self._gb1.get(value) or remember(self._gb1, value, 1, self.lang, True)
        return self._gb0.get(value) or remember(self._gb0, value, 0, self.lang, True)

    def usd(self, value: float) -> str:
        return self._usd.get(value) or remember_usd(self._usd, value, self.lang)

    def link(self, name: str | None) -> str:
        """A card link's name in the reply language (cards.yaml names it in English)."""
        name = name or "PCIe"
        key = f"link.{name}"
        en = self.cat.messages["en"]
        return (self.cat.messages.get(self.lang) or en).get(key) or en.get(key) or name

    def room(self, value: float) -> str:
        """GB to spare: a real but tiny margin reads "<0.1", never "0" (which says it does not
        fit, or fits exactly)."""
        if 0 < value < 0.05:
            return "<" + fmt_num(0.1, 1, self.lang)
        if -100 < value < 100:  # self.gb, inline: about one number in six is a room
            return self._gb1.get(value) or remember(self._gb1, value, 1, self.lang, True)
        return self._gb0.get(value) or remember(self._gb0, value, 0, self.lang, True)

    def num(self, value: float, decimals: int = 0) -> str:
        if 0 <= decimals < 5:
            memo = self._num[decimals]
            return memo.get(value) or remember(memo, value, decimals, self.lang, True)
        return fmt_num(value, decimals, self.lang, trim=True)


def task_label(cat: Catalog, lang: str, task: str) -> str:
    return t(cat, lang, f"task.{task}")


def precision_label(precision: str) -> str:
    return precision.upper()


def ctx_label(tokens: int) -> str:
    if tokens % (1024 * 1024) == 0:
        return f"{tokens // (1024 * 1024)}M"
    if tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return f"{tokens:,}"


def render_text(a: Answer) -> str:
    """Plain text: the fallback every platform can show (and what ``vram ask`` prints)."""
    out = [a.headline] if a.headline else []
    for s in a.sections:
        if s.title:
            out += ("", s.title)
        out += s.lines
    if a.caveats:
        out.append("")
        out += ["! " + n.text for n in a.caveats]
    if a.assumptions:
        out.append("")
        out += ["~ " + n.text for n in a.assumptions]
    return "\n".join(out).strip()

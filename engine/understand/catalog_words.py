"""Per-catalog patterns: every card alias and precision spelling as one trie regex.

Built once per catalog (hashed by identity); nothing on the per-question path compiles a
regex or walks the alias list.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from engine.catalog import Catalog, norm
from engine.catalog_cache import per_catalog
from engine.lazyre import lazy
from engine.models import Card, OwnedCard
from engine.understand.counts import (
    CARD_NOUN,
    COUNT,
    COUNT_WORDS,
)
from engine.understand.faq_match import faq_words
from engine.understand.gates import HAS_CARD_WORD, HAS_CONFIG, HAS_DIGIT, WordTable, gates
from engine.understand.inflect import base_form
from engine.understand.model_index import model_index, model_key
from engine.understand.normalise import clean
from engine.understand.patterns import (
    BIT_ENDING,
    FAQ_COMMAND,
    HELP,
    MAX_MENTIONS,
    PRECISION_LIKE,
    PRECISION_SEPARATORS,
    may_name_precision,
)
from engine.understand.query import Query

# A context a release is named for: (every word of its spellings, the other words of each)
NameContext = tuple[frozenset[str], tuple[frozenset[str], ...]]


class CatalogWords:
    """The catalog's spellings as regexes, and what the parser checks a card against."""

    card_scan: re.Pattern[str]  # every card alias, as a trie: finds a card fast
    precision: re.Pattern[str]  # every precision spelling as a word, as a trie
    precision_compact: dict[str, str]  # alias without separators -> precision name
    card_vram: dict[str, float]
    # Numbers that are part of model names ("2507", "0905", "2024", "270m") -> the name words
    # they go with: beside one of those words they are the name, not a context length.
    name_numbers: dict[str, frozenset[str]]
    # A context a release is named for ("128k") -> the other words of each spelling with it
    name_contexts: dict[str, NameContext]
    # (version, size) said together in some model name: "3.1" and "70b" (Llama 3.1 70B)
    version_sizes: frozenset[tuple[str, str]]
    # A card spelling as found -> (the fleet card, else the owned card) it names; filled as
    # spellings are met, so each is resolved through the catalog's aliases once.
    card_of: dict[str, tuple[Card | None, OwnedCard | None]]
    words: WordTable  # gates() with its bits
    # A precision spelling as found -> the precision it names (None: none), filled the same way.
    precision_named: dict[str, str | None]

    def __init__(
        self,
        card_scan: re.Pattern[str],
        precision: re.Pattern[str],
        precision_compact: dict[str, str],
        card_vram: dict[str, float],
        name_numbers: dict[str, frozenset[str]],
        name_contexts: dict[str, NameContext],
        version_sizes: frozenset[tuple[str, str]],
        card_of: dict[str, tuple[Card | None, OwnedCard | None]] | None = None,
        words: WordTable | None = None,
        precision_named: dict[str, str | None] | None = None,
    ) -> None:
        self.card_scan = card_scan
        self.precision = precision
        self.precision_compact = precision_compact
        self.card_vram = card_vram
        self.name_numbers = name_numbers
        self.name_contexts = name_contexts
        self.version_sizes = version_sizes
        self.card_of = {} if card_of is None else card_of
        self.words = WordTable(()) if words is None else words
        self.precision_named = {} if precision_named is None else precision_named


def trie(words: set[str], space: str, behind: str = "") -> str:
    """One regex for many literal words, as a trie ("q4(?:_(?:k_m|0))?"): the engine then
    rejects a position after a letter or two instead of trying every word. Longer words win
    (each optional tail is greedy); a space in a word matches ``space``. ``behind``: the
    lookbehinds a match must pass where it opens, checked after its first character
    ("q(?<![\\w.]q)4..." is "(?<![\\w.])q4..."), so the pattern still opens with one literal
    character per branch, which the regex engine skips to."""
    root: dict[str, dict] = {}  # type: ignore[type-arg]
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict], opens: bool = False) -> str:  # type: ignore[type-arg]
        alts = [
            (space if ch == " " else re.escape(ch))
            + (behind.replace("{}", re.escape(ch)) if opens else "")
            + emit(child)
            for ch, child in sorted(node.items())
            if ch
        ]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if "" in node:
            return "(?:" + body + ")?"
        return body

    assert not behind or " " not in root, "a word opens with a space"
    return emit(root, True)


@lru_cache(maxsize=8)
def catalog_words(catalog: Catalog) -> CatalogWords:
    """Cached per catalog object, so a reload builds fresh patterns."""
    names = {a.lower() for c in catalog.cards for a in (c.name, *c.aliases)}
    owned = {a.lower() for c in catalog.owned_by_name.values() for a in (c.name, *c.aliases)}
    cards = trie(names | owned, r"[\s-]*")  # owned cards (hardware.yaml) are found too
    # "(?<![\w.])(<every spelling>)(?![\w.])"
    precisions = trie(set(catalog.precision_alias), r"[\s_-]*", r"(?<![\w.]{})")
    return CatalogWords(
        card_scan=lazy(cards),
        precision=lazy("(" + precisions + r")(?![\w.])"),
        precision_compact={
            PRECISION_SEPARATORS.sub("", alias): name
            for alias, name in sorted(catalog.precision_alias.items())
        },
        card_vram={c.name: c.vram_gb for c in catalog.cards}
        | {c.name: c.vram_gb for c in catalog.owned_by_name.values()},
        name_numbers=_name_numbers(catalog),
        name_contexts=_name_contexts(catalog),
        version_sizes=_version_sizes(catalog),
        words=WordTable(catalog.precision_alias, names | owned, faq_words(catalog)),
    )


_NAME_NUMBER: Final = lazy(r"\d{4}|\d+m")
_NAME_CONTEXT: Final = lazy(r"(\d+)k")  # a release named for its context: "Phi-3 mini 128k"


@per_catalog  # built into the catalog cache: not paid on every start
def _name_numbers(catalog: Catalog) -> dict[str, frozenset[str]]:
    index = model_index(catalog)
    out: dict[str, set[str]] = {}
    for toks in index.key_tokens:
        for t in toks:
            if _NAME_NUMBER.fullmatch(t):
                out.setdefault(t, set()).update(u for u in toks if u[:1].isalpha())
    return {t: frozenset(words) for t, words in out.items()}


@per_catalog  # built into the catalog cache: not paid on every start
def _name_contexts(catalog: Catalog) -> dict[str, NameContext]:
    """The context a release is named for, when it is the entry's own ("phi-3 mini 128k" is
    the 131072-token release) -> (every word of those spellings, the other words of each)."""
    out: dict[str, list[frozenset[str]]] = {}
    for m in catalog.models:
        for spelling in (m.name, *m.aliases):
            toks = model_key(spelling).split()
            for t in toks:
                k = _NAME_CONTEXT.fullmatch(t)
                if k and m.max_context_tokens in (int(k.group(1)) * 1000, int(k.group(1)) * 1024):
                    out.setdefault(t, []).append(frozenset(u for u in toks if u != t))
    return {t: (frozenset().union(*sets), tuple(sets)) for t, sets in out.items()}


_VERSION: Final = lazy(r"\d{1,2}\.\d")
_SIZE_TOKEN: Final = lazy(r"\d{1,4}b")


@per_catalog  # built into the catalog cache: not paid on every start
def _version_sizes(catalog: Catalog) -> frozenset[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for m in catalog.models:
        for spelling in (m.name, *m.aliases):
            toks = model_key(spelling).split()
            versions = [t for t in toks if _VERSION.fullmatch(t)]
            for size in (t for t in toks if _SIZE_TOKEN.fullmatch(t)):
                out.update((v, size) for v in versions)
    return frozenset(out)


# A version run into a size ("llama3.170b", "qwen2.532b"): "3.1" + "70b" when a model has both
# ("(?<![\d.])(\d{1,2}\.\d)...", opening with the digit so the regex engine skips to one)
GLUED_SIZE: Final = lazy(r"(\d(?<![\d.]\d)\d?\.\d)(\d{1,4}b)\b")


def unglue_size(pats: CatalogWords, s: str) -> str:
    """``s`` with a version run into a size spaced out, when some model name says both."""
    m = GLUED_SIZE.search(s) if "." in s else None  # (the caller may have asked already)
    if m is None or (m.group(1), m.group(2)) not in pats.version_sizes:
        return s
    return s[: m.end(1)] + " " + s[m.start(2) :]


def names_number(pats: CatalogWords, token: str, text: str, at: int = 0) -> bool:
    """Whether ``token`` ("2507", "270m") is part of a model name said in ``text``. A context
    in a name ("128k", found at ``at``) is the name only right after one of its words: in
    "phi 3 mini at 128k" it is the context."""
    token = token.lower().replace(" ", "")
    if token[-1:] == "k":
        named = pats.name_contexts.get(token)
        return named is not None and _names_context(named, text[:at])
    words = pats.name_numbers.get(token)
    if words is None:
        return False
    said = model_key(text).split()
    return not words.isdisjoint(said) or any(base_form(w, words) in words for w in said)


def _names_context(named: NameContext, before: str) -> bool:
    """Whether the words right before a context ("phi 3 mini" in "phi 3 mini 128k") are a
    spelling that holds it, its version among them: "phi-4-mini 128k" and "phi 3 mini at
    128k" are a context."""
    known, spellings = named
    words = before.split()
    if not words or (words[-1] not in known and model_key(words[-1]) not in known):
        return False  # the word right before is no name word: the common case, one test
    run: set[str] = set()
    for word in reversed(model_key(" ".join(words[-6:])).split()):
        if word not in known:
            break
        run.add(word)
    # the version said too ("phi 3 mini", not "phi-4-mini"'s "mini" alone)
    return len(run) >= 2 and any(run <= s and _numbers(s) <= run for s in spellings)


def _numbers(words: frozenset[str]) -> set[str]:
    return {w for w in words if w[:1].isdigit()}


# A Mac is plain unified memory ("128 GB mac", "mac studio 192gb"): the word is hardware, never
# part of a model name; the amount said beside it is the capacity.
MAC: Final = lazy(
    r"(?<![\w.])(?:m[1-5](?:\s*(?:pro|max|ultra))?\s+)?(?:apple\s+)?"  # "m2 macbook air"
    r"(?:(?:mac(?:book(?:\s*pro|\s*air)?|\s*studio|\s*mini|\s*pro)?|imac)"
    r"(?:\s+m[1-5](?:\s*(?:pro|max|ultra))?)?|m[1-5]\s*(?:pro|max|ultra))(?![\w.])",
    re.IGNORECASE,
)

# A count before a card: 1-16 alone or in words ("2 h100", "two a40s", "4x a100"), or a larger
# one only with its "x" ("32x h100": a cluster of nodes), never a bare number ("128 a100");
# "0x" and "99999x" are read too, so that they are answered as counts nobody can use
COUNT_BEFORE: Final = lazy(
    r"(?<![\w.])(?:"
    + COUNT
    + r"\s*(?:x|\*|of)?|(0|[1-9]\d{1,8})\s*[x*])\s*(?:"
    + CARD_NOUN
    + r"\s+)?$"
)
# How the last word before a card ends when COUNT_BEFORE matches: a count, "x", "*", "of"
# ("2x", "a pair of"), or it holds the card noun after the count ("2 gpus", "dwie karty").
_COUNT_ENDS: Final = (*COUNT_WORDS, *"0123456789", "x", "*", "of")
_COUNT_ENDS_BY_LAST: Final[dict[str, tuple[str, ...]]] = {}  # the same, by their last character
for _end in _COUNT_ENDS:
    _COUNT_ENDS_BY_LAST[_end[-1]] = (*_COUNT_ENDS_BY_LAST.get(_end[-1], ()), _end)


def _may_count(tail: str) -> bool:
    """A cheap superset of ``COUNT_BEFORE.search(tail)``: most cards have no count before."""
    words = tail.rsplit(None, 1)  # str.split's whitespace is regex \s
    if not words:
        return False
    last = words[-1]
    ends = _COUNT_ENDS_BY_LAST.get(last[-1])  # a word of split() is never empty
    return (
        ends is not None and last.endswith(ends)
    ) or (  # the card nouns ("card", "gpu", "kart", ...)
        "card" in last or "gpu" in last or "kart" in last or "การ์ด" in last or "ใบ" in last
    )


def _count(before: re.Match[str] | None) -> str | None:
    """The count COUNT_BEFORE read: a small one or in words, else a larger one with its "x"."""
    return (before.group(1) or before.group(2)) if before else None


AFTER_CARD: Final = lazy(r"s?\b(?:\s*(?:x|\*)\s*(\d+)\b)?")


def find_card(s: str, pats: CatalogWords, pos: int) -> tuple[int, int, str, str | None] | None:
    """The next card named at or after ``pos``: (start, end, alias, count) where start/end
    cover "2x", "two", "a40 x2" around the alias."""
    while m := pats.card_scan.search(s, pos):
        a, b = m.span()
        pos = a + 1
        tail = s[max(0, a - 24) : a]
        before = COUNT_BEFORE.search(tail) if _may_count(tail) else None
        prev = tail[-1:]
        if (prev.isalnum() or prev in "._") and not (prev in "x*" and before):
            continue  # "ba40", "rtx4090" inside a longer word (but "4x4090" is a count)
        start = a - len(tail) + before.start() if before else a
        # AFTER_CARD's usual case, read without it: the card's word ends ("?", " ", the end)
        # and no "x 2" / "* 2" follows
        c = s[b : b + 1]
        if c and s[b - 1].isalnum() and not c.isalnum() and c not in "_*":
            then = s[b + 1 : b + 2] if c.isspace() else ""
            if not then or (then not in "x*" and not then.isspace()):
                return start, b, m.group(0), _count(before)
        after = AFTER_CARD.match(s, b)
        if after is None:
            continue
        count = _count(before) or after.group(1)
        return start, after.end(), m.group(0), count
    return None


_CARD_SPELLINGS: Final = 1024


def card_named(
    catalog: Catalog, pats: CatalogWords, alias: str
) -> tuple[Card | None, OwnedCard | None]:
    """``catalog.card(alias)``, else ``catalog.owned(alias)``, looked up once per spelling."""
    found = pats.card_of.get(alias)
    if found is None:
        if len(pats.card_of) >= _CARD_SPELLINGS:  # "h100----sxm": spellings are unbounded
            pats.card_of.clear()
        card = catalog.card(alias)
        found = pats.card_of[alias] = (card, None if card is not None else catalog.owned(alias))
    return found


def precision_of(catalog: Catalog, pats: CatalogWords, text: str) -> str | None:
    """The catalog precision a matched spelling names: separators do not matter ("q4_KM",
    "q4-k-m" and "q4km" are all Q4_K_M)."""
    known = pats.precision_named
    if text in known:
        return known[text]
    if len(known) >= _CARD_SPELLINGS:  # "q4----k": spellings are unbounded
        known.clear()
    compact = PRECISION_SEPARATORS.sub("", text.lower())
    name = pats.precision_compact.get(compact) or catalog.precision_alias.get(norm(text))
    known[text] = name
    return name


def unknown_precisions(q: Query, s: str, pats: CatalogWords) -> str:
    """Precision-looking words left over ("4 bits", "q9", "fp3"): a plural of a known one is
    that one, and so is a Polish or Thai bit count ("w 4 bitach", "8 บิต"); the rest are
    types we do not know, reported, never guessed. Returns the rest."""
    if not may_name_precision(s):
        return s
    found = list(PRECISION_LIKE.finditer(s))  # the same matches .sub would replace
    if not found:
        return s
    for m in found:
        compact = PRECISION_SEPARATORS.sub("", BIT_ENDING.sub("bit", m.group(0)))
        name = pats.precision_compact.get(compact.removesuffix("s"))
        if name is not None and q.precision is None:
            q.precision = name
        elif name is None and m.group(0) not in q.unknown_precisions:
            q.unknown_precisions.append(m.group(0))
        if len(q.unknown_precisions) >= MAX_MENTIONS:
            break
    if not (q.unknown_precisions or q.precision):
        return s
    parts, at = [], 0
    for m in found:
        parts.append(s[at : m.start()])
        at = m.end()
    parts.append(s[at:])
    return " ".join(parts)


# The first character of every HELP form ("/help", "?", "hi", "cześć", "dzień dobry", "สวัสดี").
HELP_HEADS: Final = "/?hspcdชส"


def bare_card(part: str, catalog: Catalog) -> bool:
    """Whether ``part`` is one card and nothing else ("mi300x"): once the card is cut only
    spaces are left, so its parse could read no other slot, no model and no size."""
    raw, _ = clean(part)
    s = " " + raw.lower() + " "
    if "'" in s or "." in s:
        return False
    flags = gates(s, catalog_words(catalog).words)
    if not flags & HAS_DIGIT or not flags & HAS_CARD_WORD or flags & HAS_CONFIG:
        return False
    head = s.lstrip()[:1]
    if (head in HELP_HEADS and HELP.match(s)) or (head in "/f" and FAQ_COMMAND.match(s)):
        return False
    found = find_card(s, catalog_words(catalog), 0)
    if found is None or found[3] or not (s[: found[0]] + s[found[1] :]).isspace():
        return False
    card, owned = card_named(catalog, catalog_words(catalog), found[2])
    return card is not None or owned is not None

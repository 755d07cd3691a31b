"""Which FAQ topic a question is about: each keyword is found through its longest word,
filed under that word's rarest three-letter piece, so a question's words (each looked at once,
and remembered: words repeat) name the few keywords worth checking.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Final

from engine.catalog import Catalog
from engine.catalog_cache import per_catalog

FAQ_MIN_SCORE: Final = 1.5  # one keyword of a few letters is not enough to call it an FAQ
_WORDS_KEPT: Final = 8192  # distinct question words remembered per catalog; then it starts over


_FAQ_FIELDS: Final = ("topics", "entries", "by_gram", "always", "ids", "word_entries")


class FaqIndex:
    topics: tuple[str, ...]
    # Every keyword: (keyword, topic, weight, where its score is added: its rarest three
    # letters, whose first place in the text orders the sums as the text is read; "" when
    # the keyword is shorter than that, and added first).
    entries: tuple[tuple[str, int, float, str], ...]
    by_gram: dict[str, tuple[tuple[int, str], ...]]  # trigram -> (entry, its longest word)
    always: tuple[int, ...]  # keywords whose every word is under three letters: always checked
    ids: frozenset[str]
    # A question word -> the keywords whose longest word it holds (filled as words are met).
    word_entries: dict[str, tuple[int, ...]]

    def __init__(
        self,
        topics: tuple[str, ...],
        entries: tuple[tuple[str, int, float, str], ...],
        by_gram: dict[str, tuple[tuple[int, str], ...]],
        always: tuple[int, ...],
        ids: frozenset[str],
        word_entries: dict[str, tuple[int, ...]] | None = None,
    ) -> None:
        self.topics = topics
        self.entries = entries
        self.by_gram = by_gram
        self.always = always
        self.ids = ids
        self.word_entries = {} if word_entries is None else word_entries

    def __reduce__(self) -> tuple[type[FaqIndex], tuple[object, ...]]:
        """Pickled field by field (the catalog cache): compiled (deploy/native.py), a class
        with required ``__init__`` arguments cannot be rebuilt without them."""
        return FaqIndex, tuple(getattr(self, n) for n in _FAQ_FIELDS)


def _grams(text: str) -> set[str]:
    return {text[j : j + 3] for j in range(len(text) - 2)}


def _rarest(text: str, counts: dict[str, int]) -> str:
    return min(_grams(text), key=lambda g: (counts[g], g))


@per_catalog
def faq_index(catalog: Catalog) -> FaqIndex:
    keywords = [
        (kw.lower(), i, 1 + len(kw) / 20)
        for i, t in enumerate(catalog.faq)
        for words in t.keywords.values()
        for kw in words
    ]
    longest = [max(kw.split(" "), key=len) for kw, _, _ in keywords]  # the first of the longest
    grams: dict[str, int] = {}
    pieces: dict[str, int] = {}
    for (kw, _, _), word in zip(keywords, longest, strict=True):
        for g in _grams(kw):
            grams[g] = grams.get(g, 0) + 1
        for g in _grams(word):
            pieces[g] = pieces.get(g, 0) + 1
    by_gram: dict[str, list[tuple[int, str]]] = {}
    always: list[int] = []
    for e, word in enumerate(longest):
        if len(word) < 3:
            always.append(e)
        else:
            by_gram.setdefault(_rarest(word, pieces), []).append((e, word))
    return FaqIndex(
        topics=tuple(t.id for t in catalog.faq),
        entries=tuple(
            (kw, topic, w, _rarest(kw, grams) if len(kw) >= 3 else "") for kw, topic, w in keywords
        ),
        by_gram={g: tuple(v) for g, v in by_gram.items()},
        always=tuple(always),
        ids=frozenset(t.id for t in catalog.faq),
    )


_SPANS: Final = tuple(slice(j, j + 3) for j in range(96))  # a word's three-letter pieces, in turn


def _entries_of(by_gram: dict[str, tuple[tuple[int, str], ...]], word: str) -> tuple[int, ...]:
    """The keywords whose longest word is in ``word`` (a keyword in the text has each of its
    words inside one of the text's words). The pieces are read in C (``map``); a piece met
    twice files its keywords once."""
    n = len(word) - 2
    if n <= 0:
        return ()
    pieces = map(word.__getitem__, _SPANS[:n]) if n <= len(_SPANS) else _grams(word)
    found: list[int] = []
    for filed in filter(None, map(by_gram.get, pieces)):  # most words: none
        found += [e for e, piece in filed if piece in word and e not in found]
    return tuple(found)


def _word_entries(idx: FaqIndex, word: str) -> tuple[int, ...]:
    """:func:`_entries_of`, remembered in the index."""
    if len(idx.word_entries) >= _WORDS_KEPT:
        idx.word_entries.clear()
    out = idx.word_entries[word] = _entries_of(idx.by_gram, word)
    return out


def faq_words(catalog: Catalog) -> Callable[[str], tuple[int, ...]]:
    """A word -> the keywords whose longest word it holds, for a caller that reads the words
    itself (and remembers them) and hands the union to :func:`match_faq`."""
    return partial(_entries_of, faq_index(catalog).by_gram)


def match_faq(catalog: Catalog, text: str, found: set[int] | None = None) -> str | None:
    """The FAQ topic whose keywords the text mentions most (phrases count by length).
    ``found``: the union of :func:`faq_words` over the text's words, when already read."""
    idx = faq_index(catalog)
    entries = idx.entries
    said = [e for e in idx.always if entries[e][0] in text]
    if found is None:
        known = idx.word_entries
        found = set()
        for word in text.split(" "):
            got = known.get(word)
            if got is None:
                got = _word_entries(idx, word)
            if got:
                found.update(got)
    if found:
        said += [e for e in found if entries[e][0] in text]
    if not said:
        return None  # no keyword is said: no topic scores
    # Added in the order the text names them (their anchor's first place), as it is read.
    if len(said) > 1:
        said.sort(key=lambda e: (text.find(entries[e][3]) if entries[e][3] else -1, e))
    scores: dict[int, float] = {}  # only the topics some keyword names
    for e in said:
        _, topic, weight, _ = entries[e]
        scores[topic] = scores.get(topic, 0.0) + weight
    best, best_score = None, 0.0
    for topic in sorted(scores):  # the earlier topic wins a tie
        if scores[topic] > best_score:
            best, best_score = idx.topics[topic], scores[topic]
    return best if best_score >= FAQ_MIN_SCORE else None

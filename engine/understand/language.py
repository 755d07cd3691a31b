"""Which of our languages a question is in: Thai script, Polish letters or words, English
words; plain sizing shorthand ("70b int4") says nothing and leaves it to the platform.
"""

from __future__ import annotations

from typing import Final

from engine.lazyre import lazy
from engine.models import Lang

_THAI: Final = lazy(r"[\u0e00-\u0e7f]")
_PL_CHARS: Final = lazy(r"[ąćęłńóśźż]")
# "zł" after an amount is the currency's sign, written so in English too ("for 2000 zł"): alone
# it is a weak Polish word, like "w" or "na", not a Polish letter that decides.
_ZLOTY_SIGN: Final = lazy(r"(?<![^\W\d_])zł(?![^\W\d_])")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Language from words (a set lookup per word, not a regex tried at every position).
_PL_WORDS: Final = _word_set(
    "ile ilu jaki jaka jakie jakiej czy dla partia partii karta karty karte kartę kartach "
    "miesiecznie miesięcznie miesiac miesiąc pamieci pamięci moge mogę kosztuje jak miesci "
    "mieści wystarczy obliczyc obliczyć pytanie pomoc najlepszy uruchomic uruchomić dwoch dwóch "
    "dwie cennik mam prosze proszę macie w na z zamiast tego teraz samo oraz przy dlaczego "
    "czemu tylko pokazuje cena ceny cenę koszt polecasz polecisz kodu lepsze lepszy lepsza "
    "lepiej kart graficznych graficzna graficzne jest dobra dobry dobre warto nada nadaje"
)
_PL_STEMS: Final = (
    "potrzebuj", "kontekst", "dostrajani", "dostroi", "zmiesci", "zmieści", "uzytkownik",
    "użytkownik", "najtansz", "najtańsz", "dzialaj", "działaj", "dotren", "doucz", "fajnt",
    "trenuj", "trenowa", "wytren", "zrobi",
)  # fmt: skip
_EN_WORDS: Final = _word_set(
    "how what whats which does do can need fit fits run serve cheapest much many the for and "
    "card about please english with max under best biggest longest is will "
    "on at in of my have estimate want get budget month monthly"
)
# also in English shorthand or names
_PL_WEAK: Final = frozenset(["w", "na", "z", "i", "a", "mam", "dla"])
_ENGLISH_SHORTHAND: Final = frozenset(("w/", "w/o", "b/c", "c/w"))
_WORD_EDGES: Final = ".,;:!?()[]{}<>\"'`*|=-/"
# "[a-z]{3,}", opening with the class: see patterns.WORD
_EN_LETTERS: Final = lazy(r"[a-z][a-z]{2,}")
# What each listed word adds to (English, Polish): one dict lookup per word; a word not listed
# is Polish only by a stem, which no word shorter than the shortest stem can start with.
_WEIGHTS: Final = {
    w: (
        int(w in _EN_WORDS),
        (0.5 if w in _PL_WEAK else 1.0) if w in _PL_WORDS or w.startswith(_PL_STEMS) else 0.0,
    )
    for w in _EN_WORDS | _PL_WORDS
}
_SHORTEST_STEM: Final = min(map(len, _PL_STEMS))


# What a word of the lowered text adds, packed in one int so a text's words add up in one
# ``sum``: English words times _EN, Polish half-words times _PL, and _LETTERS when the word
# holds three ASCII letters in a row (``_EN_LETTERS``, which no space is part of).
_LETTERS: Final = 1  # each field stays below the next: words are few
_PL: Final = 1 << 20
_EN: Final = 1 << 40
_WORDS_KEPT: Final = 8192  # distinct words remembered; then it starts over
_WORD_WEIGHT: Final[dict[str, int]] = {}


def _weigh(w: str) -> int:
    letters = _LETTERS if _EN_LETTERS.search(w) else 0
    if w in _ENGLISH_SHORTHAND:
        return letters
    w = w.strip(_WORD_EDGES)
    if (weights := _WEIGHTS.get(w)) is not None:
        return letters + weights[0] * _EN + int(weights[1] * 2) * _PL
    if len(w) >= _SHORTEST_STEM and w.startswith(_PL_STEMS):
        return letters + 2 * _PL  # no stem is as short as a weak word
    return letters


def _weight(words: list[str]) -> int:
    """The packed sum of ``words``' weights, each word weighed once (words repeat)."""
    known = _WORD_WEIGHT
    try:
        return sum(map(known.__getitem__, words))
    except KeyError:
        if len(known) >= _WORDS_KEPT:
            known.clear()
        for w in words:
            if w not in known:
                known[w] = _weigh(w)
        return sum(map(known.__getitem__, words))


def detect_lang(text: str, words: list[str] | None = None) -> Lang | None:
    """Thai script or Polish letters decide; otherwise Polish and English words are counted,
    and a lone short Polish word ("w", "na", "z") does not outvote English ("w/ 64k context"
    is English shorthand, "70b w int4" is Polish). Plain sizing shorthand says nothing.

    ``words``: ``text.lower().split(" ")`` when the caller has them (empty words are
    weightless), for a text whose only whitespace is single spaces."""
    ascii = text.isascii()  # then neither Thai script nor Polish letters
    if not ascii and _THAI.search(text):
        return "th"
    pl = 0.0
    if not ascii and _PL_CHARS.search(low := text.lower()):
        if "zł" not in low:
            return "pl"
        low, signs = _ZLOTY_SIGN.subn(" ", low)
        if _PL_CHARS.search(low):
            return "pl"
        pl = 0.5 * signs
        words = low.split()
    # one pass: each word counted for both languages
    total = _weight(text.lower().split() if words is None else words)
    en = total // _EN
    pl += (total // _PL % (_EN // _PL)) / 2  # halves: 0.5 and 1.0 add up exactly
    if en and not total % _PL:
        en = 0  # English words of two letters alone ("do", "in") are shorthand, not English
    if pl > en or (pl and not en):
        return "pl"
    return "en" if en else None

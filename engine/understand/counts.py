"""Counts of cards: "2x h100", "two cards", "tp=4", a follow-up's "on two of them?", and
whether a card is asked in the plural ("h100s", "how many h100", "h100 กี่ใบ").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from engine.lazyre import lazy

if TYPE_CHECKING:
    from engine.understand.query import Query

COUNT_WORDS: Final = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "eight": 8,
    "pair": 2,
    "a pair of": 2,
    "dwie": 2,
    "dwa": 2,
    "dwóch": 2,
    "dwoch": 2,
    "para": 2,
    "trzy": 3,
    "cztery": 4,
    "czterech": 4,
    "osiem": 8,
    "ośmiu": 8,
    "สอง": 2,
    "สี่": 4,
    "แปด": 8,
}
COUNT: Final = (
    r"(1[0-6](?!\d)|[1-9](?!\d)|" + "|".join(sorted(COUNT_WORDS, key=len, reverse=True)) + r")"
)
CARD_NOUN: Final = r"(?:cards?|gpus?|kart\w*|karty|การ์ด|ใบ)"
GPU_COUNT: Final = lazy(
    r"(?<![\w.])(\d+|"
    + "|".join(sorted(COUNT_WORDS, key=len, reverse=True))
    + r")"
    + r"\s*(?:x\s*)?"
    # Thai writes no spaces between words: "สองใบได้ไหม" ends the noun without a boundary
    + r"(?:(?:cards?|gpus?|kart\w*|karty)(?!\w)|การ์ด|ใบ)"
    r"|(?:การ์ด|gpu)\s*(\d+)\s*(?:ใบ|ตัว)|(?<![\w.])(\d{1,2})\s*ใบ"
)

# A follow-up's count of the card already being discussed, at the end of the message: "on two
# of them?", "and on 2x?", "4 of those", "a na dwóch takich?", "บน 2 ใบ" is GPU_COUNT's.
FOLLOW_COUNT: Final = lazy(
    r"(?:(?<![\w.])(?:on|with|across|using|na|z)\s+" + COUNT + r"(?:\s*x\b)?"
    r"|(?<![\w.])" + COUNT + r"\s*x|(?<![\w.])" + COUNT + r"(?=\s+(?:of\s+(?:them|those|these)"
    r"|takich|tych|such)))(?:\s+(?:of\s+(?:them|those|these)|takich|tych|such(?:\s+cards)?))?"
    r"[\s?!.]*$"
)

_COUNT_TOKENS: Final = frozenset([*COUNT_WORDS, *(str(i) for i in range(1, 17))])
_FOLLOW_PREPS: Final = frozenset(("on", "with", "across", "using", "na", "z"))
_FOLLOW_ENDS: Final = (
    " of them",
    " of those",
    " of these",
    " takich",
    " tych",
    " such",
    " such cards",
)


def ends_with_count(s: str) -> bool:
    """Whether ``s`` can end the way ``FOLLOW_COUNT`` reads (a cheap test of its last words,
    run first: the pattern itself costs a few µs on every question without a card)."""
    words = s.rstrip(" ?!.").rsplit(None, 3)[-3:]  # the last three words
    if not words:
        return False
    if (" " + " ".join(words)).endswith(_FOLLOW_ENDS):
        return True
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    if last == "x":  # "2 x"
        return before in _COUNT_TOKENS
    if last.endswith("x") and last[:-1] in _COUNT_TOKENS:  # "2x"
        return True
    return last in _COUNT_TOKENS and before in _FOLLOW_PREPS  # "on two"


# A card named in the plural or with "several" before it: "h100s", "kilku a100", "several a40".
SEVERAL_WORDS: Final = lazy(r"\b(?:several|multiple|a\s+few|kilk[au]|paru|หลาย)\s")
_PLURAL_BEFORE: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_HOW_MANY: Final = (" many", " ile", " ilu")
_CARD_NOUNS: Final = (" kart", " karty", " gpu", " gpus", " cards", " card")  # "ile kart h100"
_HOW_MANY_AFTER: Final = ("กี่ใบ", "กี่การ์ด", "กี่ตัว")


def says_several(window: str, before: str = "", after: str = "") -> bool:
    r"""Whether ``window`` (the text before a card, and the card) ends in a plural or holds
    "several": ``[a-z0-9]s\s*$`` or ``SEVERAL_WORDS``, the plural read off the end without a
    regex; or the words right ``before`` or ``after`` the card ask how many of it ("how many
    h100", "ile h100", "h100 กี่ใบ"; not "ile za h100", which asks a price)."""
    end = window.rstrip()  # what "\s*$" allows after the "s"
    if len(end) >= 2 and end[-1] == "s" and end[-2] in _PLURAL_BEFORE:
        return True
    asked = before.rstrip()
    if asked.endswith(_CARD_NOUNS):
        asked = asked[: asked.rfind(" ")]
    if asked.endswith(_HOW_MANY) or after.lstrip().startswith(_HOW_MANY_AFTER):
        return True
    if not (
        "several" in window
        or "multiple" in window
        or "few" in window
        or "kilk" in window
        or "paru" in window
        or "หลาย" in window
    ):
        return False
    return SEVERAL_WORDS.search(window) is not None


# "tp=4", "tp4", "tp 8", "tensor parallel 4", "tensor-parallel-size 2": that many cards.
TENSOR_PARALLEL: Final = lazy(
    r"(?<![\w.])(?:tp|tensor[\s_-]*parallel(?:ism)?(?:[\s_-]*size)?)\s*(?:=|:|of|x)?\s*(\d{1,4})\b"
)


def read_counts(q: Query, s: str, has_count: bool) -> str:
    """The card count, said as "2x", "on two of them?" or "tp=4", into ``q``; the rest of the
    text is returned with it cut out. A count said once applies to the first card named."""
    if has_count and (m := GPU_COUNT.search(s)):
        n = next(g for g in m.groups() if g)
        q.count = COUNT_WORDS.get(n) or (int(n) if n.isdigit() else None)
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    elif (
        not q.cards
        and not q.owned
        and ends_with_count(s)
        and (m := FOLLOW_COUNT.search(s, max(0, len(s) - 40)))
    ):
        n = next(g for g in m.groups() if g)  # "on two of them?": the count alone
        q.count = COUNT_WORDS.get(n) or int(n)
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    if ("tp" in s or "tensor" in s) and (m := TENSOR_PARALLEL.search(s)):
        q.count = q.count or int(m.group(1))  # "tp=4": tensor parallel over four cards
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    if q.count is not None and q.cards and q.cards[0].count is None:
        q.cards[0].count = q.count
    return s

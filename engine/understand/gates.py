"""Every hint gate read off the question's words in one pass.

Most slot patterns run only when one of their hint words is in the text. Testing each hint
is a regex scan of the whole text; here each distinct word is looked at once (and remembered:
words repeat) and a text's gates are the union of its words'. A hint literal without a space
is in the text exactly when it is in one of its words; the few with a space are tested on the
whole text. Cutting a slot out only puts a space where it was, so gates read before the cuts
still hold every hint the text has after them (their patterns then decide, as before); the
hints with a space are only read before any cut (see :data:`SPACED_BEFORE_CUTS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from engine.lazyre import lazy
from engine.understand.config_paste import CONFIG_HINTS
from engine.understand.patterns import (
    BATCH_HINTS,
    BUDGET_HINTS,
    CARD_INFO_HINTS,
    CARDS_HINTS,
    CONTEXT_NOUN_HINTS,
    CONTEXT_WORD_HINTS,
    COUNT_HINTS,
    DIGIT,
    HINT_WORDS,
    HOURLY_HINTS,
    LIMIT_BATCH_HINTS,
    LIMIT_CONTEXT_HINTS,
    MONTH_SHORT_HINTS,
    OTHER_MONEY_HINTS,
    SHAPE_HINTS,
    TASK_HINTS,
    TASKS,
    hint,
    may_name_precision,
)

# The words of a group that says how many use it (slots.GROUP: "me and 4 friends")
GROUP_HINTS: Final = ("of us", "friend", "buddies", "mates", "pals", "colleag", "worker", "others", "guys", "znajom", "koleg", "osob", "osób")  # fmt: skip
# GROUP's words ("me and 4 friends", "5 of us"): "us" stands for "of us", so it is one word's
GROUP_WORD_HINTS: Final = hint(*(w.replace("of us", "us") for w in GROUP_HINTS))
# A literal each variants._VARIANT_WORD form holds ("h100 nvl", "a100 pcie", "a100 sxm4")
VARIANT_WORD_HINTS: Final = hint("nvl", "sxm", "pci", "hgx", "dgx", "laptop", "mobile", "notebook")
# A literal each slots.SYSTEM_RAM form holds ("64gb ram", "ddr5", "แรม", "pamięci systemowej";
# "vram" holds one too, and the parser skips it), each LORA_RANK form ("rank 64", "r=8") and
# each BPW form ("4.65bpw", "bits per weight")
RAM_WORD_HINTS: Final = hint("ram", "ddr", "แรม", "system")
RANK_WORD_HINTS: Final = hint("rank", "rang", "rzęd", "rzed", "=")
BPW_WORD_HINTS: Final = hint("bpw", "weight")
# A literal each rig._ONE_MORE form holds ("and another one", "i drugą", "และอีกใบ")
ONE_MORE_HINTS: Final = hint("another", "second", "more", "drug", "jeszcze", "kolejn", "อีก")
# variants.unknown_card's literals without a digit; those with one are read in _word_gates
UNKNOWN_CARD_HINTS: Final = hint("tx", "rx", "arc")
_UNKNOWN_CARD_DIGITS: Final = lazy("l40|a10|a16|a30|t4|100|p40|k80|800|h20|mi2")
# The literals the parser tests the text for before a scan: each group's bit, read off the
# words, saves those tests in the texts that hold none of them (most).
FOLLOW_WORD_HINTS: Final = hint("instead", "zamiast", "same")  # FOLLOWUP_ANYWHERE's gate
MAC_WORD_HINTS: Final = hint("mac", "ultra", "max", "pro")  # catalog_words.MAC's gate
KV_WORD_HINTS: Final = hint("kv", "cache")  # KV_FIRST / KV_AFTER's gate
THINKING_HINTS: Final = hint("thinking")  # pipeline._THINKING_OF's gate

# Each gate's bit. The bits most questions hold come first, so a typical text's bits stay
# below 2**30: a one-digit CPython int, whose & and | take the fast path (a text with a higher
# bit pays the general one on every gate test: about 2 % of a parse).
HAS_LIMIT_CONTEXT: Final = 1 << 0
HAS_LIMIT_BATCH: Final = 1 << 1
HAS_TASK: Final = 1 << 2
HAS_CONTEXT_WORD: Final = 1 << 3
HAS_BATCH: Final = 1 << 4
HAS_CONTEXT_NOUN: Final = 1 << 5
HAS_TASKS: Final = tuple(1 << i for i in range(6, 6 + len(TASKS)))  # each TASKS rule's own hint
HAS_MONTH_SHORT: Final = 1 << (6 + len(TASKS))  # "mo" (a BUDGET form ending a word: "$50/mo")
HAS_GROUP: Final = HAS_MONTH_SHORT << 1  # a GROUP_HINTS word may be there
HAS_UNKNOWN_CARD: Final = HAS_MONTH_SHORT << 2  # a literal of variants.unknown_card's gate
HAS_DIGIT: Final = HAS_MONTH_SHORT << 3  # the text holds a digit (``DIGIT.search``)
HAS_PRECISION_LIKE: Final = HAS_DIGIT << 1  # a word passes ``may_name_precision`` ("4bit", "q9")
HAS_PRECISION_WORD: Final = HAS_DIGIT << 2  # (a catalog's table) a word holds a precision's piece
HAS_FOUR_DIGITS: Final = HAS_DIGIT << 3  # four digits in a row: what every BIG_NUMBER match holds
HAS_CARD_WORD: Final = HAS_DIGIT << 4  # (a catalog's table) a word holds a piece of a card's name
# What :func:`engine.understand.compare.split` needs to find alternatives in a text whose only
# whitespace is single spaces: a word that opens with a separator's word ("vs", "or", "czy"),
# and two "<digit> k/m" endings (a "k" or "m" that ends its word or is followed by a character
# that is no \w, right after a digit or opening its word): HAS_KM_ENDS when two may be there.
HAS_SEPARATOR: Final = HAS_DIGIT << 5
HAS_KM_END: Final = HAS_DIGIT << 6  # a word holds one
# A word with a "-" or a digit right before an "e" ("-5", "1e30"): what slots.said_oddly
# reads holds one of these, or four digits in a row (HAS_FOUR_DIGITS)
HAS_ODD_NUMBER: Final = HAS_DIGIT << 7
# The rarer gates
HAS_COUNT: Final = HAS_DIGIT << 8
HAS_CARDS: Final = HAS_DIGIT << 9
HAS_CARD_INFO: Final = HAS_DIGIT << 10  # a CARD_INFO word ("specs", "price") may be there
HAS_MAC_WORD: Final = HAS_DIGIT << 11  # a MAC_WORD_HINTS literal is there
# Two words pass ``may_name_precision`` / hold a precision's piece (set by gates()): without
# it, once the one word that does is cut whole, no other can be found.
_TWICE_SHIFT: Final = 11
HAS_PRECISION_LIKES: Final = HAS_PRECISION_LIKE << _TWICE_SHIFT
HAS_PRECISION_WORDS: Final = HAS_PRECISION_WORD << _TWICE_SHIFT
HAS_BUDGET: Final = HAS_DIGIT << 14
HAS_THINKING: Final = HAS_DIGIT << 15  # "thinking" is there
HAS_KV_WORD: Final = HAS_DIGIT << 16  # a KV_WORD_HINTS literal is there
HAS_KM_ENDS: Final = HAS_DIGIT << 17  # a word holds two, or two words hold one (set by gates())
HAS_SHAPE: Final = HAS_DIGIT << 18
HAS_HOURLY: Final = HAS_DIGIT << 19
HAS_FOLLOW_WORD: Final = HAS_DIGIT << 20  # a FOLLOW_WORD_HINTS literal is there
HAS_CONFIG: Final = HAS_DIGIT << 21
HAS_VARIANT_WORD: Final = HAS_DIGIT << 22  # a VARIANT_WORD_HINTS literal is there
HAS_OTHER_MONEY: Final = HAS_DIGIT << 23  # a currency the prices are not in ("zł", "บาท", "€")
HAS_ONE_MORE: Final = HAS_DIGIT << 24  # an ONE_MORE_HINTS literal is there
HAS_RAM_WORD: Final = HAS_DIGIT << 25  # a RAM_WORD_HINTS literal is there
HAS_RANK_WORD: Final = HAS_DIGIT << 26  # a RANK_WORD_HINTS literal is there
HAS_BPW_WORD: Final = HAS_DIGIT << 27  # a BPW_WORD_HINTS literal is there
assert HAS_PRECISION_LIKES == HAS_MAC_WORD << 1 and HAS_PRECISION_WORDS == HAS_BUDGET >> 1

# Each hint and its bit
_HINTS: Final[tuple[tuple[re.Pattern[str], int], ...]] = (
    (LIMIT_CONTEXT_HINTS, HAS_LIMIT_CONTEXT),
    (LIMIT_BATCH_HINTS, HAS_LIMIT_BATCH),
    (TASK_HINTS, HAS_TASK),
    (CONTEXT_WORD_HINTS, HAS_CONTEXT_WORD),
    (BATCH_HINTS, HAS_BATCH),
    (CONTEXT_NOUN_HINTS, HAS_CONTEXT_NOUN),
    *((h, bit) for (h, _, _, _), bit in zip(TASKS, HAS_TASKS, strict=True)),
    (MONTH_SHORT_HINTS, HAS_MONTH_SHORT),
    (GROUP_WORD_HINTS, HAS_GROUP),
    (UNKNOWN_CARD_HINTS, HAS_UNKNOWN_CARD),
    (COUNT_HINTS, HAS_COUNT),
    (CARDS_HINTS, HAS_CARDS),
    (CARD_INFO_HINTS, HAS_CARD_INFO),
    (MAC_WORD_HINTS, HAS_MAC_WORD),
    (BUDGET_HINTS, HAS_BUDGET),
    (THINKING_HINTS, HAS_THINKING),
    (KV_WORD_HINTS, HAS_KV_WORD),
    (SHAPE_HINTS, HAS_SHAPE),
    (HOURLY_HINTS, HAS_HOURLY),
    (FOLLOW_WORD_HINTS, HAS_FOLLOW_WORD),
    (CONFIG_HINTS, HAS_CONFIG),
    (VARIANT_WORD_HINTS, HAS_VARIANT_WORD),
    (OTHER_MONEY_HINTS, HAS_OTHER_MONEY),
    (ONE_MORE_HINTS, HAS_ONE_MORE),
    (RAM_WORD_HINTS, HAS_RAM_WORD),
    (RANK_WORD_HINTS, HAS_RANK_WORD),
    (BPW_WORD_HINTS, HAS_BPW_WORD),
)
_DERIVED: Final = (HAS_DIGIT, HAS_PRECISION_LIKE, HAS_PRECISION_WORD, HAS_FOUR_DIGITS, HAS_CARD_WORD, HAS_SEPARATOR, HAS_KM_END, HAS_ODD_NUMBER, HAS_PRECISION_LIKES, HAS_PRECISION_WORDS, HAS_KM_ENDS)  # fmt: skip
_ALL_BITS: Final = [bit for _, bit in _HINTS] + list(_DERIVED)
assert len(set(_ALL_BITS)) == len(_ALL_BITS) and all(b & (b - 1) == 0 for b in _ALL_BITS)
_SEPARATOR_OPENS: Final = ("vs", "versus", "or", "czy", "albo", "lub", "kontra")
# The hints that have a literal with a space: read before any slot is cut from the text.
SPACED_BEFORE_CUTS: Final = (LIMIT_CONTEXT_HINTS, LIMIT_BATCH_HINTS)

_PLAIN: Final[tuple[tuple[str, int], ...]] = tuple(
    (w, bit) for h, bit in _HINTS for w in HINT_WORDS[id(h)] if " " not in w
)
_SPACED: Final[tuple[tuple[str, int], ...]] = tuple(
    (w, bit) for h, bit in _HINTS for w in HINT_WORDS[id(h)] if " " in w
)
assert {b for _, b in _SPACED} <= {bit for h, bit in _HINTS if h in SPACED_BEFORE_CUTS}
_SPACED_HEADS: Final = tuple(sorted({w[: w.index(" ") + 1] for w, _ in _SPACED}))  # "how ", "jak "
_FOUR_DIGITS: Final = lazy(r"\d\d{3}")  # "\d{4}", opening with the class: see patterns.WORD
_DIGIT_E: Final = lazy(r"\de\+?\d")
_WORDS_KEPT: Final = 8192  # distinct words remembered; then it starts over
_WORD_GATES: Final[dict[str, int]] = {}


def _prefixes(plain: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """Every start of a literal -> the bits of the literals it is (0: only a start of some)."""
    out: dict[str, int] = {}
    for w, _ in plain:
        for j in range(1, len(w)):
            out.setdefault(w[:j], 0)
    for w, bit in plain:
        out[w] = out.get(w, 0) | bit
    return out


# A literal is in a word exactly when it starts at one of the word's places: from each place
# the word is read on while what was read is still the start of some literal (a walk down the
# literals' prefix tree), so a new word costs a few dict reads per letter, not a test per
# literal. No literal holds a digit, so a word of digits alone holds none.
_PREFIX: Final[dict[str, int]] = _prefixes(_PLAIN)
assert not any(c.isdigit() for w, _ in _PLAIN for c in w)


def _km_ends(word: str) -> int:
    """How many "<digit> k/m" endings ``word`` may hold (up to two): see :data:`HAS_KM_END`."""
    found = 0
    for i, ch in enumerate(word):
        if (
            (ch == "k" or ch == "m")
            and (i == 0 or word[i - 1].isdecimal())  # regex \d
            and (i + 1 == len(word) or not (word[i + 1].isalnum() or word[i + 1] == "_"))
        ):
            found += 1
    return found


def _word_gates(word: str) -> int:
    flags = HAS_DIGIT if DIGIT.search(word) else 0
    if word.startswith(_SEPARATOR_OPENS):
        flags |= HAS_SEPARATOR
    if "k" in word or "m" in word:
        ends = _km_ends(word)
        flags |= HAS_KM_END | HAS_KM_ENDS if ends > 1 else HAS_KM_END if ends else 0
    if flags & HAS_DIGIT and _UNKNOWN_CARD_DIGITS.search(word):
        flags |= HAS_UNKNOWN_CARD
    if flags and _FOUR_DIGITS.search(word):
        flags |= HAS_FOUR_DIGITS
    if "-" in word or (flags & HAS_DIGIT and "e" in word and _DIGIT_E.search(word)):
        flags |= HAS_ODD_NUMBER
    if may_name_precision(word):  # each of its forms is inside one word
        flags |= HAS_PRECISION_LIKE
    if not word.isdigit():
        get = _PREFIX.get
        end = len(word) + 1
        for i in range(end - 1):
            j = i + 1
            while (bits := get(word[i:j])) is not None:
                flags |= bits
                j += 1
                if j == end:
                    break
    if len(_WORD_GATES) >= _WORDS_KEPT:
        _WORD_GATES.clear()
    _WORD_GATES[word] = flags
    return flags


def _pieces(spellings: Iterable[str]) -> tuple[str, ...]:
    """Each spelling's longest space-free piece, leaving out those that hold another."""
    longest = {max(w.split(" "), key=len) for w in spellings}
    assert all(longest), "a spelling is more than spaces"
    return tuple(sorted(p for p in longest if not any(q != p and q in p for q in longest)))


def _no_entries(word: str) -> tuple[int, ...]:
    return ()


class WordTable:
    """One catalog's word bits on top of the fixed ones: :data:`HAS_PRECISION_WORD` when a
    word holds the longest space-free piece of one of its precision spellings, and
    :data:`HAS_CARD_WORD` of one of its card names. A spelling's pieces are literal (its
    spaces are what its scan lets vary), so that scan can only match a text that has one.
    Each word also keeps what ``entries`` gives for it (the FAQ keywords it may be part of),
    so one pass over the words reads both."""

    __slots__ = ("card_rx", "cards", "entries", "known", "piece_rx", "pieces")

    def __init__(
        self,
        spellings: Iterable[str],
        cards: Iterable[str] = (),
        entries: Callable[[str], tuple[int, ...]] = _no_entries,
    ) -> None:
        self.pieces = _pieces(spellings)
        self.cards = _pieces(cards)
        # each as one alternation: a new word is one search, not a test per piece
        self.piece_rx = lazy("|".join(re.escape(p) for p in self.pieces) or "(?!)")
        self.card_rx = lazy("|".join(re.escape(p) for p in self.cards) or "(?!)")
        self.entries = entries
        self.known: dict[str, tuple[int, tuple[int, ...]]] = {}

    def fill(self, word: str) -> tuple[int, tuple[int, ...]]:
        flags = _WORD_GATES.get(word)
        if flags is None:
            flags = _word_gates(word)
        if self.piece_rx.search(word):
            flags |= HAS_PRECISION_WORD
        if self.card_rx.search(word):
            flags |= HAS_CARD_WORD
        if len(self.known) >= _WORDS_KEPT:
            self.known.clear()
        got = self.known[word] = flags, self.entries(word)
        return got


def gates(
    s: str,
    table: WordTable | None = None,
    entries: set[int] | None = None,
    words: list[str] | None = None,
) -> int:
    """The bits of every hint (and :data:`HAS_DIGIT`, :data:`HAS_PRECISION_LIKE`) that ``s``
    holds; with a catalog's ``table``, its bits too, and its words' entries added to
    ``entries`` when given. ``words``: ``s.split(" ")``, when the caller has it."""
    flags = 0
    if words is None:
        words = s.split(" ")
    if table is None:
        known = _WORD_GATES
        twice = 0  # the bits of a word that an earlier word had too
        for word in words:
            got = known.get(word)
            bits = _word_gates(word) if got is None else got
            twice |= flags & bits
            flags |= bits
    else:
        mine, fill = table.known, table.fill
        twice = 0  # the bits of a word that an earlier word had too
        for word in words:
            bits, found = mine.get(word) or fill(word)
            twice |= flags & bits
            flags |= bits
            if found and entries is not None:
                entries.update(found)
    if twice & HAS_KM_END:
        flags |= HAS_KM_ENDS
    flags |= (twice & (HAS_PRECISION_LIKE | HAS_PRECISION_WORD)) << _TWICE_SHIFT  # ..._LIKES
    for head in _SPACED_HEADS:  # each spaced hint opens with one: most texts have none
        if head in s:
            for w, bit in _SPACED:
                if not flags & bit and w in s:
                    flags |= bit
            break
    return flags

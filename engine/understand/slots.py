"""Number slots and their bounds: context, batch, VRAM, size, money; each cut from the text."""

from __future__ import annotations

import math
import re
from typing import Final

from engine.lazyre import lazy
from engine.limits import (
    MAX_BATCH,
    MAX_BUDGET_USD,
    MAX_CARDS,
    MAX_CONTEXT_TOKENS,
    MAX_SIZE_B,
    MAX_TOKENS,
    MAX_VRAM_GB,
    MIN_SIZE_B,
    tokens,
)
from engine.models import Precision
from engine.understand.catalog_words import MAC, CatalogWords, names_number, unglue_size
from engine.understand.gates import (
    GROUP_HINTS,
    HAS_BATCH,
    HAS_BPW_WORD,
    HAS_CONTEXT_NOUN,
    HAS_CONTEXT_WORD,
    HAS_FOUR_DIGITS,
    HAS_GROUP,
    HAS_ODD_NUMBER,
    HAS_RAM_WORD,
    HAS_RANK_WORD,
)
from engine.understand.patterns import (
    BATCH,
    BATCH_IN_WORDS,
    BIG_NUMBER,
    CONTEXT_BEFORE,
    CONTEXT_KM,
    CONTEXT_TOKENS,
    CONTEXT_WORD,
    SHAPE_WORDS,
    SIZE,
    USER_NUMBERS,
    VRAM_GB,
    shape_field,
)
from engine.understand.query import Query
from engine.understand.variants import variant_amount

# A context said below zero ("-5k context", "ctx -8k"): the other context forms skip a "-"
_CTX_UNIT: Final = r"\s*(k\b|m\b|tys\b\.?|thousand\b|mln\b|million\b|พัน)?"
NEGATIVE_CONTEXT: Final = lazy(
    r"(?<![\w.])-(\d+(?:[.,]\d+)?)" + _CTX_UNIT + r"\s*(?:tokens?\s+(?:of\s+)?)?"
    r"(?:context|ctx|kontekst\w*|บริบท)|(?:context|ctx|kontekst\w*|บริบท)\s*(?:of|=|:)?\s*-"
    r"(\d+(?:[.,]\d+)?)" + _CTX_UNIT + r"(?![\w.])"
    r"|(?<![\w.])-(\d+(?:[.,]\d+)?)\s*(k|m)\b(?!\s*(?:usd|\$|b\b|gb\b|/))"  # "70b -5k"
)
# NEGATIVE_CONTEXT's last form, alone: the only one a text without a context word can hold
# (one literal "-" opens it: the regex engine skips to each "-" instead of trying every place).
NEGATIVE_KM: Final = lazy(r"-(?<![\w.]-)(\d+(?:[.,]\d+)?)\s*(k|m)\b(?!\s*(?:usd|\$|b\b|gb\b|/))")
GIB_GB: Final = 2**30 / 1e9  # "24 GiB" is 25.77 GB
# A group that says how many use it: "me and 4 friends" (five), "5 of us", "ja i 3 znajomych"
GROUP: Final = lazy(
    r"\b(?:me|i|ja)\s+(?:and|&|\+|plus|i|oraz)\s+(\d{1,4})\s+(?:other\s+)?(?:friends?|buddies"
    r"|mates|pals|colleagues|co-?workers|teammates|others|guys|znajomych|koleg\w*|os[oó]b\w*)\b"
    r"|\b(\d{1,4})\s+of\s+us\b"
)


# System RAM said beside the GPU ("3090 and 64gb ram", "64 GB DDR5", "ram: 32gb", "64gb ramu",
# "แรม 64gb"): memory the card cannot use, never a VRAM amount. "gpu ram 24gb", "24gb gddr6x"
# and a Mac's unified memory stay what they were.
_RAM_AMOUNT: Final = r"(\d(?<![\w.]\d)\d*(?:[.,]\d+)?)\s*(gb|gib|g)\b"
SYSTEM_RAM: Final = lazy(
    _RAM_AMOUNT + r"\s*(?:of\s+)?(?:(?:system|sys|cpu)\s+)?(?:ddr\d\w*\s+)?"
    r"(?:ram\w*|แรม(?!\w)|ddr\d\w*|system\s+memory|pami[eę]ci\s+(?:ram\w*|systemowej))"
    r"|(?<![\w.])(?<!gpu )(?<!video )(?<!graphics )(?:(?:system|sys|cpu)\s+)?(?:ram|ramu|แรม|ddr\d\w*)"
    r"\s*[:=]?\s*" + _RAM_AMOUNT
)


# Bits per weight said as such (EXL2's "4.65bpw", "6 bpw", "5.0 bits per weight")
BPW: Final = lazy(r"(?<![\w.])(\d{1,2}(?:[.,]\d+)?)\s*(?:bpw|bits?\s+per\s+weight)\b")


def read_bpw(q: Query, s: str, precisions: tuple[Precision, ...]) -> str:
    """Cut "4.65bpw" from ``s``; sized as the lightest llama.cpp type of at least that many
    bits, so memory is never under-counted. A precision said by name as well wins; the
    answer says which type stood in. Rare: the list is made when it is said."""
    if (m := BPW.search(s)) is None:
        return s
    bits = num(m.group(1))
    gguf = sorted((p.bits, p.name) for p in precisions if p.gguf)
    pick = next((name for b, name in gguf if b >= bits), None)
    if bits > 0 and pick is not None:
        q.bpw = (bits, pick)
    s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    return s.replace(" exl2 ", " ")  # the format's name goes with it, not into the model's


# A LoRA rank said ("rank 64", "r=64", "lora rank-128", "ranga 32")
LORA_RANK: Final = lazy(
    r"(?<![\w.])(?:rank|ranga|rang[aąę]|rz[eę]du)\s*[=:-]?\s*(\d{1,4})(?![\w.])|(?<![\w.])r\s*=\s*(\d{1,4})(?![\w.])"
)


def read_lora_rank(q: Query, s: str) -> str:
    """Cut the LoRA rank said from ``s`` (not a size, a count or a context)."""
    if (m := LORA_RANK.search(s)) is None:
        return s
    rank = int(m.group(1) or m.group(2))
    if rank > 0:
        q.lora_rank = rank
    return s[: m.start()] + " " + s[m.end() :]  # cut(s, m)


ASIDE_BITS: Final = HAS_RAM_WORD | HAS_RANK_WORD | HAS_BPW_WORD


def read_asides(q: Query, s: str, flags: int, precisions: tuple[Precision, ...]) -> str:
    """Numbers said beside the sizing, each cut before the cards and precisions read theirs:
    system RAM (not a card's amount, nor a VRAM), a LoRA rank (not a count or a size) and
    bits per weight (a precision stands in)."""
    if (  # a RAM word that is not "vram" alone (each SYSTEM_RAM form holds one of these)
        flags & HAS_RAM_WORD
        and (" ram" in s or "bram" in s or "ddr" in s or "แรม" in s or "system" in s)
        and not MAC.search(s)  # a Mac's RAM is the GPU's memory
    ):
        s = read_system_ram(q, s)
    if flags & HAS_RANK_WORD:
        s = read_lora_rank(q, s)
    if flags & HAS_BPW_WORD:
        s = read_bpw(q, s, precisions)
    return s


def read_system_ram(q: Query, s: str) -> str:
    """Cut the system RAM said from ``s`` (its gates: :func:`read_asides`)."""
    if m := SYSTEM_RAM.search(s):
        amount = num(m.group(1) or m.group(3))
        unit = m.group(2) or m.group(4)
        if 0 < amount <= MAX_VRAM_GB:
            q.system_ram_gb = amount * GIB_GB if unit == "gib" else amount
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    return s


def num(text: str) -> float:
    return float(text.replace(",", ".").replace(" ", ""))


def int_grouped(text: str) -> int:
    return int(text.replace(" ", "").replace(",", ""))


def money(value: str, thousands: str | None) -> float:
    amount = float(value.replace(",", "").replace(" ", "").replace("\u00a0", ""))
    return amount * 1000 if thousands else amount


def cut(text: str, m: re.Match[str]) -> str:
    return text[: m.start()] + " " + text[m.end() :]


def read_numbers(  # noqa: C901 (one list of gated slots)
    q: Query, s: str, words: CatalogWords, flags: int
) -> tuple[str, str]:
    """Context, batch, VRAM, size: the slots that are numbers. Returns the rest of the text
    and the word right before the size ("zephyr" in "zephyr 7b"); ``flags``: its gates."""
    if "." in s:  # "llama3.170b": Llama 3.1 at 70B, not a 3.17B model
        s = unglue_size(words, s)
    context_word = bool(flags & HAS_CONTEXT_WORD)  # cuts below only remove words
    negative = NEGATIVE_CONTEXT if flags & HAS_CONTEXT_NOUN else NEGATIVE_KM  # its words' gate
    if "-" in s and (m := negative.search(s)):  # "-5k context"
        said = (
            "-" + next(g for g in m.groups()[::2] if g) + "".join(g for g in m.groups()[1::2] if g)
        )
        q.invalid = ("context_tokens", said)
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m): not a default 8k, not a size
    if flags & HAS_CONTEXT_NOUN and (m := CONTEXT_BEFORE.search(s)):
        # "16k context 4 users": the number before the word, so "4" stays the users
        q.context_tokens = tokens(num(m.group(1).replace(",", "").replace(" ", "")), m.group(2))
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    elif (context_word and (m := CONTEXT_WORD.search(s))) or (
        ("tok" in s or "โทเคน" in s) and (m := CONTEXT_TOKENS.search(s))
    ):
        q.context_tokens = tokens(int_grouped(m.group(1)), m.group(2))
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    elif ("k" in s or "m" in s) and (m := _free(CONTEXT_KM, s, words)):  # its unit
        q.context_tokens = tokens(num(m.group(1)), m.group(2))
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)

    if q.context_tokens is not None and q.context_tokens > MAX_CONTEXT_TOKENS and m:
        q.invalid = ("context_large", m.group(1) + (m.group(2) or ""))  # said back as typed

    if flags & HAS_BATCH and (m := BATCH.search(s)):
        after_word, rest, thai_rest, after_thai = m.groups()
        if after_word is not None or after_thai is not None:
            q.batch = int(after_word or after_thai)
        else:  # the number opens the match: its first digit, then the rest of it
            q.batch = int(s[m.start()] + (rest if rest is not None else thai_rest))
            if s[m.start() - 1 : m.start()] == "-" and s[m.start() - 2 : m.start() - 1] in " ":
                q.invalid = q.invalid or ("batch", f"-{q.batch}")  # "-5 users"
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    elif flags & HAS_BATCH and (m := BATCH_IN_WORDS.search(s)):  # "two users"
        q.batch = USER_NUMBERS[m.group(1) or m.group(2)]
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    # "me and 4 friends": the bit first (a GROUP_HINTS word may be there), then the words
    elif flags & HAS_GROUP and any(w in s for w in GROUP_HINTS) and (m := GROUP.search(s)):
        q.batch = int(m.group(1)) + 1 if m.group(1) else int(m.group(2))
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)

    ram = q.system_ram_gb  # "a 3090 and 24gb ram": the card's own memory, said loosely
    if ram is not None and any(abs(words.card_vram[c.name] - ram) <= 1 for c in q.cards):
        q.system_ram_gb = None
    if "g" in s and (m := VRAM_GB.search(s)):  # every form ends in "gb", "gib" or "g"
        amount = num(m.group(1))
        q.vram_gb = amount * GIB_GB if m.group(2) == "gib" else amount  # GB is 10^9 bytes
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
        # "a 4090 24gb" (or "24 gib") restates the card's memory; not a second thing to check.
        if any(abs(words.card_vram[c.name] - amount) <= 1 for c in (*q.cards, *q.owned)):
            q.vram_gb = None
        elif 0 < amount <= MAX_VRAM_GB:  # "h100 nvl 94gb", "a100 40gb": a variant we do not
            variant_amount(q, amount)  # know, sized as that amount (GiB converted)

    size_neighbor = ""
    if m := SIZE.search(s):
        q.size_b = size_from(m.group(1), m.group(2))
        if s[m.start() - 1 : m.start()] == "-" and s[m.start() - 2 : m.start() - 1] in " ":
            q.size_b = -q.size_b  # "-5b": refused as a size, like "0b" ("llama-3-8b" is not)
        before = s[: m.start()].rstrip()
        size_neighbor = before[before.rfind(" ") + 1 :]
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)

    big = flags & HAS_FOUR_DIGITS  # cuts only put spaces in: no new run of digits
    if q.context_tokens is None and big and (m := _free(BIG_NUMBER, s, words)):
        if not _a_year(s, m):  # "worth buying in 2026": a year, neither context nor a name
            q.context_tokens = int(m.group(1))
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)
    return s, size_neighbor


# the words a year follows ("in 2026", "w 2026", "ปี 2026"), and the years read as such
_YEAR_BEFORE: Final = ("in", "w", "of", "by", "since", "until", "roku", "rok", "year", "ปี", "ในปี")
_YEARS: Final = range(2015, 2040)


def _a_year(s: str, m: re.Match[str]) -> bool:
    """Whether a bare four-digit number is a year said as one ("in 2026"), not a context."""
    if int(m.group(1)) not in _YEARS:
        return False
    before = s[: m.start()].rstrip()
    return before[before.rfind(" ") + 1 :] in _YEAR_BEFORE


def _free(rx: re.Pattern[str], s: str, words: CatalogWords) -> re.Match[str] | None:
    """The first match that is not part of a model name ("instruct 2507", "gemma 3 270m")."""
    first = rx.search(s)  # most texts: no match, or a first one that is no name's number
    if first is None or not names_number(words, first.group(0), s, first.start()):
        return first
    for n, m in enumerate(rx.finditer(s, first.end()), 1):
        if n >= 4 or not names_number(words, m.group(0), s, m.start()):
            return m
    return None


def read_shape(q: Query, s: str) -> str:
    """ "70b, 80 layers, 8 kv heads": the shape said inline, cut from the text (called only
    when the HAS_SHAPE gate is set)."""
    for m in list(SHAPE_WORDS.finditer(s))[:8]:
        value, word = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if int(value) > 0:
            q.shape.setdefault(shape_field(word), int(value))
    return SHAPE_WORDS.sub(" ", s) if q.shape else s


def bound(q: Query, flags: int = HAS_ODD_NUMBER) -> None:  # noqa: C901 (one list of checks)
    """Numbers nobody means ("0b", a 300-digit VRAM) must not reach the arithmetic. A context,
    batch or card count that was said but cannot be used (0) is kept as ``invalid``: it is
    answered as such, never as "you did not say". ``flags``: the text's gates."""
    if q.invalid is None:  # the context first, then the batch
        if q.context_tokens is not None and q.context_tokens < 1:
            q.invalid = ("context_tokens", str(q.context_tokens))
        elif q.batch is not None and q.batch < 1:
            q.invalid = ("batch", str(q.batch))
        elif q.cards or q.owned or q.count is not None:  # else no count was said: none is bad
            q.invalid = _bad_count(q)
        q.invalid = q.invalid or said_oddly(q.text.lower(), flags)
    if q.invalid and q.task in ("lora", "qlora", "full") and q.invalid[0].startswith("context"):
        q.invalid = ("sequence" + q.invalid[0][7:].replace("_tokens", ""), q.invalid[1])
    if q.size_b is not None and not MIN_SIZE_B <= q.size_b <= MAX_SIZE_B:
        q.bad_size_b = 0.0 if math.isnan(q.size_b) else q.size_b
        q.size_b = None
    if q.vram_gb is not None:
        q.vram_gb = min(q.vram_gb, MAX_VRAM_GB) if q.vram_gb > 0 else None
    if q.budget_usd is not None:
        q.budget_usd = min(q.budget_usd, MAX_BUDGET_USD)
    if q.context_tokens is not None:
        q.context_tokens = min(q.context_tokens, MAX_TOKENS)
    if q.batch is not None:
        q.batch = min(q.batch, MAX_TOKENS)
    if q.count is not None:
        q.count = min(q.count, MAX_CARDS) or None
    for c in q.cards:
        if c.count is not None:
            c.count = min(c.count, MAX_CARDS) or None


# A number said below zero, in e-notation or with seven digits or more: the slot readers skip a
# "-" and stop at an "e", so these are read here, for the slot the words around them name.
# ("-\s?\$?\s?\d|\de\+?\d|\d{7}", opening with one class so the regex engine skips to a "-" or
# a digit instead of trying all three forms at every place.)
_ODD_HINT: Final = lazy(r"[\d-](?:(?<=-)\s?\$?\s?\d|(?<=\d)(?:e\+?\d|\d{6}))")
_NUM: Final = r"(-\s?)?(\d[\d,]*(?:\.\d+)?(?:e\+?\d+)?)"
_SAID_ODDLY: Final = (
    (  # "-2x 4090", "1e30x h100", "-3 cards"
        "count",
        MAX_CARDS,
        lazy(
            r"(?<![\w.-])"
            + _NUM
            + r"\s*(?:(?:x|×|\*)(?=\s*(?:rtx\s*|nvidia\s*)?(?:[a-z]{1,4}\s?\d|\d{2}))"
            r"|(?:cards?|gpus?|kart\w*|การ์ด|ใบ)(?!\w))"
        ),
    ),
    (  # "-5 users", "1e30 users", "batch -3"
        "batch",
        MAX_BATCH,
        lazy(
            r"(?<![\w.-])" + _NUM + r"\s*(?:concurrent\s+|simultaneous\s+|równoczesn\w*\s+)?"
            r"(?:users?|people|requests?|sessions?|u[żz]ytkownik\w*|os[oó]b\w*|คน|ผู้ใช้)"
            r"|\b(?:batch(?:[\s_-]*size)?|bs|partii|แบตช์)\s*(?:of|=|:)?\s*" + _NUM
        ),
    ),
    (  # "-$300", "$-300", "budget -300 dollars", "$1e30/month"
        "budget",
        MAX_BUDGET_USD,
        lazy(
            r"(?<![\w.])(-\s?)?\$\s*(-\s?)?(\d[\d,]*(?:\.\d+)?(?:e\+?\d+)?)"
            r"|(?<![\w.-])" + _NUM + r"\s*(?:\$|usd\b|dollars?\b|dolar\w*|bucks\b|ดอลลาร์)"
            r"|\b(?:budget|bud[żz]et\w*|งบ(?:ประมาณ)?)\s*(?:of|is|=|:|to|wynosi)?\s*" + _NUM
        ),
    ),
)


# A literal each form of a _SAID_ODDLY pattern holds, in its order
_ODD_KEYS: Final = (
    ("x", "×", "*", "card", "gpu", "kart", "การ์ด", "ใบ"),
    ("user", "people", "request", "session", "ytkownik", "osob", "osób", "คน", "ผู้ใช้",
     "batch", "bs", "partii", "แบตช์"),
    ("$", "usd", "dollar", "dolar", "bucks", "ดอลลาร์", "budget", "budżet", "budzet", "งบ"),
)  # fmt: skip


def said_oddly(text: str, flags: int = HAS_ODD_NUMBER) -> tuple[str, str] | None:
    """A card count, user count or budget said below zero or past what is sized ("-2x 4090",
    "1e30 users", "budget -300 dollars"): the slot and the number as typed, said back like
    "-5 users" is, never read as its digits alone. ``flags``: the text's gates (each odd form
    is in a word with a "-", a digit before an "e", or four digits in a row)."""
    if not flags & (HAS_ODD_NUMBER | HAS_FOUR_DIGITS) or _ODD_HINT.search(text) is None:
        return None
    for (slot, most, rx), keys in zip(_SAID_ODDLY, _ODD_KEYS, strict=True):
        for key in keys:  # a word each of its forms holds, looked for before its scan
            if key in text:
                break
        else:
            continue
        for m in rx.finditer(text):
            sign, digits = "", ""
            for g in m.groups():  # the signs, and the first number
                if g:
                    if g[0] == "-":
                        sign += g
                    elif not digits:
                        digits = g
            value = float(digits.replace(",", ""))
            if sign and value > 0:
                return slot, "-" + digits
            if value > most:
                return slot + "_large", digits
    return None


def _bad_count(q: Query) -> tuple[str, str] | None:
    """ "0x h100", "99999x a100": a card count said that no set can be (the cards' first,
    then the count said alone)."""
    bad = None
    for c in (*q.cards, *q.owned):
        if (n := c.count) is not None and not 1 <= n <= MAX_CARDS:
            bad = n
            break
    else:
        if (n := q.count) is not None and not 1 <= n <= MAX_CARDS:
            bad = n
    return None if bad is None else ("count" if bad < 1 else "count_large", str(bad))


def size_from(value: str, unit: str) -> float:
    n = num(value)
    return n * 1000 if unit.lower() in ("t", "trillion") else n

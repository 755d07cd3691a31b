"""A card named with an amount of memory: its own ("4090 24gb") or a variant's the catalog
does not know ("h100 nvl 94gb", "a100 40gb"). A variant is sized as that amount, so the
answer has one verdict, not the known card's and the amount's side by side.
"""

from __future__ import annotations

from typing import Final

from engine.lazyre import lazy
from engine.understand.query import Query

_AMOUNT_AFTER: Final = lazy(
    r"\s*(?:(?:[a-z]{1,5}|laptop|mobile|notebook)\s+){0,2}?(\d+(?:[.,]\d+)?)\s*(?:gb|gib|g)\b"
)


def amount_after(s: str, end: int) -> float | None:
    """The amount said right after a card's name, up to two short words on ("h100 nvl 94gb",
    "a100 40gb", "4060 ti 16gb"): the card's own memory, or a variant's."""
    if s.find("g", end) < 0:  # every form ends in "gb", "gib" or "g"
        return None
    m = _AMOUNT_AFTER.match(s, end)
    return float(m.group(1).replace(",", ".")) if m is not None else None


def variant_amount(q: Query, said: float) -> None:
    """A single card named with an amount it does not have: the catalog does not know that
    variant, so the amount is the card (one verdict, not the card's and the amount's)."""
    named = [c for c in (*q.cards, *q.owned) if c.said_gb == said]
    if len(named) == 1 and len(q.cards) + len(q.owned) == 1 and named[0].count is None:
        said_name, q.variant_word = (q.variant_word or (named[0].name, ""))[0], None
        q.variant = (said_name, q.vram_gb or said)  # "h100 nvl 94gb": the H100 NVL, 94 GB
        q.cards, q.owned = [], []


# A variant word right after a card's name that no alias of it holds ("h100 nvl", "a100 pcie",
# "a100 sxm4", "4070 laptop": a laptop chip often has less memory than the desktop card of
# its name): the card is sized as the catalog's, and that is said back.
_VARIANT_WORD: Final = lazy(
    r"[\s-]*(nvl|sxm\d?|pcie|pci-?e|hgx|dgx|laptop|mobile|notebook)(?![\w.])"
)
_SPELLED: Final = {
    "pcie": "PCIe",
    "pci-e": "PCIe",
    "pcie-e": "PCIe",
    "laptop": "Laptop",
    "mobile": "Laptop",
    "notebook": "Laptop",
}


def variant_word(q: Query, s: str, start: int, end: int, card: str) -> None:
    """ "h100 nvl": a variant the catalog does not know, kept so the answer says it sized the
    catalog's ``card`` instead (never silently); with an amount, the name the amount is."""
    if q.variant_word is None and (m := _VARIANT_WORD.match(s, end)):
        word = m.group(1)
        said = f"{s[start:end].strip().upper()} {_SPELLED.get(word, word.upper())}"
        q.variant_word = (said, card)


# Cards people name that the catalog holds neither to rent nor as owned hardware: said back
# ("I do not know the L40"), never dropped for a generic pick. Read after the known cards are
# cut from the text, so "l40s" or "rtx 4090" never reach it.
# "(?<![\w.])(l40|a10g?|...)(?![\w.])", the lookbehind after each name's first letter
# ("l(?<![\w.]l)40"): every form then opens with a letter the regex engine skips to.
_UNKNOWN_NAMES: Final = (
    "l40", "a10g?", "a16", "a30", "t4", "v100", "p100", "p40", "k80", "h800", "a800", "h20",
    "gh200", "b100", "mi2[15]0x?", r"rx\s?\d{4}(?:\s?xtx?)?", r"arc\s?[ab]\d{3}",
    r"rtx\s?\d{3,4}(?:\s?(?:ti|super))?", r"gtx\s?\d{3,4}(?:\s?(?:ti|super))?",
)  # fmt: skip
_UNKNOWN_CARD: Final = lazy(
    "(" + "|".join(f"{n[0]}(?<![\\w.]{n[0]}){n[1:]}" for n in _UNKNOWN_NAMES) + r")(?![\w.])"
)


def unknown_card(q: Query, s: str) -> None:
    """A card name the catalog does not know: with an amount after it ("l40 48gb") it is sized
    as that amount and said so; without one it is said back, asking for its memory."""
    if not (
        "tx" in s or "l40" in s or "a10" in s or "a16" in s or "a30" in s or "t4" in s
        or "100" in s or "p40" in s or "k80" in s or "800" in s or "h20" in s or "mi2" in s
        or "rx" in s or "arc" in s
    ):  # fmt: skip
        return  # a literal each _UNKNOWN_CARD name holds, looked for before its scan
    if (m := _UNKNOWN_CARD.search(s)) is None:
        return
    name = m.group(1).upper().replace("ARC", "Arc").replace(" TI", " Ti").replace("SUPER", "Super")
    if (said := amount_after(s, m.end())) is not None:
        q.variant = q.variant or (name, said)
    else:
        q.invalid = q.invalid or ("card_memory", name)


# A release's version as people write it: "v3.1", "3.1", "2.5". "(?<![\w.])v?(\d+\.\d+)(?![\w.])"
# with its "v" kept, opening with a class so the regex engine skips to a "v" or a digit.
_VERSION: Final = lazy(r"[v\d](?<![\w.][v\d])(?:(?<=v)\d+|(?<=\d)\d*)\.\d+(?![\w.])")


def version_alias(q: Query) -> str | None:
    """The alias a question's version came from when the model's own name lacks it
    ("deepseek v3.1" is an alias of DeepSeek-V3, the same shape): said back, so a person
    sees which release was sized. The alias as the model's maker spells it, or None."""
    if q.model is None or "." not in q.text:  # every version holds a "."
        return None
    name = q.model.name.lower()
    for said in _VERSION.findall(q.text.lower()):
        version = said.removeprefix("v")
        if version in name:
            continue
        spelled = [a for a in q.model.aliases if version in a.lower() and "/" not in a]
        if spelled:
            return max(spelled, key=lambda a: (a != a.lower(), -len(a)))
    return None


# "a6000 ada", "rtx a6000 ada": the RTX 6000 Ada (Ada Lovelace), which people name after the
# RTX A6000 (Ampere) it followed; read before the cards, so the A6000's alias does not win.
_A6000_ADA: Final = lazy(  # "(?<![\w.])(?:rtx\s*)?a6000\s*ada(?![\w.])", opening with a letter
    r"r(?<![\w.]r)tx\s*a6000\s*ada(?![\w.])|a(?<![\w.]a)6000\s*ada(?![\w.])"
)


def ada_spelling(s: str) -> str:
    return _A6000_ADA.sub("rtx 6000 ada", s)

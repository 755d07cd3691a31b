"""Comparisons: "X vs Y", "X or Y", "compare X and Y", and several values of one slot in one
question ("llama 3.1 8b 8k 32k 128k"), split into one question per alternative.

Each alternative is parsed on its own; what one of them says and another leaves out (the model
in "does llama 70b fit on 4090 vs 5090", the context in "qwen2.5 7b vs llama 3.1 8b at 32k") is
shared. It is a comparison only when some slot really differs between the alternatives, so
"full vs lora" (an FAQ) or "70b with a 4090" in Thai stay what they were; one model on several
cards ("70b fp8 h100 or mi300x") stays a fit answer, which checks every card it names.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any, Final

from engine.lazyre import lazy
from engine.understand.gates import HAS_KM_ENDS, HAS_SEPARATOR
from engine.understand.patterns import CONTEXT_KM
from engine.understand.query import Query

MAX_ITEMS: Final = 4
# " vs ", " versus ", " or ", Polish " czy " / " albo " / " lub ", Thai "หรือ" / "เทียบกับ"
# ("\s+(?:vs\.?|...)\s+|\s*(?:หรือ|เทียบกับ)\s*", opening with one class the regex engine skips to:
# a space, or a Thai word's first letter, which has no case.)
SEPARATOR: Final = lazy(
    r"[\sหเ](?:(?<=\s)\s*(?:vs\.?|versus|or|czy|albo|lub|kontra)\s+|(?<=\s)\s*(?:หรือ|เทียบกับ)\s*"
    r"|(?<=ห)รือ\s*|(?<=เ)ทียบกับ\s*)",
    re.IGNORECASE,
)
LEAD: Final = lazy(r"^\s*(?:compare|porównaj|porownaj|เปรียบเทียบ|เทียบ)\s+", re.IGNORECASE)
AND: Final = lazy(r"\s+(?:and|with|i|oraz|และ)\s+|\s*กับ\s*", re.IGNORECASE)
# Words that make "X vs Y" a comparison even of one model on two cards ("4090 vs 5090 for
# qwen3 32b"); a plain "or" there stays the fit answer that checks every card it names.
# ("\bvs\b|versus|kontra|compare|porówn|porown|เทียบ" ignoring case; only ever asked whether it
# matches.) It opens with a class of each form's first letter in every case the regex engine
# matches it in ("K" is the Kelvin sign), so the engine skips to those.
VERSUS: Final = lazy(
    r"[vVkK\u212acCpPเ](?i:(?<=v)(?<!\wv)s\b|(?<=v)ersus|(?<=k)ontra|(?<=c)ompare|(?<=p)orówn"
    r"|(?<=p)orown|(?<=เ)ทียบ)"
)
# Thai "กับ" ("with", "and") between two models compares them ("glm 4.5 air กับ qwen3 next
# 80b อันไหนใช้ vram น้อยกว่า"); between a model and a card it stays a fit ("70b กับ 4090").
THAI_WITH: Final = lazy(r"\s*กับ\s*")
# A question that names alternatives holds a digit or one of these words. Kept apart so each
# regex opens with a character the regex engine can skip to ("o(?<!\wo)r" is "\bor").
DIGIT: Final = lazy(r"\d")
HINTS: Final = lazy(r"vs|versus|o(?<!\wo)r\b|czy|albo|lub|kontra|หรือ|เทียบ|compare|porówn|porown")
SUBJECT: Final = ("model", "model_score", "others", "model_words", "size_b", "unmatched_model")
SLOTS: Final = ("subject", "cards", "precision", "context_tokens", "vram_gb", "kv_dtype", "batch")
SHARED: Final = (*SLOTS, "task", "wants_fit", "wants_what_fits", "wants_limit")


# Where each CONTEXT_KM match ends (its digit, spaces, "k" or "m"): fewer than two, no list.
# Each match holds one such ending, and each ending is one match of this.
_KM_END: Final = lazy(r"\d\s*[km](?!\w)")
# Every SEPARATOR form but the Thai ones: one of its words after a space.
_SEPARATOR_WORD: Final = lazy(r" (?:vs|versus|or|czy|albo|lub|kontra)")
# What a stripped text that LEAD matches opens with (no other character is one of these
# ignoring case).
_LEAD_HEADS: Final = "cCpPเ"


def _may_separate(body: str, low: str) -> bool:
    """A cheap superset of ``SEPARATOR.search``: most questions name no alternatives.
    Every SEPARATOR form holds one of its words after a space (``low`` is ``body.lower()``);
    the Thai ones are checked as is."""
    if not body.isascii() and ("หรือ" in body or "เทียบกับ" in body or "\u017f" in body):
        return True  # Thai, or a long s (an "s" ignoring case): the regex decides
    if not body.isprintable():
        return True  # whitespace other than " ": the regex decides
    return _SEPARATOR_WORD.search(low) is not None


# The first word of a text that LEAD matches, when the text is ASCII.
_LEAD_WORDS: Final = ("compare", "porownaj")


def may_compare(text: str, words: list[str] | None, flags: int) -> bool:
    """A cheap superset of ``split(text)`` finding alternatives, for a cleaned ``text`` (its
    only whitespace single spaces): ``words`` are ``" " + text.lower() + " "`` split on
    spaces (None: not known) and ``flags`` their gates. An ASCII text needs a separator
    word, LEAD, or two "<digit> k/m" endings."""
    return (
        words is None
        or not text.isascii()
        or bool(flags & (HAS_SEPARATOR | HAS_KM_ENDS))
        or words[1] in _LEAD_WORDS
    )


def split(text: str, has_digit: bool | None = None) -> list[str] | None:
    """The alternatives a question names, each as its own text; None when it names one.
    ``has_digit``: whether ``text`` holds a digit, when the caller already knows."""
    if has_digit is None:
        has_digit = DIGIT.search(text) is not None
    if not has_digit and HINTS.search(text.lower()) is None:
        return None
    body = text.strip().rstrip("?!. ")
    led = LEAD.match(body) if body[:1] in _LEAD_HEADS else None  # "" is in it too
    if led:
        body = body[led.end() :]
    lowered = body.lower()
    may = _may_separate(body, lowered)
    parts = [p for p in SEPARATOR.split(body) if p.strip()] if may else [body]
    if len(parts) < 2 and led:
        parts = [p for p in AND.split(body) if p.strip()]
    if 2 <= len(parts) <= MAX_ITEMS:
        return [p.strip() for p in parts]
    if len(_KM_END.findall(lowered)) < 2:
        return None  # two context lengths need two "<digit> k/m" endings at least
    low = " " + lowered + " "
    contexts = list(CONTEXT_KM.finditer(low))
    if len({m.group(0).strip() for m in contexts}) >= 2:
        padded = " " + body + " "
        out = []
        for keep in contexts[:MAX_ITEMS]:
            text_ = padded
            for m in sorted(contexts, key=lambda m: -m.start()):
                if m is not keep:
                    text_ = text_[: m.start()] + " " + text_[m.end() :]
            out.append(" ".join(text_.split()))
        return out
    return None


def _slot(q: Query, name: str) -> Any:
    if name == "subject":
        if q.model is not None:
            return ("model", q.model.id)
        return ("size", q.size_b) if q.size_b is not None else None
    if name == "cards":  # the hardware: cards, or a plain amount ("m3 max 128gb vs a100")
        named = tuple((c.name, c.count) for c in (*q.cards, *q.owned))
        return named or ((("", q.vram_gb),) if q.vram_gb else None)
    if name in ("wants_fit",):
        return q.wants_fit or None
    if name == "wants_what_fits":
        return q.wants_what_fits or None
    return getattr(q, name)


def _copy(dst: Query, src: Query, name: str) -> None:
    if name == "subject":
        for f in SUBJECT:
            setattr(dst, f, copy.copy(getattr(src, f)))
    elif name == "cards":
        dst.cards, dst.owned = copy.deepcopy(src.cards), copy.deepcopy(src.owned)
    elif name == "task":
        dst.task, dst.task_generic = src.task, src.task_generic
    else:
        setattr(dst, name, getattr(src, name))


def _thai_pair(qs: list[Query]) -> bool:
    """Whether "A กับ B" compares: two models, or two cards alone ("h100 กับ a100"); a model
    with a card ("70b กับ 4090") is one fit."""
    models = all(q.model is not None for q in qs)
    return models or all((q.cards or q.vram_gb) and not q.has_subject for q in qs)


def alternatives(
    text: str,
    parse_one: Callable[[str], Query],
    bare_card: Callable[[str], bool] | None = None,
    has_digit: bool | None = None,
) -> list[Query]:
    """One query per alternative with the shared slots filled in, or [] when the question
    does not compare anything (no slot differs, or an alternative names nothing to size).

    ``bare_card`` is given when the whole question names a model or size: then "70b fp8 on
    h100 or mi300x", where every other part is a card alone, is one model on several cards
    and no part needs parsing (those parts could only differ in their cards). ``has_digit``:
    whether ``text`` holds a digit, when the caller already knows."""
    parts = split(text, has_digit)
    thai_with = parts is None and "กับ" in text
    if thai_with:
        parts = [p for p in THAI_WITH.split(text.strip()) if p.strip()][:MAX_ITEMS]
    if parts is None or len(parts) < 2:
        return []
    if (
        bare_card is not None
        and not thai_with
        and not VERSUS.search(text)  # first: it is cheaper than reading each part
        and sum(map(bare_card, parts)) == len(parts) - 1
    ):
        return []
    qs = [parse_one(p) for p in parts]
    if _by_contexts(parts) and len({_slot(q, "subject") for q in qs}) > 1:
        return []  # "phi 3 mini 128k at 32k": the name's own 128k is not a second context
    _family_sizes(qs, parts, parse_one)
    differing = [n for n in SLOTS if len({_slot(q, n) for q in qs} - {None}) >= 2]
    if not differing or (thai_with and not _thai_pair(qs)):
        return []
    if not any(q.has_subject for q in qs) and not {"cards", "vram_gb"} & set(differing):
        return []  # nothing to size, and not two pieces of hardware either
    if differing == ["cards"] and any(q.has_subject for q in qs) and not VERSUS.search(text):
        return []  # one model on several cards: the fit answer already checks each card
    for name in SHARED:
        for q in qs:
            if _slot(q, name) is None:
                src = next((o for o in qs if _slot(o, name) is not None), None)
                if src is not None:
                    _copy(q, src, name)
    return _hardware_read(qs)


def _by_contexts(parts: list[str]) -> bool:
    """Whether the parts are one text with each of its contexts kept in turn (``split``'s
    last way): the same words once the "<n>k" contexts are taken out."""
    return len({" ".join(CONTEXT_KM.sub(" ", " " + p.lower() + " ").split()) for p in parts}) == 1


def _family_sizes(qs: list[Query], parts: list[str], parse_one: Callable[[str], Query]) -> None:
    """A bare size after a named model is that model's sibling: in "gpt-oss 20b vs 120b" and
    "llama 3.1 8b or 70b" the second is gpt-oss-120b and Llama 3.1 70B, when the catalog has
    one (else it stays a typical shape of that size)."""
    named: Query | None = None
    for i, q in enumerate(qs):
        if q.model is not None and q.model_words.strip():
            named = q
        elif named is not None and q.model is None and q.size_b and not q.model_words.strip():
            sibling = parse_one(named.model_words + " " + parts[i])
            if sibling.model is not None and sibling.model is not named.model:
                qs[i] = sibling


def _hardware_read(qs: list[Query]) -> list[Query]:
    """The items when each names something; memory against a card asks what each holds,
    not one card's rental sheet."""
    if not all(q.has_subject or q.cards or q.owned or q.vram_gb for q in qs):
        return []
    if not any(q.has_subject for q in qs) and any(q.vram_gb for q in qs):
        for q in qs:
            q.wants_what_fits = True
    return qs

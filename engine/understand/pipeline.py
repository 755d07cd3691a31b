"""Text -> :class:`Query`: what the person asked, in the three languages we answer in.

Slots are pulled out one kind at a time (cards before sizes, KV precision before weight
precision, budgets before contexts, sizes before bare numbers) and cut from the text, so what
remains is the model name, which :mod:`engine.understand.model_match` matches.
"""

from __future__ import annotations

from engine.catalog import Catalog, norm
from engine.understand.catalog_words import (
    catalog_words,
    find_card,
    precision_of,
    unknown_precisions,
)
from engine.understand.compare import alternatives
from engine.understand.faq_match import faq_index, match_faq
from engine.understand.language import detect_lang
from engine.understand.model_match import read_model
from engine.understand.normalise import clean
from engine.understand.patterns import (
    BUDGET,
    BUDGET_HINTS,
    CARD_INFO,
    CARDS_HINTS,
    CARDS_LIST,
    COUNT_HINTS,
    COUNT_WORDS,
    DIGIT,
    EDGE_SEPARATORS,
    FAQ_COMMAND,
    FIT,
    FOLLOWUP,
    FOLLOWUP_ANYWHERE,
    FOLLOWUP_HINTS,
    GPU_COUNT,
    HELP,
    IDENT,
    IDENT_HINTS,
    KV_AFTER,
    KV_FIRST,
    KV_HINTS,
    LIMIT_BATCH,
    LIMIT_BATCH_HINTS,
    LIMIT_CONTEXT,
    LIMIT_CONTEXT_HINTS,
    MAX_MENTIONS,
    MOE_SIZE,
    SIZE,
    TASKS,
    WHAT_FITS,
    scan,
)
from engine.understand.query import CardAsk, Query
from engine.understand.slots import bound, cut, money, read_numbers, size_from


def parse(text: str, catalog: Catalog, compare: bool = True) -> Query:
    """Read one message against the catalog; never raises, whatever the text.

    ``compare``: also read "X vs Y" into one query per alternative (off for those)."""
    raw, truncated = clean(text)
    q = Query(text=raw, truncated=truncated, lang=detect_lang(raw))
    s = " " + raw.lower() + " "
    pats = catalog_words(catalog)

    if HELP.match(s):
        q.wants_help = True
        return q
    if (m := FAQ_COMMAND.match(s)) and m.group(1) in faq_index(catalog).ids:
        q.faq_topic = m.group(1)
        return q
    # Cheap substring checks first: most regexes below only run when their words are there.
    digits = DIGIT.search(s) is not None
    if CARDS_HINTS.search(s) and CARDS_LIST.search(s):
        q.wants_cards = True
    q.followup = bool(FOLLOWUP.match(s)) or (
        FOLLOWUP_HINTS.search(s) is not None and FOLLOWUP_ANYWHERE.search(s) is not None
    )
    if LIMIT_CONTEXT_HINTS.search(s) and LIMIT_CONTEXT.search(s):
        q.wants_limit = "context"
    elif LIMIT_BATCH_HINTS.search(s) and LIMIT_BATCH.search(s):
        q.wants_limit = "batch"

    # Cards first: "a40" or "4090" must not be read as sizes or context.
    pos, seen = 0, 0
    while digits and seen < MAX_MENTIONS and (found := find_card(s, pats, pos)):
        seen += 1
        start, end, alias, n = found
        card = catalog.card(alias)
        if card is None:
            pos = start + 1
            continue
        count = (COUNT_WORDS.get(n) or (int(n) if n.isdigit() else None)) if n else None
        if all(c.name != card.name for c in q.cards):
            q.cards.append(CardAsk(card.name, count))
        s = s[:start] + " " + s[end:]
        pos = start
    if COUNT_HINTS.search(s) and (m := GPU_COUNT.search(s)):
        n = m.group(1) or m.group(2)
        q.count = COUNT_WORDS.get(n) or (int(n) if n.isdigit() else None)
        s = cut(s, m)
        if q.cards and q.cards[0].count is None:
            q.cards[0].count = q.count

    if BUDGET_HINTS.search(s) and (m := BUDGET.search(s)):
        value = m.group(1) or m.group(3) or m.group(5)
        thousands = m.group(2) or m.group(4) or m.group(6)
        q.budget_usd = money(value, thousands)
        s = cut(s, m)

    # Names with their own numbers ("Qwen/Qwen2.5-32B-Instruct", "llama3.1:70b-q4_K_M").
    idents: list[str] = []
    while len(idents) < MAX_MENTIONS and IDENT_HINTS.search(s) and (m := IDENT.search(s)):
        idents.append(m.group(0))
        s = cut(s, m)

    if digits and "x" in s and (m := MOE_SIZE.search(s)):
        q.model_words += f" {m.group(1)}x{m.group(2)}b"
        s = cut(s, m)

    if KV_HINTS.search(s) and (m := KV_FIRST.search(s) or KV_AFTER.search(s)):
        token = next(g for g in m.groups() if g)
        token = {"8": "fp8", "16": "fp16"}.get(token, token)
        q.kv_dtype = catalog.kv_alias.get(norm(token.replace(" ", "").replace("-", ""))) or "fp8"
        s = cut(s, m)

    while m := scan(pats.precision, pats.precision_scan, s, 0):  # "fp8 int4": first wins
        name = precision_of(catalog, pats, m.group(1))
        if name is not None and q.precision is None:
            q.precision = name
        elif name is not None and len(q.extra_precisions) < MAX_MENTIONS:
            q.extra_precisions.append(name)
        s = cut(s, m)
    if digits:
        s = unknown_precisions(q, s, pats)

    size_neighbor = ""
    if digits:
        s, size_neighbor = read_numbers(q, s, pats)

    for hint, rx, task, generic in TASKS:
        if hint.search(s) and rx.search(s):
            if q.task is None:
                q.task, q.task_generic = task, generic
            s = rx.sub(" ", s)  # "dostrajanie lora": the method names the task, both words go

    # A VRAM amount always asks "does it fit"; a card may also just be the subject.
    q.wants_fit = q.vram_gb is not None or (bool(q.cards) and FIT.search(s) is not None)
    q.wants_card_info = bool(q.cards) and bool(CARD_INFO.search(s))
    q.wants_what_fits = bool(q.cards or q.vram_gb) and bool(WHAT_FITS.search(raw.lower()))
    q.faq_topic = match_faq(catalog, raw.lower())

    for ident in idents:
        rest = " " + ident + " "
        if q.precision is None and (m := scan(pats.precision, pats.precision_scan, rest, 0)):
            q.precision = precision_of(catalog, pats, m.group(1))
            rest = cut(rest, m)
        if q.precision is None:
            rest = unknown_precisions(q, rest, pats)
        if q.size_b is None and (m := SIZE.search(rest)):
            q.size_b = size_from(m.group(1), m.group(2))
            rest = cut(rest, m)
            # The id names the model: "zephyr-7b-beta" is not a typical 7B, ask about it.
            rest_words = EDGE_SEPARATORS.sub(" ", rest).split()  # "awq:0b" leaves only ":"
            size_neighbor = rest_words[0] if rest_words else ""
        q.model_words += " " + rest.strip()

    read_model(q, s, catalog, size_neighbor)
    bound(q)
    if q.wants_limit and not q.has_subject:
        q.followup = True  # "max context?" asks about the last model
    if compare:
        q.alternatives = alternatives(raw, lambda part: parse(part, catalog, False))
    return q

"""Text -> :class:`Query`: what the person asked, in the three languages we answer in.

Slots are pulled out one kind at a time (cards before sizes, KV precision before weight
precision, budgets before contexts, sizes before bare numbers) and cut from the text, so what
remains is the model name, which :mod:`engine.understand.model_match` matches.
"""

from __future__ import annotations

from typing import Final

from engine.catalog import Catalog, norm
from engine.lazyre import lazy
from engine.understand.catalog_words import (
    HELP_HEADS,
    MAC,
    card_named,
    catalog_words,
    find_card,
    precision_of,
    unknown_precisions,
)
from engine.understand.catalog_words import bare_card as _bare_card
from engine.understand.compare import alternatives, may_compare
from engine.understand.config_paste import read_config
from engine.understand.counts import COUNT_WORDS, read_counts, says_several
from engine.understand.faq_match import faq_index, match_faq
from engine.understand.gates import (
    HAS_BUDGET,
    HAS_CARD_INFO,
    HAS_CARD_WORD,
    HAS_CARDS,
    HAS_CONFIG,
    HAS_COUNT,
    HAS_DIGIT,
    HAS_FOLLOW_WORD,
    HAS_HOURLY,
    HAS_KV_WORD,
    HAS_LIMIT_BATCH,
    HAS_LIMIT_CONTEXT,
    HAS_MAC_WORD,
    HAS_MONTH_SHORT,
    HAS_ONE_MORE,
    HAS_OTHER_MONEY,
    HAS_PRECISION_LIKE,
    HAS_PRECISION_LIKES,
    HAS_PRECISION_WORD,
    HAS_PRECISION_WORDS,
    HAS_SHAPE,
    HAS_TASK,
    HAS_TASKS,
    HAS_THINKING,
    HAS_UNKNOWN_CARD,
    HAS_VARIANT_WORD,
    gates,
)
from engine.understand.language import detect_lang
from engine.understand.model_index import model_index, model_key
from engine.understand.model_match import exact_model, official_release, read_model
from engine.understand.normalise import clean
from engine.understand.patterns import (
    BUDGET,
    CARD_INFO,
    CARDS_LIST,
    EDGE_SEPARATORS,
    FAQ_COMMAND,
    FIT,
    FOLLOWUP_ANYWHERE,
    HELP,
    HOURLY,
    HOURLY_TOPIC,
    IDENT,
    IDENT_DASHED,
    KV_AFTER,
    KV_FIRST,
    LIMIT_BATCH,
    LIMIT_BATCH_ASKS,
    LIMIT_CONTEXT,
    LIMIT_CONTEXT_ASKS,
    MAX_MENTIONS,
    MOE_SIZE,
    MONTH_SHORT,
    OTHER_MONEY,
    SIZE,
    TASKS,
    WHAT_FITS,
    WHAT_FITS_HINTS,
    may_name_precision,
    opens_followup,
)
from engine.understand.periods import cut_money, says_rent_terms
from engine.understand.query import CardAsk, Query, new_query
from engine.understand.rig import rig_of
from engine.understand.slots import (
    ASIDE_BITS,
    bound,
    cut,
    money,
    read_asides,
    read_numbers,
    read_shape,
    size_from,
)
from engine.understand.stop_words import chat_words
from engine.understand.variants import ada_spelling, amount_after, unknown_card, variant_word

# "what's", "i'm", "don't": the apostrophe must not leave a stray "s" for the model name.
_CONTRACTION: Final = lazy(r"(?<=[a-z])'(?:s|re|m|ll|d|ve)\b|(?<=[a-z])n't\b")
# "...-Q6_K.gguf": a file's extension keeps the quantisation before it from being read.
_FILE_EXTENSION: Final = lazy(r"\.(?:gguf|ggml|safetensors|bin|pt|pth|onnx)\b")


# Each TASKS rule by its own gate bit; the bits rise in TASKS order, so reading a text's bits
# lowest first tries its rules in that order, and only those whose hint the text holds.
_TASK_RULES: Final = {
    bit: (rx, task, generic) for (_, rx, task, generic), bit in zip(TASKS, HAS_TASKS, strict=True)
}
_TASK_BITS: Final = sum(HAS_TASKS)
assert list(_TASK_RULES) == sorted(_TASK_RULES)


def _as_typed(raw: str, ident: str) -> str:
    """An id as the person typed it (case kept), for saying it back."""
    at = raw.lower().find(ident)
    return raw[at : at + len(ident)] if at >= 0 and len(raw.lower()) == len(raw) else ident


def _read_paste(q: Query, s: str) -> str:
    """A pasted config.json is the model's exact shape; the rest of the message is read on."""
    pasted = read_config(s)
    if pasted is None:
        return s
    q.pasted, q.config_error, q.pasted_guessed = pasted.spec, pasted.error, pasted.guessed
    if pasted.missing and pasted.error:
        q.config_error = pasted.error + ":" + ",".join(pasted.missing)
    q.precision = pasted.precision
    start, end = pasted.span
    return s[:start] + " " + s[end:]


_THINKING_OF: Final = lazy(r"\bthinking\s+(?:of|about)\b")


def _name_words_only(q: Query, retry: Query, s: str, catalog: Catalog) -> None:
    """A name no model has, read again with only the words some model name holds: in
    "can deepseek r1 run on a single h200 lol" or "deepseek r1 na jednym h200 da radę", the
    chat words hid DeepSeek-R1. Kept only when that names one model; else the first reading
    (and its question back) stands."""
    vocab = model_index(catalog).posting_sets
    keys = [(w, model_key(w).split()) for w in s.split()]
    kept = [w for w, k in keys if k and all(t in vocab or t[0].isdigit() for t in k)]
    if not kept or len(kept) == len(keys):
        return
    said = (retry.model_words, retry.size_b)  # ``retry``: q before the reading
    read_model(retry, " " + " ".join(kept) + " ", catalog)
    named = [w for w in kept if not w.replace(".", "").isdigit()]
    if retry.model is None and named and len(named) < len(kept):  # "deepseek v3 on 2 nodes"
        retry.model_words, retry.size_b, retry.others = *said, []
        read_model(retry, " " + " ".join(named) + " ", catalog)
    if retry.model is not None:
        q.model, q.model_score, q.others = retry.model, retry.model_score, retry.others
        q.model_words, q.size_b, q.unmatched_model = retry.model_words, retry.size_b, False


def parse(text: str, catalog: Catalog, compare: bool = True) -> Query:
    """Read one message against the catalog; never raises, whatever the text.

    ``compare``: also read "X vs Y" into one query per alternative (off for those)."""
    raw, truncated = clean(text)
    low = raw.lower()
    s = plain = " " + low + " "
    pats = catalog_words(catalog)
    if "'" in s:
        s = _CONTRACTION.sub(lambda m: " not" if m.group(0) == "n't" else "", s)
    if "." in s and (".g" in s or ".s" in s or ".b" in s or ".p" in s or ".o" in s):
        s = _FILE_EXTENSION.sub(" ", s)
    faq_found: set[int] = set()  # FAQ keywords some word of ``s`` may be part of
    words = s.split(" ")
    flags = gates(s, pats.words, faq_found, words)  # each hint gate below is a bit of this
    faq_words_read = s == plain  # the words of ``low`` (match_faq's text) are s's
    lang = detect_lang(raw, words if faq_words_read else None)  # low's words, and two ""
    q = new_query(raw, truncated, lang)
    if flags & HAS_CONFIG:
        s = _read_paste(q, s)
        config_precision, q.precision = q.precision, None
    else:
        config_precision = None

    head = s.lstrip()[:1]  # what every HELP / FAQ_COMMAND form opens with, checked first
    if head in HELP_HEADS and HELP.match(s):
        q.wants_help = True
        return q
    if head in "/f" and (m := FAQ_COMMAND.match(s)) and m.group(1) in faq_index(catalog).ids:
        q.faq_topic = m.group(1)
        return q
    # Cheap substring checks first: most regexes below only run when their words are there.
    digits = bool(flags & HAS_DIGIT)
    if flags & HAS_CARDS and CARDS_LIST.search(s):
        q.wants_cards = True
    q.followup = opens_followup(s) or (
        bool(flags & HAS_FOLLOW_WORD)  # the words below are in one of its words
        and ("instead" in s or "zamiast" in s or "same" in s)
        and FOLLOWUP_ANYWHERE.search(s) is not None
    )
    if flags & HAS_LIMIT_CONTEXT and LIMIT_CONTEXT_ASKS.search(s) and LIMIT_CONTEXT.search(s):
        q.wants_limit = "context"
    elif flags & HAS_LIMIT_BATCH and LIMIT_BATCH_ASKS.search(s) and LIMIT_BATCH.search(s):
        q.wants_limit = "batch"

    if digits and flags & ASIDE_BITS:  # system RAM, a LoRA rank, bits per weight
        s = read_asides(q, s, flags, catalog.precisions)  # before the cards and precisions
    ada = "a6000" in s
    if ada:  # "a6000 ada": the RTX 6000 Ada, not the RTX A6000 (its "rtx" is not in ``flags``)
        s = ada_spelling(s)
    # Cards first: "a40" or "4090" must not be read as sizes or context.
    pos, seen, last = 0, 0, 0
    gaps: list[str] = []  # the words between each two cards named (rig.joined reads them)
    mentions: list[tuple[str, int | None]] = []  # each card named and its count, repeats kept
    may_card = digits and bool(flags & HAS_CARD_WORD)  # each card name holds a digit
    while True:  # the conditions in the body: with them in the `while`, its `continue`s
        if not may_card or seen >= MAX_MENTIONS:  # broke mypyc's C (deploy/native.py)
            break
        found = find_card(s, pats, pos)
        if not found:
            break
        seen += 1
        start, end, alias, n = found
        card, mine = pats.card_of.get(alias) or card_named(catalog, pats, alias)
        count = (COUNT_WORDS.get(n) or (int(n) if n.isdigit() else None)) if n else None
        count = -count if count and s[start - 1 : start] == "-" != s[start - 2] else count
        if card is not None or mine is not None:
            gaps.append(s[last:start])
            mentions.append(((card or mine).name, count))  # type: ignore[union-attr]
            last = start
        near = amount_after(s, end)  # "h100 nvl 94gb": the card's own amount, or a variant's
        if (card or mine) and flags & HAS_VARIANT_WORD:  # "h100 nvl": a variant word the
            # catalog lacks, said back (each form holds a literal of the gate)
            variant_word(q, s, start, end, (card or mine).name)  # type: ignore[union-attr]
        if card is None:
            if mine is None:
                pos = start + 1
                continue
            if not q.owned or all(c.name != mine.name for c in q.owned):  # the asker's own
                q.owned.append(CardAsk(mine.name, count, said_gb=near))
            s, pos = s[:start] + " " + s[end:], start
            continue
        if not q.cards or all(c.name != card.name for c in q.cards):
            # A name's own final "s" ("l40s") is not a plural; one more ("l40ss") is.
            w0 = max(0, start - 12)
            several = count is None and says_several(
                s[w0 : end - (alias[-1:] == "s")], s[w0:start], s[end : end + 8]
            )
            q.cards.append(CardAsk(card.name, count, several, near))
        s = s[:start] + " " + s[end:]
        pos = start
    again = bool(flags & HAS_ONE_MORE)  # "and another one" may follow the last card
    q.rig = rig_of(q, mentions, gaps, s[last:], plain, again) if mentions else False
    if digits and (ada or flags & HAS_UNKNOWN_CARD):  # its literals' gate, read off the words
        # "does qwen3 8b fit on an l40?": a card the catalog does not know, said back
        unknown_card(q, s)
    # a Mac ("mac studio", "m2 ultra"): plain capacity, not a model word
    mac_word = bool(flags & HAS_MAC_WORD)  # one of the words below is in a word of ``s``
    chip = mac_word and digits and ("ultra" in s or "max" in s or "pro" in s)  # "m2 ultra"
    if mac_word and ("mac" in s or chip) and (m := MAC.search(s)):
        s, q.unified = s[: m.start()] + " " + s[m.end() :], True  # cut(s, m)
    s = read_counts(q, s, bool(flags & HAS_COUNT))
    if digits and flags & HAS_SHAPE:
        s = read_shape(q, s)

    if flags & HAS_OTHER_MONEY and (m := OTHER_MONEY.search(s)):
        q.other_money = m.group(0).strip()
        s = cut_money(q, s, m, catalog)  # and a period after it ("8 zł/h")
    elif (
        flags & HAS_BUDGET or (flags & HAS_MONTH_SHORT and MONTH_SHORT.search(s) is not None)
    ) and (m := BUDGET.search(s)):
        g = m.groups()
        at = next(i for i in range(0, len(g), 2) if g[i])  # each form: (amount, thousands)
        q.budget_usd = money(g[at], g[at + 1])
        s = cut_money(q, s, m, catalog)  # and a period after it ("$2/hr", "$50 a day")

    # Names with their own numbers ("Qwen/Qwen2.5-32B-Instruct", "llama3.1:70b-q4_K_M").
    idents: list[str] = []
    while (
        len(idents) < MAX_MENTIONS
        and ("/" in s or ":" in s or ("-" in s and IDENT_DASHED.search(s) is not None))
        and (m := IDENT.search(s))
    ):
        ident = m.group(0)
        if not chat_words(ident):  # "usd/month", "w/o": words, not a model's id
            idents.append(ident)
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)

    if digits and "x" in s and (m := MOE_SIZE.search(s)):
        q.model_words += f" {m.group(1)}x{m.group(2)}b"
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)

    if (
        flags & HAS_KV_WORD
        and ("kv" in s or "cache" in s)
        and (m := KV_FIRST.search(s) or KV_AFTER.search(s))
    ):
        token = next(g for g in m.groups() if g)
        token = {"8": "fp8", "16": "fp16"}.get(token, token)
        q.kv_dtype = catalog.kv_alias.get(norm(token.replace(" ", "").replace("-", ""))) or "fp8"
        s = s[: m.start()] + " " + s[m.end() :]  # cut(s, m)

    may_precision = bool(flags & HAS_PRECISION_WORD)  # cuts leave every piece in one word
    named = pats.precision_named  # precision_of's memo, read first
    precision_like = bool(flags & HAS_PRECISION_LIKE)  # of ``s`` before the cuts, and after
    # When only one word of ``words`` holds a precision's piece (or passes may_name_precision),
    # a match that spans a word of ``words`` whole is that word: once it is cut, the next scan
    # (or may_name_precision) cannot find one, as the cuts only split words.
    more, one_piece = may_precision, not flags & HAS_PRECISION_WORDS
    one_like, like_left, known = not flags & HAS_PRECISION_LIKES, precision_like, pats.words.known
    while more and (m := pats.precision.search(s)):
        spelled = m.group(1)
        name = named[spelled] if spelled in named else precision_of(catalog, pats, spelled)
        if name is not None and q.precision is None:
            q.precision = name
        elif name is not None and len(q.extra_precisions) < MAX_MENTIONS:
            q.extra_precisions.append(name)
        a, b = m.span()
        if s[a - 1 : a] == " " == s[b : b + 1] and (spelled := s[a:b]) in words:
            more = not one_piece
            if one_like and (got := known.get(spelled)) and got[0] & HAS_PRECISION_LIKE:
                like_left = False
        s = s[:a] + " " + s[b:]  # cut(s, m)
    if digits and like_left and may_name_precision(s):  # unknown_precisions' own gate
        s = unknown_precisions(q, s, pats)
    if q.bpw is not None and q.precision is None:  # "4.65bpw" and no precision named
        q.precision = q.bpw[1]

    size_neighbor = ""
    if digits:
        s, size_neighbor = read_numbers(q, s, pats, flags)

    told = flags & _TASK_BITS if flags & HAS_TASK else 0
    while told:
        bit = told & -told  # the lowest rule left
        told ^= bit
        rx, task, generic = _TASK_RULES[bit]
        s, hits = rx.subn(" ", s)  # "dostrajanie lora": the method names the task, both go
        if hits and q.task is None:
            q.task, q.task_generic = task, generic
    if q.lora_rank is not None and q.task is None:  # "qwen 32b rank 64": adapters, so LoRA
        q.task = "lora"

    # A VRAM amount always asks "does it fit"; a card may also just be the subject.
    q.wants_fit = q.vram_gb is not None or (bool(q.cards or q.owned) and FIT.search(s) is not None)
    q.wants_card_info = bool(q.cards) and (
        bool(flags & HAS_CARD_INFO and CARD_INFO.search(s)) or says_rent_terms(low)
    )
    q.wants_what_fits = (
        bool(q.cards or q.owned or q.vram_gb)
        and WHAT_FITS_HINTS.search(low) is not None
        and WHAT_FITS.search(low) is not None
    )
    q.faq_topic = match_faq(catalog, low, faq_found if faq_words_read else None)
    if flags & HAS_HOURLY and HOURLY.search(s):
        q.wants_hourly = True
        if q.faq_topic is None and HOURLY_TOPIC in faq_index(catalog).ids:
            q.faq_topic = HOURLY_TOPIC

    for ident in idents:
        rest = " " + ident + " "
        # The whole id first: "Qwen/Qwen3-235B-A22B-FP8" is its own entry, not the base at FP8.
        whole = exact_model(catalog, ident) if q.model is None else None
        if q.precision is None and may_precision and (m := pats.precision.search(rest)):
            q.precision = precision_of(catalog, pats, m.group(1))
            rest = cut(rest, m)
        if q.precision is None and precision_like:  # ``rest`` is a piece of ``s``
            rest = unknown_precisions(q, rest, pats)
        if q.model is None and (exact := whole or exact_model(catalog, rest)) is not None:
            q.model, q.model_score, q.model_words = exact, 100.0, exact.name
            continue
        if q.size_b is None and (m := SIZE.search(rest)):
            q.size_b = size_from(m.group(1), m.group(2))
            rest = cut(rest, m)
            # The id names the model: "zephyr-7b-beta" is not a typical 7B, ask about it.
            rest_words = EDGE_SEPARATORS.sub(" ", rest).split()  # "awq:0b" leaves only ":"
            size_neighbor = rest_words[0] if rest_words else ""
        q.model_words += " " + rest.strip()

    if q.pasted is None and q.config_error is None:
        id_words = q.model_words  # what the ids said, before read_model adds to it
        if q.model is None:  # an exact id stays as typed ("Qwen/Qwen3-235B-A22B fp8")
            if (
                flags & HAS_THINKING and "thinking" in s
            ):  # "we were thinking of qwen3 30b": not the Thinking release
                s = _THINKING_OF.sub(" ", s)
            said, size = q.model_words, q.size_b
            read_model(q, s, catalog, size_neighbor)
            if q.unmatched_model and not idents:
                _name_words_only(q, Query(text=q.text, model_words=said, size_b=size), s, catalog)
            official_release(q, catalog)
        if (
            q.unmatched_model
            and not q.others
            and idents
            and (from_idents := " ".join(EDGE_SEPARATORS.sub(" ", id_words).split()))
        ):
            # Say an unknown id back as typed ("mistralai/Ministral-8B-Instruct-2410").
            rest = q.model_words.removeprefix(from_idents)
            if rest != q.model_words:
                order = sorted(idents, key=raw.lower().find)
                q.model_words = " ".join([*(_as_typed(raw, i) for i in order), rest.strip()])
                q.model_words = q.model_words.strip()
    else:
        q.size_b, q.model_words = None, q.pasted.name if q.pasted else ""
        q.precision = q.precision or config_precision
    bound(q, flags)  # the gates of ``s``: of ``low``, less what no odd number holds
    if q.wants_limit and not q.has_subject:
        q.followup = True  # "max context?" asks about the last model
    if compare and may_compare(raw, words if faq_words_read else None, flags):
        q.alternatives = alternatives(
            raw,
            lambda part: parse(part, catalog, False),
            (lambda part: _bare_card(part, catalog)) if q.has_subject else None,
            digits,  # the cuts before the gates remove letters, never a digit of ``raw``
        )
    return q

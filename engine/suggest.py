"""Autocomplete: typed prefix -> model or card completions, fuzzy and fast.

Chat platforms ask for suggestions on every keystroke and give the bot about three seconds,
so this module answers from a per-catalog cached index in well under a millisecond and never
raises: a suggestion that fails is simply not shown. The words a person typed around the
model name ("how much for lama 70b int4 128k") are kept, and only the model part is replaced
by the catalog name, so picking a completion keeps the rest of the question.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from engine.catalog import Catalog, norm
from engine.lazyre import lazy
from engine.limits import parse_token_count
from engine.models import ModelSpec
from engine.understand import STOP_WORDS, CompletionKeys, match_models, model_key, size_matches

# From its module: compiled (deploy/native.py), the package's name `model_index` is the module.
from engine.understand.model_index import model_index

__all__ = [
    "MAX_CHOICE_CHARS",
    "compose_question",
    "is_context_value",
    "replace_model",
    "search_models",
    "suggest_cards",
    "suggest_models",
]


def _log_failure(message: str, *args: object) -> None:
    """Logged only when a suggestion fails, so importing the engine does not load logging."""
    import logging

    logging.getLogger("vramchat.suggest").exception(message, *args)


MAX_CHOICE_CHARS: Final = 100  # Discord's limit for a choice's name and value; Telegram's is larger
MAX_PREFIX_CHARS: Final = 200  # nobody autocompletes an essay; longer input is cut before matching
SCORE_CUTOFF: Final = 60.0  # mean per-token similarity a model needs to be suggested at all
TOKEN_CUTOFF: Final = 60.0  # "lama" ~ "llama" (89) passes; unrelated words do not
PREFIX_SCORE: Final = 95.0  # "qw" is on its way to "qwen": almost as good as typing it out
PREFIX_BONUS: Final = 12.0  # cards: "rtx" lists the RTX cards first
EXTRA_TOKEN_WEIGHT: Final = 0.15  # "llama 70b" prefers "Llama 3.1 70B" to "R1 Distill Llama 70B"
MAX_QUERY_TOKENS: Final = 6  # model-name tokens scored
MAX_PREFIX_TOKENS: Final = 40  # tokens looked at in all


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SEARCH_SIZE: Final = lazy(r"\b(\d+(?:\.\d+)?)\s?b\b", re.IGNORECASE)
SEARCH_CUTOFF: Final = 70.0  # a fuzzy hit in a model search must be this good to be listed
_CONTEXT_TOKEN: Final = lazy(r"^\d+(?:[.,]\d+)?[km]$")
_NUMBER: Final = lazy(r"^\d+(?:[.,]\d+)?$")
# Words that qualify a request rather than name a model (precisions come from the catalog).
_MODIFIER_WORDS: Final = _words(
    "ctx context kontekst batch bs partia users user tokens token bit bits kv cache lora qlora "
    "inference serve serving train training finetune fine-tune ft x on"
)
# A bare number right after these is their value, not part of a model name.
_TAKES_NUMBER: Final = _words("ctx context kontekst batch bs partia x on")
_KV_WORDS: Final = _words("kv cache kv-cache")
_CONTEXT_WORDS: Final = _words("ctx context kontekst")
_TOKEN_WORDS: Final = _words("tokens token tok")
_BATCH_WORDS: Final = _words("batch bs partia")
_USER_WORDS: Final = _words("users user concurrent")
# A bare number right before these is their value ("8 users", "4 bit").
_NUMBER_BEFORE: Final = _words("users user tokens token bit bits")


def _index(catalog: Catalog) -> CompletionKeys:
    """The completion view of the one model index (cached per catalog object there)."""
    return model_index(catalog).completion


@lru_cache(maxsize=8)
def _card_index(catalog: Catalog) -> tuple[tuple[str, ...], tuple[str, ...]]:
    keys: list[str] = []
    owners: list[str] = []
    for card in catalog.cards:
        for name in {card.name, *card.aliases}:
            keys.append(norm(name))
            owners.append(card.name)
    return tuple(keys), tuple(owners)


def _is_modifier(tokens: list[str], i: int, catalog: Catalog) -> bool:
    tok = tokens[i]
    low = tok.lower()
    if low in _MODIFIER_WORDS or low in STOP_WORDS:
        return True
    if norm(low) in catalog.precision_alias or norm(low) in catalog.kv_alias:
        return True
    if _CONTEXT_TOKEN.match(low) or catalog.card(low) is not None:
        return True
    if _NUMBER.match(low):
        before = tokens[i - 1].lower() if i > 0 else ""
        after = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        return before in _TAKES_NUMBER or after in _NUMBER_BEFORE
    return False


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CHOICE_CHARS else text[: MAX_CHOICE_CHARS - 1].rstrip() + "…"


def _token_scores(index: CompletionKeys, token: str, typing: bool) -> dict[int, float]:
    """Vocabulary tokens like ``token``: typo-tolerant for words, exact for numbers, and a
    prefix match for the token still being typed (the last one)."""
    out: dict[int, float] = {}
    if not re.search(r"\d", token):
        from rapidfuzz import fuzz, process  # imported on first use: ~7 ms

        for _, score, vid in process.extract(
            token, index.vocab, scorer=fuzz.ratio, limit=None, score_cutoff=TOKEN_CUTOFF
        ):
            out[vid] = float(score)
    if typing:
        for vid, word in enumerate(index.vocab):
            if word.startswith(token):
                out[vid] = max(out.get(vid, 0.0), PREFIX_SCORE)
    exact = index.vocab_ids.get(token)
    if exact is not None:
        out[exact] = 100.0
    return out


def _rank_models(catalog: Catalog, words: list[str], limit: int) -> list[ModelSpec]:
    """Each typed token scores against its best token in a key; keys with fewer extra
    tokens win ties, then newer releases."""
    index = _index(catalog)
    query = model_key(" ".join(words)).split()[:MAX_QUERY_TOKENS]
    if not query:
        return []
    totals: dict[int, float] = {}
    for i, token in enumerate(query):
        best: dict[int, float] = {}
        typing = i == len(query) - 1  # only the word being typed may be a prefix
        for vid, score in _token_scores(index, token, typing=typing).items():
            for key in index.postings[vid]:
                if score > best.get(key, 0.0):
                    best[key] = score
        for key, score in best.items():
            totals[key] = totals.get(key, 0.0) + score
    per_model: dict[int, float] = {}
    n = len(query)
    for key, total in totals.items():
        fill = min(1.0, n / index.key_lengths[key])
        score = total / n * (1 - EXTRA_TOKEN_WEIGHT + EXTRA_TOKEN_WEIGHT * fill)
        owner = index.owners[key]
        if score >= SCORE_CUTOFF and score > per_model.get(owner, 0.0):
            per_model[owner] = score
    ordered = sorted(per_model, key=lambda o: (-round(per_model[o], 6), index.newest_rank[o]))
    return [index.models[o] for o in ordered[:limit]]


def suggest_models(catalog: Catalog, prefix: str, limit: int = 25) -> list[tuple[str, str]]:
    """Completions ``(name, value)`` for a typed question; the model part becomes its full name.

    Empty input lists the newest models. At most ``limit`` entries, each at most 100 characters.
    """
    try:
        return _suggest_models(catalog, prefix or "", max(0, limit))
    except Exception:  # autocomplete must never break typing
        _log_failure("model suggestions failed for a %d-character prefix", len(prefix or ""))
        return []


def _split(catalog: Catalog, tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(words before the model name, the model-name words, the other words after it)."""
    is_mod = [_is_modifier(tokens, i, catalog) for i in range(len(tokens))]
    if all(is_mod):
        return tokens, [], []
    first = is_mod.index(False)
    model = [t for t, mod in zip(tokens, is_mod, strict=True) if not mod]
    after = [t for t, mod in zip(tokens[first:], is_mod[first:], strict=True) if mod]
    return tokens[:first], model, after


def _suggest_models(catalog: Catalog, prefix: str, limit: int) -> list[tuple[str, str]]:
    if limit == 0:
        return []
    tokens = prefix[:MAX_PREFIX_CHARS].split()[:MAX_PREFIX_TOKENS]
    index = _index(catalog)
    if not tokens:
        newest = sorted(range(len(index.models)), key=lambda i: index.newest_rank[i])
        names = [_clip(index.models[i].name) for i in newest[:limit]]
        return [(n, n) for n in names]
    before, model_words, after = _split(catalog, tokens)
    if not model_words:
        return []
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for m in _rank_models(catalog, model_words, limit):
        text = _clip(" ".join([*before, m.name, *after]))
        if text not in seen:
            seen.add(text)
            out.append((text, text))
    return out


def replace_model(catalog: Catalog, text: str, name: str) -> str:
    """The question with its model words replaced by ``name``, the rest kept.

    For a "which model did you mean?" menu: "llama 3.1 int4 128k" + "Llama 3.1 70B" gives
    "Llama 3.1 70B int4 128k" (appending the name would repeat the vague words).
    """
    try:
        tokens = text.split()
        before, model_words, after = _split(catalog, tokens)
        if not model_words:
            return " ".join([name, *tokens])
        return " ".join([*before, name, *after])
    except Exception:  # a menu pick must still ask something sensible
        _log_failure("replace_model failed; asking for the picked name alone")
        return name


def compose_question(
    catalog: Catalog,
    text: str,
    *,
    precision: str | None = None,
    context: str | None = None,
    batch: int | None = None,
) -> str:
    """Free text plus values picked in a form (slash-command options) as one question.

    Words in the text that an option replaces are dropped and the option is appended, so the
    option wins and the parser never sees two precisions or two contexts.
    """
    tokens = text.split()
    drop: set[int] = set()
    for i, tok in enumerate(tokens):
        low = tok.lower()
        prev = tokens[i - 1].lower() if i > 0 else ""
        nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        kv = prev in _KV_WORDS or nxt in _KV_WORDS
        if precision and not kv and norm(low) in catalog.precision_alias:
            drop.add(i)
        if context and (
            _CONTEXT_TOKEN.match(low) or (low in _CONTEXT_WORDS and _NUMBER.match(nxt))
        ):
            drop.update({i, i + 1} if low in _CONTEXT_WORDS else {i})
        if context and _NUMBER.match(low) and nxt in _TOKEN_WORDS:
            drop.update({i, i + 1})
        if batch and low in _BATCH_WORDS and _NUMBER.match(nxt):
            drop.update({i, i + 1})
        if batch and _NUMBER.match(low) and nxt in _USER_WORDS:
            drop.update({i, i + 1})
    kept = [tok for i, tok in enumerate(tokens) if i not in drop]
    if precision:
        kept.append(precision)
    if context:
        kept += ["ctx", context.strip()]
    if batch:
        kept += ["batch", str(batch)]
    return " ".join(kept)


def suggest_cards(catalog: Catalog, prefix: str, limit: int = 25) -> list[tuple[str, str]]:
    """Card names ``(name, value)`` matching a typed prefix or alias; empty input lists all."""
    try:
        return _suggest_cards(catalog, prefix or "", max(0, limit))
    except Exception:  # autocomplete must never break typing
        _log_failure("card suggestions failed for a %d-character prefix", len(prefix or ""))
        return []


def _suggest_cards(catalog: Catalog, prefix: str, limit: int) -> list[tuple[str, str]]:
    query = norm(prefix[:MAX_PREFIX_CHARS])
    if not query:
        return [(c.name, c.name) for c in catalog.cards[:limit]]
    keys, owners = _card_index(catalog)
    best: dict[str, float] = {}
    from rapidfuzz import fuzz, process

    for key, score, i in process.extract(
        query, keys, scorer=fuzz.WRatio, limit=None, score_cutoff=SCORE_CUTOFF
    ):
        s = float(score) + (PREFIX_BONUS if key.startswith(query) else 0.0)
        best[owners[i]] = max(best.get(owners[i], -1.0), s)
    order = {c.name: pos for pos, c in enumerate(catalog.cards)}
    ranked = sorted(best, key=lambda n: (-best[n], order[n]))
    return [(n, n) for n in ranked[:limit]]


def is_context_value(text: str) -> bool:
    """A context option as typed in a slash command: "8k", "128k", "1M" or a token count of
    at least one (a context of 0 is not a value: it would silently become the default)."""
    return parse_token_count(text) is not None


def search_models(catalog: Catalog, text: str) -> list[ModelSpec]:
    """Models for a search box: best fuzzy matches first, then names containing the words."""
    size = _SEARCH_SIZE.search(text)
    size_b = float(size.group(1)) if size else None
    found: dict[str, ModelSpec] = {}
    for hit in match_models(catalog, text, size_b):
        if hit.score >= SEARCH_CUTOFF and (size_b is None or size_matches(hit.model, size_b)):
            found[hit.model.id] = hit.model
    needle = model_key(text)
    for m in catalog.models:
        names = (m.id, m.name, m.hf_repo, *m.aliases)
        if needle and any(needle in model_key(n) for n in names):
            found.setdefault(m.id, m)
    return list(found.values())

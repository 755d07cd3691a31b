"""Model words -> catalog models: scored token by token, typos through rapidfuzz.

Scores run 0-100: half is how much of the model's name the words cover (a left-out version
counts little), half how much of the words the name explains; ties go to the newest release.
Whatever words are left after the slots is the model name: matched, or the reason it is not.
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from typing import Final, NamedTuple

from engine.catalog import Catalog, norm
from engine.lazyre import lazy
from engine.models import ModelSpec
from engine.understand.inflect import base_form
from engine.understand.model_index import (
    ModelIndex,
    is_version,
    model_index,
    model_key,
    name_key,
    size_matches,
)
from engine.understand.model_score import (
    TYPO_CUTOFF_SAME_INITIAL,
    _score_all,
    _slips,
    _token_matches,
)
from engine.understand.patterns import (
    EDGE_SEPARATORS,
    GLUED_SIZE,
    ID_LIKE,
    LETTER,
    NAMEISH,
    SMALL_VERSION,
    STOP_WORDS,
    WORD,
)
from engine.understand.query import ModelMatch, Query
from engine.understand.slots import num

MAX_MODEL_TOKENS: Final = 8  # name tokens scored; the rest of a long message is not a model name
MAX_NAME_CHARS: Final = 80  # longer "words" are pasted noise, not a model name (HF ids are ~40)
# a word like no catalog word ("nemotron") counts this much against a match
NOISE_WEIGHT: Final = 0.3
ACCEPT: Final = 80.0  # take the best match without asking
ACCEPT_UNDERSPECIFIED: Final = 65.0  # "kimi", "deepseek 671b": every word fits, the name has more
TIE: Final = 3.0  # matches this close to the best are "it could also be"
CANDIDATE: Final = 50.0  # below this a model is not worth offering
SIZE_PENALTY: Final = 40.0  # "qwen 70b" is not a Qwen of another size
CANDIDATE_BUDGET: Final = 64  # names scored, shared among the query's words (shortest names first)
ALL_WORDS_CANDIDATES: Final = 128  # names holding every query word, scored when this few
SIZE_CLOSENESS: Final = 100.0  # points off per 100% size difference within the 5% tolerance
RELEASE_TAG: Final = lazy(r"\d{4}")
_first: Final = itemgetter(0)


class _Ranked(NamedTuple):
    pos: int
    score: float
    complete: bool  # every word the person gave is in the name
    head: bool  # and one of them is a family's first word


_ranked: Final = tuple.__new__  # a _Ranked from its fields' tuple, without the Python-level __new__


@lru_cache(maxsize=4096)
def _rank(index: ModelIndex, key: str, size_b: float | None) -> tuple[_Ranked, ...]:
    """Every model worth mentioning for these name words, best first (cached: names repeat)."""
    qtoks = key.split()[:MAX_MODEL_TOKENS]
    if not qtoks:
        return ()
    qinfo: list[tuple[float, tuple[tuple[str, float], ...]]] = []
    # Candidates: for each word, the shortest names holding it (a family's own names), plus
    # every name holding all the words (a long alias typed out), so the scoring loop below
    # stays small however many aliases the catalog has.
    candidates: set[int] = set()
    common: frozenset[int] | set[int] | None = None
    per_word = max(8, CANDIDATE_BUDGET // len(qtoks))
    postings, posting_sets, weight = index.postings, index.posting_sets, index.token_weight
    for t in qtoks:
        matches = _token_matches(index, t)
        noise = not matches and not is_version(t)
        qinfo.append((NOISE_WEIGHT if noise else 1.0, matches))
        for v, _ in matches:
            if weight[v] == 1.0:  # not a version: "3.1" or "7" alone would list half the catalog
                candidates.update(postings[v][:per_word])
        if not matches:  # a word no name holds narrows nothing
            continue
        if len(matches) == 1:  # the one word's names, no copy
            holding: frozenset[int] | set[int] = posting_sets[matches[0][0]]
        else:
            holding = set().union(*(posting_sets[v] for v, _ in matches))
        common = holding if common is None else common & holding
    if common is not None and len(common) <= ALL_WORDS_CANDIDATES:
        candidates |= common
    best = _score_all(index, tuple(qinfo), candidates)
    top = max(map(_first, best.values()), default=0.0)  # the best score
    joined = "".join(qtoks)
    if top < ACCEPT and len(joined) >= 4:
        # Glued names: "deepseekr1", "codellama", "mistralnemo" (one slip: not "magistralsmall").
        from rapidfuzz import fuzz, process

        for glued, score, j in process.extract(
            joined, index.joined, scorer=fuzz.ratio, score_cutoff=88, limit=8
        ):
            if not glued.startswith(joined) and _slips(joined, glued, 1) > 1:
                continue  # a left-out tail ("deepseek" for "deepseekr1") is not a slip
            for pos in index.key_owners[index.joined_ids[j]]:
                if score > best.get(pos, (-1.0, False, False))[0]:
                    best[pos] = (float(score), True, True)
    floor = CANDIDATE - SIZE_PENALTY  # a size only takes points off: below this stays out
    rows: list[tuple[float, int, int, bool, bool]] = []
    sizes, newest = index.model_sizes, index.newest_rank
    scale = max(size_b, 1) if size_b is not None else 1
    tol = 0.05 * scale
    for pos, (score, complete, head) in best.items():
        if score < floor:
            continue
        if size_b is not None:
            nominal, exact, active = sizes[pos]
            diff = abs(nominal - size_b)  # the closest of its sizes, as min() of the three
            if (d := abs(exact - size_b)) < diff:
                diff = d
            if (d := abs(active - size_b)) < diff:
                diff = d
            if diff > tol:  # as size_matches: no size of it is within 5%
                score -= SIZE_PENALTY
            else:  # "qwen3 32b" is Qwen3 32B, not the 30.5B MoE that is within 5%
                score -= SIZE_CLOSENESS * diff / scale
        if score >= floor:
            rows.append((-score, newest[pos], pos, complete, head))
    rows.sort()  # newest_rank is unique per model: no two rows tie
    return tuple([_ranked(_Ranked, (pos, -neg, c, h)) for neg, _, pos, c, h in rows[:12]])


def match_models(catalog: Catalog, words: str, size_b: float | None) -> list[ModelMatch]:
    """Score the catalog's models against the name words; a given size must agree.

    Scores run 0-100: half is how much of the model's name the words cover (a left-out
    version counts little), half how much of the words the name explains. Ties go to the
    newest release.
    """
    index = model_index(catalog)
    return [ModelMatch(index.models[r.pos], r.score) for r in _rank(index, name_key(words), size_b)]


@lru_cache(maxsize=4096)
def _corrected(index: ModelIndex, key: str) -> tuple[str, bool]:
    """The name words with each typo replaced by the vocabulary word it stands for, and
    whether they hold a release tag no catalog name has (cached, like :func:`_rank`)."""
    new_tag = any(RELEASE_TAG.fullmatch(t) and t not in index.vocab for t in key.split())
    out = []
    for t in key.split()[:MAX_MODEL_TOKENS]:
        matches = _token_matches(index, t)
        out.append(
            matches[0][0] if matches and matches[0][1] >= TYPO_CUTOFF_SAME_INITIAL / 100 else t
        )
    return " ".join(out), new_tag


_SKIP: Final = 0
_NAME: Final = 1
_MAYBE: Final = 2


_KINDS_KEPT: Final = 8192  # distinct words remembered per index; then it starts over


def _word_kind(index: ModelIndex, token: str) -> tuple[str, int]:
    """One written word as a name word: its base form and whether it is skipped, a name word,
    or a filler word a name may hold (remembered in the index: a pure function of the word,
    and words repeat)."""
    w = base_form(token.strip(".-:/_"), index.vocab)
    if not w or len(w) > MAX_NAME_CHARS or not w.isascii() or not NAMEISH.fullmatch(w):
        kind = _SKIP
    elif w in STOP_WORDS:
        kind = _MAYBE if len(w) >= 4 and w in index.vocab else _SKIP
    else:
        kind = _NAME
    if len(index.word_kinds) >= _KINDS_KEPT:
        index.word_kinds.clear()
    index.word_kinds[token] = w, kind
    return w, kind


def _name_words(s: str, index: ModelIndex) -> list[str]:
    """What is left that could be part of a model name: ASCII tokens that are not filler
    (a Polish case ending taken off first: "llamą" is "llama"). A filler word that is also a
    name word ("vision") stays when a name holds it with the other words ("phi 3.5 vision")."""
    words: list[str] = []
    maybe: list[tuple[int, str]] = []
    kinds = index.word_kinds
    for token in WORD.findall(s):
        w, kind = kinds.get(token) or _word_kind(index, token)
        if kind == _SKIP:
            continue
        if kind == _MAYBE:
            maybe.append((len(words), w))
            continue
        words.append(w)
        if len(words) == MAX_MODEL_TOKENS * 2:
            break
    for at, w in reversed(maybe):
        if _belongs(index, words, w):
            words.insert(at, w)
    return words


def exact_model(catalog: Catalog, ident: str) -> ModelSpec | None:
    """The model an id or tag names exactly ("command-r:35b-08-2024" once its quantisation
    suffix is cut), by its catalog id or an alias only it has."""
    stem = norm(ident.strip(" -_:.,"))
    pos = model_index(catalog).aliases.get(stem)
    return catalog.models[pos] if pos is not None else catalog.model_by_id.get(stem)


def _belongs(index: ModelIndex, named: list[str], word: str) -> bool:
    """Whether ``word`` belongs with the named words: some model name holds it and every one of
    them ("glm" + "5" is GLM-5, not a 5B size; "phi 3.5" + "vision")."""
    holding = index.posting_sets.get(word)
    known = [t for t in name_key(" ".join(named)).split() if t in index.posting_sets]
    if holding is None or not known:
        return False
    for t in known:
        holding = holding & index.posting_sets[t]
    return bool(holding)


def official_release(q: Query, catalog: Catalog) -> None:
    """The model's full name said with a precision it has an official release in names that
    release: "glm 4.5 fp8", "qwen3 235b a22b fp8" are GLM-4.5 FP8 and Qwen3 235B-A22B FP8. A short
    form ("qwen3 235b fp8") is the base at that precision: the same numbers."""
    if q.model is None or q.precision is None or name_key(q.model_words) != name_key(q.model.name):
        return
    index = model_index(catalog)
    pos = index.precision_variants.get((q.model.id, model_key(q.precision)))
    if pos is not None:
        q.model = index.models[pos]
        q.others = []


def read_model(q: Query, s: str, catalog: Catalog, size_neighbor: str = "") -> None:
    """Whatever is left that looks like words is the model name: match it, or say why not."""
    if q.model is not None:  # an id or tag already named it exactly
        return
    index = model_index(catalog)
    words = _name_words(s, index)
    if q.size_b is None and q.faq_topic is None:
        nums: list[str] = []
        named: list[str] = []
        for w in words:  # NUMBER_WORD.fullmatch(w), on ASCII words (see _word_kind)
            whole, dot, part = w.partition(".")
            (nums if whole.isdecimal() and (not dot or part.isdecimal()) else named).append(w)
        # "lama3 70" or "qwen 2.5 32": a trailing bare number after a name is the size.
        if named and nums:
            cand = num(nums[-1])
            version = SMALL_VERSION.fullmatch(nums[-1]) or _belongs(index, named, nums[-1])
            if 0.1 <= cand <= 2000 and not version and not nums[-1].startswith("0"):
                q.size_b = cand
                words.remove(nums[-1])
        elif (
            len(named) == 1
            and (g := GLUED_SIZE.match(named[0]))
            and g.group(1) in model_index(catalog).heads
        ):
            # "mistral7b": a family word with the size glued on.
            q.size_b = num(g.group(2))
            words = [g.group(1)]
    joined = q.model_words + " " + " ".join(words)
    if "-" in joined or ":" in joined or "/" in joined or "_" in joined or "." in joined:
        # each character an EDGE_SEPARATORS match opens with, tested in turn
        joined = EDGE_SEPARATORS.sub(" ", joined)
    q.model_words = " ".join(joined.split())  # "qwen/qwen2.5 instruct", for messages
    key = name_key(q.model_words)
    if not key or not LETTER.search(key):
        return
    ranked = _rank(index, key, q.size_b)
    if q.faq_topic and q.size_b is None and ranked and ranked[0].score < 90:
        ranked = ()  # general questions carry words that are not model names
    if not ranked or ranked[0].score < CANDIDATE:
        # Words no model resembles: a word right before the size ("zephyr 7b") or an id
        # ("gpt-4") names a model we do not know (ask, never guess its shape); other words
        # ("70b for coding") were just not a model.
        near_size = bool(size_neighbor) and size_neighbor in q.model_words.split()
        said = q.model_words.split()
        id_like = any(ID_LIKE.search(w) for w in said)
        # "does claude fit on a 4090": a word of letters where the model goes
        lettered = (  # no size said: "8b on a single h100" names no model at all
            q.wants_fit and q.size_b is None and any(w.isalpha() and len(w) > 2 for w in said)
        )
        if not q.faq_topic and (near_size or id_like or lettered):
            q.unmatched_model = True
        return  # nothing is close enough to offer: "not recognised", never a far guess
    best = ranked[0]
    floor = best.score - TIE
    ties = 1  # ranked is best first: the ties are its first few
    while ties < len(ranked) and ranked[ties].score >= floor:
        ties += 1
    top = list(ranked[:ties])
    fixed, new_tag = _corrected(index, key)  # "deepsek r1" -> "deepseek r1"
    if q.size_b is None:
        # The person typed one model's own name ("deepseek r1") or an alias ("mixtral").
        # Sizes count here: "command r" is Command R, not Command R7B.
        full = model_key(q.model_words)
        typed = {full.replace(" ", "")}
        if full == key:  # no size glued into the words: the typo-corrected form may stand
            typed.add(fixed.replace(" ", ""))
        own = [r for r in top if index.name_joined[r.pos] in typed]
        alias = index.aliases.get(norm(q.model_words)) or index.aliases.get(fixed)
        if len(own) == 1:
            top = own
        elif alias is not None and any(r.pos == alias for r in top):
            top = [r for r in top if r.pos == alias]
        best = top[0]
    elif len(top) > 1:
        # "mistral-small 24b": an alias that carries the size names one model of the tie.
        size = f"{q.size_b:g}b"
        alias = index.aliases.get(norm(f"{q.model_words} {size}")) or index.aliases.get(
            f"{fixed} {size}"
        )
        if alias is not None and any(r.pos == alias for r in top):
            top = sorted(top, key=lambda r: r.pos != alias)  # it first; the rest still noted
            best = top[0]
    sizes = {index.models[r.pos].nominal_b for r in top}
    accept = best.score >= ACCEPT or (
        best.score >= ACCEPT_UNDERSPECIFIED and best.complete and best.head
    )
    # A release tag no catalog name has ("Kimi-K2-Instruct-0905") is another release: offer
    # the close names, never size it as one of them.
    accept = accept and not new_tag
    if accept and (len(sizes) == 1 or q.size_b is not None):
        model = index.models[best.pos]
        q.model, q.model_score = model, best.score
        q.others = [
            ModelMatch(index.models[r.pos], r.score)
            for r in top
            if r is not best and size_matches(index.models[r.pos], model.nominal_b)
        ][:3]
    elif accept:
        q.unmatched_model = True  # same family, several sizes: ask which
        by_size = sorted(top, key=lambda r: index.models[r.pos].params_b)
        q.others = [ModelMatch(index.models[r.pos], r.score) for r in by_size[:5]]
    else:
        q.unmatched_model = True
        q.others = [
            ModelMatch(index.models[r.pos], r.score) for r in ranked[:5] if r.score >= CANDIDATE
        ]

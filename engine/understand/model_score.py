"""Name words against the model index: what vocabulary word each typed word may stand for
(typos through rapidfuzz), and how well each candidate name covers the words.

Kept apart from :mod:`engine.understand.model_match`, which decides what a score means.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from engine.lazyre import lazy
from engine.understand.model_index import ModelIndex, is_version

PARTIAL_VERSION: Final = 0.5  # "3" for "3.1": right major version, minor not given
TYPO_CUTOFF: Final = 80.0  # "lama" ~ "llama" (89); "qwen" ~ "qwq" (57) is not a typo
# one wrong letter of four ("quen" ~ "qwen") if it starts right
TYPO_CUTOFF_SAME_INITIAL: Final = 75.0
TYPO_CAP: Final = 0.95  # a typo never scores like the word itself
LONG_WORD: Final = 10  # from this length a typo may be two slips ("magistral" is not "mistral")
_Scores = dict[int, tuple[float, bool, bool]]
_QInfo = tuple[tuple[float, tuple[tuple[str, float], ...]], ...]
_Option = tuple[str, float, float, bool, bool]  # name word, key points, word points, slip, head


@lru_cache(maxsize=4096)
def _token_matches(index: ModelIndex, token: str) -> tuple[tuple[str, float], ...]:
    """Vocabulary tokens this query token may stand for, with how well (1.0 = itself)."""
    out: dict[str, float] = {}
    if token in index.vocab:
        return ((token, 1.0),)  # a known word is itself: no fuzzy scan for it
    if is_version(token):
        for v in index.minors.get(token, ()):  # "3" for "3.1": the family's minor versions
            out.setdefault(v, PARTIAL_VERSION)
    elif len(token) >= 4:
        # Words with the same first letter first: a small list, and where typos almost
        # always land; the whole vocabulary only when that finds nothing.
        pools = ((index.words_by_initial.get(token[0], ()), TYPO_CUTOFF_SAME_INITIAL),)
        for pool, cutoff in (*pools, (index.words, TYPO_CUTOFF)):
            from rapidfuzz import fuzz, process  # on the first typo: ~7 ms to import

            hits = process.extract(token, pool, scorer=fuzz.ratio, score_cutoff=cutoff, limit=4)
            # A typo is one slip (two in a long word): "weather" is not "water", "magistral"
            # is another model than "mistral".
            edits = 1 if len(token) < LONG_WORD else 2
            hits = [h for h in hits if _slips(token, h[0], edits) <= edits]
            for word, score, _ in hits:
                out.setdefault(word, min(score / 100, TYPO_CAP))
            if hits:
                break
    return tuple(sorted(out.items(), key=lambda vq: -vq[1]))


_DOUBLED: Final = lazy(r"(.)\1+")


def _slips(typed: str, word: str, most: int) -> int:
    """Edits between a typed word and a name word; a doubled letter typed once or twice more
    is no slip ("lamma" for "llama")."""
    from rapidfuzz.distance import OSA  # loaded with the first typo, like the scorer

    plain = OSA.distance(typed, word, score_cutoff=most)
    if plain <= most:
        return plain
    return OSA.distance(_DOUBLED.sub(r"\1", typed), _DOUBLED.sub(r"\1", word), score_cutoff=most)


def _score_key(index: ModelIndex, kid: int, qinfo: _QInfo) -> tuple[float, bool, bool]:
    """Half how much of the name the words cover, half how much of the words the name has."""
    where = index.key_where[kid]
    weights = index.key_weights[kid]
    used: set[int] = set()
    got_k = got_q = total_q = 0.0
    complete, head = True, False
    for wq, matches in qinfo:  # matches: best quality first
        total_q += wq
        best_j, best, token = -1, 0.0, ""
        for v, quality in matches:
            for j in where.get(v, ()):
                if j not in used:
                    best_j, best, token = j, quality, v
                    break
            if best_j >= 0:
                break
        if best_j < 0:
            if wq >= 1.0:
                complete = False
            continue
        used.add(best_j)
        got_k += best * weights[best_j]
        got_q += best * wq
        if best < TYPO_CUTOFF_SAME_INITIAL / 100:
            complete = False
        if token in index.heads:
            head = True
    kc = got_k / index.key_total[kid]
    qc = got_q / total_q if total_q else 0.0
    return 50 * kc + 50 * qc, complete, head


_NONE: Final = (-1.0, False, False)


def _keep_best(best: _Scores, owners: tuple[int, ...], s: tuple[float, bool, bool]) -> None:
    for pos in owners:
        if s[0] > best.get(pos, (-1.0, False, False))[0]:
            best[pos] = s


def _options(index: ModelIndex, qinfo: _QInfo) -> tuple[list[tuple[_Option, ...]], float, bool]:
    """Per query word with matches, each match's points precomputed (the very products
    :func:`_score_key` adds); the words' total weight; False if a word no name holds counts."""
    total_q = 0.0
    complete = True
    words: list[tuple[_Option, ...]] = []
    weight, heads, weak = index.token_weight, index.heads, TYPO_CUTOFF_SAME_INITIAL / 100
    for wq, matches in qinfo:
        total_q += wq
        if matches:
            words.append(
                tuple((v, q * weight[v], q * wq, q < weak, v in heads) for v, q in matches)
            )
        elif wq >= 1.0:
            complete = False
    return words, total_q, complete


def _score_all(index: ModelIndex, qinfo: _QInfo, candidates: set[int]) -> _Scores:
    """Each candidate key's score, best per model. When no two query words may stand for the
    same name word (almost always), a word's match is the first of its list the key holds:
    one set lookup each, the same sums in the same order as :func:`_score_key`."""
    best: _Scores = {}
    owners = index.key_owners
    targets = [v for _, matches in qinfo for v, _ in matches]
    if len(targets) != len(set(targets)):  # a name word two query words compete for
        for kid in candidates:
            _keep_best(best, owners[kid], _score_key(index, kid, qinfo))
        return best
    words, total_q, base_complete = _options(index, qinfo)
    # The candidates split by the match each word takes (the first of its list a key holds,
    # found by set intersection): each part's sums, made once, in the words' order.
    postings = index.posting_sets
    parts: list[tuple[set[int], float, float, bool, bool]] = [
        (candidates, 0.0, 0.0, base_complete, False)
    ]
    for options in words:
        split = []
        for keys, got_k, got_q, complete, head in parts:
            for v, ck, cq, slip, is_head in options:
                hit = keys & postings[v]
                if hit:
                    split.append(
                        (hit, got_k + ck, got_q + cq, complete and not slip, head or is_head)
                    )
                    keys = keys - hit
                    if not keys:
                        break
            else:
                split.append((keys, got_k, got_q, False, head))
        parts = split
    sums: dict[int, tuple[float, float, bool, bool]] = {}
    for keys, got_k, got_q, complete, head in parts:
        sums.update(
            dict.fromkeys(keys, (got_k, 50 * (got_q / total_q if total_q else 0.0), complete, head))
        )
    key_total = index.key_total
    for kid in candidates:  # in the set's order, as before: the first of equal scores stays
        got_k, q_part, complete, head = sums[kid]
        score = 50 * (got_k / key_total[kid]) + q_part
        for pos in owners[kid]:
            if score > best.get(pos, _NONE)[0]:
                best[pos] = (score, complete, head)
    return best

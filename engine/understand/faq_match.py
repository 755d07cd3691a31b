"""Which FAQ topic a question is about: each keyword is filed under its rarest three-letter
piece, so a question only checks the few keywords whose piece it contains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.lazyre import lazy
from engine.understand.catalog_words import trie

FAQ_MIN_SCORE = 1.5  # one keyword of a few letters is not enough to call it an FAQ


@dataclass(frozen=True)
class FaqIndex:
    topics: tuple[str, ...]
    anchors: dict[str, tuple[tuple[str, int, float], ...]]  # trigram -> (keyword, topic, w)
    short: tuple[tuple[str, int, float], ...]  # keywords under three characters
    # Every anchor as a lookahead: findall lists the anchors in the text, overlapping, in order.
    anchor_scan: re.Pattern[str]
    ids: frozenset[str]


@per_catalog
def faq_index(catalog: Catalog) -> FaqIndex:
    entries = [
        (kw.lower(), i, 1 + len(kw) / 20)
        for i, t in enumerate(catalog.faq)
        for words in t.keywords.values()
        for kw in words
    ]
    grams: dict[str, int] = {}
    for kw, _, _ in entries:
        for g in {kw[j : j + 3] for j in range(len(kw) - 2)}:
            grams[g] = grams.get(g, 0) + 1
    anchors: dict[str, list[tuple[str, int, float]]] = {}
    short: list[tuple[str, int, float]] = []
    for e in entries:
        kw = e[0]
        if len(kw) < 3:
            short.append(e)
            continue
        anchor = min({kw[j : j + 3] for j in range(len(kw) - 2)}, key=lambda g: (grams[g], g))
        anchors.setdefault(anchor, []).append(e)
    return FaqIndex(
        topics=tuple(t.id for t in catalog.faq),
        anchors={g: tuple(v) for g, v in anchors.items()},
        short=tuple(short),
        anchor_scan=lazy("(?=(" + trie(set(anchors), " ") + "))"),
        ids=frozenset(t.id for t in catalog.faq),
    )


def match_faq(catalog: Catalog, text: str) -> str | None:
    """The FAQ topic whose keywords the text mentions most (phrases count by length)."""
    idx = faq_index(catalog)
    scores: dict[int, float] = {}  # only the topics some keyword names
    for kw, topic, weight in idx.short:
        if kw in text:
            scores[topic] = scores.get(topic, 0.0) + weight
    anchors = idx.anchors
    for g in dict.fromkeys(idx.anchor_scan.findall(text)):  # first places first, as written
        for kw, topic, weight in anchors[g]:
            if kw in text:
                scores[topic] = scores.get(topic, 0.0) + weight
    best, best_score = None, 0.0
    for topic in sorted(scores):  # the earlier topic wins a tie
        if scores[topic] > best_score:
            best, best_score = idx.topics[topic], scores[topic]
    return best if best_score >= FAQ_MIN_SCORE else None

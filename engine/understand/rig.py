"""Several different cards said together as one person's rig ("my 3090 + 3080", "mam 3090 i
3060"), told apart from a choice between them ("4090 or 3090", "4090 vs 3090").

The parser hands over the words between each two cards it read (the cards themselves cut out);
the cards are one rig when every gap joins them (and, +, a comma, i, และ) and none offers a
choice, and the message either adds them with "+" or says they are the asker's own (my, I
have, rig, total, mam, ผมมี).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from engine.lazyre import lazy

if TYPE_CHECKING:
    from engine.understand.query import Query

_CHOICE: Final = lazy(r"\b(?:or|vs|versus|lub|albo|czy|oder|instead)\b|หรือ|เทียบ|กับไหน")
_JOIN: Final = lazy(r"[+&,]|\b(?:and|plus|with|i|oraz|a)\b|และ|กับ|\bแล้วก็")
_PLUS: Final = lazy(r"\+|\bplus\b")
# "another", "a second", "drugą", "อีกใบ": one more card, so the cards are added, not compared
_ANOTHER: Final = lazy(
    r"\b(?:another|second|one\s+more|drug[aąi]\w*|kolejn\w+|jeszcze\s+jedn\w+)\b|อีก"
)
# "my 3090 and another one", "mam 3090 i drugą", "3090 และอีกใบ": one more of the card before
_ONE_MORE: Final = lazy(
    r"\s*(?:[+&,]|\b(?:and|plus|i|oraz)\b|และ|กับ)\s*(?:(?:another|a\s+second|one\s+more)"
    r"(?:\s+(?:one|card|gpu))?|drug[aąi]\w*|jeszcze\s+jedn\w+|kolejn\w+)(?!\w)"
    r"|\s*(?:และ|กับ)?\s*อีก\s*(?:ใบ|ตัว|การ์ด|หนึ่ง)"
)
_REPEAT_GAP_WORDS: Final = 4  # "and another", "+", ", a second": a repeat said right after its pair
_OWN: Final = lazy(
    r"\b(?:my|mine|i have|i've got|i got|i own|we have|our|rig|build|setup|box|total|combined"
    r"|together|mam|mamy|mój|moj|moja|moje|mojej|moim|mojego|moich|posiadam|razem|łącznie"
    r"|lacznie|zestaw|zestawie)\b|ของฉัน|ของผม|ฉันมี|ผมมี|เรามี|มี|รวม"
)


def joined(gaps: list[str], text: str) -> bool:
    """Whether the cards, with ``gaps`` the words between each two of them in ``text``, are one
    rig rather than a choice."""
    if not gaps or any(_CHOICE.search(g) or not _JOIN.search(g) for g in gaps):
        return False
    adds = any(_PLUS.search(g) or _ANOTHER.search(g) for g in gaps)
    return adds or _OWN.search(text) is not None


def rig_of(
    q: Query,
    named: list[tuple[str, int | None]],
    gaps: list[str],
    tail: str,
    text: str,
    more: bool = True,
) -> bool:
    """Whether the cards ``named`` (each mention in order, with the count said with it) are one
    rig; each mention of a card adds to its count ("3090 + 3060 + 3060" is a 3090 and two
    3060s; "my 3090 and another one" two 3090s), so a repeat is never dropped. ``more``: False
    when the text holds no literal every _ONE_MORE form has (gates.HAS_ONE_MORE)."""
    if named and more and _ONE_MORE.match(tail):  # "... and another one": the last card once more
        named, gaps = [*named, (named[-1][0], None)], [*gaps, " + "]
    cards = [*q.cards, *q.owned]
    added = len(named) > 1 and joined(gaps[1:], text)
    if added:
        totals: dict[str, int] = {}
        for i, (name, n) in enumerate(named):
            first = name not in totals
            if first or len(gaps[i].split()) <= _REPEAT_GAP_WORDS:
                totals[name] = totals.get(name, 0) + (n or 1)
        for c in cards:
            if totals.get(c.name, 1) > 1 and sum(m == c.name for m, _ in named) > 1:
                c.count = totals[c.name]
    return added and len(cards) > 1

"""Several different cards said together as one person's rig ("my 3090 + 3080", "mam 3090 i
3060"), told apart from a choice between them ("4090 or 3090", "4090 vs 3090").

The parser hands over the words between each two cards it read (the cards themselves cut out);
the cards are one rig when every gap joins them (and, +, a comma, i, และ) and none offers a
choice, and the message either adds them with "+" or says they are the asker's own (my, I
have, rig, total, mam, ผมมี).
"""

from __future__ import annotations

import re

_CHOICE = re.compile(r"\b(?:or|vs|versus|lub|albo|czy|oder|instead)\b|หรือ|เทียบ|กับไหน")
_JOIN = re.compile(r"[+&,]|\b(?:and|plus|with|i|oraz|a)\b|และ|กับ|\bแล้วก็")
_PLUS = re.compile(r"\+|\bplus\b")
_OWN = re.compile(
    r"\b(?:my|mine|i have|i've got|i got|i own|we have|our|rig|build|setup|box|total|combined"
    r"|together|mam|mamy|mój|moj|moja|moje|mojej|moim|mojego|moich|posiadam|razem|łącznie"
    r"|lacznie|zestaw|zestawie)\b|ของฉัน|ของผม|ฉันมี|ผมมี|เรามี|มี|รวม"
)


def joined(gaps: list[str], text: str) -> bool:
    """Whether the cards, with ``gaps`` the words between each two of them in ``text``, are one
    rig rather than a choice."""
    if not gaps or any(_CHOICE.search(g) or not _JOIN.search(g) for g in gaps):
        return False
    return any(_PLUS.search(g) for g in gaps) or _OWN.search(text) is not None

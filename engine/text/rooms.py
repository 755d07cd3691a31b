"""The room a tight line shows: never rounded up to the tight threshold it is flagged under."""

from __future__ import annotations

from engine.answer_types import FitChange
from engine.recommend import TIGHT_PER_CARD_GB, TIGHT_SINGLE_GB, is_tight
from engine.text.voice import Voice, ctx_label


def below(room: float, count: int = 1) -> float:
    """``room`` GB left on ``count`` cards, to show: when it is tight (SIZING.md rule 4) yet
    would round to the threshold ("5 GB to spare. Tight: under 5 GB left" for 4.96), the
    tenth under it (4.9; 1.9 per card on a set), so the figure and the flag agree."""
    limit = TIGHT_SINGLE_GB if count == 1 else TIGHT_PER_CARD_GB * count
    edge = limit - 0.05 * count  # from here up to the limit, the shown figure rounds to it
    return limit - 0.1 * count if edge <= room < limit else room


def tight_tail(v: Voice, c: FitChange) -> str:
    """A tight change's flag (SIZING.md rule 4), its room per card on a set; else ""."""
    if not is_tight(c.headroom_gb, c.count):
        return ""
    if c.count == 1:
        return " " + v.t("change.tight_one")
    return " " + v.t("change.tight", per_card=v.rooms[below(c.headroom_gb, c.count) / c.count])


def most_tail(v: Voice, c: FitChange) -> str:
    """A round context cut's list line: the longest context that fits, with no room left."""
    most = c.max_context_tokens
    return " " + v.t("change.max_context", ctx=ctx_label(most)) if most else ""

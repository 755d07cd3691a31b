"""Fitting a line into a chat's share of characters: counted as the platforms count them,
and cut where a statement ends, so no sentence or number is left half said."""

from __future__ import annotations

import re

ELLIPSIS = "…"
_SPACES = re.compile(r"[ \t\r\n]+")


def spaced(text: str) -> str:
    """Runs of whitespace as one space (not str.split(): it would eat no-break spaces)."""
    return _SPACES.sub(" ", text).strip()


def units(text: str) -> int:
    """Length as both chat platforms count it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` units, cut where a statement ends: after the last whole
    sentence, else the last clause ("; "), else the last word; never inside a number."""
    text = spaced(text)
    if units(text) <= limit:
        return text
    out = ""
    for ch in text:
        if units(out + ch) > limit - 1:
            break
        out += ch
    floor = len(out) // 3  # a cut keeps at least a third of what fits
    rest = text[len(out) :]
    if rest.startswith(" ") and out.endswith((".", "!", "?")):
        return out  # the cut falls just after a sentence
    for ends, keep in ((_SENTENCE_ENDS, True), (_CLAUSE_ENDS, False)):
        at = max(out.rfind(e) for e in ends)
        if at >= floor:
            return out[: at + 1] if keep else out[:at].rstrip() + ELLIPSIS
    cut = out.rsplit(" ", 1)[0] if " " in out[len(out) // 2 :] else out
    return cut.rstrip(" ,;:·-") + ELLIPSIS


_SENTENCE_ENDS = (". ", "! ", "? ")  # "2.5 GB" or "1,234" have no space after the mark
_CLAUSE_ENDS = ("; ", " · ")

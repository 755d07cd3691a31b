"""Text as people paste it -> text the slot patterns read: width forms, Thai digits,
invisible characters and markup go; the length cap applies after Unicode normalisation.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from engine.lazyre import lazy
from engine.limits import MAX_QUERY_CHARS

# NFKC may also shrink text (composition): read a margin
NORMALISE_CHARS: Final = 4 * MAX_QUERY_CHARS
_THAI_DIGITS: Final = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_INVISIBLE: Final = lazy(
    r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb]"
)
_MARKUP: Final = lazy(r"</?[a-z][a-z0-9]{0,10}(?:\s[^<>]{0,80})?/?>|\*\*|__|`+|~~|\|\|", re.I)
# str.translate reads its table per character (several us on a Thai question): only a text
# that holds a Thai digit is changed by it.
_THAI_DIGIT: Final = lazy(r"[๐-๙]")


def _has_markup(text: str) -> bool:
    """What each _MARKUP form holds ("q4_k_m" has none of them)."""
    return (
        "<" in text or "**" in text or "__" in text or "`" in text or "~~" in text or "||" in text
    )


def clean(text: str) -> tuple[str, bool]:
    """Normalise what people paste: width forms, Thai digits, invisible characters, markup."""
    if len(text) <= MAX_QUERY_CHARS and text.isascii() and text.isprintable():
        # Most questions: no NFKC, Thai digit, invisible character or dash to change, and
        # its only whitespace is " " (printable ASCII), so the join changes only runs of it.
        if _has_markup(text):
            text = _MARKUP.sub(" ", text)
        elif "  " not in text and text[:1] != " " and text[-1:] != " ":
            return text, False
        return " ".join(text.split()), False
    long = len(text) > NORMALISE_CHARS
    text = text[:NORMALISE_CHARS]
    if not text.isascii():
        # The cap counts characters after NFKC, which can turn one character into 18.
        text = unicodedata.normalize("NFKC", text)
        if _THAI_DIGIT.search(text):
            text = text.translate(_THAI_DIGITS)
    truncated = long or len(text) > MAX_QUERY_CHARS
    text = text[:MAX_QUERY_CHARS]
    if not (text.isascii() and text.isprintable()):  # printable ASCII has none of them
        text = _INVISIBLE.sub(" ", text)
    if _has_markup(text):
        text = _MARKUP.sub(" ", text)
    if not text.isascii():
        text = text.replace("×", "x").replace("–", "-").replace("—", "-").replace("’", "'")
    return " ".join(text.split()), truncated  # str.split's whitespace is exactly regex \s

"""Text as people paste it -> text the slot patterns read: width forms, Thai digits,
invisible characters and markup go; the length cap applies after Unicode normalisation.
"""

from __future__ import annotations

import re
import unicodedata

from engine.lazyre import lazy
from engine.limits import MAX_QUERY_CHARS

NORMALISE_CHARS = 4 * MAX_QUERY_CHARS  # NFKC may also shrink text (composition): read a margin
_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_INVISIBLE = lazy(
    r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb]"
)
_MARKUP = lazy(r"</?[a-z][a-z0-9]{0,10}(?:\s[^<>]{0,80})?/?>|\*\*|__|`+|~~|\|\|", re.I)
# str.translate reads its table per character (several us on a Thai question): only a text
# that holds a Thai digit is changed by it.
_THAI_DIGIT = lazy(r"[๐-๙]")


def clean(text: str) -> tuple[str, bool]:
    """Normalise what people paste: width forms, Thai digits, invisible characters, markup."""
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
    if "<" in text or "*" in text or "_" in text or "`" in text or "~" in text or "|" in text:
        # each character a _MARKUP form opens with, tested in turn (cheaper than a class)
        text = _MARKUP.sub(" ", text)
    if not text.isascii():
        text = text.replace("×", "x").replace("–", "-").replace("—", "-").replace("’", "'")
    return " ".join(text.split()), truncated  # str.split's whitespace is exactly regex \s

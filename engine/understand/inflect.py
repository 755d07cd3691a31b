"""Polish case endings on model names: "z llamą", "deepseeka", "gemmę", "qwenem" name the
same models as "llama", "deepseek", "gemma" and "qwen".

Word-level and bounded: a word the model vocabulary already has is left alone, and an ending
is only taken off when what remains is a vocabulary word, so nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from engine.lazyre import lazy

# (ending, what replaces it), longest endings first: "llamie" -> "llama", "qwenem" -> "qwen".
_ENDINGS: Final = (
    ("iem", ""), ("owi", ""), ("ach", "a"), ("ami", "a"), ("ie", "a"), ("ie", ""), ("em", ""),
    ("ą", "a"), ("ę", "a"), ("y", "a"), ("i", "a"), ("a", ""), ("u", ""), ("e", ""),
    ("ą", ""), ("ę", ""),
)  # fmt: skip
MIN_STEM: Final = 3
# The endings by their last letter, in the same order: most words end in none of them.
_BY_LAST: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    last: tuple(e for e in _ENDINGS if e[0][-1] == last) for last in {e[0][-1] for e in _ENDINGS}
}


# "(?<=[^\d.])[\d.]+$", opening with the class so the regex engine skips to a digit or "."
_TRAILING_VERSION: Final = lazy(r"[\d.](?<=[^\d.][\d.])[\d.]*$")


def base_form(word: str, vocab: Collection[str]) -> str:
    """The vocabulary word an inflected name stands for, or the word itself. A version glued
    on stays: "qwenem3" is "qwen3"."""
    if word in vocab or len(word) <= MIN_STEM:
        return word
    if (m := _TRAILING_VERSION.search(word)) and m.start() > MIN_STEM:
        stem = base_form(word[: m.start()], vocab)
        return stem + m.group(0) if stem != word[: m.start()] else word
    for ending, repl in _BY_LAST.get(word[-1], ()):
        if word.endswith(ending) and len(word) - len(ending) >= MIN_STEM:
            stem = word[: -len(ending)] + repl
            if stem in vocab:
                return stem
    return word

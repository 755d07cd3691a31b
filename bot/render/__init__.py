"""Answer -> platform text. Pure functions, no network: every renderer formats the same blocks.

Each renderer escapes every line it did not write itself for its own markup, because lines
can carry the user's words (a model name that was not found, for instance).
"""

from __future__ import annotations

from bot.render.markdown import format_markdown
from bot.render.text import format_text
from engine import Answer
from engine.i18n import t

__all__ = ["footer", "format_markdown", "format_text"]


def footer(answer: Answer, catalog) -> str:  # type: ignore[no-untyped-def]
    if not answer.prices_as_of or answer.kind in ("help", "clarify", "error"):
        return ""
    return t(catalog, answer.lang, "render.prices_as_of", date=answer.prices_as_of)

"""Plain text for terminals and "copy as plain text"."""

from __future__ import annotations

from bot.render import footer
from engine import Answer, Catalog
from engine.i18n import t


def format_text(answer: Answer, catalog: Catalog, math: bool = False) -> str:
    parts = [answer.text]
    if math and answer.math:
        parts.append(
            t(catalog, answer.lang, "render.show_math")
            + ":\n"
            + "\n".join(f"  {line}" for line in answer.math)
        )
    parts.append(footer(answer, catalog))
    return "\n\n".join(p for p in parts if p)

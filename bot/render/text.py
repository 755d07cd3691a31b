"""Plain text for terminals and "copy as plain text"."""

from __future__ import annotations

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
    if answer.prices_as_of and answer.kind not in ("help", "clarify", "error", "faq"):
        parts.append(t(catalog, answer.lang, "render.prices_as_of", date=answer.prices_as_of))
    return "\n\n".join(p for p in parts if p)

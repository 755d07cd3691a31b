"""Plain text for terminals and "copy as plain text": the short form, then every detail.

Plain on purpose: no Markdown escapes, so it pastes cleanly into any ticket system.
"""

from __future__ import annotations

from bot.render.common import footer
from bot.render.short import detail_blocks, short_lines
from engine import Answer, Catalog


def format_text(answer: Answer, catalog: Catalog, math: bool = False) -> str:
    """Verdict lines first; then titled blocks, lines indented under their title."""
    parts = ["\n".join(short_lines(answer, catalog, more_line=False))]
    for block in detail_blocks(answer, catalog, math):
        if block.kind == "math":
            body = "\n".join(f"  {line}" for line in block.lines)
            parts.append(f"{block.title}:\n{body}")
        elif block.title:
            body = "\n".join(f"  {line}" for line in block.lines)
            parts.append(f"{block.title}\n{body}")
        else:
            parts.append("\n".join(block.lines))
    parts.append(footer(answer, catalog))
    return "\n\n".join(p for p in parts if p)

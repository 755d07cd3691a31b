"""Answer -> platform text. Pure functions, no network: every renderer formats the same blocks.

Each renderer escapes every line it did not write itself for its own markup, because lines
can carry the user's words (a model name that was not found, for instance). The package
re-exports the plain renderers; its modules import each other, never this package.
"""

from __future__ import annotations

from bot.render.common import footer, quotes_price
from bot.render.markdown import format_markdown
from bot.render.text import format_text

__all__ = ["footer", "format_markdown", "format_text", "quotes_price"]

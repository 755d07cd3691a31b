"""vramchat's pure core: catalog, sizing arithmetic, card rules, parsing and the Answer.

Adapters call :func:`ask` and render the :class:`Answer`; nothing here does network I/O,
reads the environment or imports a platform library.
"""

from engine.answer import Context, ask, context_of, default_catalog, render_text
from engine.catalog import Catalog, load_catalog
from engine.conversation import Conversations
from engine.errors import CatalogError, QueryError, VramchatError
from engine.models import Answer, Request

__all__ = [
    "Answer",
    "Catalog",
    "CatalogError",
    "Context",
    "Conversations",
    "QueryError",
    "Request",
    "VramchatError",
    "ask",
    "context_of",
    "default_catalog",
    "load_catalog",
    "render_text",
]

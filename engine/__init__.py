"""vramchat's pure core: catalog, sizing arithmetic, card rules, parsing and the Answer.

Adapters call :func:`ask` (free text, plus :class:`RequestOptions` for values they already
hold as fields) or :func:`compare` (several things side by side) and render the
:class:`Answer`; nothing here does network I/O, reads the
environment or imports a platform library. Everything an adapter needs is named here.
"""

# isort: off
import engine.native_guard  # noqa: F401  (first: a stale compiled build is bypassed)

# isort: on
from engine.answer import ask, compare, context_of, default_catalog
from engine.answer_types import (
    Answer,
    BudgetOption,
    Candidate,
    CardInfo,
    Context,
    Fit,
    FitChange,
    Limit,
    ModelRef,
    Note,
    Pick,
    Request,
    RequestOptions,
    Section,
)
from engine.catalog import Catalog, fleet_shrink, load_catalog
from engine.conversation import Conversations
from engine.errors import CatalogError, QueryError, VramchatError
from engine.i18n import pick_lang, t
from engine.limits import (
    DEFAULT_BATCH,
    DEFAULT_CONTEXT,
    MAX_BATCH,
    MAX_CONTEXT_TOKENS,
    MAX_QUERY_CHARS,
    parse_token_count,
)
from engine.models import LANGS, Card, Lang, ModelSpec, Task
from engine.refs import card_info
from engine.rounding import fmt_gb, fmt_num, fmt_usd
from engine.suggest import (
    MAX_CHOICE_CHARS,
    is_context_value,
    search_models,
    suggest_cards,
    suggest_models,
)
from engine.text.voice import ctx_label, render_text
from engine.warm import warm_up

__all__ = [
    "DEFAULT_BATCH",
    "DEFAULT_CONTEXT",
    "LANGS",
    "MAX_BATCH",
    "MAX_CHOICE_CHARS",
    "MAX_CONTEXT_TOKENS",
    "MAX_QUERY_CHARS",
    "Answer",
    "BudgetOption",
    "Candidate",
    "Card",
    "CardInfo",
    "Catalog",
    "CatalogError",
    "Context",
    "Conversations",
    "Fit",
    "FitChange",
    "Lang",
    "Limit",
    "ModelRef",
    "ModelSpec",
    "Note",
    "Pick",
    "QueryError",
    "Request",
    "RequestOptions",
    "Section",
    "Task",
    "VramchatError",
    "ask",
    "card_info",
    "compare",
    "context_of",
    "ctx_label",
    "default_catalog",
    "fleet_shrink",
    "fmt_gb",
    "fmt_num",
    "fmt_usd",
    "is_context_value",
    "load_catalog",
    "parse_token_count",
    "pick_lang",
    "render_text",
    "search_models",
    "suggest_cards",
    "suggest_models",
    "t",
    "warm_up",
]

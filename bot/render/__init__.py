"""Answer -> platform text. Pure functions, no network: every renderer formats the same blocks.

Each renderer escapes every line it did not write itself for its own markup, because lines
can carry the user's words (a model name that was not found, for instance).
"""

from __future__ import annotations

from engine import Answer, Catalog, t

__all__ = ["footer", "format_markdown", "format_text", "quotes_price"]

NO_FOOTER_KINDS = ("help", "clarify", "error", "faq")  # answers that quote no price


def quotes_price(answer: Answer) -> bool:
    """Whether the answer names a price (a pick, a fit's set, a card, a budget row)."""
    fit_price = answer.fit is not None and answer.fit.monthly_usd is not None
    return bool(
        answer.recommendation
        or answer.alternatives
        or fit_price
        or answer.card
        or answer.cards
        or answer.budget
    )


def footer(answer: Answer, catalog: Catalog) -> str:
    """ "Prices as of <date>." for answers that quote prices, else ""; the same everywhere."""
    if not answer.prices_as_of or answer.kind in NO_FOOTER_KINDS or not quotes_price(answer):
        return ""
    return t(catalog, answer.lang, "render.prices_as_of", date=answer.prices_as_of)


# Re-exported for callers that want every plain renderer in one import; imported after
# ``footer`` because those modules use it.
from bot.render.markdown import format_markdown  # noqa: E402
from bot.render.text import format_text  # noqa: E402

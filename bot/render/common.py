"""What every renderer shares: whether an answer quotes a price, and the prices-as-of line."""

from __future__ import annotations

from engine import Answer, Catalog, t

__all__ = ["NO_FOOTER_KINDS", "footer", "quotes_price"]

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

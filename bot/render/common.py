"""What every renderer shares: whether an answer quotes a price, the prices-as-of line, and
the link buttons (rent the card, reach sales) an answer gets when their URLs are set."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from engine import Answer, Catalog, t

__all__ = ["NO_FOOTER_KINDS", "Links", "footer", "link_buttons", "quotes_price"]

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


@dataclass(frozen=True)
class Links:
    """Where the link buttons go (from the settings); a ``None`` URL hides its button.
    ``rent`` may hold ``{card}``: the recommended card's name, URL-quoted."""

    rent: str | None = None
    sales: str | None = None


def _rented_card(answer: Answer, catalog: Catalog) -> str | None:
    """The card to rent: the one asked about when it fits, else the one recommended."""
    fit = answer.fit
    if fit is not None and fit.fits and fit.card in catalog.card_by_name:
        return fit.card
    if answer.recommendation is not None:
        return answer.recommendation.card
    if answer.kind == "card" and answer.card is not None:
        return answer.card.name
    return None


def link_buttons(answer: Answer, catalog: Catalog, links: Links | None) -> list[tuple[str, str]]:
    """(label, URL) of each link button the answer gets: "Rent" when a card is recommended,
    "Talk to sales" for a cluster quote and the sales FAQ; none when the URL is unset."""
    if links is None:
        return []
    out: list[tuple[str, str]] = []
    card = _rented_card(answer, catalog)
    if links.rent and card is not None:
        url = links.rent.replace("{card}", quote(card, safe=""))
        out.append((t(catalog, answer.lang, "render.link.rent", card=card), url))
    sales = answer.cluster_nodes is not None or answer.faq_topic == "sales"
    if links.sales and sales:
        out.append((t(catalog, answer.lang, "render.link.sales"), links.sales))
    return out

"""Discord components under an answer: the details/math button, alternative-card buttons and
the "which model?" menu. Pure: each carries a token in its ``custom_id``; what a press does
is the client's ``handle_component`` (:class:`ComponentHandler`).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from bot.render.common import Links, link_buttons
from bot.render.discord import (
    ALT_BUTTONS_MAX,
    ELLIPSIS,
    LABEL_MAX,
    OPTION_MAX,
    TOKEN_PATTERN,
    _clip,
    has_details,
)
from engine import Answer, Catalog, Pick, fmt_usd, t

__all__ = [
    "AltButton",
    "ComponentHandler",
    "MathButton",
    "ModelSelect",
    "alt_label",
    "format_view",
]


class ComponentHandler(Protocol):
    """What the client must offer for the buttons and menu below to do anything."""

    async def handle_component(
        self, interaction: discord.Interaction[Any], action: str, token: str, value: str
    ) -> None: ...


async def _dispatch(
    interaction: discord.Interaction[Any], action: str, token: str, value: str
) -> None:
    handler = getattr(interaction.client, "handle_component", None)
    if handler is not None:
        await handler(interaction, action, token, value)


class MathButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=rf"vc:math:(?P<token>{TOKEN_PATTERN})",
):
    """The "show the math" button: edits the answer to add the formula with this question's numbers."""

    def __init__(self, token: str, label: str = ELLIPSIS) -> None:
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=_clip(label, LABEL_MAX),
            emoji="🧮",
            style=discord.ButtonStyle.secondary,
            custom_id=f"vc:math:{token}",
        )
        super().__init__(button)
        self.token = token

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> MathButton:
        return cls(match["token"], getattr(item, "label", None) or ELLIPSIS)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _dispatch(interaction, "math", self.token, "")


class AltButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=rf"vc:alt:(?P<token>{TOKEN_PATTERN}):(?P<index>\d)",
):
    """An alternative card: answers how the same request fits on that card."""

    def __init__(self, token: str, index: int, label: str = ELLIPSIS) -> None:
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=_clip(label, LABEL_MAX),
            style=discord.ButtonStyle.primary,
            custom_id=f"vc:alt:{token}:{index}",
        )
        super().__init__(button)
        self.token = token
        self.index = index

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> AltButton:
        label = getattr(item, "label", None) or ELLIPSIS
        return cls(match["token"], int(match["index"]), label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _dispatch(interaction, "alt", self.token, str(self.index))


class ModelSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=rf"vc:pick:(?P<token>{TOKEN_PATTERN})",
):
    """The model menu for an ambiguous name: picking one answers the question for it."""

    def __init__(
        self, token: str, options: list[discord.SelectOption], placeholder: str = ELLIPSIS
    ) -> None:
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"vc:pick:{token}",
            placeholder=_clip(placeholder, 150),
            options=options[:25] or [discord.SelectOption(label=ELLIPSIS, value="-")],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)
        self.token = token

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ModelSelect:
        options = list(getattr(item, "options", []) or [])
        return cls(match["token"], options, getattr(item, "placeholder", None) or ELLIPSIS)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        await _dispatch(interaction, "pick", self.token, values[0] if values else "")


def alt_label(pick: Pick, catalog: Catalog, lang: str) -> str:
    """ "4× RTX A6000 · $1,216/mo": the set and what it costs, so the choice is informed."""
    price = t(catalog, lang, "short.per_month", price=fmt_usd(pick.monthly_usd, lang))
    if pick.precision:
        return t(
            catalog,
            lang,
            "dc.button.alt_precision",
            count=pick.count,
            card=pick.card,
            precision=pick.precision.upper(),
            price=price,
        )
    return t(catalog, lang, "dc.button.alt", count=pick.count, card=pick.card, price=price)


def format_view(
    answer: Answer,
    catalog: Catalog,
    token: str,
    *,
    math_shown: bool = False,
    links: Links | None = None,
) -> discord.ui.View | None:
    """Buttons for the math and up to two alternative cards, or the menu for a vague model;
    then the link buttons (rent the card, talk to sales) whose URLs are set.

    ``timeout=None`` and dynamic items only: nothing per message is kept by discord.py.
    """
    lang = answer.lang
    view = discord.ui.View(timeout=None)
    if answer.kind == "clarify" and answer.candidates:
        options = [
            discord.SelectOption(label=_clip(c.name, OPTION_MAX), value=c.id[:OPTION_MAX])
            for c in answer.candidates[:25]
        ]
        view.add_item(ModelSelect(token, options, t(catalog, lang, "dc.select.placeholder")))
        return view
    if not math_shown and has_details(answer, catalog):
        key = "dc.button.details_math" if answer.math else "dc.button.details"
        view.add_item(MathButton(token, t(catalog, lang, key)))
    for i, alt in enumerate(answer.alternatives[:ALT_BUTTONS_MAX]):
        view.add_item(AltButton(token, i, alt_label(alt, catalog, lang)))
    for label, url in link_buttons(answer, catalog, links):
        view.add_item(discord.ui.Button(label=_clip(label, LABEL_MAX), url=url))
    return view if view.children else None

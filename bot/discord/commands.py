"""The slash commands, registered in one place, and their pl/th texts.

Names, descriptions and choices are message keys (``data/messages/discord.*.yaml``), so
they localize through :class:`VramTranslator`; the handlers they call are on the bot
(:class:`bot.discord.handlers.VramMixin`), reached through :class:`CommandHost`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation

from bot.desk import Desk
from engine import MAX_CHOICE_CHARS, Catalog, RequestOptions, pick_lang, t

__all__ = [
    "CONTEXT_HINTS",
    "PRECISIONS",
    "TASKS",
    "CommandHost",
    "VramTranslator",
    "register_commands",
]

PRECISIONS = ("bf16", "fp16", "fp8", "int8", "int4", "q4_k_m", "q8_0")
TASKS = ("inference", "full", "lora", "qlora")  # the engine's task names
MAX_COUNT = 64
CONTEXT_HINTS = ("4k", "8k", "16k", "32k", "64k", "128k", "256k", "1M")
MAX_BATCH = 100_000
CHOICES_MAX = 25


class CommandHost(Protocol):
    """What the commands need from the bot they are registered on."""

    desk: Desk

    @property
    def tree(self) -> app_commands.CommandTree[Any]: ...

    async def cmd_vram(
        self, interaction: discord.Interaction[Any], query: str, options: RequestOptions
    ) -> None: ...

    async def cmd_compare(
        self, interaction: discord.Interaction[Any], items: list[str], options: RequestOptions
    ) -> None: ...

    async def cmd_named(
        self, interaction: discord.Interaction[Any], options: RequestOptions
    ) -> None: ...

    async def cmd_reload(self, interaction: discord.Interaction[Any]) -> None: ...

    def query_choices(self, current: str) -> list[app_commands.Choice[str]]: ...

    def card_choices(self, current: str) -> list[app_commands.Choice[str]]: ...

    def item_choices(self, current: str) -> list[app_commands.Choice[str]]: ...

    def context_choices(self, current: str) -> list[app_commands.Choice[str]]: ...


class VramTranslator(app_commands.Translator):
    """Command, option and choice texts for pl and th from the message tables.

    Each translatable string is a ``locale_str`` whose ``key`` extra names the message; the
    catalog is read on every call so ``/reload`` followed by a sync picks up new wording.
    """

    def __init__(self, catalog: Callable[[], Catalog]) -> None:
        self._catalog = catalog

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        lang = pick_lang(locale.value)
        key = string.extras.get("key")
        if lang in (None, "en") or not key:
            return None
        text = self._catalog().messages.get(lang, {}).get(key)
        if not text:
            return None
        if context.location is TranslationContextLocation.choice_name:
            return text[:MAX_CHOICE_CHARS]
        return text


# --------------------------------------------------------------------------- commands


def _context(value: str | None) -> str | None:
    """A ``context:`` option as typed; the engine reads it ("128k") or refuses it."""
    return value.strip()[:40] if value is not None else None


def _everywhere(command: Any) -> Any:
    """Usable in servers, DMs and group DMs, and by people who install the app for
    themselves (Discord's user install), not only where a server admin added the bot."""
    command = app_commands.allowed_installs(guilds=True, users=True)(command)
    return app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)(command)


def _labelled(text: Callable[[str], app_commands.locale_str], *names: str) -> Callable[[Any], Any]:
    """Name and describe each option in ``names`` by its message keys
    (``dc.opt.<option>.name`` / ``.desc``), so every command words a shared option alike."""

    def apply(command: Any) -> Any:
        command = app_commands.describe(**{n: text(f"dc.opt.{n}.desc") for n in names})(command)
        return app_commands.rename(**{n: text(f"dc.opt.{n}.name") for n in names})(command)

    return apply


def _command(
    tree: app_commands.CommandTree[Any], text: Callable[[str], app_commands.locale_str], name: str
) -> Callable[[Any], Any]:
    """``tree.command`` named and described by the keys ``dc.cmd.<name>.name`` / ``.desc``."""
    return tree.command(name=text(f"dc.cmd.{name}.name"), description=text(f"dc.cmd.{name}.desc"))


def _autocomplete(
    command: Any, option: str, choices: Callable[[str], list[app_commands.Choice[str]]]
) -> None:
    """Complete ``option`` of ``command`` with ``choices`` (a bot method)."""

    async def complete(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return choices(current)

    command.autocomplete(option)(complete)


def _sizing_commands(
    bot: CommandHost,
    text: Callable[[str], app_commands.locale_str],
    precision_choices: list[app_commands.Choice[str]],
) -> None:
    """/vram, /fit and /compare: the commands that size something, with typed options."""
    tree = bot.tree
    task_choices = [app_commands.Choice(name=text(f"dc.task.{task}"), value=task) for task in TASKS]

    @_command(tree, text, "vram")
    @_everywhere
    @_labelled(text, "query", "precision", "context", "batch", "task", "card")
    @app_commands.choices(precision=precision_choices, task=task_choices)
    async def vram(
        interaction: discord.Interaction[Any],
        query: str,
        precision: str | None = None,
        context: str | None = None,
        batch: app_commands.Range[int, 1, MAX_BATCH] | None = None,
        task: str | None = None,
        card: str | None = None,
    ) -> None:
        options = RequestOptions(
            precision=precision,
            context_tokens=_context(context),
            batch=batch,
            task=task,
            card=card.strip()[:80] if card else None,
        )
        await bot.cmd_vram(interaction, query, options)

    _autocomplete(vram, "query", bot.query_choices)
    _autocomplete(vram, "context", bot.context_choices)
    _autocomplete(vram, "card", bot.card_choices)

    @_command(tree, text, "fit")
    @_everywhere
    @_labelled(text, "model", "card", "count", "precision", "context")
    @app_commands.choices(precision=precision_choices)
    async def fit(
        interaction: discord.Interaction[Any],
        model: str,
        card: str,
        count: app_commands.Range[int, 1, MAX_COUNT] | None = None,
        precision: str | None = None,
        context: str | None = None,
    ) -> None:
        options = RequestOptions(
            card=card.strip()[:80],
            count=count,
            precision=precision,
            context_tokens=_context(context),
        )
        await bot.cmd_vram(interaction, model, options)

    _autocomplete(fit, "model", bot.query_choices)
    _autocomplete(fit, "card", bot.card_choices)
    _autocomplete(fit, "context", bot.context_choices)

    @_command(tree, text, "compare")
    @_everywhere
    @_labelled(text, "first", "second", "third", "precision", "context")
    @app_commands.choices(precision=precision_choices)
    async def compare(
        interaction: discord.Interaction[Any],
        first: str,
        second: str,
        third: str | None = None,
        precision: str | None = None,
        context: str | None = None,
    ) -> None:
        items = [i.strip() for i in (first, second, third) if i and i.strip()]
        options = RequestOptions(precision=precision, context_tokens=_context(context))
        await bot.cmd_compare(interaction, items, options)

    for option in ("first", "second", "third"):
        _autocomplete(compare, option, bot.item_choices)
    _autocomplete(compare, "context", bot.context_choices)


def register_commands(bot: CommandHost) -> None:
    """Every slash command in one place; texts are message keys so they localize."""
    catalog = bot.desk.catalog
    tree = bot.tree

    def text(key: str) -> app_commands.locale_str:
        return app_commands.locale_str(t(catalog, "en", key), key=key)

    precision_choices = [app_commands.Choice(name=p, value=p) for p in PRECISIONS]
    faq_choices = [
        app_commands.Choice(
            name=app_commands.locale_str(
                t(catalog, "en", f"faq.{topic.id}.title")[:MAX_CHOICE_CHARS],
                key=f"faq.{topic.id}.title",
            ),
            value=topic.id,
        )
        for topic in catalog.faq[:CHOICES_MAX]
    ]
    _sizing_commands(bot, text, precision_choices)

    @_command(tree, text, "gpus")
    @_everywhere
    async def gpus(interaction: discord.Interaction[Any]) -> None:
        await bot.cmd_named(interaction, RequestOptions(kind="cards"))

    @_command(tree, text, "card")
    @_everywhere
    @_labelled(text, "name")
    async def card(interaction: discord.Interaction[Any], name: str) -> None:
        await bot.cmd_named(interaction, RequestOptions(kind="card", card=name.strip()[:80]))

    _autocomplete(card, "name", bot.card_choices)

    @_command(tree, text, "faq")
    @_everywhere
    @_labelled(text, "topic")
    @app_commands.choices(topic=faq_choices)
    async def faq(interaction: discord.Interaction[Any], topic: str) -> None:
        await bot.cmd_named(interaction, RequestOptions(kind="faq", faq_topic=topic))

    @_command(tree, text, "help")
    @_everywhere
    async def help_(interaction: discord.Interaction[Any]) -> None:
        await bot.cmd_named(interaction, RequestOptions(kind="help"))

    @_command(tree, text, "reload")
    @app_commands.default_permissions(manage_guild=True)
    async def reload(interaction: discord.Interaction[Any]) -> None:
        await bot.cmd_reload(interaction)

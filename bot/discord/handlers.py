"""What the Discord bot does with each event: slash commands, buttons, mentions, errors.

Options and button presses reach the engine as typed :class:`engine.RequestOptions`: the
/vram ``precision:``, ``context:`` and ``batch:`` options, the model picked in a "which
model?" menu (the person's own question asked again with that model id), or an
alternative card (a follow-up of the answer it sits on, with only the card changed). No
English is written for the engine to read back. A ``context:`` the engine cannot use
(``0``, ``lots``) gets a private one-line explanation, never a silent default.

Buttons act only for the person who asked: anyone else who presses one gets a private copy
of the answer, and the asker's message stays as it was.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

import discord
from discord import app_commands

from bot.desk import Desk, Limited
from bot.discord.commands import CONTEXT_HINTS, VramTranslator
from bot.discord.respond import NO_MENTIONS, Reply, Responder, ready
from bot.lifecycle import apology, reload_off_loop, report
from bot.logs import REQUEST_ID
from bot.memo import ButtonMemo, Memos, alternative_options, candidate_options
from bot.render.common import Links, link_buttons
from bot.render.discord import escape, format_embed, format_limited
from bot.render.discord_components import AltButton, MathButton, ModelSelect, format_view
from bot.settings import Settings
from engine import (
    MAX_CHOICE_CHARS,
    Answer,
    Catalog,
    Context,
    RequestOptions,
    context_of,
    pick_lang,
    suggest_cards,
    suggest_models,
    t,
)

__all__ = ["CHOICES_MAX", "MEMO_SIZE", "PLATFORM", "VramMixin"]

log = logging.getLogger("vramchat.discord")

PLATFORM = "discord"
MEMO_SIZE = 2048  # answers kept for their buttons (a few KB each)
CHOICES_MAX = 25
_SYNC_WORDS = frozenset({"sync", "/sync"})


class VramMixin(Responder):
    """Everything vramchat adds to a discord.py bot; mixed into Bot and AutoShardedBot."""

    desk: Desk
    settings: Settings
    sync_on_start: bool
    memos: Memos

    def _init_vram(self, settings: Settings, desk: Desk, sync: bool) -> None:
        self.settings = settings
        self.desk = desk
        self.sync_on_start = sync
        self.memos = Memos(PLATFORM, store=desk.store, max_items=MEMO_SIZE, ref_bytes=6)

    # -- lifecycle
    async def setup_hook(self) -> None:
        """Translator and button handlers; commands are synced only when asked to."""
        await self.tree.set_translator(VramTranslator(lambda: self.desk.catalog))
        self.add_dynamic_items(MathButton, AltButton, ModelSelect)
        if self.sync_on_start:
            await self.sync_commands()

    async def on_ready(self) -> None:
        user = self.user
        log.info(
            "discord ready as %s (id %s) in %d servers, shards %s",
            user,
            user.id if user else "?",
            len(self.guilds),
            self.shard_count or 1,
        )

    async def sync_commands(self) -> tuple[int, str]:
        """PUT the command set to DISCORD_GUILD_ID (instant) or globally (slow to appear)."""
        guild_id = self.settings.discord_guild_id
        if guild_id:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d slash commands to guild %s", len(synced), guild_id)
            return len(synced), "guild"
        synced = await self.tree.sync()
        log.info("synced %d slash commands globally", len(synced))
        return len(synced), "global"

    # -- helpers
    @property
    def catalog(self) -> Catalog:
        return self.desk.catalog

    @property
    def links(self) -> Links:
        """The link buttons' URLs from the settings (unset: no button)."""
        return Links(self.settings.vramchat_rent_url, self.settings.vramchat_sales_url)

    def links_for(self, answer: Answer) -> bool:
        return bool(link_buttons(answer, self.catalog, self.links))

    def lang_of(self, interaction: discord.Interaction[Any]) -> str:
        return pick_lang(interaction.locale.value) or "en"

    @staticmethod
    def chat_key(channel_id: int | None, user_id: int) -> str:
        """Follow-ups are per person per channel, so a busy channel does not mix requests."""
        return f"{channel_id or 'dm'}:{user_id}"

    async def _reply_for(
        self,
        result: Answer | Limited,
        question: str,
        *,
        owner: int,
        previous: Context | None = None,
        options: RequestOptions | None = None,
    ) -> Reply:
        if isinstance(result, Limited):
            return Reply(content=format_limited(result, self.catalog), ephemeral=True)
        if result.kind == "error" and options is not None:  # an option we cannot use
            return Reply(content=escape(result.text or result.headline), ephemeral=True)
        embed = format_embed(result, self.catalog)
        view = None
        if result.math or result.alternatives or result.candidates or self.links_for(result):
            memo = ButtonMemo(
                question, result.lang, previous, result, result, options=options, owner=str(owner)
            )
            token = self.memos.add(memo)
            await self.memos.save(token)
            view = format_view(result, self.catalog, token, links=self.links)
        if result.kind == "help":
            name = self.user.name if self.user else "vramchat"
            embed.add_field(
                name=escape(t(self.catalog, result.lang, "dc.help.commands_title")),
                value=escape(t(self.catalog, result.lang, "dc.help.commands", bot=f"@{name}")),
                inline=False,
            )
        return Reply(embed=embed, view=view)

    async def ask(
        self,
        interaction: discord.Interaction[Any],
        text: str,
        *,
        lang: str | None = None,
        previous: Context | None = None,
        options: RequestOptions | None = None,
        compared: list[str] | None = None,
    ) -> Reply:
        """The desk's answer for this interaction's user, rendered."""
        result = await self.desk.answer(
            text,
            platform=PLATFORM,
            chat_key=self.chat_key(interaction.channel_id, interaction.user.id),
            user_key=str(interaction.user.id),
            locale=interaction.locale.value,
            lang=lang,
            previous=previous,
            options=options,
            compared=compared,
        )
        if compared is not None and isinstance(result, Answer) and result.candidates:
            # a vague /compare item: the names are listed, but a menu pick could not re-ask
            # the comparison, so the person types the item again
            result = result.model_copy(update={"candidates": []})
        owner = interaction.user.id
        return await self._reply_for(result, text, owner=owner, previous=previous, options=options)

    def note(self, interaction: discord.Interaction[Any], key: str, **params: Any) -> Reply:
        """A short ephemeral note from the message tables."""
        text = escape(t(self.catalog, self.lang_of(interaction), key, **params))
        return Reply(content=text, ephemeral=True)

    async def say(self, interaction: discord.Interaction[Any], key: str, **params: Any) -> None:
        """Send :meth:`note` as the first response, with the same retries as answers."""
        await self.respond(interaction, ready(self.note(interaction, key, **params)))

    # -- commands (registered in build_bot)
    async def cmd_vram(
        self, interaction: discord.Interaction[Any], query: str, options: RequestOptions
    ) -> None:
        """/vram and /fit: the person's words with the typed options (they win)."""
        await self.respond(interaction, self.ask(interaction, query, options=options))

    async def cmd_compare(
        self, interaction: discord.Interaction[Any], items: list[str], options: RequestOptions
    ) -> None:
        """/compare: each item in the person's own words, the shared options typed."""
        work = self.ask(interaction, " | ".join(items), options=options, compared=items)
        await self.respond(interaction, work)

    async def cmd_named(
        self, interaction: discord.Interaction[Any], options: RequestOptions
    ) -> None:
        """/gpus, /card, /faq, /help: an answer kind asked for by name, in the user's language."""
        work = self.ask(interaction, "", lang=self.lang_of(interaction), options=options)
        await self.respond(interaction, work)

    async def cmd_reload(self, interaction: discord.Interaction[Any]) -> None:
        if not self.desk.is_staff(PLATFORM, interaction.user.id):
            await self.say(interaction, "dc.staff_only")
            return

        async def reload() -> Reply:
            reason = await reload_off_loop(self.desk)
            log.info("reload requested on discord by %s: %s", interaction.user.id, reason or "ok")
            if reason:
                return self.note(interaction, "dc.reload.refused", reason=reason)
            return self.note(interaction, "dc.reload.ok", date=self.catalog.prices_as_of)

        await self.respond(interaction, reload())  # reading the files may outlast 3 s

    def query_choices(self, current: str) -> list[app_commands.Choice[str]]:
        """What the user typed (so Enter keeps it), then model completions."""
        typed = current.strip()
        out: list[app_commands.Choice[str]] = []
        if 0 < len(typed) <= MAX_CHOICE_CHARS:
            out.append(app_commands.Choice(name=typed, value=typed))
        for name, value in suggest_models(self.catalog, typed, CHOICES_MAX):
            if len(out) >= CHOICES_MAX:
                break
            if value != typed:
                out.append(app_commands.Choice(name=name, value=value))
        return out

    def card_choices(self, current: str) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=name, value=value)
            for name, value in suggest_cards(self.catalog, current, CHOICES_MAX)
        ]

    def item_choices(self, current: str) -> list[app_commands.Choice[str]]:
        """/compare items: what was typed, then matching cards and model completions."""
        typed = self.query_choices(current)
        cards = self.card_choices(current) if current.strip() else []
        seen: set[str] = set()
        out: list[app_commands.Choice[str]] = []
        for choice in [*typed[:1], *cards[:5], *typed[1:]]:
            if choice.value not in seen and len(out) < CHOICES_MAX:
                seen.add(choice.value)
                out.append(choice)
        return out

    @staticmethod
    def context_choices(current: str) -> list[app_commands.Choice[str]]:
        typed = current.strip()
        hints = [h for h in CONTEXT_HINTS if h.lower().startswith(typed.lower()) and h != typed]
        head = [typed] if 0 < len(typed) <= MAX_CHOICE_CHARS else []
        return [app_commands.Choice(name=h, value=h) for h in [*head, *hints][:CHOICES_MAX]]

    # -- components
    async def handle_component(
        self, interaction: discord.Interaction[Any], action: str, token: str, value: str
    ) -> None:
        """Button and menu clicks (see bot.render.discord); errors take the one error path."""
        REQUEST_ID.set(f"dc-{interaction.id}")
        try:
            await self._component(interaction, action, token, value)
        except Exception as exc:
            await self.report_error(interaction, exc)

    async def _component(
        self, interaction: discord.Interaction[Any], action: str, token: str, value: str
    ) -> None:
        memo = await self.memos.load(token)
        if memo is None:
            await self.say(interaction, "dc.expired")
            return
        if memo.owner is not None and memo.owner != str(interaction.user.id):
            # Someone else's answer: a private copy for them, the asker's message untouched.
            embed = format_embed(memo.current, self.catalog, math=memo.math)
            await self.respond(interaction, ready(Reply(embed=embed, ephemeral=True)))
            return
        answer = memo.current
        if action == "math":
            memo.math = True
            await self.memos.save(token)
            embed = format_embed(answer, self.catalog, math=True)
            view = format_view(answer, self.catalog, token, math_shown=True, links=self.links)
            await self.respond(interaction, ready(Reply(embed=embed, view=view)), edit=True)
        elif action == "alt" and value.isdigit() and int(value) < len(answer.alternatives):
            options = alternative_options(answer.alternatives[int(value)])
            work = self.ask(
                interaction, "", lang=answer.lang, previous=context_of(answer), options=options
            )
            await self.respond(interaction, work)
        elif action == "pick" and any(c.id == value for c in answer.candidates):
            chosen = next(c for c in answer.candidates if c.id == value)
            work = self.ask(
                interaction,
                memo.question,
                lang=answer.lang,
                previous=memo.previous,
                options=candidate_options(memo, chosen),
            )
            await self.respond(interaction, work, edit=True)
        else:
            await self.say(interaction, "dc.expired")

    # -- mentions and DMs
    def strip_mention(self, content: str) -> str:
        if self.user is None:
            return content.strip()
        return re.sub(rf"<@!?{self.user.id}>", " ", content).strip()

    async def on_message(self, message: discord.Message) -> None:
        """A mention in a channel, or any DM: the text after the mention is the question."""
        me = self.user
        if me is None or message.author.bot:
            return
        mentioned = any(u.id == me.id for u in message.mentions)
        if message.guild is not None and not mentioned:
            return
        REQUEST_ID.set(f"dc-{message.id}")
        text = self.strip_mention(message.content)
        if text.lower() in _SYNC_WORDS:
            await self._sync_from_message(message)
            return
        locale = message.guild.preferred_locale.value if message.guild else None
        result = await self.desk.answer(
            text or "help",
            platform=PLATFORM,
            chat_key=self.chat_key(message.channel.id, message.author.id),
            user_key=str(message.author.id),
            locale=locale,
        )
        reply = await self._reply_for(result, text, owner=message.author.id)
        await message.reply(allowed_mentions=NO_MENTIONS, mention_author=False, **reply.parts())

    async def _sync_from_message(self, message: discord.Message) -> None:
        lang = pick_lang(message.guild.preferred_locale.value if message.guild else None) or "en"
        if not await self.is_owner(message.author):
            key, params = "dc.sync.owner_only", {}
        else:
            count, scope = await self.sync_commands()
            key, params = f"dc.sync.{scope}", {"count": count}
        text = escape(t(self.catalog, lang, key, **params))
        await message.reply(text, allowed_mentions=NO_MENTIONS, mention_author=False)

    # -- the one error path
    async def report_error(
        self, interaction: discord.Interaction[Any], error: BaseException
    ) -> None:
        """Log the traceback under a reference id; tell the user the id, privately."""
        command = interaction.command.qualified_name if interaction.command else "-"
        what = f"discord interaction failed: type={interaction.type.name} command={command}"
        ref = report(PLATFORM, log, what, error)
        text = escape(apology(self.catalog, self.lang_of(interaction), ref))
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
            else:
                await interaction.response.send_message(
                    text, ephemeral=True, allowed_mentions=NO_MENTIONS
                )
        except discord.HTTPException as exc:
            log.warning("ref=%s could not send the apology: %s", ref, exc)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        """Errors outside app commands (mentions, events): same log line, same apology."""
        ref = report(PLATFORM, log, f"discord event {event_method} failed", sys.exc_info()[1])
        message = args[0] if args else None
        if event_method == "on_message" and isinstance(message, discord.Message):
            guild = message.guild
            lang = pick_lang(guild.preferred_locale.value if guild else None) or "en"
            text = escape(apology(self.catalog, lang, ref))
            try:
                await message.reply(text, allowed_mentions=NO_MENTIONS, mention_author=False)
            except discord.HTTPException as exc:
                log.warning("ref=%s could not send the apology: %s", ref, exc)

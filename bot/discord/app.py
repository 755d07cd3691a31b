"""The Discord adapter: slash commands, mentions and buttons -> :class:`Desk` -> embeds.

Commands (names and descriptions from ``data/messages/discord.*.yaml``, localized for pl/th):
``/vram query: [precision:] [context:] [batch:]``, ``/gpus``, ``/card name:``, ``/faq topic:``,
``/help`` and the staff-only ``/reload``. A channel message that mentions the bot
(``@vramchat 70b int4 128k``) or any DM is answered too: mentions carry their text without
the privileged message-content intent. ``@vramchat sync`` from the application owner syncs
the commands, which is how a fresh bot gets its commands before any exist.

Design notes
- Options join the question as text the parser reads (``<query> int4 ctx 128k batch 8``,
  by :func:`engine.suggest.compose_question`): words in the query that an option replaces
  are dropped, so the option wins. ``context:`` accepts ``8k``, ``128k``, ``1M`` or a token
  count (``131072``); anything else gets a one-line explanation.
- A pick in the "which model?" menu re-asks the original question with the model words
  replaced by the picked name (:func:`engine.suggest.replace_model`); an alternative-card
  button asks "on 4x <card>" as a follow-up of the answer it sits on.
- Deferral: every answer runs as a task; if it is not ready after ``DEFER_AFTER_S`` (1 s), or
  Discord does not take the first response at once, the interaction is deferred (thinking,
  or a deferred update for edits), retried briefly inside Discord's 3 s window, and the
  original response is edited when the answer arrives (edits retried through 5xx).
- Buttons and the model menu carry a token in their ``custom_id``; the answer behind it lives
  in a small in-process LRU (``MEMO_SIZE``). After a restart old buttons say "ask again".
- One error path: ``tree.on_error``, ``on_error`` (events) and component callbacks all end in
  :meth:`VramMixin.report_error`: the traceback goes to the log under a reference id, the user
  gets an ephemeral apology with the same id, and the bot keeps serving.
- ``AllowedMentions.none()`` on the client and on every send: nothing the bot writes can ping.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import sys
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.app_commands import TranslationContextLocation
from discord.ext import commands

from bot import metrics
from bot.desk import Desk, Limited, desk_for, error_reference
from bot.logs import REQUEST_ID, setup_logging
from bot.render.discord import (
    AltButton,
    MathButton,
    ModelSelect,
    escape,
    format_embed,
    format_limited,
    format_view,
)
from bot.settings import Settings, SettingsError
from engine import Answer, Catalog, CatalogError, Context, context_of, load_catalog
from engine.i18n import pick_lang, t
from engine.suggest import (
    MAX_CHOICE_CHARS,
    compose_question,
    is_context_value,
    replace_model,
    suggest_cards,
    suggest_models,
)

__all__ = [
    "DEFER_AFTER_S",
    "PRECISIONS",
    "ShardPlan",
    "VramBot",
    "VramShardedBot",
    "VramTranslator",
    "build_bot",
    "configure_endpoints",
    "main",
    "run",
    "shard_plan",
]

log = logging.getLogger("vramchat.discord")

PLATFORM = "discord"
PRECISIONS = ("bf16", "fp16", "fp8", "int8", "int4", "q4_k_m", "q8_0")
CONTEXT_HINTS = ("4k", "8k", "16k", "32k", "64k", "128k", "256k", "1M")
DEFER_AFTER_S = 1.0  # an answer not ready by then is deferred (Discord allows 3 s in all)
FIRST_WINDOW_S = 2.8  # Discord's 3 s for the first response, less the trip there
ATTEMPT_S = 0.4  # one try at the first response; a slower one is abandoned and tried again
RETRY_GAP_S = 0.1  # between tries at the first response
EDIT_RETRY_S = 120.0  # more tries at the edit after discord.py's own (the token lasts 15 min)
ALREADY_ACKNOWLEDGED = 40060  # an abandoned try did get through
UNKNOWN_INTERACTION = 10062  # the 3 s window is over
MEMO_SIZE = 2048  # answers kept for their buttons (a few KB each)
MAX_BATCH = 100_000
NO_MENTIONS = discord.AllowedMentions.none()
CHOICES_MAX = 25

_SYNC_WORDS = frozenset({"sync", "/sync"})


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class ShardPlan:
    """How to connect: one gateway session, or AutoSharded with a count (None: ask Discord)."""

    sharded: bool
    count: int | None = None
    ids: list[int] | None = None


def shard_plan(settings: Settings) -> ShardPlan:
    """DISCORD_SHARDS / DISCORD_SHARD_IDS -> a plan; a bad combination is a SettingsError."""
    raw_ids = settings.discord_shard_ids.strip()
    ids: list[int] | None = None
    if raw_ids:
        parts = [p.strip() for p in raw_ids.split(",") if p.strip()]
        if not parts or not all(p.isdigit() for p in parts):
            raise SettingsError("DISCORD_SHARD_IDS must be comma-separated numbers, e.g. 0,1.")
        ids = sorted({int(p) for p in parts})
    if settings.discord_shards == "auto":
        if ids is not None:
            raise SettingsError(
                "DISCORD_SHARD_IDS needs DISCORD_SHARDS to be the total shard count, not auto."
            )
        return ShardPlan(sharded=True)
    count = int(settings.discord_shards)
    if ids is not None and (count < 2 or max(ids) >= count):
        raise SettingsError(
            f"DISCORD_SHARD_IDS must be below DISCORD_SHARDS ({count}) and DISCORD_SHARDS > 1."
        )
    if count == 1:
        return ShardPlan(sharded=False)
    return ShardPlan(sharded=True, count=count, ids=ids)


def configure_endpoints(settings: Settings) -> None:
    """Point discord.py at DISCORD_API_BASE_URL / DISCORD_GATEWAY_URL (process-wide)."""
    discord.http.Route.BASE = settings.discord_api_base_url.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class _Memo:
    """What a button on an answer needs later: the question and the answer it produced."""

    question: str
    answer: Answer


class _Memos:
    """A small LRU keyed by the token carried in the components' custom_id."""

    def __init__(self, size: int = MEMO_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[str, _Memo] = OrderedDict()

    def put(self, memo: _Memo) -> str:
        token = uuid.uuid4().hex[:12]
        self._items[token] = memo
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return token

    def get(self, token: str) -> _Memo | None:
        memo = self._items.get(token)
        if memo is not None:
            self._items.move_to_end(token)
        return memo

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class Reply:
    """One message to send or edit: an embed with its components, or a short text."""

    embed: discord.Embed | None = None
    view: discord.ui.View | None = None
    content: str | None = None
    ephemeral: bool = False


async def _ready(reply: Reply) -> Reply:
    """A reply that needs no work, in the shape :meth:`VramMixin.respond` takes."""
    return reply


# --------------------------------------------------------------------------- translator


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


class _Tree(app_commands.CommandTree[Any]):
    """Tags every interaction with a request id and routes command errors to one place."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        REQUEST_ID.set(f"dc-{interaction.id}")
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        original = getattr(error, "original", None) or error
        await self.client.report_error(interaction, original)


# --------------------------------------------------------------------------- the bot

if TYPE_CHECKING:
    _Base = commands.Bot
else:
    _Base = object


class VramMixin(_Base):
    """Everything vramchat adds to a discord.py bot; mixed into Bot and AutoShardedBot."""

    desk: Desk
    settings: Settings
    sync_on_start: bool
    defer_after_s: float
    attempt_s: float
    memos: _Memos

    def _init_vram(self, settings: Settings, desk: Desk, sync: bool) -> None:
        self.settings = settings
        self.desk = desk
        self.sync_on_start = sync
        self.defer_after_s = DEFER_AFTER_S
        self.attempt_s = ATTEMPT_S
        self.memos = _Memos()

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

    def lang_of(self, interaction: discord.Interaction[Any]) -> str:
        return pick_lang(interaction.locale.value) or "en"

    @staticmethod
    def chat_key(channel_id: int | None, user_id: int) -> str:
        """Follow-ups are per person per channel, so a busy channel does not mix requests."""
        return f"{channel_id or 'dm'}:{user_id}"

    def _reply_for(self, result: Answer | Limited, question: str) -> Reply:
        if isinstance(result, Limited):
            return Reply(content=format_limited(result, self.catalog), ephemeral=True)
        embed = format_embed(result, self.catalog)
        view = None
        if result.math or result.alternatives or result.candidates:
            token = self.memos.put(_Memo(question, result))
            view = format_view(result, self.catalog, token)
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
        )
        return self._reply_for(result, text)

    async def respond(
        self, interaction: discord.Interaction[Any], work: Awaitable[Reply], *, edit: bool = False
    ) -> None:
        """Answer directly if ``work`` is quick and Discord takes it, else defer, then edit.

        Discord drops an interaction that has no first response within 3 s, while the
        deferred answer may follow for 15 minutes. So the first response is tried briefly
        and often inside that window (discord.py alone waits 1 s, then 3 s, after a 5xx),
        and once a deferral is in, the edit is retried through longer outages.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FIRST_WINDOW_S
        task = asyncio.ensure_future(work)
        reply: Reply | None = None
        with contextlib.suppress(TimeoutError):
            reply = await asyncio.wait_for(asyncio.shield(task), self.defer_after_s)
        if reply is not None:
            ready = reply
            if await self._first(lambda: self.send(interaction, ready, edit=edit), deadline, 1):
                return
        if not await self._first(lambda: self._defer(interaction, edit), deadline):
            task.cancel()
            log.warning(
                "interaction %s: Discord took no first response within its 3 s window",
                interaction.id,
            )
            return
        reply = await task
        final = reply
        await self._edit_retrying(
            lambda: self.send(interaction, final, edit=edit, acknowledged=True)
        )

    async def _defer(self, interaction: discord.Interaction[Any], edit: bool) -> None:
        if edit:
            await interaction.response.defer()
        else:
            await interaction.response.defer(thinking=True)

    async def _first(
        self, call: Callable[[], Awaitable[None]], deadline: float, tries: int = 1_000
    ) -> bool:
        """Try a first response until it is in (True) or the window is over (False)."""
        loop = asyncio.get_running_loop()
        for _ in range(tries):
            left = deadline - loop.time()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(call(), min(self.attempt_s, left))
                return True
            except TimeoutError:
                pass  # slow, or discord.py asleep before its own retry: try again sooner
            except discord.HTTPException as exc:
                if exc.code == ALREADY_ACKNOWLEDGED:
                    return True
                if exc.code == UNKNOWN_INTERACTION:
                    return False
                if exc.status < 500 and exc.status != 429:
                    raise
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(max(0.0, min(RETRY_GAP_S, deadline - loop.time())))
        return False

    async def _edit_retrying(self, call: Callable[[], Awaitable[None]]) -> None:
        """An edit of an acknowledged interaction: retried on 5xx and network errors."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + EDIT_RETRY_S
        pause = 1.0
        while True:
            try:
                await call()
                return
            except (discord.DiscordServerError, aiohttp.ClientError) as exc:
                if loop.time() + pause > give_up:
                    raise
                log.warning("discord edit failed (%s); retrying in %.0f s", exc, pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 15.0)

    async def send(
        self,
        interaction: discord.Interaction[Any],
        reply: Reply,
        *,
        edit: bool = False,
        acknowledged: bool = False,
    ) -> None:
        """Initial response, message edit or original-response edit, as the state requires."""
        if acknowledged or interaction.response.is_done():
            if reply.ephemeral and edit:
                await interaction.followup.send(
                    reply.content or "\u200b", ephemeral=True, allowed_mentions=NO_MENTIONS
                )
                return
            await interaction.edit_original_response(
                content=reply.content,
                embed=reply.embed,
                view=reply.view,
                allowed_mentions=NO_MENTIONS,
            )
            return
        if edit and not reply.ephemeral:
            await interaction.response.edit_message(
                content=reply.content,
                embed=reply.embed,
                view=reply.view,
                allowed_mentions=NO_MENTIONS,
            )
            return
        kwargs: dict[str, Any] = {"ephemeral": reply.ephemeral, "allowed_mentions": NO_MENTIONS}
        if reply.content:
            kwargs["content"] = reply.content
        if reply.embed is not None:
            kwargs["embed"] = reply.embed
        if reply.view is not None:
            kwargs["view"] = reply.view
        await interaction.response.send_message(**kwargs)

    def note(self, interaction: discord.Interaction[Any], key: str, **params: Any) -> Reply:
        """A short ephemeral note from the message tables."""
        text = escape(t(self.catalog, self.lang_of(interaction), key, **params))
        return Reply(content=text, ephemeral=True)

    async def say(self, interaction: discord.Interaction[Any], key: str, **params: Any) -> None:
        """Send :meth:`note` as the first response, with the same retries as answers."""
        await self.respond(interaction, _ready(self.note(interaction, key, **params)))

    # -- commands (registered in build_bot)
    async def cmd_vram(
        self,
        interaction: discord.Interaction[Any],
        query: str,
        precision: str | None,
        context: str | None,
        batch: int | None,
    ) -> None:
        if context and not is_context_value(context):
            await self.say(interaction, "dc.bad_context", value=context.strip()[:40])
            return
        text = compose_question(
            self.catalog, query, precision=precision, context=context, batch=batch
        )
        await self.respond(interaction, self.ask(interaction, text))

    async def cmd_fixed(self, interaction: discord.Interaction[Any], text: str) -> None:
        """Commands whose question is fixed: answered in the user's Discord language."""
        work = self.ask(interaction, text, lang=self.lang_of(interaction))
        await self.respond(interaction, work)

    async def cmd_reload(self, interaction: discord.Interaction[Any]) -> None:
        if not self.desk.is_staff(PLATFORM, interaction.user.id):
            await self.say(interaction, "dc.staff_only")
            return

        async def reload() -> Reply:
            reason = await asyncio.get_running_loop().run_in_executor(None, self.desk.reload)
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
        memo = self.memos.get(token)
        if memo is None:
            await self.say(interaction, "dc.expired")
            return
        answer = memo.answer
        if action == "math":
            embed = format_embed(answer, self.catalog, math=True)
            view = format_view(answer, self.catalog, token, math_shown=True)
            await self.respond(interaction, _ready(Reply(embed=embed, view=view)), edit=True)
        elif action == "alt" and value.isdigit() and int(value) < len(answer.alternatives):
            alt = answer.alternatives[int(value)]
            text = f"on {alt.count}x {alt.card}" + (f" {alt.precision}" if alt.precision else "")
            work = self.ask(interaction, text, lang=answer.lang, previous=context_of(answer))
            await self.respond(interaction, work)
        elif action == "pick" and any(c.id == value for c in answer.candidates):
            chosen = next(c for c in answer.candidates if c.id == value)
            question = replace_model(self.catalog, memo.question, chosen.name)
            work = self.ask(interaction, question, lang=answer.lang)
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
        reply = self._reply_for(result, text)
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS, "mention_author": False}
        if reply.content:
            kwargs["content"] = reply.content
        if reply.embed is not None:
            kwargs["embed"] = reply.embed
        if reply.view is not None:
            kwargs["view"] = reply.view
        await message.reply(**kwargs)

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
        ref = error_reference()
        metrics.ERRORS.labels(PLATFORM).inc()
        command = interaction.command.qualified_name if interaction.command else "-"
        log.error(
            "ref=%s discord interaction failed: type=%s command=%s",
            ref,
            interaction.type.name,
            command,
            exc_info=error,
        )
        text = escape(t(self.catalog, self.lang_of(interaction), "render.apology", ref=ref))
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
        ref = error_reference()
        metrics.ERRORS.labels(PLATFORM).inc()
        log.exception("ref=%s discord event %s failed", ref, event_method)
        message = args[0] if args else None
        if event_method == "on_message" and isinstance(message, discord.Message):
            guild = message.guild
            lang = pick_lang(guild.preferred_locale.value if guild else None) or "en"
            text = escape(t(self.catalog, lang, "render.apology", ref=ref))
            try:
                await message.reply(text, allowed_mentions=NO_MENTIONS, mention_author=False)
            except discord.HTTPException as exc:
                log.warning("ref=%s could not send the apology: %s", ref, exc)


class VramBot(VramMixin, commands.Bot):
    """One gateway session (DISCORD_SHARDS=1, the default)."""

    def __init__(self, settings: Settings, desk: Desk, *, sync: bool = False, **options: Any):
        super().__init__(**options)
        self._init_vram(settings, desk, sync)


class VramShardedBot(VramMixin, commands.AutoShardedBot):
    """Several shards in this process (DISCORD_SHARDS=auto or a number > 1)."""

    def __init__(self, settings: Settings, desk: Desk, *, sync: bool = False, **options: Any):
        super().__init__(**options)
        self._init_vram(settings, desk, sync)


# --------------------------------------------------------------------------- commands


def _register_commands(bot: VramMixin) -> None:
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

    @tree.command(name=text("dc.cmd.vram.name"), description=text("dc.cmd.vram.desc"))
    @app_commands.rename(
        query=text("dc.opt.query.name"),
        precision=text("dc.opt.precision.name"),
        context=text("dc.opt.context.name"),
        batch=text("dc.opt.batch.name"),
    )
    @app_commands.describe(
        query=text("dc.opt.query.desc"),
        precision=text("dc.opt.precision.desc"),
        context=text("dc.opt.context.desc"),
        batch=text("dc.opt.batch.desc"),
    )
    @app_commands.choices(precision=precision_choices)
    async def vram(
        interaction: discord.Interaction[Any],
        query: str,
        precision: str | None = None,
        context: str | None = None,
        batch: app_commands.Range[int, 1, MAX_BATCH] | None = None,
    ) -> None:
        await bot.cmd_vram(interaction, query, precision, context, batch)

    @vram.autocomplete("query")
    async def vram_query(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return bot.query_choices(current)

    @vram.autocomplete("context")
    async def vram_context(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return bot.context_choices(current)

    @tree.command(name=text("dc.cmd.gpus.name"), description=text("dc.cmd.gpus.desc"))
    async def gpus(interaction: discord.Interaction[Any]) -> None:
        await bot.cmd_fixed(interaction, "gpus")

    @tree.command(name=text("dc.cmd.card.name"), description=text("dc.cmd.card.desc"))
    @app_commands.rename(name=text("dc.opt.name.name"))
    @app_commands.describe(name=text("dc.opt.name.desc"))
    async def card(interaction: discord.Interaction[Any], name: str) -> None:
        await bot.cmd_fixed(interaction, f"card {name}")

    @card.autocomplete("name")
    async def card_name(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return bot.card_choices(current)

    @tree.command(name=text("dc.cmd.faq.name"), description=text("dc.cmd.faq.desc"))
    @app_commands.rename(topic=text("dc.opt.topic.name"))
    @app_commands.describe(topic=text("dc.opt.topic.desc"))
    @app_commands.choices(topic=faq_choices)
    async def faq(interaction: discord.Interaction[Any], topic: str) -> None:
        await bot.cmd_fixed(interaction, f"/faq {topic}")

    @tree.command(name=text("dc.cmd.help.name"), description=text("dc.cmd.help.desc"))
    async def help_(interaction: discord.Interaction[Any]) -> None:
        await bot.cmd_fixed(interaction, "help")

    @tree.command(name=text("dc.cmd.reload.name"), description=text("dc.cmd.reload.desc"))
    @app_commands.default_permissions(manage_guild=True)
    async def reload(interaction: discord.Interaction[Any]) -> None:
        await bot.cmd_reload(interaction)


def build_bot(
    settings: Settings, desk: Desk, *, sync: bool = False, **options: Any
) -> VramBot | VramShardedBot:
    """The configured bot, not yet connected. ``options`` go to the discord.py client
    (tests pass ``guild_ready_timeout``); ``sync=True`` syncs commands in ``setup_hook``."""
    plan = shard_plan(settings)
    # A text-only bot: the voice libraries' absence is not worth a warning on every start.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    kwargs: dict[str, Any] = {
        "command_prefix": commands.when_mentioned,
        "intents": discord.Intents.default(),
        "allowed_mentions": NO_MENTIONS,
        "help_command": None,
        "tree_cls": _Tree,
        "chunk_guilds_at_startup": False,
        **options,
    }
    bot: VramBot | VramShardedBot
    if plan.sharded:
        bot = VramShardedBot(
            settings, desk, sync=sync, shard_count=plan.count, shard_ids=plan.ids, **kwargs
        )
    else:
        bot = VramBot(settings, desk, sync=sync, **kwargs)
    _register_commands(bot)
    return bot


# --------------------------------------------------------------------------- process


def _install_signals(
    loop: asyncio.AbstractEventLoop, desk: Desk, stop: asyncio.Event
) -> list[signal.Signals]:
    """SIGHUP reloads the data (off the loop); SIGINT/SIGTERM stop cleanly."""
    pending: set[asyncio.Future[None]] = set()

    def reload_logged() -> None:
        try:
            desk.reload()  # a refused file is logged by the desk; the old data keeps serving
        except Exception:
            log.exception("data reload failed, the old data keeps serving")

    def on_hup() -> None:
        log.info("SIGHUP: reloading data")
        future = loop.run_in_executor(None, reload_logged)
        pending.add(future)
        future.add_done_callback(pending.discard)

    installed: list[signal.Signals] = []
    handlers: list[tuple[signal.Signals, Callable[[], None]]] = [
        (signal.SIGHUP, on_hup),
        (signal.SIGINT, stop.set),
        (signal.SIGTERM, stop.set),
    ]
    for sig, handler in handlers:
        try:
            loop.add_signal_handler(sig, handler)
            installed.append(sig)
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
            log.debug("cannot install a handler for %s here", sig.name)
    return installed


async def run(
    settings: Settings,
    desk: Desk,
    token: str,
    *,
    sync: bool = False,
    stop: asyncio.Event | None = None,
    **options: Any,
) -> int:
    """Connect and serve until ``stop`` (or SIGINT/SIGTERM); returns the exit code."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    bot = build_bot(settings, desk, sync=sync, **options)
    installed = _install_signals(loop, desk, stop)
    try:
        async with bot:
            starter = asyncio.create_task(bot.start(token), name="vramchat-discord")
            stopper = asyncio.create_task(stop.wait())
            done, _ = await asyncio.wait({starter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if starter not in done:
                log.info("stopping: closing the Discord connection")
                await bot.close()
                await starter
                return 0
            stopper.cancel()
            exc = starter.exception()
            if isinstance(exc, discord.LoginFailure):
                print(
                    "vram discord: Discord refused DISCORD_TOKEN (401 Unauthorized); "
                    "copy a fresh token from the Developer Portal.",
                    file=sys.stderr,
                )
                return 2
            if exc is not None:
                log.error("the Discord connection ended: %s", exc, exc_info=exc)
                return 1
            return 0
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        close = getattr(desk.store, "aclose", None)
        if close is not None:
            await close()


def main(settings: Settings, sync: bool = False) -> int:
    """``vram discord [--sync]``: validate, load data, connect, serve; the exit code.

    A missing or malformed token (or a bad shard setting, or refused data) is one line on
    stderr and exit code 2, before anything connects; the token itself is never printed.
    ``sync=True`` syncs the slash commands once at start-up (to DISCORD_GUILD_ID if set,
    else globally) and then keeps serving.
    """
    setup_logging(settings)
    try:
        token = settings.require_discord()
        shard_plan(settings)
    except SettingsError as exc:
        print(f"vram discord: {exc}", file=sys.stderr)
        return 2
    try:
        catalog = load_catalog(settings.vramchat_data_dir, settings.vramchat_price_book)
    except CatalogError as exc:
        print(f"vram discord: data error: {exc}", file=sys.stderr)
        return 2
    desk = desk_for(settings, catalog)
    configure_endpoints(settings)
    if settings.vramchat_metrics_port:
        metrics.start_server(settings.vramchat_metrics_port, settings.vramchat_metrics_host)
    return asyncio.run(run(settings, desk, token, sync=sync))

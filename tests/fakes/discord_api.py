"""A fake Discord (REST under ``/api/v10`` + gateway websocket) for end-to-end tests.

The real, unmodified discord.py client logs into it over loopback, so tests exercise the same
code paths as production: login, command sync, interactions, replies, rate limits, reconnects and
sharding. The fake is strict where Discord is strict (3 s interaction deadline, double
acknowledgement, message/embed/choice limits, command name rules, intents) so that bugs which
would only show up on the real service fail tests instead.

Verified against discord.py 2.7.1 and aiohttp 3.14 (protocol notes: the bot e2e testing guide).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import itertools
import json
import re
import socket
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import BodyPartReader, WSMsgType, web

if TYPE_CHECKING:
    import pytest

__all__ = ["FAKE_TOKEN", "FakeDiscord", "RecordedRequest"]

#: Token the tests hand to ``bot.start``; the fake only keeps its hash.
FAKE_TOKEN = "fake-bot-token.for-tests.only"

API_PREFIX = "/api/v10"
DISCORD_EPOCH_MS = 1420070400000
HEARTBEAT_INTERVAL_MS = 41250

# Gateway opcodes (https://discord.com/developers/docs/topics/opcodes-and-status-codes).
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_RESUME = 6
OP_RECONNECT = 7
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Interaction callback types.
CB_PONG = 1
CB_MESSAGE = 4
CB_DEFERRED_MESSAGE = 5
CB_DEFERRED_UPDATE = 6
CB_UPDATE_MESSAGE = 7
CB_AUTOCOMPLETE = 8
CB_MODAL = 9

# Intents the fake enforces when dispatching (real Discord simply does not send the event).
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

MSG_FLAG_EPHEMERAL = 1 << 6
MSG_FLAG_LOADING = 1 << 7

# A realistic permission set for the bot / a member in a text channel.
TEXT_PERMISSIONS = str(
    (1 << 6)  # add reactions
    | (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 14)  # embed links
    | (1 << 15)  # attach files
    | (1 << 16)  # read message history
    | (1 << 18)  # use external emojis
    | (1 << 31)  # use application commands
    | (1 << 38)  # send messages in threads
)

_VALID_LOCALES = frozenset(locale.value for locale in discord.Locale)
# Discord's rule: ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$ (Thai and Devanagari marks
# included); Python's re has no \p{...}, so the two scripts' blocks are spelled out.
_COMMAND_NAME_RE = re.compile(r"^[-_'\w\u0900-\u097f\u0e00-\u0e7f]{1,32}$")
_OPTION_TYPES: dict[type, int] = {str: 3, int: 4, bool: 5, float: 10}

T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _now_iso() -> str:
    """Discord timestamps are ISO 8601 with an offset; discord.py parses them."""
    return datetime.now(UTC).isoformat()


def _json_response(payload: Any, status: int = 200) -> web.Response:
    """discord.py needs Content-Type exactly ``application/json`` (json_response adds charset)."""
    return web.Response(
        body=json.dumps(payload).encode(), status=status, content_type="application/json"
    )


def _error(status: int, message: str, code: int = 0, errors: Any = None) -> web.Response:
    """Discord's error envelope, so discord.py raises the matching HTTPException subclass."""
    body: dict[str, Any] = {"message": message, "code": code}
    if errors is not None:
        body["errors"] = errors
    return _json_response(body, status)


def _form_error(path: str, code: str, message: str) -> web.Response:
    """400 Invalid Form Body with the nested ``errors`` tree real Discord returns."""
    tree: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        tree = {part: tree}
    return _error(400, "Invalid Form Body", 50035, tree)


def _hash(token: str) -> bytes:
    """Only a digest of the token is kept, so it never ends up in records or logs."""
    return hashlib.sha256(token.encode()).digest()


@dataclass
class RecordedRequest:
    """One REST request as the fake saw it. Iterates as ``(method, path, json, headers)``.

    ``path`` is relative to ``/api/v10``; ``headers`` never contains Authorization - ``auth`` is
    ``"ok"``, ``"missing"`` or ``"wrong"`` instead. ``status`` is what the fake answered and
    ``kind`` classifies accepted requests (``interaction_response``, ``followup``, ...).
    """

    method: str
    path: str
    json: Any
    headers: dict[str, str]
    query: dict[str, str]
    auth: str
    params: dict[str, str] = field(default_factory=dict)
    files: list[tuple[str, str, int]] = field(default_factory=list)
    status: int = 0
    kind: str = ""
    faulted: bool = False
    at: float = field(default_factory=time.monotonic)

    def __iter__(self) -> Iterator[Any]:
        """Unpack like the documented 4-tuple."""
        return iter((self.method, self.path, self.json, self.headers))

    @property
    def accepted(self) -> bool:
        """True when the fake answered 2xx (faults and validation errors are not accepted)."""
        return 200 <= self.status < 300


REC_KEY = web.RequestKey("fake_discord_rec", RecordedRequest)


@dataclass
class Fault:
    """A scheduled REST failure (see :meth:`FakeDiscord.fail_next`)."""

    method: str
    path_regex: re.Pattern[str]
    status: int
    retry_after: float
    times: int
    global_: bool
    served: int = 0
    until: float | None = None  # monotonic deadline: fail every match until then
    delay: float = 0.0  # a slow, not failing, Discord: handle normally after this long

    def matches(self, method: str, path: str) -> bool:
        """Method ``*`` matches any; the regex is searched in the path relative to /api/v10."""
        live = self.served < self.times if self.until is None else time.monotonic() < self.until
        return live and self.method in ("*", method) and self.path_regex.search(path) is not None


@dataclass
class _Session:
    """Gateway session state for one shard (survives reconnects until re-IDENTIFY)."""

    shard_id: int
    shard_count: int | None
    session_id: str
    intents: int
    seq: int = 0
    ws: web.WebSocketResponse | None = None
    live: bool = False


@dataclass
class _Interaction:
    """What the fake remembers about a dispatched interaction, to police the callback rules."""

    id: str
    token: str
    type: int
    channel_id: str
    guild_id: str | None
    message_id: str | None
    payload: dict[str, Any]
    dispatched_at: float = 0.0
    response_type: int | None = None
    original_message_id: str | None = None


class FakeDiscord:
    """Fake Discord REST + gateway on 127.0.0.1 (random port). Use as an async context manager."""

    def __init__(
        self,
        token: str = FAKE_TOKEN,
        *,
        gateway_shards: int = 1,
        send_guilds: bool = True,
        interaction_timeout: float = 3.0,
        simulate_intents: bool = True,
        app_flags: int = 1 << 23,
    ) -> None:
        self._token_hash = _hash(token)
        self.gateway_shards = gateway_shards
        self.send_guilds = send_guilds
        self.interaction_timeout = interaction_timeout
        self.simulate_intents = simulate_intents
        self.app_flags = app_flags

        self._ids = itertools.count(1)
        self.application_id = self.new_id()
        self.bot_user: dict[str, Any] = {
            "id": self.application_id,
            "username": "vramchat-test",
            "global_name": None,
            "discriminator": "0",
            "avatar": None,
            "bot": True,
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "public_flags": 0,
            "email": None,
            "locale": "en-US",
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }
        self.owner_user = self.user(name="owner")
        self.user_id = self.new_id()
        self.guild_id = self.new_id()
        self.channel_id = self.new_id()
        self.guild_ids: list[str] = [self.guild_id]

        self.port = 0
        self._runner: web.AppRunner | None = None
        self._changed = asyncio.Event()

        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self.faults_served = 0
        self.commands: dict[str | None, list[dict[str, Any]]] = {}
        self.messages: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, dict[str, Any]] = {}
        self._interactions: dict[str, _Interaction] = {}

        self.sessions: dict[int, _Session] = {}
        self._sessions_by_id: dict[str, _Session] = {}
        self._sockets: set[web.WebSocketResponse] = set()
        self.identifies: list[dict[str, Any]] = []
        self.resumes: list[dict[str, Any]] = []
        self.identify_count: Counter[int] = Counter()
        self.resume_count: Counter[int] = Counter()
        self.handshakes: Counter[int] = Counter()
        self.gateway_connections: list[tuple[str, dict[str, str]]] = []
        self.gateway_received: list[tuple[int | None, dict[str, Any]]] = []
        self.dispatched: list[tuple[int, str, dict[str, Any]]] = []
        self.dropped_events: list[tuple[int, str, str]] = []
        self.server_errors: list[str] = []

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> FakeDiscord:
        """Bind a free loopback port first so the URLs are known before the bot starts."""
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes(app)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Close gateway sockets first so handlers end cleanly, then stop the server."""
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001, message=b"fake shutting down"), 2)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def api_base(self) -> str:
        """Value for ``discord.http.Route.BASE`` (production: DISCORD_API_BASE_URL)."""
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """Value for ``DiscordWebSocket.DEFAULT_GATEWAY`` (production: DISCORD_GATEWAY_URL)."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def resume_gateway_url(self) -> str:
        """Sent in READY; a separate path so tests can see resumes use it."""
        return f"ws://127.0.0.1:{self.port}/resume-gateway"

    def patch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Point discord.py at this fake; monkeypatch undoes it after the test."""
        monkeypatch.setattr(discord.http.Route, "BASE", self.api_base)
        monkeypatch.setattr(
            discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(self.gateway_url)
        )

    @contextlib.asynccontextmanager
    async def running(
        self, bot: discord.Client, token: str = FAKE_TOKEN, timeout: float = 10.0
    ) -> AsyncIterator[discord.Client]:
        """Start ``bot`` against the fake, wait for on_ready, and always close + await it.

        Awaiting the start task on exit re-raises parser errors from bad payloads.
        """
        task = asyncio.create_task(bot.start(token))
        try:
            ready = asyncio.ensure_future(self._wait_bot_ready(bot))
            done, _ = await asyncio.wait(
                {task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if task in done:
                ready.cancel()
                task.result()
                raise RuntimeError("bot.start() returned before the bot became ready")
            if ready not in done:
                ready.cancel()
                raise TimeoutError(f"bot not ready after {timeout}s; {self.summary()}")
            ready.result()
            yield bot
        finally:
            await bot.close()
            await asyncio.wait_for(task, timeout)
        if self.server_errors:
            raise AssertionError(f"the fake itself failed: {self.server_errors}")

    async def _wait_bot_ready(self, bot: discord.Client) -> None:
        """READY must reach every shard before on_ready can fire."""
        shard_ids = getattr(bot, "shard_ids", None) or range(bot.shard_count or 1)
        for shard_id in shard_ids:
            await self.wait_ready(shard_id, timeout=3600)
        await bot.wait_until_ready()

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        """Wake every waiter; each waiter re-checks its predicate."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(self, predicate: Callable[[], T], timeout: float = 5.0) -> T:
        """Wait until ``predicate()`` is truthy (re-checked on every request/gateway change).

        Returns the truthy value, e.g. ``await fake.wait_for(lambda: fake.interaction_responses)``.
        """

        async def _loop() -> T:
            while True:
                event = self._changed
                value = predicate()
                if value:
                    return value
                await event.wait()

        try:
            return await asyncio.wait_for(_loop(), timeout)
        except TimeoutError:
            raise TimeoutError(f"condition not met within {timeout}s; {self.summary()}") from None

    async def wait_ready(self, shard_id: int = 0, count: int = 1, timeout: float = 10.0) -> None:
        """Wait until ``count`` READY/RESUMED have been sent to the shard in total."""
        await self.wait_for(lambda: self.handshakes[shard_id] >= count, timeout)

    def summary(self) -> str:
        """Short state dump for timeout messages (no tokens)."""
        reqs = ", ".join(f"{r.method} {r.path} -> {r.status}" for r in self.requests[-8:])
        return (
            f"identifies={dict(self.identify_count)} resumes={dict(self.resume_count)} "
            f"handshakes={dict(self.handshakes)} last requests=[{reqs}]"
        )

    # ------------------------------------------------------------------ faults

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int = 429,
        retry_after: float = 0.2,
        times: int = 1,
        global_: bool = False,
    ) -> Fault:
        """Answer the next ``times`` matching REST calls with ``status`` instead of handling them.

        429 carries what discord.py needs to retry (``Via`` header + JSON ``retry_after``);
        5xx is retried by discord.py after 1 s, 3 s, ... (up to 5 tries).
        """
        fault = Fault(method.upper(), re.compile(path_regex), status, retry_after, times, global_)
        self.faults.append(fault)
        return fault

    def fail_for(self, method: str, path_regex: str, seconds: float, status: int = 502) -> Fault:
        """An outage: every matching REST call fails with ``status`` for the next ``seconds``."""
        fault = Fault(
            method.upper(),
            re.compile(path_regex),
            status,
            0.0,
            0,
            False,
            until=time.monotonic() + seconds,
        )
        self.faults.append(fault)
        return fault

    def delay_next(self, method: str, path_regex: str, seconds: float, times: int = 1) -> Fault:
        """The next ``times`` matching calls are handled normally, but only after ``seconds``."""
        fault = Fault(method.upper(), re.compile(path_regex), 200, 0.0, times, False, delay=seconds)
        self.faults.append(fault)
        return fault

    def _fault_response(self, fault: Fault) -> web.Response:
        """Build the response body and headers for an injected failure."""
        if fault.status == 429:
            body = {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": fault.global_,
            }
            resp = _json_response(body, 429)
            resp.headers["Via"] = "1.1 google"
            resp.headers["Retry-After"] = f"{fault.retry_after:g}"
            resp.headers["X-RateLimit-Scope"] = "global" if fault.global_ else "user"
            if fault.global_:
                resp.headers["X-RateLimit-Global"] = "true"
            return resp
        messages = {500: "500: Internal Server Error", 502: "502: Bad Gateway"}
        return _error(fault.status, messages.get(fault.status, f"{fault.status}: Injected"), 0)

    # ------------------------------------------------------------------ typed views

    def _accepted(self, kind: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.kind == kind and r.accepted]

    @property
    def interaction_responses(self) -> list[RecordedRequest]:
        """Accepted ``POST /interactions/{id}/{token}/callback`` (json is ``{type, data}``)."""
        return self._accepted("interaction_response")

    @property
    def followups(self) -> list[RecordedRequest]:
        """Accepted ``POST /webhooks/{app}/{token}`` (interaction followups)."""
        return self._accepted("followup")

    @property
    def webhook_edits(self) -> list[RecordedRequest]:
        """Accepted ``PATCH /webhooks/{app}/{token}/messages/{id|@original}``."""
        return self._accepted("webhook_edit")

    @property
    def channel_messages(self) -> list[RecordedRequest]:
        """Accepted ``POST /channels/{cid}/messages``."""
        return self._accepted("channel_message")

    @property
    def command_syncs(self) -> list[RecordedRequest]:
        """Accepted global/guild ``PUT .../commands``; ``params['guild_id']`` set for guild."""
        return self._accepted("command_sync")

    @property
    def unhandled(self) -> list[RecordedRequest]:
        """Requests no route matched (404) - a hint that the fake needs a new endpoint."""
        return [r for r in self.requests if r.kind == "unhandled"]

    def response_for(self, interaction: dict[str, Any]) -> RecordedRequest | None:
        """The accepted callback for an interaction payload built by this fake, if any."""
        for r in self.interaction_responses:
            if r.params.get("interaction_id") == str(interaction["id"]):
                return r
        return None

    def followups_for(self, interaction: dict[str, Any]) -> list[RecordedRequest]:
        """Accepted followups sent with this interaction's token."""
        return [r for r in self.followups if r.params.get("token") == interaction["token"]]

    # ------------------------------------------------------------------ ids and objects

    def new_id(self) -> str:
        """A snowflake that sorts by time, as discord.py derives created_at from it."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return str((ms << 22) | (next(self._ids) & 0x3FFFFF))

    def user(self, user_id: str | None = None, name: str = "tester") -> dict[str, Any]:
        """A (non-bot) user object."""
        return {
            "id": str(user_id or self.new_id()),
            "username": name,
            "global_name": name.title(),
            "discriminator": "0",
            "avatar": None,
            "bot": False,
            "public_flags": 0,
            "avatar_decoration_data": None,
        }

    def member(self, user: dict[str, Any], *, permissions: bool = False) -> dict[str, Any]:
        """A guild member object; interactions also carry ``permissions``."""
        data: dict[str, Any] = {
            "user": user,
            "roles": [],
            "joined_at": _now_iso(),
            "nick": None,
            "avatar": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if permissions:
            data["permissions"] = TEXT_PERMISSIONS
        return data

    def text_channel(
        self, channel_id: str | None = None, guild_id: str | None = None
    ) -> dict[str, Any]:
        """A guild text channel; ``position`` is required by discord.py's parser."""
        return {
            "id": str(channel_id or self.channel_id),
            "type": 0,
            "guild_id": str(guild_id or self.guild_id),
            "name": "general",
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }

    def dm_channel(self, user: dict[str, Any], channel_id: str | None = None) -> dict[str, Any]:
        """A DM channel with ``recipients`` (needed for DM interactions); one per user."""
        if channel_id is None:
            for existing in self.channels.values():
                if existing.get("type") == 1 and existing["recipients"][0]["id"] == user["id"]:
                    return existing
        cid = str(channel_id or self.new_id())
        channel = {"id": cid, "type": 1, "recipients": [user], "last_message_id": None, "flags": 0}
        self.channels[cid] = channel
        return channel

    def guild_create(self, guild_id: str | None = None) -> dict[str, Any]:
        """A full GUILD_CREATE payload: @everyone role, one text channel, the bot as member."""
        gid = str(guild_id or self.guild_id)
        channel_id = self.channel_id if gid == self.guild_id else self.new_id()
        channel = self.text_channel(channel_id, gid)
        self.channels[channel["id"]] = channel
        everyone = {
            "id": gid,
            "name": "@everyone",
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": 0,
            "permissions": TEXT_PERMISSIONS,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }
        return {
            "id": gid,
            "name": "Fake Guild",
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": self.owner_user["id"],
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "features": [],
            "roles": [everyone],
            "emojis": [],
            "stickers": [],
            "joined_at": _now_iso(),
            "large": False,
            "unavailable": False,
            "member_count": 2,
            "members": [self.member(self.bot_user)],
            "channels": [channel],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    @staticmethod
    def option(
        name: str, value: Any, *, type: int | None = None, focused: bool = False
    ) -> dict[str, Any]:
        """An interaction option; the type is inferred from the Python value if not given."""
        opt: dict[str, Any] = {"name": name, "type": type or _OPTION_TYPES[_infer_type(value)]}
        opt["value"] = value
        if focused:
            opt["focused"] = True
        return opt

    def _command_ref(self, name: str, guild_id: str | None) -> tuple[str, str | None]:
        """Use the synced command's id (and guild_id for guild commands) like Discord does."""
        if guild_id is not None:
            for cmd in self.commands.get(guild_id, []):
                if cmd["name"] == name:
                    return cmd["id"], guild_id
        for cmd in self.commands.get(None, []):
            if cmd["name"] == name:
                return cmd["id"], None
        return self.new_id(), None

    def _interaction_base(
        self,
        itype: int,
        data: dict[str, Any],
        *,
        guild: bool,
        locale: str,
        user_id: str | None,
        interaction_id: str | None,
        token: str | None,
        channel_id: str | None = None,
        guild_id: str | None = None,
    ) -> dict[str, Any]:
        """Fields every interaction needs (``attachment_size_limit`` is required by 2.7)."""
        user = self.user(user_id or self.user_id)
        payload: dict[str, Any] = {
            "id": str(interaction_id or self.new_id()),
            "application_id": self.application_id,
            "type": itype,
            "data": data,
            "token": token or f"itoken-{self.new_id()}",
            "version": 1,
            "locale": locale,
            "app_permissions": TEXT_PERMISSIONS,
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "entitlement_sku_ids": [],
        }
        if guild:
            gid = str(guild_id or self.guild_id)
            payload["guild_id"] = gid
            payload["guild"] = {"id": gid, "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["member"] = self.member(user, permissions=True)
            payload["channel"] = self.text_channel(channel_id, gid)
            payload["channel_id"] = payload["channel"]["id"]
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": gid}
        else:
            payload["user"] = user
            payload["channel"] = self.dm_channel(user, channel_id)
            payload["channel_id"] = payload["channel"]["id"]
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": "0"}
        return payload

    def slash_interaction(
        self,
        name: str,
        options: list[dict[str, Any]] | None = None,
        *,
        guild: bool = True,
        locale: str = "en-US",
        user_id: str | None = None,
        interaction_id: str | None = None,
        token: str | None = None,
        channel_id: str | None = None,
        guild_id: str | None = None,
    ) -> dict[str, Any]:
        """INTERACTION_CREATE payload for a chat-input command (type 2)."""
        gid = str(guild_id or self.guild_id) if guild else None
        cmd_id, cmd_guild = self._command_ref(name, gid)
        data: dict[str, Any] = {"id": cmd_id, "name": name, "type": 1, "options": options or []}
        if cmd_guild is not None:
            data["guild_id"] = cmd_guild
        return self._interaction_base(
            2,
            data,
            guild=guild,
            locale=locale,
            user_id=user_id,
            interaction_id=interaction_id,
            token=token,
            channel_id=channel_id,
            guild_id=guild_id,
        )

    def dm_slash_interaction(
        self,
        name: str,
        options: list[dict[str, Any]] | None = None,
        *,
        locale: str = "en-US",
        user_id: str | None = None,
        interaction_id: str | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        """A slash command used in the bot's DM: ``user`` + channel type 1, no guild."""
        return self.slash_interaction(
            name,
            options,
            guild=False,
            locale=locale,
            user_id=user_id,
            interaction_id=interaction_id,
            token=token,
        )

    def autocomplete_interaction(
        self,
        name: str,
        options: list[dict[str, Any]],
        *,
        guild: bool = True,
        locale: str = "en-US",
        user_id: str | None = None,
    ) -> dict[str, Any]:
        """Autocomplete (type 4); marks the last option focused if none is."""
        opts = [dict(o) for o in options]
        if opts and not any(o.get("focused") for o in opts):
            opts[-1]["focused"] = True
        payload = self.slash_interaction(name, opts, guild=guild, locale=locale, user_id=user_id)
        payload["type"] = 4
        return payload

    def component_interaction(
        self,
        custom_id: str,
        component_type: int = 2,
        values: list[str] | None = None,
        message: dict[str, Any] | None = None,
        *,
        guild: bool = True,
        locale: str = "en-US",
        user_id: str | None = None,
    ) -> dict[str, Any]:
        """Component click/select (type 3) on ``message`` - by default the latest bot message
        carrying that custom_id, since discord.py routes views by message id."""
        msg = message or self._find_message_with_custom_id(custom_id)
        if msg is None:
            raise LookupError(f"no recorded bot message has a component {custom_id!r}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = values
        payload = self._interaction_base(
            3,
            data,
            guild=guild,
            locale=locale,
            user_id=user_id,
            interaction_id=None,
            token=None,
            channel_id=msg.get("channel_id"),
        )
        payload["message"] = msg
        return payload

    def message_create(
        self,
        content: str,
        mentions: list[dict[str, Any]] | None = None,
        *,
        guild: bool = True,
        author_id: str | None = None,
        channel_id: str | None = None,
        prefix_mention: bool = True,
    ) -> dict[str, Any]:
        """MESSAGE_CREATE payload. ``mentions`` defaults to the bot; when the bot is mentioned
        the content is prefixed with ``<@bot_id> `` unless it already contains it, because a
        real mention always appears in the text (``commands.when_mentioned`` matches it)."""
        author = self.user(author_id or self.user_id)
        mentions = [self.bot_user] if mentions is None else mentions
        bot_mention = f"<@{self.application_id}>"
        mentions_bot = any(m["id"] == self.application_id for m in mentions)
        if prefix_mention and mentions_bot and bot_mention not in content:
            content = f"{bot_mention} {content}"
        data: dict[str, Any] = {
            "id": self.new_id(),
            "type": 0,
            "content": content,
            "author": author,
            "mentions": mentions,
            "mention_roles": [],
            "mention_everyone": False,
            "attachments": [],
            "embeds": [],
            "components": [],
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "pinned": False,
            "flags": 0,
            "nonce": None,
        }
        if guild:
            data["channel_id"] = str(channel_id or self.channel_id)
            data["guild_id"] = self.guild_id
            member = self.member(author)
            del member["user"]
            data["member"] = member
        else:
            data["channel_id"] = self.dm_channel(author, channel_id)["id"]
        self.messages[data["id"]] = data
        return data

    def _find_message_with_custom_id(self, custom_id: str) -> dict[str, Any] | None:
        """Latest stored message (bot-sent ones included) whose components use custom_id."""

        def walk(components: list[dict[str, Any]]) -> bool:
            for comp in components:
                if comp.get("custom_id") == custom_id:
                    return True
                nested = comp.get("components") or []
                accessory = [comp["accessory"]] if comp.get("accessory") else []
                if walk(nested + accessory):
                    return True
            return False

        for msg in reversed(list(self.messages.values())):
            if walk(msg.get("components") or []):
                found: dict[str, Any] = msg
                return found
        return None

    # ------------------------------------------------------------------ gateway API

    async def dispatch(self, event: str, data: dict[str, Any], shard_id: int = 0) -> bool:
        """Send op 0 ``event`` with the next seq to the shard's live socket.

        Waits (up to 5 s) for the shard to be connected and READY/RESUMED. Returns False if the
        event was dropped because the identified intents would not receive it on real Discord.
        MESSAGE_CREATE content is blanked without the message-content intent (guild, no mention).
        """
        session, _ = await self._wait_live(shard_id)
        filtered = self._apply_intents(session, event, data)
        if filtered is None:
            return False
        data = filtered
        if event == "INTERACTION_CREATE":
            self._register_interaction(data)
        if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE") and "id" in data:
            self.messages.setdefault(str(data["id"]), data)
        await self._send_dispatch(session, event, data)
        return True

    def _apply_intents(
        self, session: _Session, event: str, data: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Mimic Discord's intent filtering so a bot with the wrong intents fails the test."""
        if not self.simulate_intents or event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
            return data
        in_guild = "guild_id" in data
        needed = INTENT_GUILD_MESSAGES if in_guild else INTENT_DIRECT_MESSAGES
        if not session.intents & needed:
            self.dropped_events.append((session.shard_id, event, "missing messages intent"))
            return None
        author_id = (data.get("author") or {}).get("id")
        mentioned = any(m.get("id") == self.application_id for m in data.get("mentions", []))
        privileged = session.intents & INTENT_MESSAGE_CONTENT
        if in_guild and not privileged and not mentioned and author_id != self.application_id:
            data = {**data, "content": "", "embeds": [], "attachments": [], "components": []}
        return data

    async def _wait_live(self, shard_id: int) -> tuple[_Session, web.WebSocketResponse]:
        """The shard's session and socket once connected and READY/RESUMED (max 5 s)."""
        await self.wait_for(lambda: self._live_session(shard_id) is not None, 5.0)
        session = self.sessions[shard_id]
        assert session.ws is not None
        return session, session.ws

    def _live_session(self, shard_id: int) -> _Session | None:
        session = self.sessions.get(shard_id)
        if session and session.live and session.ws is not None and not session.ws.closed:
            return session
        return None

    async def send_reconnect(self, shard_id: int = 0) -> None:
        """op 7: the client closes and RESUMEs on resume_gateway_url."""
        session, ws = await self._wait_live(shard_id)
        session.live = False
        await ws.send_str(json.dumps({"op": OP_RECONNECT, "d": None}))

    async def send_invalid_session(self, resumable: bool = False, shard_id: int = 0) -> None:
        """op 9: not resumable -> the client re-IDENTIFYs (after before_identify_hook)."""
        session, ws = await self._wait_live(shard_id)
        session.live = False
        if not resumable:
            self._sessions_by_id.pop(session.session_id, None)
        await ws.send_str(json.dumps({"op": OP_INVALID_SESSION, "d": resumable}))

    async def close_gateway(self, code: int = 4000, shard_id: int = 0) -> None:
        """Close the shard's socket with ``code`` (4000 -> discord.py RESUMEs)."""
        session, ws = await self._wait_live(shard_id)
        session.live = False
        await ws.close(code=code, message=b"closed by fake")

    async def _send_dispatch(self, session: _Session, event: str, data: dict[str, Any]) -> None:
        """TEXT frame: discord.py only zlib-decompresses binary frames."""
        assert session.ws is not None
        session.seq += 1
        frame = {"op": OP_DISPATCH, "t": event, "s": session.seq, "d": data}
        await session.ws.send_str(json.dumps(frame))
        self.dispatched.append((session.shard_id, event, data))
        self._notify()

    # ------------------------------------------------------------------ gateway server

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        """One client connection: HELLO, heartbeats, IDENTIFY/RESUME."""
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._sockets.add(ws)
        self.gateway_connections.append((request.path, dict(request.query)))
        self._notify()
        current: _Session | None = None
        try:
            hello = {
                "op": OP_HELLO,
                "s": None,
                "t": None,
                "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS},
            }
            await ws.send_str(json.dumps(hello))
            async for msg in ws:
                if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    continue
                payload = json.loads(msg.data)
                op = payload.get("op")
                d = payload.get("d")
                shard = current.shard_id if current else None
                self.gateway_received.append((shard, self._redact(payload)))
                self._notify()
                if op == OP_HEARTBEAT:
                    await ws.send_str(json.dumps({"op": OP_HEARTBEAT_ACK}))
                elif op == OP_IDENTIFY:
                    current = await self._on_identify(ws, d)
                elif op == OP_RESUME:
                    current = await self._on_resume(ws, d)
        except Exception as exc:
            self.server_errors.append(f"gateway: {exc!r}")
            raise
        finally:
            self._sockets.discard(ws)
            if current is not None and current.ws is ws:
                current.ws = None
                current.live = False
            self._notify()
        return ws

    @staticmethod
    def _redact(payload: dict[str, Any]) -> dict[str, Any]:
        """Never keep the token from IDENTIFY/RESUME."""
        d = payload.get("d")
        if isinstance(d, dict) and "token" in d:
            return {**payload, "d": {**d, "token": "<redacted>"}}
        return payload

    def _token_ok(self, token: Any) -> bool:
        return isinstance(token, str) and hmac.compare_digest(_hash(token), self._token_hash)

    async def _on_identify(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> _Session | None:
        """Record IDENTIFY, start a fresh session, send READY then GUILD_CREATEs."""
        token_ok = self._token_ok(d.get("token"))
        shard = d.get("shard")
        shard_id, shard_count = (int(shard[0]), int(shard[1])) if shard else (0, None)
        record = {k: v for k, v in d.items() if k != "token"}
        record["token_ok"] = token_ok
        self.identifies.append(record)
        self.identify_count[shard_id] += 1
        self._notify()
        if not token_ok:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        old = self.sessions.get(shard_id)
        if old is not None:
            self._sessions_by_id.pop(old.session_id, None)
        session = _Session(
            shard_id=shard_id,
            shard_count=shard_count,
            session_id=uuid.uuid4().hex,
            intents=int(d.get("intents", 0)),
            ws=ws,
        )
        self.sessions[shard_id] = session
        self._sessions_by_id[session.session_id] = session
        guilds = [g for g in self.guild_ids if self._shard_for(g, shard_count) == shard_id]
        ready: dict[str, Any] = {
            "v": 10,
            "user": self.bot_user,
            "guilds": [{"id": g, "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url,
            "application": {"id": self.application_id, "flags": self.app_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
        }
        if shard_count is not None:
            ready["shard"] = [shard_id, shard_count]
        await self._send_dispatch(session, "READY", ready)
        if self.send_guilds and session.intents & INTENT_GUILDS:
            for gid in guilds:
                await self._send_dispatch(session, "GUILD_CREATE", self.guild_create(gid))
        session.live = True
        self.handshakes[shard_id] += 1
        self._notify()
        return session

    async def _on_resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> _Session | None:
        """RESUME an existing session: send RESUMED and replay nothing."""
        session = self._sessions_by_id.get(str(d.get("session_id")))
        token_ok = self._token_ok(d.get("token"))
        self.resumes.append(
            {
                "session_id": d.get("session_id"),
                "seq": d.get("seq"),
                "token_ok": token_ok,
                "found": session is not None,
            }
        )
        if not token_ok:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        if session is None:
            await ws.send_str(json.dumps({"op": OP_INVALID_SESSION, "d": False}))
            return None
        self.resume_count[session.shard_id] += 1
        session.ws = ws
        await self._send_dispatch(session, "RESUMED", {})
        session.live = True
        self.handshakes[session.shard_id] += 1
        self._notify()
        return session

    @staticmethod
    def _shard_for(guild_id: str, shard_count: int | None) -> int:
        """Discord's shard formula."""
        return (int(guild_id) >> 22) % shard_count if shard_count else 0

    # ------------------------------------------------------------------ REST plumbing

    def _add_routes(self, app: web.Application) -> None:
        p = API_PREFIX
        r = app.router
        r.add_get("/gateway", self._gateway)
        r.add_get("/resume-gateway", self._gateway)
        r.add_get(p + "/users/@me", self._get_me)
        r.add_get(p + "/oauth2/applications/@me", self._get_application)
        r.add_get(p + "/applications/@me", self._get_application)
        r.add_get(p + "/gateway", self._get_gateway)
        r.add_get(p + "/gateway/bot", self._get_gateway_bot)
        r.add_put(p + "/applications/{app_id}/commands", self._put_commands)
        r.add_get(p + "/applications/{app_id}/commands", self._get_commands)
        r.add_put(p + "/applications/{app_id}/guilds/{guild_id}/commands", self._put_commands)
        r.add_get(p + "/applications/{app_id}/guilds/{guild_id}/commands", self._get_commands)
        r.add_post(p + "/interactions/{interaction_id}/{token}/callback", self._callback)
        r.add_post(p + "/webhooks/{app_id}/{token}", self._followup)
        msg_route = p + "/webhooks/{app_id}/{token}/messages/{message_id}"
        r.add_get(msg_route, self._webhook_message)
        r.add_patch(msg_route, self._webhook_message)
        r.add_delete(msg_route, self._webhook_message)
        r.add_post(p + "/channels/{channel_id}/messages", self._post_channel_message)
        r.add_get(p + "/channels/{channel_id}/messages/{message_id}", self._channel_message)
        r.add_patch(p + "/channels/{channel_id}/messages/{message_id}", self._channel_message)
        r.add_delete(p + "/channels/{channel_id}/messages/{message_id}", self._channel_message)
        r.add_get(p + "/channels/{channel_id}", self._get_channel)
        r.add_post(p + "/channels/{channel_id}/typing", self._no_content)
        r.add_put(
            p + "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            self._no_content,
        )
        r.add_post(p + "/users/@me/channels", self._create_dm)
        r.add_route("*", "/{tail:.*}", self._not_found)

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Record every REST call, enforce bot auth, then inject scheduled faults."""
        if not request.path.startswith(API_PREFIX):
            return await handler(request)
        path = request.path[len(API_PREFIX) :]
        body, files = await self._read_body(request)
        headers = {k: v for k, v in request.headers.items() if k.lower() != "authorization"}
        auth_header = request.headers.get("Authorization")
        if auth_header is None:
            auth = "missing"
        elif auth_header.startswith("Bot ") and self._token_ok(auth_header[4:]):
            auth = "ok"
        else:
            auth = "wrong"
        rec = RecordedRequest(
            method=request.method,
            path=path,
            json=body,
            headers=headers,
            query=dict(request.query),
            auth=auth,
            params=dict(request.match_info),
            files=files,
        )
        request[REC_KEY] = rec
        self.requests.append(rec)
        try:
            token_routes = path.startswith(("/interactions/", "/webhooks/"))
            if not token_routes and auth != "ok":
                resp: web.StreamResponse = _error(401, "401: Unauthorized", 0)
            else:
                fault = next((f for f in self.faults if f.matches(request.method, path)), None)
                if fault is not None:
                    fault.served += 1
                    self.faults_served += 1
                if fault is not None and fault.delay > 0:
                    await asyncio.sleep(fault.delay)
                    resp = await self._guarded(handler, request)
                elif fault is not None:
                    rec.faulted = True
                    resp = self._fault_response(fault)
                else:
                    resp = await self._guarded(handler, request)
            rec.status = resp.status
            return resp
        finally:
            self._notify()

    async def _guarded(self, handler: Handler, request: web.Request) -> web.StreamResponse:
        """A bug in the fake must fail the test, not look like a Discord 500 that gets retried."""
        try:
            return await handler(request)
        except web.HTTPException:
            raise
        except Exception as exc:
            self.server_errors.append(f"{request.method} {request.path}: {exc!r}")
            return _error(500, f"fake crashed: {exc!r}", 0)

    async def _read_body(self, request: web.Request) -> tuple[Any, list[tuple[str, str, int]]]:
        """JSON body, or ``payload_json`` + file parts for multipart uploads."""
        if not request.body_exists:
            return None, []
        if request.content_type.startswith("multipart/"):
            body: Any = None
            files: list[tuple[str, str, int]] = []
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                raw = await part.read()
                if part.name == "payload_json":
                    body = json.loads(raw)
                else:
                    files.append((part.name or "", part.filename or "", len(raw)))
            return body, files
        raw_text = await request.text()
        if not raw_text:
            return None, []
        try:
            return json.loads(raw_text), []
        except json.JSONDecodeError:
            return raw_text, []

    @staticmethod
    def _rec(request: web.Request) -> RecordedRequest:
        return request[REC_KEY]

    async def _not_found(self, request: web.Request) -> web.Response:
        """Unknown endpoint: 404 and visible in ``fake.unhandled``."""
        if request.path.startswith(API_PREFIX):
            self._rec(request).kind = "unhandled"
        return _error(404, "404: Not Found", 0)

    async def _no_content(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    # ------------------------------------------------------------------ REST: login

    async def _get_me(self, request: web.Request) -> web.Response:
        return _json_response(self.bot_user)

    async def _get_application(self, request: web.Request) -> web.Response:
        """Login always fetches this; it sets application_id, which tree.sync needs."""
        return _json_response(
            {
                "id": self.application_id,
                "name": self.bot_user["username"],
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": self.owner_user,
                "team": None,
                "verify_key": "0" * 64,
                "flags": self.app_flags,
                "bot": self.bot_user,
                "summary": "",
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.guild_ids),
            }
        )

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return _json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        """Used by AutoShardedClient without shard_count."""
        return _json_response(
            {
                "url": self.gateway_url,
                "shards": self.gateway_shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 86_400_000,
                    "max_concurrency": 1,
                },
            }
        )

    # ------------------------------------------------------------------ REST: commands

    async def _put_commands(self, request: web.Request) -> web.Response:
        """Bulk overwrite: validate like Discord, store, echo back with ids."""
        rec = self._rec(request)
        if request.match_info["app_id"] != self.application_id:
            return _error(403, "Missing Access", 50001)
        payload = rec.json if isinstance(rec.json, list) else []
        for index, cmd in enumerate(payload):
            problem = _validate_command(cmd)
            if problem:
                return _form_error(f"{index}.{problem[0]}", "INVALID", problem[1])
        guild_id = request.match_info.get("guild_id")
        existing = {c["name"]: c["id"] for c in self.commands.get(guild_id, [])}
        stored: list[dict[str, Any]] = []
        for cmd in payload:
            echoed = {
                "description": "",
                "type": 1,
                "default_member_permissions": None,
                "nsfw": False,
                **cmd,
                "id": existing.get(cmd["name"]) or self.new_id(),
                "application_id": self.application_id,
                "version": self.new_id(),
            }
            if guild_id is not None:
                echoed["guild_id"] = guild_id
            stored.append(echoed)
        self.commands[guild_id] = stored
        rec.kind = "command_sync"
        return _json_response(stored)

    async def _get_commands(self, request: web.Request) -> web.Response:
        return _json_response(self.commands.get(request.match_info.get("guild_id"), []))

    # ------------------------------------------------------------------ REST: interactions

    def _register_interaction(self, data: dict[str, Any]) -> None:
        """Remember an interaction so its callback/followups can be checked."""
        msg = data.get("message") or {}
        self._interactions[str(data["id"])] = _Interaction(
            id=str(data["id"]),
            token=str(data["token"]),
            type=int(data["type"]),
            channel_id=str(data.get("channel_id") or (data.get("channel") or {}).get("id")),
            guild_id=data.get("guild_id"),
            message_id=str(msg["id"]) if msg.get("id") else None,
            payload=data,
            dispatched_at=time.monotonic(),
        )

    def _by_token(self, token: str) -> _Interaction | None:
        return next((i for i in self._interactions.values() if i.token == token), None)

    async def _callback(self, request: web.Request) -> web.Response:
        """Initial response. discord.py always sends ``?with_response=1`` and parses
        ``{"interaction": {...}, "resource": {...}}`` (a bare 204 breaks send_message/defer)."""
        rec = self._rec(request)
        inter = self._interactions.get(request.match_info["interaction_id"])
        if inter is None or inter.token != request.match_info["token"]:
            return _error(404, "Unknown interaction", 10062)
        if rec.at - inter.dispatched_at > self.interaction_timeout:  # judged on arrival
            return _error(404, "Unknown interaction", 10062)
        if inter.response_type is not None:
            return _error(400, "Interaction has already been acknowledged.", 40060)
        body = rec.json if isinstance(rec.json, dict) else {}
        cb_type = int(body.get("type", 0))
        data = body.get("data") or {}
        problem = _validate_callback(cb_type, inter.type, data)
        if problem:
            return _form_error(f"data.{problem[0]}", "INVALID", problem[1])

        ephemeral = bool(int(data.get("flags") or 0) & MSG_FLAG_EPHEMERAL)
        summary: dict[str, Any] = {
            "id": inter.id,
            "type": inter.type,
            "response_message_loading": cb_type == CB_DEFERRED_MESSAGE,
            "response_message_ephemeral": ephemeral,
        }
        result: dict[str, Any] = {"interaction": summary}
        message: dict[str, Any] | None = None
        if cb_type in (CB_MESSAGE, CB_DEFERRED_MESSAGE):
            flags = int(data.get("flags") or 0)
            if cb_type == CB_DEFERRED_MESSAGE:
                data = {"flags": flags | MSG_FLAG_LOADING}
            message = self._make_message(
                inter.channel_id,
                data,
                guild_id=inter.guild_id,
                webhook_id=self.application_id,
                msg_type=20 if inter.type == 2 else 0,
            )
            inter.original_message_id = message["id"]
        elif cb_type in (CB_UPDATE_MESSAGE, CB_DEFERRED_UPDATE):
            inter.original_message_id = inter.message_id
            if cb_type == CB_UPDATE_MESSAGE and inter.message_id in self.messages:
                message = self.messages[inter.message_id]
                message.update({k: v for k, v in data.items() if k != "flags"})
                message["edited_timestamp"] = _now_iso()
            elif cb_type == CB_UPDATE_MESSAGE:
                message = self._make_message(inter.channel_id, data, guild_id=inter.guild_id)
        if inter.original_message_id:
            summary["response_message_id"] = inter.original_message_id
        if message is not None:
            result["resource"] = {"type": cb_type, "message": message}
        inter.response_type = cb_type
        rec.kind = "interaction_response"
        return _json_response(result)

    def _original(self, inter: _Interaction) -> dict[str, Any] | None:
        if inter.original_message_id is None:
            return None
        return self.messages.get(inter.original_message_id)

    async def _followup(self, request: web.Request) -> web.Response:
        """Followups need an acknowledged interaction (else Unknown Webhook, as on Discord)."""
        rec = self._rec(request)
        inter = self._by_token(request.match_info["token"])
        if (
            request.match_info["app_id"] != self.application_id
            or inter is None
            or inter.response_type is None
        ):
            return _error(404, "Unknown Webhook", 10015)
        data = rec.json if isinstance(rec.json, dict) else {}
        problem = _validate_message(data, require_content=not rec.files)
        if problem:
            return _form_error(problem[0], "INVALID", problem[1])
        message = self._make_message(
            inter.channel_id, data, guild_id=inter.guild_id, webhook_id=self.application_id
        )
        rec.kind = "followup"
        if request.query.get("wait") in ("1", "true", "True"):
            return _json_response(message)
        return web.Response(status=204)

    async def _webhook_message(self, request: web.Request) -> web.Response:
        """GET/PATCH/DELETE of ``@original`` or a followup message."""
        rec = self._rec(request)
        inter = self._by_token(request.match_info["token"])
        if request.match_info["app_id"] != self.application_id or inter is None:
            return _error(404, "Unknown Webhook", 10015)
        mid = request.match_info["message_id"]
        msg = self._original(inter) if mid == "@original" else self.messages.get(mid)
        if msg is None:
            return _error(404, "Unknown Message", 10008)
        if request.method == "DELETE":
            self.messages.pop(msg["id"], None)
            rec.kind = "webhook_delete"
            return web.Response(status=204)
        if request.method == "PATCH":
            data = rec.json if isinstance(rec.json, dict) else {}
            problem = _validate_message(data, require_content=False)
            if problem:
                return _form_error(problem[0], "INVALID", problem[1])
            msg.update({k: v for k, v in data.items() if k not in ("flags", "allowed_mentions")})
            msg["flags"] = int(msg.get("flags") or 0) & ~MSG_FLAG_LOADING
            msg["edited_timestamp"] = _now_iso()
            rec.kind = "webhook_edit"
        return _json_response(msg)

    # ------------------------------------------------------------------ REST: channels

    async def _post_channel_message(self, request: web.Request) -> web.Response:
        """Bot message/reply; ``message_reference`` makes it a type-19 reply."""
        rec = self._rec(request)
        data = rec.json if isinstance(rec.json, dict) else {}
        problem = _validate_message(data, require_content=not rec.files)
        if problem:
            return _form_error(problem[0], "INVALID", problem[1])
        channel_id = request.match_info["channel_id"]
        channel = self.channels.get(channel_id) or {}
        guild_id = channel.get("guild_id")
        ref = data.get("message_reference")
        if guild_id is None and ref:
            guild_id = (self.messages.get(str(ref.get("message_id"))) or {}).get("guild_id")
        message = self._make_message(channel_id, data, guild_id=guild_id)
        rec.kind = "channel_message"
        return _json_response(message)

    async def _channel_message(self, request: web.Request) -> web.Response:
        """Fetch / edit / delete a stored message."""
        rec = self._rec(request)
        msg = self.messages.get(request.match_info["message_id"])
        if msg is None or msg.get("channel_id") != request.match_info["channel_id"]:
            return _error(404, "Unknown Message", 10008)
        if request.method == "DELETE":
            self.messages.pop(msg["id"], None)
            rec.kind = "channel_message_delete"
            return web.Response(status=204)
        if request.method == "PATCH":
            data = rec.json if isinstance(rec.json, dict) else {}
            problem = _validate_message(data, require_content=False)
            if problem:
                return _form_error(problem[0], "INVALID", problem[1])
            msg.update({k: v for k, v in data.items() if k != "allowed_mentions"})
            msg["edited_timestamp"] = _now_iso()
            rec.kind = "channel_message_edit"
        return _json_response(msg)

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel = self.channels.get(request.match_info["channel_id"])
        if channel is None:
            return _error(404, "Unknown Channel", 10003)
        return _json_response(channel)

    async def _create_dm(self, request: web.Request) -> web.Response:
        """``user.send()`` opens a DM channel first."""
        rec = self._rec(request)
        recipient = str((rec.json or {}).get("recipient_id"))
        for channel in self.channels.values():
            if channel.get("type") == 1 and channel["recipients"][0]["id"] == recipient:
                return _json_response(channel)
        return _json_response(self.dm_channel(self.user(recipient)))

    def _make_message(
        self,
        channel_id: str,
        data: dict[str, Any],
        *,
        guild_id: str | None = None,
        webhook_id: str | None = None,
        msg_type: int = 0,
    ) -> dict[str, Any]:
        """A full message object as discord.py's Message parser expects; stored for later."""
        message: dict[str, Any] = {
            "id": self.new_id(),
            "channel_id": str(channel_id),
            "author": self.bot_user,
            "content": data.get("content") or "",
            "embeds": data.get("embeds") or [],
            "components": data.get("components") or [],
            "attachments": [],
            "type": msg_type,
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "flags": int(data.get("flags") or 0),
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": bool(data.get("tts", False)),
        }
        if guild_id is not None:
            message["guild_id"] = str(guild_id)
        if webhook_id is not None:
            message["webhook_id"] = webhook_id
            message["application_id"] = self.application_id
        ref = data.get("message_reference")
        if ref:
            message["type"] = 19
            message["message_reference"] = {
                "type": 0,
                "message_id": str(ref.get("message_id")),
                "channel_id": str(ref.get("channel_id") or channel_id),
                **({"guild_id": str(guild_id)} if guild_id else {}),
            }
            message["referenced_message"] = self.messages.get(str(ref.get("message_id")))
        self.messages[message["id"]] = message
        return message


def _infer_type(value: Any) -> type:
    """bool is an int subclass; check it first so True maps to BOOLEAN (5)."""
    for candidate in (bool, int, float, str):
        if isinstance(value, candidate):
            return candidate
    raise TypeError(f"cannot infer an option type for {value!r}")


# ---------------------------------------------------------------------- validation


def _validate_message(data: dict[str, Any], *, require_content: bool) -> tuple[str, str] | None:
    """Discord's message limits; returns (field path, message) of the first violation."""
    content = data.get("content") or ""
    if len(content) > 2000:
        return "content", "Must be 2000 or fewer in length."
    embeds = data.get("embeds") or []
    if len(embeds) > 10:
        return "embeds", "Must be 10 or fewer in length."
    total = 0
    limits = {"title": 256, "description": 4096}
    for i, embed in enumerate(embeds):
        for key, limit in limits.items():
            text = embed.get(key) or ""
            total += len(text)
            if len(text) > limit:
                return f"embeds.{i}.{key}", f"Must be {limit} or fewer in length."
        fields = embed.get("fields") or []
        if len(fields) > 25:
            return f"embeds.{i}.fields", "Must be 25 or fewer in length."
        for j, fld in enumerate(fields):
            name, value = fld.get("name") or "", fld.get("value") or ""
            if not name or not value:
                return f"embeds.{i}.fields.{j}", "Field name and value are required."
            if len(name) > 256 or len(value) > 1024:
                return f"embeds.{i}.fields.{j}", "Field name <= 256 and value <= 1024."
            total += len(name) + len(value)
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        if len(footer) > 2048 or len(author) > 256:
            return f"embeds.{i}", "Footer text <= 2048 and author name <= 256."
        total += len(footer) + len(author)
    if total > 6000:
        return "embeds", "Embed size exceeds maximum size of 6000"
    components = data.get("components") or []
    if len(components) > 40:
        return "components", "Must be 40 or fewer in length."
    has_body = content or embeds or components or data.get("attachments") or data.get("poll")
    if require_content and not has_body and not data.get("sticker_ids"):
        return "content", "Cannot send an empty message"
    return None


def _validate_callback(cb_type: int, itype: int, data: dict[str, Any]) -> tuple[str, str] | None:
    """Callback type must fit the interaction type; choices/messages must fit the limits."""
    allowed = {
        2: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_MODAL},
        3: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE, CB_MODAL},
        4: {CB_AUTOCOMPLETE},
        5: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE},
        1: {CB_PONG},
    }
    if cb_type not in allowed.get(itype, set()):
        return "type", f"Callback type {cb_type} is invalid for interaction type {itype}"
    if cb_type == CB_AUTOCOMPLETE:
        choices = data.get("choices") or []
        if len(choices) > 25:
            return "choices", "Must be 25 or fewer in length."
        for i, choice in enumerate(choices):
            name = choice.get("name") or ""
            if not 1 <= len(name) <= 100:
                return f"choices.{i}.name", "Must be between 1 and 100 in length."
            value = choice.get("value")
            if isinstance(value, str) and not 1 <= len(value) <= 100:
                return f"choices.{i}.value", "Must be between 1 and 100 in length."
        return None
    if cb_type == CB_MESSAGE:
        return _validate_message(data, require_content=True)
    if cb_type == CB_UPDATE_MESSAGE:
        return _validate_message(data, require_content=False)
    return None


def _validate_names(obj: dict[str, Any], *, chat_input: bool) -> tuple[str, str] | None:
    """Name/description rules shared by commands and options, incl. localizations."""
    name = obj.get("name") or ""
    if chat_input and (not _COMMAND_NAME_RE.match(name) or name != name.lower()):
        return "name", f"Invalid command name {name!r} (1-32 lowercase, no spaces)."
    for locale, local_name in (obj.get("name_localizations") or {}).items():
        if locale not in _VALID_LOCALES:
            return f"name_localizations.{locale}", "Invalid locale."
        bad = not _COMMAND_NAME_RE.match(local_name) or local_name != local_name.lower()
        if chat_input and bad:
            return f"name_localizations.{locale}", f"Invalid name {local_name!r}."
    if chat_input:
        desc = obj.get("description") or ""
        if not 1 <= len(desc) <= 100:
            return "description", "Must be between 1 and 100 in length."
        for locale, local_desc in (obj.get("description_localizations") or {}).items():
            if locale not in _VALID_LOCALES:
                return f"description_localizations.{locale}", "Invalid locale."
            if not 1 <= len(local_desc) <= 100:
                return f"description_localizations.{locale}", "Must be 1-100 in length."
    return None


def _validate_command(cmd: dict[str, Any]) -> tuple[str, str] | None:
    """Discord's application command rules (chat input names, options, choices)."""
    chat_input = int(cmd.get("type", 1)) == 1
    problem = _validate_names(cmd, chat_input=chat_input)
    if problem:
        return problem
    return _validate_options(cmd.get("options") or [], "options")


def _validate_options(options: list[dict[str, Any]], path: str) -> tuple[str, str] | None:
    """Options: <= 25, required before optional, <= 25 choices, recursive for subcommands."""
    if len(options) > 25:
        return path, "Must be 25 or fewer in length."
    seen_optional = False
    for i, opt in enumerate(options):
        problem = _validate_names(opt, chat_input=True)
        if problem:
            return f"{path}.{i}.{problem[0]}", problem[1]
        if opt.get("type") in (1, 2):
            nested = _validate_options(opt.get("options") or [], f"{path}.{i}.options")
            if nested:
                return nested
            continue
        if opt.get("required"):
            if seen_optional:
                return f"{path}.{i}", "Required options must be placed before non-required."
        else:
            seen_optional = True
        if len(opt.get("choices") or []) > 25:
            return f"{path}.{i}.choices", "Must be 25 or fewer in length."
    return None

"""A strict, in-process fake of the Telegram Bot API for end-to-end tests.

The real python-telegram-bot ``Application`` talks to it over HTTP on 127.0.0.1, so tests exercise
the library's own request encoding, polling loop, retries and error mapping. The fake is strict
where Telegram is strict (HTML entities, 4096-char limit, callback_data size, query ids), so
formatting bugs fail tests instead of failing in production.

Usage::

    async with FakeTelegram() as fake:
        app = fake.app_builder().build()
        fake.push_update(fake.message_update("/start"))
        ...
        await fake.wait_for(lambda: len(fake.sent_messages) == 1)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import secrets
import socket
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple, Self

import aiohttp
from aiohttp import web

if TYPE_CHECKING:
    from telegram.ext import ApplicationBuilder

__all__ = [
    "BadRequest",
    "Call",
    "FakeTelegram",
    "Fault",
    "free_port",
    "parse_telegram_html",
    "post_webhook",
    "utf16_len",
]

JsonDict = dict[str, Any]

MAX_MESSAGE_UTF16 = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_INLINE_RESULTS = 50
MAX_CALLBACK_ANSWER_CHARS = 200

# Params PTB sends JSON-encoded (everything that is not a str). Strings such as ``text`` arrive raw
# and must never be json-decoded: "99" has to stay "99".
JSON_PARAMS = frozenset(
    {
        "allow_sending_without_reply",
        "allowed_updates",
        "button",
        "cache_time",
        "chat_id",
        "commands",
        "disable_notification",
        "disable_web_page_preview",
        "drop_pending_updates",
        "entities",
        "is_personal",
        "limit",
        "link_preview_options",
        "max_connections",
        "menu_button",
        "message_id",
        "message_thread_id",
        "offset",
        "protect_content",
        "reply_markup",
        "reply_parameters",
        "reply_to_message_id",
        "results",
        "scope",
        "show_alert",
        "timeout",
    }
)

# Methods that are harmless to accept without modelling them.
_ACCEPT_TRUE = frozenset(
    {
        "close",
        "logout",
        "pinchatmessage",
        "setchatmenubutton",
        "setmydescription",
        "setmyname",
        "setmyshortdescription",
        "unpinchatmessage",
    }
)

_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)

_UPDATE_TYPES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_member",
        "chat_join_request",
        "message_reaction",
        "message_reaction_count",
        "chat_boost",
        "removed_chat_boost",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "purchased_paid_media",
    }
)

_BUTTON_ACTIONS = frozenset(
    {
        "url",
        "callback_data",
        "web_app",
        "login_url",
        "switch_inline_query",
        "switch_inline_query_current_chat",
        "switch_inline_query_chosen_chat",
        "copy_text",
        "callback_game",
        "pay",
    }
)

_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")


class BadRequest(Exception):
    """A Telegram-style API error; the handler turns it into the JSON error envelope."""

    def __init__(
        self, description: str, status: int = 400, parameters: JsonDict | None = None
    ) -> None:
        super().__init__(description)
        self.description = description
        self.status = status
        self.parameters = parameters


class Call(NamedTuple):
    """One recorded API call; a tuple so tests can unpack ``method, params``."""

    method: str
    params: JsonDict


@dataclass
class Fault:
    """A queued fault for one method (see :meth:`FakeTelegram.fail_next`)."""

    status: int = 429
    retry_after: int = 1
    times: int = 1
    drop_connection: bool = False
    malformed: bool = False

    @property
    def kind(self) -> str:
        """Short label used in :attr:`FakeTelegram.faults`."""
        if self.drop_connection:
            return "drop"
        if self.malformed:
            return "malformed"
        return str(self.status)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: Telegram's unit for limits and entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1 (for PTB's own webhook server)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------- HTML validation

_ALLOWED_TAGS = frozenset(
    {
        "a",
        "b",
        "blockquote",
        "code",
        "del",
        "em",
        "i",
        "ins",
        "pre",
        "s",
        "span",
        "strike",
        "strong",
        "tg-emoji",
        "tg-spoiler",
        "u",
    }
)
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|(lt|gt|amp|quot));")
_TAG_NAME_RE = re.compile(r"[A-Za-z0-9-]*")
_ATTR_NAME_RE = re.compile(r"[A-Za-z0-9_-]+")


def _parse_error(detail: str) -> BadRequest:
    return BadRequest(f"Bad Request: can't parse entities: {detail}")


def _decode_entity(text: str, pos: int, byte_offset: Callable[[int], int]) -> tuple[str, int]:
    """Decode the entity at ``text[pos] == '&'``; a bare '&' is an error (stricter than TG)."""
    match = _ENTITY_RE.match(text, pos)
    if match is None:
        raise _parse_error(f'Unsupported entity or bare "&" at byte offset {byte_offset(pos)}')
    dec, hexa, name = match.groups()
    if name:
        return _NAMED_ENTITIES[name], match.end()
    code = int(dec) if dec else int(hexa, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise _parse_error(f"Invalid numeric entity at byte offset {byte_offset(pos)}")
    return chr(code), match.end()


def _parse_attrs(
    text: str, pos: int, tag_start: int, byte_offset: Callable[[int], int]
) -> tuple[dict[str, str], int]:
    """Parse attributes up to and including '>'; returns (attrs, index after '>')."""
    attrs: dict[str, str] = {}
    n = len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            raise _parse_error(f"Unclosed start tag at byte offset {byte_offset(tag_start)}")
        if text[pos] == ">":
            return attrs, pos + 1
        name_match = _ATTR_NAME_RE.match(text, pos)
        if name_match is None:
            raise _parse_error(
                f"Expected equal sign in declaration of an attribute of the tag at byte offset "
                f"{byte_offset(tag_start)}"
            )
        name = name_match.group().lower()
        pos = name_match.end()
        if pos < n and text[pos] == "=":
            pos += 1
            if pos >= n:
                raise _parse_error(f"Unclosed start tag at byte offset {byte_offset(tag_start)}")
            quote = text[pos]
            value_chars: list[str] = []
            if quote in "\"'":
                pos += 1
                while pos < n and text[pos] != quote:
                    if text[pos] == "&":
                        char, pos = _decode_entity(text, pos, byte_offset)
                        value_chars.append(char)
                    else:
                        value_chars.append(text[pos])
                        pos += 1
                if pos >= n:
                    raise _parse_error(
                        f"Unclosed start tag at byte offset {byte_offset(tag_start)}"
                    )
                pos += 1
            else:
                while pos < n and not text[pos].isspace() and text[pos] != ">":
                    value_chars.append(text[pos])
                    pos += 1
            attrs[name] = "".join(value_chars)
        else:
            attrs[name] = ""


def parse_telegram_html(text: str) -> str:
    """Validate Telegram HTML and return the visible text; raise BadRequest like Telegram.

    Only Telegram's tags are allowed, tags must nest properly, and '<' / '&' must start a tag or
    one of &lt; &gt; &amp; &quot; &#N; &#xH;.
    """
    encoded_prefix_cache: dict[int, int] = {}

    def byte_offset(index: int) -> int:
        if index not in encoded_prefix_cache:
            encoded_prefix_cache[index] = len(text[:index].encode("utf-8"))
        return encoded_prefix_cache[index]

    out: list[str] = []
    stack: list[str] = []
    pos = 0
    n = len(text)
    while pos < n:
        char = text[pos]
        if char == "&":
            decoded, pos = _decode_entity(text, pos, byte_offset)
            out.append(decoded)
        elif char == "<":
            tag_start = pos
            if pos + 1 < n and text[pos + 1] == "/":
                name_match = _TAG_NAME_RE.match(text, pos + 2)
                assert name_match is not None  # '*' always matches
                name = name_match.group().lower()
                end = name_match.end()
                while end < n and text[end].isspace():
                    end += 1
                if end >= n or text[end] != ">":
                    raise _parse_error(f"Unclosed end tag at byte offset {byte_offset(tag_start)}")
                if not stack:
                    raise _parse_error(
                        f'Unexpected end tag "</{name}>" at byte offset {byte_offset(tag_start)}'
                    )
                if stack[-1] != name:
                    raise _parse_error(
                        f"Unmatched end tag at byte offset {byte_offset(tag_start)}, "
                        f'expected "</{stack[-1]}>", found "</{name}>"'
                    )
                stack.pop()
                pos = end + 1
            else:
                name_match = _TAG_NAME_RE.match(text, pos + 1)
                assert name_match is not None
                name = name_match.group().lower()
                if name not in _ALLOWED_TAGS:
                    raise _parse_error(
                        f'Unsupported start tag "{name}" at byte offset {byte_offset(tag_start)}'
                    )
                attrs, pos = _parse_attrs(text, name_match.end(), tag_start, byte_offset)
                if name == "span" and attrs.get("class") != "tg-spoiler":
                    raise _parse_error('Tag "span" must have class "tg-spoiler"')
                if name == "tg-emoji" and not attrs.get("emoji-id", "").isdigit():
                    raise _parse_error('Tag "tg-emoji" must have a numeric "emoji-id" attribute')
                stack.append(name)
        else:
            out.append(char)
            pos += 1
    if stack:
        raise _parse_error(f'Can\'t find end tag corresponding to start tag "{stack[-1]}"')
    return "".join(out)


def _visible_text(text: Any, parse_mode: Any, *, empty_error: str) -> str:
    """Apply parse_mode and Telegram's length/emptiness rules; returns the visible text."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest(empty_error)
    if parse_mode is None or parse_mode == "":
        visible = text
    elif isinstance(parse_mode, str) and parse_mode.lower() == "html":
        visible = parse_telegram_html(text)
    elif isinstance(parse_mode, str) and parse_mode.lower() in {"markdown", "markdownv2"}:
        visible = text  # not modelled; HTML is what the project uses
    else:
        raise BadRequest("Bad Request: unsupported parse_mode")
    if not visible.strip():
        raise BadRequest(empty_error)
    if utf16_len(visible) > MAX_MESSAGE_UTF16:
        raise BadRequest("Bad Request: message is too long")
    return visible


def _validate_reply_markup(markup: Any) -> None:
    """Inline keyboards: buttons need one action; callback_data is 1..64 bytes."""
    if markup is None:
        return
    if not isinstance(markup, dict):
        raise BadRequest("Bad Request: can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise BadRequest('Bad Request: field "inline_keyboard" must be an Array of Arrays')
        buttons = [button for row in rows for button in row]
        if len(buttons) > 100:
            raise BadRequest("Bad Request: reply markup is too long")
        for button in buttons:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise BadRequest('Bad Request: can\'t find field "text"')
            if not button["text"]:
                raise BadRequest("Bad Request: BUTTON_TEXT_INVALID")
            actions = _BUTTON_ACTIONS & button.keys()
            if len(actions) != 1:
                raise BadRequest("Bad Request: text buttons are unallowed in the inline keyboard")
            if "callback_data" in button:
                data = button["callback_data"]
                if not isinstance(data, str) or not (
                    1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
                ):
                    raise BadRequest("Bad Request: BUTTON_DATA_INVALID")
            if "url" in button and not button["url"]:
                raise BadRequest("Bad Request: BUTTON_URL_INVALID")
    elif not ({"keyboard", "remove_keyboard", "force_reply"} & markup.keys()):
        raise BadRequest("Bad Request: can't parse reply keyboard markup JSON object")


# --------------------------------------------------------------------------- webhook helper


async def post_webhook(url: str, update: Mapping[str, Any], secret: str | None) -> int:
    """POST an update the way Telegram does; returns the HTTP status of the bot's server.

    Content-Type must be exactly ``application/json`` (PTB answers 403 to ``; charset=...``).
    """
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    body = json.dumps(update).encode("utf-8")
    timeout = aiohttp.ClientTimeout(total=5)
    async with (
        aiohttp.ClientSession(trust_env=False, timeout=timeout) as session,
        session.post(url, data=body, headers=headers) as resp,
    ):
        await resp.read()
        return resp.status


# --------------------------------------------------------------------------- the fake server


class FakeTelegram:
    """Fake Bot API server; use as ``async with FakeTelegram() as fake``.

    Every request is recorded in :attr:`calls` (including faulted ones); successful sends,
    edits and answers are also collected in the typed helper lists.
    """

    def __init__(
        self,
        token: str | None = None,
        *,
        bot_username: str = "vram_test_bot",
        bot_first_name: str = "VRAM Test",
        strict_chats: bool = True,
    ) -> None:
        self.token = token or f"123456:TEST-{secrets.token_hex(12)}"
        self.bot_id = int(self.token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_user: JsonDict = {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": bot_first_name,
            "username": bot_username,
        }
        self.strict_chats = strict_chats
        self.port = 0

        self.calls: list[Call] = []
        self.sent_messages: list[JsonDict] = []
        self.edits: list[JsonDict] = []
        self.callback_answers: list[JsonDict] = []
        self.inline_answers: list[JsonDict] = []
        self.commands: list[JsonDict] = []
        self.chat_actions: list[JsonDict] = []
        self.deleted_messages: list[JsonDict] = []
        self.unknown_methods: list[str] = []
        self.faults: list[tuple[str, str]] = []
        self.deliveries: Counter[int] = Counter()
        self.webhook: JsonDict = {}

        self._pending: deque[JsonDict] = deque()
        self._update_ids = itertools.count(1)
        self._ids = itertools.count(1000)
        self._allowed_updates: list[str] = []
        self._poll_generation = 0
        self._messages: dict[tuple[int, int], JsonDict] = {}
        self._raw_content: dict[tuple[int, int], tuple[Any, ...]] = {}
        self._next_message_id: dict[int, int] = {}
        self._chats: dict[int, JsonDict] = {}
        self._open_callback_queries: set[str] = set()
        self._open_inline_queries: set[str] = set()
        self._command_store: dict[tuple[str, str], list[JsonDict]] = {}
        self._faults: dict[str, deque[Fault]] = {}
        self._fault_windows: dict[str, tuple[float, Fault]] = {}
        self._delays: dict[str, float] = {}
        self._updates_changed = asyncio.Event()
        self._state_changed = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None

    def __repr__(self) -> str:
        """Never include the token: repr ends up in logs and assertion messages."""
        return f"<FakeTelegram @{self.bot_username} port={self.port} calls={len(self.calls)}>"

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Bind 127.0.0.1 on a free port; no access log, as paths contain the token."""
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._handle)
        # handler_cancellation: a long poll whose client went away must not linger.
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = int(sock.getsockname()[1])
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        """Wake pending long polls so shutdown does not wait for their timeout."""
        self._closing = True
        self._notify_updates()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def base_url(self) -> str:
        """Value for ``ApplicationBuilder().base_url``; PTB appends the token."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        """Value for ``ApplicationBuilder().base_file_url`` (files are not served)."""
        return f"http://127.0.0.1:{self.port}/file/bot"

    def app_builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """An ApplicationBuilder already pointed at this fake (token, base urls)."""
        from telegram.ext import ApplicationBuilder

        return (
            ApplicationBuilder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(self.base_file_url)
        )

    # ----------------------------------------------------------------- waiting

    def _notify(self) -> None:
        event, self._state_changed = self._state_changed, asyncio.Event()
        event.set()

    def _notify_updates(self) -> None:
        event, self._updates_changed = self._updates_changed, asyncio.Event()
        event.set()

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        """Wait until ``predicate()`` holds, re-checking after every recorded call.

        Raises AssertionError (with the call log) on timeout, so tests need no sleeps.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                methods = [call.method for call in self.calls]
                raise AssertionError(f"condition not met within {timeout}s; calls: {methods}")
            event = self._state_changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    async def wait_for_call(self, method: str, count: int = 1, timeout: float = 5.0) -> Call:
        """Wait for the ``count``-th call of ``method`` and return it."""
        await self.wait_for(lambda: len(self.calls_to(method)) >= count, timeout)
        return self.calls_to(method)[count - 1]

    def calls_to(self, method: str) -> list[Call]:
        """All recorded calls of one method (case-insensitive, like Telegram)."""
        return [call for call in self.calls if call.method.lower() == method.lower()]

    # ----------------------------------------------------------------- faults

    def fail_next(
        self,
        method: str,
        status: int = 429,
        retry_after: int = 1,
        times: int = 1,
        *,
        drop_connection: bool = False,
        malformed: bool = False,
    ) -> None:
        """Make the next ``times`` calls of ``method`` fail (429/5xx, dropped, or non-JSON)."""
        fault = Fault(status, retry_after, times, drop_connection, malformed)
        self._faults.setdefault(method.lower(), deque()).append(fault)

    def fail_for(
        self, method: str, seconds: float, status: int = 502, retry_after: int = 1
    ) -> None:
        """Every call of ``method`` fails for the next ``seconds`` (a 5xx blip, a 429 storm).

        A 429 carries ``retry_after``; a client that retries sooner simply fails again.
        """
        until = time.monotonic() + seconds
        self._fault_windows[method.lower()] = (until, Fault(status, retry_after, 0))

    def delay(self, method: str, seconds: float) -> None:
        """Hold every later call of ``method`` for ``seconds`` before answering (0 stops it).

        The call is recorded first, then held; a client that goes away meanwhile (killed)
        leaves no effect, as with a request Telegram never finished.
        """
        if seconds > 0:
            self._delays[method.lower()] = seconds
        else:
            self._delays.pop(method.lower(), None)

    @property
    def fault_count(self) -> int:
        """How many faults were actually injected."""
        return len(self.faults)

    def _take_fault(self, method: str) -> Fault | None:
        window = self._fault_windows.get(method.lower())
        if window is not None:
            if time.monotonic() < window[0]:
                return window[1]
            del self._fault_windows[method.lower()]
        queue = self._faults.get(method.lower())
        if not queue:
            return None
        fault = queue[0]
        fault.times -= 1
        if fault.times <= 0:
            queue.popleft()
        return fault

    # ----------------------------------------------------------------- updates

    def push_update(self, update: JsonDict) -> int:
        """Queue an update for getUpdates; assigns ``update_id`` if missing. Returns it."""
        if "update_id" not in update:
            update["update_id"] = next(self._update_ids)
        self._pending.append(update)
        self._notify_updates()
        self._notify()
        return int(update["update_id"])

    def add_chat(self, chat_id: int, chat_type: str = "private", **extra: Any) -> JsonDict:
        """Register a chat the bot may talk to (builders do this automatically)."""
        chat: JsonDict = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat.setdefault("first_name", "Tester")
        else:
            chat.setdefault("title", "Test chat")
        chat.update(extra)
        known = self._chats.get(chat_id)
        if known is None or known["type"] != chat_type or extra:
            self._chats[chat_id] = chat
        return self._chats[chat_id]

    def user(self, user_id: int = 42, language_code: str | None = "en", **extra: Any) -> JsonDict:
        """A human User object."""
        user: JsonDict = {"id": user_id, "is_bot": False, "first_name": "Tester"}
        if language_code is not None:
            user["language_code"] = language_code
        user.update(extra)
        return user

    def message(self, chat_id: int, message_id: int) -> JsonDict:
        """The current stored Message dict (reflects edits)."""
        return self._messages[(chat_id, message_id)]

    def _new_message_id(self, chat_id: int) -> int:
        next_id = self._next_message_id.get(chat_id, 1)
        self._next_message_id[chat_id] = next_id + 1
        return next_id

    def _detect_entities(self, text: str) -> list[JsonDict]:
        entities: list[JsonDict] = []
        command = re.match(r"/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]+)?", text)
        if command:
            entities.append({"type": "bot_command", "offset": 0, "length": command.end()})
        mention_re = re.compile(rf"(?<![\w@])@{re.escape(self.bot_username)}\b", re.IGNORECASE)
        for match in mention_re.finditer(text):
            if command and match.start() < command.end():
                continue
            entities.append(
                {
                    "type": "mention",
                    "offset": utf16_len(text[: match.start()]),
                    "length": utf16_len(match.group()),
                }
            )
        return entities

    def message_update(
        self,
        text: str,
        chat_id: int = 42,
        user_id: int = 42,
        chat_type: str = "private",
        language_code: str | None = "en",
        *,
        entities: list[JsonDict] | None = None,
        reply_to_message: JsonDict | None = None,
    ) -> JsonDict:
        """Build (not queue) a message update; entities for /command and @bot auto-detected."""
        chat = self.add_chat(chat_id, chat_type)
        message_id = self._new_message_id(chat_id)
        message: JsonDict = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": dict(chat),
            "from": self.user(user_id, language_code),
            "text": text,
        }
        detected = self._detect_entities(text) if entities is None else entities
        if detected:
            message["entities"] = detected
        if reply_to_message is not None:
            message["reply_to_message"] = reply_to_message
        self._messages[(chat_id, message_id)] = message
        return {"update_id": next(self._update_ids), "message": message}

    def callback_update(
        self,
        data: str,
        message: JsonDict | None = None,
        user_id: int = 42,
        language_code: str | None = "en",
        *,
        inline_message_id: str | None = None,
    ) -> JsonDict:
        """Build a callback_query update for a button on ``message``.

        ``message`` may be a stored Message dict or a :attr:`sent_messages` entry.
        """
        query_id = str(next(self._ids))
        self._open_callback_queries.add(query_id)
        query: JsonDict = {
            "id": query_id,
            "from": self.user(user_id, language_code),
            "chat_instance": "-1",
            "data": data,
        }
        if message is not None:
            if "chat" not in message:  # a sent_messages entry
                message = self.message(int(message["chat_id"]), int(message["message_id"]))
            query["message"] = message
        if inline_message_id is not None:
            query["inline_message_id"] = inline_message_id
        return {"update_id": next(self._update_ids), "callback_query": query}

    def inline_update(
        self,
        query: str,
        user_id: int = 42,
        language_code: str | None = "en",
        *,
        offset: str = "",
        chat_type: str | None = "sender",
    ) -> JsonDict:
        """Build an inline_query update."""
        query_id = str(next(self._ids))
        self._open_inline_queries.add(query_id)
        inline: JsonDict = {
            "id": query_id,
            "from": self.user(user_id, language_code),
            "query": query,
            "offset": offset,
        }
        if chat_type is not None:
            inline["chat_type"] = chat_type
        return {"update_id": next(self._update_ids), "inline_query": inline}

    def commands_for(self, scope_type: str = "default", language_code: str = "") -> list[JsonDict]:
        """Commands currently set for a scope type / language (as getMyCommands would say)."""
        return self._command_store.get((scope_type, language_code), [])

    # ----------------------------------------------------------------- HTTP plumbing

    @staticmethod
    def _reply(status: int, payload: JsonDict) -> web.Response:
        return web.Response(
            status=status, body=json.dumps(payload).encode(), content_type="application/json"
        )

    def _error(self, exc: BadRequest) -> web.Response:
        payload: JsonDict = {
            "ok": False,
            "error_code": exc.status,
            "description": exc.description,
        }
        if exc.parameters:
            payload["parameters"] = exc.parameters
        return self._reply(exc.status, payload)

    @staticmethod
    async def _read_params(request: web.Request) -> JsonDict:
        """Form (PTB) or JSON bodies plus query string; only known non-string keys decoded."""
        params: JsonDict = dict(request.query)
        if request.can_read_body:
            if request.content_type == "application/json":
                try:
                    body = await request.json()
                except ValueError as exc:
                    raise BadRequest("Bad Request: can't parse JSON body") from exc
                if not isinstance(body, dict):
                    raise BadRequest("Bad Request: JSON body must be an object")
                params.update(body)
                return params
            form = await request.post()
            for key, value in form.items():
                params[key] = (
                    value if isinstance(value, str | bytes | bytearray) else value.file.read()
                )
        for key in JSON_PARAMS & params.keys():
            value = params[key]
            if not isinstance(value, str):
                continue
            try:
                params[key] = json.loads(value)
            except ValueError as exc:
                if key == "chat_id":  # "@channelusername" is sent raw
                    continue
                raise BadRequest(f"Bad Request: can't parse {key} JSON") from exc
        return params

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        match = re.fullmatch(r"/bot([^/]+)/([A-Za-z]+)", request.path)
        if match is None:
            return self._reply(404, {"ok": False, "error_code": 404, "description": "Not Found"})
        token, method = match.groups()
        if not secrets.compare_digest(token, self.token):
            return self._reply(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        try:
            params = await self._read_params(request)
        except BadRequest as exc:
            self.calls.append(Call(method, {}))
            self._notify()
            return self._error(exc)
        self.calls.append(Call(method, params))
        self._notify()
        hold = self._delays.get(method.lower())
        if hold:
            await asyncio.sleep(hold)  # cancelled (handler_cancellation) if the client leaves

        fault = self._take_fault(method)
        if fault is not None:
            self.faults.append((method, fault.kind))
            self._notify()
            return self._fault_response(request, fault)

        handler = self._methods().get(method.lower())
        try:
            if handler is None:
                if method.lower() not in _ACCEPT_TRUE:
                    self.unknown_methods.append(method)
                    raise BadRequest("Not Found", status=404)
                result: Any = True
            else:
                result = await handler(params)
        except BadRequest as exc:
            return self._error(exc)
        finally:
            self._notify()
        return self._reply(200, {"ok": True, "result": result})

    def _fault_response(self, request: web.Request, fault: Fault) -> web.Response:
        if fault.drop_connection:
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)  # never reaches the client
        if fault.malformed:
            return web.Response(
                status=200, text="<html>bad gateway</html>", content_type="text/html"
            )
        if fault.status == 429:
            return self._error(
                BadRequest(
                    f"Too Many Requests: retry after {fault.retry_after}",
                    status=429,
                    parameters={"retry_after": fault.retry_after},
                )
            )
        if fault.status >= 500:
            return self._error(BadRequest("Internal Server Error", status=fault.status))
        return self._error(BadRequest(f"Injected error {fault.status}", status=fault.status))

    def _methods(self) -> dict[str, Callable[[JsonDict], Awaitable[Any]]]:
        return {
            "getme": self._get_me,
            "getupdates": self._get_updates,
            "deletewebhook": self._delete_webhook,
            "setwebhook": self._set_webhook,
            "getwebhookinfo": self._get_webhook_info,
            "sendmessage": self._send_message,
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "answercallbackquery": self._answer_callback_query,
            "answerinlinequery": self._answer_inline_query,
            "setmycommands": self._set_my_commands,
            "getmycommands": self._get_my_commands,
            "deletemycommands": self._delete_my_commands,
            "sendchataction": self._send_chat_action,
        }

    # ----------------------------------------------------------------- methods

    async def _get_me(self, params: JsonDict) -> JsonDict:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
        }

    def _deliverable(self, offset: int | None, limit: int) -> list[JsonDict]:
        if offset is not None and offset < 0:
            while len(self._pending) > -offset:
                self._pending.popleft()
        elif offset:
            while self._pending and self._pending[0]["update_id"] < offset:
                self._pending.popleft()
        batch: list[JsonDict] = []
        for update in list(self._pending):
            update_type = next((key for key in update if key in _UPDATE_TYPES), None)
            if self._allowed_updates and update_type not in self._allowed_updates:
                self._pending.remove(update)  # Telegram drops filtered updates for good
                continue
            batch.append(update)
            if len(batch) >= limit:
                break
        return batch

    async def _get_updates(self, params: JsonDict) -> list[JsonDict]:
        """Long polling: wait up to ``timeout`` s; a newer poll terminates an older one (409)."""
        if self.webhook.get("url"):
            raise BadRequest(
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
                status=409,
            )
        offset = params.get("offset")
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        if not 1 <= limit <= 100:
            limit = 100
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(kind) for kind in allowed]

        self._poll_generation += 1
        generation = self._poll_generation
        self._notify_updates()  # wake an older poll so it can see it was superseded

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise BadRequest(
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                    status=409,
                )
            batch = self._deliverable(offset, limit)
            remaining = deadline - loop.time()
            if batch or self._closing or remaining <= 0:
                break
            event = self._updates_changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)
        for update in batch:
            self.deliveries[int(update["update_id"])] += 1
        return batch

    async def _delete_webhook(self, params: JsonDict) -> bool:
        self.webhook = {}
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    async def _set_webhook(self, params: JsonDict) -> bool:
        url = params.get("url", "")
        if not url:
            self.webhook = {}
            return True
        secret = params.get("secret_token")
        if secret is not None and not _SECRET_RE.fullmatch(str(secret)):
            raise BadRequest("Bad Request: secret token contains unallowed characters")
        self.webhook = {
            "url": url,
            "secret_token": secret,
            "max_connections": params.get("max_connections"),
            "allowed_updates": params.get("allowed_updates"),
        }
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    async def _get_webhook_info(self, params: JsonDict) -> JsonDict:
        return {
            "url": self.webhook.get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }

    def _chat_for(self, chat_id: Any) -> JsonDict:
        if isinstance(chat_id, str) and re.fullmatch(r"-?\d+", chat_id):
            chat_id = int(chat_id)
        if isinstance(chat_id, bool) or not isinstance(chat_id, int):
            raise BadRequest("Bad Request: chat not found")
        if chat_id not in self._chats:
            if self.strict_chats:
                raise BadRequest("Bad Request: chat not found")
            self.add_chat(chat_id, "private" if chat_id > 0 else "group")
        return self._chats[chat_id]

    def _check_reply_target(self, chat_id: int, params: JsonDict) -> JsonDict | None:
        reply = params.get("reply_parameters")
        message_id = params.get("reply_to_message_id")
        allow_missing = bool(params.get("allow_sending_without_reply"))
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            allow_missing = bool(reply.get("allow_sending_without_reply"))
            if reply.get("chat_id") not in (None, chat_id):
                return None  # cross-chat replies are not modelled
        if message_id is None:
            return None
        target = self._messages.get((chat_id, int(message_id)))
        if target is None and not allow_missing:
            raise BadRequest("Bad Request: message to be replied not found")
        return target

    async def _send_message(self, params: JsonDict) -> JsonDict:
        if "chat_id" not in params:
            raise BadRequest("Bad Request: chat_id is empty")
        chat = self._chat_for(params["chat_id"])
        visible = _visible_text(
            params.get("text"),
            params.get("parse_mode"),
            empty_error="Bad Request: message text is empty",
        )
        markup = params.get("reply_markup")
        _validate_reply_markup(markup)
        reply_target = self._check_reply_target(chat["id"], params)
        message_id = self._new_message_id(chat["id"])
        message: JsonDict = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": dict(chat),
            "from": dict(self.bot_user),
            "text": visible,
        }
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        if reply_target is not None:
            message["reply_to_message"] = reply_target
        key = (chat["id"], message_id)
        self._messages[key] = message
        self._raw_content[key] = (params.get("text"), params.get("parse_mode"), markup)
        self.sent_messages.append({**params, "chat_id": chat["id"], "message_id": message_id})
        return message

    def _editable(self, params: JsonDict) -> tuple[tuple[int, int] | None, JsonDict | None]:
        if params.get("inline_message_id"):
            return None, None
        if "chat_id" not in params or "message_id" not in params:
            raise BadRequest("Bad Request: message identifier is not specified")
        chat = self._chat_for(params["chat_id"])
        key = (int(chat["id"]), int(params["message_id"]))
        message = self._messages.get(key)
        if message is None:
            raise BadRequest("Bad Request: message to edit not found")
        if message.get("from", {}).get("id") != self.bot_id:
            raise BadRequest("Bad Request: message can't be edited")
        return key, message

    async def _edit_message_text(self, params: JsonDict) -> JsonDict | bool:
        visible = _visible_text(
            params.get("text"),
            params.get("parse_mode"),
            empty_error="Bad Request: message text is empty",
        )
        markup = params.get("reply_markup")
        _validate_reply_markup(markup)
        key, message = self._editable(params)
        self.edits.append(dict(params))
        if key is None or message is None:
            return True
        raw = (params.get("text"), params.get("parse_mode"), markup)
        if self._raw_content.get(key) == raw:
            raise BadRequest(
                "Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message"
            )
        self.edits[-1]["chat_id"] = key[0]
        self._raw_content[key] = raw
        message["text"] = visible
        message["edit_date"] = int(time.time())
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        else:
            message.pop("reply_markup", None)
        return message

    async def _edit_message_reply_markup(self, params: JsonDict) -> JsonDict | bool:
        markup = params.get("reply_markup")
        _validate_reply_markup(markup)
        key, message = self._editable(params)
        if key is None or message is None:
            return True
        text, parse_mode, old_markup = self._raw_content.get(key, (None, None, None))
        if old_markup == markup:
            raise BadRequest(
                "Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message"
            )
        self._raw_content[key] = (text, parse_mode, markup)
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        else:
            message.pop("reply_markup", None)
        return message

    async def _delete_message(self, params: JsonDict) -> bool:
        chat = self._chat_for(params.get("chat_id"))
        key = (int(chat["id"]), int(params.get("message_id") or 0))
        if self._messages.pop(key, None) is None:
            raise BadRequest("Bad Request: message to delete not found")
        self.deleted_messages.append(dict(params))
        return True

    async def _answer_callback_query(self, params: JsonDict) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        if query_id not in self._open_callback_queries:
            raise BadRequest(
                "Bad Request: query is too old and response timeout expired or query ID is invalid"
            )
        text = params.get("text")
        if text is not None and len(str(text)) > MAX_CALLBACK_ANSWER_CHARS:
            raise BadRequest("Bad Request: MESSAGE_TOO_LONG")
        self._open_callback_queries.discard(query_id)
        self.callback_answers.append(dict(params))
        return True

    @staticmethod
    def _validate_inline_result(result: Any, seen_ids: set[str]) -> None:
        if not isinstance(result, dict) or not result.get("type"):
            raise BadRequest("Bad Request: RESULT_TYPE_INVALID")
        result_id = str(result.get("id", ""))
        if not 1 <= len(result_id.encode("utf-8")) <= 64:
            raise BadRequest("Bad Request: RESULT_ID_INVALID")
        if result_id in seen_ids:
            raise BadRequest("Bad Request: RESULT_ID_DUPLICATE")
        seen_ids.add(result_id)
        content = result.get("input_message_content")
        if result["type"] == "article":
            if not result.get("title"):
                raise BadRequest("Bad Request: RESULT_TITLE_EMPTY")
            if not isinstance(content, dict):
                raise BadRequest("Bad Request: MESSAGE_EMPTY")
        if isinstance(content, dict) and "message_text" in content:
            _visible_text(
                content["message_text"],
                content.get("parse_mode"),
                empty_error="Bad Request: message text is empty",
            )
        _validate_reply_markup(result.get("reply_markup"))

    async def _answer_inline_query(self, params: JsonDict) -> bool:
        query_id = str(params.get("inline_query_id", ""))
        if query_id not in self._open_inline_queries:
            raise BadRequest(
                "Bad Request: query is too old and response timeout expired or query ID is invalid"
            )
        results = params.get("results")
        if not isinstance(results, list):
            raise BadRequest("Bad Request: can't parse inline query results JSON object")
        if len(results) > MAX_INLINE_RESULTS:
            raise BadRequest("Bad Request: RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for result in results:
            self._validate_inline_result(result, seen)
        if len(str(params.get("next_offset", "")).encode("utf-8")) > 64:
            raise BadRequest("Bad Request: NEXT_OFFSET_INVALID")
        self._open_inline_queries.discard(query_id)
        self.inline_answers.append(dict(params))
        return True

    @staticmethod
    def _scope_key(params: JsonDict) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        scope_type = scope.get("type", "default") if isinstance(scope, dict) else "default"
        return str(scope_type), str(params.get("language_code") or "")

    async def _set_my_commands(self, params: JsonDict) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise BadRequest("Bad Request: can't parse commands JSON object")
        for command in commands:
            if not isinstance(command, dict) or not _COMMAND_RE.fullmatch(
                str(command.get("command", ""))
            ):
                raise BadRequest("Bad Request: BOT_COMMAND_INVALID")
            description = str(command.get("description", ""))
            if not 1 <= len(description) <= 256:
                raise BadRequest("Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        language = str(params.get("language_code") or "")
        if language and not re.fullmatch(r"[a-z]{2}", language):
            raise BadRequest("Bad Request: LANG_CODE_INVALID")
        self._command_store[self._scope_key(params)] = commands
        self.commands.append(
            {
                "scope": params.get("scope") or {"type": "default"},
                "language_code": language,
                "commands": commands,
            }
        )
        return True

    async def _get_my_commands(self, params: JsonDict) -> list[JsonDict]:
        return self._command_store.get(self._scope_key(params), [])

    async def _delete_my_commands(self, params: JsonDict) -> bool:
        self._command_store.pop(self._scope_key(params), None)
        return True

    async def _send_chat_action(self, params: JsonDict) -> bool:
        self._chat_for(params.get("chat_id"))
        if params.get("action") not in _CHAT_ACTIONS:
            raise BadRequest("Bad Request: wrong parameter action in request")
        self.chat_actions.append(dict(params))
        return True

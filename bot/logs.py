"""Logging for every way in: text or JSON lines, a request id on each line, secrets redacted.

The redaction filter sits on the root *handlers* (not on loggers), because a logger's filter
does not see records that propagate up from child loggers such as ``httpx`` or ``telegram``.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from bot.settings import Settings

__all__ = [
    "REQUEST_ID",
    "JsonFormatter",
    "RedactingFilter",
    "RequestIdFilter",
    "redact",
    "setup_logging",
]

MASK = "***"

#: The request (or update) being handled; adapters set it so every line can be traced.
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "vramchat_request_id", default=None
)

# Shapes of secrets that leak even when their value is not in settings (another bot's token
# in a library's URL, a header echoed back in an error). Every repeat is bounded and every
# pattern starts at a fixed anchor, so one pass over a line is linear in its length (an
# unbounded ``\w+://`` used to backtrack over each long word: 81 s for a 64 KB URL).
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bbot\d{1,20}:[A-Za-z0-9_-]+"), "bot" + MASK),  # api.telegram.org/bot<id>:<t>
    (re.compile(r"\b(Bearer)[ \t]{1,8}[A-Za-z0-9._~+/=-]+", re.IGNORECASE), r"\1 " + MASK),
    (re.compile(r"\b(Bot)[ \t]{1,8}[A-Za-z0-9._-]{20,}"), r"\1 " + MASK),  # Discord's scheme
    # scheme://user:pw@host; the scheme starts a word and is short, user and password bounded
    (
        re.compile(
            r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s:/@]{0,256}:)"
            r"[^\s@/]{1,256}@"
        ),
        r"\1" + MASK + "@",
    ),
)

#: Longest message a log line carries (characters, after masking); the rest is cut with a
#: note of how much, so a 1 MB request line costs one bounded line, not a megabyte.
MAX_MESSAGE = 8192
#: Longest traceback or stack kept on a record, and longest extra string field.
MAX_TRACE = 32768
MAX_FIELD = 1024

_TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s%(rid_suffix)s: %(message)s"
_RESERVED = set(logging.makeLogRecord({}).__dict__) | {
    "message",
    "asctime",
    "rid_suffix",
    "_vramchat_clean",
}
_KV = re.compile(r"(?<!\S)([a-z_]{2,20})=([^\s=]+)")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Mask every known secret value and every secret-shaped fragment in ``text``.

    Linear in ``len(text)``: one ``str.replace`` per known secret (a handful, known at start)
    and one pass per bounded pattern.
    """
    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, MASK)
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a note of how many were dropped."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters cut]"


class RedactingFilter(logging.Filter):
    """Rewrites each record so no secret reaches any handler: message, args, exception, stack.

    Masking runs on the whole text before it is cut, so a secret straddling the cut cannot
    leave its first half behind.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret that contains another is masked whole.
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._formatter = logging.Formatter()

    def _clean(self, text: str, limit: int) -> str:
        return clip(redact(text, self.secrets), limit)

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_vramchat_clean", False):
            return True  # one record, several handlers: mask it once
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not hide the line, nor leak its args
            message = f"{record.msg!s} {record.args!r}"
        record.msg = self._clean(message, MAX_MESSAGE)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            # Formatters print exc_text when it is set and only render exc_info when it is
            # empty, so the masked text is what every handler shows; exc_info stays for tools.
            record.exc_text = self._clean(record.exc_text, MAX_TRACE)
        if record.stack_info:
            record.stack_info = self._clean(record.stack_info, MAX_TRACE)
        for key, value in list(record.__dict__.items()):
            if key not in _RESERVED and isinstance(value, str):
                setattr(record, key, self._clean(value, MAX_FIELD))
        record._vramchat_clean = True
        return True


class RequestIdFilter(logging.Filter):
    """Copies the current request id onto the record (``record.request_id``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        rid = getattr(record, "request_id", None)
        if rid is None:
            rid = REQUEST_ID.get()
            record.request_id = rid
        record.rid_suffix = f" [{rid}]" if rid else ""
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id and extra fields.

    ``key=value`` pairs in the message (``rid=… platform=web kind=sizing latency_ms=0.41``)
    become fields too, so log tools can filter on them without parsing text.
    """

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": message,
        }
        rid = getattr(record, "request_id", None)
        if rid:
            out["request_id"] = rid
        for key, value in _KV.findall(message):
            out.setdefault(key, value if key.endswith("id") else _number(value))
        for key, value in record.__dict__.items():
            if key not in _RESERVED and key != "request_id" and not key.startswith("_"):
                out.setdefault(key, value if _jsonable(value) else repr(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            out["exc"] = record.exc_text
        if record.stack_info:
            out["stack"] = record.stack_info
        return json.dumps(out, ensure_ascii=False, default=str)


def _number(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | type(None))


def _console(handler: logging.Handler) -> bool:
    """A bare ``StreamHandler`` on stderr/stdout, as ``logging.basicConfig`` installs."""
    streams = (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__)
    return type(handler) is logging.StreamHandler and any(
        handler.stream is s for s in streams if s is not None
    )


def setup_logging(settings: Settings, stream: Any = None) -> logging.Handler:
    """Configure the root logger once per process; calling again replaces our handler.

    A plain console handler already on the root (``logging.basicConfig`` in the CLI) is
    replaced too: beside ours it wrote every line a second time, unmasked by format.
    Also quiets ``httpx``, whose INFO lines print request URLs (Telegram's carry the token).
    """
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_vramchat", False) or _console(h)]:
        root.removeHandler(old)
        if getattr(old, "_vramchat", False):
            old.close()
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler._vramchat = True  # type: ignore[attr-defined]
    if settings.vramchat_log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(_TEXT_FORMAT))
    root.addHandler(handler)
    level = settings.vramchat_log_level.upper()
    bad_level = not isinstance(logging.getLevelName(level), int)
    root.setLevel(logging.INFO if bad_level else level)
    redactor = RedactingFilter(settings.secrets())
    for h in root.handlers:
        for f in [f for f in h.filters if isinstance(f, RedactingFilter | RequestIdFilter)]:
            h.removeFilter(f)
        h.addFilter(RequestIdFilter())
        h.addFilter(redactor)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if bad_level:
        logging.getLogger("vramchat").warning(
            "VRAMCHAT_LOG_LEVEL=%r is not a level name; using INFO", settings.vramchat_log_level
        )
    return handler

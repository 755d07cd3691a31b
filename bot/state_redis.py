"""Follow-up memory, per-user rate limits and memos in Redis, so several processes share them.

Telegram webhook replicas behind a load balancer (or Discord shards in several processes)
see each other's conversations, count the same user's questions together, and redraw each
other's buttons. Every key is prefixed ``vramchat:`` and expires on its own: contexts after
the follow-up TTL, rate-limit windows after one window, memos after their own lifetime.

Redis must never hold an answer up. Every command has a connect and read timeout
(:data:`TIMEOUT_S`) and a circuit breaker: after a failure the store answers from its
in-process :class:`bot.store.MemoryStore` for :data:`COOLDOWN_S`, then lets one command probe
Redis again. The log says so once when Redis goes away and once when it is back, not per
message. Writes go to the in-process store as well, so a follow-up asked during an outage
still finds its context, and one asked after it still finds the context written before.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bot.settings import Settings, SettingsError
from bot.store import MemoryStore, StateStore, context_from_json, context_to_json
from engine import Context

__all__ = ["COOLDOWN_S", "PREFIX", "TIMEOUT_S", "RedisStore", "make_store"]

log = logging.getLogger("vramchat.state")

PREFIX = "vramchat:"

# A sliding window in one sorted set per user, checked and updated atomically on the server
# with the server's clock, so replicas with skewed clocks still agree.
_HIT_SCRIPT = """
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now_us - window_us)
if redis.call('ZCARD', key) >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local wait = window_us - (now_us - tonumber(oldest[2]))
  if wait < 1 then wait = 1 end
  return wait
end
redis.call('ZADD', key, now_us, ARGV[3])
redis.call('PEXPIRE', key, math.ceil(window_us / 1000))
return 0
"""


T = TypeVar("T")

#: Longest a single Redis command may take (connect or read) before the breaker opens.
TIMEOUT_S = 0.4
#: How long the breaker stays open before one command probes Redis again.
COOLDOWN_S = 5.0

_FAILURES = (RedisError, OSError, TimeoutError, ValueError)


class RedisStore:
    """:class:`bot.store.StateStore` on redis-py asyncio, with an in-process fallback."""

    def __init__(
        self,
        client: aioredis.Redis,
        ttl_s: float = 1800.0,
        prefix: str = PREFIX,
        *,
        timeout_s: float = TIMEOUT_S,
        cooldown_s: float = COOLDOWN_S,
    ):
        self.client = client
        self.ttl_s = ttl_s
        self.prefix = prefix
        self.timeout_s = timeout_s
        self.cooldown_s = cooldown_s
        self.local = MemoryStore(ttl_s=ttl_s)
        self._hit = client.register_script(_HIT_SCRIPT)
        self._open_until: float | None = None  # None: closed (Redis in use)
        self._probing = False

    @classmethod
    def from_url(
        cls, url: str, ttl_s: float = 1800.0, prefix: str = PREFIX, **kw: float
    ) -> RedisStore:
        """Build from a ``redis://`` URL; nothing connects until the first command."""
        timeout = kw.get("timeout_s", TIMEOUT_S)
        client = aioredis.from_url(
            url,
            decode_responses=True,
            health_check_interval=30,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            retry_on_timeout=False,
        )
        return cls(client, ttl_s=ttl_s, prefix=prefix, **kw)

    @property
    def available(self) -> bool:
        """False while the breaker is open (answers come from the in-process store)."""
        return self._open_until is None

    def context_key(self, key: str) -> str:
        return f"{self.prefix}ctx:{key}"

    def rate_key(self, user_key: str) -> str:
        return f"{self.prefix}rate:{user_key}"

    def memo_key(self, key: str) -> str:
        return f"{self.prefix}memo:{key}"

    async def _call(self, what: str, command: Callable[[], Awaitable[T]]) -> tuple[bool, T | None]:
        """Run one command through the breaker: ``(True, result)`` or ``(False, None)``."""
        now = time.monotonic()
        if self._open_until is not None:
            if now < self._open_until or self._probing:
                return False, None
            self._probing = True  # one probe at a time; the rest stay local meanwhile
        try:
            result = await asyncio.wait_for(command(), self.timeout_s)
        except _FAILURES as exc:
            if self._open_until is None:
                log.warning(
                    "redis unavailable (%s: %s); answering from in-process state, retrying "
                    "every %.1fs",
                    what,
                    type(exc).__name__ if not str(exc) else exc,
                    self.cooldown_s,
                )
            self._open_until = time.monotonic() + self.cooldown_s
            return False, None
        finally:
            self._probing = False
        if self._open_until is not None:
            log.warning("redis is back; shared state in use again")
            self._open_until = None
        return True, result

    async def get_context(self, key: str) -> Context | None:
        ok, raw = await self._call("get", lambda: self.client.get(self.context_key(key)))
        if not ok or raw is None:
            return await self.local.get_context(key)
        try:
            return context_from_json(raw)
        except (ValueError, KeyError, TypeError) as exc:  # written by an older release
            log.warning("dropping unreadable context %s: %s", key, exc)
            return None

    async def put_context(self, key: str, ctx: Context) -> None:
        await self.local.put_context(key, ctx)
        ttl = max(1, math.ceil(self.ttl_s))
        await self._call(
            "set", lambda: self.client.set(self.context_key(key), context_to_json(ctx), ex=ttl)
        )

    async def hit(self, user_key: str, limit: int, window_s: float) -> float:
        """Count one question; 0 if allowed, else seconds until the next one is.

        While Redis is away the limit is counted in this process alone.
        """
        window_us = max(1, round(window_s * 1_000_000))
        args: list[Any] = [limit, window_us, uuid.uuid4().hex]
        ok, wait_us = await self._call(
            "rate", lambda: self._hit(keys=[self.rate_key(user_key)], args=args)
        )
        if not ok:
            return await self.local.hit(user_key, limit, window_s)
        return int(wait_us or 0) / 1_000_000

    async def get_memo(self, key: str) -> str | None:
        ok, raw = await self._call("get", lambda: self.client.get(self.memo_key(key)))
        if ok and raw is not None:
            return str(raw)
        return await self.local.get_memo(key)

    async def put_memo(self, key: str, value: str, ttl_s: float) -> None:
        """Into Redis; into this process only when Redis cannot take it (memos can be big)."""
        ttl = max(1, math.ceil(ttl_s))
        ok, _ = await self._call("set", lambda: self.client.set(self.memo_key(key), value, ex=ttl))
        if not ok:
            await self.local.put_memo(key, value, ttl_s)

    async def ping(self) -> bool:
        """True when Redis answers; used at start-up to warn early about a bad URL."""
        ok, answer = await self._call("ping", self.client.ping)  # type: ignore[arg-type]
        return bool(ok and answer)

    async def aclose(self) -> None:
        await self.client.aclose()


def make_store(settings: Settings) -> StateStore:
    """Redis when ``VRAMCHAT_REDIS_URL`` is set, else the in-process store.

    A malformed URL raises :class:`SettingsError` with one line that does not repeat the URL
    (it may carry a password).
    """
    ttl = settings.vramchat_followup_ttl_s
    url = settings.vramchat_redis_url.get_secret_value() if settings.vramchat_redis_url else ""
    if not url:
        return MemoryStore(ttl_s=ttl)
    problem = _url_problem(url)
    if problem is None:
        try:
            return RedisStore.from_url(url, ttl_s=ttl)
        except ValueError as exc:
            problem = str(exc).replace(url, "…")
    raise SettingsError(f"VRAMCHAT_REDIS_URL is malformed: {problem}")


def _url_problem(url: str) -> str | None:
    """Why a Redis URL cannot work, checked before redis-py (which fails on first use)."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises for a port that is not a number in range
    except ValueError:
        return "the port is not a number from 0 to 65535"
    if parts.scheme not in ("redis", "rediss", "unix"):
        return "it must start with redis://, rediss:// or unix://"
    if parts.scheme != "unix" and not parts.hostname:
        return "it names no host"
    db = parts.path.strip("/")
    if parts.scheme != "unix" and db and not db.isdigit():
        return "the database after the last / must be a number"
    return None

"""Follow-up memory and per-user rate limits in Redis, so several processes share them.

Telegram webhook replicas behind a load balancer (or Discord shards in several processes)
see each other's conversations and count the same user's questions together. Every key is
prefixed ``vramchat:`` and expires on its own: contexts after the follow-up TTL, rate-limit
windows after one window.

If Redis is unreachable the store fails open (no memory, no limit) and logs a warning: a
customer still gets an answer, and the operator sees why follow-ups stopped working.
"""

from __future__ import annotations

import logging
import math
import uuid
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bot.desk import MemoryStore, StateStore, context_from_json, context_to_json
from bot.settings import Settings
from engine import Context

__all__ = ["PREFIX", "RedisStore", "make_store"]

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


class RedisStore:
    """:class:`bot.desk.StateStore` on redis-py asyncio; contexts are JSON strings."""

    def __init__(self, client: aioredis.Redis, ttl_s: float = 1800.0, prefix: str = PREFIX):
        self.client = client
        self.ttl_s = ttl_s
        self.prefix = prefix
        self._hit = client.register_script(_HIT_SCRIPT)

    @classmethod
    def from_url(cls, url: str, ttl_s: float = 1800.0, prefix: str = PREFIX) -> RedisStore:
        """Build from a ``redis://`` URL; nothing connects until the first command."""
        client = aioredis.from_url(url, decode_responses=True, health_check_interval=30)
        return cls(client, ttl_s=ttl_s, prefix=prefix)

    def context_key(self, key: str) -> str:
        return f"{self.prefix}ctx:{key}"

    def rate_key(self, user_key: str) -> str:
        return f"{self.prefix}rate:{user_key}"

    async def get_context(self, key: str) -> Context | None:
        try:
            raw = await self.client.get(self.context_key(key))
        except RedisError as exc:
            log.warning("redis unavailable, follow-up memory skipped: %s", exc)
            return None
        if raw is None:
            return None
        try:
            return context_from_json(raw)
        except (ValueError, KeyError, TypeError) as exc:  # written by an older release
            log.warning("dropping unreadable context %s: %s", key, exc)
            return None

    async def put_context(self, key: str, ctx: Context) -> None:
        try:
            await self.client.set(
                self.context_key(key), context_to_json(ctx), ex=max(1, math.ceil(self.ttl_s))
            )
        except RedisError as exc:
            log.warning("redis unavailable, follow-up not remembered: %s", exc)

    async def hit(self, user_key: str, limit: int, window_s: float) -> float:
        """Count one question; 0 if allowed, else seconds until the next one is."""
        window_us = max(1, round(window_s * 1_000_000))
        args: list[Any] = [limit, window_us, uuid.uuid4().hex]
        try:
            wait_us = await self._hit(keys=[self.rate_key(user_key)], args=args)
        except RedisError as exc:
            log.warning("redis unavailable, rate limit not applied: %s", exc)
            return 0.0
        return int(wait_us) / 1_000_000

    async def ping(self) -> bool:
        """True when Redis answers; used at start-up to warn early about a bad URL."""
        try:
            return bool(await self.client.ping())  # type: ignore[misc]  # redis-py stubs
        except RedisError as exc:
            log.warning("redis at VRAMCHAT_REDIS_URL does not answer: %s", exc)
            return False

    async def aclose(self) -> None:
        await self.client.aclose()


def make_store(settings: Settings) -> StateStore:
    """Redis when ``VRAMCHAT_REDIS_URL`` is set, else the in-process store."""
    ttl = settings.vramchat_followup_ttl_s
    url = settings.vramchat_redis_url.get_secret_value() if settings.vramchat_redis_url else ""
    if url:
        return RedisStore.from_url(url, ttl_s=ttl)
    return MemoryStore(ttl_s=ttl)

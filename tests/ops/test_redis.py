"""RedisStore against a real redis-server on loopback: what replicas share, and what expires.

The server is started here on a free port with persistence off. Outside CI a missing
``redis-server`` skips; with ``CI`` set it fails.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from pydantic import SecretStr

from bot.desk import Desk, Limited, MemoryStore
from bot.settings import Settings
from bot.state_redis import PREFIX, RedisStore, make_store
from engine import Answer, Context, load_catalog
from engine.answer_types import Request

REDIS_SERVER = shutil.which("redis-server")

if REDIS_SERVER is None:
    if os.environ.get("CI"):
        pytest.fail("redis-server is missing and CI is set: install Debian's redis-server",
                    pytrace=False)  # fmt: skip
    pytest.skip(
        "redis-server not installed (apt-get install redis-server); CI is not set, so skipping",
        allow_module_level=True,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    assert REDIS_SERVER is not None
    port = free_port()
    proc = subprocess.Popen(
        [
            REDIS_SERVER,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"redis-server did not start on port {port}")
        time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
async def stores(
    redis_url: str, raw: aioredis.Redis
) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    """Two independent stores, as two replicas would have."""
    a = RedisStore.from_url(redis_url, ttl_s=1800)
    b = RedisStore.from_url(redis_url, ttl_s=1800)
    yield a, b
    await a.aclose()
    await b.aclose()


def sample_context() -> Context:
    catalog = load_catalog()
    m = catalog.model_by_id["llama-3.1-70b"]
    from engine.refs import model_ref

    return Context(Request(model=model_ref(m), precision="fp8", context_tokens=32768), "H100 SXM")


async def test_context_is_shared_and_expires(
    stores: tuple[RedisStore, RedisStore], raw: aioredis.Redis
):
    a, b = stores
    ctx = sample_context()
    assert await b.get_context("telegram:42") is None
    await a.put_context("telegram:42", ctx)
    assert await b.get_context("telegram:42") == ctx
    keys = await raw.keys("*")
    assert keys == [f"{PREFIX}ctx:telegram:42"]
    assert keys[0].startswith("vramchat:")
    ttl = await raw.ttl(keys[0])
    assert 1790 <= ttl <= 1800


async def test_context_ttl_follows_the_setting(redis_url: str, raw: aioredis.Redis):
    store = RedisStore.from_url(redis_url, ttl_s=1.0)
    try:
        await store.put_context("discord:7", sample_context())
        assert await store.get_context("discord:7") is not None
        await asyncio.sleep(1.3)
        assert await store.get_context("discord:7") is None
    finally:
        await store.aclose()


async def test_unreadable_context_is_dropped(stores: tuple[RedisStore, RedisStore], raw):
    a, _ = stores
    await raw.set(a.context_key("telegram:1"), "{not json")
    assert await a.get_context("telegram:1") is None


async def test_rate_limit_is_shared(stores: tuple[RedisStore, RedisStore], raw: aioredis.Redis):
    a, b = stores
    assert await a.hit("telegram:u1", 3, 60) == 0
    assert await b.hit("telegram:u1", 3, 60) == 0
    assert await a.hit("telegram:u1", 3, 60) == 0
    wait = await b.hit("telegram:u1", 3, 60)
    assert 59 < wait <= 60
    assert await a.hit("telegram:u2", 3, 60) == 0  # other users are not affected
    key = a.rate_key("telegram:u1")
    assert key.startswith("vramchat:")
    assert 0 < await raw.pttl(key) <= 60_000


async def test_rate_window_slides(stores: tuple[RedisStore, RedisStore]):
    a, b = stores
    assert await a.hit("web:u", 1, 0.3) == 0
    assert 0 < await b.hit("web:u", 1, 0.3) <= 0.3
    await asyncio.sleep(0.35)
    assert await b.hit("web:u", 1, 0.3) == 0


async def test_two_desks_share_follow_ups_and_limits(stores: tuple[RedisStore, RedisStore]):
    """Two webhook replicas: the follow-up lands on the other one and still knows the model."""
    catalog = load_catalog()
    one = Desk(catalog, stores[0], rate_per_minute=2)
    two = Desk(catalog, stores[1], rate_per_minute=2)
    first = await one.answer("llama 3.1 70b fp8", platform="telegram", chat_key="c", user_key="u")
    assert isinstance(first, Answer) and first.request and first.request.model
    follow = await two.answer(
        "and with 32k context?", platform="telegram", chat_key="c", user_key="u"
    )
    assert isinstance(follow, Answer) and follow.request and follow.request.model
    assert follow.request.model.id == "llama-3.1-70b"
    assert follow.request.context_tokens == 32768
    assert follow.request.precision == "fp8"
    third = await one.answer("8b", platform="telegram", chat_key="c", user_key="u")
    assert isinstance(third, Limited) and third.retry_after_s > 0


async def test_unreachable_redis_fails_open(caplog: pytest.LogCaptureFixture):
    store = RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0")
    try:
        assert await store.get_context("telegram:1") is None
        await store.put_context("telegram:1", sample_context())
        assert await store.hit("telegram:u", 1, 60) == 0
        assert await store.ping() is False
    finally:
        await store.aclose()
    assert any("redis unavailable" in r.getMessage() for r in caplog.records)


async def test_make_store_picks_redis_only_when_configured(redis_url: str):
    assert isinstance(make_store(Settings(_env_file=None)), MemoryStore)
    store = make_store(
        Settings(
            _env_file=None, vramchat_redis_url=SecretStr(redis_url), vramchat_followup_ttl_s=60
        )
    )
    assert isinstance(store, RedisStore) and store.ttl_s == 60
    assert await store.ping()
    await store.aclose()

"""RedisStore against a real redis-server on loopback: what replicas share, and what expires.

The server is started here on a free port with persistence off. Outside CI a missing
``redis-server`` skips; with ``CI`` set it fails.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from pydantic import SecretStr

from bot.desk import Desk, Limited
from bot.settings import Settings
from bot.state_redis import PREFIX, RedisStore, make_store
from bot.store import MemoryStore
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


def start_redis() -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server on a free loopback port, persistence off; waits for PONG."""
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
    return proc, f"redis://127.0.0.1:{port}/0"


def stop_redis(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGCONT)  # a paused server cannot act on SIGTERM
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    proc, url = start_redis()
    yield url
    stop_redis(proc)


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


# --------------------------------------------------------------------------- faults

WATCHDOG_S = 10.0  # a hang guard: without timeouts a paused Redis holds an answer forever


@pytest.fixture
def paused_redis() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A server of its own, so pausing it leaves the module's server alone."""
    proc, url = start_redis()
    yield proc, url
    stop_redis(proc)


def outage_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "vramchat.state"]


async def test_paused_redis_answers_from_memory_and_recovers(
    paused_redis: tuple[subprocess.Popen[bytes], str], caplog: pytest.LogCaptureFixture
):
    """SIGSTOP the server: every answer still comes, the log says so once, and after
    SIGCONT the shared store is used again (the contexts written meanwhile are not lost)."""
    proc, url = paused_redis
    store = RedisStore.from_url(url, ttl_s=1800, cooldown_s=0.5)
    desk = Desk(load_catalog(), store, rate_per_minute=1000)
    try:
        first = await desk.answer(
            "llama 3.1 70b fp8", platform="telegram", chat_key="c0", user_key="u"
        )
        assert isinstance(first, Answer) and store.available
        proc.send_signal(signal.SIGSTOP)
        answers = []
        for n in range(10):  # one after another, then ten at once
            answers.append(
                await asyncio.wait_for(
                    desk.answer("13b int4", platform="telegram", chat_key=f"s{n}", user_key="u"),
                    WATCHDOG_S,
                )
            )
        together = [
            desk.answer("8b fp16", platform="telegram", chat_key=f"d{n}", user_key=f"v{n}")
            for n in range(10)
        ]
        answers += await asyncio.wait_for(asyncio.gather(*together), WATCHDOG_S)
        follow = await asyncio.wait_for(
            desk.answer("and 32k?", platform="telegram", chat_key="c0", user_key="u"), WATCHDOG_S
        )
        assert all(isinstance(a, Answer) and a.kind == "sizing" for a in answers)
        assert len(answers) == 20 and not store.available
        # the follow-up found the context written before the pause (in-process copy)
        assert isinstance(follow, Answer) and follow.request and follow.request.model
        assert follow.request.model.id == "llama-3.1-70b"
        down = [m for m in outage_lines(caplog) if "redis unavailable" in m]
        assert len(down) == 1, outage_lines(caplog)
        assert "in-process" in down[0]

        proc.send_signal(signal.SIGCONT)
        await asyncio.sleep(0.6)  # let the breaker's cooldown pass
        for _ in range(3):
            back = await asyncio.wait_for(
                desk.answer("7b fp16", platform="telegram", chat_key="e", user_key="u"),
                WATCHDOG_S,
            )
            assert isinstance(back, Answer)
            if store.available:
                break
        assert store.available
        assert [m for m in outage_lines(caplog) if "redis is back" in m]
        raw = aioredis.from_url(url, decode_responses=True)
        try:
            assert await raw.get(store.context_key("telegram:e")) is not None
        finally:
            await raw.aclose()
    finally:
        proc.send_signal(signal.SIGCONT)
        await store.aclose()


async def test_memos_are_shared(stores: tuple[RedisStore, RedisStore], raw: aioredis.Redis):
    a, b = stores
    await a.put_memo("telegram:btn:ab12", '{"x": 1}', ttl_s=60)
    assert await b.get_memo("telegram:btn:ab12") == '{"x": 1}'
    assert await b.get_memo("telegram:btn:none") is None
    assert 0 < await raw.ttl(a.memo_key("telegram:btn:ab12")) <= 60


@pytest.mark.parametrize(
    "url",
    [
        "redis//:hunter2@host:6379/0",
        "http://:hunter2@host/0",
        "redis://:hunter2@host:notaport/0",
        "redis://:hunter2@host:6379/zero",
        "redis://:hunter2@:6379/0",
    ],
)
def test_malformed_url_is_one_line_without_the_password(url: str):
    from bot.settings import SettingsError

    with pytest.raises(SettingsError) as err:
        make_store(Settings(_env_file=None, vramchat_redis_url=SecretStr(url)))
    text = str(err.value)
    assert text.startswith("VRAMCHAT_REDIS_URL is malformed: ") and "\n" not in text
    assert "hunter2" not in text


def test_vram_serve_with_a_malformed_url_prints_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VRAMCHAT_")}
    env["VRAMCHAT_REDIS_URL"] = "redis://:hunter2@host:notaport/0"
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("vram")), "serve", "--port", "0"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "VRAMCHAT_REDIS_URL is malformed" in proc.stderr
    assert "Traceback" not in proc.stderr and "hunter2" not in proc.stderr


async def test_a_button_memo_written_by_one_replica_works_on_another(
    stores: tuple[RedisStore, RedisStore],
):
    """The Telegram button state: replica A sent the answer, replica B gets the press."""
    from bot.memo import ButtonMemo as Shown
    from bot.memo import Memos
    from engine import ask, context_of

    catalog = load_catalog()
    a, b = Memos("telegram", store=stores[0]), Memos("telegram", store=stores[1])
    original = ask("70b int4 128k", "en", catalog=catalog)
    alt = ask("on 2x H100 SXM", "en", catalog=catalog, previous=context_of(original))
    ref = a.add(Shown("70b int4 128k", "en", None, original, alt, math=True))
    await a.save(ref)
    assert b.get(ref) is None  # not in B's process ...
    shown = await b.load(ref)  # ... but in the shared store
    assert shown is not None and shown.original == original and shown.current == alt
    assert shown.math and shown.current is not shown.original
    assert await b.load("ffffffff") is None
    assert await b.load("../../x") is None  # only refs we issue are looked up

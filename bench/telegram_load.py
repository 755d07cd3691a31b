"""Telegram load: updates from many simulated users through the fake Bot API to the real bot.

    .venv/bin/python bench/telegram_load.py [--updates 2000] [--users 200] [--rate 300]

The bot runs as its own process, started the way ``vram telegram`` starts it
(``bot.telegram.app.main``: settings from the environment, ``build_application``, polling or
webhook, INFO logging), so the fake Bot API, the load driver and the clock live in this
process and the bot has the other core to itself, as on a deployment where Telegram is remote.

Latency is measured from the moment an update is made available (queued for getUpdates, or
the start of the webhook POST) to the moment the fake receives the matching ``sendMessage``
(the k-th update of a chat matches the k-th message sent to that chat). Every update must be
answered exactly once: "lost" counts updates without an answer, "dup" extra answers and
redeliveries.

Scenarios (one bot process each):

- ``as built``: the Application exactly as deployed, whose ``AIORateLimiter`` holds every
  bot at Telegram's broadcast limit of 30 messages/s; fewer updates, so it ends in seconds.
- ``limiter off``: the same bot with the limiter's overall cap removed (a bot granted higher
  limits), to measure what the process itself can do: a burst (everything queued at once:
  capacity) and a paced run at ``--rate`` (latency at the target load).
- ``webhook``: the same, updates POSTed to PTB's webhook server (40 connections, as Telegram).

Experiments (environment variables read by the bot process; each changes one thing, for
before/after numbers; none is how the bot ships):

- ``BENCH_GC_FREEZE=1``: ``gc.collect(); gc.freeze()`` right after the catalog is loaded.
- ``BENCH_TRANSPORT=aiohttp``: PTB's HTTP transport on aiohttp (a sketch) instead of httpx.
- ``BENCH_CONCURRENT_UPDATES=N``: PTB handles N updates at once (the adapter uses 1).
- ``BENCH_STUB_ENGINE=1``: one canned answer instead of the engine (the PTB path alone).
- ``BENCH_PY_SPY=DIR``: sample the bot with py-spy during each measured window
  (``.venv/bin/pip install py-spy``; local use only).

Run by hand (not in the test suite); record the table in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import functools
import json
import os
import platform
import random
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RATE_LIMITED_PREFIX = "You are asking faster"  # render.rate_limited in English
APOLOGY_PREFIX = "Sorry, something went wrong"  # render.apology: a handler failed
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# --------------------------------------------------------------------------- the bot process


def freeze_after_load(module: Any) -> None:
    """An experiment (``BENCH_GC_FREEZE=1``): move start-up objects out of the collector's way.

    A full collection walks every tracked object (about 95,000 after start-up, ~80 ms on the
    reference machine); ``gc.freeze()`` after the catalog is loaded leaves only what requests
    allocate for it to walk.
    """
    import gc

    load = module.load_catalog

    def load_and_freeze(*args: Any, **kw: Any) -> Any:
        catalog = load(*args, **kw)
        gc.collect()
        gc.freeze()
        return catalog

    module.load_catalog = load_and_freeze


def child() -> int:
    """The bot, started like ``vram telegram`` (``BENCH_OVERALL_RATE`` patches the limiter)."""
    from telegram.ext import AIORateLimiter

    import bot.telegram.app as tg
    from bot.settings import load_settings

    if os.environ.get("BENCH_GC_FREEZE"):
        freeze_after_load(tg)
    rate = os.environ.get("BENCH_OVERALL_RATE")
    if rate is not None:
        tg.AIORateLimiter = functools.partial(AIORateLimiter, overall_max_rate=float(rate))  # type: ignore[misc]
    concurrent = os.environ.get("BENCH_CONCURRENT_UPDATES")
    transport = os.environ.get("BENCH_TRANSPORT", "httpx")
    if concurrent or transport == "aiohttp":  # experiments on the builder the adapter uses
        base = tg.ApplicationBuilder

        class Patched(base):  # type: ignore[misc,valid-type]
            def build(self) -> Any:
                if concurrent:  # PTB processes that many updates at once (default 1)
                    self.concurrent_updates(int(concurrent))
                if transport == "aiohttp":
                    request = aiohttp_request_class()
                    self.request(request()).get_updates_request(request())
                return super().build()

        tg.ApplicationBuilder = Patched  # type: ignore[misc]
    if os.environ.get("BENCH_STUB_ENGINE"):  # an experiment: one canned answer, no engine
        from bot.desk import Desk
        from engine import ask, load_catalog

        canned = ask("70b int4 128k", catalog=load_catalog())

        async def answer(self: Desk, text: str, **kw: Any) -> Any:
            return canned

        Desk.answer = answer  # type: ignore[method-assign]
    return tg.main(load_settings())


def aiohttp_request_class() -> Any:
    """An experiment: PTB's HTTP transport on aiohttp instead of httpx (a sketch, no files)."""
    import aiohttp
    from telegram._utils.defaultvalue import DefaultValue
    from telegram.error import NetworkError, TimedOut
    from telegram.request import BaseRequest, RequestData

    class AiohttpRequest(BaseRequest):
        def __init__(self, read_timeout: float = 5.0, connect_timeout: float = 5.0) -> None:
            self._read, self._connect = read_timeout, connect_timeout
            self._session: aiohttp.ClientSession | None = None

        @property
        def read_timeout(self) -> float:
            return self._read

        async def initialize(self) -> None:
            if self._session is None or self._session.closed:
                self._session = aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=256), trust_env=True
                )

        async def shutdown(self) -> None:
            if self._session is not None:
                await self._session.close()

        async def do_request(
            self,
            url: str,
            method: str,
            request_data: RequestData | None = None,
            read_timeout: Any = BaseRequest.DEFAULT_NONE,
            write_timeout: Any = BaseRequest.DEFAULT_NONE,
            connect_timeout: Any = BaseRequest.DEFAULT_NONE,
            pool_timeout: Any = BaseRequest.DEFAULT_NONE,
        ) -> tuple[int, bytes]:
            if self._session is None:
                raise RuntimeError("not initialized")
            if request_data is not None and request_data.contains_files:
                raise NotImplementedError("files are not needed by this bot")
            read = self._read if isinstance(read_timeout, DefaultValue) else read_timeout
            connect = (
                self._connect if isinstance(connect_timeout, DefaultValue) else connect_timeout
            )
            timeout = aiohttp.ClientTimeout(sock_read=read, sock_connect=connect)
            data = request_data.json_parameters if request_data else None
            try:
                async with self._session.request(
                    method, url, data=data, timeout=timeout, headers={"User-Agent": self.USER_AGENT}
                ) as resp:
                    return resp.status, await resp.read()
            except TimeoutError as err:
                raise TimedOut from err
            except aiohttp.ClientError as err:
                raise NetworkError(f"aiohttp.{type(err).__name__}: {err}") from err

    return AiohttpRequest


# --------------------------------------------------------------------------- the fake, timed


def make_fake(token: str) -> Any:
    from tests.fakes.telegram_api import FakeTelegram, JsonDict

    class TimedTelegram(FakeTelegram):
        """Records when each chat's messages arrive (after the fake accepted them)."""

        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, **kw)
            self.sent_at: dict[int, list[float]] = defaultdict(list)
            self.sent_text: dict[int, list[str]] = defaultdict(list)

        async def _send_message(self, params: JsonDict) -> JsonDict:
            message = await super()._send_message(params)
            chat = int(message["chat"]["id"])
            self.sent_at[chat].append(time.perf_counter())
            self.sent_text[chat].append(message["text"])
            return message

    return TimedTelegram(token=token)


# --------------------------------------------------------------------------- load


def questions(rng: random.Random) -> list[str]:
    sizes = ["7b", "8b", "13b", "14b", "32b", "34b", "70b", "72b", "405b", "1.5b"]
    precs = ["", "int4", "fp8", "bf16", "q4_k_m", "awq", "int8"]
    ctxs = ["", "8k", "32k", "128k"]
    extra = ["", "", "batch 8", "16 users", "qlora", "on a 4090", "fits a40?", "2x h100"]
    named = ["llama 3.1 70b", "qwen2.5 32b", "mistral 7b", "deepseek v3", "gemma 2 27b"]
    out = []
    for _ in range(400):
        subject = rng.choice(named) if rng.random() < 0.3 else rng.choice(sizes)
        parts = [subject, rng.choice(precs), rng.choice(ctxs), rng.choice(extra)]
        q = " ".join(p for p in parts if p)
        out.append(f"/vram {q}" if rng.random() < 0.1 else q)
    return [*out, "gpus", "/gpus", "card a40", "/card h100", "how to compute kv cache"]


@dataclass
class Result:
    name: str
    n: int
    users: int
    offered: str
    wall_s: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    lost: int = 0
    dup: int = 0
    limited: int = 0
    errors: int = 0
    bot_cpu_s: float = 0.0
    driver_cpu_s: float = 0.0

    def row(self) -> str:
        lat = sorted(self.latencies_ms)
        p50 = statistics.median(lat) if lat else float("nan")
        p99 = lat[min(len(lat) - 1, round(0.99 * (len(lat) - 1)))] if lat else float("nan")
        per_s = len(lat) / self.wall_s if self.wall_s else 0.0
        cpu = 100 * self.bot_cpu_s / self.wall_s if self.wall_s else 0.0
        fake_cpu = 100 * self.driver_cpu_s / self.wall_s if self.wall_s else 0.0
        return (
            f"| {self.name} | {self.n} / {self.users} | {self.offered} | {per_s:.0f} | "
            f"{p50:.1f} | {p99:.1f} | {max(lat, default=float('nan')):.1f} | {self.lost} | "
            f"{self.dup} | {self.errors} | {self.limited} | {cpu:.0f}% | {fake_cpu:.0f}% |"
        )


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


@contextlib.asynccontextmanager
async def bot_process(fake: Any, extra_env: dict[str, str], log: Path) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "VRAMCHAT_"))}
    env.update(
        TELEGRAM_TOKEN=fake.token,
        TELEGRAM_BASE_URL=fake.base_url,
        NO_PROXY="127.0.0.1,localhost",
        PTB_TIMEDELTA="1",
        **extra_env,
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # deployments run from compiled bytecode
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--child", env=env, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            yield proc
        finally:
            if proc.returncode is None:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 60)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()


def quiet_collector() -> None:
    """No garbage-collector pauses in this process while it measures."""
    import gc

    gc.collect()
    gc.freeze()
    gc.disable()


def loud_collector() -> None:
    import gc

    gc.enable()
    gc.unfreeze()


async def start_py_spy(pid: int, label: str) -> asyncio.subprocess.Process | None:
    """``BENCH_PY_SPY=DIR``: sample the bot during the measured window (pip install py-spy)."""
    out = os.environ.get("BENCH_PY_SPY")
    if not out:
        return None
    exe = Path(sys.executable).parent / "py-spy"
    spy = await asyncio.create_subprocess_exec(
        str(exe),
        "record",
        "--nonblocking",
        "-p",
        str(pid),
        "-r",
        "250",
        "-f",
        "raw",
        "-o",
        str(Path(out) / f"{label}.txt"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    await asyncio.sleep(0.5)
    return spy


async def stop_py_spy(spy: asyncio.subprocess.Process | None) -> None:
    if spy is not None:
        spy.send_signal(signal.SIGINT)
        await asyncio.wait_for(spy.wait(), 30)


async def pace(items: list[Any], rate: float | None, send: Any) -> None:
    """Call ``send(item)`` for each item, ``rate`` per second (None: all at once)."""
    if rate is None:
        for item in items:
            await send(item)
        return
    start = time.perf_counter()
    i = 0
    while i < len(items):
        due = min(len(items), int((time.perf_counter() - start) * rate) + 1)
        while i < due:
            await send(items[i])
            i += 1
        await asyncio.sleep(0.001)


async def scenario(
    name: str,
    *,
    n: int,
    users: int,
    rate: float | None,
    overall_rate: float | None,
    webhook: bool,
    seed: int,
    logdir: Path,
    index: int,
) -> Result:
    import aiohttp

    from tests.fakes.telegram_api import free_port

    rng = random.Random(seed)
    pool = questions(rng)
    token = f"123456:{secrets.token_urlsafe(30)}"
    fake = make_fake(token)
    result = Result(name, n, users, f"{rate:.0f}/s" if rate else "burst")
    extra: dict[str, str] = {}
    if overall_rate is not None:
        extra["BENCH_OVERALL_RATE"] = str(overall_rate)
    secret = secrets.token_urlsafe(24)
    hook_url = ""
    if webhook:
        port = free_port()
        hook_url = f"http://127.0.0.1:{port}/tg"
        extra.update(
            TELEGRAM_WEBHOOK_URL=hook_url,
            TELEGRAM_WEBHOOK_SECRET=secret,
            TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
            TELEGRAM_WEBHOOK_PORT=str(port),
            TELEGRAM_WEBHOOK_PATH="tg",
        )
    log = logdir / f"bot-{index}.log"
    async with (
        fake,
        aiohttp.ClientSession(trust_env=False, connector=aiohttp.TCPConnector(limit=40)) as session,
    ):
        posted: dict[int, int] = defaultdict(int)

        async def post(update: dict[str, Any]) -> None:
            headers = {
                "Content-Type": "application/json",
                "X-Telegram-Bot-Api-Secret-Token": secret,
            }
            body = json.dumps(update).encode()
            for _ in range(200):  # the first posts may race PTB's server start
                try:
                    async with session.post(hook_url, data=body, headers=headers) as resp:
                        await resp.read()
                        if resp.status != 200:
                            raise RuntimeError(f"webhook answered {resp.status}")
                        posted[update["update_id"]] += 1
                        return
                except aiohttp.ClientConnectorError:
                    await asyncio.sleep(0.05)
            raise RuntimeError("nothing listens on the webhook port")

        pending: set[asyncio.Task[None]] = set()

        async def deliver(update: dict[str, Any]) -> None:
            if webhook:
                task = asyncio.create_task(post(update))
                pending.add(task)
                task.add_done_callback(pending.discard)
            else:
                fake.push_update(update)

        async with bot_process(fake, extra, log) as proc:
            await fake.wait_for(lambda: len(fake.commands) == 3, timeout=30)
            if webhook:
                await fake.wait_for(lambda: bool(fake.webhook.get("url")), timeout=30)
            # warm-up: users outside the measured set, answers not counted
            warm = [
                fake.message_update(q, chat_id=10**6 + i, user_id=10**6 + i)
                for i, q in enumerate(pool[:40])
            ]
            for u in warm:
                await deliver(u)
            await fake.wait_for(
                lambda: sum(len(fake.sent_at[10**6 + i]) for i in range(40)) == 40, timeout=60
            )
            await asyncio.sleep(0.2)

            plan = []
            per_user = -(-n // users)
            for _ in range(per_user):
                for u in range(users):
                    if len(plan) < n:
                        plan.append((1000 + u, rng.choice(pool)))
            pushed_at: dict[int, list[float]] = defaultdict(list)
            updates = [fake.message_update(q, chat_id=c, user_id=c) for c, q in plan]
            chats = {c for c, _ in plan}

            async def send(update: dict[str, Any]) -> None:
                pushed_at[update["message"]["chat"]["id"]].append(time.perf_counter())
                await deliver(update)

            spy = await start_py_spy(proc.pid, f"telegram-{index}")
            quiet_collector()  # the fake stands in for a remote service: no GC pauses of its own
            cpu0, drv0, t0 = cpu_seconds(proc.pid), time.process_time(), time.perf_counter()
            await pace(updates, rate, send)

            def answered() -> int:
                return sum(min(len(fake.sent_at[c]), len(pushed_at[c])) for c in chats)

            last, stall = -1, time.perf_counter()
            while answered() < n and time.perf_counter() - stall < 10:
                if answered() != last:
                    last, stall = answered(), time.perf_counter()
                with contextlib.suppress(AssertionError):
                    await fake.wait_for(lambda seen=last: answered() != seen, timeout=1)
            if pending:
                await asyncio.gather(*pending)
            ends = [
                fake.sent_at[c][len(pushed_at[c]) - 1]
                for c in chats
                if len(fake.sent_at[c]) >= len(pushed_at[c])
            ]
            t1 = max(ends) if ends else time.perf_counter()
            result.wall_s = t1 - t0
            result.bot_cpu_s = cpu_seconds(proc.pid) - cpu0
            result.driver_cpu_s = time.process_time() - drv0
            await stop_py_spy(spy)
            loud_collector()
            await asyncio.sleep(0.5)  # anything late would be a duplicate
            for c in chats:
                sent, pushed = fake.sent_at[c], pushed_at[c]
                result.latencies_ms += [(s - p) * 1000 for s, p in zip(sent, pushed, strict=False)]
                result.lost += max(0, len(pushed) - len(sent))
                result.dup += max(0, len(sent) - len(pushed))
                result.limited += sum(t.startswith(RATE_LIMITED_PREFIX) for t in fake.sent_text[c])
                result.errors += sum(t.startswith(APOLOGY_PREFIX) for t in fake.sent_text[c])
                if os.environ.get("BENCH_SHOW_ERRORS"):
                    for t in fake.sent_text[c]:
                        if t.startswith(APOLOGY_PREFIX):
                            print("apology in chat", c, "for", [q for cc, q in plan if cc == c])
            ids = [u["update_id"] for u in updates]
            counts = posted if webhook else fake.deliveries
            result.dup += sum(max(0, counts[i] - 1) for i in ids)
            result.lost += sum(1 for i in ids if counts[i] == 0)
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--updates", type=int, default=2000)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--rate", type=float, default=300.0, help="offered load of the paced runs")
    ap.add_argument("--within", type=float, default=100.0, help="a paced load within capacity")
    ap.add_argument("--as-built-updates", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", default="", help="comma-separated scenario numbers (1-6)")
    ap.add_argument("--keep-logs", action="store_true", help="keep the bot processes' logs")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child()
    n, users = args.updates, args.users
    runs = [
        ("polling, as built (30/s limiter)", args.as_built_updates, 30.0, None, False),
        ("polling, limiter off", n, None, 0.0, False),
        ("polling, limiter off", n, args.rate, 0.0, False),
        ("polling, limiter off", n, args.within, 0.0, False),
        ("webhook, limiter off", n, None, 0.0, True),
        ("webhook, limiter off", n, args.within, 0.0, True),
    ]
    only = {int(x) for x in args.only.split(",") if x.strip()}
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}, "
        f"{datetime.date.today().isoformat()}"
    )
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print()
    print(
        "| scenario | updates / users | offered | answers/s | p50 ms | p99 ms | max ms | lost "
        "| dup | errors | rate-limited | bot CPU | fake CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="tgload-")
    if args.keep_logs:
        print(f"bot logs in {tmp}")
    try:
        for i, (name, count, rate, overall, hook) in enumerate(runs, 1):
            if only and i not in only:
                continue
            users_here = min(users, count)
            r = asyncio.run(
                scenario(
                    name,
                    n=count,
                    users=users_here,
                    rate=rate,
                    overall_rate=overall,
                    webhook=hook,
                    seed=args.seed + i,
                    logdir=Path(tmp),
                    index=i,
                )
            )
            print(r.row(), flush=True)
    finally:
        if not args.keep_logs:
            shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

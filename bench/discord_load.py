"""Discord load: slash-command interactions through the fake gateway to the real bot.

    .venv/bin/python bench/discord_load.py [--interactions 1000] [--users 200] [--rate 300]

The bot runs as its own process, started the way ``vram discord`` starts it
(``bot.discord.app.main``: settings from the environment, ``build_bot``, INFO logging); the
fake Discord (REST + gateway), the load driver and the clock live in this process.

Latency runs from the moment the fake writes the ``INTERACTION_CREATE`` frame to the moment it
accepts the interaction's callback (``POST /interactions/{id}/{token}/callback``). The fake
enforces Discord's 3 s deadline: a callback after it is refused (404 Unknown interaction) and
the interaction counts as lost. "dup" counts accepted second acknowledgements and follow-ups.

Scenarios (one bot process each): a burst (everything dispatched at once: capacity, and what
the 3 s deadline does to a queue), a paced run at ``--rate`` (the target load) and one at
``--within`` (a load the process keeps up with).

``BENCH_GC_FREEZE=1`` and ``BENCH_PY_SPY=DIR`` work as in bench/telegram_load.py.

Run by hand (not in the test suite); record the table in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from telegram_load import (  # noqa: E402
    APOLOGY_PREFIX,
    RATE_LIMITED_PREFIX,
    Result,
    cpu_seconds,
    freeze_after_load,
    loud_collector,
    pace,
    quiet_collector,
    start_py_spy,
    stop_py_spy,
)

#: Shaped like a real bot token (three dot-separated parts), so ``require_discord`` accepts it.
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def child() -> int:
    """The bot, started like ``vram discord``."""
    import bot.discord.app as dc
    from bot.settings import load_settings

    if os.environ.get("BENCH_GC_FREEZE"):
        freeze_after_load(dc)
    return dc.main(load_settings())


def make_fake() -> Any:
    from aiohttp import web

    from tests.fakes.discord_api import FakeDiscord

    class TimedDiscord(FakeDiscord):
        """Records when each interaction's callback was accepted, and every attempt."""

        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, **kw)
            self.answered_at: dict[str, float] = {}
            self.attempts: Counter[str] = Counter()
            self.accepted: Counter[str] = Counter()
            self.texts: dict[str, str] = {}

        async def _callback(self, request: web.Request) -> web.Response:
            resp = await super()._callback(request)
            iid = request.match_info["interaction_id"]
            self.attempts[iid] += 1
            if resp.status == 200:
                self.accepted[iid] += 1
            if resp.status == 200 and iid not in self.answered_at:
                self.answered_at[iid] = time.perf_counter()
                body = self._rec(request).json or {}
                self.texts[iid] = str((body.get("data") or {}).get("content") or "")
            self._notify()
            return resp

    return TimedDiscord(token=TOKEN)


def questions(rng: random.Random) -> list[tuple[str, str]]:
    """(command, argument) pairs: mostly /vram, some /gpus and /card."""
    from telegram_load import questions as texts

    out = [("vram", q.removeprefix("/vram ")) for q in texts(rng) if not q.startswith("/")]
    return out + [("gpus", ""), ("card", "a40"), ("card", "h100")] * 10


def interaction(fake: Any, command: str, arg: str, user_id: str) -> dict[str, Any]:
    if command == "vram":
        return fake.slash_interaction("vram", [fake.option("query", arg)], user_id=user_id)
    if command == "card":
        return fake.slash_interaction("card", [fake.option("name", arg)], user_id=user_id)
    return fake.slash_interaction(command, user_id=user_id)


@contextlib.asynccontextmanager
async def bot_process(fake: Any, log: Path) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "VRAMCHAT_"))}
    env.update(
        DISCORD_TOKEN=TOKEN,
        DISCORD_API_BASE_URL=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        NO_PROXY="127.0.0.1,localhost",
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
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


async def scenario(
    name: str, *, n: int, users: int, rate: float | None, seed: int, log: Path, index: int
) -> Result:
    rng = random.Random(seed)
    pool = questions(rng)
    fake = make_fake()
    result = Result(name, n, users, f"{rate:.0f}/s" if rate else "burst")
    async with fake, bot_process(fake, log) as proc:
        await fake.wait_ready(timeout=30)
        warm = [interaction(fake, *pool[i % len(pool)], user_id=str(9000 + i)) for i in range(40)]
        for payload in warm:  # the first answers also prove the bot is ready
            await fake.dispatch("INTERACTION_CREATE", payload)
            await fake.wait_for(lambda p=payload: p["id"] in fake.answered_at, timeout=30)
        await asyncio.sleep(0.2)

        user_ids = [str(10**17 + u) for u in range(users)]
        plan = [interaction(fake, *rng.choice(pool), user_id=user_ids[i % users]) for i in range(n)]
        sent_at: dict[str, float] = {}

        async def send(payload: dict[str, Any]) -> None:
            sent_at[payload["id"]] = time.perf_counter()
            await fake.dispatch("INTERACTION_CREATE", payload)

        spy = await start_py_spy(proc.pid, f"discord-{index}")
        quiet_collector()  # the fake stands in for a remote service: no GC pauses of its own
        cpu0, drv0, t0 = cpu_seconds(proc.pid), time.process_time(), time.perf_counter()
        await pace(plan, rate, send)
        ids = [p["id"] for p in plan]

        def done() -> int:
            return sum(1 for i in ids if fake.attempts[i])

        # Wait for every interaction to be answered or refused, or 5 s without progress.
        last, stall = -1, time.perf_counter()
        while done() < n and time.perf_counter() - stall < 5:
            if done() != last:
                last, stall = done(), time.perf_counter()
            with contextlib.suppress(TimeoutError):
                await fake.wait_for(lambda seen=last: done() != seen, timeout=1)
        ends = [fake.answered_at[i] for i in ids if i in fake.answered_at]
        result.wall_s = (max(ends) if ends else time.perf_counter()) - t0
        result.bot_cpu_s = cpu_seconds(proc.pid) - cpu0
        result.driver_cpu_s = time.process_time() - drv0
        await stop_py_spy(spy)
        loud_collector()
        await asyncio.sleep(0.5)  # anything late would be a duplicate
        tokens = {p["token"] for p in plan}
        followups = sum(
            1
            for r in fake.requests
            if r.params.get("token") in tokens and r.accepted and r.kind != "interaction_response"
        )
        for i in ids:
            if i in fake.answered_at:
                result.latencies_ms.append((fake.answered_at[i] - sent_at[i]) * 1000)
                text = fake.texts.get(i, "")
                result.limited += text.startswith(RATE_LIMITED_PREFIX)
                result.errors += text.startswith(APOLOGY_PREFIX)
            else:
                result.lost += 1
            result.dup += max(0, fake.accepted[i] - 1)
        result.dup += followups
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--interactions", type=int, default=1000)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--rate", type=float, default=300.0, help="offered load of the paced run")
    ap.add_argument("--within", type=float, default=100.0, help="a paced load within capacity")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--only", default="", help="comma-separated scenario numbers (1-3)")
    ap.add_argument("--keep-logs", action="store_true", help="keep the bot processes' logs")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child()
    n = args.interactions
    runs = [
        ("slash commands", None),
        ("slash commands", args.rate),
        ("slash commands", args.within),
    ]
    only = {int(x) for x in args.only.split(",") if x.strip()}
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}, "
        f"{datetime.date.today().isoformat()}"
    )
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print()
    print(
        "| scenario | interactions / users | offered | answers/s | p50 ms | p99 ms | max ms "
        "| lost | dup | errors | rate-limited | bot CPU | fake CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="dcload-")
    if args.keep_logs:
        print(f"bot logs in {tmp}")
    try:
        for i, (name, rate) in enumerate(runs, 1):
            if only and i not in only:
                continue
            r = asyncio.run(
                scenario(
                    name,
                    n=n,
                    users=min(args.users, n),
                    rate=rate,
                    seed=args.seed + i,
                    log=Path(tmp) / f"bot-{i}.log",
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

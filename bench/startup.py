"""Process start to first answer, and resident memory, for the three ways a process starts.

    .venv/bin/python bench/startup.py [--runs 15]

`vram ask` is timed as a whole process (spawn to exit). The bots are started against local
fake platform servers (tests/fakes) and timed from spawn to their first reply; their resident
memory (VmRSS of the process) is read right after that reply.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VRAM = str(Path(sys.executable).parent / "vram")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# Deployed code runs from compiled bytecode (pip and the Dockerfile write .pyc files); a
# shell that sets PYTHONDONTWRITEBYTECODE would recompile every module on every start.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
# Token shapes the start-up checks accept (the fakes accept any token they are given).
TELEGRAM_TOKEN = "123456789:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-qw"
DISCORD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GrObUs.abcdefghijklmnopqrstuvwxyz987654"


def time_ask(runs: int) -> tuple[list[float], float]:
    subprocess.run([VRAM, "ask", "70b int4 128k"], capture_output=True, check=True, env=ENV)
    times = []
    peak = 0.0
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run(
            ["/usr/bin/time", "-f", "%M", VRAM, "ask", "70b int4 128k"],
            capture_output=True,
            text=True,
            check=True,
            env=ENV,
        )
        times.append(time.perf_counter() - t)
        peak = max(peak, int(out.stderr.strip().splitlines()[-1]) / 1024)
    return times, peak


async def time_telegram(runs: int) -> tuple[list[float], float]:
    from tests.fakes.telegram_api import FakeTelegram

    times, rss = [], 0.0
    for _ in range(runs):
        async with FakeTelegram(TELEGRAM_TOKEN) as fake:
            env = {
                **ENV,
                "TELEGRAM_TOKEN": fake.token,
                "TELEGRAM_BASE_URL": fake.base_url,
                "NO_PROXY": "127.0.0.1,localhost",
                "PTB_TIMEDELTA": "1",
            }
            fake.push_update(fake.message_update("70b int4 128k"))
            t = time.perf_counter()
            proc = await asyncio.create_subprocess_exec(
                VRAM, "telegram", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            await fake.wait_for(lambda: len(fake.sent_messages) >= 1, timeout=30)
            times.append(time.perf_counter() - t)
            rss = max(rss, rss_mb(proc.pid))
            proc.terminate()
            await proc.wait()
    return times, rss


async def time_discord(runs: int) -> tuple[list[float], float]:
    from tests.fakes.discord_api import FakeDiscord

    times, rss = [], 0.0
    for _ in range(runs):
        async with FakeDiscord(DISCORD_TOKEN) as fake:
            env = {
                **ENV,
                "DISCORD_TOKEN": DISCORD_TOKEN,
                "DISCORD_API_BASE_URL": fake.api_base,
                "DISCORD_GATEWAY_URL": fake.gateway_url,
                "NO_PROXY": "127.0.0.1,localhost",
            }
            t = time.perf_counter()
            proc = await asyncio.create_subprocess_exec(
                VRAM, "discord", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            await fake.wait_ready(timeout=30)
            inter = fake.slash_interaction("vram", [fake.option("query", "70b int4 128k")])
            await fake.dispatch("INTERACTION_CREATE", inter)
            await fake.wait_for(lambda i=inter: fake.response_for(i), timeout=30)
            times.append(time.perf_counter() - t)
            rss = max(rss, rss_mb(proc.pid))
            proc.terminate()
            await proc.wait()
    return times, rss


def row(name: str, times: list[float], mem: float) -> str:
    return (
        f"| {name} | {len(times)} | {statistics.median(times):.3f} | {min(times):.3f} | "
        f"{max(times):.3f} | {mem:.0f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--bot-runs", type=int, default=3)
    args = ap.parse_args()
    print(
        f"machine: {platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}"
    )
    print()
    print("| process | runs | median s | min s | max s | memory MB |")
    print("|---|---|---|---|---|---|")
    t, m = time_ask(args.runs)
    print(row("vram ask (spawn to exit; peak RSS)", t, m))
    for name, fn in (
        ("vram telegram (spawn to first reply; RSS)", time_telegram),
        ("vram discord (spawn to first reply; RSS)", time_discord),
    ):
        try:
            t, m = asyncio.run(fn(args.bot_runs))
            print(row(name, t, m))
        except Exception as exc:  # an adapter not ready yet should not hide the other rows
            print(f"| {name} | failed: {type(exc).__name__}: {exc} | | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

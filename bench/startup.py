"""Process start to first answer, and resident memory, for the three ways a process starts;
`vram ask` side by side with llmfit's `plan` (the closest equivalent of a peer tool).

    .venv/bin/python bench/startup.py [--rounds 21] [--bots]

`vram ask "70b int4 128k" --format json` and `llmfit plan <Llama 3.1 70B> --context 131072
--quant Q4_K_M --json` are timed as whole processes (spawn to exit), alternating one of each
per round, so both see the same machine load; peak RSS of each child comes from
``/usr/bin/time -f %M``. llmfit is taken from ``--llmfit``, ``$LLMFIT`` or PATH, else
installed with pip into a venv outside the repository (``$TMPDIR/vramchat-bench-venv``).
The catalog cache goes to ~/.cache/vramchat under a fresh temporary ``HOME``, written by one
warm-up run (the first run after a data change validates the data; that run is shown too).
With ``--bots`` the bots are also started against local fake platform servers (tests/fakes)
and timed from spawn to their first reply; their resident memory (VmRSS) is read right after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VRAM = str(Path(sys.executable).parent / "vram")
QUESTION = "70b int4 128k"
LLMFIT_ARGS = [
    "plan",
    "meta-llama/Llama-3.1-70B-Instruct",
    "--context",
    "131072",
    "--quant",
    "Q4_K_M",
    "--json",
]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# Deployed code runs from compiled bytecode (pip and the Dockerfile write .pyc files); a
# shell that sets PYTHONDONTWRITEBYTECODE would recompile every module on every start.
# The cache folder is chosen by HOME below alone (no VRAMCHAT_CACHE_DIR, no XDG_CACHE_HOME).
UNSET = {"PYTHONDONTWRITEBYTECODE", "VRAMCHAT_CACHE_DIR", "XDG_CACHE_HOME"}
ENV = {k: v for k, v in os.environ.items() if k not in UNSET}
# Token shapes the start-up checks accept (the fakes accept any token they are given).
TELEGRAM_TOKEN = "123456789:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-qw"
DISCORD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GrObUs.abcdefghijklmnopqrstuvwxyz987654"


def find_llmfit(given: str | None) -> str:
    """llmfit's binary: given, on PATH, or pip-installed into a venv outside the repository."""
    if given:
        return given
    found = os.environ.get("LLMFIT") or shutil.which("llmfit")
    if found:
        return found
    venv = Path(tempfile.gettempdir()) / "vramchat-bench-venv"
    exe = venv / "bin" / "llmfit"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "llmfit"], check=True)
    return str(exe)


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Spawn-to-exit seconds and peak RSS (MB) of one process."""
    t = time.perf_counter()
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, env=env
    )
    elapsed = time.perf_counter() - t
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {out.returncode}: {out.stderr[-300:]}")
    return elapsed, int(out.stderr.strip().splitlines()[-1]) / 1024


def time_side_by_side(rounds: int, llmfit: str) -> dict[str, tuple[list[float], float]]:
    """Alternate vram ask and llmfit plan, ``rounds`` of each; the first cold-cache run too."""
    env = {**ENV, "HOME": tempfile.mkdtemp(prefix="vramchat-bench-home-")}
    ask = [VRAM, "ask", QUESTION, "--format", "json"]
    plan = [llmfit, *LLMFIT_ARGS]
    cold = timed(ask, env)  # writes the catalog cache (and the bytecode, if missing)
    timed(plan, env)
    out: dict[str, tuple[list[float], float]] = {
        "vram ask (first run, cache written)": ([cold[0]], cold[1]),
        "vram ask": ([], 0.0),
        "llmfit plan": ([], 0.0),
    }
    for i in range(rounds):
        order = (("vram ask", ask), ("llmfit plan", plan))
        for name, cmd in order if i % 2 == 0 else order[::-1]:
            secs, mb = timed(cmd, env)
            times, peak = out[name]
            times.append(secs)
            out[name] = (times, max(peak, mb))
    shutil.rmtree(env["HOME"], ignore_errors=True)
    return out


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
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--bots", action="store_true", help="also time the two bots")
    ap.add_argument("--bot-runs", type=int, default=3)
    ap.add_argument("--llmfit", default=None, help="path of the llmfit binary")
    args = ap.parse_args()
    llmfit = find_llmfit(args.llmfit)
    version = subprocess.run([llmfit, "--version"], capture_output=True, text=True).stdout
    print(
        f"machine: {platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}"
        f", {version.strip()}"
    )
    print(f"vram: {VRAM} ask {QUESTION!r} --format json; llmfit: {' '.join(LLMFIT_ARGS)}")
    print()
    print("| process | runs | median s | min s | max s | memory MB |")
    print("|---|---|---|---|---|---|")
    rows = time_side_by_side(args.rounds, llmfit)
    for name, (t, m) in rows.items():
        print(row(name, t, m))
    ratio = statistics.median(rows["vram ask"][0]) / statistics.median(rows["llmfit plan"][0])
    print()
    print(f"vram ask median / llmfit plan median: {ratio:.2f}")
    if not args.bots:
        return 0
    print()
    print("| process | runs | median s | min s | max s | memory MB |")
    print("|---|---|---|---|---|---|")
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

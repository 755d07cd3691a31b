"""Faults against the web desk and the Discord adapter, measured: inputs, lost, doubled, worst.

    NO_PROXY=127.0.0.1 .venv/bin/python bench/faults_web_discord.py [--rounds 10]

Web: `vram serve` as a subprocess (open files limited to 1,024 for the flood); while each
hostile request is sent, a normal GET /healthz is timed ("worst" is the slowest of those).
Discord: the real bot against the fake Discord, which fails or delays the interaction
callback; "worst" runs from dispatch to the interaction's first accepted response.
Run by hand (not in the test suite); the table goes into docs/RELIABILITY.md.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "discord")]

from dc_support import TOKEN, make_bot, make_desk, make_settings  # noqa: E402

from engine import load_catalog  # noqa: E402
from tests.fakes.discord_api import FakeDiscord  # noqa: E402
from tests.web.test_http_limits import HOSTILE, get, raw, start_desk, stop_desk  # noqa: E402

Row = tuple[str, int, int, int, float]


def web_rows(rounds: int) -> list[Row]:
    rows: list[Row] = []
    tmp = Path(tempfile.mkdtemp())
    desk = start_desk(tmp)
    try:
        for name, (request, status) in HOSTILE.items():
            worst, lost = 0.0, 0
            for _ in range(rounds):
                got: dict[str, Any] = {}
                sender = threading.Thread(
                    target=lambda r=request, g=got: g.setdefault("r", raw(desk.port, r))
                )
                sender.start()
                start = time.perf_counter()
                ok = get(desk.port, "/healthz")[0] == 200
                worst = max(worst, time.perf_counter() - start)
                sender.join()
                lost += (not ok) + (got.get("r", (0,))[0] != status)
            rows.append((f"web: {name} (JSON {status}) + GET /healthz", rounds, lost, 0, worst))
    finally:
        stop_desk(desk)
    desk = start_desk(tmp, nofile=1024, VRAMCHAT_HTTP_IDLE_TIMEOUT_S="10")
    idle: list[socket.socket] = []
    try:
        for _ in range(1100):
            idle.append(socket.create_connection(("127.0.0.1", desk.port), timeout=5))
        worst, lost = 0.0, 0
        for _ in range(rounds):
            start = time.perf_counter()
            lost += get(desk.port, "/healthz")[0] != 200
            worst = max(worst, time.perf_counter() - start)
        rows.append(("web: 1,100 idle sockets, 1,024 files + GET /healthz", rounds, lost, 0, worst))
    finally:
        for sock in idle:
            sock.close()
        stop_desk(desk)
    log_kb = desk.log.stat().st_size / 1024
    print(f"flood log: {log_kb:.1f} KB", file=sys.stderr)
    return rows


async def discord_rows(rounds: int) -> list[Row]:
    catalog = load_catalog()
    rows: list[Row] = []
    cases = [
        ("discord: 2 s of 502 on the callback", "fail", 2.0),
        ("discord: 2 s of 503 on callback and edits", "fail_all", 2.0),
        ("discord: callback answered after 1 s", "delay", 1.0),
    ]
    for name, kind, seconds in cases:
        async with FakeDiscord(token=TOKEN) as fake:
            import discord.gateway
            import discord.http
            import yarl

            discord.http.Route.BASE = fake.api_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
            bot = make_bot(make_settings(), make_desk(catalog))
            async with fake.running(bot, token=TOKEN):
                if kind == "fail":
                    fake.fail_for("POST", r"/callback$", seconds)
                elif kind == "fail_all":
                    fake.fail_for("*", r"^/(interactions|webhooks)/", seconds, status=503)
                else:
                    fake.delay_next("POST", r"/callback$", seconds, times=rounds)
                payloads = [
                    fake.slash_interaction("vram", [fake.option("query", "70b int4 128k")])
                    for _ in range(rounds)
                ]
                sent = time.monotonic()
                for p in payloads:
                    await fake.dispatch("INTERACTION_CREATE", p)
                await asyncio.sleep(seconds + 6)
                worst, lost, dup = 0.0, 0, 0
                for p in payloads:
                    first = [
                        r
                        for r in fake.interaction_responses
                        if r.params.get("interaction_id") == p["id"]
                    ]
                    edits = [r for r in fake.webhook_edits if r.params.get("token") == p["token"]]
                    answered = bool(first) and (
                        first[0].json["type"] == 4 or any(e.json.get("embeds") for e in edits)
                    )
                    lost += not answered
                    dup += max(0, len(first) - 1) + max(0, len(edits) - 1)
                    if first:
                        worst = max(worst, first[0].at - sent)
                rows.append((name, rounds, lost, dup, worst))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    rows = web_rows(args.rounds) + asyncio.run(discord_rows(args.rounds))
    print("| fault | inputs | lost | duplicated | worst latency s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, n, lost, dup, worst in rows:
        print(f"| {name} | {n} | {lost} | {dup} | {worst:.2f} |")


if __name__ == "__main__":
    main()

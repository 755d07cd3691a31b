"""Liveness probes for the long-running services (``vram healthcheck web|telegram|discord``).

A bot that validates its data files can still be dead to its users: token revoked, platform
unreachable, gateway silently gone. So each bot proves its platform connection itself and
records that in a small heartbeat file (under the temp folder: a tmpfs in the container):

- Telegram: the application and its updater run and ``getMe`` succeeds;
- Discord: the client is ready, every gateway socket is open and its last heartbeat was
  acknowledged within two heartbeat intervals.

The bot refreshes the file every :data:`BEAT_EVERY_S` while that holds; the healthcheck
command calls the service healthy while the file is younger than :data:`MAX_AGE_S`. The desk
has a port, so its probe asks ``/healthz`` directly. Nothing here may stop a bot: a probe or a
write that fails is logged once and retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

__all__ = [
    "BEAT_EVERY_S",
    "MAX_AGE_S",
    "TELEGRAM_POLLING",
    "Heartbeat",
    "check",
    "discord_alive",
    "heartbeat_path",
    "keep_beating",
    "stop",
    "stop_telegram",
    "watch_discord",
    "watch_telegram",
]

BEAT_EVERY_S: Final = 5.0
#: Four missed beats: long enough to ride out one slow probe, short enough for an orchestrator.
MAX_AGE_S: Final = 20.0
PROBE_TIMEOUT_S: Final = 4.0
SERVICES: Final = ("web", "telegram", "discord")
_TELEGRAM_TASK: Final = "vramchat.heartbeat"
#: Set in the application's bot_data by our own poller while it polls (PTB's updater then idles).
TELEGRAM_POLLING: Final = "vramchat.polling"

log = logging.getLogger("vramchat.health")

Probe = Callable[[], Awaitable[str | None]]


def heartbeat_path(service: str) -> Path:
    """Where ``service`` keeps its heartbeat (the temp folder honours TMPDIR)."""
    return Path(tempfile.gettempdir()) / "vramchat" / f"{service}.alive"


class Heartbeat:
    """One service's heartbeat file, written atomically so a reader never sees half of it."""

    def __init__(self, service: str, path: Path | None = None) -> None:
        self.service = service
        self.path = path or heartbeat_path(service)
        self._write_failed = False

    def beat(self, detail: str) -> None:
        record = {"service": self.service, "pid": os.getpid(), "at": time.time(), "detail": detail}
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            tmp.write_text(json.dumps(record), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            if not self._write_failed:
                log.warning("cannot write the heartbeat %s: %s", self.path, exc.strerror or exc)
            self._write_failed = True
            return
        self._write_failed = False

    def clear(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)

    def age(self, now: float | None = None) -> tuple[float, str] | None:
        """(seconds since the last beat, its detail), or None when there is no usable beat."""
        try:
            record = json.loads(self.path.read_text(encoding="utf-8"))
            at, detail = float(record["at"]), str(record.get("detail", ""))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return (time.time() if now is None else now) - at, detail


async def keep_beating(heartbeat: Heartbeat, probe: Probe, every: float = BEAT_EVERY_S) -> None:
    """Probe forever; beat while the probe succeeds; log each change of state once."""
    alive: bool | None = None
    while True:
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel that comes
            # as the probe finishes, and stop() would then wait for this loop forever
            async with asyncio.timeout(PROBE_TIMEOUT_S):
                detail = await probe()
            reason = "" if detail is not None else "not connected"
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a probe error is a health fact, never a crash
            detail, reason = None, f"{type(exc).__name__}: {exc}"
        if detail is not None:
            heartbeat.beat(detail)
            if alive is not True:
                log.info("%s connection confirmed (%s)", heartbeat.service, detail)
        elif alive is True:
            log.warning("%s connection not confirmed: %s", heartbeat.service, reason)
        alive = detail is not None
        # Until the first confirmation, look again soon: the start-up should turn healthy fast.
        await asyncio.sleep(every if alive else min(every, 1.0))


def start(service: str, probe: Probe, path: Path | None = None) -> asyncio.Task[None]:
    heartbeat = Heartbeat(service, path)
    heartbeat.clear()  # a beat left by an earlier process proves nothing about this one
    task = asyncio.create_task(keep_beating(heartbeat, probe), name=f"vramchat-{service}-health")
    task.heartbeat = heartbeat  # type: ignore[attr-defined]
    return task


async def stop(task: asyncio.Task[None] | None) -> None:
    """Stop beating and remove the file: a stopped service is not healthy."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    heartbeat = getattr(task, "heartbeat", None)
    if isinstance(heartbeat, Heartbeat):
        heartbeat.clear()


# --------------------------------------------------------------------------- Telegram


def watch_telegram(app: Any, path: Path | None = None) -> None:
    """Called from the application's post_init; :func:`stop_telegram` ends it at shutdown."""

    async def probe() -> str | None:
        updater = app.updater
        polling = bool(app.bot_data.get(TELEGRAM_POLLING)) or (
            updater is not None and updater.running
        )
        if not app.running or not polling:
            return None
        me = await app.bot.get_me()
        return f"getMe ok as @{me.username}"

    app.bot_data[_TELEGRAM_TASK] = start("telegram", probe, path)


async def stop_telegram(app: Any) -> None:
    """The application's post_shutdown hook."""
    await stop(app.bot_data.pop(_TELEGRAM_TASK, None))


# --------------------------------------------------------------------------- Discord


def _gateways(bot: Any) -> list[Any]:
    """Every gateway socket: one per shard for an AutoShardedClient, else ``bot.ws``."""
    shards = getattr(bot, "shards", None)
    if isinstance(shards, dict) and shards:
        return [getattr(info, "_parent", None) and info._parent.ws for info in shards.values()]
    return [getattr(bot, "ws", None)]


def _acknowledged(ws: Any, now: float) -> bool:
    """Open, and the last HEARTBEAT_ACK came within two heartbeat intervals (discord.py 2.7)."""
    if ws is None or not ws.open:
        return False
    keep_alive = getattr(ws, "_keep_alive", None)
    if keep_alive is None:  # before HELLO
        return False
    interval = float(keep_alive.interval or 60.0)
    return now - float(keep_alive._last_ack) <= 2 * interval + PROBE_TIMEOUT_S


def discord_alive(bot: Any) -> Probe:
    async def probe() -> str | None:
        if bot.is_closed() or not bot.is_ready():
            return None
        sockets = _gateways(bot)
        now = time.perf_counter()
        if not sockets or not all(_acknowledged(ws, now) for ws in sockets):
            return None
        return f"gateway up, {len(sockets)} shard(s), latency {bot.latency * 1000:.0f} ms"

    return probe


def watch_discord(bot: Any, path: Path | None = None) -> asyncio.Task[None]:
    """Beat while the bot's gateway connection is up; pass the task to :func:`stop`."""
    return start("discord", discord_alive(bot), path)


# --------------------------------------------------------------------------- the command


def _web(port: int | None, timeout: float) -> tuple[bool, str]:
    if port is None:
        from bot.settings import load_settings

        port = load_settings().vramchat_port
    url = f"http://127.0.0.1:{port}/healthz"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as resp:
            body = json.loads(resp.read(65536))
    except (OSError, ValueError) as exc:
        return False, f"{url}: {exc}"
    if not isinstance(body, dict) or body.get("status") != "ok":
        return False, f"{url} answered {body!r}"
    return True, f"{url} ok, prices as of {body.get('prices_as_of')}"


def check(
    service: str,
    *,
    max_age: float | None = None,
    port: int | None = None,
    path: Path | None = None,
) -> int:
    """``vram healthcheck``: 0 and one line on stdout when healthy, 1 and the reason if not."""
    if service == "web":
        ok, line = _web(port, PROBE_TIMEOUT_S)
    else:
        limit = MAX_AGE_S if max_age is None else max_age
        heartbeat = Heartbeat(service, path)
        found = heartbeat.age()
        if found is None:
            ok, line = False, f"no heartbeat at {heartbeat.path} (not connected yet, or stopped)"
        else:
            age, detail = found
            ok = -1.0 <= age <= limit
            line = f"last confirmed {age:.1f} s ago (limit {limit:g} s): {detail}"
    print(
        f"{service} {'healthy' if ok else 'unhealthy'}: {line}",
        file=sys.stdout if ok else sys.stderr,
    )
    return 0 if ok else 1

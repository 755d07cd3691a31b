"""The image test proper (``make image-test`` runs it after building the image).

Every service runs in its own container exactly as an operator would run it: read-only root
filesystem, a tmpfs on /tmp, no capabilities, host network on loopback. The bots talk to the
test suite's fake Telegram and Discord servers, started here on 127.0.0.1. Answers inside the
containers are compared with the engine run outside them. Each check prints one line; the
first failure stops the run with exit code 1.

    .venv/bin/python tests/image/run.py --image localhost/vramchat:test --podman "podman --runtime=/usr/sbin/runc"
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bot.health import MAX_AGE_S  # noqa: E402
from bot.render.discord import escape  # noqa: E402
from bot.render.telegram import format_html  # noqa: E402
from engine import ask, load_catalog  # noqa: E402
from tests.fakes.discord_api import FakeDiscord  # noqa: E402
from tests.fakes.telegram_api import FakeTelegram, free_port, parse_telegram_html  # noqa: E402

QUESTION = "70b int4 128k"
DISCORD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
STOP_WITHIN_S = 10.0
RUN_ID = f"vramchat-it-{os.getpid()}"
CACHE = "/app/.cache/vramchat"  # the catalog cache the image builds (deploy/Dockerfile)


class Failed(Exception):
    """One check did not hold."""


def ok(message: str) -> None:
    print(f"  ok  {message}", flush=True)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)
    ok(message)


class Podman:
    def __init__(self, command: str, image: str) -> None:
        self.command = shlex.split(command)
        self.image = image
        self.started: list[str] = []

    async def __call__(self, *args: str, timeout: float = 120) -> tuple[int, str, str]:
        proc = await asyncio.create_subprocess_exec(
            *self.command, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
        return proc.returncode or 0, out.decode(), err.decode()

    async def start(self, name: str, env: dict[str, str], *command: str) -> str:
        """A detached service container, hardened the way deploy/compose.yaml runs it."""
        full = f"{RUN_ID}-{name}"
        await self("rm", "-f", full)
        flags = [
            "run", "-d", "--name", full, "--network=host", "--read-only",
            "--tmpfs", "/tmp:rw,size=16m,mode=1777", "--cap-drop=ALL",
            "--security-opt", "no-new-privileges", "--health-interval", "disable",
        ]  # fmt: skip
        for key, value in env.items():
            flags += ["-e", f"{key}={value}"]
        rc, _, err = await self(*flags, self.image, *command)
        if rc != 0:
            raise Failed(f"podman run {name}: {err.strip()}")
        self.started.append(full)
        return full

    async def exec(self, container: str, *command: str) -> tuple[int, str, str]:
        return await self("exec", container, *command, timeout=60)

    async def logs(self, container: str) -> str:
        _, out, err = await self("logs", container)
        return out + err

    async def stop_timed(self, container: str) -> tuple[float, int]:
        """SIGTERM (podman stop), SIGKILL only after STOP_WITHIN_S; (seconds, exit code)."""
        start = time.monotonic()
        await self("stop", "-t", str(int(STOP_WITHIN_S)), container, timeout=60)
        elapsed = time.monotonic() - start
        _, code, _ = await self("inspect", "--format", "{{.State.ExitCode}}", container)
        return elapsed, int(code.strip() or -1)

    async def cleanup(self) -> None:
        for name in self.started:
            await self("rm", "-f", "-t", "0", name)


async def wait_until(check: Callable[[], Awaitable[bool]], timeout: float, what: str) -> float:
    """Seconds until ``check()`` holds; Failed after ``timeout``."""
    start = time.monotonic()
    while not await check():
        if time.monotonic() - start > timeout:
            raise Failed(f"{what}: not within {timeout:g} s")
        await asyncio.sleep(0.25)
    return time.monotonic() - start


async def vram_outside(*args: str) -> str:
    """The same question asked on this machine, outside any container."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "--no-cache", *args, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    if proc.returncode != 0:
        raise Failed(f"vram {' '.join(args)} outside: {err.decode()}")
    return out.decode()


async def hardened(podman: Podman, container: str, service: str) -> None:
    """Not root, and the image is read-only to it (both the root filesystem and /app)."""
    _, uid, _ = await podman.exec(container, "id", "-u")
    expect(uid.strip() not in ("", "0"), f"{service}: runs as uid {uid.strip()}, not root")
    rc, _, err = await podman.exec(container, "sh", "-c", "echo x > /app/probe")
    expect(rc != 0 and "Read-only" in err, f"{service}: a write to /app fails ({err.strip()})")


def imported(stderr: str, module: str) -> bool:
    """Whether ``python -X importtime`` output (PYTHONPROFILEIMPORTTIME=1) lists ``module``."""
    return re.search(rf"^import time:.*\|\s*{re.escape(module)}\s*$", stderr, re.M) is not None


async def started_from_cache(podman: Podman, container: str, service: str) -> None:
    """The running service parsed no YAML: the image's pyyaml has libyaml (checked first),
    which the engine's loader uses, so a parse would have mapped ``_yaml`` into the process."""
    _, pid, _ = await podman("inspect", "--format", "{{.State.Pid}}", container)
    maps = Path(f"/proc/{pid.strip()}/maps").read_text(encoding="utf-8", errors="replace")
    logs = await podman.logs(container)
    expect(
        "_yaml" not in maps and f"catalog cache: {CACHE}" in logs,
        f"{service}: started from the image's catalog cache (libyaml never loaded)",
    )


async def healthy(podman: Podman, container: str, service: str, *extra: str) -> bool:
    rc, _, _ = await podman.exec(container, "vram", "healthcheck", service, *extra)
    return rc == 0


async def stops_on_sigterm(podman: Podman, container: str, service: str) -> float:
    elapsed, code = await podman.stop_timed(container)
    expect(
        elapsed < STOP_WITHIN_S and code == 0,
        f"{service}: SIGTERM stops it in {elapsed:.1f} s, exit code {code}",
    )
    return elapsed


# --------------------------------------------------------------------------- the cache


async def test_prebuilt_cache(podman: Podman) -> None:
    """`vram ask` in a read-only container answers from the catalog cache built into the
    image without parsing YAML or trying to write; other data is validated, not failed on."""
    print("catalog cache built into the image", flush=True)
    run = ["run", "--rm", "--network=host", "--read-only", "--cap-drop=ALL"]
    rc, out, err = await podman(
        *run, podman.image, "sh", "-c", f"ls {CACHE}; cat {CACHE}/* >/dev/null"
    )
    files = [f for f in out.split() if f.startswith("catalog-") and f.endswith(".pickle")]
    expect(rc == 0 and len(files) >= 2, f"{len(files)} cache files readable by the image's user")
    code = "import yaml; print(yaml.__with_libyaml__)"
    _, out, _ = await podman(*run, podman.image, "python3", "-c", code)
    expect(out.strip() == "True", "the image's pyyaml has libyaml (what the engine parses with)")
    expected = json.loads(await vram_outside("ask", "--format", "json", QUESTION))
    profile = ["-e", "PYTHONPROFILEIMPORTTIME=1"]
    for env, how in (([], ""), (["-e", "VRAMCHAT_CACHE_DIR="], ", VRAMCHAT_CACHE_DIR blank")):
        ask_ = ["vram", "ask", "--format", "json", QUESTION]
        rc, out, err = await podman(*run, *profile, *env, podman.image, *ask_)
        expect(rc == 0 and json.loads(out) == expected, f"vram ask inside answers as outside{how}")
        expect(
            imported(err, "engine.catalog_cache")
            and not imported(err, "yaml")
            and not imported(err, "tempfile"),
            f"... from the prebuilt cache: yaml never imported, no write attempted{how}",
        )
    with tempfile.TemporaryDirectory(prefix="vramchat-it-data-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(ROOT / "data", data)
        cards = data / "cards.yaml"
        cards.write_text(cards.read_text("utf-8").replace("monthly_usd: 990", "monthly_usd: 991"))
        os.chmod(tmp, 0o755)
        want = json.loads(
            await vram_outside("--data-dir", str(data), "ask", "--format", "json", QUESTION)
        )
        mount = ["-v", f"{data}:/app/data:ro"]
        rc, out, err = await podman(*run, *profile, *mount, podman.image, *ask_)
        expect(
            rc == 0 and json.loads(out) == want and want != expected and "Traceback" not in err,
            "other data mounted: validated at start and answered (the read-only cache unused)",
        )
        expect(imported(err, "yaml"), "... and that start did parse the YAML (the check can fail)")


async def test_compiled_engine(podman: Podman) -> None:
    """The image's engine runs compiled (the Dockerfile's NATIVE=1 default): every module the
    build lists loads from its C extension, not from a stale or missing build's sources;
    and the runtime stage carries no compiler."""
    print("compiled engine", flush=True)
    code = (
        "import importlib, pathlib, engine\n"
        "names = (pathlib.Path(engine.__file__).parent / '_native.txt').read_text().split()\n"
        "so = [n for n in names if str(importlib.import_module(n).__file__).endswith('.so')]\n"
        "print(len(names), len(so))"
    )
    run = ["run", "--rm", "--network=host", "--read-only", "--cap-drop=ALL", podman.image]
    rc, out, err = await podman(*run, "python3", "-c", code)
    counts = out.split()
    expect(
        rc == 0 and len(counts) == 2 and counts[0] == counts[1] != "0" and "vramchat:" not in err,
        f"{' of '.join(counts[::-1]) or 'none'} listed modules load compiled",
    )
    probe = "command -v gcc cc; test -e /opt/build && echo /opt/build; echo probed"
    rc, out, _ = await podman(*run, "sh", "-c", probe)
    expect(rc == 0 and out.split() == ["probed"], f"no compiler or build venv left: {out.split()}")
    rc, out, _ = await podman(
        *run, "python3", "-c", "import importlib.util as u; print(u.find_spec('mypy'))"
    )
    expect(rc == 0 and out.strip() == "None", "mypy is not in the runtime venv")


# --------------------------------------------------------------------------- the desk


async def test_desk(podman: Podman, timings: dict[str, float]) -> None:
    print("desk (vram serve)", flush=True)
    expected = json.loads(await vram_outside("ask", "--format", "json", QUESTION))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    desk = await podman.start(
        "web", {"VRAMCHAT_PORT": str(port)}, "vram", "serve", "--host", "127.0.0.1"
    )
    async with aiohttp.ClientSession(trust_env=False) as http:

        async def answers() -> bool:
            try:
                async with http.get(f"{base}/v1/ask", params={"q": QUESTION}) as resp:
                    return resp.status == 200
            except aiohttp.ClientError:
                return False

        await wait_until(answers, 30, "the desk answers")
        timings["web"] = time.monotonic() - started
        ok(f"first answer {timings['web']:.2f} s after podman run")
        await started_from_cache(podman, desk, "web")
        async with http.get(f"{base}/healthz") as resp:
            body = await resp.json()
            expect(resp.status == 200 and body["status"] == "ok", f"/healthz: {body}")
        params = {"q": QUESTION, "format": "json"}
        async with http.get(f"{base}/v1/ask", params=params) as resp:
            inside = await resp.json()
        expect(inside == expected, "/v1/ask?format=json equals `vram ask --format json` outside")
        async with http.get(f"{base}/") as resp:
            page = await resp.text()
            expect(
                resp.status == 200 and resp.content_type == "text/html" and "<form" in page,
                "the staff page loads",
            )
        for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page):
            async with http.get(f"{base}{asset}") as resp:
                expect(resp.status == 200, f"the page's {asset} loads")
    await hardened(podman, desk, "web")
    rc, out, err = await podman("healthcheck", "run", desk)
    expect(rc == 0, f"web: the image's HEALTHCHECK passes ({(out + err).strip() or 'healthy'})")
    # Freeze the desk: the port still accepts connections, but nothing answers.
    _, pid, _ = await podman("inspect", "--format", "{{.State.Pid}}", desk)
    os.kill(int(pid), signal.SIGSTOP)
    try:
        expect(not await healthy(podman, desk, "web"), "web: unhealthy while the desk is frozen")
    finally:
        os.kill(int(pid), signal.SIGCONT)
    expect(await healthy(podman, desk, "web"), "web: healthy again once it answers")
    await stops_on_sigterm(podman, desk, "web")
    rc, _, _ = await podman("run", "--rm", "--network=host", "-e", f"VRAMCHAT_PORT={port}",
                            podman.image, "vram", "healthcheck", "web")  # fmt: skip
    expect(rc == 1, "web: unhealthy when no desk runs")


# --------------------------------------------------------------------------- the bots


def telegram_env(fake: FakeTelegram) -> dict[str, str]:
    return {"TELEGRAM_TOKEN": fake.token, "TELEGRAM_BASE_URL": fake.base_url}


def discord_env(fake: FakeDiscord) -> dict[str, str]:
    return {
        "DISCORD_TOKEN": DISCORD_TOKEN,
        "DISCORD_API_BASE_URL": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DISCORD_GUILD_ID": fake.guild_id,
    }


async def test_telegram(podman: Podman, fake: FakeTelegram, timings: dict[str, float]) -> None:
    print("telegram bot (vram telegram)", flush=True)
    catalog = load_catalog()
    want = parse_telegram_html(format_html(ask(QUESTION, locale="en", catalog=catalog), catalog))
    started = time.monotonic()
    # an env file copied from .env.example blanks VRAMCHAT_CACHE_DIR: ~/.cache/vramchat is it
    env = {**telegram_env(fake), "VRAMCHAT_CACHE_DIR": ""}
    bot = await podman.start("telegram", env, "vram", "telegram")
    await fake.wait_for(lambda: len(fake.commands) == 3, timeout=60)
    fake.push_update(fake.message_update(QUESTION))
    await fake.wait_for(lambda: len(fake.sent_messages) == 1, timeout=30)
    timings["telegram"] = time.monotonic() - started
    ok(f"first answer {timings['telegram']:.2f} s after podman run")
    await started_from_cache(podman, bot, "telegram (VRAMCHAT_CACHE_DIR blank: ~/.cache)")
    got = parse_telegram_html(fake.sent_messages[0]["text"])
    expect(got == want, "a DM is answered with the same text as the engine outside")
    await wait_until(lambda: healthy(podman, bot, "telegram"), 30, "telegram healthy")
    ok("telegram: healthcheck healthy while the Bot API answers")
    await hardened(podman, bot, "telegram")
    await stops_on_sigterm(podman, bot, "telegram")
    logs = await podman.logs(bot)
    expect(fake.token.split(":")[1] not in logs, "telegram: the token is not in the log")


async def test_discord(podman: Podman, fake: FakeDiscord, timings: dict[str, float]) -> None:
    print("discord bot (vram discord --sync)", flush=True)
    expected = json.loads(await vram_outside("ask", "--format", "json", QUESTION))
    rec = expected["recommendation"]
    started = time.monotonic()
    bot = await podman.start("discord", discord_env(fake), "vram", "discord", "--sync")
    await fake.wait_ready(timeout=60)
    await fake.wait_for(lambda: fake.command_syncs, timeout=60)
    payload = fake.slash_interaction("vram", [fake.option("query", QUESTION)])
    await fake.dispatch("INTERACTION_CREATE", payload)
    response = await fake.wait_for(lambda: fake.response_for(payload), timeout=30)
    timings["discord"] = time.monotonic() - started
    ok(f"first answer {timings['discord']:.2f} s after podman run")
    await started_from_cache(podman, bot, "discord")
    embed = response.json["data"]["embeds"][0]
    fields = embed.get("fields", [])
    text = "\n".join(
        [embed.get("title") or "", embed.get("description") or ""]
        + [f"{f['name']}\n{f['value']}" for f in fields]
    )
    # The short form leads with the verdict: the card, the count and the monthly price.
    usd = f"${rec['monthly_usd']:,.0f}"
    pick = f"{rec['count']}× {escape(rec['card'])}"
    expect(
        pick in embed.get("title", "") and usd in text,
        f"slash command answered with the same card and price: {pick}, {usd}",
    )
    await wait_until(lambda: healthy(podman, bot, "discord"), 30, "discord healthy")
    ok("discord: healthcheck healthy while the gateway acknowledges heartbeats")
    await hardened(podman, bot, "discord")
    await stops_on_sigterm(podman, bot, "discord")


async def test_cut_off(podman: Podman, tg: FakeTelegram, dc: FakeDiscord) -> None:
    """Healthy bots whose platform goes away turn unhealthy, and still stop on SIGTERM."""
    print("both bots cut off from their platform", flush=True)
    bots = {
        "telegram": await podman.start("telegram-2", telegram_env(tg), "vram", "telegram"),
        "discord": await podman.start("discord-2", discord_env(dc), "vram", "discord"),
    }
    for service, container in bots.items():
        await wait_until(lambda c=container, s=service: healthy(podman, c, s), 60, "healthy")
        ok(f"{service}: healthy")
    await tg.close()
    await dc.__aexit__(None, None, None)
    start = time.monotonic()
    for service, container in bots.items():

        async def down(c: str = container, s: str = service) -> bool:
            return not await healthy(podman, c, s)

        await wait_until(down, MAX_AGE_S + 15, f"{service} unhealthy")
        ok(f"{service}: unhealthy {time.monotonic() - start:.1f} s after its platform stopped")
    await stops_on_sigterm(podman, bots["discord"], "discord (cut off)")
    # python-telegram-bot sleeps out its network-retry backoff (growing to 30 s) before its
    # updater stops, and that sleep does not wake on SIGTERM: a bot cut off for a while can
    # outlast `stop -t 10` and be killed. Nothing is lost then (it fetched nothing), so this
    # is only reported; a connected bot must stop in time (checked above).
    elapsed, code = await podman.stop_timed(bots["telegram"])
    expect(code in (0, 137), f"telegram (cut off): stopped in {elapsed:.1f} s, exit code {code}")
    if code == 137:
        print("  note telegram (cut off): killed after the SIGTERM grace period", flush=True)
    elif elapsed >= STOP_WITHIN_S - 1:
        print("  note telegram (cut off): needed about the whole grace period", flush=True)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--image", required=True)
    parser.add_argument("--podman", default="podman")
    args = parser.parse_args()
    podman = Podman(args.podman, args.image)
    timings: dict[str, float] = {}
    tg = FakeTelegram(token=f"123456:{secrets.token_urlsafe(30)}")
    dc = FakeDiscord(token=DISCORD_TOKEN)
    await tg.start()
    await dc.__aenter__()
    try:
        rc, uid, _ = await podman("run", "--rm", args.image, "id", "-u")
        expect(rc == 0 and uid.strip() != "0", f"the image's user is uid {uid.strip()}, not root")
        await test_compiled_engine(podman)
        await test_prebuilt_cache(podman)
        await test_desk(podman, timings)
        await test_telegram(podman, tg, timings)
        await test_discord(podman, dc, timings)
        await test_cut_off(podman, tg, dc)
    except (Failed, AssertionError, TimeoutError) as exc:
        for name in podman.started:
            print(f"--- last log lines of {name}", file=sys.stderr)
            print("\n".join((await podman.logs(name)).splitlines()[-30:]), file=sys.stderr)
        print(f"FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)  # last, where it is seen
        return 1
    finally:
        await podman.cleanup()
        await tg.close()
        await dc.__aexit__(None, None, None)
    summary = ", ".join(f"{k} {v:.2f} s" for k, v in timings.items())
    print(f"container start to first answer: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

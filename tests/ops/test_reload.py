"""Price updates on a running service: a valid change is picked up, a broken file is refused
with its name and the old numbers keep serving; SIGHUP and POST /v1/reload both do it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.desk import Desk
from bot.settings import Settings
from bot.web.app import create_app, install_sighup
from engine import Answer, load_catalog
from engine.catalog import DEFAULT_DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "70b int4 128k"
TOKEN = "reload-token-0123456789"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A private copy of data/ to edit."""
    return Path(shutil.copytree(DEFAULT_DATA_DIR, tmp_path / "data"))


def set_a100_price(data: Path, monthly_usd: int, as_of: str = "2026-10-01") -> None:
    cards = data / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    head, tail = text.split("  - name: A100 SXM\n", 1)
    assert "    monthly_usd: 990\n" in tail
    tail = tail.replace("    monthly_usd: 990\n", f"    monthly_usd: {monthly_usd}\n", 1)
    head = head.replace('prices_as_of: "2026-09-01"', f'prices_as_of: "{as_of}"', 1)
    cards.write_text(head + "  - name: A100 SXM\n" + tail, encoding="utf-8")


def break_cards(data: Path) -> None:
    cards = data / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    assert "    monthly_usd: " in text
    cards.write_text(text.replace("    monthly_usd: ", "    monthly_usd: -", 1), encoding="utf-8")


async def price(desk: Desk) -> tuple[str, float, str | None]:
    answer = await desk.answer(QUESTION, platform="test", remember=False)
    assert isinstance(answer, Answer) and answer.recommendation is not None
    return answer.recommendation.card, answer.recommendation.monthly_usd, answer.prices_as_of


async def test_valid_price_change_is_picked_up(data_dir: Path):
    desk = Desk(load_catalog(data_dir))
    assert await price(desk) == ("A100 SXM", 990, "2026-09-01")
    set_a100_price(data_dir, 940)
    assert desk.reload() is None
    assert await price(desk) == ("A100 SXM", 940, "2026-10-01")


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (break_cards, "cards.yaml"),
        (lambda d: (d / "cards.yaml").write_text("cards: [\n", encoding="utf-8"), "cards.yaml"),
        (lambda d: (d / "models.yaml").unlink(), "models.yaml"),
        (
            lambda d: (d / "messages" / "pl.yaml").write_text(
                "- not a mapping\n", encoding="utf-8"
            ),
            "pl.yaml",
        ),
    ],
)
async def test_broken_file_is_refused_and_old_numbers_serve(
    data_dir: Path, damage: Any, named: str, caplog: pytest.LogCaptureFixture
):
    desk = Desk(load_catalog(data_dir))
    set_a100_price(data_dir, 940)
    assert desk.reload() is None
    damage(data_dir)
    problem = desk.reload()
    assert problem is not None and named in problem
    assert await price(desk) == ("A100 SXM", 940, "2026-10-01")
    assert any(named in r.getMessage() and "old data" in r.getMessage() for r in caplog.records)


@pytest.fixture
async def client(data_dir: Path) -> AsyncIterator[TestClient[Any, Any]]:
    settings = Settings(_env_file=None, vramchat_api_token=SecretStr(TOKEN))
    desk = Desk(load_catalog(data_dir))
    async with TestClient(TestServer(create_app(desk, settings), host="127.0.0.1")) as c:
        yield c


async def test_reload_over_http(client: TestClient[Any, Any], data_dir: Path):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    ask = {"q": QUESTION, "format": "json"}
    set_a100_price(data_dir, 940)
    resp = await client.post("/v1/reload", headers=auth)
    assert resp.status == 200
    assert (await resp.json())["prices_as_of"] == "2026-10-01"
    body = await (await client.get("/v1/ask", params=ask, headers=auth)).json()
    assert body["recommendation"]["monthly_usd"] == 940

    break_cards(data_dir)
    resp = await client.post("/v1/reload", headers=auth)
    assert resp.status == 409
    error = (await resp.json())["error"]
    assert error["code"] == "reload_refused"
    assert "cards.yaml" in error["message"] and "old data keeps serving" in error["message"]
    body = await (await client.get("/v1/ask", params=ask, headers=auth)).json()
    assert body["recommendation"]["monthly_usd"] == 940
    health = await (await client.get("/healthz")).json()
    assert health["prices_as_of"] == "2026-10-01"


async def wait_for(check: Any, timeout_s: float = 10.0) -> None:
    import asyncio

    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_sighup_handler_reloads_in_process(data_dir: Path):
    desk = Desk(load_catalog(data_dir))
    uninstall = install_sighup(desk)
    try:
        set_a100_price(data_dir, 940)
        os.kill(os.getpid(), signal.SIGHUP)
        await wait_for(lambda: desk.catalog.prices_as_of == "2026-10-01")
        assert await price(desk) == ("A100 SXM", 940, "2026-10-01")
        old = desk.catalog
        break_cards(data_dir)
        os.kill(os.getpid(), signal.SIGHUP)
        from bot import metrics

        refused = metrics.REGISTRY.get_sample_value(
            "vramchat_reloads_total", {"outcome": "refused"}
        )
        await wait_for(
            lambda: (
                (
                    metrics.REGISTRY.get_sample_value(
                        "vramchat_reloads_total", {"outcome": "refused"}
                    )
                    or 0
                )
                > (refused or 0)
            )
        )
        assert desk.catalog is old
    finally:
        uninstall()


# --------------------------------------------------------------------------- the real process


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(url: str) -> Any:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=5) as resp:
        return json.loads(resp.read())


def wait_http(url: str, proc: subprocess.Popen[str], timeout_s: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return get_json(url)
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def serve_env(data: Path, port: int) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VRAMCHAT_", "TELEGRAM_", "DISCORD_"))
    }
    env.update(
        PYTHONPATH=str(ROOT),
        VRAMCHAT_DATA_DIR=str(data),
        VRAMCHAT_HOST="127.0.0.1",
        VRAMCHAT_PORT=str(port),
        VRAMCHAT_LOG_FORMAT="json",
    )
    return env


RUN = "import sys; from bot.settings import load_settings; from bot.web.app import run; sys.exit(run(load_settings()))"


def test_run_reloads_on_sighup_and_stops_on_sigterm(data_dir: Path, tmp_path: Path):
    """``bot.web.app.run`` as `vram serve` runs it: SIGHUP reloads, a broken file is refused."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN],
        env=serve_env(data_dir, port),
        cwd=tmp_path,  # no stray .env
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        health = f"http://127.0.0.1:{port}/healthz"
        ask = f"http://127.0.0.1:{port}/v1/ask?q=70b+int4+128k"
        assert wait_http(health, proc)["prices_as_of"] == "2026-09-01"

        set_a100_price(data_dir, 940)
        proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while get_json(health)["prices_as_of"] != "2026-10-01":
            assert time.monotonic() < deadline, "SIGHUP did not reload"
            time.sleep(0.05)
        assert get_json(ask)["recommendation"]["monthly_usd"] == 940

        break_cards(data_dir)
        proc.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        assert proc.poll() is None, "a broken file must not stop the server"
        assert get_json(ask)["recommendation"]["monthly_usd"] == 940
        assert get_json(health)["prices_as_of"] == "2026-10-01"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]
    refused = [x for x in lines if "refused" in x["message"]]
    assert refused and "cards.yaml" in refused[0]["message"]
    assert any(x.get("platform") == "web" and x.get("kind") == "sizing" for x in lines)


def test_run_refuses_to_start_on_broken_data(data_dir: Path, tmp_path: Path):
    break_cards(data_dir)
    proc = subprocess.run(
        [sys.executable, "-c", RUN],
        env=serve_env(data_dir, free_port()),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "cards.yaml" in proc.stderr and "Traceback" not in proc.stderr

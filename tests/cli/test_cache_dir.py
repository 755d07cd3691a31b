"""Where the validated catalog is cached, for `vram` and the services, and that the test run
itself never writes into the real user's cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import engine.catalog
from bot import lifecycle
from bot.desk import Desk
from bot.paths import cache_dir
from bot.settings import Settings
from engine import ask, load_catalog
from engine.catalog import DEFAULT_DATA_DIR

QUESTION = "70b int4 128k"


def vram(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )


def pickles(folder: Path) -> list[Path]:
    return sorted(folder.glob("catalog-*.pickle"))


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, d)
    return d


def test_the_order_flag_then_variable_then_xdg_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("VRAMCHAT_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert cache_dir() == tmp_path / "home" / ".cache" / "vramchat"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec: ignored
    assert cache_dir() == tmp_path / "home" / ".cache" / "vramchat"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "vramchat"
    monkeypatch.setenv("VRAMCHAT_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    assert cache_dir(tmp_path / "flag") == tmp_path / "flag"
    monkeypatch.setenv("VRAMCHAT_CACHE_DIR", "off")
    assert cache_dir() is None
    assert cache_dir(tmp_path / "flag") == tmp_path / "flag"


def test_the_suite_caches_in_a_temporary_folder_not_the_users_home() -> None:
    temp = Path(tempfile.gettempdir()).resolve()
    for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME"):
        folder = Path(os.environ[name]).resolve()
        assert folder.is_relative_to(temp), (name, folder)
        assert not folder.is_relative_to(Path.home().resolve() / ".cache"), (name, folder)
    assert "VRAMCHAT_CACHE_DIR" not in os.environ


def test_vram_ask_writes_its_cache_under_xdg_cache_home(data: Path, tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    env = {"XDG_CACHE_HOME": str(xdg), "VRAMCHAT_DATA_DIR": str(data)}
    first = vram("ask", "--format", "json", QUESTION, env=env)
    assert first.returncode == 0, first.stderr
    (written,) = pickles(xdg / "vramchat")
    before = written.stat().st_mtime_ns
    again = vram("ask", "--format", "json", QUESTION, env=env)  # a hit: nothing rewritten
    assert again.stdout == first.stdout
    assert pickles(xdg / "vramchat") == [written] and written.stat().st_mtime_ns == before
    off = vram("ask", "--format", "json", QUESTION, env={**env, "VRAMCHAT_CACHE_DIR": "off"})
    assert json.loads(off.stdout) == json.loads(first.stdout)


def test_cache_build_writes_every_price_book(data: Path, tmp_path: Path) -> None:
    out = vram("--data-dir", str(data), "cache-build", "--cache-dir", str(tmp_path / "c"))
    assert out.returncode == 0, out.stderr
    books = {"monthly", *load_catalog(data).price_books}
    assert len(pickles(tmp_path / "c")) == len(books) >= 2
    assert "cache ok" in out.stdout


def test_cache_build_fails_when_it_cannot_write(data: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", "utf-8")
    out = vram("--data-dir", str(data), "cache-build", "--cache-dir", str(blocker / "c"))
    assert out.returncode == 1 and "cannot write the catalog cache" in out.stderr
    assert vram("cache-build", "--no-cache").returncode == 1


def test_a_read_only_cache_is_read_and_a_stale_one_rebuilt_in_memory(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    fresh = load_catalog(data, cache_dir=cache)
    (built,) = pickles(cache)

    def refused(*args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", refused)  # every write now fails, as in the image
    monkeypatch.setattr(engine.catalog, "_load", lambda *a: pytest.fail("parsed the YAML"))
    hit = load_catalog(data, cache_dir=cache)
    assert ask(QUESTION, catalog=hit).to_json() == ask(QUESTION, catalog=fresh).to_json()
    monkeypatch.undo()
    monkeypatch.setattr(tempfile, "mkstemp", refused)
    cards = data / "cards.yaml"
    cards.write_text(cards.read_text("utf-8").replace("990", "991", 1), "utf-8")
    stale = load_catalog(data, cache_dir=cache)  # rebuilt, the write fails quietly
    assert pickles(cache) == [built]
    assert stale.cards != fresh.cards


def test_the_services_boot_from_the_cache(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "svc-cache"
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, vramchat_data_dir=data, vramchat_cache_dir=str(cache)
    )
    first = lifecycle.boot(settings, "vram serve")
    assert isinstance(first, Desk)
    (written,) = pickles(cache)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine.catalog, "_load", lambda *a: pytest.fail("parsed the YAML"))
        second = lifecycle.boot(settings, "vram serve")
    assert isinstance(second, Desk) and pickles(cache) == [written]
    assert second.catalog.cards == first.catalog.cards
    off = Settings(_env_file=None, vramchat_data_dir=data, vramchat_cache_dir="off")  # type: ignore[call-arg]
    assert isinstance(lifecycle.boot(off, "vram serve"), Desk)
    assert pickles(cache) == [written]

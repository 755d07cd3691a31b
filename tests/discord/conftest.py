"""Fixtures: a fake Discord on loopback (discord.py patched to it) and the catalog."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import pytest
from dc_support import TOKEN

from engine import Catalog, load_catalog
from tests.fakes.discord_api import FakeDiscord


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """``main()`` configures the root logger; put it back so tests do not leak handlers."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        if h not in handlers:
            root.removeHandler(h)
            h.close()
    root.setLevel(level)


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(token=TOKEN) as server:
        server.patch(monkeypatch)
        yield server

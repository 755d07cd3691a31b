"""Suite-wide setup: loopback must bypass proxies, PTB's RetryAfter must not warn, nothing
is written to the real user's cache or state folders, and each test starts with the logging
setup it found."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ["NO_PROXY"] = "127.0.0.1,localhost"
os.environ["no_proxy"] = "127.0.0.1,localhost"
# PTB 22 warns when RetryAfter carries an int; with filterwarnings=error that would turn
# a 429 retry into an exception, so opt in to the timedelta form the library moves to.
os.environ["PTB_TIMEDELTA"] = "1"

# The catalog cache (`vram ask`, the bots, the desk) and `vram chat`'s history go to one
# temporary folder for the whole run, set here (before any test or subprocess starts) so
# every child process inherits it; an operator's VRAMCHAT_CACHE_DIR is ignored.
SESSION_HOME = Path(tempfile.mkdtemp(prefix="vramchat-tests-"))
os.environ["XDG_CACHE_HOME"] = str(SESSION_HOME / "cache")
os.environ["XDG_STATE_HOME"] = str(SESSION_HOME / "state")
os.environ.pop("VRAMCHAT_CACHE_DIR", None)


@pytest.fixture(autouse=True, scope="session")
def _session_home() -> Iterator[Path]:
    """The temporary cache and state folders, removed when the run ends."""
    yield SESSION_HOME
    shutil.rmtree(SESSION_HOME, ignore_errors=True)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """Adapters' main() installs log handlers; keep one test's setup out of the next."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    filters = list(root.filters)
    yield
    for h in list(root.handlers):
        if h not in handlers:
            root.removeHandler(h)
    root.setLevel(level)
    root.filters[:] = filters

"""Suite-wide setup: loopback must bypass proxies, PTB's RetryAfter must not warn, and each
test starts with the logging setup it found."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest

os.environ["NO_PROXY"] = "127.0.0.1,localhost"
os.environ["no_proxy"] = "127.0.0.1,localhost"
# PTB 22 warns when RetryAfter carries an int; with filterwarnings=error that would turn
# a 429 retry into an exception, so opt in to the timedelta form the library moves to.
os.environ["PTB_TIMEDELTA"] = "1"


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

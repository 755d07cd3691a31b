"""Suite-wide setup: loopback must bypass proxies, and PTB's RetryAfter must not warn."""

from __future__ import annotations

import os

os.environ["NO_PROXY"] = "127.0.0.1,localhost"
os.environ["no_proxy"] = "127.0.0.1,localhost"
# PTB 22 warns when RetryAfter carries an int; with filterwarnings=error that would turn
# a 429 retry into an exception, so opt in to the timedelta form the library moves to.
os.environ["PTB_TIMEDELTA"] = "1"

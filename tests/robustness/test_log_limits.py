"""Logging under hostile sizes: a megabyte line is masked and cut in one linear pass, and the
CLI's console handler does not write each line a second time.

The big-input cases run in a child process with a watchdog (the old quadratic masking took
minutes for a megabyte): the assertion is that they complete and what they print, never how
fast. Figures are in docs/RELIABILITY.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WATCHDOG_S = 120  # generous: a hang guard for the child, not a speed claim

TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"
API = "api-token-Qq7Rr8-long-enough"

CHILD = r"""
import io, json, logging, sys
from pydantic import SecretStr
from bot.logs import MAX_MESSAGE, setup_logging
from bot.settings import Settings

TOKEN, API, FMT = sys.argv[1], sys.argv[2], sys.argv[3]
buf = io.StringIO()
setup_logging(Settings(_env_file=None, telegram_token=SecretStr(TOKEN),
                       vramchat_api_token=SecretStr(API), vramchat_log_format=FMT), stream=buf)
log = logging.getLogger("vramchat.web")
mb = 1_000_000
# a request line: one long word, then URL-ish noise that used to backtrack, secrets inside
line = "GET /v1/ask?q=" + "a" * (mb // 2) + "redis://u:" + API + " " + "x://y:" * (mb // 12)
line += " Bearer " + API + " https://api.telegram.org/bot" + TOKEN + "/sendMessage"
log.warning("request line: %s", line)
log.info("message %s", "a" * mb + TOKEN)
log.info("extra", extra={"question": "b" * mb + API})
try:
    raise ValueError("c" * mb + TOKEN)
except ValueError:
    log.exception("crash")
out = buf.getvalue()
print(json.dumps({"out": out, "max": MAX_MESSAGE}))
"""


def run_child(fmt: str) -> tuple[str, int]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, TOKEN, API, fmt],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WATCHDOG_S,
        check=True,
    )
    result = json.loads(proc.stdout)
    return result["out"], result["max"]


def test_megabyte_lines_are_masked_and_cut_text() -> None:
    out, limit = run_child("text")
    assert TOKEN not in out and API not in out
    assert TOKEN.split(":")[1] not in out
    assert "characters cut]" in out
    # four records; the traceback is bounded too (a few lines plus its own cut note)
    assert out.count(" vramchat.web: ") == 4
    assert len(out) < 4 * limit + 3 * 32768 + 4096


def test_megabyte_lines_are_masked_and_cut_json() -> None:
    out, limit = run_child("json")
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == 4  # one JSON object per record, each still parseable
    for line in lines:
        assert len(line["message"]) <= limit + 64
        assert TOKEN not in json.dumps(line) and API not in json.dumps(line)
    assert len(lines[2]["question"]) < 2048  # an extra field is bounded as well


def test_masking_before_the_cut_leaves_no_half_secret() -> None:
    """A known secret straddling the cut is masked whole, not cut into a visible prefix."""
    from bot.logs import MAX_MESSAGE, RedactingFilter

    f = RedactingFilter([API])
    import logging

    text = "x" * (MAX_MESSAGE - 5) + API + "tail"
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "%s", (text,), None)
    assert f.filter(record)
    message = record.getMessage()
    assert API[:5] not in message and "characters cut]" in message


BASIC = r"""
import logging, sys
from bot.logs import setup_logging
from bot.settings import Settings

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
setup_logging(Settings(_env_file=None))
logging.getLogger("vramchat.desk").info("one line please")
"""


def test_each_line_is_written_once_after_the_cli_console_setup() -> None:
    """``vram serve`` configures basicConfig, then setup_logging: the line must appear once."""
    proc = subprocess.run(
        [sys.executable, "-c", BASIC],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WATCHDOG_S,
        check=True,
    )
    assert proc.stderr.count("one line please") == 1, proc.stderr

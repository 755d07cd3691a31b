"""``vram chat`` in a real terminal (tmux): type a question, recall it with the up arrow.

Skips only when tmux is not installed (CI installs it: see .ci/run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux not installed (apt-get install tmux)")
WAIT_S = 30.0  # an upper bound for a slow machine, not a speed check


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    assert TMUX is not None
    name = f"vramchat-{uuid.uuid4().hex[:8]}"
    state = tmp_path / "state"
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(state),
        "NO_COLOR": "1",
        "TERM": "xterm-256color",
        "TMUX": "",
    }
    cmd = f"{sys.executable} -m bot.cli chat"
    subprocess.run(
        [TMUX, "-L", name, "new-session", "-d", "-s", name, "-x", "80", "-y", "40", cmd],
        check=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        yield name, state
    finally:
        subprocess.run([TMUX, "-L", name, "kill-server"], check=False, capture_output=True)


def screen(name: str) -> str:
    assert TMUX is not None
    out = subprocess.run(
        [TMUX, "-L", name, "capture-pane", "-p", "-t", name],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout


def keys(name: str, *args: str) -> None:
    assert TMUX is not None
    subprocess.run([TMUX, "-L", name, "send-keys", "-t", name, *args], check=True)


def wait_for(name: str, ok: Callable[[str], bool]) -> str:
    deadline = time.monotonic() + WAIT_S
    text = screen(name)
    while not ok(text):
        if time.monotonic() > deadline:
            pytest.fail(f"the terminal never showed what we waited for:\n{text}")
        time.sleep(0.1)
        text = screen(name)
    return text


def test_up_arrow_recalls_the_last_question(session: tuple[str, Path]) -> None:
    name, state = session
    wait_for(name, lambda s: "Ctrl-D" in s and s.rstrip().endswith(">"))
    keys(name, "-l", "70b int4 128k")
    keys(name, "Enter")
    text = wait_for(name, lambda s: "A100 SXM" in s and s.rstrip().endswith(">"))
    assert "✅ 1× A100 SXM · $990/mo" in text
    assert "^[[A" not in text
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)  # wrapped to the terminal, at word breaks
    keys(name, "Up")
    text = wait_for(name, lambda s: s.rstrip().splitlines()[-1] == "> 70b int4 128k")
    assert "^[[A" not in text
    # edit the recalled line: delete the last word, type another
    keys(name, "BSpace", "BSpace", "BSpace", "BSpace")
    keys(name, "-l", "32k")
    keys(name, "Enter")
    wait_for(name, lambda s: "32k context" in s and s.rstrip().endswith(">"))
    keys(name, "C-d")
    history = state / "vramchat" / "history"
    deadline = time.monotonic() + WAIT_S
    while not history.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    saved = history.read_text(encoding="utf-8")
    assert "70b int4 128k" in saved and "70b int4 32k" in saved


def test_unwritable_history_never_breaks_the_chat(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x", encoding="utf-8")
    env = {**os.environ, "XDG_STATE_HOME": str(blocked)}
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "chat"],
        input="70b int4\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert out.returncode == 0 and "A40" in out.stdout and out.stderr == ""


def test_history_file_problems_are_swallowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.terminal import history_path
    from bot.terminal import setup_readline as _setup_readline

    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    assert history_path() == blocked / "vramchat" / "history"
    save = _setup_readline()  # reading fails quietly
    save()  # and so does writing under a file
    assert blocked.read_text(encoding="utf-8") == "x"

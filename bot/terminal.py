"""What a terminal gets from ``vram``: wrapping at word boundaries, colour (never with
NO_COLOR or into a pipe), and line editing with a history file for ``vram chat``."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

HISTORY_LINES = 1000

_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"
_GREEN, _RED, _YELLOW = "\033[32m", "\033[31m", "\033[33m"


def use_colour(stream: object = None) -> bool:
    """Colour only for a terminal, never when NO_COLOR is set (https://no-color.org)."""
    stream = stream if stream is not None else sys.stdout
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def colourise(text: str) -> str:
    """The verdict line bold (green for ✅, red for ❌), caveats yellow, the price date dim."""
    out = []
    for i, line in enumerate(text.split("\n")):
        if i == 0:
            colour = _GREEN if line.startswith("✅") else _RED if line.startswith("❌") else ""
            out.append(f"{_BOLD}{colour}{line}{_RESET}")
        elif line.lstrip().startswith("⚠️"):
            out.append(f"{_YELLOW}{line}{_RESET}")
        elif line and not line.startswith(" ") and i > 0 and out and out[-1] == "":
            out.append(f"{_BOLD}{line}{_RESET}")  # a block title after a blank line
        else:
            out.append(line)
    if out and re.match(r"^\S.*\d{4}-\d{2}-\d{2}", text.rsplit("\n", 1)[-1]):
        out[-1] = f"{_DIM}{out[-1]}{_RESET}"
    return "\n".join(out)


def wrap(text: str, width: int) -> str:
    """Wrap at word boundaries to ``width``; continuation lines keep the line's indent."""
    import textwrap

    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width or not line.strip():
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out.extend(
            textwrap.wrap(
                line,
                width=max(20, width),
                subsequent_indent=indent + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def present(text: str, fmt: str, stream: object = None) -> str:
    """What a terminal gets: wrapped to its width and coloured; pipes get the text as is."""
    if fmt != "text" or (not use_colour(stream) and not _isatty(stream)):
        return text
    import shutil

    text = wrap(text, shutil.get_terminal_size((100, 24)).columns - 1)
    return colourise(text) if use_colour(stream) else text


def _isatty(stream: object = None) -> bool:
    isatty = getattr(stream if stream is not None else sys.stdout, "isatty", None)
    return bool(isatty and isatty())


def history_path() -> Path:
    """$XDG_STATE_HOME/vramchat/history (default ~/.local/state): where shells keep theirs."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "vramchat" / "history"


def setup_readline() -> Callable[[], None]:
    """Line editing and history for ``vram chat``; returns the function that saves it.

    Any problem with the history file (unwritable home, read-only disk) only loses the
    history: the session itself never fails over it.
    """
    try:
        import readline
    except ImportError:  # a Python built without readline still chats, without editing
        return lambda: None
    path = history_path()
    readline.set_history_length(HISTORY_LINES)
    with contextlib.suppress(OSError):
        readline.read_history_file(str(path))

    def save() -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            readline.write_history_file(str(path))
        except OSError:
            pass

    return save

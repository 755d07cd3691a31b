"""Where vramchat keeps the validated-catalog cache, for the CLI and the services alike.

Only the standard library here: ``vram ask`` resolves the folder without loading the
settings stack. The engine writes nowhere by itself; this decides where it may.
"""

from __future__ import annotations

import os
from pathlib import Path

OFF = "off"  # VRAMCHAT_CACHE_DIR=off (or --no-cache): validate the data files on every start


def cache_dir(chosen: str | os.PathLike[str] | None = None) -> Path | None:
    """The cache folder, or None when caching is off.

    In order: ``chosen`` (``--cache-dir`` or the services' setting), VRAMCHAT_CACHE_DIR,
    ``$XDG_CACHE_HOME/vramchat`` (only an absolute path counts, as the XDG base directory
    spec says), ``~/.cache/vramchat``. A folder that cannot be written only costs speed.
    """
    value = os.fspath(chosen) if chosen else os.environ.get("VRAMCHAT_CACHE_DIR")
    if value:
        return None if value.strip().lower() == OFF else Path(value).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path(os.path.expanduser("~")) / ".cache"
    return base / "vramchat"

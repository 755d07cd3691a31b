"""Read the data files from disk: one YAML file, and the message tables assembled from their
parts. Every problem is a :class:`CatalogError` naming the file (and where in it).

yaml is imported on first use, so a start from a cached catalog never loads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.datafiles import check_messages
from engine.errors import CatalogError
from engine.models import LANGS


def read_yaml(path: Path, name: str | None = None) -> Any:
    """Parse one file; ``name`` is how errors call it (``messages/pl.yaml``)."""
    name = name or path.name
    if not path.exists():
        raise CatalogError(name, None, None, "file is missing")
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise CatalogError(name, None, None, f"cannot be read: {exc.strerror}") from exc
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = blob[: exc.start].count(b"\n") + 1
        raise CatalogError(
            name, None, None, f"not valid UTF-8 at line {line} (byte {exc.start})"
        ) from exc
    import yaml  # only when data is parsed: a cached catalog needs neither yaml nor pydantic

    # libyaml's loader is about 7x faster than the pure-Python one; both are the safe loader.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CatalogError(name, None, None, f"not valid YAML{where}") from exc


def load_messages(data_dir: Path) -> dict[str, dict[str, str]]:
    """``messages/<lang>.yaml`` plus any ``messages/<part>.<lang>.yaml`` (one per adapter)."""
    out: dict[str, dict[str, str]] = {}
    origin: dict[str, str] = {}
    folder = data_dir / "messages"
    parts = sorted({p.name.split(".")[0] for lang in LANGS for p in folder.glob(f"*.{lang}.yaml")})
    for lang in LANGS:
        table: dict[str, str] = {}
        for part in ("", *parts):
            path = folder / (f"{part}.{lang}.yaml" if part else f"{lang}.yaml")
            name = f"messages/{path.name}"
            raw = read_yaml(path, name)
            if not isinstance(raw, dict):
                raise CatalogError(name, None, None, "top level must be a mapping")
            for key, value in raw.items():
                if not isinstance(value, str):
                    raise CatalogError(name, str(key), None, "message must be a string")
                if str(key) in table:
                    raise CatalogError(name, str(key), None, "message is defined twice")
                table[str(key)] = value
                if lang == "en":
                    origin[str(key)] = part
        out[lang] = table
    check_messages(out, origin)
    return out

"""Validating one parsed data file with pydantic against the engine's types, every problem
turned into a :class:`CatalogError` naming the file, the entry and the field.

pydantic is imported on first use, so a process answering from a cached catalog never loads it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.errors import CatalogError
from engine.frozen import Frozen

M = TypeVar("M", bound=Frozen)


def _entry_label(raw: Any, loc: tuple[int | str, ...]) -> str | None:
    """Name the entry an error sits in by its ``name``/``id`` when the data has one."""
    node = raw
    label: str | None = None
    for i, part in enumerate(loc):
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(part, int) and isinstance(node, dict):
            ident = node.get("id") or node.get("name")
            label = f"{loc[i - 1]}[{part}]" + (f" ({ident})" if ident else "")
    return label


def _declared_count(raw: Any, file: str, key: str) -> Any:
    """Check and drop an ``expect_<key>: N`` declaration, so a file cut short is refused.

    A YAML file truncated at an entry boundary is still valid YAML with fewer entries; the
    count, written above the list, survives the cut and tells the two apart.
    """
    if not isinstance(raw, dict) or f"expect_{key}" not in raw:
        return raw
    raw = dict(raw)
    declared = raw.pop(f"expect_{key}")
    entries = raw.get(key)
    if not isinstance(declared, int) or isinstance(declared, bool) or declared < 0:
        raise CatalogError(file, None, f"expect_{key}", "must be a whole number of entries")
    if isinstance(entries, list) and len(entries) != declared:
        raise CatalogError(
            file,
            None,
            key,
            f"{len(entries)} entries but expect_{key} says {declared} "
            "(file cut short? fix the file or the count)",
        )
    return raw


def _validate(model: type[M], raw: Any, file: str) -> M:
    if not isinstance(raw, dict):
        raise CatalogError(file, None, None, "top level must be a mapping")
    from pydantic import ValidationError

    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        entry = _entry_label(raw, loc)
        fld = ".".join(str(p) for p in loc if not isinstance(p, int)) or None
        if err["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            problem = "unknown key (check the spelling)"
        elif err["type"] == "missing":
            problem = "required field is missing"
        else:
            problem = err["msg"]
        raise CatalogError(file, entry, fld, problem) from exc

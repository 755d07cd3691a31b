"""Checks on one data file at a time: schema validation with precise messages, declared entry
counts, and the message tables' completeness. pydantic is imported on first use, so a
process answering from a cached catalog never loads it.

Every problem is a :class:`CatalogError` naming the file, the entry and the field; the catalog
(``engine.catalog``) reads the files and adds the cross-file checks.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from engine.errors import CatalogError
from engine.frozen import Frozen
from engine.models import LANGS

_PLACEHOLDER = re.compile(r"\{(\w+)")

M = TypeVar("M", bound=Frozen)


def entry_label(raw: Any, loc: tuple[int | str, ...]) -> str | None:
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


def declared_count(raw: Any, file: str, key: str) -> Any:
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


def validate(model: type[M], raw: Any, file: str) -> M:
    if not isinstance(raw, dict):
        raise CatalogError(file, None, None, "top level must be a mapping")
    from pydantic import ValidationError

    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        entry = entry_label(raw, loc)
        fld = ".".join(str(p) for p in loc if not isinstance(p, int)) or None
        if err["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            problem = "unknown key (check the spelling)"
        elif err["type"] == "missing":
            problem = "required field is missing"
        else:
            problem = err["msg"]
        raise CatalogError(file, entry, fld, problem) from exc


def check_messages(messages: dict[str, dict[str, str]], origin: dict[str, str]) -> None:
    """Every message must exist in every language with the same placeholders.

    ``origin`` maps a key to the file part it lives in ("" for <lang>.yaml, "telegram" for
    telegram.<lang>.yaml), so a missing key is reported in the file that should hold it.
    """
    en = messages["en"]

    def where(lang: str, key: str) -> str:
        part = origin.get(key, "")
        return f"messages/{part + '.' if part else ''}{lang}.yaml"

    for lang in LANGS:
        table = messages[lang]
        for key, text in en.items():
            if key not in table:
                raise CatalogError(where(lang, key), key, None, "message is missing")
            if set(_PLACEHOLDER.findall(text)) != set(_PLACEHOLDER.findall(table[key])):
                raise CatalogError(where(lang, key), key, None, "placeholders differ from English")
        extra = set(table) - set(en)
        if extra:
            key = sorted(extra)[0]
            raise CatalogError(where(lang, key), key, None, "not in en")

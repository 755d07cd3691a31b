"""Reply text lookup. All wording lives in ``data/messages/{en,pl,th}.yaml``; code holds keys."""

from __future__ import annotations

from typing import Any

from engine.catalog import Catalog
from engine.models import LANGS, Lang


class _Params(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def t(catalog: Catalog, lang: str, key: str, **params: Any) -> str:
    """The message in ``lang`` (English if the key is unknown there), placeholders filled."""
    table = catalog.messages.get(lang) or catalog.messages["en"]
    text = table.get(key) or catalog.messages["en"].get(key) or key
    if "{" not in text:  # nothing to fill: format_map would return it unchanged
        return text
    return text.format_map(_Params(params))


def pick_lang(value: str | None) -> Lang | None:
    """Platform locales ('pl', 'pl-PL', 'th_TH', 'en-US') -> one of ours, or None."""
    if not value:
        return None
    head = value.replace("_", "-").split("-")[0].lower()
    for lang in LANGS:
        if head == lang:
            return lang
    return None

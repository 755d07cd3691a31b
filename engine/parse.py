"""The old import path of the parser: everything now lives in :mod:`engine.understand`.

Kept so adapters written against ``engine.parse`` keep working until they import ``engine``.
"""

from engine.understand import (
    MAX_QUERY_CHARS,
    STOP_WORDS,
    CardAsk,
    ModelMatch,
    Query,
    clean,
    detect_lang,
    match_faq,
    match_models,
    model_key,
    name_key,
    parse,
    size_matches,
)

__all__ = [
    "MAX_QUERY_CHARS",
    "STOP_WORDS",
    "CardAsk",
    "ModelMatch",
    "Query",
    "clean",
    "detect_lang",
    "match_faq",
    "match_models",
    "model_key",
    "name_key",
    "parse",
    "size_matches",
]

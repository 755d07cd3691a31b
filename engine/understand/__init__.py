"""Query understanding: free text -> :class:`Query` (what was asked, slot by slot).

normalise (what people paste) -> language -> patterns and catalog words (the slots) ->
model index and matching (the model name) -> pipeline (:func:`parse`, the order of it all).
"""

from engine.limits import MAX_QUERY_CHARS
from engine.understand.faq_match import match_faq
from engine.understand.language import detect_lang
from engine.understand.model_index import (
    CompletionKeys,
    ModelIndex,
    model_index,
    model_key,
    name_key,
    size_matches,
)
from engine.understand.model_match import match_models
from engine.understand.normalise import clean
from engine.understand.patterns import STOP_WORDS
from engine.understand.pipeline import parse
from engine.understand.query import CardAsk, ModelMatch, Query

__all__ = [
    "MAX_QUERY_CHARS",
    "STOP_WORDS",
    "CardAsk",
    "CompletionKeys",
    "ModelIndex",
    "ModelMatch",
    "Query",
    "clean",
    "detect_lang",
    "match_faq",
    "match_models",
    "model_index",
    "model_key",
    "name_key",
    "parse",
    "size_matches",
]

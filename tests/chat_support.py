"""A chat for engine tests: each message asked with the context the last answer left."""

from __future__ import annotations

from bot.store import context_from_json, context_to_json
from engine import Answer, Catalog, Context, ask, context_of


def chat(cat: Catalog, *texts: str, stored: bool = False) -> list[Answer]:
    """``stored``: the context goes through the JSON the bots keep between messages."""
    answers: list[Answer] = []
    prev: Context | None = None
    for text in texts:
        a = ask(text, catalog=cat, previous=prev)
        answers.append(a)
        prev = context_of(a) or prev
        if stored and prev is not None:  # as a bot keeps it between messages
            prev = context_from_json(context_to_json(prev))
    return answers

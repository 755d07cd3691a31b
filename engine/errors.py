"""The engine's exceptions.

    VramchatError                 base of everything the engine raises on purpose
    ├── CatalogError              a data file is missing, malformed or inconsistent;
    │                             the message names the file, the entry and the field
    └── QueryError                a question cannot be answered as asked; carries a
                                  message key so adapters can reply in the user's language

Anything else escaping the engine is a bug: adapters log it with a reference id.
"""

from __future__ import annotations


class VramchatError(Exception):
    """Base class so adapters can tell our errors from bugs."""


class CatalogError(VramchatError):
    """Raised at load time so a bad data file stops start-up with a precise reason."""

    def __init__(self, file: str, entry: str | None, field: str | None, problem: str) -> None:
        self.file = file
        self.entry = entry
        self.field = field
        self.problem = problem
        where = file
        if entry:
            where += f", entry {entry}"
        if field:
            where += f", field {field}"
        super().__init__(f"{where}: {problem}")


class QueryError(VramchatError):
    """Raised when a question is understood but cannot be answered (e.g. unknown card)."""

    def __init__(self, key: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(key)

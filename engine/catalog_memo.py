"""``@per_catalog``: a function of the catalog, computed once per catalog object.

Its own module so that it is compiled (deploy/native.py) while engine/catalog_cache.py, which
loads and writes the cache once per process, stays Python: the wrapper runs several times per
answer, and compiled it is a native call instead of an interpreted frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol, TypeVar


class HasMemo(Protocol):
    """A catalog, as far as this module needs one (engine.catalog imports this module)."""

    @property
    def memo(self) -> dict[str, Any]: ...


C = TypeVar("C", bound=HasMemo)
R = TypeVar("R")

# Every function marked @per_catalog, by name: engine/catalog_cache.py builds them all before
# a catalog is written, so the indexes travel in the cache file.
_BUILDERS: Final[dict[str, Callable[[Any], object]]] = {}


def per_catalog(fn: Callable[[C], R]) -> Callable[[C], R]:
    """Compute ``fn(catalog)`` once per catalog object and keep it in ``catalog.memo``.

    A catalog about to be written to the cache is built through every such function first,
    so the indexes travel in the cache file with the data they were built from. (A closure,
    not a class with ``__call__``: as Python a function is the cheaper call, and compiled
    mypyc makes the closure a native callable either way.)
    """
    name = f"{fn.__module__}.{fn.__qualname__}"

    def cached(catalog: C) -> R:
        memo = catalog.memo
        if name in memo:
            result: R = memo[name]
            return result
        value = memo[name] = fn(catalog)
        return value

    _BUILDERS[name] = cached
    return cached


def build_indexes(catalog: object) -> None:
    """Build every index marked @per_catalog for ``catalog`` (each once; kept in its memo)."""
    for index in _BUILDERS.values():
        index(catalog)

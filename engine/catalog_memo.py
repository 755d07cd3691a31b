"""``@per_catalog``: a function of the catalog, computed once per catalog object.

Its own module so that it is compiled (deploy/native.py) while engine/catalog_cache.py, which
loads and writes the cache once per process, stays Python: the wrapper runs several times per
answer, and compiled it is a native call instead of an interpreted frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Generic, Protocol, TypeVar


class HasMemo(Protocol):
    """A catalog, as far as this module needs one (engine.catalog imports this module)."""

    @property
    def memo(self) -> dict[str, Any]: ...


C = TypeVar("C", bound=HasMemo)
R = TypeVar("R")

# Every function marked @per_catalog, by name: engine/catalog_cache.py builds them all before
# a catalog is written, so the indexes travel in the cache file.
_BUILDERS: Final[dict[str, Callable[[Any], object]]] = {}


class PerCatalog(Generic[C, R]):
    """``fn(catalog)``, kept in ``catalog.memo`` under the function's full name."""

    def __init__(self, fn: Callable[[C], R]) -> None:
        self.fn = fn
        self.name = f"{fn.__module__}.{fn.__qualname__}"

    def __call__(self, catalog: C) -> R:
        memo = catalog.memo
        name = self.name
        if name in memo:
            result: R = memo[name]
            return result
        value = memo[name] = self.fn(catalog)
        return value


def per_catalog(fn: Callable[[C], R]) -> PerCatalog[C, R]:
    """Compute ``fn(catalog)`` once per catalog object and keep it in ``catalog.memo``.

    A catalog about to be written to the cache is built through every such function first,
    so the indexes travel in the cache file with the data they were built from.
    """
    index = PerCatalog(fn)
    _BUILDERS[index.name] = index
    return index


def build_indexes(catalog: object) -> None:
    """Build every index marked @per_catalog for ``catalog`` (each once; kept in its memo)."""
    for index in _BUILDERS.values():
        index(catalog)

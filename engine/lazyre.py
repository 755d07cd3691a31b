"""Patterns compiled on first use, so a process that answers one question (``vram ask``)
compiles only the patterns that question reaches.

Compiling every slot and catalog pattern took about 15 ms of a 100 ms ``vram ask``, and most
of them never run for a given question (cheap gates skip them). A :func:`lazy` pattern's
first method call compiles it and stores the compiled pattern's bound methods on the
instance, where they shadow the class's methods: later calls cost what a compiled pattern's
do. No ``__getattr__`` on purpose: it would slow every attribute read of the object.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, cast

__all__ = ["compile_all", "lazy"]

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")
_MADE: list[_Lazy] = []  # every lazy pattern, for a long-running process to compile at start


class _Lazy:
    """Stands in for ``re.compile(pattern, flags)`` until one of its methods is first used."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags
        _MADE.append(self)

    def _compiled(self) -> re.Pattern[str]:
        compiled = re.compile(self.pattern, self.flags)
        for name in _METHODS:
            setattr(self, name, getattr(compiled, name))
        return compiled

    def search(self, *args: Any) -> re.Match[str] | None:
        return self._compiled().search(*args)

    def match(self, *args: Any) -> re.Match[str] | None:
        return self._compiled().match(*args)

    def fullmatch(self, *args: Any) -> re.Match[str] | None:
        return self._compiled().fullmatch(*args)

    def finditer(self, *args: Any) -> Iterator[re.Match[str]]:
        return self._compiled().finditer(*args)

    def findall(self, *args: Any) -> list[Any]:
        return self._compiled().findall(*args)

    def sub(self, repl: str | Callable[[re.Match[str]], str], *args: Any) -> str:
        return self._compiled().sub(repl, *args)

    def subn(self, repl: str | Callable[[re.Match[str]], str], *args: Any) -> tuple[str, int]:
        return self._compiled().subn(repl, *args)

    def split(self, *args: Any) -> list[str | Any]:
        return self._compiled().split(*args)

    @property
    def groups(self) -> int:
        return re.compile(self.pattern, self.flags).groups

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return lazy, (self.pattern, self.flags)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def compile_all() -> int:
    """Compile every lazy pattern not compiled yet; how many that was.

    A process that answers for hours pays the ~25 ms once at start instead of in the first
    questions that reach each pattern (1-2 ms each, the slowest answers of a fresh process).
    """
    todo = [p for p in _MADE if "search" not in vars(p)]
    for p in todo:
        p._compiled()
    return len(todo)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))

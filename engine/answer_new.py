"""A new Answer without the keyword call: here, not in ``engine.answer_types`` (kept as Python
for its Frozen types), so the compiled builders that make one a question (``engine.kinds``)
call compiled code, not a Python frame (deploy/native.py).
"""

from __future__ import annotations

from typing import Any, Final

from engine.answer_types import Answer

_new: Final = object.__new__
_ANSWER: Final = Answer  # compiled, a static: no read of the imported name per answer
# (the factories of Answer's defaults are all ``list``: checked where the table is made)
_ANSWER_DEFAULTS: Final = {n: v for n, v, factory in Answer._defaults if not factory}
_ANSWER_LISTS: Final = tuple(n for n, v, factory in Answer._defaults if factory and v is list)
assert len(_ANSWER_DEFAULTS) + len(_ANSWER_LISTS) == len(Answer._defaults)


def new_answer(fields: dict[str, Any]) -> Answer:
    """``Answer(**fields)`` for values already of their fields' types (floats as floats, the
    caller's own fresh lists and dicts, objects not dicts): the defaults copied from one
    table, a fresh list for each list field not given, then the fields, no keyword call."""
    a: Answer = _new(_ANSWER)
    d = a.__dict__
    d.update(_ANSWER_DEFAULTS)
    for name in _ANSWER_LISTS:
        d[name] = []
    d.update(fields)
    return a

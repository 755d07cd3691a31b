"""Frozen data types without paying for pydantic at import or construction time.

Every catalog and answer type subclasses :class:`Frozen` and is declared like a pydantic
model (annotated fields, defaults, ``field(default_factory=...)``). The declaration is the one
schema: pydantic validates the data files against these same classes (through
``pydantic.TypeAdapter``, imported only when something is validated, which first makes them
stdlib dataclasses), with the bounds written as ``Annotated[int, Gt(0)]`` and
``extra="forbid"`` from ``__pydantic_config__``. Until then a class costs no dataclass
machinery at import, and its ``__init__`` is generated on first construction: a cached
catalog is unpickled without any of it.

The pydantic methods code relies on are kept: ``model_copy(update=...)``,
``model_construct(...)``, ``model_dump(mode="json", include=..., exclude=...)``,
``model_validate(...)`` and ``model_fields``. Plain construction coerces the way pydantic's
lax mode did for what the engine passes: an ``int`` for a ``float`` field becomes a float, a
tuple for a ``list`` field a list, and a ``dict`` for a nested type that type (so answers
serialise byte for byte as before).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from sys import intern as _intern
from typing import Any, ClassVar, TypeVar, dataclass_transform

T = TypeVar("T", bound="Frozen")
_SCALARS = frozenset({str, int, float, bool, type(None)})

# An instance's fields go in as one dict set as its ``__dict__`` (``_SET(obj, "__dict__",
# fields)``), never key by key into the ``__dict__`` it starts with: that one is a split
# (shared-key) table, and CPython 3.11 cannot specialise an attribute read on an instance
# whose split table has been taken out (about twice the cost of a read from a dict of its
# own, on objects whose fields are read dozens of times an answer). ``object.__setattr__``
# because Frozen's own refuses every assignment.
_SET = object.__setattr__


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen instance (as ``dataclasses`` names it)."""


class _MissingType:
    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Any = _MissingType()  # no default declared


class _Field:
    """A field's declared default (``field(default_factory=list)``), read by :func:`_collect`.

    Not ``dataclasses.field``: importing ``dataclasses`` brings ``inspect`` with it, about a
    fifth of a cold start, for classes that only become dataclasses when pydantic validates.
    """

    __slots__ = ("default", "default_factory", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool) -> None:
        self.default, self.default_factory, self.repr = default, default_factory, repr

    def as_dataclass_field(self) -> Any:
        import dataclasses

        if self.default_factory is not _MISSING:
            return dataclasses.field(default_factory=self.default_factory, repr=self.repr)
        if self.default is _MISSING:  # required: pydantic must not see our marker as a value
            return dataclasses.field(repr=self.repr)
        return dataclasses.field(default=self.default, repr=self.repr)


def field(*, default: Any = _MISSING, default_factory: Any = _MISSING, repr: bool = True) -> Any:
    """A field with a default factory (a fresh list or dict each) or a default."""
    return _Field(default, default_factory, repr)


class _Bound:
    """A numeric bound in ``Annotated`` metadata, turned into pydantic's own constraint."""

    __slots__ = ("key", "value")

    def __init__(self, key: str, value: float) -> None:
        self.key = key
        self.value = value

    def __repr__(self) -> str:
        return f"{self.key.capitalize()}({self.value!r})"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        schema = handler(source)
        schema[self.key] = self.value  # int_schema / float_schema: same checks, same messages
        return schema


def Gt(value: float) -> Any:  # named like the constraint it is
    return _Bound("gt", value)


def Ge(value: float) -> Any:
    return _Bound("ge", value)


def Lt(value: float) -> Any:
    return _Bound("lt", value)


def Le(value: float) -> Any:
    return _Bound("le", value)


class _Fields:
    """``Model.model_fields``: field name -> annotation (a dict, as pydantic's is)."""

    def __get__(self, obj: object, owner: type[Frozen]) -> dict[str, str]:
        return dict(owner._annotations)


_REGISTRY: list[type[Frozen]] = []  # every subclass, parents first: made dataclasses together


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Frozen:
    """Base of every frozen data type: keyword-only construction, immutable, compared and
    hashed by value; subclasses are declared like pydantic models, with no decorator."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {}
    _names: ClassVar[tuple[str, ...]] = ()
    _annotations: ClassVar[tuple[tuple[str, str], ...]] = ()
    _defaults: ClassVar[tuple[tuple[str, Any, bool], ...]] = ()  # (name, value, is_factory)
    _adapter: ClassVar[Any] = None
    model_fields: ClassVar[Any] = _Fields()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _collect(cls)
        _REGISTRY.append(cls)

    def __init__(self, **values: Any) -> None:
        """The first construction of a class writes its real ``__init__``, then uses it."""
        cls = type(self)
        if "__init__" in cls.__dict__:  # a subclass that defines its own
            raise TypeError(f"{cls.__name__}.__init__ must not call Frozen.__init__")
        init = _init(cls, vars(sys.modules[cls.__module__]))
        cls.__init__ = init  # type: ignore[method-assign]
        init(self, **values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        d = self.__dict__
        return hash(tuple(d[n] for n in self._names))

    def __repr__(self) -> str:
        d = self.__dict__
        return f"{type(self).__qualname__}({', '.join(f'{n}={d[n]!r}' for n in self._names)})"

    def model_copy(self: T, *, update: dict[str, Any] | None = None, deep: bool = False) -> T:
        """A shallow copy with ``update`` applied, unvalidated (as pydantic's is)."""
        new = object.__new__(type(self))
        d = dict(self.__dict__)
        if update:
            d.update(update)
        _SET(new, "__dict__", d)
        return new

    @classmethod
    def model_construct(cls: type[T], **values: Any) -> T:
        """An instance from trusted values: defaults filled in, nothing checked or coerced."""
        new = object.__new__(cls)
        d: dict[str, Any] = {}
        for name, value, factory in cls._defaults:
            if name not in values:
                d[name] = value() if factory else value
        d.update(values)
        _SET(new, "__dict__", d)
        return new

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled (a cached catalog) or copied: the fields as one dict of the instance's own,
        its names interned (an attribute read matches a name by identity first)."""
        _SET(self, "__dict__", {_intern(k): v for k, v in state.items()})

    def model_dump(
        self,
        *,
        mode: str = "python",
        include: set[str] | None = None,
        exclude: set[str] | None = None,
    ) -> dict[str, Any]:
        """Fields as plain data; ``mode="json"`` gives lists for every sequence."""
        json = mode == "json"
        d = self.__dict__
        return {
            n: _dump(d[n], json)
            for n in self._names
            if (include is None or n in include) and (exclude is None or n not in exclude)
        }

    @classmethod
    def model_validate(cls: type[T], data: Any) -> T:
        """Full pydantic validation against this class (pydantic is imported on first use)."""
        result: T = type_adapter(cls).validate_python(data)
        return result


def _collect(cls: type[Frozen]) -> None:
    """Fields in declaration order, parents' first, from the annotations (ClassVars skipped)."""
    annotations = dict(cls._annotations)
    defaults = {name: (value, factory) for name, value, factory in cls._defaults}
    # the class's own annotations, as written (inspect.get_annotations would import inspect)
    for name, ann in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
        if text.startswith(("ClassVar", "typing.ClassVar")) or name.startswith("__"):
            continue
        annotations[name] = text
        if name in cls.__dict__:
            value = cls.__dict__[name]
            if isinstance(value, _Field):
                if value.default_factory is not _MISSING:
                    defaults[name] = (value.default_factory, True)
                elif value.default is not _MISSING:
                    defaults[name] = (value.default, False)
            else:
                defaults[name] = (value, False)
        else:
            defaults.pop(name, None)
    cls._annotations = tuple(annotations.items())
    cls._names = tuple(annotations)
    cls._defaults = tuple((n, *defaults[n]) for n in cls._names if n in defaults)


def type_adapter(cls: type[Frozen]) -> Any:
    """The pydantic ``TypeAdapter`` of a type, built once."""
    adapter = cls.__dict__.get("_adapter")
    if adapter is None:
        from pydantic import TypeAdapter

        _as_dataclasses()
        adapter = TypeAdapter(cls)
        cls._adapter = adapter
    return adapter


def _as_dataclasses() -> None:
    """Make every class stdlib dataclasses (what pydantic reads a schema from), once each.

    Only the field list is added: equality, hashing, repr and init stay :class:`Frozen`'s.
    """
    import dataclasses

    for cls in _REGISTRY:
        if "__dataclass_fields__" in cls.__dict__:
            continue
        for name, value in list(cls.__dict__.items()):
            if isinstance(value, _Field):  # what dataclasses reads a default from
                setattr(cls, name, value.as_dataclass_field())
        init = cls.__dict__.get("__init__")
        dataclasses.dataclass(init=False, repr=False, eq=False, kw_only=True)(cls)
        if init is not None:
            cls.__init__ = init  # type: ignore[method-assign]


def _dump(v: Any, json: bool) -> Any:
    t = type(v)
    if t in _SCALARS:
        return v
    if isinstance(v, Frozen):
        d = v.__dict__
        return {n: _dump(d[n], json) for n in v._names}
    if t is list:
        return [_dump(x, json) for x in v]
    if t is tuple:
        out = [_dump(x, json) for x in v]
        return out if json else tuple(out)
    if t is dict:
        return {k: _dump(x, json) for k, x in v.items()}
    return v


def _split_top(text: str) -> list[str]:
    """``"int, Gt(0)"`` -> ``["int", "Gt(0)"]``: commas at bracket depth 0 only."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _base(annotation: str) -> str:
    """The type behind ``X | None`` and ``Annotated[X, ...]``, as written."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(annotation):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(annotation[start:i].strip())
            start = i + 1
    parts.append(annotation[start:].strip())
    text = " | ".join(p for p in parts if p != "None")
    if text.startswith("Annotated[") and text.endswith("]"):
        text = _split_top(text[len("Annotated[") : -1])[0]
    return text


def _frozen_target(name: str, module: dict[str, Any]) -> type[Frozen] | None:
    target = module.get(name)
    return target if isinstance(target, type) and issubclass(target, Frozen) else None


def _value(v: str, annotation: str, module: dict[str, Any], ns: dict[str, Any]) -> str:
    """Source of the expression that stores a given value as pydantic's lax mode did."""
    base = _base(annotation)
    if base == "float":
        return f"float({v}) if {v}.__class__ is int else {v}"
    if base.startswith("list[") and base.endswith("]"):
        inner = _frozen_target(base[5:-1], module)
        if inner is None:
            return f"None if {v} is None else list({v})"
        ns[f"_T_{v}"] = inner
        return f"None if {v} is None else [_T_{v}(**x) if x.__class__ is dict else x for x in {v}]"
    if base.startswith("dict[") and base.endswith(", float]"):
        return (
            f"{{k: float(x) if x.__class__ is int else x for k, x in {v}.items()}}"
            f" if {v}.__class__ is dict else {v}"
        )
    target = _frozen_target(base, module)
    if target is not None:
        ns[f"_T_{v}"] = target
        return f"_T_{v}(**{v}) if {v}.__class__ is dict else {v}"
    return v


_LITERALS: dict[Any, str] = {list: "[]", dict: "{}"}


def _init(cls: type[Frozen], module: dict[str, Any]) -> Callable[..., None]:
    """A keyword-only ``__init__`` that sets the instance's ``__dict__`` to one dict of every
    field (a frozen dataclass pays an ``object.__setattr__`` call per field; see
    ``_SET`` above for why not key by key). Defaults are stored as declared,
    unconverted: pydantic never validated defaults either."""
    ns: dict[str, Any] = {"_MISSING": _MISSING, "_SET": _SET}
    params, body = [], ["    _SET(self, '__dict__', {"]
    defaults = {name: (value, factory) for name, value, factory in cls._defaults}
    for n, ann in cls._annotations:
        stored = _value(n, ann, module, ns)
        if n in defaults:
            value, factory = defaults[n]
            ns[f"_D_{n}"] = value
            params.append(f"{n}=_MISSING")
            default = f"_D_{n}()" if factory else f"_D_{n}"
            if factory and value in _LITERALS:  # a fresh [] or {} without the factory call
                default = _LITERALS[value]
            body.append(f"        {n!r}: {default} if {n} is _MISSING else ({stored}),")
        else:
            params.append(n)
            body.append(f"        {n!r}: {stored},")
    body.append("    })")
    star = "*, " if params else ""
    src = f"def __init__(self, {star}{', '.join(params)}):\n" + "\n".join(body)
    exec(src, ns)  # generated from the class's own field list
    init: Callable[..., None] = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init

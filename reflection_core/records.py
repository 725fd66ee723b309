"""`@record`: the dataclasses the hooks build on every run, without importing `dataclasses`.

`dataclasses` pulls in `inspect`, `ast`, `dis` and `tokenize` and generates its methods
with `exec`: about 15 ms of CPU in a hook process that runs for every prompt and stop.
The modules a hook imports at start declare their classes with `@record` (and `field`)
instead: type checkers read it as `dataclasses.dataclass`, so constructors and frozen
fields are checked as before, while at run time the class gets one shared `__init__`
(positional or keyword arguments, defaults and default factories), `__repr__`,
`__eq__` and, when frozen, a `__setattr__` that refuses. Nothing else of dataclasses
but `replace` and `asdict`, here too (no `fields`: modules that need it keep
`dataclasses`); `__post_init__` runs once the fields are set, as in dataclasses.
`NamedTuple` likewise stands in for `typing.NamedTuple` (class syntax only), so that
the prompt hook does not import `typing` either: about 4 ms per prompt.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import asdict, field, replace
    from dataclasses import dataclass as record
    from typing import Any, NamedTuple
else:
    from collections import namedtuple

    class _NamedTupleMeta(type):
        """Builds `class X(NamedTuple): ...` as `typing.NamedTuple` does, from the
        annotations (names only) and the defaults of the class body."""

        def __new__(mcs, name, bases, namespace):
            annotations = namespace.get("__annotations__", {})
            defaults = [namespace[key] for key in annotations if key in namespace]
            built = namedtuple(name, list(annotations), defaults=defaults or None)
            built.__module__ = namespace.get("__module__", built.__module__)
            built.__qualname__ = namespace.get("__qualname__", name)
            built.__annotations__ = dict(annotations)
            for key, value in namespace.items():
                if key not in annotations and key not in _NOT_COPIED:
                    setattr(built, key, value)
            return built

    _NOT_COPIED = frozenset(("__module__", "__qualname__", "__annotations__", "__orig_bases__"))
    _NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    def NamedTuple(*args, **kwargs):
        """`typing.NamedTuple`, for the class syntax only."""
        raise TypeError("records.NamedTuple is used as a base class: class X(NamedTuple): ...")

    NamedTuple.__mro_entries__ = lambda bases: (_NamedTupleBase,)

    class _Field:
        __slots__ = ("default", "default_factory", "repr")

        def __init__(self, default: Any, default_factory: Any, repr: bool) -> None:
            self.default = default
            self.default_factory = default_factory
            self.repr = repr

    _MISSING = _Field(None, None, True)  # a required field

    def field(*, default: Any = _MISSING, default_factory: Any = None, repr: bool = True) -> Any:
        """`dataclasses.field`, for `default`, `default_factory` and `repr` only."""
        if default_factory is not None:
            return _Field(_MISSING, default_factory, repr)
        return _Field(default, None, repr)

    def record(
        cls: Any = None,
        /,
        *,
        frozen: bool = False,
        eq: bool = True,
        repr: bool = True,
        kw_only: bool = False,
    ) -> Any:
        """`dataclasses.dataclass` for the options above (`kw_only` is checked by mypy only)."""
        if cls is None:
            return lambda inner: _build(inner, frozen=frozen, eq=eq, repr=repr)
        return _build(cls, frozen=frozen, eq=eq, repr=repr)

    def _build(cls: Any, *, frozen: bool, eq: bool, repr: bool) -> Any:
        fields: dict[str, _Field] = dict(getattr(cls, "_record_fields", {}))
        for name, annotation in vars(cls).get("__annotations__", {}).items():
            if "ClassVar" in str(annotation):
                continue
            value = cls.__dict__.get(name, _MISSING)
            fields[name] = value if isinstance(value, _Field) else _Field(value, None, True)
            if isinstance(value, _Field) and name in cls.__dict__:
                delattr(cls, name)  # the default lives in the table, not on the class
        cls._record_fields = fields
        cls.__init__ = _init
        if repr:
            cls.__repr__ = _repr
        if eq:
            cls.__eq__ = _eq
            cls.__hash__ = _hash if frozen else None
        if frozen:
            cls.__setattr__ = _refuse
            cls.__delattr__ = _refuse
        return cls

    def _init(self: Any, *args: Any, **kwargs: Any) -> None:
        """Sets every field from the arguments or its default, straight into the instance's
        dict (also for a frozen record): the Stop path builds one per event of a task."""
        cls = type(self)
        fields = cls._record_fields
        if args:
            if len(args) > len(fields):
                raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments")
            for name, value in zip(fields, args, strict=False):
                if name in kwargs:
                    raise TypeError(f"{cls.__name__}() got an unexpected argument {name!r}")
                kwargs[name] = value
        own = self.__dict__
        given = 0
        for name, spec in fields.items():
            if name in kwargs:
                own[name] = kwargs[name]
                given += 1
            elif spec.default_factory is not None:
                own[name] = spec.default_factory()
            elif spec is _MISSING or spec.default is _MISSING:
                raise TypeError(f"{cls.__name__}() is missing the argument {name!r}")
            else:
                own[name] = spec.default
        if given < len(kwargs):
            unknown = next(name for name in kwargs if name not in fields)
            raise TypeError(f"{cls.__name__}() got an unexpected argument {unknown!r}")
        if hasattr(self, "__post_init__"):
            self.__post_init__()

    def replace(obj: Any, /, **changes: Any) -> Any:
        """`dataclasses.replace`: a copy of a record (or a dataclass) with some fields
        changed. The package calls this one, whichever kind a class is."""
        if not hasattr(type(obj), "_record_fields"):
            import dataclasses

            return dataclasses.replace(obj, **changes)
        values = {name: getattr(obj, name) for name in type(obj)._record_fields}
        values.update(changes)
        return type(obj)(**values)

    def asdict(obj: Any) -> Any:
        """`dataclasses.asdict`: a record as a dict, records, lists, tuples and dicts inside
        converted too (leaf values are shared, not deep-copied)."""
        if hasattr(type(obj), "_record_fields"):
            return {name: asdict(getattr(obj, name)) for name in type(obj)._record_fields}
        if hasattr(type(obj), "__dataclass_fields__"):
            import dataclasses

            names = [f.name for f in dataclasses.fields(obj)]
            return {name: asdict(getattr(obj, name)) for name in names}
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a named tuple
            return type(obj)(*(asdict(item) for item in obj))
        if isinstance(obj, (list, tuple)):
            return type(obj)(asdict(item) for item in obj)
        if isinstance(obj, dict):
            return {key: asdict(value) for key, value in obj.items()}
        return obj

    def _repr(self: Any) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name, spec in type(self)._record_fields.items()
            if spec.repr
        )
        return f"{type(self).__name__}({shown})"

    def _values(self: Any) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in type(self)._record_fields)

    def _eq(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _values(self) == _values(other)

    def _hash(self: Any) -> int:
        return hash(_values(self))

    def _refuse(self: Any, name: str, *value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

"""`@frozen`: a frozen dataclass whose methods are shared functions, not code compiled per class.

Python 3.11's `@dataclass(frozen=True)` writes six methods (`__init__`, `__repr__`, `__eq__`,
`__hash__`, `__setattr__`, `__delattr__`) as source text and compiles each with `exec` when the
class is made: ~1.4 ms a class on these machines, paid at every start by every class a command
imports (24 of them on the way to a warm `memcli search`: 12 % of its time; Python 3.13 compiles
one text per class). `@frozen` makes the same dataclass (`dataclasses.fields`, `replace`, `asdict`
and pydantic see an ordinary dataclass) with `init`, `repr` and `eq` left to it, then gives the
class the six methods below, written once and reading the class's fields from a tuple made here:
~0.25 ms a class.

What the instances do is what `@dataclass(frozen=True)`'s do: arguments by position or keyword,
defaults and default factories, `field(init=False)` fields set from their default, `__post_init__`
called, `compare`/`hash`/`repr` per field honoured, equal only to an instance of the same class,
hashed on the compared fields, every assignment and deletion refused with FrozenInstanceError, a
method the class writes itself kept. Not taken: InitVar and keyword-only fields (nothing here uses
them), which raise TypeError when the class is made, and the repr's guard against a value that holds
itself (which a frozen value of memcli's cannot come to do). tests/test_values.py holds every class in the
package against the same class made by `dataclass(frozen=True)`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, FrozenInstanceError, dataclass, field
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform  # typing: loaded with dataclasses anyway

__all__ = ["field", "frozen"]

T = TypeVar("T")
_SPEC = "__value_spec__"


class _Spec:
    """One class's fields as its methods read them."""

    __slots__ = ("all", "hashed", "key", "later", "names", "post", "shown", "slots", "tails")

    def __init__(self, cls: Any) -> None:
        fields = dataclasses.fields(cls)
        self.all = frozenset(f.name for f in fields)
        self.names = tuple(f.name for f in fields if f.init)
        # an init field's default or factory (MISSING: required), by name
        self.slots = {f.name: (f.default, f.default_factory) for f in fields if f.init}
        # tails[k]: the defaults of the fields after the first k when each has a plain default (no
        # factory), else None; so `Location(kind, slug)` is filled in one step
        defaults = [self.slots[n][0] for n in self.names]
        self.tails = tuple(
            tuple(defaults[k:]) if all(d is not MISSING for d in defaults[k:]) else None
            for k in range(len(defaults) + 1))
        # fields set from their default or factory, not from an argument (field(init=False))
        self.later: tuple[tuple[str, Any, Any], ...] = tuple(
            (f.name, f.default, f.default_factory) for f in fields
            if not f.init and (f.default is not MISSING or f.default_factory is not MISSING))
        self.shown = tuple(f.name for f in fields if f.repr)
        compared = tuple(f.name for f in fields if f.compare)
        self.key = _getter(compared)
        self.hashed = _getter(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
        self.post = hasattr(cls, "__post_init__")


def _getter(names: tuple[str, ...]) -> Any:
    """The tuple of those attributes (one attrgetter call)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


def _missing(cls: type, names: list[str]) -> TypeError:
    quoted = [repr(n) for n in names]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    plural = "argument" if len(names) == 1 else "arguments"
    return TypeError(f"{cls.__qualname__}.__init__() missing {len(names)} required positional {plural}: "
                     f"{listed}")


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    spec: _Spec = getattr(cls, _SPEC)
    names = spec.names
    values: dict[str, Any]
    tail = spec.tails[len(args)] if len(args) <= len(names) and not kwargs else None
    if tail is not None:
        values = dict(zip(names, args + tail, strict=True))
    else:
        if len(args) > len(names):
            raise TypeError(f"{cls.__qualname__}.__init__() takes {len(names) + 1} positional arguments "
                            f"but {len(args) + 1} were given")
        values = dict(zip(names, args, strict=False))
        for name in kwargs:
            if name not in spec.slots:
                raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{cls.__qualname__}.__init__() got multiple values for argument {name!r}")
        values.update(kwargs)
        if len(values) < len(names):
            missing = []
            for name in names:
                if name not in values:
                    default, factory = spec.slots[name]
                    if default is not MISSING:
                        values[name] = default
                    elif factory is not MISSING:
                        values[name] = factory()
                    else:
                        missing.append(name)
            if missing:
                raise _missing(cls, missing)
        values = {name: values[name] for name in names}  # in the fields' order, as dataclass sets them
    for name, default, factory in spec.later:
        values[name] = default if default is not MISSING else factory()
    self.__dict__.update(values)
    if spec.post:
        self.__post_init__()


def _repr(self: Any) -> str:
    shown = getattr(type(self), _SPEC).shown
    return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = getattr(type(self), _SPEC).key
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(getattr(type(self), _SPEC).hashed(self))


def _frozen(cls: Any, names: frozenset[str]) -> tuple[Any, Any]:
    """`__setattr__` and `__delattr__` as dataclass(frozen=True) writes them: a field, or anything
    on the class itself, is refused; a subclass that is not a dataclass keeps its other attributes."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[T]) -> type[T]:
    """The class as a frozen dataclass (see the module's docstring)."""
    own = cls.__dict__
    for name in ("__setattr__", "__delattr__"):
        if name in own:  # as dataclass(frozen=True) says
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    explicit_hash = own.get("__hash__", MISSING) is not MISSING and not (
        own.get("__hash__") is None and "__eq__" in own)
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = "-"  # dataclass would compute a signature for it (inspect: ~0.15 ms)
    made = dataclass(cls, init=False, repr=False, eq=False)
    for f in getattr(made, "__dataclass_fields__", {}).values():
        if f._field_type is dataclasses._FIELD_INITVAR or f.kw_only is True:  # type: ignore[attr-defined]
            raise TypeError(f"{cls.__qualname__}.{f.name}: @frozen takes no InitVar or keyword-only field")
    spec = _Spec(made)
    setattr(made, _SPEC, spec)
    if undocumented:
        made.__doc__ = f"{cls.__name__}({', '.join(spec.names)})"
    for name, method in (("__init__", _init), ("__repr__", _repr), ("__eq__", _eq)):
        if name not in own:
            setattr(made, name, method)
    if not explicit_hash:
        made.__hash__ = _hash  # type: ignore[method-assign]
    made.__setattr__, made.__delattr__ = _frozen(made, spec.all)  # type: ignore[method-assign]
    return made

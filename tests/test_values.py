"""memcli.values.frozen: every value class of the package behaves as `dataclass(frozen=True)` makes it."""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import pkgutil
import re
from dataclasses import FrozenInstanceError, field
from typing import Any

import pytest

import memcli
from memcli.values import frozen


def _classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(memcli.__path__, "memcli."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == info.name and "__value_spec__" in vars(obj):
                found.append(obj)
    return found


CLASSES = _classes()


def _twin(cls: type) -> type:
    """The same class made by dataclass(frozen=True): its fields as they are, its own methods."""
    spec = [(f.name, f.type, dataclasses.field(default=f.default, default_factory=f.default_factory,
                                               init=f.init, repr=f.repr, hash=f.hash, compare=f.compare))
            for f in dataclasses.fields(cls)]
    own = {k: v for k, v in vars(cls).items() if k in ("__post_init__",) or (
        callable(v) and not k.startswith("__") and k not in {f[0] for f in spec})}
    own.update({k: v for k, v in vars(cls).items() if isinstance(v, property | staticmethod | classmethod)})
    for name in ("__eq__", "__repr__", "__hash__", "__init__"):  # written by the class itself
        if name in vars(cls) and getattr(vars(cls)[name], "__module__", None) != "memcli.values":
            own[name] = vars(cls)[name]
    bases = tuple(b for b in cls.__bases__ if b is not object and "__value_spec__" not in vars(b))
    return dataclasses.make_dataclass(cls.__name__, spec, bases=bases, namespace=own, frozen=True)


def _outcome(make: Any) -> tuple[str, Any]:
    try:
        return "ok", make()
    except Exception as exc:  # noqa: BLE001 - the two classes must fail alike
        return type(exc).__name__, re.sub(r"\w+\.__init__\(\)", "__init__()", str(exc))


def test_the_package_has_its_value_classes() -> None:
    names = {c.__qualname__ for c in CLASSES}
    assert {"Config", "SearchConfig", "SearchHit", "Group", "Location"} <= names
    assert len(CLASSES) >= 100


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_value_class_behaves_as_a_frozen_dataclass(cls: type) -> None:
    twin = _twin(cls)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    args = [f"{f.name}-1" for f in fields]
    built = [_outcome(lambda c=c: c(*args)) for c in (cls, twin)]
    assert built[0][0] == built[1][0], built
    for k in range(len(args)):  # by position, the later fields left to their defaults
        short = [_outcome(lambda c=c, k=k: c(*args[:k])) for c in (cls, twin)]
        assert short[0][0] == short[1][0], (k, short)
        if short[0][0] == "ok":
            assert vars(short[0][1]) == vars(short[1][1]), k
    # by keyword, with the defaults left out, missing or unknown arguments
    required = {f.name: f"{f.name}-1" for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    for kwargs in (required, {**required, "nope": 1}, dict(list(required.items())[1:])):
        got = [_outcome(lambda c=c, k=kwargs: c(**k)) for c in (cls, twin)]
        assert got[0][0] == got[1][0] and (got[0][0] == "ok" or got[0][1] == got[1][1]), got
    if built[0][0] != "ok":
        return  # its __post_init__ refuses the stand-in values, the twin's alike
    one, other = built[0][1], built[1][1]
    assert repr(one) == repr(other).replace(twin.__qualname__, cls.__qualname__, 1)
    assert vars(one) == vars(other) and list(vars(one)) == list(vars(other))
    assert dataclasses.asdict(one) == dataclasses.asdict(other)
    again = cls(*args)
    assert one == again and hash(one) == hash(again) and one != other
    assert dataclasses.replace(one) == one
    for f in dataclasses.fields(cls):
        with pytest.raises(FrozenInstanceError):
            setattr(one, f.name, 0)
        with pytest.raises(FrozenInstanceError):
            delattr(one, f.name)
    with pytest.raises(FrozenInstanceError):
        one.elsewhere = 1  # type: ignore[attr-defined]
    if fields and all(f.compare for f in fields):  # one field changed: no longer equal
        changed = dataclasses.replace(one, **{fields[-1].name: "changed"})
        ok = _outcome(lambda: changed == one)
        assert ok == ("ok", False)
    assert pickle.loads(pickle.dumps(one)) == one if cls.__qualname__ == cls.__name__ else True


@frozen
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
    note: str = field(default="", compare=False, repr=False)
    seen: int = field(default=0, init=False)


def test_defaults_factories_and_the_per_field_flags() -> None:
    p = Point(1)
    assert (p.x, p.y, p.tags, p.note, p.seen) == (1, 0, (), "", 0)
    assert repr(p) == "Point(x=1, y=0, tags=(), seen=0)"
    assert Point(1, note="a") == Point(1, note="b") and hash(Point(1, note="a")) == hash(Point(1))
    assert Point(1) != Point(2) and Point(1) != (1, 0, (), 0)
    with pytest.raises(TypeError, match=r"Point.__init__\(\) missing 1 required positional argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'seen'"):
        Point(1, seen=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes 5 positional arguments but 6 were given"):
        Point(1, 2, (), "", 5)  # type: ignore[call-arg]
    assert dataclasses.replace(p, y=3) == Point(1, 3) and dataclasses.asdict(Point(1, 2))["y"] == 2
    assert vars(Point(1, 2, ("a",))) == {"x": 1, "y": 2, "tags": ("a",), "note": "", "seen": 0}
    assert Point.__match_args__ == ("x", "y", "tags", "note")


def test_methods_the_class_writes_are_kept_and_post_init_runs() -> None:
    @frozen
    class Named:
        """Its own doc."""

        name: str
        size: int = 0

        def __post_init__(self) -> None:
            if self.size < 0:
                raise ValueError("size < 0")
            object.__setattr__(self, "size", self.size * 2)

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert Named("a", 2).size == 4 and Named("A") == Named("a") and repr(Named("x")) == "<x>"
    assert hash(Named("a")) == hash(Named("a"))  # a class writing __eq__ alone still gets the fields' hash
    assert Named.__doc__ == "Its own doc."
    with pytest.raises(ValueError, match="size < 0"):
        Named("a", -1)


def test_a_subclass_adds_its_fields_after_its_base_s() -> None:
    @frozen
    class Base:
        a: int
        b: int = 1

    @frozen
    class Child(Base):
        c: int = 2

    assert repr(Child(0)).endswith(".Child(a=0, b=1, c=2)") and Child(0) != Base(0)
    assert Child(0, c=5).c == 5 and Child.__doc__ == "Child(a, b, c)"

    class Plain(Child):  # not a dataclass: its own other attributes may be set, its fields not
        pass

    loose = Plain(0)
    loose.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(FrozenInstanceError):
        loose.a = 1  # type: ignore[misc]


def test_what_it_does_not_take_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="no InitVar or keyword-only"):
        @frozen
        class Keyword:
            a: int = field(default=0, kw_only=True)
    with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):
        @frozen
        class Writes:
            a: int

            def __setattr__(self, name: str, value: object) -> None:
                pass


def test_pydantic_validates_a_value_class_as_a_dataclass() -> None:
    from pydantic import TypeAdapter, ValidationError

    assert TypeAdapter(Point).validate_python({"x": "3", "tags": ["a"]}) == Point(3, tags=("a",))
    with pytest.raises(ValidationError):
        TypeAdapter(Point).validate_python({"x": "three"})


def test_the_package_makes_its_frozen_classes_with_frozen() -> None:
    """The convention that keeps start-up cheap: a new frozen class is `@frozen`, not a dataclass."""
    from pathlib import Path

    written = [str(p) for p in Path(memcli.__file__).parent.rglob("*.py")
               if "@dataclass(frozen=True)\n" in p.read_text(encoding="utf-8")]
    assert written == []

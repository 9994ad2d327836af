"""A package's names that load on first use (PEP 562), declared once per package:

    __getattr__, __dir__ = lazy_exports(__name__, {"lint": "engine", "Change": "rules.base"})

maps each name to the submodule (below the package) it lives in. The submodule is imported when
the name is first read, and the value is then kept on the package, so `memcli.lint` costs nothing
to a caller that needs only `memcli.lint.snapshot`, and `memcli lint` and `--help` load only what
they use (never litellm: tests/test_lean_start.py).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str,
                 homes: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package` whose names `homes` places (name → submodule)."""
    homes = dict(homes)

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)  # read once: later reads skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__

"""memcli.lazy: a package's names load from their submodule on first read, and only then."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

PACKAGE = '''
from memcli.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {"VALUE": "heavy", "helper": "deep.inner"})
'''


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path / "lazypkg"
    (root / "deep").mkdir(parents=True)
    (root / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    (root / "heavy.py").write_text("VALUE = '重い'\n", encoding="utf-8")
    (root / "deep" / "__init__.py").write_text("", encoding="utf-8")
    (root / "deep" / "inner.py").write_text("def helper():\n    return 42\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("lazypkg")
    for name in [m for m in sys.modules if m == "lazypkg" or m.startswith("lazypkg.")]:
        del sys.modules[name]


def test_a_name_loads_its_submodule_on_first_read_only(package) -> None:
    assert "lazypkg.heavy" not in sys.modules
    assert {"VALUE", "helper", "lazy_exports"} <= set(dir(package))  # the lazy names, and the rest
    assert "lazypkg.heavy" not in sys.modules  # listing the names loads nothing
    assert package.VALUE == "重い"
    assert "lazypkg.heavy" in sys.modules and "lazypkg.deep.inner" not in sys.modules
    from lazypkg import helper  # the from-import form, and a submodule below a subpackage

    assert helper() == 42


def test_an_unknown_name_is_an_attribute_error_naming_the_package(package) -> None:
    with pytest.raises(AttributeError, match="module 'lazypkg' has no attribute 'nothing'"):
        package.nothing  # noqa: B018
    assert not hasattr(package, "nothing")

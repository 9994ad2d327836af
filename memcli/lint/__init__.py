"""The Linter: one pure function over a workspace snapshot, used on the tool, commit and CI paths.

The names below load on first use (PEP 562): `memcli context` and the session-start hook read the
workspace through `memcli.lint.snapshot` and need none of the rules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memcli.lint.engine import lint, lint_change
    from memcli.lint.finding import Finding, Severity
    from memcli.lint.rules.base import Change

__all__ = ["Change", "Finding", "Severity", "lint", "lint_change"]
_HOME = {"lint": "memcli.lint.engine", "lint_change": "memcli.lint.engine", "Finding": "memcli.lint.finding",
         "Severity": "memcli.lint.finding", "Change": "memcli.lint.rules.base"}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'memcli.lint' has no attribute {name!r}")

    return getattr(importlib.import_module(_HOME[name]), name)

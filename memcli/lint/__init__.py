"""The Linter: one pure function over a workspace snapshot, used on the tool, commit and CI paths.

The names below load on first use (PEP 562): `memcli context` and the session-start hook read the
workspace through `memcli.lint.snapshot` and need none of the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.lazy import lazy_exports

if TYPE_CHECKING:
    from memcli.lint.engine import lint, lint_change
    from memcli.lint.finding import Finding, Severity
    from memcli.lint.rules.base import Change

__all__ = ["Change", "Finding", "Severity", "lint", "lint_change"]
__getattr__, __dir__ = lazy_exports(__name__, {
    "lint": "engine", "lint_change": "engine", "Finding": "finding", "Severity": "finding",
    "Change": "rules.base",
})

"""The Linter: one pure function over a workspace snapshot, used on the tool, commit and CI paths."""

from __future__ import annotations

from memcli.lint.engine import lint, lint_change
from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Change

__all__ = ["Change", "Finding", "Severity", "lint", "lint_change"]

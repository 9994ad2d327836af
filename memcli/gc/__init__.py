"""GC report: deterministic GC candidates (spec 2 §4), the material Phase 2 reads.

The names below are loaded on first use: a command that needs one helper of this package (`memcli
why` reads git through memcli.gc.drift) does not pay for the report and the Linter behind it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memcli.gc.model import SCHEMA, TYPES, VERSION, Candidate, GcReport
    from memcli.gc.report import build_report
    from memcli.gc.usage import RecordUsage, UsageMetrics, unused_candidates

__all__ = [
    "SCHEMA", "TYPES", "VERSION", "Candidate", "GcReport", "RecordUsage", "UsageMetrics",
    "build_report", "unused_candidates",
]
_HOMES = {"SCHEMA": "model", "TYPES": "model", "VERSION": "model", "Candidate": "model", "GcReport": "model",
          "build_report": "report", "RecordUsage": "usage", "UsageMetrics": "usage",
          "unused_candidates": "usage"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memcli.gc' has no attribute {name!r}")

    return getattr(importlib.import_module(f"memcli.gc.{home}"), name)

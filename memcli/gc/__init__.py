"""GC report: deterministic GC candidates (spec 2 §4), the material Phase 2 reads.

The names below are loaded on first use: a command that needs one helper of this package (`memcli
why` reads git through memcli.gc.drift) does not pay for the report and the Linter behind it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.lazy import lazy_exports

if TYPE_CHECKING:
    from memcli.gc.model import SCHEMA, TYPES, VERSION, Candidate, GcReport
    from memcli.gc.report import build_report
    from memcli.gc.usage import RecordUsage, UsageMetrics, unused_candidates

__all__ = [
    "SCHEMA", "TYPES", "VERSION", "Candidate", "GcReport", "RecordUsage", "UsageMetrics",
    "build_report", "unused_candidates",
]
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("SCHEMA", "TYPES", "VERSION", "Candidate", "GcReport"), "model"),
    "build_report": "report",
    **dict.fromkeys(("RecordUsage", "UsageMetrics", "unused_candidates"), "usage"),
})

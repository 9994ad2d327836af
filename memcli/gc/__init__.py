"""GC report: deterministic GC candidates (spec 2 §4), the material Phase 2 reads."""

from __future__ import annotations

from memcli.gc.model import SCHEMA, TYPES, VERSION, Candidate, GcReport
from memcli.gc.report import build_report
from memcli.gc.usage import RecordUsage, UsageMetrics, unused_candidates

__all__ = [
    "SCHEMA", "TYPES", "VERSION", "Candidate", "GcReport", "RecordUsage", "UsageMetrics",
    "build_report", "unused_candidates",
]

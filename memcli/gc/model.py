"""The value objects of a GC report and its JSON form (the Phase 2 input; schema in docs/gc-report.md)."""

from __future__ import annotations

import datetime as dt
from dataclasses import field
from typing import Any

from memcli.values import frozen

SCHEMA = "memcli.gc-report"
VERSION = 1

# Candidate type → the Phase 2 GC category it suggests (outdated | superseded | unused | noisy).
TYPES: dict[str, str] = {
    "similar-slugs": "noisy",
    "sources-overflow": "noisy",
    "low-value-large": "noisy",
    "replaced-chain-long": "superseded",
    "stale": "outdated",
    "replaced-long": "superseded",
    "near-duplicate": "superseded",
    "unreferenced-knowledge": "unused",
    "unused": "unused",
    "code-drift": "outdated",
}
TYPE_ORDER = {name: i for i, name in enumerate(TYPES)}


@frozen
class Candidate:
    type: str  # a key of TYPES
    paths: tuple[str, ...]  # the records concerned, first = the one to act on
    reason: str  # one sentence a reviewer (or the Phase 2 model) can act on
    evidence: dict[str, Any] = field(default_factory=dict)  # JSON-ready facts behind the reason

    @property
    def category(self) -> str:
        return TYPES[self.type]

    def sort_key(self) -> tuple[int, tuple[str, ...], str]:
        return (TYPE_ORDER[self.type], self.paths, self.reason)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "category": self.category,
            "paths": list(self.paths),
            "reason": self.reason,
            "evidence": self.evidence,
        }


@frozen
class GcReport:
    now: dt.datetime
    records: int  # valid records checked
    candidates: tuple[Candidate, ...]
    skipped: tuple[str, ...] = ()  # broken records (parse/schema errors): `memcli lint` reports them
    config: dict[str, Any] = field(default_factory=dict)
    metrics_available: bool = False
    drift_checked: bool = False
    drift_note: str | None = None  # why code drift was not checked

    @property
    def empty(self) -> bool:
        return not self.candidates

    def counts(self) -> dict[str, int]:
        out = {name: 0 for name in TYPES}
        for c in self.candidates:
            out[c.type] += 1
        return out

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "version": VERSION,
            "generated_at": self.now.isoformat(),
            "records": self.records,
            "skipped": list(self.skipped),
            "config": self.config,
            "metrics": {"available": self.metrics_available},
            "code_drift": {"checked": self.drift_checked, "note": self.drift_note},
            "counts": self.counts(),
            "candidates": [c.to_json_dict() for c in self.candidates],
        }

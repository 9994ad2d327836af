"""The metrics hook: `unused` candidates from a typed mapping, and the adapter for `memcli metrics`."""

from __future__ import annotations

import datetime as dt

from memcli.gc.usage import RecordUsage, unused_candidates, usage_from_metrics
from memcli.metrics import InvokeSource, Metrics, RecordMetrics
from memcli.workspace import Kind

NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
LONG_AGO = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)
PATHS = {f"knowledge/{s}.md" for s in ("never", "rare-old", "rare-recent", "busy", "new", "unmeasured")}


def _unused(metrics: dict[str, RecordUsage] | None, protect_rate: float = 1.0) -> list[str]:
    found = unused_candidates(PATHS, metrics, now=NOW, protect_rate=protect_rate, unused_days=90)
    return [c.paths[0] for c in found]


def test_table_of_cases() -> None:
    jan, may = dt.datetime(2026, 1, 1, tzinfo=dt.UTC), dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    metrics = {
        "knowledge/never.md": RecordUsage(0, 4_000_000, None, LONG_AGO),
        "knowledge/rare-old.md": RecordUsage(1, 4_000_000, jan, LONG_AGO),
        "knowledge/rare-recent.md": RecordUsage(1, 4_000_000, may, LONG_AGO),
        "knowledge/busy.md": RecordUsage(9, 4_000_000, None, LONG_AGO),  # 2.25 per Mtok: protected
        "knowledge/new.md": RecordUsage(0, 10_000, None, dt.datetime(2026, 5, 20, tzinfo=dt.UTC)),
        "memory/decisions/elsewhere.md": RecordUsage(0, 4_000_000, None, LONG_AGO),  # not in `paths`
    }
    assert _unused(metrics) == ["knowledge/never.md", "knowledge/rare-old.md"]
    assert _unused(metrics, protect_rate=0.1) == ["knowledge/never.md"]  # 0.25/Mtok is now protected
    assert _unused(None) == [] and _unused({}) == []


def test_evidence_carries_the_figures() -> None:
    (c,) = unused_candidates({"knowledge/never.md"}, {"knowledge/never.md": RecordUsage(0, 2_000_000)},
                             now=NOW, protect_rate=1.0, unused_days=90)
    assert c.type == "unused" and c.category == "unused"
    assert c.evidence["invokes"] == 0 and c.evidence["rate_per_mtok"] == 0.0
    assert c.evidence["protected"] is False and "never used" in c.reason


def test_adapter_reads_memcli_metrics_figures() -> None:
    used = dt.datetime(2026, 2, 1, tzinfo=dt.UTC)
    figures = {
        "knowledge/busy.md": RecordMetrics("knowledge/busy.md", Kind.KNOWLEDGE, "busy", LONG_AGO,
                                           [InvokeSource("s", 3, "read", used)] * 5, tokens=1_000_000,
                                           rate=5.0, protected=True),
        "knowledge/never.md": RecordMetrics("knowledge/never.md", Kind.KNOWLEDGE, "never", LONG_AGO,
                                            tokens=1_000_000),
    }
    usage = usage_from_metrics(Metrics(figures, {}, 1.0, 2, 1_000_000))
    assert usage["knowledge/busy.md"] == RecordUsage(5, 1_000_000, used, LONG_AGO)
    assert usage["knowledge/busy.md"].rate == figures["knowledge/busy.md"].rate
    assert _unused(usage) == ["knowledge/never.md"]

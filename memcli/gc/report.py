"""`build_report`: every GC check over one read of the workspace, as a `GcReport` (no writes)."""

from __future__ import annotations

import dataclasses
import datetime as dt

from memcli.context import build_context
from memcli.gc.checks import (
    bloat_candidates,
    replaced_candidates,
    stale_candidates,
    unreferenced_candidates,
)
from memcli.gc.drift import GitUnavailable, drift_candidates
from memcli.gc.duplicates import near_duplicates
from memcli.gc.model import Candidate, GcReport
from memcli.gc.usage import UsageMetrics, unused_candidates, usage_evidence
from memcli.lint import lint
from memcli.lint.cache import ResultCache
from memcli.lint.snapshot import Snapshot
from memcli.records.parse import ParsedRecord
from memcli.workspace import Kind, Workspace

# Kinds compared for near-duplicate bodies: the summary digests the others (quoting is expected).
_DUPLICATE_KINDS = (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE, Kind.WORKFLOW)


def _duplicates(valid: list[ParsedRecord], similarity: float, min_chars: int) -> list[Candidate]:
    items = [
        (r.path, r.body)
        for r in valid
        if r.kind in _DUPLICATE_KINDS and not (r.kind is Kind.DECISION and r.model.status == "replaced")
    ]
    out = []
    for group in near_duplicates(items, similarity, min_chars):
        best = max(score for _, _, score in group.pairs)
        out.append(
            Candidate(
                "near-duplicate",
                group.paths,
                f"{len(group.paths)} records with bodies up to {best:g}% alike; merge them into one",
                {"pairs": [{"paths": [a, b], "similarity": s} for a, b, s in group.pairs],
                 "similarity_cutoff": similarity},
            )
        )
    return out


def build_report(
    workspace: Workspace,
    metrics: UsageMetrics | None = None,
    *,
    now: dt.datetime | None = None,
    cache: ResultCache | None = None,
) -> GcReport:
    """GC candidates for `workspace`; `metrics` (path → RecordUsage) enables `unused` and usage figures.
    `cache` (the Linter's result cache) lets the lint pass skip every record it has seen unchanged."""
    now = now or dt.datetime.now(dt.UTC)
    cfg = workspace.config
    snap = Snapshot(workspace, cache=cache)
    readable = [snap.record(p) for by_slug in snap.slugs.values() for p in by_slug.values()]
    valid = sorted((r for r in readable if r.model is not None), key=lambda r: r.path)
    skipped = tuple(sorted(r.path for r in readable if r.model is None))

    candidates = bloat_candidates(lint(workspace, snapshot=snap))
    candidates += stale_candidates(valid, now, cfg.gc.stale_days)
    candidates += replaced_candidates(valid, now, cfg.gc.replaced_days)
    candidates += _duplicates(valid, cfg.gc.duplicate_similarity, cfg.gc.duplicate_min_chars)
    resident = {e.slug for e in build_context(workspace, snapshot=snap).shown}
    knowledge = {r.slug: r.path for r in valid if r.kind is Kind.KNOWLEDGE and r.slug}
    candidates += unreferenced_candidates(knowledge, [r for r in readable if r.ok], resident)
    invocable = {r.path for r in valid if r.kind in (Kind.KNOWLEDGE, Kind.WORKFLOW)}
    candidates += unused_candidates(
        invocable, metrics, now=now, protect_rate=cfg.metrics.protect_rate, unused_days=cfg.gc.unused_days
    )
    drift_note = None
    try:
        candidates += drift_candidates(workspace.root, valid)
    except GitUnavailable as exc:
        drift_note = f"skipped: {exc}"
    if metrics:
        candidates = [_with_usage(c, metrics, cfg.metrics.protect_rate) for c in candidates]
    return GcReport(
        now=now,
        records=len(valid),
        candidates=tuple(sorted(candidates, key=Candidate.sort_key)),
        skipped=skipped,
        config={**cfg.gc.model_dump(), "protect_rate": cfg.metrics.protect_rate},
        metrics_available=bool(metrics),
        drift_checked=drift_note is None,
        drift_note=drift_note,
    )


def _with_usage(candidate: Candidate, metrics: UsageMetrics, protect_rate: float) -> Candidate:
    usage = usage_evidence(candidate.paths[0], metrics, protect_rate)
    if usage is None or "invokes" in candidate.evidence:
        return candidate
    return dataclasses.replace(candidate, evidence={**candidate.evidence, "usage": usage})

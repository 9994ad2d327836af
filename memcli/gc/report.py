"""`build_report`: every GC check over one read of the workspace, as a `GcReport` (no writes)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from memcli.anchors import AnchorChecker
from memcli.config import as_dict
from memcli.context import Entry, order_entries
from memcli.gc.checks import (
    bloat_candidates,
    replaced_candidates,
    stale_candidates,
    unreferenced_candidates,
)
from memcli.gc.drift import GitUnavailable, Mention, drift_from_mentions
from memcli.gc.duplicates import Doc, TokenHashes, group_duplicates, normalise
from memcli.gc.facts import FactsCache, GcFacts, facts_of
from memcli.gc.model import Candidate, GcReport
from memcli.gc.resident import resident_slugs
from memcli.gc.usage import UsageMetrics, unused_candidates, usage_evidence
from memcli.lint import lint
from memcli.lint.cache import ResultCache
from memcli.lint.snapshot import Snapshot
from memcli.records.anchors import Anchor
from memcli.workspace import Kind, Workspace, locate


def _duplicates(
    facts: list[GcFacts], snap: Snapshot, similarity: float, min_chars: int, scores: FactsCache | None
) -> list[Candidate]:
    docs = [Doc(f.path, f.dup_len, f.dup_digest, f.dup_sample) for f in facts if f.dup_len >= 0]
    groups = group_duplicates(
        docs, lambda path: normalise(snap.parse(path).body), similarity, min_chars, scores
    )
    out = []
    for group in groups:
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


def record_facts(snap: Snapshot, paths: list[str], facts_cache: FactsCache | None) -> list[GcFacts]:
    """The facts of each record: from the cache by the Linter's content key (an unchanged file is
    not even read), else from one parse, kept in `snap` so the lint pass that follows reuses it."""
    hashes = TokenHashes()
    out = []
    for path in paths:
        key = snap.content_key(path) if facts_cache is not None else None
        facts = facts_cache.facts(key) if facts_cache is not None and key is not None else None
        if facts is None:
            facts = facts_of(snap.record(path), hashes)
            if facts_cache is not None and key is not None:
                facts_cache.put_facts(key, facts)
        out.append(facts)
    return out


def _resident(snap: Snapshot, facts: dict[str, GcFacts]) -> tuple[list[Entry], list[str]]:
    rows = []
    for slug, path in snap.slugs[Kind.KNOWLEDGE].items():
        f = facts[path]
        rows.append((slug, path, (*f.entry, f.updated) if f.valid and f.entry else None))
    return order_entries(rows)


def build_report(
    workspace: Workspace,
    metrics: UsageMetrics | None = None,
    *,
    now: dt.datetime | None = None,
    cache: ResultCache | None = None,
    facts_cache: FactsCache | None = None,
) -> GcReport:
    """GC candidates for `workspace`; `metrics` (path → RecordUsage) enables `unused` and usage figures.
    `cache` (the Linter's result cache, over a refreshed record store) lets the lint pass skip every
    record it has seen unchanged and every record be read from the store; with it, `facts_cache`
    lets the GC checks skip them too."""
    now = now or dt.datetime.now(dt.UTC)
    cfg = workspace.config
    snap = Snapshot(workspace, cache=cache, store=cache.store if cache is not None else None)
    paths = [p for by_slug in snap.slugs.values() for p in by_slug.values()]
    facts_cache = facts_cache if cache is not None else None  # its keys are the Linter cache's
    facts = record_facts(snap, paths, facts_cache)
    valid = sorted((f for f in facts if f.valid), key=lambda f: f.path)
    skipped = tuple(sorted(f.path for f in facts if not f.valid))

    candidates = bloat_candidates(lint(workspace, snapshot=snap))
    candidates += stale_candidates(valid, now, cfg.gc.stale_days)
    candidates += replaced_candidates(valid, now, cfg.gc.replaced_days)
    candidates += _duplicates(
        valid, snap, cfg.gc.duplicate_similarity, cfg.gc.duplicate_min_chars, facts_cache
    )
    by_path = {f.path: f for f in facts}
    resident = resident_slugs(workspace, snap, _resident(snap, by_path), facts_cache)
    slugs = {path: slug for by_slug in snap.slugs.values() for slug, path in by_slug.items()}
    knowledge = {slugs[f.path]: f.path for f in valid if f.entry is not None and slugs[f.path]}
    candidates += unreferenced_candidates(knowledge, [f.references for f in facts if f.ok], resident)
    invocable = {f.path for f in valid if locate(f.path).kind in (Kind.KNOWLEDGE, Kind.WORKFLOW)}
    candidates += unused_candidates(
        invocable, metrics, now=now, protect_rate=cfg.metrics.protect_rate, unused_days=cfg.gc.unused_days
    )
    drift_note = None
    try:
        candidates += drift_from_mentions(
            workspace.root, ((f.path, [Mention(p, line) for p, line in f.mentions]) for f in valid)
        )
    except GitUnavailable as exc:
        drift_note = f"skipped: {exc}"
    else:
        anchored = anchor_candidates(workspace.root, valid)
        # a path both named in the text and declared as an anchor is reported once, as the anchor
        declared = {(c.paths[0], c.evidence["path"]) for c in anchored}
        candidates = [c for c in candidates if c.type != "code-drift"
                      or (c.paths[0], c.evidence.get("path")) not in declared] + anchored
    if metrics:
        candidates = [_with_usage(c, metrics, cfg.metrics.protect_rate) for c in candidates]
    return GcReport(
        now=now,
        records=len(valid),
        candidates=tuple(sorted(candidates, key=Candidate.sort_key)),
        skipped=skipped,
        config={**as_dict(cfg.gc), "protect_rate": cfg.metrics.protect_rate},
        metrics_available=bool(metrics),
        drift_checked=drift_note is None,
        drift_note=drift_note,
    )


def anchor_candidates(root: Path, valid: list[GcFacts]) -> list[Candidate]:
    """Code drift of declared anchors: the same check `memcli context`, `search` and the Linter make."""

    anchored = [f for f in valid if f.anchors]
    groups = [[Anchor(path, symbol or None) for path, symbol in f.anchors] for f in anchored]
    out = []
    for facts, issues in zip(anchored, AnchorChecker(root).check_many(groups), strict=True):
        for issue in issues:
            out.append(Candidate("code-drift", (facts.path,), f"anchor: {issue.message}",
                                 {"anchor": True, **issue.to_json()}))
    return out


def _with_usage(candidate: Candidate, metrics: UsageMetrics, protect_rate: float) -> Candidate:
    usage = usage_evidence(candidate.paths[0], metrics, protect_rate)
    if usage is None or "invokes" in candidate.evidence:
        return candidate
    return dataclasses.replace(candidate, evidence={**candidate.evidence, "usage": usage})

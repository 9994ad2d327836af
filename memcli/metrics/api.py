"""`Metrics`: the figures other commands read (gc-report, the memory tools, consolidate)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memcli.metrics.figures import RecordMetrics, compute, total_tokens, workspace_records
from memcli.metrics.scan import ScanSummary, refresh
from memcli.metrics.state import State, load_state
from memcli.sessions import discover
from memcli.values import frozen
from memcli.workspace import Workspace


@frozen
class Metrics:
    """Per-record usage over the counted sessions; keys are workspace paths of existing records."""

    records: dict[str, RecordMetrics]
    aliases: dict[str, str]  # replaced decision path -> path now carrying its figures
    threshold: float
    sessions: int
    tokens: int

    def get(self, path_or_slug: str) -> RecordMetrics | None:
        path = path_or_slug if "/" in path_or_slug else self._slug_path(path_or_slug)
        if path is None:
            return None
        return self.records.get(self.aliases.get(path, path))

    def _slug_path(self, slug: str) -> str | None:
        for kind_rank in ("knowledge/", "memory/workflow/", "memory/decisions/", "memory/requests/"):
            path = f"{kind_rank}{slug}.md"
            if path in self.records or path in self.aliases:
                return path
        return None

    def rate(self, path_or_slug: str) -> float:
        found = self.get(path_or_slug)
        return found.rate if found else 0.0

    def protected(self, path: str, threshold: float | None = None) -> bool:
        found = self.get(path)
        if found is None or found.count == 0:
            return False
        return found.rate >= (self.threshold if threshold is None else threshold)

    def rates(self) -> dict[str, float]:
        """path -> rate for every record, replaced ones included (they carry their replacement's)."""
        out = {path: m.rate for path, m in self.records.items()}
        out.update({old: self.records[new].rate for old, new in self.aliases.items()})
        return out

    def unused(
        self, days: int, now: dt.datetime | None = None, threshold: float | None = None
    ) -> list[RecordMetrics]:
        """Records older than `days`, with no invoke in the last `days` days and a rate below threshold."""
        now = now or dt.datetime.now(dt.UTC)
        cutoff = now - dt.timedelta(days=days)
        limit = self.threshold if threshold is None else threshold
        out = []
        for m in self.records.values():
            if m.window_start is None or m.window_start > cutoff:
                continue
            last = m.last_use
            if (last is None or last < cutoff) and (m.count == 0 or m.rate < limit):
                out.append(m)
        return sorted(out, key=lambda m: m.path)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "tokens": self.tokens,
            "protect_rate": self.threshold,
            "records": [record_json(m) for m in sorted(self.records.values(), key=_order)],
        }


def _order(m: RecordMetrics) -> tuple[float, str]:
    return (-m.rate, m.path)


def record_json(m: RecordMetrics) -> dict[str, Any]:
    last = m.last_use
    return {
        "path": m.path,
        "type": m.kind.value,
        "slug": m.slug,
        "invokes": m.count,
        "tokens": m.tokens,
        "rate": round(m.rate, 6),
        "last_use": last.isoformat() if last else None,
        "protected": m.protected,
        "since": m.window_start.isoformat() if m.window_start else None,
        "merged_from": list(m.merged_from),
        "sources": [{"session_id": i.session_id, "range": [i.index, i.index], "how": i.how}
                    for i in m.invokes],
    }


def build(ws: Workspace, state: State) -> Metrics:
    threshold = ws.config.metrics.protect_rate
    records = workspace_records(ws)
    figures = compute(state, records, threshold)
    aliases = {path: m.path for m in figures.values() for path in m.merged_from}
    return Metrics(figures, aliases, threshold, len({s.session_id for s in state.sessions.values()}),
                   total_tokens(state))


def load_metrics(ws: Workspace) -> Metrics | None:
    """The figures from the last count, or None while no session has ever been counted."""
    state = load_state(ws.state_dir)
    if state is None or not state.sessions:
        return None
    return build(ws, state)


def refresh_metrics(
    ws: Workspace, paths: Sequence[Path] | None = None, *, rebuild: bool = False
) -> tuple[Metrics, ScanSummary]:
    """Count the new entries of the workspace's sessions (or of `paths`), save, and build figures."""

    # scan=False: discovery must not read every transcript in full; counting reads only what is new.
    infos = discover(ws, paths=list(paths) if paths else None, scan=False)
    state, summary = refresh(ws.state_dir, infos, rebuild=rebuild)
    return build(ws, state), summary

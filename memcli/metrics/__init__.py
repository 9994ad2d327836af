"""Usage metrics and the knowledge-candidate report (issue 9), deterministic, no LLM.

Library API for the other commands (all take an open `Workspace`):

- `load_metrics(ws) -> Metrics | None` — the figures from the last count, without reading any
  transcript (fast). None while no session was ever counted: then usage protection is skipped
  (pipeline spec §3) and gc-report shows no `unused` candidates.
- `refresh_metrics(ws, paths=None, rebuild=False) -> (Metrics, ScanSummary)` — count the entries
  added since the last run (incremental, state in `ws.state_dir/metrics.json`), then build figures.
- `Metrics` (keys are workspace paths of records that exist now; a decision replaced via
  `replaced_by` carries no figures of its own, they moved to its replacement):
  - `.rate(path_or_slug) -> float` — explicit invokes per million session tokens since `created_at`;
  - `.protected(path, threshold=None) -> bool` — rate >= `metrics.protect_rate` (or `threshold`);
  - `.rates() -> dict[path, float]` — every record, replaced ones mapped to their replacement's
    rate: the mapping `memcli.tools.policy.Protection(rates=..., threshold=...)` takes;
  - `.unused(days, now=None, threshold=None) -> list[RecordMetrics]` — records older than `days`
    with no invoke in the last `days` days and a rate below the threshold (gc-report `unused`);
  - `.get(path_or_slug) -> RecordMetrics | None` (`.count`, `.rate`, `.tokens`, `.last_use`,
    `.invokes` = list of `InvokeSource(session_id, index, how, time)`), `.to_json_dict()`.
- `candidate_report(ws, metrics=None) -> CandidateReport` — `.candidates` (kind `recurring`,
  `invoked` or `imported`, topic, Sources, evidence, related records), `.sources` (frozenset of
  `(session_id, start, end)`: the Sources a new knowledge file may cite — the `candidates` argument of
  `memcli.tools.policy.check_new_knowledge`), `.allows(session_id, start, end)`, `.to_json_dict()`
  (the consolidation input).

CLI: `memcli metrics [--all] [--json] [--candidates] [--rebuild] [--session PATH ...]`.
"""

from __future__ import annotations

from memcli.metrics.api import Metrics, load_metrics, refresh_metrics
from memcli.metrics.candidates import Candidate, CandidateReport, candidate_report
from memcli.metrics.figures import InvokeSource, RecordMetrics
from memcli.metrics.scan import ScanSummary

__all__ = [
    "Candidate",
    "CandidateReport",
    "InvokeSource",
    "Metrics",
    "RecordMetrics",
    "ScanSummary",
    "candidate_report",
    "load_metrics",
    "refresh_metrics",
]

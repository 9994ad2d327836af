"""The hook point for usage metrics (`memcli metrics`, built separately): `unused` candidates and
the protection flag, from a typed mapping of workspace-relative record path → usage.

The metrics side lists every record it measured, with `invokes=0` when it was never invoked; a
record missing from the mapping was not measured and is never reported (absence is not evidence).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from memcli.gc.model import Candidate
from memcli.values import frozen


@frozen
class RecordUsage:
    invokes: int  # explicit invocations of the record in the measured window
    session_tokens: int  # session tokens in that window (the rate's denominator)
    last_used_at: dt.datetime | None = None
    measured_since: dt.datetime | None = None  # start of the window for this record (e.g. its creation)

    @property
    def rate(self) -> float:
        """Explicit invokes per million session tokens (the unit of `metrics.protect_rate`)."""
        return self.invokes * 1_000_000 / self.session_tokens if self.session_tokens > 0 else 0.0

    def protected(self, protect_rate: float) -> bool:
        """At or above the protection rate (never with zero invokes, as in `memcli metrics`)."""
        return self.invokes > 0 and self.rate >= protect_rate

    def to_json_dict(self, protect_rate: float) -> dict[str, Any]:
        return {
            "invokes": self.invokes,
            "session_tokens": self.session_tokens,
            "rate_per_mtok": round(self.rate, 4),
            "last_used_at": self.last_used_at.isoformat() if self.last_used_at else None,
            "measured_since": self.measured_since.isoformat() if self.measured_since else None,
            "protected": self.protected(protect_rate),
        }


UsageMetrics = Mapping[str, RecordUsage]


def unused_candidates(
    paths: set[str],
    metrics: UsageMetrics | None,
    *,
    now: dt.datetime,
    protect_rate: float,
    unused_days: int,
) -> list[Candidate]:
    """Measured records in `paths` invoked less than `protect_rate` per million session tokens, not
    used for more than `unused_days` (or never) and measured for longer than that. No metrics: none."""
    if not metrics:
        return []
    out = []
    for path in sorted(set(metrics) & paths):
        usage = metrics[path]
        if usage.protected(protect_rate):
            continue
        if usage.measured_since is not None and (now - usage.measured_since).days <= unused_days:
            continue  # too new to judge
        if usage.last_used_at is not None and (now - usage.last_used_at).days <= unused_days:
            continue
        when = (
            f"last used {(now - usage.last_used_at).days} days ago"
            if usage.last_used_at
            else "never used"
        )
        out.append(
            Candidate(
                "unused",
                (path,),
                f"{usage.invokes} explicit invokes ({usage.rate:.2f} per million session tokens, under "
                f"{protect_rate:g}), {when}; drop it or fold it into a record that is used",
                {**usage.to_json_dict(protect_rate), "protect_rate": protect_rate,
                 "unused_days": unused_days},
            )
        )
    return out


def usage_evidence(
    path: str, metrics: UsageMetrics | None, protect_rate: float
) -> dict[str, Any] | None:
    """Usage figures to attach to any candidate about `path` (Phase 2 must not drop a protected record)."""
    if not metrics or path not in metrics:
        return None
    return metrics[path].to_json_dict(protect_rate)


def usage_from_metrics(metrics: Any) -> dict[str, RecordUsage]:
    """Adapt `memcli.metrics` figures (`.records`: path → object with `count`, `tokens`, `last_use`,
    `window_start`) to the mapping `build_report` takes. Duck-typed so gc does not import metrics."""
    return {
        path: RecordUsage(
            invokes=int(m.count),
            session_tokens=int(m.tokens),
            last_used_at=m.last_use,
            measured_since=m.window_start,
        )
        for path, m in metrics.records.items()
    }

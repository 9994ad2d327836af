"""Per-record figures from the counted state and the records that exist now.

Resolution happens here, not at scan time: a read of a path or a `#slug` counts for a record only
if that record exists now (deleted records simply have no figures), and a decision replaced via
`replaced_by` hands its invokes to its replacement (following the chain), whose lifetime window then
starts at the earliest `created_at` of the chain. The rate is invokes per million session tokens
inside that window (tokens are kept per UTC day, so the window starts at the day of `created_at`).
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass, field

from memcli.metrics.state import State
from memcli.records import parse_record
from memcli.values import frozen
from memcli.workspace import Kind, Workspace, locate

# `#slug` names a knowledge record first: that is what users invoke by hand.
_SLUG_PRIORITY = (Kind.KNOWLEDGE, Kind.WORKFLOW, Kind.DECISION, Kind.REQUEST)
_MAX_HOPS = 20


@frozen
class InvokeSource:
    """Where an invoke happened: one entry of one session (a Source of range [index, index])."""

    session_id: str
    index: int
    how: str
    time: dt.datetime | None

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.session_id, self.index, self.index)


@frozen
class RecordInfo:
    path: str
    kind: Kind
    slug: str
    created_at: dt.datetime | None
    replaced_by: str | None = None  # path of the replacing decision, when it exists
    sources: tuple[tuple[str, int, int], ...] = ()


@dataclass
class RecordMetrics:
    path: str
    kind: Kind
    slug: str
    window_start: dt.datetime | None
    invokes: list[InvokeSource] = field(default_factory=list)
    tokens: int = 0
    rate: float = 0.0
    protected: bool = False
    merged_from: list[str] = field(default_factory=list)  # replaced records whose figures moved here

    @property
    def count(self) -> int:
        return len(self.invokes)

    @property
    def last_use(self) -> dt.datetime | None:
        times = [i.time for i in self.invokes if i.time is not None]
        return max(times) if times else None


def _as_time(value: object) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    return None


def workspace_records(ws: Workspace) -> dict[str, RecordInfo]:
    """Every record file that parses, keyed by workspace path (broken files are the Linter's job)."""
    raw: dict[str, tuple[Kind, str, dict]] = {}
    for rel in ws.iter_files():
        loc = locate(rel)
        if loc.kind is None or loc.slug is None or not ws.abspath(rel).is_file():
            continue
        try:
            data = ws.abspath(rel).read_bytes()
        except OSError:
            continue
        rec = parse_record(rel, data, loc.kind, loc.slug)
        raw[rel] = (loc.kind, loc.slug, rec.meta if isinstance(rec.meta, dict) else {})
    out: dict[str, RecordInfo] = {}
    for rel, (kind, slug, meta) in raw.items():
        replaced = None
        target = meta.get("replaced_by")
        if kind is Kind.DECISION and isinstance(target, str):
            candidate = f"memory/decisions/{target}.md"
            replaced = candidate if candidate in raw and candidate != rel else None
        sources = []
        for item in meta.get("last_sources" if kind is Kind.KNOWLEDGE else "sources") or []:
            try:
                sid, (start, end) = str(item["session_id"]), item["range"]
                sources.append((sid, int(start), int(end)))
            except (TypeError, KeyError, ValueError):
                continue
        out[rel] = RecordInfo(rel, kind, slug, _as_time(meta.get("created_at")), replaced, tuple(sources))
    return out


def final_path(records: dict[str, RecordInfo], path: str) -> str:
    """Follow `replaced_by` to the record that now carries `path`'s figures (cycle-safe)."""
    seen = {path}
    for _ in range(_MAX_HOPS):
        nxt = records[path].replaced_by
        if nxt is None or nxt in seen:
            break
        seen.add(nxt)
        path = nxt
    return path


class _TokenTimeline:
    """Tokens per UTC day over every session, with suffix sums: tokens since a day in O(log n)."""

    def __init__(self, state: State) -> None:
        per_day: dict[str, int] = {}
        for session in state.sessions.values():
            for day, tokens in session.day_tokens().items():
                per_day[day] = per_day.get(day, 0) + tokens
        self.days = sorted(per_day)
        self.suffix = [0] * (len(self.days) + 1)
        for i in range(len(self.days) - 1, -1, -1):
            self.suffix[i] = self.suffix[i + 1] + per_day[self.days[i]]

    @property
    def total(self) -> int:
        return self.suffix[0]

    def since(self, start: dt.datetime | None) -> int:
        if start is None:
            return self.total
        day = start.astimezone(dt.UTC).date().isoformat()
        return self.suffix[bisect.bisect_left(self.days, day)]


def compute(state: State, records: dict[str, RecordInfo], threshold: float) -> dict[str, RecordMetrics]:
    by_slug: dict[str, str] = {}
    for kind in reversed(_SLUG_PRIORITY):
        for rec in records.values():
            if rec.kind is kind:
                by_slug[rec.slug] = rec.path  # later (higher-priority) kinds overwrite
    final = {path: final_path(records, path) for path in records}
    out: dict[str, RecordMetrics] = {}
    for path, rec in records.items():
        if final[path] == path:
            out[path] = RecordMetrics(path, rec.kind, rec.slug, rec.created_at)
    for path, rec in records.items():
        target = out[final[path]]
        if final[path] != path:
            target.merged_from.append(path)
            if rec.created_at and (target.window_start is None or rec.created_at < target.window_start):
                target.window_start = rec.created_at
    for session in state.sessions.values():
        for named, how, index, stamp in session.invokes:
            key = named if "/" in named else by_slug.get(named)  # a path, or a slug to look up
            if key is None or key not in final:
                continue
            metrics = out[final[key]]
            when = _as_time(stamp)
            if when is not None and metrics.window_start is not None and when < metrics.window_start:
                continue  # before the record existed: not a use of it
            metrics.invokes.append(InvokeSource(session.session_id, index, how, when))
    timeline = _TokenTimeline(state)
    for metrics in out.values():
        metrics.tokens = timeline.since(metrics.window_start)
        metrics.invokes.sort(key=_invoke_order)
        metrics.rate = rate(metrics.count, metrics.tokens)
        metrics.protected = metrics.count > 0 and metrics.rate >= threshold
        metrics.merged_from.sort()
    return out


_EPOCH = dt.datetime.min.replace(tzinfo=dt.UTC)


def _invoke_order(i: InvokeSource) -> tuple[dt.datetime, str, int]:
    return (i.time or _EPOCH, i.session_id, i.index)


def rate(invokes: int, tokens: int) -> float:
    """Invokes per million tokens; used with no token figures at all counts as heavily used."""
    if invokes == 0:
        return 0.0
    return invokes * 1_000_000 / max(tokens, 1)


def total_tokens(state: State) -> int:
    return _TokenTimeline(state).total

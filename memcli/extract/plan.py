"""What an extract run has to do: per session, the not-yet-extracted entries, as chunks."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from memcli.config import ExtractConfig
from memcli.extract.ledger import Ledger, Span, session_key
from memcli.extract.prepare import Chunk, chunk, prepare
from memcli.sessions import read_entries
from memcli.sessions.model import Entry, SessionInfo


@dataclass(frozen=True)
class Work:
    """One chunk to send: everything needed to call the model and record the result."""

    info: SessionInfo
    key: str
    chunk: Chunk
    first_entry: Entry  # the session's first entry (rewrite detection)
    last_entry: Entry  # the chunk's last entry


@dataclass
class Plan:
    work: list[Work] = field(default_factory=list)
    sessions: int = 0  # sessions with something to extract
    up_to_date: int = 0
    waiting: list[str] = field(default_factory=list)  # still active (idle window)
    reset: list[tuple[str, str]] = field(default_factory=list)  # (session id, shrank|rewritten)
    unreadable: list[str] = field(default_factory=list)


def _last_activity(info: SessionInfo) -> dt.datetime | None:
    if info.last_time is not None:
        return info.last_time
    try:
        return dt.datetime.fromtimestamp(Path(info.path).stat().st_mtime, dt.UTC)
    except OSError:
        return None


def _uncovered_runs(entries: list[Entry], spans: list[Span]) -> list[list[Entry]]:
    """Contiguous runs of entries no recorded span covers (a run never bridges a covered entry)."""
    runs: list[list[Entry]] = []
    current: list[Entry] = []
    ranges = sorted((s.start, s.end) for s in spans)
    i = 0
    for entry in entries:  # entries come in index order: one pointer walks the sorted spans
        while i < len(ranges) and ranges[i][1] < entry.index:
            i += 1
        if i < len(ranges) and ranges[i][0] <= entry.index:
            if current:
                runs.append(current)
                current = []
        else:
            current.append(entry)
    if current:
        runs.append(current)
    return runs


def plan(infos: list[SessionInfo], ledger: Ledger, cfg: ExtractConfig, now: dt.datetime,
         *, apply_resets: bool = True) -> Plan:
    """The chunks to extract. `apply_resets=False` (dry run) reports rewritten files without
    changing the ledger."""
    from memcli.sessions import SessionReadError

    out = Plan()
    idle = dt.timedelta(minutes=cfg.idle_minutes)
    for info in infos:
        last = _last_activity(info)
        if idle and last is not None and now - last < idle:
            out.waiting.append(info.session_id)
            continue
        try:
            entries = list(read_entries(info))
        except SessionReadError as exc:
            out.unreadable.append(f"{info.session_id}: {exc}")
            continue
        if not entries:
            out.up_to_date += 1
            continue
        key = session_key(info)
        problem = ledger.check(key, entries)
        spans = ledger.spans(key)
        if problem:
            out.reset.append((info.session_id, problem))
            if apply_resets:
                ledger.reset(key, problem)
            spans = []
        before = len(out.work)
        for run in _uncovered_runs(entries, spans):
            prepared = [p for p in (prepare(e, cfg.tool_output_chars) for e in run) if p is not None]
            by_start = {e.index: e for e in run}
            for piece in chunk(prepared, cfg.chunk_tokens):
                last_entry = by_start[piece.entries[-1].start]
                out.work.append(Work(info, key, piece, entries[0], last_entry))
        if len(out.work) > before:
            out.sessions += 1
        else:
            out.up_to_date += 1
    return out

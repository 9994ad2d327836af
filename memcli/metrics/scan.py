"""Incremental counting: read only the entries of each session that were not counted before.

Per transcript file the state remembers its size, mtime, a hash of its first bytes, the next
entry index and where the reader may resume (`Position`: a byte offset after the last line that is
final, checked against a hash of the bytes before it). Agents append, so a grown file with the same
head is read from that position on (Claude Code, Codex, memcli JSONL; Gemini and Aider files are
parsed whole) and entries below the next index are passed over (a Claude response still open at the
last run is re-read whole from its first line, as before). A file that shrank, whose head changed
or whose bytes before the position changed was rewritten (Gemini CLI rewrites its JSON) and is
recounted from scratch — its old counts are dropped first, so nothing is ever counted twice.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from memcli.metrics.detect import entry_invokes
from memcli.metrics.state import SessionState, State, load_state, save_state
from memcli.sessions import read_entries
from memcli.transcript.base import SessionReadError, wal_stat
from memcli.transcript.model import Entry, SessionInfo
from memcli.transcript.resume import Position
from memcli.values import frozen

_HEAD_BYTES = 4096


@frozen
class ScanSummary:
    sessions: int  # discovered
    scanned: int  # read this run (new, grown or rewritten)
    recounted: int  # rewritten or shrunk files counted again from the start
    entries: int  # entries counted this run
    invokes: int  # invokes found this run


def estimate_tokens(text: str) -> int:
    """~4 ASCII characters per token, ~1 token per CJK character (no tokenizer: this runs over GBs)."""
    if not text:
        return 0
    if text.isascii():
        return (len(text) + 3) // 4
    wide = (len(text.encode("utf-8")) - len(text)) // 2  # 3-byte UTF-8 characters add 2 bytes each
    return (len(text) - wide + 3) // 4 + wide


def _entry_text_tokens(entry: Entry) -> int:
    total = estimate_tokens(entry.text)
    for result in entry.tool_results:
        total += estimate_tokens(result.content)
    for call in entry.tool_calls:
        args = call.arguments if isinstance(call.arguments, str) else str(call.arguments)
        total += estimate_tokens(call.name) + estimate_tokens(args)
    return total


def count_entries(session: SessionState, entries: Iterable[Entry], fallback: dt.datetime) -> tuple[int, int]:
    """Add entries with index >= session.next_index to `session`; returns (entries, invokes) added.

    Logged usage comes from the stream's `stats.tokens` when the adapter keeps one (the whole file's
    total: Codex logs usage on lines that are not entries), else from the new entries' `tokens`.
    """
    start = session.next_index
    last = dt.datetime.fromisoformat(session.last_time) if session.last_time else None
    counted = found = logged_new = 0
    new_days: dict[dt.date, int] = {}
    utc = dt.UTC
    for entry in entries:
        if entry.index < start:
            continue
        when = entry.timestamp or last or fallback
        if when.tzinfo is None:
            when = when.replace(tzinfo=utc)
        last = when
        day = when.astimezone(utc).date()
        logged_new += entry.tokens or 0
        new_days[day] = new_days.get(day, 0) + _entry_text_tokens(entry)
        for hit in entry_invokes(entry):
            stamp = entry.timestamp.isoformat() if entry.timestamp else None
            session.invokes.append((hit.target, hit.how, entry.index, stamp))
            found += 1
        span_end = getattr(entry, "end", None) or entry.index  # a merged entry spans several lines
        session.next_index = max(session.next_index, span_end + 1)
        counted += 1
    stats = getattr(entries, "stats", None)
    total = stats.tokens if stats is not None else session.logged_total + logged_new
    days = {day.isoformat(): tokens for day, tokens in new_days.items()}
    _spread(session.logged, max(total - session.logged_total, 0), days, last or fallback)
    session.logged_total = max(total, session.logged_total)
    for iso, estimate in days.items():
        if estimate:
            session.estimated[iso] = session.estimated.get(iso, 0) + estimate
    session.entries += counted
    if last is not None:
        session.last_time = last.isoformat()
    return counted, found


def _spread(buckets: dict[str, int], tokens: int, weights: dict[str, int], when: dt.datetime) -> None:
    """Add `tokens` to day buckets in proportion to the new text per day (all to `when` without any)."""
    if tokens <= 0:
        return
    weight = sum(weights.values())
    if weight <= 0:
        day = when.astimezone(dt.UTC).date().isoformat()
        buckets[day] = buckets.get(day, 0) + tokens
        return
    left = tokens
    days = sorted(weights)
    for day in days[:-1]:
        share = tokens * weights[day] // weight
        buckets[day] = buckets.get(day, 0) + share
        left -= share
    buckets[days[-1]] = buckets.get(days[-1], 0) + left


def _head(path: Path, length: int) -> str:
    with path.open("rb") as fh:
        return hashlib.sha1(fh.read(length)).hexdigest()


def update_state(state: State, infos: Iterable[SessionInfo], read_entries, *,
                 resume: bool = True) -> ScanSummary:
    """Bring `state` up to date with the given sessions; `read_entries(info, resume=position)`
    streams entries. `resume=False` re-parses grown files from their first line (the benchmark's
    baseline); the counts are the same either way."""
    sessions = scanned = recounted = entries = invokes = 0
    for info in infos:
        sessions += 1
        path = Path(info.path)
        key = f"{path.resolve()}#{info.session_id}"  # one Aider history file holds many sessions
        try:
            stat = path.stat()
        except OSError:
            continue  # vanished between discovery and now: the next run sees it (or not)
        wal = wal_stat(path)  # an SQLite database's (OpenCode's) changes sit there until a checkpoint
        mtime_ns = max(stat.st_mtime_ns, wal.st_mtime_ns if wal else 0)
        old = state.sessions.get(key)
        if old is not None and old.size == stat.st_size and old.mtime_ns == mtime_ns:
            continue
        head_len = min(stat.st_size, _HEAD_BYTES)
        fallback = dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC)
        try:
            if old is not None and (stat.st_size < old.size or _head(path, old.head_len) != old.head):
                old = None  # rewritten: drop its counts and count it again
                recounted += 1
            head = _head(path, head_len)
            position = Position.from_json(old.resume) if old is not None and resume else None
            stream = read_entries(info, resume=position)
            if position is not None and not stream.resumed:
                old = None  # the bytes before the saved position changed: rewritten after all
                recounted += 1
            # A copy: a read failing half-way must leave the saved counts of this session untouched.
            current = old.model_copy(deep=True) if old else SessionState(session_id=info.session_id,
                                                                          agent=info.agent)
            added, found = count_entries(current, stream, fallback)
        except (OSError, SessionReadError):
            continue  # vanished or became unreadable mid-run: the next run retries
        current.size, current.mtime_ns = stat.st_size, mtime_ns
        current.head, current.head_len = head, head_len
        saved = getattr(stream, "position", None)
        current.resume = saved.to_json() if saved is not None else None
        state.sessions[key] = current
        scanned += 1
        entries += added
        invokes += found
    return ScanSummary(sessions, scanned, recounted, entries, invokes)


def refresh(
    state_dir: Path, infos: Iterable[SessionInfo], *, rebuild: bool = False, resume: bool = True
) -> tuple[State, ScanSummary]:
    """Load the state, count what is new, save it atomically (only when something changed)."""

    state = None if rebuild else load_state(state_dir)
    state = state or State()
    summary = update_state(state, infos, read_entries, resume=resume)
    if summary.scanned or rebuild or not os.path.exists(state_dir / "metrics.json"):
        save_state(state_dir, state)
    return state, summary

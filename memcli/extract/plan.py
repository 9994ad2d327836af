"""What an extract run has to do: per session, the not-yet-extracted entries, as chunks (streamed)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from memcli.config import ExtractConfig
from memcli.extract.ledger import Ledger, Span, session_key
from memcli.extract.prepare import Chunk, Chunker, prepare
from memcli.extract.remember import calls_in
from memcli.sessions import SessionReadError, read_entries
from memcli.transcript.model import Entry, SessionInfo
from memcli.values import frozen


@frozen
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


class _Covered:
    """Is an entry inside a recorded span? Entries come in index order: one pointer walks the
    sorted spans (a run of uncovered entries never bridges a covered one)."""

    def __init__(self, spans: list[Span]) -> None:
        self._ranges = sorted((s.start, s.end) for s in spans)
        self._i = 0

    def __call__(self, entry: Entry) -> bool:
        ranges, i = self._ranges, self._i
        while i < len(ranges) and ranges[i][1] < entry.index:
            i += 1
        self._i = i
        return i < len(ranges) and ranges[i][0] <= entry.index


@dataclass
class _Session:
    """One streamed pass over a session: its chunks, and what the ledger check needs of it."""

    works: list[Work] = field(default_factory=list)
    count: int = 0
    first: Entry | None = None
    last: Entry | None = None  # the entry reaching furthest into the file
    recorded: list[Entry] = field(default_factory=list)  # entries at the spans' `last_index`


def _stream(info: SessionInfo, key: str, spans: list[Span], checked: list[Span],
            cfg: ExtractConfig) -> _Session:
    """Chunks of the entries `spans` leave uncovered, read in one pass that holds only the open
    chunk: prepared entries (cut to bounded size), one raw entry per chunk (its last, for the
    ledger) and the few entries that `checked` spans were recorded at."""
    out = _Session()
    covered = _Covered(spans)
    wanted = {s.last_index for s in checked}
    packer = Chunker(cfg.chunk_tokens, slim=True)
    last_prepared: Entry | None = None  # the raw entry of the open chunk's last prepared item
    closed_last: Entry | None = None
    hidden: frozenset[str] = frozenset()  # memcli_remember call ids: their results are not sent

    def emit(piece: Chunk | None, last_entry: Entry | None) -> None:
        if piece is not None and last_entry is not None:
            out.works.append(Work(info, key, piece, out.first, last_entry))  # type: ignore[arg-type]

    for entry in read_entries(info):
        if out.first is None:
            out.first = entry
        out.count += 1
        if out.last is None or entry.span[1] >= out.last.span[1]:
            out.last = entry
        if entry.index in wanted:
            out.recorded.append(entry)
        if entry.tool_calls:  # a call in a covered entry still hides its result in the next chunk
            hidden |= calls_in(entry)[1]
        if covered(entry):
            emit(packer.close(), last_prepared)
            continue
        item = prepare(entry, cfg.tool_output_chars, hidden)
        if item is None:
            continue
        closed_last, last_prepared = last_prepared, entry
        emit(packer.add(item), closed_last)
    emit(packer.close(), last_prepared)
    return out


def _check_view(session: _Session) -> list[Entry]:
    """The entries `Ledger.check` looks at: the first (first_fp), those at recorded indices, and
    the last (the file's last line); the rest of the session is not needed to judge it."""
    assert session.first is not None and session.last is not None
    return [session.first, *session.recorded, session.last]


def plan(infos: list[SessionInfo], ledger: Ledger, cfg: ExtractConfig, now: dt.datetime,
         *, apply_resets: bool = True) -> Plan:
    """The chunks to extract. `apply_resets=False` (dry run) reports rewritten files without
    changing the ledger.

    Each session is streamed, not loaded: memory holds the chunks of what is not yet extracted,
    never the whole transcript. A session found rewritten (rare) is read a second time, now as
    wholly unextracted."""

    out = Plan()
    idle = dt.timedelta(minutes=cfg.idle_minutes)
    for info in infos:
        last = _last_activity(info)
        if idle and last is not None and now - last < idle:
            out.waiting.append(info.session_id)
            continue
        key = session_key(info)
        spans = ledger.spans(key)
        try:
            session = _stream(info, key, spans, spans, cfg)
            if not session.count:
                out.up_to_date += 1
                continue
            problem = ledger.check(key, _check_view(session))
            if problem:
                out.reset.append((info.session_id, problem))
                if apply_resets:
                    ledger.reset(key, problem)
                session = _stream(info, key, [], [], cfg)
        except SessionReadError as exc:
            out.unreadable.append(f"{info.session_id}: {exc}")
            continue
        out.work.extend(session.works)
        if session.works:
            out.sessions += 1
        else:
            out.up_to_date += 1
    return out

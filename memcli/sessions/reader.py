"""Format detection (from content) and the reading entry points, over every agent's reader."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.agents import registry
from memcli.transcript.base import EntryStream, SessionReadError, open_binary, raw_lines
from memcli.transcript.model import ReadStats, SessionInfo
from memcli.transcript.resume import Cursor, Position

if TYPE_CHECKING:
    from memcli.agents.base import Agent
    from memcli.agents.parts import Reader

_HEAD_OBJECTS = 32  # records looked at to recognise a JSONL format (and to read its header fields)
_HEAD_LINES = 256
_SNIFF_BYTES = 64 * 1024


def detect(path: Path) -> tuple[Agent, Any]:
    """(agent, what its reader's `describe` needs), decided by the file's content (registry.py)."""
    with open_binary(path) as fh:
        head = fh.read(_SNIFF_BYTES)
    readers = [(agent, agent.load().reader) for agent in registry.AGENTS]
    for agent, reader in readers:
        claim = reader.claim_file(path, head) if reader.claim_file is not None else None
        if claim is not None:
            return agent, claim.head
    objects: list[dict[str, Any]] = []
    lines = raw_lines(path, ReadStats())
    try:
        for _index, raw, _complete in itertools.islice(lines, _HEAD_LINES):
            obj = _loads(raw)
            if obj is None:
                continue
            objects.append(obj)
            for agent, reader in readers:
                if reader.claim_record is not None and reader.claim_record(obj):
                    return agent, objects + _more(lines)
    finally:
        lines.close()
    fallback = registry.get(registry.FALLBACK)
    assert fallback is not None
    return fallback, []  # nothing recognisable: every line counted as skipped


def _loads(raw: bytes | None) -> dict[str, Any] | None:
    if not raw or not raw.strip():
        return None
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _more(lines: Any) -> list[dict[str, Any]]:
    """A few more records after the deciding one, for header fields (cwd, first timestamp)."""
    out = []
    for _index, raw, _complete in itertools.islice(lines, _HEAD_OBJECTS):
        obj = _loads(raw)
        if obj is not None:
            out.append(obj)
    return out


def sessions_in(path: Path) -> list[SessionInfo]:
    """The sessions a file holds (one, except an Aider history), with header fields only.

    Cheap: entries / skipped / last_time are filled in by `scan`.
    """
    path = Path(path)
    if not path.exists():
        raise SessionReadError(f"{path}: no such file")
    agent, head = detect(path)
    infos = agent.load().reader.describe(path, head)
    size = path.stat().st_size
    return [dataclasses.replace(info, size=info.size or size) for info in infos]


def _reader(info: SessionInfo) -> Reader:
    agent = registry.get(info.agent)
    if agent is None:
        raise SessionReadError(f"{info.path}: no reader for agent {info.agent!r}")
    return agent.load().reader


def read_entries(info: SessionInfo, resume: Position | None = None) -> EntryStream:
    """Stream the entries of one session; `stream.stats` is complete once the stream is exhausted.

    `resume`: a `stream.position` saved from an earlier read of the same file. When it still
    matches the file (grown only by appending), reading starts there: the entries are those a full
    read yields from `resume.line` on, and the final stats equal a full read's. Otherwise, and for
    formats read whole (Gemini, Aider), the file is read from the start (`stream.resumed` False).
    """
    reader = _reader(info)
    if not reader.resumable:
        return EntryStream(lambda stats: reader.entries(info, stats))
    if resume is not None and resume.offset and not resume.valid_for(Path(info.path)):
        resume = None
    stats = ReadStats()
    if resume is not None:
        resume.restore(stats)
    cursor = Cursor(stats, resume)
    return EntryStream(lambda st: reader.entries(info, st, cursor), stats=stats, cursor=cursor,
                       resumed=resume is not None)


def line_span(info: SessionInfo, lines_read: int) -> tuple[int, int]:
    """First and last line of its file a session spans, once `lines_read` of its lines were read."""
    return _reader(info).lines(info, lines_read)


def read_session(source: Path | SessionInfo) -> tuple[SessionInfo, EntryStream]:
    """(header info, entry stream) of a session file, or of a SessionInfo from discover()."""
    if isinstance(source, SessionInfo):
        return source, read_entries(source)
    infos = sessions_in(Path(source))
    if len(infos) != 1:
        ids = ", ".join(i.session_id for i in infos[:5])
        raise SessionReadError(f"{source} holds {len(infos)} sessions ({ids}…); read one SessionInfo of "
                               "sessions_in() or pick one with `memcli sessions`")
    return infos[0], read_entries(infos[0])


def scan(info: SessionInfo) -> SessionInfo:
    """The info with entries, first/last time, skipped and extra counts from one full read."""
    stream = read_entries(info)
    for _entry in stream:
        pass
    stats = stream.stats
    times = [t for t in (stats.first_time, info.first_time) if t is not None]
    lasts = [t for t in (stats.last_time, info.last_time) if t is not None]
    extra = dict(info.extra, ignored=stats.ignored, tokens=stats.tokens, truncated=stats.truncated,
                 lines=stats.lines)
    if stats.reasons:
        extra["skip_reasons"] = dict(stats.reasons)
    return dataclasses.replace(info, entries=stats.entries, skipped=stats.skipped, extra=extra,
                               first_time=min(times) if times else None,
                               last_time=max(lasts) if lasts else None)

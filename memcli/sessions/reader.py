"""Format detection (from content) and the reading entry points over the five adapters."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from memcli.sessions import aider, claude, codex, gemini, plain
from memcli.sessions.base import EntryStream, ReadStats, SessionReadError, open_binary, raw_lines
from memcli.sessions.model import SessionInfo
from memcli.sessions.resume import Cursor, Position

ADAPTERS: dict[str, ModuleType] = {m.AGENT: m for m in (claude, codex, gemini, aider, plain)}
_HEAD_OBJECTS = 32  # records looked at to recognise a JSONL format (and to read its header fields)
_HEAD_LINES = 256
_SNIFF_BYTES = 64 * 1024


def detect(path: Path) -> tuple[str, Any]:
    """(agent, what its `describe` needs), decided by the file's content; the suffix only breaks ties."""
    with open_binary(path) as fh:
        head = fh.read(_SNIFF_BYTES)
    if aider.looks_like(head) or (path.suffix == ".md" and aider.has_turns(head)):
        return aider.AGENT, None
    body = head.lstrip()
    first_line = body.split(b"\n", 1)[0].strip()
    if body.startswith(b"{") and (first_line == b"{" or path.suffix == ".json"):
        obj = gemini.load(path)
        if obj is not None and gemini.sniff(obj):
            return gemini.AGENT, obj
        if obj is None and b'"messages"' in head and b'"sessionId"' in head:
            return gemini.AGENT, None  # a Gemini file being rewritten right now
    objects: list[dict[str, Any]] = []
    lines = raw_lines(path, ReadStats())
    try:
        for _index, raw, _complete in itertools.islice(lines, _HEAD_LINES):
            obj = _loads(raw)
            if obj is None:
                continue
            objects.append(obj)
            for adapter in (codex, claude, plain):
                if adapter.sniff(obj):
                    return adapter.AGENT, objects + _more(lines)
            if gemini.sniff(obj):
                return gemini.AGENT, obj
            if gemini.is_header(obj):
                return gemini.AGENT, objects
    finally:
        lines.close()
    return plain.AGENT, []  # nothing recognisable: read as memcli JSONL, every line counted as skipped


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
    if agent == aider.AGENT:
        return aider.describe(path)
    infos = ADAPTERS[agent].describe(path, head)
    size = path.stat().st_size
    return [dataclasses.replace(info, size=info.size or size) for info in infos]


def read_entries(info: SessionInfo, resume: Position | None = None) -> EntryStream:
    """Stream the entries of one session; `stream.stats` is complete once the stream is exhausted.

    `resume`: a `stream.position` saved from an earlier read of the same file. When it still
    matches the file (grown only by appending), reading starts there: the entries are those a full
    read yields from `resume.line` on, and the final stats equal a full read's. Otherwise, and for
    formats read whole (Gemini, Aider), the file is read from the start (`stream.resumed` False).
    """
    adapter = ADAPTERS.get(info.agent)
    if adapter is None:
        raise SessionReadError(f"{info.path}: no reader for agent {info.agent!r}")
    if not getattr(adapter, "RESUMABLE", False):
        return EntryStream(lambda stats: adapter.entries(info, stats))
    if resume is not None and resume.offset and not resume.valid_for(Path(info.path)):
        resume = None
    stats = ReadStats()
    if resume is not None:
        resume.restore(stats)
    cursor = Cursor(stats, resume)
    return EntryStream(lambda st: adapter.entries(info, st, cursor), stats=stats, cursor=cursor,
                       resumed=resume is not None)


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

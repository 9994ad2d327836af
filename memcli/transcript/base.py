"""What the agents' readers share: bounded line reading, JSONL records, the entry stream, timestamps.

A transcript can be hundreds of MB and still being written, so every reader streams: one line in
memory at a time (a line longer than MAX_LINE is skipped, not loaded), a corrupt or unknown line is
counted and skipped, and a last line without its newline is an agent mid-write, not corruption.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from memcli.errors import MemcliError
from memcli.transcript.model import Entry, ReadStats
from memcli.transcript.resume import CHECK_BYTES, Cursor, Position

MAX_LINE = 64 * 1024 * 1024  # one JSONL record; Claude tool results reach a few MB, never this


class SessionReadError(MemcliError):
    """A session file cannot be read at all (missing, a directory, unreadable)."""


class EntryStream(Iterator[Entry]):
    """An iterator of entries that keeps `stats` up to date as it is consumed.

    `position` is where a later read may resume (JSONL formats; None for files read whole), final
    once the stream is exhausted; `resumed` says whether this read started at a given position
    (False when none was given or it no longer matched the file, so the read started at line 0).
    """

    def __init__(self, make: Callable[[ReadStats], Iterator[Entry]], *, stats: ReadStats | None = None,
                 cursor: Cursor | None = None, resumed: bool = False) -> None:
        self.stats = stats if stats is not None else ReadStats()
        self.cursor = cursor
        self.resumed = resumed
        self._it = make(self.stats)

    @property
    def position(self) -> Position | None:
        return self.cursor.position if self.cursor is not None else None

    def __iter__(self) -> EntryStream:
        return self

    def __next__(self) -> Entry:
        entry = next(self._it)
        stats = self.stats
        stats.entries += 1
        if entry.tokens:
            stats.tokens += entry.tokens
        if entry.timestamp is not None:
            if stats.first_time is None or entry.timestamp < stats.first_time:
                stats.first_time = entry.timestamp
            if stats.last_time is None or entry.timestamp > stats.last_time:
                stats.last_time = entry.timestamp
        return entry


def raw_lines(path: Path, stats: ReadStats, start: int = 0,
              cursor: Cursor | None = None) -> Generator[tuple[int, bytes | None, bool], None, None]:
    """(0-based line number, line bytes without the newline or None when too long, complete?).

    `start` is a byte offset that must sit at the beginning of a line (Aider sessions inside one file).
    With a `cursor`, reading starts at the cursor's position (its line numbers continue) and the
    cursor follows every line read, so the caller can mark where a later read may resume.
    """
    fh = open_binary(path)
    with fh:
        index = 0
        if cursor is not None:
            start, index = cursor.offset, cursor.line
        if start:
            fh.seek(start)
        while True:
            line = fh.readline(MAX_LINE)
            if not line:
                return
            stats.lines += 1
            if len(line) == MAX_LINE and not line.endswith(b"\n"):
                size, more = len(line), line
                while True:  # drain the rest of the over-long line without keeping it
                    more = fh.readline(MAX_LINE)
                    size += len(more)
                    if not more or more.endswith(b"\n"):
                        break
                if cursor is not None:
                    cursor.advance(size, line[-CHECK_BYTES:] + more, more.endswith(b"\n"))
                yield index, None, True
            else:
                complete = line.endswith(b"\n")
                if cursor is not None:
                    cursor.advance(len(line), line, complete)
                yield index, line.rstrip(b"\r\n"), complete
            index += 1


def json_objects(path: Path, stats: ReadStats,
                 cursor: Cursor | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSONL file with their line numbers; everything else counted and skipped.

    With a `cursor` (see raw_lines) the reader marks resume points: only it knows what it still
    holds open. A skipped line is not marked; the next mark covers it (a resumed read that starts
    before it skips and counts it again, from counts taken before it).
    """
    for index, raw, complete in raw_lines(path, stats, cursor=cursor):
        if raw is None:
            stats.skip("line-too-long")
            continue
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")  # explicit: json.loads(bytes) would guess UTF-16 from some bytes
        except UnicodeDecodeError:
            stats.skip("invalid-utf8")
            continue
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            if not complete:
                stats.truncated = True  # an agent mid-write; the next read will see the whole line
            else:
                stats.skip("not-json")
            continue
        if not isinstance(obj, dict):
            stats.skip("not-an-object")
            continue
        yield index, obj


def wal_stat(path: Path) -> os.stat_result | None:
    """The write-ahead log beside an SQLite database (OpenCode's), where its changes sit until a
    checkpoint copies them into the file; None when there is none, or an empty one (a read-only
    open leaves that behind, and it holds no change)."""
    try:
        wal = path.with_name(path.name + "-wal").stat()
    except OSError:
        return None
    return wal if wal.st_size else None


def open_binary(path: Path):
    try:
        if path.is_dir():
            raise SessionReadError(f"{path} is a directory, not a session file")
        return path.open("rb")
    except OSError as exc:
        raise SessionReadError(f"cannot read {path}: {exc.strerror or exc}") from None


def parse_time(value: Any) -> dt.datetime | None:
    """ISO-8601 (the agents write UTC with `Z`) or epoch seconds/ms → an aware datetime."""
    if isinstance(value, str) and value:
        try:
            stamp = dt.datetime.fromisoformat(value)
        except ValueError:
            return None
        return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        seconds = value / 1000 if value > 1e11 else value
        try:
            return dt.datetime.fromtimestamp(seconds, dt.UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def text_of(content: Any) -> str:
    """Plain text of a message content: a string, or a list of blocks with `text`."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
        return "\n".join(parts)
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def tool_arguments(raw: Any) -> dict[str, Any] | str:
    """Tool-call arguments as a dict when they are JSON (OpenAI-style logs keep them as a JSON
    string), else as text."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return raw
        return parsed if isinstance(parsed, dict) else raw
    return text_of(raw)

"""Resuming an append-only transcript where an earlier read stopped (JSONL formats only).

A `Position` is a line boundary from which reading on gives exactly what a full read gives from
that line on: the same entries (same indices, same Claude multi-line merging) and, because it
carries the read statistics up to it, the same `stats` at the end. Readers mark such boundaries
only where they hold nothing pending: a Claude Code response still open (its lines may continue
after the point) moves the mark back to the response's first line, so a resumed read re-yields
that response whole; a consumer skips entries whose index it has seen (`index < position.line`
never happens: re-yielded entries start at or after the line).

A position is checked before use: the file must still be at least `offset` bytes long and the
bytes just before it (the end of the last line read, up to CHECK_BYTES) must hash the same. A file
that shrank or was rewritten fails the check and is read in full (`EntryStream.resumed` is False).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

from memcli.transcript.model import ReadStats
from memcli.values import frozen

CHECK_BYTES = 256


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


@frozen
class Position:
    """Resume point: byte `offset` at the start of 0-based line `line`, and the read so far."""

    offset: int
    line: int
    check: str = ""  # hash of the `check_len` bytes before `offset`
    check_len: int = 0
    carry: tuple[str, ...] = ()  # reader state at the point (Claude: message ids whose usage counted)
    entries: int = 0
    skipped: int = 0
    ignored: int = 0
    tokens: int = 0
    first_time: str | None = None
    last_time: str | None = None
    reasons: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["carry"], out["reasons"] = list(self.carry), [list(r) for r in self.reasons]
        return out

    @classmethod
    def from_json(cls, data: Any) -> Position | None:
        """The position saved by `to_json`, or None when `data` is not one (then read in full)."""
        if not isinstance(data, dict):
            return None
        try:
            pos = cls(**{**data, "carry": tuple(str(c) for c in data.get("carry", ())),
                         "reasons": tuple((str(k), int(n)) for k, n in data.get("reasons", ()))})
        except (TypeError, ValueError):
            return None
        ints = (pos.offset, pos.line, pos.check_len, pos.entries, pos.skipped, pos.ignored, pos.tokens)
        if not all(isinstance(v, int) and v >= 0 for v in ints):
            return None
        return pos

    def valid_for(self, path: Path) -> bool:
        """Is the file still the one this position was taken from, grown only by appending?"""
        if self.offset == 0:
            return True
        if self.check_len <= 0 or self.check_len > self.offset:
            return False
        try:
            with Path(path).open("rb") as fh:
                fh.seek(0, 2)
                if fh.tell() < self.offset:
                    return False  # shrank
                fh.seek(self.offset - self.check_len)
                return _digest(fh.read(self.check_len)) == self.check
        except OSError:
            return False

    def restore(self, stats: ReadStats) -> None:
        """Put the counts of the lines before the position into a fresh ReadStats."""
        stats.lines, stats.entries, stats.skipped = self.line, self.entries, self.skipped
        stats.ignored, stats.tokens = self.ignored, self.tokens
        stats.first_time = _time(self.first_time)
        stats.last_time = _time(self.last_time)
        stats.reasons.update(dict(self.reasons))


def _time(value: str | None) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


class Cursor:
    """Follows the lines `raw_lines` reads (byte offsets, line ends) so readers can mark resume
    points cheaply: a mark keeps raw values; the Position (hash included) is built on demand."""

    def __init__(self, stats: ReadStats, start: Position | None = None) -> None:
        self.stats = stats
        self.start = start
        self.offset = start.offset if start else 0  # end of the last line read
        self.line = start.line if start else 0  # index of the next line
        self._tail: bytes | None = None  # end of the last line read (None: incomplete)
        self._before: tuple[int, int, bytes | None] | None = None  # (offset, line, tail) before it
        self._mark: tuple[Any, ...] | None = None
        self._pos: Position | None = start or Position(0, 0)  # nothing final yet: from the start

    def advance(self, size: int, tail: bytes, complete: bool) -> None:
        """One more line of `size` bytes (newline included) was read."""
        self._before = (self.offset, self.line, self._tail)
        self.offset += size
        self.line += 1
        self._tail = tail[-CHECK_BYTES:] if complete else None

    def mark(self, carry: tuple[str, ...] = ()) -> None:
        """Everything up to the end of the last line read is final: resume after it."""
        if self._tail is not None:
            self._set(self.offset, self.line, self._tail, carry)

    def mark_before(self, carry: tuple[str, ...] = ()) -> None:
        """Everything before the last line read is final (that line opens something still open)."""
        if self._before is not None:
            offset, line, tail = self._before
            if tail is not None or offset == 0:
                self._set(offset, line, tail or b"", carry)

    def _set(self, offset: int, line: int, tail: bytes, carry: tuple[str, ...]) -> None:
        s = self.stats
        self._mark = (offset, line, tail, carry, s.entries, s.skipped, s.ignored, s.tokens,
                      s.first_time, s.last_time, tuple(s.reasons.items()) if s.reasons else ())
        self._pos = None

    @property
    def position(self) -> Position | None:
        if self._pos is None and self._mark is not None:
            offset, line, tail, carry, entries, skipped, ignored, tokens, first, last, reasons = self._mark
            if offset == 0 or tail:
                self._pos = Position(offset, line, _digest(tail) if tail else "", len(tail), carry,
                                     entries, skipped, ignored, tokens,
                                     first.isoformat() if first else None,
                                     last.isoformat() if last else None, reasons)
        return self._pos

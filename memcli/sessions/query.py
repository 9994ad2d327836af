"""Which sessions, and which of their entries, a command asks for: `--since` (one syntax for every
command that takes it), a Source's `SESSION:START-END`, and the entries such a range points to
(`memcli source`, `memcli why`, the MCP server's source tool)."""

from __future__ import annotations

import datetime as dt
import re

from memcli.errors import MemcliError, UsageError
from memcli.sessions.reader import line_span, read_entries
from memcli.transcript.model import Entry, SessionInfo

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


class RangeError(MemcliError):
    """A Source range that is not inside its session."""


def parse_since(value: str | None, now: dt.datetime | None = None) -> dt.datetime | None:
    """`2025-09-01`, `2025-09-01T10:00`, or a relative `30m` / `12h` / `7d` / `2w` → aware UTC time."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    match = _RELATIVE.match(text)
    if match:
        amount = float(match.group(1))
        return (now or dt.datetime.now(dt.UTC)) - dt.timedelta(**{_UNITS[match.group(2)]: amount})
    try:
        stamp = dt.datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--since {value!r}: use a date (2025-09-01), a time (2025-09-01T10:00) "
                         "or an age (30m, 12h, 7d, 2w)") from None
    return stamp if stamp.tzinfo else stamp.astimezone(dt.UTC)


def parse_spec(spec: str) -> tuple[str, tuple[int, int] | None]:
    """`SESSION:START-END`, `SESSION:N` or `SESSION` → (session id, inclusive range or None)."""
    session, sep, tail = spec.strip().rpartition(":")
    if not sep:
        session, tail = spec.strip(), ""
    match = _RANGE.match(tail.strip())
    if sep and not match:  # `id:`, `id:x-y`: no agent's session id holds a colon, so this is a typo
        raise UsageError(f"{spec!r}: write the range as SESSION:START-END (or SESSION:N) with 0-based "
                         "entry indices, or give the SESSION alone for all of it")
    if not session:
        raise UsageError(f"{spec!r}: no session id before the range (SESSION:START-END)")
    if match is None:
        return session, None
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) is not None else start
    if end < start:
        raise UsageError(f"{spec!r}: the range ends before it starts; write {session}:{end}-{start}")
    return session, (start, end)


def select(info: SessionInfo, span: tuple[int, int] | None) -> list[Entry]:
    """The entries of a session that overlap the line span (all of them without one)."""
    stream = read_entries(info)
    chosen: list[Entry] = []
    for entry in stream:
        first, last = entry.span
        if span is None or (first <= span[1] and last >= span[0]):
            chosen.append(entry)
        elif first > span[1]:
            return chosen  # entries come in line order: nothing later can overlap
    if span is not None:
        low, high = line_span(info, stream.stats.lines)
        if span[0] < low or span[1] > high:
            raise RangeError(f"{info.session_id}:{span[0]}-{span[1]} is out of range: the session spans "
                             f"lines {low}-{high} of {info.path}")
    return chosen

"""`memcli sessions` and `memcli source`: the library side of the two commands."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

from memcli.errors import EXIT_OK, MemcliError, UsageError, WorkspaceNotFound
from memcli.sessions.discover import discover, find_session
from memcli.sessions.reader import line_span, read_entries
from memcli.sessions.render import entry_json, entry_text, human_size, info_json, minute
from memcli.transcript.model import Entry, SessionInfo

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
UNREADABLE = ("not-json", "invalid-utf8", "not-an-object", "line-too-long")  # other reasons: unknown kinds


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


def _workspace(workspace: Path | None, need: bool):
    from memcli.config import Config
    from memcli.workspace import Workspace

    try:
        return Workspace.open(workspace)
    except WorkspaceNotFound:
        if need:
            raise
        # explicit paths work outside a workspace too; with no state folder, nothing is cached
        return SimpleNamespace(root=Path.cwd(), config=Config(), state_dir=None)


def run_sessions(workspace: Path | None, paths: list[Path], since: str | None = None,
                 as_json: bool = False, show_all: bool = False) -> int:
    ws = _workspace(workspace, need=not paths)
    found = discover(ws, since=parse_since(since), paths=paths or None)
    # Aider opens a session at every launch, most with nothing said: noise unless asked for. A file
    # with skipped lines is shown even so: it may be a format this memcli cannot read yet.
    infos = [i for i in found if show_all or i.entries or i.skipped]
    hidden = len(found) - len(infos)
    if as_json:
        print(json.dumps([info_json(i) for i in infos], ensure_ascii=False, indent=2))
        return EXIT_OK
    if not infos:
        print("No sessions found for this workspace (see docs/sessions.md for where memcli looks)."
              + (f" {hidden} empty session(s) hidden; --all lists them." if hidden else ""))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from memcli.tables import print_table

    table = Table(box=None, pad_edge=False)
    table.add_column("agent", no_wrap=True)
    table.add_column("session", overflow="fold")  # ids are what `memcli source` needs: never cut them
    for name in ("entries", "skipped"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("first", no_wrap=True)
    table.add_column("last", no_wrap=True)
    table.add_column("size", justify="right", no_wrap=True)
    rows = [(Text(info.agent), Text(info.session_id), str(info.entries), str(info.skipped or ""),
             minute(info.first_time), minute(info.last_time), human_size(info.size)) for info in infos]
    for row in rows:
        table.add_row(*row)
    console = Console()
    print_table(console, table, [c.header for c in table.columns], rows)
    for info in infos:
        if info.skipped:
            console.print(skipped_note(info), highlight=False, soft_wrap=True)
    if hidden:
        console.print(f"({hidden} empty session(s) hidden; --all lists them)", highlight=False)
    return EXIT_OK


def skipped_note(info: SessionInfo) -> str:
    """One line on what a session's skipped lines were: lines of a kind this memcli does not know
    (the agent's format changed) are never left at a bare count."""
    reasons = info.extra.get("skip_reasons") or {}
    unknown = sum(n for r, n in reasons.items() if r not in UNREADABLE)
    unreadable = info.skipped - unknown
    parts = [f"{unknown} {'line' if unknown == 1 else 'lines'} of an unknown kind"] if unknown else []
    parts += [f"{unreadable} unreadable {'line' if unreadable == 1 else 'lines'}"] if unreadable else []
    why = ", ".join(f"{r} {n}" for r, n in sorted(reasons.items()))
    hint = f"; is {info.agent} newer than this memcli reads? (`pip install -U memcli`)" if unknown else ""
    return f"{info.session_id}: {' and '.join(parts)} skipped ({why}){hint}"


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


def run_source(workspace: Path | None, spec: str, paths: list[Path] | None = None,
               as_json: bool = False) -> int:
    session_id, span = parse_spec(spec)
    ws = _workspace(workspace, need=not paths)
    info = find_session(ws, session_id, paths=paths or None)
    chosen = select(info, span)
    if as_json:
        doc = {"session_id": info.session_id, "agent": info.agent, "path": str(info.path),
               "range": list(span) if span else None, "entries": [entry_json(e) for e in chosen]}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return EXIT_OK
    where = f"{span[0]}-{span[1]}" if span else "all"
    out = [f"── {info.session_id}:{where} · {info.agent} · {info.path}"]
    if not chosen:
        out.append("(no conversation entries in these lines)")
    out.extend(entry_text(e) for e in chosen)
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK

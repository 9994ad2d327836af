"""`memcli sessions`: the agent sessions of this workspace (memcli.sessions), as a table or JSON."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from memcli.commands import workspace_or_here
from memcli.errors import EXIT_OK
from memcli.sessions.discover import discover
from memcli.sessions.query import parse_since
from memcli.sessions.render import human_size, info_json, minute
from memcli.tables import print_table
from memcli.transcript.model import SessionInfo

UNREADABLE = ("not-json", "invalid-utf8", "not-an-object", "line-too-long")  # other reasons: unknown kinds


def run(paths: list[Path] | None = None, *, since: str | None = None, show_all: bool = False,
        as_json: bool = False, workspace: Path | None = None) -> int:
    ws = workspace_or_here(workspace, need=not paths)
    found = discover(ws, since=parse_since(since), paths=paths or None)
    # Aider opens a session at every launch, most with nothing said: noise unless asked for. A file
    # with skipped lines is shown even so: it may be a format this memcli cannot read yet.
    infos = [i for i in found if show_all or i.entries or i.skipped]
    hidden = len(found) - len(infos)
    if as_json:
        print(json.dumps([info_json(i) for i in infos], ensure_ascii=False, indent=2))
        return EXIT_OK
    if not infos:
        print("No sessions found for this workspace: each agent's own folder was searched for "
              "sessions started here; pass transcripts with --path (`memcli sessions --help`)."
              + (f" {hidden} empty session(s) hidden; --all lists them." if hidden else ""))
        return EXIT_OK
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
    print_table(console, table, [str(c.header) for c in table.columns], rows)
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

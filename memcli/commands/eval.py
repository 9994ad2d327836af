"""`memcli eval`: read the sessions, evaluate, print; `--stage` writes the uncovered ones to staging."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from memcli.config import Config
from memcli.errors import EXIT_OK, UsageError, WorkspaceNotFound
from memcli.eval.evaluate import evaluate
from memcli.eval.meaning import Meaning
from memcli.eval.report import render_json, render_text
from memcli.eval.stage import stage as write_staging
from memcli.eval.statements import read_sessions
from memcli.search.semantic import Embedder
from memcli.sessions.query import parse_since  # one --since syntax for every command
from memcli.workspace import Workspace


def _workspace(workspace: Path | None, paths: list[Path]) -> Workspace | None:
    try:
        return Workspace.open(workspace)
    except WorkspaceNotFound:
        if workspace is not None or not paths:
            raise
        return None  # explicit transcripts outside a workspace: the repetitions, no memory


def _meaning(ws: Workspace | None):
    if ws is None or not ws.config.search.embedding_model:
        return None  # no model configured: nothing calls one
    embedder = Embedder.from_config(ws.config.search)
    return Meaning(embedder, ws.state_dir) if embedder is not None else None


def run(paths: list[Path] | None = None, *, since: str | None = None, as_json: bool = False,
        stage: bool = False, workspace: Path | None = None, console: Console | None = None) -> int:
    paths = list(paths or [])
    when = parse_since(since)
    ws = _workspace(workspace, paths)
    if stage and ws is None:
        raise UsageError("--stage writes to a workspace's memory/_staging/: run it inside one or pass "
                         "-w PATH")
    where = ws if ws is not None else SimpleNamespace(root=Path.cwd(), config=Config(), state_dir=None)
    sessions = read_sessions(where, since=when, paths=paths or None)
    meaning = _meaning(ws)
    try:
        report = evaluate(ws, sessions, meaning)
    finally:
        if meaning is not None:
            meaning.close()
    staged = None
    if stage and ws is not None:
        staged = write_staging(ws, report.repetitions)
    if as_json:
        sys.stdout.write(render_json(report, staged) + "\n")
    else:
        render_text(report, console or Console(highlight=False), staged)
    return EXIT_OK

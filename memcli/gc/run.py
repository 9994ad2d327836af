"""`memcli gc-report`: print the GC candidates; never changes a file."""

from __future__ import annotations

import sys

from rich.console import Console

from memcli.errors import EXIT_OK, UsageError
from memcli.gc.render import FORMATS, render_json, render_markdown, render_text
from memcli.gc.report import build_report
from memcli.workspace import Workspace


def run(workspace: Workspace, *, fmt: str = "text", console: Console | None = None) -> int:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    # Usage metrics are passed by callers that have them (`build_report(ws, metrics)`); the command
    # will read them once `memcli metrics` stores some.
    report = build_report(workspace)
    if fmt == "json":
        print(render_json(report))
    elif fmt == "markdown":
        print(render_markdown(report))
    else:
        render_text(report, console or Console(file=sys.stdout, highlight=False))
    return EXIT_OK

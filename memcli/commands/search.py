"""`memcli search QUERY`: check the arguments, ask the query service, print."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.commands import open_workspace
from memcli.errors import EXIT_OK
from memcli.search import query as service
from memcli.search.render import is_terminal, render_json, render_lines, render_table

if TYPE_CHECKING:
    from rich.console import Console


def run(query: str, *, types: list[str] | None = None, kind: str | None = None, status: str | None = None,
        include_replaced: bool = False, limit: int = 10, lexical: bool = False, as_json: bool = False,
        workspace: Path | None = None, console: Console | None = None) -> int:
    ws = open_workspace(workspace)
    parsed = service.check(query, types=types, kind=kind, status=status, limit=limit)
    found = service.answer(ws, parsed, types=types, kind=kind, status=status,
                           include_replaced=include_replaced, limit=limit, lexical=lexical)
    hits, vectors = found.hits, found.vectors
    if as_json:
        sys.stdout.write(render_json(hits) + "\n")
    elif console is None and not is_terminal(sys.stdout):
        render_lines(hits, sys.stdout, broken=found.broken)
    else:
        from rich.console import Console  # here: only a terminal draws a table (tests/test_lean_start.py)

        render_table(hits, console or Console(), broken=found.broken)
    if vectors is not None and vectors.error:  # the hits above are lexical; say why on stderr
        sys.stderr.write(f"note: lexical only this time: {vectors.error}\n")
    elif vectors is not None and vectors.missing:
        sys.stderr.write(f"note: {vectors.missing} record(s) not embedded yet (next searches go on); "
                         "they rank by their words until then\n")
    return EXIT_OK

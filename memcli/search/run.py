"""`memcli search QUERY`: check the arguments, search, print."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from memcli.errors import EXIT_OK, UsageError
from memcli.search.hit import with_anchor_marks
from memcli.search.index import SearchIndex
from memcli.search.render import is_terminal, render_json, render_lines, render_table
from memcli.search.semantic import Embedder
from memcli.search.text import query_groups
from memcli.workspace import Kind, Workspace

if TYPE_CHECKING:
    from rich.console import Console

TYPES = tuple(k.value for k in Kind)
KNOWLEDGE_KINDS = ("term", "policy", "rule", "fact", "howto")
STATUSES = ("open", "resolved", "replaced")


def _check(value: str | None, allowed: tuple[str, ...], option: str) -> None:
    if value is not None and value not in allowed:
        raise UsageError(f"{option} {value!r} is not one of: {', '.join(allowed)}")


def run(workspace: Workspace, query: str, *, types: list[str] | None = None, kind: str | None = None,
        status: str | None = None, include_replaced: bool = False, limit: int = 10, as_json: bool = False,
        lexical: bool = False, console: Console | None = None) -> int:
    if not query.strip():
        raise UsageError("empty query; give some words to search for, e.g. memcli search 'sqlite backup'")
    if not query_groups(query):
        raise UsageError(f"the query {query[:40]!r} has no letters or digits to search for")
    for value in types or []:
        _check(value, TYPES, "--type")
    _check(kind, KNOWLEDGE_KINDS, "--kind")
    _check(status, STATUSES, "--status")
    if limit < 1:
        raise UsageError(f"--limit must be at least 1 (got {limit})")
    embedder = None if lexical else Embedder.from_config(workspace.config.search)
    with SearchIndex.for_workspace(workspace) as index:
        hits = index.search(query, types=types or None, kind=kind, status=status,
                            include_replaced=include_replaced, limit=limit, embedder=embedder)
        broken = index.counts()[1]
        vectors = index.vectors
    hits = with_anchor_marks(workspace.root, hits)
    if as_json:
        sys.stdout.write(render_json(hits) + "\n")
    elif console is None and not is_terminal(sys.stdout):
        render_lines(hits, sys.stdout, broken=broken)
    else:
        from rich.console import Console

        render_table(hits, console or Console(), broken=broken)
    if vectors is not None and vectors.error:  # the hits above are lexical; say why on stderr
        sys.stderr.write(f"note: lexical only this time: {vectors.error}\n")
    elif vectors is not None and vectors.missing:
        sys.stderr.write(f"note: {vectors.missing} record(s) not embedded yet (next searches go on); "
                         "they rank by their words until then\n")
    return EXIT_OK

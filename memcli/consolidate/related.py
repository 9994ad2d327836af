"""Existing decisions and requests, for an input that cannot hold them all in full: a catalogue
(one line per record) and the full text of the records most related to the staging items at hand.

Related records are found with memcli's own lexical search (the one `memory_search` uses) run
against the scratch copy the model works on, with each item's own text as the query: the copy's
index is the tools' index too, and a record written for an earlier batch is found for a later one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from memcli.recordtext import read_file
from memcli.workspace import KIND_DIRS, Kind, Workspace

KINDS = (Kind.DECISION, Kind.REQUEST)
PER_ITEM = 4  # hits asked for per staging item; the best of each item come first
_QUERY_CHARS = 400  # an item's text as a query: its title and the start of its body are what matters
_LINE_CHARS = 80


def record_paths(ws: Workspace) -> list[str]:
    """Every decision and request, workspace-relative, in path order."""
    paths: list[str] = []
    for kind in KINDS:
        folder = ws.abspath(KIND_DIRS[kind])
        if folder.is_dir():
            paths += [f"{KIND_DIRS[kind]}/{p.name}" for p in sorted(folder.glob("*.md")) if p.is_file()]
    return paths


def read(ws: Workspace, rel: str) -> str:
    data, why = read_file(ws.abspath(rel))  # bounded, never waits on a FIFO
    if data is None:
        raise OSError(why)
    return data.decode("utf-8", "replace")


def catalogue_line(ws: Workspace, rel: str) -> str:
    """`- path [status] first line of the body`: enough to know a record exists and what it is about."""
    text = read(ws, rel)
    front, body = "", text
    parts = re.split(r"^---[ \t]*$", text, maxsplit=2, flags=re.M)
    if len(parts) == 3 and not parts[0].strip():
        front, body = parts[1], parts[2]
    status = re.search(r"^status:[ \t]*[\"']?([\w-]+)", front, re.M)  # plain or quoted YAML
    first = next((ln.strip().lstrip("#").strip() for ln in body.splitlines() if ln.strip()), "")
    if len(first) > _LINE_CHARS:
        first = first[: _LINE_CHARS - 1] + "…"
    return f"- {rel}" + (f" [{status.group(1)}]" if status else "") + (f" {first}" if first else "") + "\n"


def item_query(fields: dict[str, Any]) -> str:
    """A staging item's words, title first, as a search query."""
    words = [str(fields.get("title", ""))]
    words += [str(v) for k, v in fields.items() if k != "title" and isinstance(v, str)]
    return " ".join(w for w in words if w.strip())[:_QUERY_CHARS]


def related_paths(ws: Workspace, queries: list[str]) -> list[str]:
    """Decisions and requests matching the queries, deduplicated: every query's best hit first, then
    every query's second, and so on, so one wordy item cannot crowd out the others."""
    # here: `memcli status` loads this module (through consolidate.inputs), not the search index
    from memcli.analysis.text import query_groups
    from memcli.search import search

    ranked = [[h.path for h in search(ws, q, types=[k.value for k in KINDS], include_replaced=True,
                                      limit=PER_ITEM)]
              for q in queries if q.strip() and query_groups(q)]
    out: dict[str, None] = {}
    for rank in range(PER_ITEM):
        for paths in ranked:
            if rank < len(paths):
                out.setdefault(paths[rank], None)
    return list(out)


def within(budget: int, paths: list[str], render: Callable[[str], str],
           count: Callable[[str], int]) -> tuple[list[str], list[str]]:
    """The renderings of `paths`, in order, that fit `budget` tokens, and the paths that did not."""
    shown, left, used = [], [], 0
    for rel in paths:
        text = render(rel)
        cost = count(text)
        if used + cost <= budget:
            shown.append(text)
            used += cost
        else:
            left.append(rel)
    return shown, left

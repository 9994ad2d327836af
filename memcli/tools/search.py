"""memory_search and knowledge_search: thin views over `memcli.search.search` for the model."""

from __future__ import annotations

from typing import Any

from memcli.tools.result import ToolResult, failure, success
from memcli.tools.schemas import MEMORY_TYPES
from memcli.workspace import Workspace


def _search(workspace: Workspace, query: str, **kwargs: Any) -> list[Any] | ToolResult:
    if not query.strip():
        return failure("arguments", "query is empty; give a few words to look for")
    from memcli.search import search  # lazy: the index machinery is not needed by the write tools

    return search(workspace, query, **kwargs)


def memory_search(
    workspace: Workspace,
    query: str,
    types: list[str] | None,
    status: str | None,
    include_replaced: bool,
    limit: int,
) -> ToolResult:
    hits = _search(
        workspace,
        query,
        types=list(types or MEMORY_TYPES),
        status=status,
        include_replaced=include_replaced,
        limit=limit,
    )
    if isinstance(hits, ToolResult):
        return hits
    shown = [
        {
            "slug": h.slug,
            "path": h.path,
            "type": h.type,
            "status": h.status,
            "score": round(h.score, 4),
            "description": h.description,
            "snippet": h.snippet,
        }
        for h in hits
    ]
    return success(f"{len(shown)} memory hits for {query!r}", hits=shown)


def knowledge_search(workspace: Workspace, query: str, kind: str | None, limit: int) -> ToolResult:
    hits = _search(workspace, query, types=["knowledge"], kind=kind, limit=limit)
    if isinstance(hits, ToolResult):
        return hits
    shown = [
        {
            "slug": h.slug,
            "path": h.path,
            "description": h.description,
            "kind": h.kind,
            "model_invocation": h.model_invocation,
            "score": round(h.score, 4),
            "snippet": h.snippet,
        }
        for h in hits
    ]
    message = f"{len(shown)} knowledge hits for {query!r}"
    if not shown:
        message += "; no existing record fits, so a new one may be needed (if the candidate report allows it)"
    return success(message, hits=shown)

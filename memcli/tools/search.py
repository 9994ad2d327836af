"""memory_search and knowledge_search: thin views over the query service (memcli.search.query).

Each hit carries what the model needs to pick a record to merge into without reading them all:
slug, path, type, description, a snippet with «matches», and per type the decision status or the
knowledge kind and `model_invocation`. Hits come from the index of the workspace root the session
works on (a scratch copy during consolidation), refreshed before each query, so records the model
wrote a moment ago are found too.
"""

from __future__ import annotations

from typing import Any

from memcli.errors import UsageError
from memcli.tools.result import ToolResult, failure, success
from memcli.tools.schemas import MEMORY_TYPES
from memcli.workspace import Workspace

_MEMORY_FIELDS = ("slug", "path", "type", "status", "replaced_by", "description", "snippet")
_KNOWLEDGE_FIELDS = ("slug", "path", "description", "kind", "model_invocation", "snippet")
# descriptions and snippets are record text: to the model, the hits are fenced data, one per line
_HITS = (("hits", "search hits, one JSON object per line", "jsonl"),)


def _search(workspace: Workspace, query: str, **kwargs: Any) -> list[Any] | ToolResult:
    # here: the write tools, and `memcli status` through consolidation's journal, load this module
    from memcli.search import query as service

    try:
        parsed = service.check(query, flag="")
    except UsageError as exc:
        return failure("arguments", str(exc))
    return service.answer(workspace, parsed, lexical=True, marks=False, **kwargs).hits


def _view(hit: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    out = {key: getattr(hit, key) for key in fields if getattr(hit, key) is not None}
    out["score"] = round(hit.score, 4)
    return out


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
    shown = [_view(h, _MEMORY_FIELDS) for h in hits]
    return success(f"{len(shown)} memory hits for {query!r}", hits=shown, fenced=_HITS)


def knowledge_search(workspace: Workspace, query: str, kind: str | None, limit: int) -> ToolResult:
    hits = _search(workspace, query, types=["knowledge"], kind=kind, limit=limit)
    if isinstance(hits, ToolResult):
        return hits
    shown = [_view(h, _KNOWLEDGE_FIELDS) for h in hits]
    message = f"{len(shown)} knowledge hits for {query!r}"
    if not shown:
        message += "; no existing knowledge record matches these words (try other words before creating one)"
    return success(message, hits=shown, fenced=_HITS)

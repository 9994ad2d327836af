"""Ranked, CJK-aware search over a workspace's records, with an incrementally refreshed index.

Library API (the consolidation worker's memory/knowledge search tools and agent integrations call it):

    from memcli.search import search, SearchIndex, SearchHit

    hits = search(workspace, "sqlite backup", types=["knowledge"], limit=5)
    for hit in hits:
        hit.slug, hit.path, hit.type, hit.score, hit.description, hit.snippet  # snippet marks «matches»

    # Any directory laid out like a workspace (e.g. a scratch copy), index in memory or in a file:
    with SearchIndex(scratch_root) as index:                      # in memory
        hits = index.search("japanese commit messages")
    with SearchIndex(root, index_path(state_dir, root)) as index:  # on disk, one file per root
        ...

`search()` keeps its index under `workspace.state_dir` (git-ignored), refreshes it before each query
(only changed files are read again) and rebuilds it silently when it is corrupt or outdated.
Filters: `types` (decision / request / knowledge / summary / workflow), `kind` (knowledge kind),
`status` (decision status). A decision with `status: replaced` is shown only when the query is about
it or it is the best match (or with `include_replaced=True` / `status="replaced"`), always below its
replacement, with
`hit.replaced_by` set. A query with no searchable words returns [].
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memcli.search.hit import MARK_CLOSE, MARK_OPEN, SearchHit
from memcli.search.index import RefreshStats, SearchIndex, index_path
from memcli.workspace import Workspace

__all__ = [
    "MARK_CLOSE",
    "MARK_OPEN",
    "RefreshStats",
    "SearchHit",
    "SearchIndex",
    "index_path",
    "search",
]


def search(workspace: Workspace | Path, query: str, *, types: Iterable[str] | None = None,
           kind: str | None = None, status: str | None = None, include_replaced: bool = False,
           limit: int = 10) -> list[SearchHit]:
    """Ranked hits for `query` in `workspace` (a Workspace, or the path of one), best first."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace.open(Path(workspace), search=False)
    with SearchIndex.for_workspace(ws) as index:
        return index.search(query, types=types, kind=kind, status=status,
                            include_replaced=include_replaced, limit=limit)

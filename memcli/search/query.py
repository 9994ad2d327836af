"""The one query service: what `memcli search`, the MCP tool `memcli_search` and the consolidation
memory tools (memcli.tools.search) ask of the index, with one set of input checks.

Each caller renders the answer its own way (a table or lines, JSON for an agent, a tool result
for the model); the hits themselves, their JSON form and the reasons a query is refused are the
same everywhere. A refused query raises UsageError, whose message each caller passes on; an
accepted one comes back analysed (memcli.search.parsed.Query), for `answer` to search as it is.
"""

from __future__ import annotations

from memcli.errors import UsageError
from memcli.search.hit import SearchHit, with_anchor_marks
from memcli.search.index import SearchIndex
from memcli.search.parsed import Query
from memcli.search.semantic import Embedder, VectorStats
from memcli.values import frozen
from memcli.workspace import Kind, Workspace

TYPES = tuple(k.value for k in Kind)
KNOWLEDGE_KINDS = ("term", "policy", "rule", "fact", "howto")
STATUSES = ("open", "resolved", "replaced")
EXAMPLE = "e.g. 'sqlite backup' or 'デプロイ 手順'"


@frozen
class Answer:
    hits: list[SearchHit]
    broken: int  # files in the index that are not valid records (indexed by their text)
    vectors: VectorStats | None  # with an embedder: what was embedded, and why it fell back to words


def _one_of(value: str | None, allowed: tuple[str, ...], option: str) -> None:
    if value is not None and value not in allowed:
        raise UsageError(f"{option} {value!r} is not one of: {', '.join(allowed)}")


def check(query: str, *, types: list[str] | None = None, kind: str | None = None, status: str | None = None,
          limit: int = 10, max_limit: int | None = None, flag: str = "--") -> Query:
    """The query, analysed; refused when nobody can answer it, options named as the caller spells
    them (`flag`)."""
    if not query.strip():
        raise UsageError(f"empty query; give a few words to search for, {EXAMPLE}")
    parsed = Query.parse(query)
    if not parsed.groups:
        raise UsageError(f"the query {query[:40]!r} has no letters or digits to search for; "
                         f"give a few words, {EXAMPLE}")
    for value in types or []:
        _one_of(value, TYPES, f"{flag}type")
    _one_of(kind, KNOWLEDGE_KINDS, f"{flag}kind")
    _one_of(status, STATUSES, f"{flag}status")
    if limit < 1 or (max_limit is not None and limit > max_limit):
        bound = f"between 1 and {max_limit}" if max_limit is not None else "at least 1"
        raise UsageError(f"{flag}limit must be {bound} (got {limit})")
    return parsed


def answer(ws: Workspace, query: str | Query, *, types: list[str] | None = None, kind: str | None = None,
           status: str | None = None, include_replaced: bool = False, limit: int = 10,
           lexical: bool = False, marks: bool = True, index: SearchIndex | None = None) -> Answer:
    """The ranked hits for a checked query: hybrid when the workspace names an embedding model
    (unless `lexical`), each marked when the code its record anchors to moved or went (`marks`).

    `index`: a long-lived process's own index of `ws` (the MCP server keeps one, so its refreshes
    watch the record folders instead of listing them: memcli/store/watch.py); else one is opened
    for this query and closed."""
    if index is None:
        with SearchIndex.for_workspace(ws) as own:
            return answer(ws, query, types=types, kind=kind, status=status, include_replaced=include_replaced,
                          limit=limit, lexical=lexical, marks=marks, index=own)
    embedder = None if lexical else Embedder.from_config(ws.config.search)
    hits = index.search(query, types=types or None, kind=kind, status=status,
                        include_replaced=include_replaced, limit=limit, embedder=embedder)
    vectors = index.vectors if embedder is not None else None  # (a kept index keeps an earlier search's)
    return Answer(with_anchor_marks(ws.root, hits) if marks else hits, index.counts()[1], vectors)

"""The structured content of each `memcli mcp` tool: always a JSON object (a client's SDK may reject
any other value: Gemini CLI's refused a bare array of hits), declared to clients as the tool's
outputSchema. TypedDicts, so that nothing is built for them but the schemas the SDK derives; from
typing_extensions, since pydantic cannot read nested `typing.TypedDict`s before Python 3.12.
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict


class Hit(TypedDict):
    """One record found, as `memcli search --json` prints it."""

    slug: str
    path: str
    type: str
    score: float
    description: str
    snippet: str
    kind: NotRequired[str]
    status: NotRequired[str]
    replaced_by: NotRequired[str]
    model_invocation: NotRequired[bool]
    parse_error: NotRequired[str]
    stale_anchors: NotRequired[list[str]]


class SearchResult(TypedDict):
    query: str
    hits: list[Hit]
    message: NotRequired[str]  # when nothing matched: what to try instead


class ReadResult(TypedDict):
    path: str
    text: str  # the file as it is: frontmatter and body
    stale_anchors: list[str]
    why: NotRequired[dict[str, Any]]  # `memcli why --json`, when asked for


class ContextResult(TypedDict):
    """`memcli context --json`."""

    text: str
    budget_tokens: int
    tokens: int
    schema: NotRequired[str]
    version: NotRequired[int]
    tokenizer: NotRequired[str]
    summary: NotRequired[dict[str, Any]]
    knowledge: NotRequired[list[dict[str, Any]]]
    cut: NotRequired[dict[str, Any]]
    skipped: NotRequired[list[str]]


class SourceEntry(TypedDict):
    index: int
    text: str  # redacted, cut to an entry's bound


class SourceResult(TypedDict):
    session: str
    agent: str
    start: int
    end: int
    entries: list[SourceEntry]
    next_start: NotRequired[int]  # set when the reply was cut: call again from this entry


class RememberResult(TypedDict):
    noted: str
    text: str
    why: str
    next: str

"""What each `memcli mcp` tool does, as plain functions over a Workspace (no MCP types here).

Each returns a `Reply`: the object a client reads as structured content (memcli.mcpserver.shapes)
and the text the model reads, built by the same library code as the CLI command it mirrors:
`search` is `memcli search --json` (its text the object as JSON), `context` is `memcli context`,
`source` renders entries the way `memcli extract` sends them to its model (redacted, tool output
cut). Memory and transcripts reach the model as data: each text is in a fence it cannot close,
under a label that says so (memcli.fence.memory_fence), as the resident context is. A failure the
model can act on raises `ToolFailure` with a message that says what to do.
Nothing of memcli's core is imported before a tool is called: the server answers the agent's
handshake first (docs/mcp.md, start-up).
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from memcli.errors import MemcliError, UsageError
from memcli.fence import memory_fence
from memcli.workspace import KIND_DIRS, SUMMARY_PATH

if TYPE_CHECKING:
    from memcli.mcpserver.shapes import (
        ContextResult,
        Hit,
        ReadResult,
        RememberResult,
        SearchResult,
        SourceEntry,
        SourceResult,
    )
    from memcli.search.index import SearchIndex
    from memcli.transcript.model import Entry
    from memcli.workspace import Workspace

MAX_LIMIT = 50
SOURCE_MAX_CHARS = 20_000  # one tool result an agent can afford in its context
ENTRY_MAX_CHARS = 4_000  # one long message or tool output must not crowd out the rest
REMEMBER_KINDS = ("decision", "request", "rule")
REMEMBER_TEXT_CHARS = 1_000  # the staging item's bound (memcli.staging)


class ToolFailure(MemcliError):
    """A tool call the model should correct; the message says how."""


class Reply(NamedTuple):
    text: str  # what the model reads
    data: Any  # the structured content: one of memcli.mcpserver.shapes, always an object


def _as_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


def search(ws: Workspace, query: str, types: list[str] | None = None, limit: int = 10,
           index: SearchIndex | None = None) -> Reply:
    """`memcli search --json`; in `index` when the caller keeps one (Searcher), else in a fresh one."""
    from memcli.search import query as service  # here: the handshake is answered before the index loads
    from memcli.search.hit import hits_json

    try:
        parsed = service.check(query, types=types, limit=limit, max_limit=MAX_LIMIT, flag="")
    except UsageError as exc:
        raise ToolFailure(str(exc)) from None
    hits = service.answer(ws, parsed, types=types, limit=limit, lexical=True, index=index).hits
    data: SearchResult = {"query": query, "hits": cast("list[Hit]", hits_json(hits))}  # shapes.Hit: that JSON
    if not hits:
        data["message"] = f"No record matches {query!r}. Try other words, or fewer of them."
    return Reply(_as_json(data), data)  # JSON, as clients parse it: the hits are strings in it


class Searcher:
    """The server's `memcli_search`: one search index for the process's life, opened at the first
    call. Kept, its refreshes after the first watch the record folders (memcli/store/watch.py)
    instead of listing and lstat-ing every record file before each query, and its memos (slugs,
    sizes) live from one call to the next.

    The SDK runs each call of a plain-function tool on a worker thread of its pool, and calls can
    overlap: the index's connection is opened for any thread, and one lock lets one call at a time
    use it. One lock, not a connection per thread: the watch, the memos and a refresh's
    transaction belong to one index, and a second index per pool thread would list every file
    again and watch the folders once more each; ranking is Python holding the GIL anyway."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._lock = threading.Lock()
        self._index: SearchIndex | None = None

    def search(self, query: str, types: list[str] | None = None, limit: int = 10) -> Reply:
        with self._lock:
            if self._index is None:
                from memcli.search.index import SearchIndex  # here: the handshake loads no index

                self._index = SearchIndex.for_workspace(self.ws, threads=True)
            return search(self.ws, query, types, limit, index=self._index)

    def close(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None


def _record_path(ws: Workspace, record: str) -> str:
    """The workspace-relative path of a record named by its slug or by its path, confined to the
    record folders (a link that leads out of them is refused, whichever way it was named)."""
    # here: the handshake loads no tool's code (docs/mcp.md)
    from memcli.tools.paths import PathRefused, confine

    name = record.strip()
    if "/" not in name and not name.endswith(".md"):
        name = _slug_path(ws, name)
    try:
        return confine(ws.root, name, write=False)
    except PathRefused as exc:
        raise ToolFailure(str(exc)) from None


def _slug_path(ws: Workspace, slug: str) -> str:
    import difflib  # here: the handshake loads no tool's code


    if slug == "summary":
        return SUMMARY_PATH
    folders = KIND_DIRS.values()
    found = [f"{folder}/{slug}.md" for folder in folders if (ws.root / folder / f"{slug}.md").is_file()]
    if len(found) == 1:
        return found[0]
    if found:
        raise ToolFailure(f"{slug!r} names {len(found)} records: {', '.join(found)}; pass one of these paths")
    slugs = [p.stem for folder in folders for p in (ws.root / folder).glob("*.md")]
    close = difflib.get_close_matches(slug, slugs, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; find records with memcli_search"
    raise ToolFailure(f"no record with the slug {slug!r}{hint}")


def read(ws: Workspace, record: str, why: bool = False) -> Reply:
    rel = _record_path(ws, record)
    full = ws.root / rel
    if full.is_dir():
        names = sorted(p.name for p in full.iterdir() if p.suffix == ".md")
        raise ToolFailure(f"{rel} is a folder of {len(names)} records; pass one record's slug or path "
                          f"(e.g. {rel}/{names[0]})" if names else f"{rel} is an empty folder")
    if not full.is_file():
        raise ToolFailure(f"{rel} does not exist; find records with memcli_search")
    # here: the handshake loads no tool's code
    from memcli.recordtext import decode, read_file

    raw, error = read_file(full)  # bounded; a FIFO put here since is refused, not waited on
    if raw is not None:
        error = decode(raw)[1]  # what the Linter's parse refuses: not UTF-8, NUL bytes, over 1 MiB
    if raw is None or error is not None:
        raise ToolFailure(f"{rel}: {error}; it cannot be read as a record")
    text = raw.decode("utf-8")
    data = _notes(ws, rel, text, why)
    return Reply(memory_fence(text) + _render_notes(data), data)


def _notes(ws: Workspace, rel: str, text: str, why: bool) -> ReadResult:
    """What memcli knows about the record beyond its text: anchors that no longer hold, and on
    request its story (`memcli why --json`: commits and reasons, Sources with who said them, usage)."""
    from memcli.anchors import stale_anchors  # here: the handshake loads no tool's code

    stale = [issue.message for issue in stale_anchors(ws.root, [rel]).get(rel, [])]
    data: ReadResult = {"path": rel, "text": text, "stale_anchors": stale}
    if why:
        from memcli.why import story  # here: as above; only a read that asks for the story loads it

        data["why"] = story(ws, rel).to_json()
    return data


def _render_notes(data: ReadResult) -> str:
    out = "".join(f"\n[memcli] ⚠ stale anchor: {message}" for message in data["stale_anchors"])
    if "why" in data:
        out += "\n[memcli why]\n" + json.dumps(data["why"], ensure_ascii=False, indent=1)
    return out + ("\n" if out else "")


def context(ws: Workspace, budget: int | None = None) -> Reply:
    from memcli.context import build_context  # here: the handshake loads no tool's code

    result = build_context(ws, budget)
    data: ContextResult = result.to_json_dict()  # type: ignore[assignment]
    return Reply(result.text, data)


def _redacted(entry: Entry) -> Entry:
    """The entry with every text redacted before anything is cut (a cut never splits a secret)."""
    from memcli.secrets import redact  # here: the handshake loads no tool's code

    def args(value: dict[str, Any] | str) -> dict[str, Any] | str:
        clean = redact(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))[0]
        if isinstance(value, str):
            return clean
        try:
            return json.loads(clean)
        except ValueError:  # a redaction took a quote with it: show the redacted text as it is
            return clean

    return replace(
        entry, text=redact(entry.text)[0], thinking=redact(entry.thinking)[0],
        tool_calls=tuple(replace(c, arguments=args(c.arguments)) for c in entry.tool_calls),
        tool_results=tuple(replace(r, content=redact(r.content)[0]) for r in entry.tool_results))


def source(ws: Workspace, session: str, start: int, end: int) -> Reply:
    """Entries `start..end` (file lines, as a Source holds them) of a session, as `memcli source`
    prints them, but redacted as `memcli extract` redacts, each cut to ENTRY_MAX_CHARS and at most
    SOURCE_MAX_CHARS in all."""
    from memcli.extract.prepare import cut  # here: the handshake loads no tool's code
    from memcli.sessions.query import select
    from memcli.sessions.render import entry_text
    from memcli.why.sources import find_transcript

    if start < 0 or end < start:
        raise ToolFailure(f"range {start}-{end}: give 0 <= start <= end (entry indices of a Source)")
    info = find_transcript(ws, session.strip())
    chosen = select(info, (start, end))
    data: SourceResult = {"session": info.session_id, "agent": info.agent, "start": start, "end": end,
                          "entries": []}
    head = f"session {info.session_id} ({info.agent}), entries {start}-{end}:"
    out = [head]
    used = len(head)
    for entry in chosen:
        text = cut(entry_text(_redacted(entry)), ENTRY_MAX_CHARS)
        if used + len(text) > SOURCE_MAX_CHARS:
            out.append(f"[cut at {SOURCE_MAX_CHARS} characters: call again with start={entry.index} for "
                       "the rest]")
            data["next_start"] = entry.index
            break
        out.append(text)
        item: SourceEntry = {"index": entry.index, "text": text}
        data["entries"].append(item)
        used += len(text) + 1
    if len(out) == 1:
        out.append("(no conversation entries in these lines)")
    return Reply(out[0] + "\n" + memory_fence("\n".join(out[1:])), data)


def remember(kind: str, text: str, why: str = "") -> Reply:
    """The acknowledgement: nothing is written; `memcli extract` stages this call from the transcript."""
    if kind not in REMEMBER_KINDS:
        raise ToolFailure(f"kind {kind!r} is not one of: {', '.join(REMEMBER_KINDS)}")
    if not text.strip():
        raise ToolFailure("text is empty; say in one or two sentences what should be kept")
    data: RememberResult = {
        "noted": kind,
        "text": text.strip(),
        "why": why.strip(),
        "next": "Kept in this session's transcript: `memcli extract` stages it for review and "
                "`memcli consolidate` turns it into a memory record. Nothing was written now; "
                "do not write memory files yourself.",
    }
    return Reply(json.dumps(data, ensure_ascii=False), data)

"""`memcli_remember` calls in transcripts → staging items, deterministically, without a model.

An agent connected to `memcli mcp` says "keep this" by calling the `memcli_remember(kind, text,
why?)` tool; the server writes nothing, the call stays in the transcript, and `memcli extract`
turns each call into one staging file whose Source is exactly the entry of the call. Agents name
MCP tools differently (each agent's TOOL_NAMES, memcli/agents/<agent>/__init__.py: Claude Code
`mcp__<server>__memcli_remember`, Gemini CLI 0.61 `mcp_<server>_…`, Copilot CLI `<server>-…`, ...),
so the name is matched on its last component (tests/agents/test_registry.py holds every agent's
forms to it). The call and its acknowledgement are kept from the extract model (it would stage the
same thing a second time); a chunk holding nothing else needs no model call at all.

Kinds map onto the staging schema: `decision` → a decision item (text, why as its rationale);
`request` → a request item; `rule` → a request item titled `Rule: …` (a standing instruction
from the user; consolidation files it, and new knowledge only comes through the candidate report).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from memcli.records.models import Source
from memcli.secrets import redact
from memcli.staging import (
    Branch,
    DecisionItem,
    ExtractedItems,
    Provenance,
    RequestItem,
    StagingFile,
    staging_id,
)
from memcli.transcript.model import Entry
from memcli.values import frozen

TOOL = "memcli_remember"
KINDS = ("decision", "request", "rule")
VERSION = "remember-1"  # the mapping's version: staging ids and the ledger tell it from a prompt's
MODEL = "memcli_remember"  # staging files made by this module name it as their "model"
_NAME = re.compile(r"^(?:.*[-_./:])?memcli_remember$")
_TEXT = 1_000
_TITLE = 80


def is_remember(name: str) -> bool:
    return bool(_NAME.match(name))


@frozen
class Remembered:
    """One `memcli_remember` call: the entry's line span (its Source) and what it asked to keep."""

    start: int
    end: int
    kind: str
    text: str
    why: str


def _clean(value: Any) -> str:
    return redact(value.strip())[0][:_TEXT] if isinstance(value, str) else ""


def calls_in(entry: Entry) -> tuple[tuple[Remembered, ...], frozenset[str]]:
    """The well-formed remember calls of an entry, and the call ids of every remember call (their
    acknowledgements are not shown to the extract model). A call the server would have refused
    (unknown kind, empty text) asked to keep nothing."""
    found: list[Remembered] = []
    ids: set[str] = set()
    start, end = entry.span
    for call in entry.tool_calls:
        if not is_remember(call.name):
            continue
        if call.call_id:
            ids.add(call.call_id)
        args = call.arguments
        text = _clean(args.get("text")) if isinstance(args, dict) else ""
        if text and isinstance(args, dict) and args.get("kind") in KINDS:
            found.append(Remembered(start, end, args["kind"], text, _clean(args.get("why"))))
    return tuple(found), frozenset(ids)


def _title(text: str) -> str:
    first = re.split(r"(?<=[.!?。！？])\s*|\n", text, maxsplit=1)[0].strip() or text
    return first if len(first) <= _TITLE else first[: _TITLE - 1].rstrip() + "…"


def items_of(r: Remembered) -> ExtractedItems:
    title = _title(r.text)
    if r.kind == "decision":
        return ExtractedItems(decisions=[DecisionItem(title=title, decision=r.text, rationale=r.why)])
    request = f"{r.text}\n\nWhy: {r.why}" if r.why else r.text
    if r.kind == "rule":
        title = f"Rule: {title}"
    return ExtractedItems(requests=[RequestItem(title=title, request=request[:_TEXT])])


def staging_for(key: str, session_id: str, agent: str, r: Remembered,
                branch: Branch | None = None) -> StagingFile:
    """The staging file of one call; the same call always gets the same id (re-runs overwrite it).
    Its provenance is the agent: the call is the agent's own statement (in Gemini CLI's log the
    call shares its entry with the tool's answer, which must not make it tool output)."""
    source = Source(session_id=session_id, range=(r.start, r.end))
    content = json.dumps([r.kind, r.text, r.why], ensure_ascii=False)
    return StagingFile(id=staging_id(key, source, VERSION, MODEL, content), agent=agent, source=source,
                       model=MODEL, prompt_version=VERSION, created_at=dt.datetime.now(dt.UTC),
                       items=items_of(r), provenance=Provenance(roles=[(r.start, r.end, "agent")]),
                       branch=branch)

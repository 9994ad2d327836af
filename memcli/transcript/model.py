"""What every agent's reader produces: entries with a stable index (the contract the rest of
memcli — extract, source, metrics — is written against), and the statistics of one read."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memcli.values import frozen

Role = Literal["user", "assistant", "tool", "system"]


@frozen
class ToolCall:
    name: str
    arguments: dict[str, Any] | str  # parsed JSON when the agent logged JSON (Codex logs a string)
    call_id: str | None = None


@frozen
class ToolResult:
    content: str
    call_id: str | None = None
    is_error: bool = False


@frozen
class Entry:
    """One line (record) of a transcript. `index` is the 0-based line number in its file, so a
    Source `{session_id, range: [a, b]}` names lines a..b of one file forever (agents append)."""

    index: int
    role: Role
    text: str
    timestamp: dt.datetime | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    # Not the human's own words: injected AGENTS.md / environment context, isMeta, slash-command
    # expansions, tool results carried in user records.
    injected: bool = False
    sidechain: bool = False  # a subagent's entry
    final: bool = False  # an assistant's final answer of a turn, when the agent marks it
    tokens: int | None = None  # tokens this entry's API call used, when the agent logs usage
    # Last line this entry was read from, when it spans several (Claude Code writes one API response
    # as one line per content block; Aider messages are runs of lines). None: the entry is one line.
    end: int | None = None
    thinking: str = ""  # the model's visible reasoning (Claude thinking blocks, Gemini thoughts)
    branch: str | None = None  # the git branch checked out then, where the agent records it per entry

    @property
    def span(self) -> tuple[int, int]:
        """First and last line (inclusive) of the file this entry was read from."""
        return (self.index, self.index if self.end is None else self.end)


@frozen
class SessionInfo:
    agent: str  # the agent's name in memcli/agents/registry.py ("claude-code", "gemini-cli", ...)
    session_id: str
    path: Path
    cwd: str | None = None
    first_time: dt.datetime | None = None
    last_time: dt.datetime | None = None
    entries: int = 0
    size: int = 0
    skipped: int = 0  # unknown or corrupt lines, skipped and counted
    extra: dict[str, Any] = field(default_factory=dict)
    # The git branch (and its commit) the agent recorded for the whole session, at its start
    # (Codex's session_meta, Copilot CLI's session.start); None where it records none.
    branch: str | None = None
    commit: str | None = None


@dataclass
class ReadStats:
    """Filled while an EntryStream is consumed; complete once it is exhausted."""

    lines: int = 0
    entries: int = 0
    skipped: int = 0  # corrupt or unknown lines
    ignored: int = 0  # known lines that carry no conversation (summaries, snapshots, token counts)
    truncated: bool = False  # the last line is incomplete (the agent is still writing)
    tokens: int = 0  # tokens the session used, as far as the agent logs usage
    first_time: dt.datetime | None = None
    last_time: dt.datetime | None = None
    reasons: Counter[str] = field(default_factory=Counter)  # why lines were skipped

    def skip(self, reason: str) -> None:
        self.skipped += 1
        self.reasons[reason] += 1

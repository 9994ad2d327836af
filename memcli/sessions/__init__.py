"""Session transcripts of coding agents, read as entries (spec 2 §1; user docs: docs/sessions.md).

Discovery and reading over every agent memcli knows (memcli/agents/registry.py), on the entry
model of memcli.transcript; which sessions and entries a command asks for (query.py: `--since`, a
Source's `SESSION:START-END` and its entries). The commands themselves: memcli/commands/sessions.py,
source.py.

API (what extract, metrics and `memcli source` use):

    from memcli.sessions import discover, find_session, read_session, read_entries, scan

    infos = discover(workspace)                 # list[SessionInfo] of this workspace, scanned
    infos = discover(workspace, since=dt, paths=[Path("x.jsonl")])   # explicit paths override
    info = find_session(workspace, "5c0375b4")  # exact id or unique prefix; MemcliError otherwise
    info, entries = read_session(path_or_info)  # (header SessionInfo, EntryStream)
    for entry in entries:                        # streamed: memory stays bounded on any file size
        entry.index, entry.end, entry.span, entry.role, entry.text, entry.tool_calls, ...
    entries.stats.skipped                        # complete once the stream is exhausted
    saved = entries.position                     # after exhausting: where a later read may resume
    later = read_entries(info, resume=saved)     # only what was appended (checked; else a full read)

- `Entry.index` is the 0-based line number of the entry's first line in its file (Gemini: the
  position in `messages`); `Entry.end` is its last line when it spans several (a Claude Code API
  response split over lines by `message.id`, an Aider message), so `Entry.span` is the file line
  span a Source `{session_id, range: [a, b]}` resolves to: entries with a <= index <= b.
- Human prompts are `role == "user" and not injected` (tool results, injected context, slash-command
  expansions and subagent prompts are flagged `injected`; subagent entries are `sidechain`).
- `sessions_in(path)` lists the sessions of one file without reading it all (an Aider history holds
  many); `scan(info)` fills entries / skipped / first and last time from one full read.
- Resuming (Claude Code, Codex, memcli JSONL): `stream.position` (a `Position`, `to_json()` /
  `Position.from_json()` to keep it) marks a line boundary from which a later read yields what a
  full read would from `position.line` on; `read_entries(info, resume=position)` checks that the
  file only grew (size, hash of the bytes before the offset) and reads it whole otherwise
  (`stream.resumed` says which). Gemini and Aider files are always read whole.
- A file's format is detected from its content (`detect`: each agent's reader claims its own);
  unknown or corrupt lines are skipped and counted in `stats.skipped` / `SessionInfo.skipped`,
  never fatal. A missing file or a directory raises `SessionReadError` (a MemcliError).
"""

from __future__ import annotations

from memcli.sessions.discover import discover, find_session
from memcli.sessions.reader import detect, read_entries, read_session, scan, sessions_in
from memcli.transcript.base import EntryStream, SessionReadError
from memcli.transcript.model import Entry, ReadStats, SessionInfo, ToolCall, ToolResult
from memcli.transcript.resume import Position

__all__ = [
    "Entry",
    "EntryStream",
    "Position",
    "ReadStats",
    "SessionInfo",
    "SessionReadError",
    "ToolCall",
    "ToolResult",
    "detect",
    "discover",
    "find_session",
    "read_entries",
    "read_session",
    "scan",
    "sessions_in",
]

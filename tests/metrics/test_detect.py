"""Which entries are explicit invokes of a record, and which are not (table-driven)."""

from __future__ import annotations

import pytest

from memcli.metrics.detect import MENTION, READ, SHELL, Hit, entry_invokes
from memcli.transcript.model import Entry, ToolCall


def _call(name: str, arguments) -> Entry:
    return Entry(0, "assistant", "", tool_calls=(ToolCall(name, arguments),))


@pytest.mark.parametrize(
    ("entry", "hits"),
    [
        # Claude Code Read tool, absolute path inside the workspace
        (_call("Read", {"file_path": "/home/u/proj/knowledge/wal-mode.md"}),
         [Hit("knowledge/wal-mode.md", READ)]),
        (_call("Read", {"file_path": "memory/decisions/use-sqlite-wal.md", "limit": 20}),
         [Hit("memory/decisions/use-sqlite-wal.md", READ)]),
        (_call("Read", {"file_path": "memory/summary.md"}), [Hit("memory/summary.md", READ)]),
        # a file that is not a record location
        (_call("Read", {"file_path": "docs/knowledge/wal-mode.md.bak"}), []),
        (_call("Read", {"file_path": "src/knowledge.py"}), []),
        # Claude Code Bash, Codex exec_command (its JSON-string arguments arrive parsed by the
        # adapter), old Codex shell (argv list)
        (_call("Bash", {"command": "cat knowledge/wal-mode.md | head -5"}),
         [Hit("knowledge/wal-mode.md", SHELL)]),
        (_call("exec_command",
               {"cmd": "sed -n '1,80p' memory/requests/keep-e2e-opt-in.md", "workdir": "/w"}),
         [Hit("memory/requests/keep-e2e-opt-in.md", SHELL)]),
        (_call("shell", {"command": ["bash", "-lc", "cd /w && nl -ba knowledge/a.md knowledge/b.md"]}),
         [Hit("knowledge/a.md", SHELL), Hit("knowledge/b.md", SHELL)]),
        (_call("Bash", {"command": "memcli show wal-mode"}), [Hit("wal-mode", SHELL)]),
        # writes, moves, in-place edits and redirect targets are not uses
        (_call("Bash", {"command": "rm knowledge/wal-mode.md"}), []),
        (_call("Bash", {"command": "sed -i s/a/b/ knowledge/wal-mode.md"}), []),
        (_call("Bash", {"command": "cat notes.txt > knowledge/wal-mode.md"}), []),
        (_call("Bash", {"command": "echo hi >>knowledge/wal-mode.md"}), []),
        (_call("Bash", {"command": "git add knowledge/wal-mode.md && git commit -m x"}), []),
        (_call("Write", {"file_path": "knowledge/wal-mode.md", "content": "x"}), []),
        (_call("Edit", {"file_path": "knowledge/wal-mode.md", "old_string": "a", "new_string": "b"}), []),
        (_call("apply_patch", "*** Begin Patch\n*** Update File: knowledge/wal-mode.md\n"), []),
        # memcli's own memory tool (also behind an MCP prefix) and an editor tool's view command
        (_call("mcp__memcli__memory_read", {"path": "memory/decisions/api-versioning.md"}),
         [Hit("memory/decisions/api-versioning.md", READ)]),
        (_call("str_replace_based_edit_tool", {"command": "view", "path": "knowledge/x.md"}),
         [Hit("knowledge/x.md", READ)]),
        (_call("str_replace_based_edit_tool", {"command": "create", "path": "knowledge/x.md"}), []),
        # user mentions: #slug and /slug, also next to Japanese text; paths and URLs are not mentions
        (Entry(0, "user", "see #wal-mode and /release please"),
         [Hit("wal-mode", MENTION), Hit("release", MENTION)]),
        (Entry(0, "user", "詳細は#wal-modeを参照"), [Hit("wal-mode", MENTION)]),
        (Entry(0, "user", "open /tmp/x and https://h.io/wal-mode and a/#b and ./run.sh"), []),
        (Entry(0, "user", "edit /wal-mode.md"), []),
        # Claude Code's @file attachment by the user; an e-mail address is not one
        (Entry(0, "user", "explain @knowledge/wal-mode.md to me"), [Hit("knowledge/wal-mode.md", MENTION)]),
        (Entry(0, "user", "mail dev@knowledge/wal-mode.md"), []),
        # injected text (a SessionStart hook printing `memcli context`, AGENTS.md) is resident, not an invoke
        (Entry(0, "user", "#wal-mode — what WAL is", injected=True), []),
        (Entry(0, "assistant", "I will look at #wal-mode"), []),
        (Entry(0, "tool", "cat knowledge/wal-mode.md", injected=True), []),
    ],
)
def test_entry_invokes(entry: Entry, hits: list[Hit]) -> None:
    assert list(entry_invokes(entry)) == hits

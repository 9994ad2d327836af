"""Documents: the memory and instruction files users and agents already keep (CLAUDE.md, AGENTS.md,
GEMINI.md, Claude Code's auto memory, Codex memories, a Cline memory bank, Cursor / Windsurf rules,
Copilot instructions), read as sources like sessions: a document's entries are its blocks, with
their line numbers, so whatever `memcli import` makes of a file cites the lines it came from and
`memcli source` / `memcli why` show them (user docs: docs/import.md).

One more reader behind the agents' interface (base.py) rather than a second model of "a source":
the same declaration (no hooks, no tool names), the same Parts (a Reader producing `Entry` and
`SessionInfo`, a Discovery), so `memcli source`, `memcli why` and the MCP `memcli_source` read a
document's lines through the code that reads a session's. It is not in the registry's AGENTS: a
document is never one of a workspace's sessions (never extracted, never counted); the registry
resolves its kinds by name, and `memcli import` finds the files (discovery.py).

    kinds.py      the kinds, who writes them, and which blocks of a file are imported, in what scope
    markdown.py   a Markdown file as blocks with 1-based line spans (and its frontmatter)
    discovery.py  where each kind lives for a workspace; a document's id `<kind>/<path>`
    reader.py     the blocks as entries (redacted), for `memcli source` and `memcli why`
    ledger.py     which blocks of which files `memcli import` read: the only files a document id names
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "document"
TITLE = "Documents"
HOOKS = None  # memcli wires nothing into a file
TOOL_NAMES: tuple[str, ...] = ()
# The kinds' names (SessionInfo.agent of a document, the first part of its id); kinds.py has the
# rest of each kind and tests hold the two to each other. Here so that naming one imports nothing.
KINDS = ("claude-memory", "claude-md", "agents-md", "gemini-md", "gemini-memory", "codex-memory",
         "cline-memory-bank", "cursor-rules", "windsurf-rules", "copilot-instructions", "markdown")


def is_document_id(session_id: str) -> bool:
    """Does a Source's session_id name a document (`<kind>/<path>`) rather than a session?"""
    kind, sep, rest = session_id.partition("/")
    return bool(sep and rest) and kind in KINDS


def load() -> Parts:
    # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.documents import reader
    from memcli.agents.parts import Parts

    return Parts(reader.READER, reader.DISCOVERY)

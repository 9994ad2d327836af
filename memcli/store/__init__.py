"""One store of parsed records for every reader: context, search, lint, gc-report, why, status and
the MCP server's tools.

An SQLite file per workspace root in the state folder (git-ignored) holds, for each record file,
what one parse of it gives every reader: frontmatter fields, validity, the content hash, anchors,
reference facts, the text, what its YAML gave, and (once search asked) its search postings. Each
reader calls `refresh()` first: one stat-based freshness check (racy-clean safe) finds the files
that changed, and only those are read and parsed again. So no command parses a record that has not
changed since any command last read it, and what a reader prints is what it would print reading
the files itself (tests compare both on every reader).

    from memcli.store import open_store

    store = open_store(workspace)       # None when the state folder cannot hold it
    if store is not None:
        with store:
            store.refresh()
            rows = store.knowledge()

Readers take the files from the disk themselves for what the store does not keep: links and
folders where a record file would be (`store.odd`), and proposed changes (the tool path).
"""

from __future__ import annotations

from memcli.store.db import RACY_NS, RefreshStats, store_path
from memcli.store.store import RecordStore, content_hash
from memcli.workspace import Workspace

__all__ = ["RACY_NS", "RecordStore", "RefreshStats", "content_hash", "open_store", "store_path"]


def open_store(ws: Workspace) -> RecordStore | None:
    """The store of `ws` in its state folder, or None when it cannot be kept there (read-only):
    a reader then reads the files itself, which for one command costs less than filling a store
    in memory."""
    store = RecordStore(ws.root, store_path(ws.state_dir, ws.root))
    if store.db_path is None:
        store.close()
        return None
    return store

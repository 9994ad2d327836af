"""Would the agent have received it: the resident context and the search results of a past moment.

A scratch folder laid out like a workspace shows the records of one commit at a time (files
written or removed as the commit changes, so the search index refreshes only what changed), and
the library builds on it what the agent got then: `memcli.context.build_context` (the resident
context, with the workspace's budget) and `memcli.search.SearchIndex` (in memory) for the top
`TOP` hits of the later session's task words. Records there carry no `anchors`: the code of that
time is not checked out, so stale-anchor marks would be wrong (they only add a warning to a line).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from memcli import plainyaml
from memcli.context import build_context
from memcli.recordtext import decode, split
from memcli.search import SearchIndex
from memcli.tokens import get_counter
from memcli.workspace import Workspace

if TYPE_CHECKING:
    from memcli.context import ContextResult
    from memcli.search import SearchHit

TOP = 5
_OLD_NS = 1_000_000_000 * 1_000_000_000  # 2001-09-09: any time well before the run


def without_anchors(data: bytes) -> bytes:
    """The record with its `anchors` field dropped (anything unreadable is returned as it is)."""
    if b"anchors" not in data:
        return data


    text = decode(data)[0]
    parts = split(text) if text is not None else "unreadable"
    if isinstance(parts, str):
        return data
    front, body, _ = parts
    try:
        meta = plainyaml.load(front)
    except (yaml.YAMLError, plainyaml.Refused):  # the record itself says so (lint), not the eval
        return data
    if not isinstance(meta, dict) or "anchors" not in meta:
        return data
    del meta["anchors"]
    dumped = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    return f"---\n{dumped}---\n{body}".encode()


class Scratch:
    """A temporary workspace showing one past commit's records at a time."""

    def __init__(self, workspace: Workspace, embedder: Any = None) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="memcli-eval-"))
        (self.root / "memory").mkdir()
        self.workspace = Workspace(self.root, workspace.config)
        self.counter = get_counter(workspace.state_dir)
        self.embedder = embedder
        self.shown: dict[str, bytes] = {}
        self._index: Any = None
        self._writes = 0

    def show(self, files: dict[str, bytes]) -> None:
        for rel in self.shown.keys() - files.keys():
            (self.root / rel).unlink(missing_ok=True)
        for rel, data in files.items():
            if self.shown.get(rel) != data:
                path = self.root / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(without_anchors(data))
                # An old modification time, another one at every write: the search index trusts a
                # file by (mtime, size) only once its mtime is well in the past (git's "racy clean"),
                # so without this it would read every file again at every commit shown.
                self._writes += 1
                stamp = _OLD_NS + self._writes * 1_000
                os.utime(path, ns=(stamp, stamp))
        self.shown = dict(files)

    def context(self) -> ContextResult:
        return build_context(self.workspace, counter=self.counter)

    def search(self, query: str, limit: int = TOP) -> list[SearchHit]:
        if self._index is None:
            self._index = SearchIndex(self.root)
        return self._index.search(query, limit=limit, embedder=self.embedder)

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""Which blocks of which documents were imported (`<state dir>/import-ledger.jsonl`).

A block is known by its fingerprint (kind, scope and redacted text, whitespace folded), not by its
lines: a block that only moved (lines added above it, a paragraph re-wrapped) is not imported
again, an edited block is, alone. Append-only JSON lines, each fsync'd, as the extract ledger
(memcli/extract/ledger.py): a killed run leaves every completed line and at most one torn last
line, which is ignored. Operations, replayed in order:

- `pending`  one chunk's result is about to be written: its id, the document, the blocks (lines
             and fingerprints), the staging ids it writes, the prompt version and model;
- `done`     every staging file of that pending chunk is written: its blocks count as imported;
- `dropped`  a pending chunk a killed run left half written: its files were removed, its blocks
             are imported again.

So a run killed between writing a chunk's staging files and marking it done is finished by the
next run without asking the model again (all files there), or undone and redone (some missing):
never an item staged twice, never a block marked imported whose items were not staged.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from pathlib import Path

from memcli.atomicio import AppendLog
from memcli.values import frozen

LEDGER = "import-ledger.jsonl"


def fingerprint(kind: str, scope: str, text: str) -> str:
    folded = " ".join(text.split())
    return hashlib.sha256(f"{kind}\0{scope}\0{folded}".encode()).hexdigest()[:16]


@frozen
class Chunk:
    """One chunk's record: what was imported from which lines, and where its items went."""

    id: str
    source: str  # the document id
    path: str
    blocks: tuple[tuple[int, int, str], ...]  # (first line, last line, fingerprint)
    staging: tuple[str, ...]
    prompt_version: str
    model: str
    time: str


class Ledger(AppendLog):
    def __init__(self, path: Path) -> None:
        self._chunks: dict[str, Chunk] = {}
        self._state: dict[str, str] = {}  # chunk id -> pending | done | dropped
        super().__init__(path)

    @classmethod
    def open(cls, state_dir: Path) -> Ledger:
        return cls(state_dir / LEDGER)

    def _apply(self, row: dict) -> None:
        op, cid = row["op"], str(row["id"])
        if op == "pending":
            self._chunks[cid] = Chunk(cid, str(row["source"]), str(row["path"]),
                                      tuple((int(a), int(b), str(fp)) for a, b, fp in row["blocks"]),
                                      tuple(str(s) for s in row["staging"]), str(row["prompt_version"]),
                                      str(row["model"]), str(row.get("time", "")))
            self._state[cid] = "pending"
        elif op in ("done", "dropped") and cid in self._chunks:
            self._state[cid] = op

    # -- queries -------------------------------------------------------------------------------
    def imported(self, source: str) -> set[str]:
        """The fingerprints of the blocks of `source` already imported."""
        with self._lock:
            return {fp for c in self._chunks.values() if c.source == source and self._state[c.id] == "done"
                    for _a, _b, fp in c.blocks}

    def chunks(self, source: str) -> list[Chunk]:
        """The imported chunks of `source`, oldest first."""
        with self._lock:
            return [c for c in self._chunks.values() if c.source == source and self._state[c.id] == "done"]

    def paths(self, source: str) -> set[str]:
        """The files `source` was read from by an import that staged its items (done chunks): what a
        document id may name (discovery.resolve)."""
        with self._lock:
            return {c.path for c in self._chunks.values()
                    if c.source == source and self._state[c.id] == "done"}

    def unfinished(self) -> list[Chunk]:
        """Chunks a killed run left pending: their staging files may be written, all or in part."""
        with self._lock:
            return [c for c in self._chunks.values() if self._state[c.id] == "pending"]

    # -- changes -------------------------------------------------------------------------------
    def begin(self, source: str, path: Path, blocks: list[tuple[int, int, str]], staging: list[str],
              prompt_version: str, model: str) -> str:
        cid = uuid.uuid4().hex[:16]
        self._append({"op": "pending", "id": cid, "source": source, "path": str(path),
                      "blocks": [list(b) for b in blocks], "staging": staging,
                      "prompt_version": prompt_version, "model": model,
                      "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")})
        return cid

    def finish(self, chunk_id: str) -> None:
        self._append({"op": "done", "id": chunk_id})

    def drop(self, chunk_id: str) -> None:
        self._append({"op": "dropped", "id": chunk_id})

"""The bound on staging (`extract.max_staging`): extract writes no staging file past it.

Staging is a folder of files waiting for consolidation. Without a bound, an agent calling
`memcli_remember` in a loop (or months of sessions with no consolidation) fills it without end, and
every consolidation, `memcli status` and `staging push` reads all of it. At the bound, extract stops
starting chunks the way a spent budget stops it: what it did not stage is not recorded in the
ledger, so it stays in the transcript and the first run after a consolidation stages it. Nothing
is lost, nothing is dropped silently; the run says so (`Stopped: memory/_staging holds …`).

The folder is counted at each write, not once per run, so two runs at once (a capture hook and a
manual run) see each other's files: together they overshoot by at most the files they write in
the same instant.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


def waiting(staging_dir: Path) -> int:
    """The staging files in the folder, counted as memcli.staging.staging_files lists them."""
    try:
        with os.scandir(staging_dir) as found:
            return sum(1 for e in found if e.name.endswith(".json") and not e.name.startswith(".")
                       and e.is_file())
    except (FileNotFoundError, NotADirectoryError):
        return 0


class Room:
    def __init__(self, staging_dir: Path, limit: int, shown: str = "memory/_staging") -> None:
        self.staging_dir = staging_dir
        self.limit = limit
        self.shown = shown
        self.full: str | None = None  # why a write was refused, once one was
        self._lock = threading.Lock()  # extract's workers write from threads

    def take(self, path: Path) -> bool:
        """Whether the staging file `path` may be written: a rewrite of one already there always
        may (it adds nothing), a new one while the folder holds fewer than `limit` files."""
        return path.is_file() or self.left()

    def left(self) -> bool:
        """Whether a new file may be written now (asked before paying for a model call too)."""
        with self._lock:
            if waiting(self.staging_dir) < self.limit:
                return True
            self.full = (f"{self.shown} holds {self.limit} files (extract.max_staging): run `memcli "
                         "consolidate` to fold them, then `memcli extract` stages the rest")
            return False

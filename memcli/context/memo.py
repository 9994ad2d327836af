"""The memo of `memcli context` layouts (`<state dir>/context-memo.json`).

A layout (how many summary lines and index entries a budget lets through, and the token count)
depends only on the token counter, the budget and the exact summary and index lines, so it is
stored under a digest of those. A hit means no counting at all, hence no tokenizer table to load:
the common case at a session start, when the memory did not change since the last one. The file is
a cache: unreadable or malformed, it is ignored and rewritten; an unwritable state folder only
means the next run counts again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from memcli.atomicio import atomic_write_text
from memcli.tokens import counter_id

MEMO_FILE = "context-memo.json"
_KEEP = 32  # layouts kept (several budgets and workspaces' states); oldest dropped first

Fields = tuple[int, int, bool, int]  # n_summary, n, truncated, tokens


class LayoutMemo:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / MEMO_FILE
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        self._rows: dict[str, list[object]] = data if isinstance(data, dict) else {}

    @staticmethod
    def key(budget: int, summary_lines: list[str], index_lines: list[str]) -> str:
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{counter_id()}\0{budget}\0{len(summary_lines)}\0".encode())
        for line in (*summary_lines, "\0", *index_lines):
            h.update(line.encode("utf-8", "surrogatepass") + b"\0")
        return h.hexdigest()

    def get(self, key: str) -> tuple[str, Fields] | None:
        row = self._rows.get(key)
        if not isinstance(row, list) or len(row) != 5:
            return None
        name, n_summary, n, truncated, tokens = row
        if not (isinstance(name, str) and isinstance(n_summary, int) and isinstance(n, int)
                and isinstance(tokens, int) and isinstance(truncated, bool)):
            return None
        return name, (n_summary, n, truncated, tokens)

    def put(self, key: str, name: str, fields: Fields) -> None:
        self._rows.pop(key, None)
        self._rows[key] = [name, *fields]
        while len(self._rows) > _KEEP:
            self._rows.pop(next(iter(self._rows)))
        try:
            atomic_write_text(self.path, json.dumps(self._rows))
        except OSError:
            pass  # read-only state folder: nothing is lost but the shortcut

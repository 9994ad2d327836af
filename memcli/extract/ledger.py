"""Which spans of which session files have been extracted, and how (`<state dir>/extract-ledger.jsonl`;
in a linked worktree the main worktree's, beside the staging it records).

Append-only JSON lines, each fsync'd: a run killed at any point leaves every completed line intact
and at most one torn last line, which is ignored. Operations, replayed in order:

- `span`   one chunk extracted: key, session id, range, prompt version, model, staging id, and
           fingerprints of the span's last entry and of the session's first entry;
- `reset`  the file shrank or was rewritten: forget every span of that key (it is extracted again);
- `forget` one span is to be extracted again (`extract --stale --redo`);
- `staged` one `memcli_remember` call of that key was staged (its staging id): calls are staged
           as soon as a run sees them, whether or not their chunk can be extracted yet, and never
           again, even when the chunk around them is extracted later or again.

A key is `<resolved file path>#<session id>`: one file can hold several sessions (Aider), and
agents reuse a session id across side files (Claude Code subagent files).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from memcli.atomicio import AppendLog
from memcli.transcript.model import Entry, SessionInfo
from memcli.values import frozen

LEDGER = "extract-ledger.jsonl"


def session_key(info: SessionInfo) -> str:
    return f"{Path(info.path).resolve()}#{info.session_id}"


def fingerprint(entry: Entry) -> str:
    """What an entry said; a different fingerprint at the same index means the file was rewritten."""
    h = hashlib.sha256()
    h.update(f"{entry.index}\0{entry.role}\0{entry.text}".encode("utf-8", "replace"))
    for call in entry.tool_calls:
        h.update(f"\0{call.name}\0{call.arguments}".encode("utf-8", "replace"))
    for result in entry.tool_results:
        h.update(f"\0{result.content}".encode("utf-8", "replace"))
    return h.hexdigest()[:16]


@frozen
class Span:
    key: str
    session_id: str
    start: int
    end: int
    last_index: int  # index of the span's last entry (its fingerprint is `last_fp`)
    last_fp: str
    first_fp: str
    prompt_version: str
    model: str
    staging_id: str
    time: str


class Ledger(AppendLog):
    def __init__(self, path: Path) -> None:
        self._spans: dict[str, dict[tuple[int, int], Span]] = {}
        self._staged: dict[str, set[str]] = {}
        super().__init__(path)

    @classmethod
    def open(cls, state_dir: Path) -> Ledger:
        return cls(state_dir / LEDGER)

    def _apply(self, row: dict) -> None:
        op, key = row["op"], row["key"]
        if op == "span":
            span = Span(key, row["session_id"], int(row["range"][0]), int(row["range"][1]),
                        int(row["last_index"]), row["last_fp"], row["first_fp"], row["prompt_version"],
                        row["model"], row["staging_id"], row.get("time", ""))
            self._spans.setdefault(key, {})[(span.start, span.end)] = span
        elif op == "reset":
            self._spans.pop(key, None)
            self._staged.pop(key, None)
        elif op == "staged":
            self._staged.setdefault(key, set()).add(str(row["id"]))
        elif op == "forget":
            self._spans.get(key, {}).pop((int(row["range"][0]), int(row["range"][1])), None)

    # -- queries -------------------------------------------------------------------------------
    def spans(self, key: str) -> list[Span]:
        with self._lock:
            return sorted(self._spans.get(key, {}).values(), key=lambda s: s.start)

    def staged(self, key: str) -> frozenset[str]:
        """The staging ids of the `memcli_remember` calls of `key` already staged."""
        with self._lock:
            return frozenset(self._staged.get(key, ()))

    def all_spans(self) -> list[Span]:
        with self._lock:
            return [s for spans in self._spans.values() for s in spans.values()]

    def files_of(self, session_id: str) -> list[Path]:
        """The files that runs read a session of this id (or id prefix) from and that still exist:
        `extract --path` reads transcripts discovery does not find, and `why`/`source` look here."""
        with self._lock:
            keys = list(dict.fromkeys([*self._spans, *self._staged]))
        found = []
        for key in keys:
            path, _, sid = key.rpartition("#")
            if sid.startswith(session_id) and Path(path).is_file():
                found.append(Path(path))
        return list(dict.fromkeys(found))

    def check(self, key: str, entries: list[Entry]) -> str | None:
        """None when the recorded spans still match the file; else why not ("shrank", "rewritten")."""
        spans = self.spans(key)
        if not spans:
            return None
        by_index = {e.index: e for e in entries}
        last_end = max((e.span[1] for e in entries), default=-1)
        first_fp = fingerprint(entries[0]) if entries else ""
        for span in spans:
            entry = by_index.get(span.last_index)
            if entry is None:
                return "shrank" if span.end > last_end else "rewritten"
            if fingerprint(entry) != span.last_fp or span.first_fp != first_fp:
                return "rewritten"
        return None

    # -- changes -------------------------------------------------------------------------------
    def record(self, key: str, session_id: str, first: Entry, last: Entry, start: int, end: int,
               prompt_version: str, model: str, staging_id: str) -> None:
        self._append({"op": "span", "key": key, "session_id": session_id, "range": [start, end],
                      "last_index": last.index, "last_fp": fingerprint(last), "first_fp": fingerprint(first),
                      "prompt_version": prompt_version, "model": model, "staging_id": staging_id,
                      "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")})

    def mark_staged(self, key: str, staging_id: str) -> None:
        self._append({"op": "staged", "key": key, "id": staging_id})

    def reset(self, key: str, reason: str) -> None:
        self._append({"op": "reset", "key": key, "reason": reason})

    def forget(self, span: Span) -> None:
        self._append({"op": "forget", "key": span.key, "range": [span.start, span.end]})

"""Parse the records a refresh found changed: here, or on every core when they are many.

Parsing YAML and tokenising text is CPU-bound pure Python, so threads would not help; a forked
helper starts at once with everything imported and takes a share of the files (already read),
sending its rows back through a pipe (marshal: rows are plain tuples). Below `MIN_FILES` forking
costs more than it saves (a first build, an upgrade or a bulk checkout go past it; everyday
edits never do). The parent alone writes the database. A helper that fails in any way just means
the parent parses that share itself.
"""

from __future__ import annotations

import marshal
from typing import Any

from memcli import forked
from memcli.store.row import FIELDS, read_row

MIN_FILES = 1500  # changed files before a second process pays for itself
MAX_PROCS = 8

Changed = tuple[str, Any, str, bytes]  # path, stamp, content hash, bytes


def _row(rel: str, data: bytes, postings: bool) -> tuple[Any, ...]:
    row = read_row(rel, data)
    made = None
    if postings:
        from memcli.store.postings import postings as make  # here: context fills no postings

        fields = dict(zip(FIELDS, row, strict=True))
        made = make(fields["slug"], rel, fields["parse_error"] is None, fields["description"], fields["body"])
    return (*row, made)


def procs_for(count: int) -> int:
    if count < MIN_FILES or not forked.can_fork():
        return 1
    return max(1, min(forked.cores(), MAX_PROCS, count // (MIN_FILES // 2)))


def read_rows(changed: list[Changed], postings: bool) -> list[tuple[Any, ...]]:
    """The row (and, with `postings`, the postings) of each changed file, in order."""
    procs = procs_for(len(changed))
    if procs == 1:
        return [_row(rel, data, postings) for rel, _, _, data in changed]
    shares = [changed[i::procs] for i in range(procs)]
    helpers = [_fork(share, postings) for share in shares[1:]]
    mine = [_row(rel, data, postings) for rel, _, _, data in shares[0]]
    results = [mine]
    for share, helper in zip(shares[1:], helpers, strict=True):
        got = _collect(*helper) if helper is not None else None
        results.append(got if got is not None and len(got) == len(share)
                       else [_row(rel, data, postings) for rel, _, _, data in share])
    out: list[tuple[Any, ...]] = [()] * len(changed)
    for i, rows in enumerate(results):
        out[i::procs] = rows
    return out


def _fork(share: list[Changed], postings: bool) -> tuple[int, int] | None:
    """Start a helper parsing `share`; (pid, read end of its pipe), or None if it cannot."""
    return forked.start(lambda: marshal.dumps([_row(rel, data, postings) for rel, _, _, data in share]))


def _collect(pid: int, read: int) -> list[tuple[Any, ...]] | None:
    data = forked.collect(pid, read)
    try:
        return marshal.loads(data) if data is not None else None
    except Exception:
        return None

"""Which knowledge `memcli context` shows (such knowledge is never `unreferenced-knowledge`).

Deciding it means counting tokens, and loading the real tokenizer's table costs more than the rest
of a warm report. The answer depends only on the counter, the budget, the summary's bytes and the
ordered index lines, so it is memoised in the facts cache under a digest of exactly those.
"""

from __future__ import annotations

import hashlib

from memcli.context import Entry, build_context
from memcli.gc.facts import FactsCache
from memcli.lint.snapshot import Snapshot
from memcli.tokens import counter_id
from memcli.workspace import SUMMARY_PATH, Workspace


def resident_slugs(
    workspace: Workspace,
    snap: Snapshot,
    entries: tuple[list[Entry], list[str]],
    memo: FactsCache | None,
) -> set[str]:
    def compute() -> set[str]:
        return {e.slug for e in build_context(workspace, snapshot=snap, entries=entries).shown}

    if memo is None:
        return compute()
    summary = snap.raw(SUMMARY_PATH)[0] if snap.exists(SUMMARY_PATH) else None
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{counter_id()}\0{workspace.config.context.budget_tokens}\0".encode())
    h.update(b"absent" if summary is None else b"summary:" + summary)
    for e in entries[0]:
        h.update(b"\0" + e.line.encode())
    key = b"resident:" + h.digest()
    known = memo.derived(key)
    if isinstance(known, tuple):
        return set(known)
    shown = compute()
    memo.put_derived(key, tuple(sorted(shown)))
    return shown

"""One record file's findings: the file rules on it, through the per-file result cache. The engine
and the helper processes of memcli.lint.parallel check records with this."""

from __future__ import annotations

from memcli.lint.finding import Finding
from memcli.lint.registry import FILE_RULES
from memcli.lint.rules.base import Context
from memcli.lint.snapshot import RecordFacts, Snapshot


def record_findings(snapshot: Snapshot, path: str, ctx: Context) -> list[Finding]:
    cache = snapshot.cache
    key = snapshot.content_key(path)  # None for a proposed change or without a cache
    if cache is not None and key is not None:
        cached = cache.findings(path, key)
        if cached is not None:
            return cached
    found, facts = check_file(snapshot, path, ctx)
    snapshot.note_facts(path, facts)
    if cache is not None and key is not None:
        cache.put_findings(key, found)
    return found


def check_file(snapshot: Snapshot, path: str, ctx: Context) -> tuple[list[Finding], RecordFacts]:
    """The file rules' findings on one record, and its reference facts (no cache involved)."""
    rec = snapshot.parse(path)
    found = [f for rule in FILE_RULES for f in rule.check_record(rec, ctx)]
    return found, RecordFacts.of(rec, snapshot.raw(path)[0])

"""Check the files of a large cold run on every core: the parent forks helpers that each take a
share of the files, checks its own share meanwhile, then adopts their results.

Parsing YAML and scanning for secrets is CPU-bound pure Python, so threads would not help; a
forked child starts instantly with everything already imported and the snapshot in memory. Used
only when many files are not in the result cache (a first run, a config or memcli upgrade): below
`MIN_FILES` forking costs more than it saves, and a warm run only stats files. Anything going
wrong in a helper (it crashed, was killed, raised) just means the parent checks that share itself.
"""

from __future__ import annotations

from memcli import forked
from memcli.lint.finding import Finding
from memcli.lint.record import check_file, record_findings
from memcli.lint.rules.base import Context
from memcli.lint.snapshot import RecordFacts, Snapshot

MIN_FILES = 2000  # files to check before a second process pays for itself
MAX_PROCS = 8

# (path, content key, findings, facts) of one file checked in a helper.
_Result = tuple[str, bytes | None, list[Finding], RecordFacts | None]


def procs_for(snapshot: Snapshot, count: int) -> int:
    """How many processes to check `count` files with (1: do it here, alone)."""
    if not forked.can_fork() or snapshot.overlay:
        return 1
    todo = count if snapshot.cache is None else count - snapshot.cache.known_files()
    if todo < MIN_FILES:
        return 1
    return max(1, min(forked.cores(), MAX_PROCS, todo // (MIN_FILES // 2)))


def _check_share(snapshot: Snapshot, paths: list[str], ctx: Context) -> list[_Result]:
    out: list[_Result] = []
    cache = snapshot.cache
    for path in paths:
        key = snapshot.content_key(path)
        if cache is not None and key is not None:
            cached = cache.findings(path, key)
            if cached is not None:
                out.append((path, key, cached, None))
                continue
        found, facts = check_file(snapshot, path, ctx)
        out.append((path, key, found, facts))
    return out


def _fork(snapshot: Snapshot, paths: list[str], ctx: Context) -> tuple[int, int] | None:
    """Start a helper checking `paths`; (pid, read end of its result pipe), or None if it cannot."""
    import pickle  # here: only a lint of thousands of files forks helpers

    return forked.start(lambda: pickle.dumps(_check_share(snapshot, paths, ctx), pickle.HIGHEST_PROTOCOL))


def _collect(pid: int, read: int) -> list[_Result] | None:
    import pickle  # here: as in _fork

    data = forked.collect(pid, read)
    try:
        return pickle.loads(data) if data is not None else None
    except Exception:
        return None

def check_in_parallel(
    snapshot: Snapshot, paths: list[str], ctx: Context, procs: int
) -> dict[str, list[Finding]]:
    """Findings of the record files `paths`, checked by `procs` processes; the results (facts,
    cache entries) are adopted into `snapshot` and its cache as if checked here."""
    shares = [paths[i::procs] for i in range(procs)]
    # What the helpers will ask the store and the cache, read now: a forked helper must not use
    # the parent's database connection.
    for path in paths:
        snapshot.content_key(path)
    snapshot.keep_all()
    if snapshot.cache is not None:
        snapshot.cache.preload()
    helpers = [(share, _fork(snapshot, share, ctx)) for share in shares[1:]]
    out = {path: record_findings(snapshot, path, ctx) for path in shares[0]}
    for share, helper in helpers:
        got = _collect(*helper) if helper is not None else None
        if got is None:  # the helper failed: check its share here
            out.update((path, record_findings(snapshot, path, ctx)) for path in share)
            continue
        snapshot.adopt(got)
        out.update((path, found) for path, _, found, _ in got)
    return out

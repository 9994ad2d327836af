"""The result cache recognises unchanged files by their stat, without reading them — and never
trusts a stat that could hide an edit (same size, same mtime, edited in the same clock tick)."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record

from memcli.lint.cache import CACHE_FILE, ResultCache
from memcli.lint.engine import lint
from memcli.lint.snapshot import Snapshot
from memcli.workspace import Workspace

OLD = path_of("decision", "old")
NEWER = path_of("decision", "newer")
FILES = {
    OLD: record("decision", status="replaced", replaced_by="newer"),
    NEWER: record("decision", body="x" * 1600),
    path_of("workflow", "release"): record("workflow", requires="[newer]"),
    path_of("decision", "plain"): record("decision"),
}


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.open(make_workspace(tmp_path / "ws", FILES))


def _run(ws: Workspace, *, settle_ns: int | None = None, paths: list[str] | None = None):
    """(findings as comparable tuples, the snapshot) of one run with the cache in the state dir."""
    file = ws.state_dir / CACHE_FILE
    cache = (
        ResultCache(file, ws.config.lint)
        if settle_ns is None
        else ResultCache(file, ws.config.lint, settle_ns=settle_ns)
    )
    snap = Snapshot(ws, cache=cache)
    found = lint(ws, paths, snapshot=snap)
    cache.save(whole=paths is None)
    return {(f.path, f.line, f.code, f.message) for f in found}, snap


def _cold(ws: Workspace, paths: list[str] | None = None):
    return {(f.path, f.line, f.code, f.message) for f in lint(ws, paths)}


def _rewrite_keeping_mtime(path: Path, text: str, *, new_inode: bool = False) -> None:
    st = path.stat()
    if new_inode:  # as editors that save through a temporary file do
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    else:
        path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_warm_run_reads_no_unchanged_file(ws: Workspace) -> None:
    first, _ = _run(ws, settle_ns=0)
    second, snap = _run(ws, settle_ns=0)
    assert first == second == _cold(ws)
    assert ("memory/decisions/old.md", 5, "replaced-by-inconsistent") not in first  # sanity: valid record
    assert not [p for p in snap._raw if p.endswith(".md")], "unchanged files were read"


def test_fresh_files_are_not_trusted_by_stat(ws: Workspace) -> None:
    _run(ws)  # default settle window: every file was just written
    _, snap = _run(ws)
    assert set(snap._raw) >= set(FILES), "a file younger than the settle window must be read"


def test_same_size_edit_with_the_same_mtime_is_seen(ws: Workspace) -> None:
    # In-place edit, same size, mtime put back: only the settle window protects this (the ctime
    # may not have moved within one clock tick).
    _run(ws)
    _rewrite_keeping_mtime(ws.root / NEWER, record("decision", status="Open", body="x" * 1600))
    found, _ = _run(ws)
    assert "invalid-status" in {code for path, _, code, _ in found if path == NEWER}
    assert found == _cold(ws)


def test_same_size_replacement_is_seen_even_when_trusted(ws: Workspace) -> None:
    _run(ws, settle_ns=0)
    _rewrite_keeping_mtime(
        ws.root / NEWER, record("decision", status="Open", body="x" * 1600), new_inode=True
    )
    found, _ = _run(ws, settle_ns=0)
    assert "invalid-status" in {code for path, _, code, _ in found if path == NEWER}
    assert found == _cold(ws)


def test_deleted_and_renamed_files(ws: Workspace) -> None:
    _run(ws, settle_ns=0)
    os.replace(ws.root / NEWER, ws.root / path_of("decision", "newest"))
    found, _ = _run(ws, settle_ns=0)
    assert (OLD, "dangling-reference") in {(p, c) for p, _, c, _ in found}
    assert found == _cold(ws)
    (ws.root / path_of("decision", "newest")).unlink()
    os.replace(ws.root / path_of("decision", "plain"), ws.root / NEWER)  # another file takes the name
    found, _ = _run(ws, settle_ns=0)
    assert (OLD, "dangling-reference") not in {(p, c) for p, _, c, _ in found}
    assert found == _cold(ws)


def test_one_file_run_forgets_a_stale_stat(ws: Workspace) -> None:
    _run(ws, settle_ns=0)
    target = ws.root / path_of("decision", "plain")
    target.write_text(record("decision", status="Done"), encoding="utf-8")
    # The edit is too recent for its stat to be kept, and the old stat no longer applies.
    one, _ = _run(ws, paths=[path_of("decision", "plain")])
    assert one == _cold(ws, [path_of("decision", "plain")])
    assert ("memory/decisions/plain.md", "invalid-status") in {(p, c) for p, _, c, _ in one}
    _, _, stats = marshal.loads((ws.state_dir / CACHE_FILE).read_bytes())
    assert path_of("decision", "plain") not in stats
    assert path_of("decision", "old") in stats  # the others are kept after a partial run
    whole, _ = _run(ws, settle_ns=0)
    assert whole == _cold(ws)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00garbage",
        marshal.dumps(("fingerprint", {})),  # the format before stats were kept
        marshal.dumps([1, 2, 3]),
        marshal.dumps(("x", "not a dict", {})),
    ],
)
def test_a_corrupt_or_old_cache_is_rebuilt_silently(ws: Workspace, content: bytes) -> None:
    file = ws.state_dir / CACHE_FILE
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(content)
    found, _ = _run(ws, settle_ns=0)
    assert found == _cold(ws)
    _, snap = _run(ws, settle_ns=0)  # and the rebuilt cache works
    assert not [p for p in snap._raw if p.endswith(".md")]

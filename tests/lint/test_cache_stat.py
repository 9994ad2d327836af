"""Through the record store the Linter recognises unchanged files by their stamp, without reading
them — and never trusts a stamp that could hide an edit (same size, same mtime, edited in the same
clock tick, or replaced by another file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lint.kit import make_workspace, path_of, record

from memcli.lint.cache import ResultCache
from memcli.lint.engine import lint
from memcli.lint.snapshot import Snapshot
from memcli.store import RACY_NS, RecordStore, store_path
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


def _run(ws: Workspace, *, racy_ns: int = RACY_NS, paths: list[str] | None = None):
    """(findings as comparable tuples, the snapshot, the refresh) of one run through the store."""
    with RecordStore(ws.root, store_path(ws.state_dir, ws.root), racy_ns=racy_ns) as store:
        refreshed = store.refresh()
        cache = ResultCache(store, ws.config.lint)
        snap = Snapshot(ws, cache=cache, store=store)
        found = lint(ws, paths, snapshot=snap)
        cache.save(whole=paths is None)
    return {(f.path, f.line, f.code, f.message) for f in found}, snap, refreshed


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
    first, _, _ = _run(ws, racy_ns=0)
    second, snap, refreshed = _run(ws, racy_ns=0)
    assert first == second == _cold(ws)
    assert ("memory/decisions/old.md", 5, "replaced-by-inconsistent") not in first  # sanity: valid record
    assert refreshed.read == 0, "the store read unchanged files"
    assert not [p for p in snap._raw if p.endswith(".md")], "the Linter read unchanged files"


def test_fresh_files_are_not_trusted_by_stamp(ws: Workspace) -> None:
    _run(ws)  # default racy window: every file was just written
    _, _, refreshed = _run(ws)
    assert refreshed.read == len(FILES), "a file younger than the racy window must be read"


def test_same_size_edit_with_the_same_mtime_is_seen(ws: Workspace) -> None:
    # In-place edit, same size, mtime put back: within the racy window.
    _run(ws)
    _rewrite_keeping_mtime(ws.root / NEWER, record("decision", status="Open", body="x" * 1600))
    found, _, _ = _run(ws)
    assert "invalid-status" in {code for path, _, code, _ in found if path == NEWER}
    assert found == _cold(ws)


@pytest.mark.parametrize("new_inode", [False, True])
def test_same_size_edit_is_seen_even_when_trusted(ws: Workspace, new_inode: bool) -> None:
    # Trusted at once (no racy window): the ctime (and for a replacement the inode) gives it away.
    _run(ws, racy_ns=0)
    _rewrite_keeping_mtime(ws.root / NEWER, record("decision", status="Open", body="x" * 1600),
                           new_inode=new_inode)
    found, _, _ = _run(ws, racy_ns=0)
    assert "invalid-status" in {code for path, _, code, _ in found if path == NEWER}
    assert found == _cold(ws)


def test_deleted_and_renamed_files(ws: Workspace) -> None:
    _run(ws, racy_ns=0)
    os.replace(ws.root / NEWER, ws.root / path_of("decision", "newest"))
    found, _, _ = _run(ws, racy_ns=0)
    assert (OLD, "dangling-reference") in {(p, c) for p, _, c, _ in found}
    assert found == _cold(ws)
    (ws.root / path_of("decision", "newest")).unlink()
    os.replace(ws.root / path_of("decision", "plain"), ws.root / NEWER)  # another file takes the name
    found, _, _ = _run(ws, racy_ns=0)
    assert (OLD, "dangling-reference") not in {(p, c) for p, _, c, _ in found}
    assert found == _cold(ws)


def test_one_file_run_then_whole_run(ws: Workspace) -> None:
    _run(ws, racy_ns=0)
    target = ws.root / path_of("decision", "plain")
    target.write_text(record("decision", status="Done"), encoding="utf-8")
    one, _, _ = _run(ws, paths=[path_of("decision", "plain")])
    assert one == _cold(ws, [path_of("decision", "plain")])
    assert ("memory/decisions/plain.md", "invalid-status") in {(p, c) for p, _, c, _ in one}
    whole, _, _ = _run(ws, racy_ns=0)
    assert whole == _cold(ws)


@pytest.mark.parametrize("content", [b"", b"\x00garbage", b"SQLite format 3\x00" + b"\x00" * 200])
def test_a_corrupt_store_is_rebuilt_silently(ws: Workspace, content: bytes) -> None:
    file = store_path(ws.state_dir, ws.root)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(content)
    found, _, _ = _run(ws, racy_ns=0)
    assert found == _cold(ws)
    _, snap, refreshed = _run(ws, racy_ns=0)  # and the rebuilt store works
    assert refreshed.read == 0 and not [p for p in snap._raw if p.endswith(".md")]

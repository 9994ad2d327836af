"""The watched freshness check of a long-lived store (memcli/store/watch.py), on real files with
real inotify: after every sort of change, the very next refresh gives what a full check from
scratch gives (rows, odd entries, search hits), from the events alone where they can tell, and from
a full listing where they cannot (an overflowed queue, a folder removed, a linked folder, another
connection's writes)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from store.kit import SRC, TS, write

from memcli.search import SearchIndex
from memcli.store import RecordStore, store_path, watch
from memcli.store import listing as listing_module
from memcli.store import store as store_module
from memcli.workspace import Workspace

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")

COLUMNS = ("path, hash, type, slug, kind, status, replaced_by, model_invocation, parse_error, valid,"
           " updated_ts, entry, anchors, needles, facts, terms")
QUERIES = ["mail queue", "sqlite backup", "release steps", "データベース"]
DECISION = f"---\n{TS}status: open\nsources:\n{SRC}---\n"


def _state(index: SearchIndex) -> tuple:
    index.refresh()
    rows = sorted(index.conn.execute(f"SELECT {COLUMNS} FROM docs"))
    texts = sorted(index.conn.execute("SELECT d.path, t.description, t.summary, t.body, t.words FROM texts t"
                                      " JOIN docs d USING (id)"))
    fts = sorted(index.conn.execute("SELECT d.path, f.slug, f.description, f.body FROM fts f"
                                    " JOIN docs d ON d.id = f.rowid"))
    hits = [sorted((h.path, round(h.score, 9)) for h in index.search(q, limit=50)) for q in QUERIES]
    return rows, texts, fts, sorted(index.odd), hits


class Counted(listing_module.Listing):
    made = 0

    def __init__(self, root: Path) -> None:
        Counted.made += 1
        super().__init__(root)


@pytest.fixture
def watched(generated: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A store of `generated` refreshed as a long-lived process does (watching from the second
    refresh on), and a check that its next refresh equals a full check from scratch."""
    if watch._fs_types([os.path.realpath(generated)])[0] not in watch._LOCAL:
        pytest.skip("the temporary folder is on a network or FUSE file system: no watch there")
    monkeypatch.setattr(store_module, "Listing", Counted)
    ws = Workspace.open(generated)
    index = SearchIndex(ws.root, store_path(ws.state_dir, ws.root))
    index.refresh()
    index.refresh()
    assert index._watch is not None and index._watch.alive

    def check(*, listed: bool = False) -> None:
        before = Counted.made
        mine = _state(index)
        assert (Counted.made > before) is listed, "listed every file" if not listed else "did not list"
        with SearchIndex(ws.root) as fresh:  # in memory: a full check from scratch
            assert mine == _state(fresh)

    check()
    yield index, check
    index.close()


def _rel(root: Path, n: int) -> str:
    return sorted(p.relative_to(root).as_posix() for p in (root / "memory/decisions").glob("[!.]*.md"))[n]


def test_edits_creations_deletions_and_renames_are_seen_from_the_events(generated: Path, watched) -> None:
    index, check = watched
    target = generated / _rel(generated, 0)
    target.write_text(target.read_text(encoding="utf-8") + "\nA queue for mail, added.\n", encoding="utf-8")
    check()
    before = target.stat()
    data = target.read_bytes()
    target.write_bytes(data.replace(b"queue", b"QUEUE"))  # the same size, the mtime put back
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    check()
    write(generated, "memory/decisions/new-mail-queue.md", DECISION + "A mail queue, new.\n")
    check()
    with open(target, "a", encoding="utf-8") as fh:  # written, not yet closed: seen all the same
        fh.write("\nStill open: sqlite backup.\n")
        fh.flush()
        check()
    (generated / _rel(generated, 1)).unlink()
    check()
    os.rename(generated / _rel(generated, 2), generated / "memory/decisions/renamed-one.md")
    check()
    os.rename(generated / _rel(generated, 3), generated / "knowledge/moved-across.md")
    check()
    os.replace(generated / _rel(generated, 4), generated / _rel(generated, 5))  # a rename over a file
    check()
    summary = generated / "memory/summary.md"
    summary.write_text(summary.read_text(encoding="utf-8") + "\nSQLite backup summary.\n", encoding="utf-8")
    check()
    (generated / "knowledge/wal-link.md").symlink_to(generated / _rel(generated, 6))  # odd entries
    (generated / "memory/decisions/a-folder.md").mkdir()
    (generated / "knowledge/folder.md").rmdir()
    check()


def test_a_folder_removed_and_made_again_is_listed_again(generated: Path, watched) -> None:
    index, check = watched
    shutil.rmtree(generated / "memory/requests")
    check(listed=True)
    write(generated, "memory/requests/again.md", f"---\n{TS}sources:\n{SRC}---\nSQLite backup, again.\n")
    check(listed=True)  # the folder made again
    write(generated, "memory/requests/more.md", f"---\n{TS}sources:\n{SRC}---\nA mail queue, asked.\n")
    check()  # watched again: its files come from the events
    shutil.move(generated / "knowledge", generated / "elsewhere")
    check(listed=True)
    shutil.move(generated / "elsewhere", generated / "knowledge")
    check(listed=True)
    write(generated, "knowledge/after-move.md", "no frontmatter: a mail queue\n")
    check()


def test_an_edit_through_a_hard_link_elsewhere_is_seen(generated: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    record = generated / _rel(generated, 0)
    os.link(record, outside / "same.md")  # before the watch: its link count says so
    monkeypatch.setattr(store_module, "Listing", Counted)
    ws = Workspace.open(generated)
    with SearchIndex(ws.root, store_path(ws.state_dir, ws.root)) as index:
        index.refresh()
        index.refresh()
        assert index._watch is not None
        with open(outside / "same.md", "a", encoding="utf-8") as fh:  # in place: the folder hears nothing
            fh.write("\nA mail queue through the other name.\n")
        made = Counted.made
        mine = _state(index)
        assert Counted.made == made
        with SearchIndex(ws.root) as fresh:
            assert mine == _state(fresh)
        body = index.conn.execute("SELECT body FROM texts JOIN docs USING (id) WHERE path = ?",
                                  (record.relative_to(generated).as_posix(),)).fetchone()[0]
        assert "other name" in body


def test_a_hard_link_made_inside_the_folders_covers_both_names(generated: Path, watched) -> None:
    index, check = watched
    record = generated / _rel(generated, 0)
    os.link(record, generated / "memory/decisions/second-name.md")
    check()
    with open(generated / "memory/decisions/second-name.md", "a", encoding="utf-8") as fh:
        fh.write("\nA mail queue, written through the second name.\n")
    check()  # the event names the second name only; the first shares its inode


def test_a_linked_record_folder_is_listed_at_every_refresh(generated: Path, tmp_path: Path, watched) -> None:
    index, check = watched
    target = tmp_path / "requests-elsewhere"
    shutil.move(generated / "memory/requests", target)
    os.symlink(target, generated / "memory/requests")
    check(listed=True)
    assert index._watch is None
    write(target, "via-link.md", f"---\n{TS}sources:\n{SRC}---\nA mail queue via a linked folder.\n")
    check(listed=True)


def test_a_queue_that_overflowed_falls_back_to_the_listing(generated: Path, watched) -> None:
    index, check = watched
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    noise = [generated / "knowledge/notes-a.txt", generated / "knowledge/notes-b.txt"]  # not records
    for path in noise:
        path.write_text("x", encoding="utf-8")
    for i in range(limit + 10):  # alternating: identical events in a row would be merged
        os.utime(noise[i % 2], ns=(i, i))
    target = generated / _rel(generated, 0)  # its events no longer fit: only the overflow says so
    target.write_text(target.read_text(encoding="utf-8") + "\nA mail queue, after.\n", encoding="utf-8")
    check(listed=True)
    check()  # and the watch goes on


def test_another_connection_s_writes_make_a_full_check(generated: Path, watched) -> None:
    index, check = watched
    ws = Workspace.open(generated)
    db = store_path(ws.state_dir, ws.root)
    with sqlite3.connect(db) as other:
        other.execute("UPDATE meta SET value = 'another memcli' WHERE key = 'code'")
    RecordStore(ws.root, db).close()  # another version's process: every row forgotten, none read yet
    assert index.conn.execute("SELECT count(*) FROM docs").fetchone() == (0,)
    check(listed=True)
    check()


def test_without_inotify_every_refresh_lists_and_answers_the_same(generated: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "inotify_simple", None)  # as on macOS: it cannot be imported
    monkeypatch.setattr(store_module, "Listing", Counted)
    ws = Workspace.open(generated)
    with SearchIndex(ws.root, store_path(ws.state_dir, ws.root)) as index:
        for step in range(3):
            body = "A mail queue. " * (step + 1)  # (unequal records: ties rank by row id)
            write(generated, f"memory/decisions/step-{step}.md", DECISION + body + "\n")
            made = Counted.made
            mine = _state(index)
            assert Counted.made == made + 1 + len(QUERIES) and index._watch is None  # every refresh
            with SearchIndex(ws.root) as fresh:
                assert mine == _state(fresh)


def test_the_file_system_of_a_folder_is_its_mount_s(tmp_path: Path) -> None:
    proc, here = watch._fs_types(["/proc/self", os.path.realpath(tmp_path)])
    assert proc == "proc" and "proc" not in watch._LOCAL  # (no watch where the kernel does not see writes)
    assert here is not None and here != "proc"

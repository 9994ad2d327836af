"""The index stays correct across edits, deletions, renames, broken files and broken databases."""

from __future__ import annotations

import os
import sqlite3

from memcli.search import SearchIndex, index_path, search
from memcli.workspace import Workspace


def slugs(hits) -> list[str]:
    return [h.slug for h in hits]


def open_index(root) -> SearchIndex:
    return SearchIndex.for_workspace(Workspace.open(root))


def test_unchanged_files_are_not_read_again(records):
    for i in range(5):
        records.request(f"r{i}", f"text {i}")
    with open_index(records.root) as index:
        first = index.refresh()
        second = index.refresh()
    assert (first.added, first.updated, first.removed) == (5, 0, 0)
    assert (second.added, second.updated, second.removed, second.unchanged) == (0, 0, 0, 5)


def test_index_persists_between_opens(records):
    records.request("r1", "persisted words")
    with open_index(records.root) as index:
        index.refresh()
    with open_index(records.root) as index:
        stats = index.refresh()
        assert stats.added == 0 and stats.unchanged == 1
        assert slugs(index.search("persisted")) == ["r1"]


def test_edit_is_noticed(records):
    records.request("r1", "apples are red")
    assert slugs(search(records.root, "apples")) == ["r1"]
    records.request("r1", "bananas are yellow")
    assert search(records.root, "apples") == []
    assert slugs(search(records.root, "bananas")) == ["r1"]


def test_same_size_edit_with_same_mtime_is_noticed_by_hash(records):
    path = records.request("r1", "apples", age_s=None)  # fresh mtime: too recent to trust
    st = path.stat()
    assert slugs(search(records.root, "apples")) == ["r1"]
    path.write_text(path.read_text().replace("apples", "grapes"), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    assert path.stat().st_size == st.st_size
    assert slugs(search(records.root, "grapes")) == ["r1"]
    assert search(records.root, "apples") == []


def test_touch_without_change_does_not_reparse(records):
    path = records.request("r1", "apples")
    with open_index(records.root) as index:
        index.refresh()
        os.utime(path, None)
        stats = index.refresh()
    assert (stats.updated, stats.unchanged) == (0, 1)


def test_delete_is_noticed(records):
    path = records.request("r1", "apples")
    records.request("r2", "apples too")
    assert len(search(records.root, "apples")) == 2
    path.unlink()
    assert slugs(search(records.root, "apples")) == ["r2"]


def test_rename_is_noticed(records):
    path = records.decision("old-name", "Cherries are chosen.")
    assert slugs(search(records.root, "cherries")) == ["old-name"]
    path.rename(path.with_name("new-name.md"))
    hits = search(records.root, "cherries")
    assert [(h.slug, h.path) for h in hits] == [("new-name", "memory/decisions/new-name.md")]


def test_move_between_kinds_changes_type(records):
    path = records.decision("topic", "Plums everywhere.")
    (records.root / "memory/requests").mkdir(parents=True, exist_ok=True)
    path.rename(records.root / "memory/requests/topic.md")
    (hit,) = search(records.root, "plums")
    assert hit.type == "request"


def test_files_outside_records_are_ignored(records):
    records.request("r1", "kiwi")
    records.write("memory/_staging/x.md", "kiwi staging")
    records.write("memory/decisions/.draft.md", "kiwi hidden")
    records.write("notes/kiwi.md", "kiwi outside")
    records.write("knowledge/sub/kiwi.md", "kiwi in a folder that holds no records")
    assert slugs(search(records.root, "kiwi")) == ["r1"]


def test_broken_records_are_searchable_and_counted(records):
    records.request("good", "mango facts")
    records.write("memory/requests/no-front.md", "mango without frontmatter")
    records.write("memory/decisions/bad-yaml.md", "---\nstatus: [open\n---\nmango in a bad file\n")
    (records.root / "memory/requests/binary.md").write_bytes(b"\x00\x01mango\xff")
    (records.root / "memory/requests/latin1.md").write_bytes("---\n---\nmango caf\xe9".encode("latin-1"))
    hits = {h.slug: h for h in search(records.root, "mango")}
    assert set(hits) == {"good", "no-front", "bad-yaml"}
    assert hits["good"].parse_error is None
    assert "frontmatter" in hits["no-front"].parse_error
    assert "YAML" in hits["bad-yaml"].parse_error
    with open_index(records.root) as index:
        assert index.counts() == (5, 4)
        assert slugs(index.search("latin1")) == ["latin1"]  # found by its path


def test_corrupt_index_is_rebuilt(records):
    records.request("r1", "papaya")
    ws = Workspace.open(records.root)
    db = index_path(ws.state_dir, ws.root)
    assert slugs(search(ws, "papaya")) == ["r1"]
    db.write_bytes(b"this is not a database" * 100)
    assert slugs(search(ws, "papaya")) == ["r1"]
    db.write_bytes(db.read_bytes()[:2048])  # truncated
    assert slugs(search(ws, "papaya")) == ["r1"]


def test_deleted_index_is_rebuilt(records):
    records.request("r1", "papaya")
    ws = Workspace.open(records.root)
    assert slugs(search(ws, "papaya")) == ["r1"]
    index_path(ws.state_dir, ws.root).unlink()
    assert slugs(search(ws, "papaya")) == ["r1"]


def test_old_version_index_is_rebuilt(records):
    records.request("r1", "papaya")
    ws = Workspace.open(records.root)
    search(ws, "papaya")
    db = index_path(ws.state_dir, ws.root)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 1")
    with open_index(records.root) as index:
        assert index.refresh().added == 1  # started again from nothing


def test_index_of_another_root_is_not_reused(records, tmp_path):
    records.request("r1", "papaya")
    ws = Workspace.open(records.root)
    a, b = index_path(ws.state_dir, records.root), index_path(ws.state_dir, tmp_path / "copy")
    assert a != b and a.parent == b.parent == ws.state_dir / "search"


def test_unwritable_state_dir_falls_back_to_memory(records, tmp_path, monkeypatch):
    records.request("r1", "papaya")
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("x")
    monkeypatch.setenv("MEMCLI_STATE_DIR", str(blocker))
    ws = Workspace.open(records.root)
    with SearchIndex.for_workspace(ws) as index:
        assert index.db_path is None
        assert slugs(index.search("papaya")) == ["r1"]


def test_delete_of_a_freshly_written_file_is_noticed(records):
    path = records.request("fresh", "quince", age_s=None)  # too recent to be trusted by mtime
    records.request("old", "quince")
    assert len(search(records.root, "quince")) == 2
    path.unlink()
    assert slugs(search(records.root, "quince")) == ["old"]

"""The store's one freshness check and what it keeps: postings made only when search asks (from
the kept text), made again for another tokenizer, rows made again by another version of the
parser, links and folders left to the readers, helpers for a large build."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from memcli import forked
from memcli.search import SearchIndex
from memcli.store import RecordStore, build, store_path  # build: a submodule
from memcli.workspace import Workspace


def _store(root: Path, cls=RecordStore):  # type: ignore[no-untyped-def]
    """The store of `root`, trusting stamps at once (the files were just copied)."""
    ws = Workspace.open(root)
    return cls(ws.root, store_path(ws.state_dir, ws.root), racy_ns=0)


def test_postings_wait_for_search_and_come_from_the_kept_text(example: Path, monkeypatch) -> None:
    with _store(example) as store:
        first = store.refresh()
        assert first.added == store.size() > 0
        assert store.conn.execute("SELECT count(*) FROM docs WHERE terms IS NOT NULL").fetchone() == (0,)
    reads = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or real(self))
    with _store(example, SearchIndex) as index:
        stats = index.refresh()
        assert (stats.added, stats.read) == (0, 0) and not [p for p in reads if p.suffix == ".md"]
        assert [h.slug for h in index.search("backup")][:1] == ["sqlite-backup"]
        assert index.conn.execute("SELECT count(*) FROM docs WHERE terms IS NULL").fetchone() == (0,)


def test_another_tokenizer_makes_every_postings_again(example: Path) -> None:
    with _store(example, SearchIndex) as index:
        index.refresh()
        index.set_meta("postings-version", "0")
        index.set_meta("postings", "0")
        index.conn.execute("UPDATE texts SET words = 'stale'")
        assert index.refresh().read == 0  # the files are not read: the text is kept
        assert index.conn.execute("SELECT count(*) FROM texts WHERE words = 'stale'").fetchone() == (0,)
        assert [h.slug for h in index.search("backup")][:1] == ["sqlite-backup"]


def test_another_parser_version_reads_every_file_again_and_keeps_vectors(example: Path) -> None:
    with _store(example) as store:
        store.refresh()
        store.conn.execute("INSERT INTO vectors VALUES ('h', 'm', x'00')")
        store.set_meta("code", "an older memcli")
    with _store(example) as store:
        assert store.refresh().added == store.size() > 0
        assert store.conn.execute("SELECT count(*) FROM vectors").fetchone() == (1,)


def test_links_and_folders_are_left_to_readers(example: Path) -> None:
    os.symlink(example / "knowledge/wal-mode.md", example / "knowledge/link.md")
    (example / "knowledge/folder.md").mkdir()
    with _store(example) as store:
        store.refresh()
        assert sorted(store.odd) == ["knowledge/folder.md", "knowledge/link.md"]
        assert "knowledge/link.md" not in store.hashes() and not store.linked


def _rows_of(generated: Path, monkeypatch, min_files: int) -> list[tuple]:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(build, "MIN_FILES", min_files)
    with SearchIndex(generated) as index:  # in memory
        index.refresh()
        return index.conn.execute(
            "SELECT d.path, d.hash, d.valid, d.entry, d.anchors, d.facts, d.terms, t.words, p.loaded FROM"
            " docs d JOIN texts t USING (id) LEFT JOIN parsed p USING (id) ORDER BY d.path").fetchall()


def _helpers(monkeypatch) -> list:  # type: ignore[no-untyped-def]
    """Three cores, and each helper the build starts, as forked.stream gave it."""
    monkeypatch.setattr(forked.threading, "active_count", lambda: 1)
    monkeypatch.setattr(forked, "cores", lambda: 3)
    started: list = []
    real = forked.stream
    monkeypatch.setattr(forked, "stream", lambda produce: started.append(real(produce)) or started[-1])
    return started


def test_a_large_build_in_helpers_equals_one_in_process(generated: Path, monkeypatch) -> None:
    started = _helpers(monkeypatch)
    monkeypatch.setattr(build, "BATCH", 7)  # many frames per helper, stored as they come
    alone = _rows_of(generated, monkeypatch, 10**9)
    assert not started
    assert _rows_of(generated, monkeypatch, 100) == alone
    assert len(started) == 3 and None not in started


def _filled_later(generated: Path, monkeypatch, min_files: int) -> list[tuple]:  # type: ignore[no-untyped-def]
    """The postings of a store first refreshed for another reader (context), made by search."""
    monkeypatch.setattr(build, "MIN_FILES", min_files)
    ws = Workspace.open(generated)
    path = store_path(ws.state_dir, ws.root)
    with RecordStore(ws.root, path, racy_ns=0) as store:  # (stamps trusted: the files are not read again)
        store.refresh()
    with SearchIndex(ws.root, path, racy_ns=0) as index:
        assert index.refresh().read == 0
        return index.conn.execute(
            "SELECT d.path, d.terms, t.words, f.slug, f.description, f.body FROM docs d JOIN texts t"
            " USING (id) JOIN fts f ON f.rowid = d.id ORDER BY d.path").fetchall()


def test_postings_made_later_on_helpers_equal_those_made_with_the_rows(generated: Path, monkeypatch) -> None:
    started = _helpers(monkeypatch)
    monkeypatch.setattr(build, "BATCH", 7)
    with_rows = [(p, t, w) for p, _, _, _, _, _, t, w, _ in _rows_of(generated, monkeypatch, 10**9)]
    assert not started
    later = _filled_later(generated, monkeypatch, 100)
    assert len(started) == 6 and None not in started  # three reading the files, three the postings
    assert [(p, t, w) for p, t, w, *_ in later] == with_rows
    shutil.rmtree(Workspace.open(generated).state_dir / "search")
    assert _filled_later(generated, monkeypatch, 10**9) == later and len(started) == 6


def test_a_helper_dying_mid_build_loses_nothing(generated: Path, monkeypatch) -> None:
    """A helper that exits after its first batch: what it sent stands, the parent does the rest."""
    started = _helpers(monkeypatch)
    alone = _rows_of(generated, monkeypatch, 10**9)
    parent, made = os.getpid(), []
    real = build._rows

    def rows(*args):  # type: ignore[no-untyped-def]
        made.append(1)
        if os.getpid() != parent and len(made) > 1:
            os._exit(3)  # in a helper, past its first batch
        return real(*args)

    monkeypatch.setattr(build, "BATCH", 5)
    monkeypatch.setattr(build, "_rows", rows)
    frames: list[tuple[int, bool]] = []
    seen = forked.frames
    monkeypatch.setattr(forked, "frames", lambda helpers: (
        frames.append((n, frame is not None)) or (n, frame) for n, frame in seen(helpers)))
    assert _rows_of(generated, monkeypatch, 100) == alone
    assert len(started) == 3
    assert sorted(frames) == sorted([(n, True) for n in range(3)] + [(n, False) for n in range(3)])


def test_stopping_early_leaves_no_helper_behind() -> None:
    def endless(send) -> None:  # type: ignore[no-untyped-def]
        while True:
            send(b"x" * 1000)

    helpers = [forked.stream(endless) for _ in range(2)]
    assert None not in helpers
    frames = forked.frames(helpers)  # type: ignore[arg-type]
    assert [next(frames)[1] for _ in range(5)] == [b"x" * 1000] * 5
    frames.close()
    for pid, _ in helpers:  # type: ignore[misc]
        with pytest.raises(ChildProcessError):  # reaped already
            os.waitpid(pid, os.WNOHANG)


def test_a_helper_writes_a_whole_batch_without_waiting_for_the_parent() -> None:
    """The pipe holds a batch of rows (~500 KB at 200): a helper blocked every 64 KiB on a busy
    parent made a 10 000-record build ~5% slower here."""
    fcntl = pytest.importorskip("fcntl")
    if not hasattr(fcntl, "F_GETPIPE_SZ") or int(Path("/proc/sys/fs/pipe-max-size").read_text()) < 1 << 20:
        pytest.skip("no pipe sizes to set here")
    helper = forked.stream(lambda send: send(b"x" * 1000))
    assert helper is not None
    assert fcntl.fcntl(helper[1], fcntl.F_GETPIPE_SZ) >= 1 << 20
    assert [frame for _, frame in forked.frames([helper])] == [b"x" * 1000]


def _age(root: Path, seconds: float = 3600) -> None:
    """Every record file last changed an hour ago (stamps the store trusts at once)."""
    for path in root.rglob("*.md"):
        st = path.stat()
        os.utime(path, (st.st_atime - seconds, st.st_mtime - seconds))


def test_an_edit_in_place_is_found_from_the_kept_listing(generated: Path, monkeypatch) -> None:
    from memcli.store import diff

    _age(generated)
    time.sleep(0.1)  # (aging moved the ctimes to now: let them settle past the short window below)
    ws = Workspace.open(generated)
    window = 50_000_000  # 50 ms instead of 2 s, so the test need not wait
    with RecordStore(ws.root, store_path(ws.state_dir, ws.root), racy_ns=window) as store:
        store.refresh()
    target = generated / "memory/decisions/mail-v1.md"
    target.write_text(target.read_text(encoding="utf-8").replace("cron", "CRON"), encoding="utf-8")
    asked = []
    real = diff.moved
    monkeypatch.setattr(diff, "moved", lambda conn, found: asked.append(real(conn, found)) or asked[-1])
    with RecordStore(ws.root, store_path(ws.state_dir, ws.root), racy_ns=window) as store:
        stats = store.refresh()
        assert [list(m) for m in asked] == [["memory/decisions/mail-v1.md"]]
        assert (stats.updated, stats.read) == (1, 1)
        assert "CRON" in store.conn.execute("SELECT body FROM texts JOIN docs USING (id) WHERE path = ?",
                                            ("memory/decisions/mail-v1.md",)).fetchone()[0]
        assert store.refresh().read == 1  # just written: not trusted yet, read again ...
        assert list(asked[-1]) == ["memory/decisions/mail-v1.md"]  # ... from the kept list of untrusted paths


def test_files_added_or_removed_compare_every_row(generated: Path, monkeypatch) -> None:
    from memcli.store import diff

    _age(generated)
    with _store(generated) as store:
        store.refresh()
        before = store.size()
        (generated / "memory/decisions/mail-v1.md").unlink()
        (generated / "memory/decisions/mail-v2.md").rename(generated / "memory/decisions/mail-v9.md")
        asked = []
        real = diff.moved
        monkeypatch.setattr(diff, "moved", lambda conn, found: asked.append(real(conn, found)) or asked[-1])
        stats = store.refresh()
        assert asked in ([], [None]) and (stats.removed, stats.added) == (2, 1) and store.size() == before - 1
        assert "memory/decisions/mail-v9.md" in store.hashes()


def test_rows_lost_behind_the_store_s_back_are_read_again(generated: Path) -> None:
    _age(generated)
    with _store(generated) as store:
        store.refresh()
        store.conn.execute("DELETE FROM docs WHERE path = 'memory/decisions/mail-v1.md'")
        store.set_meta("listing", None)
        assert store.refresh().added == 1
        assert "memory/decisions/mail-v1.md" in store.hashes()


def test_a_store_that_cannot_be_replaced_goes_on_in_memory(example: Path, monkeypatch) -> None:
    # A broken store in a folder that refuses the new file (read-only, a stray lock): readers go on.
    from memcli.store.db import Database

    with _store(example) as store:
        store.refresh()

        def refuse(self):  # type: ignore[no-untyped-def]
            raise PermissionError("read-only state folder")

        monkeypatch.setattr(Database, "_rebuild_file", refuse)
        store.recover()
        assert store.db_path is None
        assert store.refresh().added == store.size() > 0


def _rows(store: RecordStore) -> list[tuple]:
    """What the store made of each file, without its id or when it was read."""
    return store.conn.execute("SELECT path, hash, type, slug, kind, status, valid, entry, anchors, needles"
                              " FROM docs ORDER BY path").fetchall()


def test_a_refresh_within_some_folders_reads_only_those_and_the_next_one_the_rest(generated: Path) -> None:
    """What a session start does on a fresh clone: the knowledge and the summary are read, the
    decisions and requests wait for the first refresh that wants every row; the rows come out as
    a full refresh makes them."""
    from memcli.context.read import RESIDENT

    with _store(generated) as whole:
        whole.refresh()
        every = _rows(whole)
    shutil.rmtree(Workspace.open(generated).state_dir)
    inside = [row for row in every if row[0].startswith(RESIDENT)]
    assert 0 < len(inside) < len(every)
    with _store(generated) as store:
        first = store.refresh(within=RESIDENT)
        assert (first.added, first.read) == (len(inside), len(inside)) and _rows(store) == inside
        again = store.refresh(within=RESIDENT)  # nothing new under them: nothing read
        assert (again.added, again.read, again.unchanged) == (0, 0, len(inside))
    with _store(generated) as store:
        rest = store.refresh()
        assert (rest.added, rest.read, rest.unchanged) == (len(every) - len(inside),) * 2 + (len(inside),)
        assert _rows(store) == every
        assert store.refresh().read == 0  # complete: the listing is kept again


def test_a_refresh_within_some_folders_sees_removals_there_and_only_there(generated: Path) -> None:
    from memcli.context.read import RESIDENT

    with _store(generated) as store:
        store.refresh()
        size = store.size()
        knowledge = next(p for (p,) in store.conn.execute("SELECT path FROM docs WHERE type = 'knowledge'"))
        decision = next(p for (p,) in store.conn.execute("SELECT path FROM docs WHERE type = 'decision'"))
    (generated / knowledge).unlink()
    (generated / decision).unlink()
    with _store(generated) as store:
        assert store.refresh(within=RESIDENT).removed == 1 and store.size() == size - 1
        assert store.conn.execute("SELECT count(*) FROM docs WHERE path = ?", (decision,)).fetchone() == (1,)
        assert store.refresh().removed == 1 and store.size() == size - 2


def test_a_long_lived_store_after_a_refresh_within_folders_makes_every_row(generated: Path) -> None:
    """The watch of a long-lived process tells what changed, not which rows a refresh within some
    folders left unmade: the next full refresh lists the folders again."""
    from memcli.context.read import RESIDENT

    with _store(generated) as whole:
        whole.refresh()
        every = _rows(whole)
    shutil.rmtree(Workspace.open(generated).state_dir)
    with _store(generated) as store:
        store.refresh(within=RESIDENT)
        store.refresh(within=RESIDENT)  # the second refresh of this object: the watch is armed
        store.refresh()
        assert _rows(store) == every
        assert store.refresh().unchanged == len(every)

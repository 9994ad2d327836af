"""Whole-index values kept from one process to the next (RecordStore.derived) are always those of
the rows now: every change to the records, by this connection or another, drops them."""

from __future__ import annotations

import os
from pathlib import Path

from store.kit import TS, write

from memcli.search import SearchIndex

SLUGS = "SELECT id, slug FROM docs ORDER BY path"


def _kept(index: SearchIndex) -> set[str]:
    return {key for (key,) in index.conn.execute("SELECT key FROM derived")}


def _record(root: Path, slug: str, body: str = "Body.") -> None:
    write(root, f"knowledge/{slug}.md", f"---\n{TS}kind: fact\ndescription: {slug}.\nmodel_invocation: true\n"
          f"user_invocable: true\nlast_sources: []\n---\n{body}\n")


def test_kept_values_follow_every_change(tmp_path: Path) -> None:
    root, db = tmp_path / "ws", tmp_path / "index.sqlite"
    for slug in ("beta", "alpha"):
        _record(root, slug)
    with SearchIndex(root, db, racy_ns=0) as index:
        index.refresh()
        assert [s for _, s in index.derived("slugs", SLUGS)] == ["alpha", "beta"]
        assert index.counts() == (2, 0)
        assert _kept(index) == {"slugs", "counts"}
    with SearchIndex(root, db, racy_ns=0) as index:  # the next process reads them as kept
        assert index.conn.execute("SELECT count(*) FROM derived").fetchone()[0] == 2
        assert [s for _, s in index.derived("slugs", SLUGS)] == ["alpha", "beta"]
        _record(root, "gamma")
        write(root, "knowledge/broken.md", "---\nkind: [rule\n---\nbody\n")
        index.refresh()
        assert _kept(index) == set()  # dropped by the rows' writes
        assert [s for _, s in index.derived("slugs", SLUGS)] == ["alpha", "beta", "broken", "gamma"]
        assert index.counts() == (4, 1)
        other = SearchIndex(root, db, racy_ns=0)  # another process edits a record
        try:
            (root / "knowledge/alpha.md").unlink()
            _record(root, "beta", "Edited, and longer than it was.")
            stamp = os.stat(root / "knowledge/beta.md").st_mtime_ns + 10**9
            os.utime(root / "knowledge/beta.md", ns=(stamp, stamp))
            other.refresh()
        finally:
            other.close()
        assert _kept(index) == set()
        assert [s for _, s in index.derived("slugs", SLUGS)] == ["beta", "broken", "gamma"]
        assert index.counts() == (3, 1)


def test_garbage_kept_is_computed_again(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _record(root, "alpha")
    with SearchIndex(root, tmp_path / "index.sqlite") as index:
        index.refresh()
        index.conn.execute("INSERT INTO derived VALUES ('slugs', x'00ff')")
        assert [s for _, s in index.derived("slugs", SLUGS)] == ["alpha"]

"""`RecordStore`: the parsed records of a workspace, kept fresh by one stat-based check.

Every reader calls `refresh()` first: the record folders are listed and every file lstat-ed
(listing.py), and only files whose stamp changed — or whose stamp was too close to when they were
read to be trusted, the "racy clean" case git also guards against — are read again; a file whose
bytes hash the same is not parsed again. Files gone from the listing are dropped, so a rename is a
drop plus an add. Records that changed are parsed once (row.py), by helper processes when there are
many (build.py). `refresh(postings=True)` also makes the search postings of every record that lacks
them (postings.py): only search asks. `refresh(within=...)` reads, where files came or went, only
those under the prefixes given (a session start needs knowledge/ and the summary, not the decisions
a fresh clone or a pull brought): the other rows are made by the next refresh without it. Readers
then query rows instead of parsing files; see the methods below. A store refreshed again in the
same process (a long-lived one) watches the record folders instead of listing them, where it can
(watch.py).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sqlite3
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from memcli import __version__
from memcli.codekey import code_fingerprint
from memcli.records.facts import NEEDLES, RecordFacts
from memcli.recordtext import read_file
from memcli.store import diff
from memcli.store.db import RACY_NS, Database, RefreshStats
from memcli.store.listing import Listing, Stamp
from memcli.store.watch import Watch
from memcli.workspace import SUMMARY_PATH

_DOC_COLUMNS = ("type, slug, kind, status, replaced_by, model_invocation, parse_error, valid, updated_ts,"
                " entry, anchors, needles, facts")


# The code a row is made by (row.py and what it calls): see _forget_rows_of_other_code.
_ROW_CODE = ("records", "store", "plainyaml.py", "anchors.py", "recordtext.py", "workspace.py", "values.py",
             "__init__.py")


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _fetch(root: Path) -> Callable[[str], tuple[str, bytes] | None]:
    """How the build reads a file under `root`: (content hash, bytes), None when it cannot. Bounded;
    a FIFO or a link put where the listing saw a file is refused, not followed."""

    top = str(root)  # a str path: a Path is turned into one on every open (~20 us a file)

    def fetch(rel: str) -> tuple[str, bytes] | None:
        data, _ = read_file(os.path.join(top, rel), follow=False)
        return None if data is None else (content_hash(data), data)

    return fetch


def _say_large(count: int, what: str) -> None:
    """A line on a terminal's stderr before work that takes seconds (a fresh clone's first build:
    ~2 s at 10 000 records here), so a first `memcli search` does not look hung."""
    from memcli.store.build import MIN_FILES  # here: (what shares the work out) only for a large refresh

    if count >= MIN_FILES:
        from memcli import progress  # here: only a large refresh says anything

        progress.note(f"memcli: {count:,} {what}…")


class RecordStore(Database):
    """The store of the records under `root` (`db_path=None`: in memory). `racy_ns`: how long after
    a file's last change its stamp is not trusted (tests shorten it)."""

    def __init__(self, root, db_path=None, *, racy_ns: int = RACY_NS, threads: bool = False) -> None:
        self.racy_ns = racy_ns
        self.odd: list[str] = []  # set by refresh(): see Listing.odd
        self.linked = False  # set by refresh(): see Listing.linked
        self._hashes: dict[str, str] | None = None  # see hashes()
        self._refreshes = 0
        # From the second refresh on, the record folders are watched (watch.py): the files to look
        # at come from the events, as long as no other connection wrote (`_version`).
        self._watch: Watch | None = None
        self._version: int | None = None  # PRAGMA data_version when the events last told all
        self._count = 0  # record files, as of the last refresh
        self._shared: set[str] = set()  # files with another hard link: lstat-ed at every refresh
        self._pending: set[str] = set()  # files a refresh could not read: looked at again
        self._partial = False  # the last refresh read only some folders: the next one lists them all
        super().__init__(root, db_path, threads=threads)
        self._forget_rows_of_other_code()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
        super().close()

    def recover(self) -> None:
        self._version = None  # a new connection: its data_version says nothing of the old one's
        super().recover()

    def _forget_rows_of_other_code(self) -> None:
        """Rows are what memcli's parser made of each file: another version of that code (an
        upgrade, an edit) makes every file be read again; vectors and other readers' caches, keyed
        by content and their own fingerprints, stay."""

        code = code_fingerprint(_ROW_CODE, f"{__version__}").hex()
        try:
            if self.get_meta("code") == code:
                return
            with self.writing():
                for table in ("docs", "texts", "parsed", "fts"):
                    self.conn.execute(f"DELETE FROM {table}")
                for key in ("listing", "postings", "postings-version"):
                    self.set_meta(key, None)
                diff.keep(self.conn, None, [])
                self.set_meta("code", code)
        except sqlite3.DatabaseError:
            self.recover()
            self.set_meta("code", code)

    # -- freshness ---------------------------------------------------------------------------
    def refresh(self, *, postings: bool = False, within: tuple[str, ...] | None = None) -> RefreshStats:
        """Bring the store in step with the files (with `postings`, the search postings too). With
        `within` (path prefixes) only the rows of the files under them are sure to be, all of them
        when no file came or went."""
        self._refreshes += 1
        try:
            return self._refresh(postings, within)
        except sqlite3.DatabaseError:
            self.recover()
            return self._refresh(postings, within)

    def _refresh(self, postings: bool, within: tuple[str, ...] | None = None) -> RefreshStats:
        self._hashes = None
        if self._watch is not None and not self._partial:  # events tell nothing of the rows not made
            by_events = self._refresh_by_events(postings)
            if by_events is not None:
                return by_events
        elif self._refreshes == 2:  # refreshed again: a long-lived process, worth a watch
            self._watch = Watch(self.root)
            if not self._watch.arm():
                self._watch = None
        data_version = self._data_version()  # before the listing: a write after it shows
        found = Listing(self.root)
        self.odd, self.linked = found.odd, found.linked
        self._count, self._shared, self._pending = len(found), set(found.shared), set()
        if self._watch is not None and self.linked:  # a record folder reached through a link
            self._watch.close()
            self._watch = None
        self._version = data_version if self._watch is not None else None
        # The listing's digest equal to the stored one means nothing changed, without reading a
        # row. It is stored only while every file is trusted by its stamp.
        listing = found.digest()
        version: str | None = None
        if postings:
            from memcli.store.postings import VERSION as version  # here: only search's postings
        kept = dict(self.conn.execute("SELECT key, value FROM meta WHERE key IN ('listing', 'postings')"))
        if kept.get("listing") == listing and (not postings or kept.get("postings") == version):
            return RefreshStats(unchanged=len(found))
        with self.writing():
            moved = diff.moved(self.conn, found) if self.size() == len(found) else None
            if moved is None and within is not None and not postings:
                return self._apply_within(found.files(), within)
            self._partial = False
            if moved is None:  # files came or went: every row is compared
                stats, complete = self._apply(found.files(), postings)
            else:
                stats, complete = self._apply_some(moved, len(found), postings)
            untrusted = [path for (path,) in self.conn.execute(
                "SELECT path FROM docs WHERE checked_ns - max(mtime_ns, ctime_ns) <= ?", (self.racy_ns,))]
            complete = complete and self.size() == len(found)
            diff.keep(self.conn, found if complete else None, untrusted)
            self.set_meta("listing", listing if complete and not untrusted else None)
            if postings:
                self._fill_postings(version)
            elif stats.added or stats.updated:
                self.set_meta("postings", None)
        return stats

    def _data_version(self) -> int:
        return self.conn.execute("PRAGMA data_version").fetchone()[0]

    def _refresh_by_events(self, postings: bool) -> RefreshStats | None:
        """The watched refresh: the files the events name (and the hard-linked ones) compared with
        their rows; None when a full check must do it (see watch.py)."""
        assert self._watch is not None
        paths = self._watch.changed()
        if paths is None or self._data_version() != self._version:
            if not self._watch.alive:  # lost and could not be set up again
                self._watch.close()
                self._watch = None
            return None  # (the watch already queues what changes from now on)
        paths |= self._shared | self._pending
        if not paths:
            return RefreshStats(unchanged=self._count)
        files, gone = self._look_at(paths)
        with self.writing():
            known, trusted = self._rows([*files, *gone])
            todo = [(rel, st) for rel, st in files.items() if trusted.get(rel) != st]
            drop = [known[path][0] for path in gone if path in known]
            stats, complete = self._update(todo, known, drop, 0, postings)
            if not postings and (stats.added or stats.updated):
                self.set_meta("postings", None)
        self._pending = set() if complete else {rel for rel, _ in todo}
        self._count += stats.added - stats.removed
        return RefreshStats(stats.added, stats.updated, stats.removed,
                            self._count - stats.added - stats.updated, stats.read)

    def _look_at(self, paths: set[str]) -> tuple[dict[str, Stamp], list[str]]:
        """(path → stamp of the regular files, the paths that are not one) among `paths` and the
        record files sharing an inode with one of them; `odd` and the hard-linked files updated."""
        files: dict[str, Stamp] = {}
        gone: list[str] = []
        todo, seen = list(paths), set(paths)
        while todo:
            rel = todo.pop()
            try:
                st = os.lstat(self.root / rel)
            except OSError:
                st = None
            if rel in self.odd:
                self.odd.remove(rel)
            if st is None or not stat.S_ISREG(st.st_mode):
                if st is not None:
                    self.odd.append(rel)  # a link or a folder: left to readers, as listed
                gone.append(rel)
                self._shared.discard(rel)
                continue
            files[rel] = Listing.stamp_of(st)
            if st.st_nlink == 1:
                self._shared.discard(rel)
                continue
            self._shared.add(rel)  # an edit through the other name shows here only by lstat
            for (other,) in self.conn.execute("SELECT path FROM docs WHERE ino = ?", (files[rel][3],)):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return files, gone

    def _rows(self, paths: list[str] | None = None) -> tuple[dict[str, tuple[int, str]], dict[str, Stamp]]:
        """(path → (id, content hash), path → stamp of the rows whose stamp can be trusted) of
        every row, or of the rows of `paths`."""
        known: dict[str, tuple[int, str]] = {}
        trusted: dict[str, Stamp] = {}
        sql = ("SELECT path, id, hash, mtime_ns, size, ctime_ns, ino,"
               " checked_ns - max(mtime_ns, ctime_ns) > ? FROM docs")
        chunks = [None] if paths is None else [paths[i : i + 500] for i in range(0, len(paths), 500)]
        for chunk in chunks:
            where = "" if chunk is None else f" WHERE path IN ({','.join('?' * len(chunk))})"
            for path, doc_id, digest, mtime, size, ctime, ino, ok in self.conn.execute(
                    sql + where, (self.racy_ns, *(chunk or ()))):
                known[path] = (doc_id, digest)
                if ok:
                    trusted[path] = (mtime, size, ctime, ino)
        return known, trusted

    def _apply(self, files: dict[str, Stamp], postings: bool) -> tuple[RefreshStats, bool]:
        """Compare every row with `files` (the whole listing) and bring them in step."""
        known, trusted = self._rows()
        self._hashes = {path: digest for path, (_, digest) in known.items()}
        todo = [(rel, st) for rel, st in files.items() if trusted.get(rel) != st]
        gone = [known[p][0] for p in known.keys() - files.keys()]
        for path in known.keys() - files.keys():
            del self._hashes[path]
        return self._update(todo, known, gone, len(files) - len(todo), postings)

    def _apply_within(self, files: dict[str, Stamp], within: tuple[str, ...]) -> RefreshStats:
        """Compare the rows under `within` with the files there and bring them in step; the rows
        the listing no longer matches are forgotten as such (the next full refresh compares all)."""
        known, trusted = self._rows()
        inside = {rel: st for rel, st in files.items() if rel.startswith(within)}
        todo = [(rel, st) for rel, st in inside.items() if trusted.get(rel) != st]
        gone = [doc_id for path, (doc_id, _) in known.items()
                if path.startswith(within) and path not in inside]
        stats, _ = self._update(todo, known, gone, len(inside) - len(todo), False)
        diff.keep(self.conn, None, [])
        self.set_meta("listing", None)
        if stats.added or stats.updated:
            self.set_meta("postings", None)
        self._partial = True
        return stats

    def _apply_some(self, files: dict[str, Stamp], total: int, postings: bool) -> tuple[RefreshStats, bool]:
        """Compare the rows of `files` only (diff.py: the others did not move) and update them."""
        known, trusted = self._rows(list(files))
        todo = [(rel, st) for rel, st in files.items() if trusted.get(rel) != st]
        return self._update(todo, known, [], total - len(todo), postings)

    def _update(self, todo: list[tuple[str, Stamp]], known: dict[str, tuple[int, str]], gone: list[int],
                unchanged: int, postings: bool) -> tuple[RefreshStats, bool]:
        """Drop the `gone` rows, read the `todo` files and store what changed; (stats, whether every
        file was read: else the kept listing would not be what the rows reflect)."""
        if not todo and not gone:
            return RefreshStats(unchanged=unchanged), True
        for doc_id in gone:
            self._drop(doc_id)
        now = self.now_ns()
        from memcli.store.build import items  # here: (what shares the reading out) only to read a file

        paths = [rel for rel, _ in todo]
        _say_large(sum(rel not in known for rel in paths), "record files to read into the store")
        kept = {rel: digest for rel, (_, digest) in known.items()}
        first = (self.conn.execute("SELECT max(id) FROM docs").fetchone()[0] or 0) + 1
        read = added = updated = 0
        for batch in items(paths, _fetch(self.root), kept, postings):
            stored = []
            for i, digest, row in batch:
                if digest is None:
                    continue  # vanished or unreadable between listing and reading: next refresh
                read += 1
                rel, st = todo[i]
                old = known.get(rel)
                if row is None:  # the same content: only its stamp moved
                    assert old is not None
                    self.conn.execute("UPDATE docs SET mtime_ns = ?, size = ?, ctime_ns = ?, ino = ?,"
                                      " checked_ns = ? WHERE id = ?", (*st, now, old[0]))
                    unchanged += 1
                    continue
                if old is not None:
                    self._drop(old[0])
                updated += old is not None
                added += old is None
                stored.append((i, digest, row))
                if self._hashes is not None:
                    self._hashes[rel] = digest
            self._store(todo, stored, first, now)
        return RefreshStats(added, updated, len(gone), unchanged, read), read == len(todo)

    def _store(self, todo: list[tuple[str, Stamp]], batch: list[tuple[int, str, tuple]], first: int,
               now: int) -> None:
        """Insert the rows of a batch of files, table by table: the file at index i of `todo` gets
        id `first + i` (new ids, after the highest), whatever order batches come in."""
        docs, texts, parsed, fts = [], [], [], []
        for i, digest, row in batch:
            rel, st = todo[i]
            doc_id = first + i
            *doc, description, summary, body, loaded, made = row
            docs.append((doc_id, rel, *st, now, digest, *doc, made[4] if made else None))
            texts.append((doc_id, description, summary, body, made[3] if made else None))
            if loaded is not None:
                parsed.append((doc_id, loaded))
            if made:
                fts.append((doc_id, *made[:3]))
        columns = f"id, path, mtime_ns, size, ctime_ns, ino, checked_ns, hash, {_DOC_COLUMNS}, terms"
        self.conn.executemany(f"INSERT INTO docs({columns}) VALUES ({','.join('?' * 22)})", docs)
        self.conn.executemany("INSERT INTO texts VALUES (?,?,?,?,?)", texts)
        self.conn.executemany("INSERT INTO parsed VALUES (?, ?)", parsed)
        self.conn.executemany("INSERT INTO fts(rowid, slug, description, body) VALUES (?,?,?,?)", fts)

    def _fill_postings(self, version: str | None) -> None:
        """The postings of every record kept without them (refreshed by another reader, or made by
        another tokenizer version), made from the kept text: on every core when they are many
        (the first search after `memcli context` built the store of a fresh clone)."""
        from memcli.store.build import postings_of  # here: only search's postings

        marked = self.conn.execute("SELECT value FROM meta WHERE key = 'postings-version'").fetchone()
        if marked is not None and marked[0] != version:
            self.conn.execute("DELETE FROM fts")
            self.conn.execute("UPDATE docs SET terms = NULL")
            self.conn.execute("UPDATE texts SET words = NULL")
        self.set_meta("postings-version", version)
        pending = self.conn.execute(
            "SELECT d.id, d.slug, d.path, d.parse_error IS NULL, t.description, t.body FROM docs d"
            " JOIN texts t USING (id) WHERE d.terms IS NULL").fetchall()
        _say_large(len(pending), "records to index for search")
        for batch in postings_of(pending):
            self.conn.executemany("UPDATE docs SET terms = ? WHERE id = ?", [(m[4], d) for _, d, m in batch])
            self.conn.executemany("UPDATE texts SET words = ? WHERE id = ?", [(m[3], d) for _, d, m in batch])
            self.conn.executemany("INSERT INTO fts(rowid, slug, description, body) VALUES (?,?,?,?)",
                                  [(d, *m[:3]) for _, d, m in batch])
        self.set_meta("postings", version)

    def _drop(self, doc_id: int) -> None:
        for table, key in (("docs", "id"), ("texts", "id"), ("parsed", "id"), ("fts", "rowid")):
            self.conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (doc_id,))

    # -- what readers ask ----------------------------------------------------------------------
    def derived(self, key: str, sql: str) -> list[tuple]:
        """The rows of `sql` (a query over `docs` alone, named `key`), kept in table `derived` from
        one process to the next: loading them is one marshalled row where the query scans every
        record (10 000 slugs: ~3 ms instead of ~25). The table's triggers drop every kept value at
        any write to docs, so a value found is that of the rows now. It is kept only where the
        write lock is free at once: a reader never waits on another process's refresh for it."""
        row = self.conn.execute("SELECT value FROM derived WHERE key = ?", (key,)).fetchone()
        if row is not None:
            try:
                return marshal.loads(row[0])
            except (ValueError, EOFError, TypeError):
                pass  # garbage: computed again (and replaced) below
        if self.conn.in_transaction:  # inside a refresh: its rows may still change
            return self.conn.execute(sql).fetchall()
        timeout = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
        self.conn.execute("PRAGMA busy_timeout = 0")
        try:
            with self.writing():  # the rows read and their value kept in one transaction
                rows = self.conn.execute(sql).fetchall()
                self.conn.execute("INSERT OR REPLACE INTO derived VALUES (?, ?)", (key, marshal.dumps(rows)))
            return rows
        except sqlite3.OperationalError:  # locked by another writer, a read-only file: not kept
            return self.conn.execute(sql).fetchall()
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")

    def size(self) -> int:
        return self.conn.execute("SELECT count(*) FROM docs").fetchone()[0]

    def counts(self) -> tuple[int, int]:
        """(records kept, of which not valid records)."""
        row = self.derived("counts", "SELECT count(*), count(parse_error) FROM docs")[0]
        return row[0], row[1]

    def hashes(self) -> dict[str, str]:
        """Path → content hash of every record kept (known without a query when this object's last
        refresh had to read the rows)."""
        if self._hashes is None:
            self._hashes = dict(self.conn.execute("SELECT path, hash FROM docs"))
        return self._hashes

    def knowledge(self) -> list[tuple[str, str, bool, str | None, str | None, bool | None, float | None]]:
        """(slug, path, valid, kind, one-line description, model_invocation, updated_at timestamp)
        of every knowledge record kept."""
        rows = self.conn.execute("SELECT slug, path, valid, kind, entry, model_invocation, updated_ts"
                                 " FROM docs WHERE type = 'knowledge'")
        return [(s, p, bool(v), k, e, None if i is None else bool(i), u) for s, p, v, k, e, i, u in rows]

    def summary(self) -> tuple[bool, str] | None:
        """(valid, body) of memory/summary.md, or None when it is not kept."""
        row = self.conn.execute("SELECT d.valid, t.body FROM docs d JOIN texts t USING (id) WHERE d.path = ?",
                                (SUMMARY_PATH,)).fetchone()
        return None if row is None else (bool(row[0]), row[1])

    def anchors(self, paths: Iterable[str]) -> dict[str, list[tuple[str, str | None]]]:
        """Path → the anchors it names (memcli.records.anchors.anchors_of), for those of `paths` that
        name any."""
        wanted = list(paths)
        out: dict[str, list[tuple[str, str | None]]] = {}
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            rows = self.conn.execute(f"SELECT path, anchors FROM docs WHERE anchors IS NOT NULL AND path IN"
                                     f" ({','.join('?' * len(chunk))})", chunk)
            out.update((path, [(a, s) for a, s in json.loads(text)]) for path, text in rows)
        return out

    def reference_facts(self, kind: str, needle: bytes | None = None) -> dict[str, tuple[str, RecordFacts]]:
        """Path → (slug, reference facts) of the records of `kind` whose bytes hold `needle` (any of
        NEEDLES when None)."""
        bit = (1 << len(NEEDLES)) - 1 if needle is None else 1 << NEEDLES.index(needle)
        rows = self.conn.execute("SELECT slug, path, needles, facts FROM docs WHERE type = ? AND needles & ?",
                                 (kind, bit))
        out = {}
        made: dict[tuple[int, bytes | None], RecordFacts] = {}  # records often share their facts
        for slug, path, bits, blob in rows:
            facts = made.get((bits, blob))
            if facts is None:
                fields: tuple[str | None, int | None, tuple[str, ...] | None, int | None] = (
                    marshal.loads(blob) if blob is not None else (None, None, None, None))
                needles = tuple(n for i, n in enumerate(NEEDLES) if bits & (1 << i))
                facts = made[bits, blob] = RecordFacts(*fields, needles)
            out[path] = (slug, facts)
        return out

    def loaded(self, path: str) -> tuple[str, bytes | None] | None:
        """(content hash, what reading its YAML gave, encoded) of the record at `path`, or None."""
        return self.conn.execute("SELECT d.hash, p.loaded FROM docs d LEFT JOIN parsed p USING (id)"
                                 " WHERE d.path = ?", (path,)).fetchone()

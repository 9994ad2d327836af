"""A read-only view of a workspace's records, optionally with one proposed change laid over it.

Files are read and parsed lazily and at most once, so linting one file in a 10 000-record
workspace touches only what the rules need (the slug lists, and the few records that carry
references). With the record store (memcli.store, refreshed by the caller), records it keeps are
not parsed at all where its rows answer (content keys, reference facts), and a record that must be
read whole is rebuilt from what the store kept of its YAML; a proposed change, and links or
folders where a record file would be, are always read from the overlay or the disk.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memcli.config import LintConfig
from memcli.records.facts import NEEDLES, NO_FACTS, RecordFacts, needles_in
from memcli.recordtext import read_file
from memcli.store import content_hash
from memcli.workspace import KIND_DIRS, Kind, Location, Workspace, locate

if TYPE_CHECKING:
    from memcli.lint.cache import ResultCache
    from memcli.records.parse import ParsedRecord
    from memcli.store import RecordStore

T = TypeVar("T")
_FOLDER_KINDS = {folder: kind for kind, folder in KIND_DIRS.items()}

__all__ = ["NEEDLES", "RecordFacts", "Snapshot"]  # NEEDLES, RecordFacts: memcli.records.facts
_BULK = 64  # records asked of the store one by one before it is read whole


class Snapshot:
    def __init__(
        self,
        workspace: Workspace,
        overlay: Mapping[str, bytes | None] | None = None,
        files: Iterable[str] | None = None,
        cache: ResultCache | None = None,
        store: RecordStore | None = None,
    ) -> None:
        self.workspace = workspace
        self.root = workspace.root
        self.config: LintConfig = workspace.config.lint
        self.overlay = dict(overlay or {})
        self._base_files = list(files) if files is not None else None
        self._records: dict[str, ParsedRecord] = {}
        self._raw: dict[str, tuple[bytes | None, str | None]] = {}
        self._memo: dict[str, Any] = {}
        self._facts: dict[str, RecordFacts] = {}
        self._keys: dict[str, bytes | None] = {}
        # Results of earlier runs keyed by content; never consulted for overlaid (proposed) files.
        self.cache = cache
        self.store = store
        self._kept: dict[str, tuple[str, bytes | None]] = {}  # path → (hash, kept YAML), from the store
        self._kept_all = False
        self._pid = os.getpid()

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """A value derived from this snapshot, computed once (e.g. the replaced_by graph)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    @cached_property
    def files(self) -> list[str]:
        """Every path under memory/ and knowledge/ after the overlay, sorted."""
        base = self._base_files if self._base_files is not None else self.workspace.iter_files()
        present = set(base)
        for path, content in self.overlay.items():
            if content is None:
                present.discard(path)
            else:
                present.add(path)
        return sorted(present)

    @cached_property
    def _file_set(self) -> frozenset[str]:
        return frozenset(self.files)

    def exists(self, path: str) -> bool:
        return path in self._file_set

    @cached_property
    def slugs(self) -> dict[Kind, dict[str, str]]:
        """Kind → slug → path of every file that sits in a record location."""
        out: dict[Kind, dict[str, str]] = {kind: {} for kind in Kind}
        for path in self.files:
            # Fast path for the common `<kind folder>/<slug>.md` (this runs over every file).
            folder, _, name = path.rpartition("/")
            kind = _FOLDER_KINDS.get(folder)
            if kind is not None and name.endswith(".md") and not name.startswith("."):
                out[kind][name[:-3]] = path
                continue
            loc = locate(path)
            if loc.kind is not None and loc.slug is not None:
                out[loc.kind][loc.slug] = path
        return out

    def all_slugs(self) -> set[str]:
        return {slug for by_slug in self.slugs.values() for slug in by_slug}

    def raw(self, path: str) -> tuple[bytes | None, str | None]:
        """The bytes of a file, or why they cannot be read as a record."""
        if path in self._raw:
            return self._raw[path]
        if path in self.overlay:
            result: tuple[bytes | None, str | None] = (self.overlay[path], None)
        else:
            result = self._read_disk(path)
        self._raw[path] = result
        return result

    def _read_disk(self, path: str) -> tuple[bytes | None, str | None]:
        full = os.path.join(self.root, path)
        try:
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                target = Path(os.path.realpath(full))
                if not target.is_relative_to(self.root):
                    return (
                        None,
                        f"symlink to {os.readlink(full)} outside the workspace; a record must be a file here",
                    )
        except OSError as exc:
            return None, f"cannot read the file: {exc.strerror}"
        # A folder or FIFO, or one put here since the lstat, is refused; so is a link put here.
        return read_file(full, follow=stat.S_ISLNK(st.st_mode))

    def record(self, path: str) -> ParsedRecord:
        rec = self._records.get(path)
        if rec is None:
            rec = self.parse(path)
            self._records[path] = rec
        return rec

    def parsed(self, path: str, rec: ParsedRecord) -> None:
        """`rec` is `path` as its bytes here parse (a tool's write parsed them already): kept, not
        parsed again."""
        self._records[path] = rec

    def parse(self, path: str) -> ParsedRecord:
        """The parsed record, without keeping it (the Linter's pass over every file: holding
        10 000 parsed records costs memory and time for nothing); `record()` keeps it."""
        rec = self._records.get(path)
        if rec is not None:
            return rec
        from memcli.records.parse import ParsedRecord, parse_record  # here: only to read a record

        loc: Location = locate(path)
        data, error = self.raw(path)
        if data is None:
            return ParsedRecord(path, loc.kind, loc.slug, parse_error=error)
        return parse_record(path, data, loc.kind, loc.slug, loaded=self._loaded(path, data))

    def _read_only(self, path: str, data: bytes) -> ParsedRecord:
        """The record as parsed for its raw values (no field validation; facts need none)."""
        from memcli.records.parse import parse_record  # here: a warm commit hook parses no record

        rec = self._records.get(path)
        if rec is not None:
            return rec
        loc = locate(path)
        return parse_record(path, data, loc.kind, loc.slug, validate=False, loaded=self._loaded(path, data))

    # -- what the record store answers ---------------------------------------------------------
    @cached_property
    def _hashes(self) -> dict[str, str]:
        """Path → content hash of the records the store keeps (none without a store)."""
        return self.store.hashes() if self.store is not None else {}

    def _stored(self, path: str) -> bool:
        return path not in self.overlay and path in self._hashes and self.exists(path)

    def keep_all(self) -> None:
        """Read what the store kept of every record at once (before forking helpers, or for a run
        over the whole workspace): one query instead of one per record."""
        if self.store is not None and not self._kept_all and os.getpid() == self._pid:
            rows = self.store.conn.execute("SELECT d.path, d.hash, p.loaded FROM docs d"
                                           " LEFT JOIN parsed p USING (id)")
            self._kept = {path: (digest, loaded) for path, digest, loaded in rows}
            self._kept_all = True

    def _loaded(self, path: str, data: bytes) -> Any:
        """What reading the YAML of `data` gave, as the store kept it, or None (parse it): the
        record is not kept, or its bytes are not the ones the store read."""
        if not self._stored(path):
            return None
        found = self._kept.get(path)
        if found is None and self.store is not None and not self._kept_all and os.getpid() == self._pid:
            if len(self._kept) >= _BULK:
                self.keep_all()
                found = self._kept.get(path)
            else:
                found = self.store.loaded(path)
                if found is not None:
                    self._kept[path] = found
        if found is None or found[1] is None:
            return None

        if content_hash(data) != found[0]:
            return None  # changed since the store read it
        from memcli.store import codec  # here: a warm commit hook decodes no kept record

        return codec.decode(found[1])

    def note_facts(self, path: str, facts: RecordFacts) -> None:
        """Facts of a record already parsed, so the reference rules need not parse it again."""
        self._facts[path] = facts

    def content_key(self, path: str) -> bytes | None:
        """The result-cache key of a file on disk: from the store when it keeps the file (the file
        is not read), else from its bytes; None without a cache, for a proposed change, or for a
        file that cannot be read."""
        if self.cache is None or path in self.overlay:
            return None
        if path in self._keys:
            return self._keys[path]
        from memcli.store.cache import content_key  # here: only the result cache needs it

        if self._stored(path):
            key: bytes | None = content_key(path, self._hashes[path])
        else:  # a link, or a file the store has not seen yet: by content
            data, _ = self.raw(path)
            key = content_key(path, content_hash(data)) if data is not None else None
        self._keys[path] = key
        return key

    def facts_with(self, kind: Kind, needle: bytes) -> list[tuple[str, str, RecordFacts]]:
        """(slug, path, facts) of the records of `kind` whose bytes contain `needle`, sorted by slug;
        from this run or the store when known (an unchanged file is not even read), else parsed."""
        by_slug = self.slugs[kind]
        found: dict[str, RecordFacts] = {}
        if self.store is not None:  # the store's rows of this kind, as far as this snapshot has them
            for path, (slug, kept) in self._kept_facts(kind).items():
                if needle in kept.needles and by_slug.get(slug) == path and path not in self.overlay:
                    found[path] = kept
        for path in self._unkept(kind):  # links, proposed changes, records the store does not hold
            facts = self._facts.get(path)
            if facts is None:
                data, _ = self.raw(path)
                if data is None:
                    continue
                needles = needles_in(data)
                # Only a record that names a reference is worth parsing.
                facts = RecordFacts.of(self._read_only(path, data), data) if needles else NO_FACTS
                self._facts[path] = facts
            if needle in facts.needles:
                found[path] = facts
        for path, facts in self._facts.items():  # what this run read itself comes first
            if by_slug.get(locate(path).slug or "") != path:
                continue
            if needle in facts.needles:
                found[path] = facts
            else:
                found.pop(path, None)
        slug_of = {path: slug for slug, path in by_slug.items()}
        return sorted(((slug_of[p], p, f) for p, f in found.items()), key=lambda row: row[0])

    def _kept_facts(self, kind: Kind) -> dict[str, tuple[str, RecordFacts]]:
        """Path → (slug, reference facts) of every record of `kind` the store holds with a needle."""
        key = f"kept-facts:{kind}"
        if key not in self._memo:
            assert self.store is not None
            self._memo[key] = self.store.reference_facts(kind.value)
        return self._memo[key]

    def _unkept(self, kind: Kind) -> list[str]:
        """The paths of `kind` the store does not answer for (all of them without a store)."""
        key = f"unkept:{kind}"
        if key not in self._memo:
            kept, overlay = self._hashes, self.overlay
            self._memo[key] = [p for p in self.slugs[kind].values() if p not in kept or p in overlay]
        return self._memo[key]

    def adopt(self, results: Iterable[tuple[str, bytes | None, Any, RecordFacts | None]]) -> None:
        """Take over what a helper process learned checking some files: (path, content key,
        findings, facts) each."""
        for path, key, found, facts in results:
            self._keys[path] = key
            if facts is not None:
                self._facts[path] = facts
            if self.cache is not None and key is not None:
                self.cache.put_findings(key, found)

    def share_cache(self, other: Snapshot, except_paths: set[str]) -> None:
        """Reuse `other`'s reads and parses for every path not in `except_paths` (same disk)."""
        self._raw = {p: v for p, v in other._raw.items() if p not in except_paths}
        self._records = {p: v for p, v in other._records.items() if p not in except_paths}
        self._facts = {p: v for p, v in other._facts.items() if p not in except_paths}
        self._keys = {p: v for p, v in other._keys.items() if p not in except_paths}

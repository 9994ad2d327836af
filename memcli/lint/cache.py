"""A per-file result cache under the state dir: findings and reference facts per file content.

File-scope findings (and the few facts the reference rules need) are a pure function of a
record's path, its bytes, the lint config and memcli's own code. Entries are keyed by a hash of
path + bytes, so a checkout that rewrites identical bytes stays cached and a one-byte edit does
not. To avoid reading every unchanged file just to hash it, the cache also remembers each file's
stat (size, mtime, ctime, inode) next to its content key, as git's index and ruff do: a file whose
stat is unchanged is not read at all. A stat is only remembered once the file has been still for
`SETTLE_NS` (racy-git): an edit in the same clock tick as our look would otherwise leave the stat
unchanged. The whole cache is dropped when the config or memcli's lint code changes (the
fingerprint). It is a cache: any problem reading or writing it just means a cold run.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import struct
import time
from pathlib import Path

from memcli.atomicio import atomic_write_bytes
from memcli.codekey import code_fingerprint
from memcli.config import LintConfig
from memcli.lint.finding import Finding, Severity
from memcli.lint.snapshot import RecordFacts

CACHE_FILE = "lint-cache.marshal"
_FORMAT = 3
# Code whose change can change a verdict.
_CODE = ("lint", "records", "anchors.py", "secrets.py", "slug.py", "workspace.py", "config.py", "__init__.py")
# A stat younger than this is not trusted next time (coarse timestamps, edits racing our read).
SETTLE_NS = 2_000_000_000

_Entry = list  # [findings as tuples or None, facts as a tuple or None]
# A file's size, mtime_ns, ctime_ns and inode, packed (bytes load far faster than tuples of big
# ints) and stored in front of its content key.
_STAMP = struct.Struct("<QqqQ")  # inode numbers may use all 64 bits; times may be negative
_NO_FACTS = RecordFacts()


def fingerprint(config: LintConfig) -> str:
    from memcli import __version__

    return code_fingerprint(_CODE, f"{_FORMAT}:{__version__}:{config.model_dump_json()}").hex()


def _row(facts: RecordFacts) -> tuple:
    return (facts.replaced_by, facts.replaced_by_line, facts.requires, facts.requires_line, facts.needles)


_NO_FACTS_ROW = _row(_NO_FACTS)


class ResultCache:
    def __init__(self, file: Path | None, config: LintConfig, *, settle_ns: int = SETTLE_NS) -> None:
        self.file = file
        self.fingerprint = fingerprint(config)
        # Stats taken from now on are compared with this earlier instant: conservative.
        self._trust_before = time.time_ns() - settle_ns
        self._old: dict[bytes, _Entry] = {}
        self._new: dict[bytes, _Entry] = {}
        self._old_stats: dict[str, bytes] = {}  # path → packed stamp + content key
        self._new_stats: dict[str, bytes] = {}
        self._stale: set[str] = set()
        self._dirty = False
        if file is not None:
            self._load(file)

    @staticmethod
    def key_of(path: str, data: bytes) -> bytes:
        """The content key of a file: its path and bytes."""
        return hashlib.blake2b(path.encode() + b"\0" + data, digest_size=16).digest()

    @classmethod
    def in_state_dir(cls, state_dir: Path, config: LintConfig) -> ResultCache:
        return cls(state_dir / CACHE_FILE, config)

    def _load(self, file: Path) -> None:
        try:
            stamp, entries, stats = marshal.loads(file.read_bytes())
        except Exception:  # unreadable, truncated, garbage, an older format: a cold run
            return
        if stamp == self.fingerprint and isinstance(entries, dict) and isinstance(stats, dict):
            self._old, self._old_stats = entries, stats

    # -- content keys from stats ------------------------------------------------------------

    @staticmethod
    def stamp_of(st: os.stat_result) -> bytes:
        """What identifies a file's version without reading it: size, mtime, ctime, inode."""
        return _STAMP.pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)

    def key_by_stat(self, path: str, stamp: bytes) -> bytes | None:
        """The content key remembered for `path` when its stat is exactly `stamp`, else None."""
        known = self._new_stats.get(path) or self._old_stats.get(path)
        if known is None:
            return None
        if known[: _STAMP.size] != stamp:
            self._stale.add(path)  # changed since: forget it, even after a partial run
            self._dirty = True
            return None
        self._new_stats[path] = known
        return known[_STAMP.size :]

    def note_stat(self, path: str, stamp: bytes, changed_ns: int, key: bytes) -> None:
        """Remember that `path` with this stat holds the content `key` — once it has settled
        (`changed_ns`: the later of its mtime and ctime)."""
        if changed_ns < self._trust_before:
            self._new_stats[path] = stamp + key
            self._dirty = True

    def known_files(self) -> int:
        """How many files the cache can recognise by their stat alone."""
        return len(self._old_stats)

    def stats_for(self, paths: list[str]) -> dict[str, bytes]:
        """What this run learned about the stats of `paths` (handed from a helper process)."""
        return {p: self._new_stats[p] for p in paths if p in self._new_stats}

    def adopt_stats(self, stats: dict[str, bytes]) -> None:
        self._new_stats.update(stats)
        self._dirty = True

    # -- entries by content key -------------------------------------------------------------

    def _entry(self, key: bytes) -> _Entry:
        entry = self._new.get(key)
        if entry is None:
            entry = self._old.get(key) or [None, None]
            self._new[key] = entry
        return entry

    def findings(self, path: str, key: bytes) -> list[Finding] | None:
        cached = self._entry(key)[0]
        if cached is None:
            return None
        return [
            Finding(path, line, code, Severity(sev), msg, alias, field)
            for line, code, sev, msg, alias, field in cached
        ]

    def put_findings(self, key: bytes, findings: list[Finding]) -> None:
        self._entry(key)[0] = tuple(
            (f.line, f.code, str(f.severity), f.message, f.alias, f.field) for f in findings
        )
        self._dirty = True

    def facts(self, key: bytes) -> RecordFacts | None:
        cached = self._entry(key)[1]
        if cached is None:
            return None
        # Most records name nothing the reference rules follow: one shared value for all of them
        # instead of thousands of equal ones (a frozen dataclass is slow to build; the warm commit
        # path asks for every record's facts).
        return _NO_FACTS if cached == _NO_FACTS_ROW else RecordFacts(*cached)

    def put_facts(self, key: bytes, facts: RecordFacts) -> None:
        self._entry(key)[1] = _row(facts)
        self._dirty = True

    def derived(self, name: str, inputs: bytes) -> object | None:
        """A workspace-wide result cached under `name` for exactly these `inputs` (e.g. slug lists)."""
        key = b"derived:" + name.encode() + b":" + hashlib.blake2b(inputs, digest_size=16).digest()
        found = self._new.get(key) or self._old.get(key)
        if found is not None:
            self._new[key] = found
            return found[0]
        return None

    def put_derived(self, name: str, inputs: bytes, value: object) -> None:
        key = b"derived:" + name.encode() + b":" + hashlib.blake2b(inputs, digest_size=16).digest()
        self._new[key] = [value, None]
        self._dirty = True

    def save(self, *, whole: bool) -> None:
        """Write the cache; after a whole-workspace run, only what this run used is kept."""
        if self.file is None:
            return
        changed = self._dirty or (
            whole and (len(self._new) != len(self._old) or len(self._new_stats) != len(self._old_stats))
        )
        if not changed:
            return
        entries = self._new if whole else {**self._old, **self._new}
        stats = self._new_stats if whole else {**self._old_stats, **self._new_stats}
        for path in self._stale - self._new_stats.keys():
            stats.pop(path, None)
        try:
            atomic_write_bytes(self.file, marshal.dumps((self.fingerprint, entries, stats)))
        except OSError:
            pass  # a read-only state dir only costs speed

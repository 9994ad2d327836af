"""A per-file result cache under the state dir, keyed by a hash of path + content.

File-scope findings (and the few facts the reference rules need) are a pure function of a
record's path, its bytes, the lint config and memcli's own code, so a second `memcli lint` only
re-parses files whose bytes changed. The key covers the content, not mtimes: a checkout that
rewrites identical bytes stays cached, an edit of one byte does not. The whole cache is dropped
when the config or memcli's lint code changes (the fingerprint). It is a cache: any problem
reading or writing it just means a cold run.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path

from memcli.atomicio import atomic_write_bytes
from memcli.config import LintConfig
from memcli.lint.finding import Finding, Severity
from memcli.lint.snapshot import RecordFacts

CACHE_FILE = "lint-cache.marshal"
_FORMAT = 1
_PKG = Path(__file__).resolve().parent.parent  # the memcli package
# Code whose change can change a verdict.
_CODE = ("lint", "records", "secrets.py", "slug.py", "workspace.py", "config.py", "__init__.py")

_Entry = list  # [findings as tuples or None, facts as a tuple or None]


def fingerprint(config: LintConfig) -> str:
    from memcli import __version__

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{_FORMAT}:{__version__}:{config.model_dump_json()}".encode())
    for name in _CODE:
        base = _PKG / name
        files = sorted(base.rglob("*.py")) if base.is_dir() else [base]
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _key(path: str, data: bytes) -> bytes:
    return hashlib.blake2b(path.encode() + b"\0" + data, digest_size=16).digest()


class ResultCache:
    def __init__(self, file: Path | None, config: LintConfig) -> None:
        self.file = file
        self.fingerprint = fingerprint(config)
        self._old: dict[bytes, _Entry] = {}
        self._new: dict[bytes, _Entry] = {}
        self._dirty = False
        if file is not None:
            self._load(file)

    @classmethod
    def in_state_dir(cls, state_dir: Path, config: LintConfig) -> ResultCache:
        return cls(state_dir / CACHE_FILE, config)

    def _load(self, file: Path) -> None:
        try:
            stamp, entries = marshal.loads(file.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return
        if stamp == self.fingerprint and isinstance(entries, dict):
            self._old = entries

    def _entry(self, path: str, data: bytes) -> _Entry:
        key = _key(path, data)
        entry = self._new.get(key)
        if entry is None:
            entry = self._old.get(key) or [None, None]
            self._new[key] = entry
        return entry

    def findings(self, path: str, data: bytes) -> list[Finding] | None:
        cached = self._entry(path, data)[0]
        if cached is None:
            return None
        return [
            Finding(path, line, code, Severity(sev), msg, alias, field)
            for line, code, sev, msg, alias, field in cached
        ]

    def put_findings(self, path: str, data: bytes, findings: list[Finding]) -> None:
        self._entry(path, data)[0] = tuple(
            (f.line, f.code, str(f.severity), f.message, f.alias, f.field) for f in findings
        )
        self._dirty = True

    def facts(self, path: str, data: bytes) -> RecordFacts | None:
        cached = self._entry(path, data)[1]
        return None if cached is None else RecordFacts(*cached)

    def put_facts(self, path: str, data: bytes, facts: RecordFacts) -> None:
        self._entry(path, data)[1] = (
            facts.replaced_by,
            facts.replaced_by_line,
            facts.requires,
            facts.requires_line,
        )
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
        if self.file is None or not (self._dirty or (whole and len(self._new) != len(self._old))):
            return
        entries = self._new if whole else {**self._old, **self._new}
        try:
            atomic_write_bytes(self.file, marshal.dumps((self.fingerprint, entries)))
        except OSError:
            pass  # a read-only state dir only costs speed

"""A read-only view of a workspace's records, optionally with one proposed change laid over it.

Files are read and parsed lazily and at most once, so linting one file in a 10 000-record
workspace touches only what the rules need (the slug lists, and the few records that carry
references).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from memcli.config import LintConfig
from memcli.records.parse import ParsedRecord, parse_record
from memcli.workspace import KIND_DIRS, Kind, Location, Workspace, locate

T = TypeVar("T")


class Snapshot:
    def __init__(
        self,
        workspace: Workspace,
        overlay: Mapping[str, bytes | None] | None = None,
        files: Iterable[str] | None = None,
    ) -> None:
        self.workspace = workspace
        self.root = workspace.root
        self.config: LintConfig = workspace.config.lint
        self.overlay = dict(overlay or {})
        self._base_files = list(files) if files is not None else None
        self._records: dict[str, ParsedRecord] = {}
        self._raw: dict[str, tuple[bytes | None, str | None]] = {}
        self._memo: dict[str, Any] = {}

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
        full = self.root / path
        if full.is_symlink():
            target = Path(os.path.realpath(full))
            if not target.is_relative_to(self.root):
                return None, f"symlink to {os.readlink(full)} outside the workspace; a record must be a file here"
        if full.is_dir():
            return None, "a directory where a record file is expected; rename or remove it"
        try:
            return full.read_bytes(), None
        except OSError as exc:
            return None, f"cannot read the file: {exc.strerror}"

    def record(self, path: str) -> ParsedRecord:
        rec = self._records.get(path)
        if rec is None:
            loc: Location = locate(path)
            data, error = self.raw(path)
            if data is None:
                rec = ParsedRecord(path, loc.kind, loc.slug, parse_error=error)
            else:
                rec = parse_record(path, data, loc.kind, loc.slug)
            self._records[path] = rec
        return rec

    def records_with(self, kind: Kind, needle: bytes) -> list[ParsedRecord]:
        """Parsed records of `kind` whose raw bytes contain `needle` (a cheap pre-filter)."""
        out = []
        for path in self.slugs[kind].values():
            data, _ = self.raw(path)
            if data is not None and needle in data:
                out.append(self.record(path))
        return out

    @staticmethod
    def folder_of(kind: Kind) -> str:
        return KIND_DIRS.get(kind, "memory")

    def share_cache(self, other: Snapshot, except_paths: set[str]) -> None:
        """Reuse `other`'s reads and parses for every path not in `except_paths` (same disk)."""
        self._raw = {p: v for p, v in other._raw.items() if p not in except_paths}
        self._records = {p: v for p, v in other._records.items() if p not in except_paths}

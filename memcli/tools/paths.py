"""Confinement: a tool path is a workspace-relative path inside `memory/` or `knowledge/`, nowhere else.

Refused: absolute paths, `..` anywhere, NUL bytes, backslashes, very long paths, anything under
`memory/_staging/` (Phase 1 output, not records), and any path whose real location (after
symlinks) leaves `memory/` or `knowledge/`. Writes additionally refuse a path that goes through a
symlink at all: `os.replace` would swap the link itself, or a linked folder would put the file
somewhere the Linter never looked.

Every tool argument that names a record goes through `record_path`: a record location of this
workspace (ACCEPTED), given by its path or, for a record that exists, by its slug.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from memcli.slug import is_valid_slug
from memcli.workspace import KIND_DIRS, STAGING_DIR, SUMMARY_PATH, locate

ACCEPTED = ("records are named by slug (use-sqlite-wal) or by path: memory/summary.md, "
            "memory/decisions/<slug>.md, memory/requests/<slug>.md, memory/workflow/<slug>.md or "
            "knowledge/<slug>.md")
FOLDERS = ("memory", "knowledge", *KIND_DIRS.values())  # what memory_read lists

MAX_PATH_CHARS = 512
TOPS = ("memory", "knowledge")


class PathRefused(Exception):
    """A path a tool must not touch; the message says why and what to use instead."""


class NoSuchRecord(PathRefused):
    """A slug that names no record of the workspace (a `not-found` error, not a refusal)."""


def _normalize(raw: Any) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise PathRefused("path must be a non-empty string like memory/decisions/<slug>.md")
    if "\x00" in raw:
        raise PathRefused("path contains a NUL byte; use a plain path like memory/decisions/<slug>.md")
    if len(raw) > MAX_PATH_CHARS:
        raise PathRefused(
            f"path is {len(raw)} characters long (limit {MAX_PATH_CHARS}); use memory/<folder>/<slug>.md"
        )
    if "\\" in raw:
        raise PathRefused(f"path {raw!r} contains a backslash; use forward slashes")
    if raw.startswith("/") or raw.startswith("~") or (len(raw) > 1 and raw[1] == ":"):
        raise PathRefused(
            f"path {raw!r} is absolute; give a path relative to the workspace, "
            "starting with memory/ or knowledge/"
        )
    parts = [p for p in PurePosixPath(raw).parts if p != "."]
    if ".." in parts:
        raise PathRefused(f"path {raw!r} contains '..'; give a direct path under memory/ or knowledge/")
    if not parts or parts[0] not in TOPS:
        raise PathRefused(
            f"path {raw!r} is outside memory/ and knowledge/; memory tools only reach those folders"
        )
    rel = "/".join(parts)
    if rel == STAGING_DIR or rel.startswith(STAGING_DIR + "/"):
        raise PathRefused(
            f"{rel} is under {STAGING_DIR}/ (Phase 1 output, not a record); tools never touch it"
        )
    return rel


def _inside_allowed(real_root: Path, real: Path) -> str | None:
    """The workspace-relative form of a resolved path when it lies in memory/ or knowledge/."""
    try:
        rel = real.relative_to(real_root).as_posix()
    except ValueError:
        return None
    top = rel.split("/", 1)[0]
    if top not in TOPS or rel == STAGING_DIR or rel.startswith(STAGING_DIR + "/"):
        return None
    return rel


def confine(root: Path, raw: Any, *, write: bool) -> str:
    """The normalized workspace-relative path for `raw`, or PathRefused."""
    rel = _normalize(raw)
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(real_root / rel))
    resolved = _inside_allowed(real_root, real)
    if resolved is None:
        raise PathRefused(
            f"{rel} goes through a symlink that resolves outside memory/ and knowledge/; refused"
        )
    if resolved != rel:
        if write:
            raise PathRefused(f"{rel} goes through a symlink (to {resolved}); tools write only real files")
        return resolved  # reading through an in-workspace link: report and check the real file
    return rel


def _slug_form(raw: Any) -> str | None:
    """The slug when `raw` is a bare slug (`use-sqlite-wal`, `use-sqlite-wal.md`, `summary`)."""
    if not isinstance(raw, str) or "/" in raw:
        return None
    slug = raw.strip().removesuffix(".md")
    return slug if is_valid_slug(slug) else None


def _by_slug(root: Path, slug: str) -> str:
    found = [f"{folder}/{slug}.md" for folder in KIND_DIRS.values()
             if (root / folder / f"{slug}.md").is_file()]
    if slug == "summary" and (root / SUMMARY_PATH).is_file():
        found.insert(0, SUMMARY_PATH)
    if len(found) > 1:
        raise PathRefused(f"the slug {slug!r} names {len(found)} records ({', '.join(found)}); give the path")
    if not found:
        raise NoSuchRecord(f"no record has the slug {slug!r}; a new record needs its path "
                           "(memory/decisions/<slug>.md, memory/requests/<slug>.md or knowledge/<slug>.md)")
    return found[0]


def record_path(root: Path, raw: Any, *, write: bool) -> str:
    """The workspace-relative path of the record `raw` names (see `confine`), or PathRefused that
    says what is accepted; whether the file exists is the caller's question."""
    slug = _slug_form(raw)
    try:
        rel = confine(root, _by_slug(root, slug) if slug is not None else raw, write=write)
    except NoSuchRecord:
        raise
    except PathRefused as exc:
        raise PathRefused(f"{exc}; {ACCEPTED}") from None
    loc = locate(rel)
    if loc.kind is None:
        why = loc.problem or "hidden files are not records"
        raise PathRefused(f"{rel} is not a record location ({why}); {ACCEPTED}")
    if (root / rel).is_dir():
        raise PathRefused(f"{rel} is a folder, not a record; {ACCEPTED}")
    return rel

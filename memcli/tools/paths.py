"""Confinement: a tool path is a workspace-relative path inside `memory/` or `knowledge/`, nowhere else.

Refused: absolute paths, `..` anywhere, NUL bytes, backslashes, very long paths, anything under
`memory/_staging/` (Phase 1 output, not records), and any path whose real location (after
symlinks) leaves `memory/` or `knowledge/`. Writes additionally refuse a path that goes through a
symlink at all: `os.replace` would swap the link itself, or a linked folder would put the file
somewhere the Linter never looked.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from memcli.workspace import STAGING_DIR

MAX_PATH_CHARS = 512
TOPS = ("memory", "knowledge")


class PathRefused(Exception):
    """A path a tool must not touch; the message says why and what to use instead."""


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

"""project_docs: the project's agent-instruction files and docs, read-only.

The prompts say "do not re-save what AGENTS.md, CLAUDE.md, README or docs/ already say"; this tool
lets the model check. It reads the real repository root (consolidation's scratch copy holds only
memory/, knowledge/ and the config), and only these files: AGENTS.md, CLAUDE.md, GEMINI.md and
README* at the root, docs/**/*.md, and the skills a person wrote in the agents' skill folders
(`.claude/skills/<name>/SKILL.md`, ...: the agents load them, so memory need not restate them;
those `memcli skills sync` wrote are the memory itself and are left out). A path is refused when
it is absolute, holds `..`, names another file, or resolves (after symlinks) outside the root or
to a file that is not one of them. Text comes back fenced as data, a window of lines at a time.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from memcli.skills.place import is_skill_file, skill_folders
from memcli.skills.render import MARKER
from memcli.tools.result import ToolResult, failure, success

AGENT_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
MAX_FILES = 200  # listed at most
MAX_CHARS = 12_000  # of text per call; the rest by start_line
MAX_BYTES = 2_000_000  # a larger "doc" is not read at all
_WHAT = "AGENTS.md, CLAUDE.md, GEMINI.md, README*, docs/**/*.md and the skills a person wrote"

SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "project_docs",
        "description": "Read-only: list the project's AGENTS.md, README, docs/... (no path) or read one.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "start_line": {"type": "integer", "minimum": 1}},
            "required": [],
            "additionalProperties": False,
        },
    },
}


def is_doc(rel: str) -> bool:
    """Whether a root-relative POSIX path is one of the files this tool may read (a SKILL.md in a
    skill folder only when a person wrote it: `_resolved` checks)."""
    if is_skill_file(rel):
        return True
    parts = rel.split("/")
    if any(not p or p.startswith(".") for p in parts):
        return False
    if len(parts) == 1:
        return parts[0] in AGENT_FILES or parts[0].upper().startswith("README")
    return parts[0] == "docs" and parts[-1].lower().endswith(".md")


def _resolved(root: Path, rel: str) -> str | None:
    """The root-relative path `rel` really leads to (symlinks followed), when it is a doc inside root."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(real_root / rel))
    try:
        target = real.relative_to(real_root).as_posix()
    except ValueError:
        return None
    if is_skill_file(target) and (real.parent / MARKER).exists():
        return None  # memcli wrote it from the memory: not a project doc
    return target if is_doc(target) and real.is_file() else None


def list_docs(root: Path) -> ToolResult:
    found: list[str] = [p.name for p in sorted(root.iterdir()) if is_doc(p.name)] if root.is_dir() else []
    docs = root / "docs"
    if docs.is_dir() and not docs.is_symlink():
        for dirpath, dirnames, filenames in os.walk(docs):  # links to folders are not followed
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            base = Path(dirpath).relative_to(root).as_posix()
            found += [f"{base}/{name}" for name in sorted(filenames) if is_doc(f"{base}/{name}")]
            if len(found) > MAX_FILES:
                break
    for folder in skill_folders():  # the agents' skill folders: a person's skills
        at = root / folder
        if at.is_dir() and not at.is_symlink():
            found += sorted(f"{folder}/{p.parent.name}/SKILL.md" for p in at.glob("*/SKILL.md"))
    files = [{"path": rel, "bytes": (root / rel).stat().st_size} for rel in found if _resolved(root, rel)]
    shown = files[:MAX_FILES]
    more = f" (first {MAX_FILES} shown)" if len(files) > MAX_FILES else ""
    if not shown:
        return success(f"this project has none of {_WHAT}")
    return success(f"{len(files)} project docs{more}; read one with project_docs(path=...)", files=shown,
                   fenced=(("files", "project docs list", "jsonl"),))


def _normalize(raw: Any) -> str | ToolResult:
    refuse = "; give a path from the list (project_docs without a path), e.g. AGENTS.md or docs/x.md"
    if not isinstance(raw, str) or not raw.strip():
        return failure("path", "path must be a non-empty string" + refuse)
    if "\x00" in raw or "\\" in raw:
        return failure("path", f"path {raw!r} holds a NUL byte or a backslash" + refuse)
    if raw.startswith(("/", "~")) or (len(raw) > 1 and raw[1] == ":"):
        return failure("path", f"path {raw!r} is absolute; give it relative to the repository root" + refuse)
    parts = [p for p in PurePosixPath(raw).parts if p != "."]
    if ".." in parts:
        return failure("path", f"path {raw!r} contains '..'" + refuse)
    rel = "/".join(parts)
    if not is_doc(rel):
        return failure("path", f"{rel} is not a project doc: project_docs reads only {_WHAT}" + refuse)
    return rel


def read_doc(root: Path, path: Any, start_line: int | None = None) -> ToolResult:
    rel = _normalize(path)
    if isinstance(rel, ToolResult):
        return rel
    full = root / rel
    if not full.is_file() and not full.is_symlink():
        return failure("not-found", f"{rel} does not exist; call project_docs without a path for the list")
    target = _resolved(root, rel)
    if target is None:
        return failure("path", f"{rel} is a symlink that leads outside the repository or to a file that is "
                               f"not one of {_WHAT}; refused")
    real = Path(os.path.realpath(root / rel))
    if real.stat().st_size > MAX_BYTES:
        return failure("unreadable", f"{rel} is larger than {MAX_BYTES} bytes; not read")
    try:
        text = real.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return failure("unreadable", f"{rel} is not UTF-8 text")
    except OSError as exc:
        return failure("io", f"could not read {rel}: {exc.strerror}")
    lines = text.splitlines(keepends=True)
    first = start_line or 1
    if first > max(len(lines), 1):
        return failure("arguments", f"start_line {first} is past the end of {rel} ({len(lines)} lines)")
    last, size = first - 1, 0
    while last < len(lines) and (size == 0 or size + len(lines[last]) <= MAX_CHARS):
        size += len(lines[last])
        last += 1
    content = "".join(lines[first - 1 : last])
    more = f"; continue with start_line={last + 1}" if last < len(lines) else ""
    return success(f"{rel}: lines {first}-{last} of {len(lines)}{more}", path=rel, start_line=first,
                   end_line=last, total_lines=len(lines), content=content,
                   fenced=(("content", f"text of {rel}, lines {first}-{last}", "markdown"),))


def project_docs(root: Path, path: Any = None, start_line: int | None = None) -> ToolResult:
    """The tool: a list without `path`, one file's text with it."""
    if path is None:
        if start_line is not None:
            return failure("arguments", "start_line needs a path")
        return list_docs(root)
    return read_doc(root, path, start_line)

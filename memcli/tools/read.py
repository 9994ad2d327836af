"""memory_read: the exact text of a record (or a folder listing), with its size against its cap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memcli.config import LintConfig
from memcli.records.parse import parse_record
from memcli.recordtext import decode, read_file
from memcli.tools.result import ToolResult, failure, success
from memcli.workspace import STAGING_DIR, Kind, locate

MAX_LISTING = 500


def size_report(rel: str, text: str, config: LintConfig) -> dict[str, Any]:
    """What the `too-large` rule measures for this record, and its cap (None: uncapped)."""
    loc = locate(rel)
    if loc.kind is Kind.SUMMARY:
        return {"measured": "file", "chars": len(text), "cap": config.summary_max_chars}
    if loc.kind in (Kind.DECISION, Kind.REQUEST, Kind.KNOWLEDGE):
        rec = parse_record(rel, text.encode("utf-8"), loc.kind, loc.slug)
        body = rec.body if rec.ok else text
        return {"measured": "body", "chars": len(body), "cap": config.body_max_chars, "file_chars": len(text)}
    return {"measured": "file", "chars": len(text), "cap": None}


def list_folder(root: Path, rel: str) -> ToolResult:
    entries = []
    for child in sorted((root / rel).iterdir()):
        child_rel = f"{rel}/{child.name}"
        if child.name.startswith(".") or child_rel == STAGING_DIR:
            continue
        if child.is_dir() and not child.is_symlink():
            entries.append({"path": child_rel + "/", "type": "folder"})
        else:
            entries.append({"path": child_rel, "type": "file"})
    shown = entries[:MAX_LISTING]
    more = f" (first {MAX_LISTING} shown)" if len(entries) > MAX_LISTING else ""
    return success(f"{rel}/ holds {len(entries)} entries{more}; read a file by its path", entries=shown,
                   fenced=(("entries", f"listing of {rel}/", "jsonl"),))


def _line_window(text: str, start: int | None, end: int | None) -> tuple[str, int, int, int] | str:
    lines = text.splitlines(keepends=True)
    total = len(lines)
    first = start or 1
    last = min(end or total, total)
    if first > max(total, 1) or (end is not None and end < first):
        return f"line range {first}-{end or total} is outside the file's {total} lines"
    return "".join(lines[first - 1 : last]), first, last, total


def read_record(root: Path, rel: str, config: LintConfig, start: int | None, end: int | None) -> ToolResult:
    full = root / rel
    if full.is_dir():
        return list_folder(root, rel)
    if not full.is_file():
        return failure(
            "not-found",
            f"{rel} does not exist; use memory_search / knowledge_search, or read the "
            "folder (e.g. memory/decisions) to list it",
        )
    data, error = read_file(full)  # bounded; a FIFO put here since is refused, not waited on
    if data is not None:
        error = decode(data)[1]  # what the Linter's parse refuses: not UTF-8, NUL bytes, over 1 MiB
    if data is None or error is not None:
        return failure("unreadable", f"{rel}: {error}; replace it with memory_write mode=replace")
    text = data.decode("utf-8")
    window = _line_window(text, start, end)
    if isinstance(window, str):
        return failure("arguments", window)
    content, first, last, total = window
    size = size_report(rel, text, config)
    cap = f"/{size['cap']}" if size["cap"] is not None else " (no cap)"
    kind = locate(rel).kind
    what = f"{kind}, " if kind is not None else ""
    message = f"{rel}: {what}lines {first}-{last} of {total}; {size['measured']} {size['chars']}{cap} chars"
    return success(
        message, path=rel, start_line=first, end_line=last, total_lines=total, size=size, content=content,
        fenced=(("content", f"text of {rel}, lines {first}-{last}", "markdown"),),
    )

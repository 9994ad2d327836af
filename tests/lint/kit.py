"""Record texts and a workspace builder for the Linter tests (imported as `lint.kit`).

Field lines are fixed so tests can assert positions: in every record built here the frontmatter
opens on line 1 and the fields follow in the order given, one per line (a Source list takes three
lines per Source).
"""

from __future__ import annotations

import json
from pathlib import Path

TS = "2026-04-27T10:00:00+09:00"
SOURCE = "\n  - session_id: 4c2ddfdc-b619-4525-8d03-1950fb1b0257\n    range: [3, 18]"

DECISION = {"created_at": TS, "updated_at": TS, "status": "open", "sources": SOURCE}
REQUEST = {"created_at": TS, "updated_at": TS, "sources": SOURCE}
KNOWLEDGE = {
    "created_at": TS,
    "updated_at": TS,
    "kind": "term",
    "description": "What WAL mode is.",
    "model_invocation": "false",
    "user_invocable": "true",
    "last_sources": SOURCE,
}
WORKFLOW = {
    "created_at": TS,
    "updated_at": TS,
    "description": "How to release.",
    "auto_invoke": "false",
    "user_invocable": "true",
    "requires": "[]",
}
SUMMARY = {"updated_at": TS}
BASES = {
    "decision": DECISION,
    "request": REQUEST,
    "knowledge": KNOWLEDGE,
    "workflow": WORKFLOW,
    "summary": SUMMARY,
}
FOLDERS = {
    "decision": "memory/decisions",
    "request": "memory/requests",
    "knowledge": "knowledge",
    "workflow": "memory/workflow",
}


def record(kind: str, body: str = "Body.\n", **fields: str | None) -> str:
    """A record of `kind`; a field given as None is left out, other keys are added in order."""
    merged = {**BASES[kind], **fields}
    lines = [f"{k}: {v}" for k, v in merged.items() if v is not None]
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def path_of(kind: str, slug: str) -> str:
    return "memory/summary.md" if kind == "summary" else f"{FOLDERS[kind]}/{slug}.md"


def make_workspace(root: Path, files: dict[str, str | bytes]) -> Path:
    """A workspace at `root` with a memcli.toml and `files` (workspace-relative path → content)."""
    for folder in (*FOLDERS.values(), "memory"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "memcli.toml").write_text("", encoding="utf-8")
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8", newline="")
    return root


def positions(findings, path: str | None = None) -> set[tuple[str, int | None]]:
    """(code, line) of each finding (optionally only those on `path`): tests compare positions,
    never wording."""
    return {(f.code, f.line) for f in findings if path is None or f.path == path}


def json_positions(stdout: str, path: str | None = None) -> set[tuple[str, int | None]]:
    data = json.loads(stdout)
    return {(f["code"], f["line"]) for f in data["findings"] if path is None or f["path"] == path}

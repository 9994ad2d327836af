"""Helpers for extract tests (import as `from extract.helpers import ...`; tests/ is on sys.path)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from support.fake_llm import FAKE_MODEL

from memcli.staging import StagingFile
from memcli.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
MEMORY = {"extract_model": FAKE_MODEL, "backoff_s": 0.001, "backoff_max_s": 0.01, "retries": 2}
EXTRACT = {"idle_minutes": 0, "max_retries": 1, "timeout_s": 5}


def make_ws(root: Path, memory: dict | None = None, extract: dict | None = None) -> Workspace:
    """A workspace whose extract model is the fake server's, with tiny backoffs and no idle wait."""
    def table(name: str, values: dict) -> str:
        return f"[{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())

    (root / "memory").mkdir(parents=True, exist_ok=True)
    text = table("memory", {**MEMORY, **(memory or {})}) + table("extract", {**EXTRACT, **(extract or {})})
    (root / "memcli.toml").write_text(text, encoding="utf-8")
    return Workspace.open(root)


def write_jsonl(path: Path, rows: list[dict], append: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def old(minutes: int = 120) -> str:
    return (dt.datetime.now(dt.UTC) - dt.timedelta(minutes=minutes)).isoformat()


def conversation(n: int, *, start: int = 0, ts: str | None = None) -> list[dict]:
    """`n` alternating user/assistant lines of the memcli JSONL format."""
    rows = []
    for i in range(start, start + n):
        role = "user" if i % 2 == 0 else "assistant"
        rows.append({"role": role, "content": f"message {i}: we should keep the index in SQLite",
                     "timestamp": ts or old()})
    return rows


def staged(ws: Workspace) -> list[StagingFile]:
    return [StagingFile.model_validate_json(p.read_bytes()) for p in sorted(ws.staging_dir.glob("*.json"))]

"""The figures reach gc-report (`unused` candidates) once `memcli metrics` has counted sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memcli.cli import main


def _memcli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, _ = capsys.readouterr()
    return int(exc.value.code or 0), out


def _unused(capsys, ws: Path) -> set[str]:
    code, out = _memcli(capsys, "gc-report", "-w", str(ws), "--format", "json")
    assert code == 0
    report = json.loads(out)
    return {p for c in report["candidates"] if c["type"] == "unused" for p in c["paths"]}


def test_gc_report_shows_unused_only_when_metrics_exist(agents, example_ws: Path, capsys) -> None:
    (example_ws / "knowledge" / "old-fact.md").write_text(
        "---\ncreated_at: 2020-01-01T00:00:00Z\nupdated_at: 2020-01-01T00:00:00Z\nkind: fact\n"
        "description: An old fact nobody reads.\nmodel_invocation: false\nuser_invocable: true\n"
        "last_sources: []\n---\nOld.\n", encoding="utf-8")
    a = agents.claude()
    for minute in range(3):
        a.tool("Read", {"file_path": "knowledge/wal-mode.md"}, f"2026-05-12T09:0{minute}:00.000Z")
    assert _unused(capsys, example_ws) == set()  # no metrics yet: absence is not evidence
    code, _ = _memcli(capsys, "metrics", "-w", str(example_ws))
    assert code == 0
    unused = _unused(capsys, example_ws)
    assert "knowledge/old-fact.md" in unused  # never invoked, created years ago
    assert "knowledge/wal-mode.md" not in unused  # 3 invokes in 3000 tokens: protected

"""memory_read: exact text, line ranges, folder listings, and the size against the record's cap."""

from __future__ import annotations

import pytest

from memcli.config import Config, LintConfig
from memcli.tools import ToolSession
from memcli.workspace import Workspace

WAL = "memory/decisions/use-sqlite-wal.md"


def test_read_whole_record_reports_body_size_against_cap(session: ToolSession) -> None:
    text = (session.workspace.root / WAL).read_text(encoding="utf-8")
    out = session.read(WAL)
    assert out.ok
    assert out.data["content"] == text
    body = text.split("---\n", 2)[2]
    assert out.data["size"] == {"measured": "body", "chars": len(body), "cap": 8000, "file_chars": len(text)}
    assert out.data["total_lines"] == text.count("\n")
    assert f"body {len(body)}/8000 chars" in out.message


def test_summary_is_measured_as_a_whole_file_against_its_own_cap(ws: Workspace) -> None:
    ws = Workspace(ws.root, Config(lint=LintConfig(summary_max_chars=1234)))
    session = ToolSession(ws, allowed_sources=None, knowledge_sources=None)
    out = session.read("memory/summary.md")
    text = (ws.root / "memory/summary.md").read_text(encoding="utf-8")
    assert out.data["size"] == {"measured": "file", "chars": len(text), "cap": 1234}


def test_workflow_has_no_cap(session: ToolSession) -> None:
    assert session.read("memory/workflow/release.md").data["size"]["cap"] is None


@pytest.mark.parametrize(
    ("start", "end", "lines"),
    [(1, 1, [1]), (2, 4, [2, 3, 4]), (15, None, [15, 16]), (None, 2, [1, 2]), (14, 99, [14, 15, 16])],
)
def test_line_ranges(session: ToolSession, start: int | None, end: int | None, lines: list[int]) -> None:
    all_lines = (session.workspace.root / WAL).read_text(encoding="utf-8").splitlines(keepends=True)
    out = session.read(WAL, start, end)
    assert out.ok, out
    assert out.data["content"] == "".join(all_lines[i - 1] for i in lines)
    assert (out.data["start_line"], out.data["end_line"]) == (lines[0], lines[-1])


@pytest.mark.parametrize(("start", "end"), [(17, None), (5, 3), (100, 200)])
def test_line_ranges_outside_the_file(session: ToolSession, start: int, end: int | None) -> None:
    out = session.read(WAL, start, end)
    assert out.error == "arguments" and "outside the file's 16 lines" in out.message


def test_folder_listing(session: ToolSession) -> None:
    root = session.workspace.root
    (root / "memory/_staging").mkdir()
    (root / "memory/decisions/.gitkeep").write_text("")
    out = session.read("memory")
    paths = [e["path"] for e in out.data["entries"]]
    assert paths == ["memory/decisions/", "memory/requests/", "memory/summary.md", "memory/workflow/"]
    out = session.read("knowledge")
    assert [e["path"] for e in out.data["entries"]] == [
        "knowledge/sqlite-backup.md",
        "knowledge/test-commands.md",
        "knowledge/wal-mode.md",
    ]


def test_missing_record(session: ToolSession) -> None:
    out = session.read("memory/decisions/never.md")
    assert out.error == "not-found" and "memory_search" in out.message


def test_non_utf8_record_is_reported_not_raised(session: ToolSession) -> None:
    (session.workspace.root / "memory/requests/latin1.md").write_bytes(b"---\nx: \xe9\n---\n")
    out = session.read("memory/requests/latin1.md")
    assert out.error == "unreadable"
    assert session.edit("memory/requests/latin1.md", "x", "y", "r").error == "unreadable"

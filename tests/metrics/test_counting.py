"""Exact invoke counts from crafted Claude Code and Codex transcripts; incremental re-runs."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from memcli.metrics import load_metrics, refresh_metrics
from memcli.workspace import Workspace

WAL = "knowledge/wal-mode.md"
SQLITE = "memory/decisions/use-sqlite-wal.md"
E2E = "memory/requests/keep-e2e-opt-in.md"
RELEASE = "memory/workflow/release.md"
BACKUP = "knowledge/sqlite-backup.md"
DAY = "2026-05-12T09:{:02d}:00.000Z"


@pytest.fixture
def sessions(agents, example_ws: Path):
    """One Claude Code and one Codex session with a known set of invokes and non-invokes."""
    a = agents.claude()
    mention = a.user("please check #wal-mode and /release before we start", DAY.format(0))
    a.user("#sqlite-backup — How to take a backup (resident context)", DAY.format(1), meta=True)
    a.user("#no-such-record is not a record", DAY.format(2))
    read = a.tool("Read", {"file_path": f"{example_ws}/{WAL}"}, DAY.format(3))
    a.tool("Read", {"file_path": SQLITE}, DAY.format(4))
    a.tool("Bash", {"command": f"cat {E2E} && echo done"}, DAY.format(5))
    a.tool("Write", {"file_path": BACKUP, "content": "x"}, DAY.format(6))
    a.tool("Bash", {"command": "memcli context"}, DAY.format(7))
    a.say("I looked at #wal-mode and knowledge/wal-mode.md", DAY.format(8))
    b = agents.codex()
    b_mention = b.user("#wal-mode を確認してから進めて", DAY.format(10))
    b_read = b.exec("sed -n '1,40p' knowledge/wal-mode.md", DAY.format(11))
    b.exec("rg WAL knowledge/", DAY.format(12))
    b.tokens(50_000, DAY.format(13))
    return a, b, {"a_mention": mention, "a_read": read, "b_mention": b_mention, "b_read": b_read}


def _counts(metrics) -> dict[str, int]:
    return {path: m.count for path, m in metrics.records.items() if m.count}


def test_exact_counts_and_sources(example_ws: Path, sessions) -> None:
    a, b, at = sessions
    ws = Workspace.open(example_ws)
    metrics, summary = refresh_metrics(ws)
    assert summary.scanned == 2
    assert _counts(metrics) == {WAL: 4, SQLITE: 1, E2E: 1, RELEASE: 1}
    wal = metrics.get(WAL)
    assert {(s.session_id, s.index, s.how) for s in wal.invokes} == {
        (a.session_id, at["a_mention"], "mention"), (a.session_id, at["a_read"], "read"),
        (b.session_id, at["b_mention"], "mention"), (b.session_id, at["b_read"], "shell"),
    }
    # Claude logs usage per response (6 responses x 1000), Codex a cumulative 50 000.
    assert metrics.tokens == 56_000
    assert wal.tokens == 56_000
    assert wal.rate == pytest.approx(4 / 0.056)
    assert wal.last_use == dt.datetime(2026, 5, 12, 9, 11, tzinfo=dt.UTC)
    assert metrics.rate("wal-mode") == wal.rate  # a slug finds the record too
    assert metrics.protected(WAL) and not metrics.protected(BACKUP)
    assert metrics.protected(WAL, threshold=100.0) is False


def test_rerun_counts_nothing_twice_and_appends_once(example_ws: Path, sessions) -> None:
    a, _b, _ = sessions
    ws = Workspace.open(example_ws)
    first, _ = refresh_metrics(ws)
    again, summary = refresh_metrics(ws)
    assert summary.scanned == 0 and summary.entries == 0
    assert _counts(again) == _counts(first)
    index = a.tool("Read", {"file_path": WAL}, "2026-05-13T08:00:00.000Z")
    grown, summary = refresh_metrics(ws)
    assert summary.scanned == 1 and summary.invokes == 1
    assert grown.get(WAL).count == 5
    assert (a.session_id, index) in {(s.session_id, s.index) for s in grown.get(WAL).invokes}
    assert grown.tokens == first.tokens + 1000
    once_more, _ = refresh_metrics(ws)
    assert once_more.get(WAL).count == 5 and once_more.tokens == grown.tokens
    assert load_metrics(ws).get(WAL).count == 5  # saved: a reader without a scan sees the same


def test_rewritten_file_is_recounted_not_added(example_ws: Path, sessions) -> None:
    a, _b, at = sessions
    ws = Workspace.open(example_ws)
    refresh_metrics(ws)
    lines = a.path.read_text(encoding="utf-8").splitlines(keepends=True)
    a.path.write_text("".join(lines[: at["a_read"]]), encoding="utf-8")  # keeps only the mention
    metrics, summary = refresh_metrics(ws)
    assert summary.recounted == 1
    assert _counts(metrics) == {WAL: 3, RELEASE: 1}


def test_deleted_record_disappears_and_returns_with_its_file(example_ws: Path, sessions) -> None:
    ws = Workspace.open(example_ws)
    refresh_metrics(ws)
    saved = (example_ws / WAL).read_bytes()
    (example_ws / WAL).unlink()
    metrics = load_metrics(ws)
    assert metrics.get(WAL) is None and metrics.rate(WAL) == 0.0
    assert WAL not in json.dumps(metrics.to_json_dict())
    (example_ws / WAL).write_bytes(saved)
    assert load_metrics(ws).get(WAL).count == 4


def test_replaced_decision_hands_its_figures_to_the_replacement(agents, example_ws: Path) -> None:
    old, new = "memory/decisions/sync-job-runner.md", "memory/decisions/background-jobs-in-thread.md"
    a = agents.claude()
    a.tool("Read", {"file_path": old}, DAY.format(1))
    a.tool("Bash", {"command": f"head -20 {old}"}, DAY.format(2))
    a.tool("Read", {"file_path": new}, DAY.format(3))
    ws = Workspace.open(example_ws)
    metrics, _ = refresh_metrics(ws)
    moved = metrics.get(new)
    assert moved.count == 3 and moved.merged_from == [old]
    assert old not in metrics.records
    assert metrics.get(old) is moved and metrics.rates()[old] == moved.rate
    # the window starts at the older decision's created_at
    assert moved.window_start == dt.datetime(2026, 4, 20, 10, tzinfo=dt.timezone(dt.timedelta(hours=9)))


def test_lifetime_window_excludes_use_and_tokens_before_created_at(agents, example_ws: Path) -> None:
    early = agents.claude()
    early.tool("Read", {"file_path": WAL}, "2026-03-01T09:00:00.000Z", tokens=4000)  # before wal-mode existed
    late = agents.claude()
    late.tool("Read", {"file_path": WAL}, DAY.format(1), tokens=1000)
    metrics, _ = refresh_metrics(Workspace.open(example_ws))
    wal = metrics.get(WAL)
    assert wal.count == 1 and wal.tokens == 1000
    assert metrics.tokens == 5000
    assert wal.rate == pytest.approx(1000.0)


def test_estimate_when_the_agent_logs_no_usage(agents, example_ws: Path) -> None:
    a = agents.claude()
    a.user("#wal-mode " + "x" * 3990, DAY.format(1))  # 4000 ASCII characters ~ 1000 tokens
    metrics, _ = refresh_metrics(Workspace.open(example_ws))
    assert metrics.get(WAL).count == 1
    assert metrics.tokens == 1000


def test_no_metrics_before_any_session(example_ws: Path) -> None:
    ws = Workspace.open(example_ws)
    assert load_metrics(ws) is None
    metrics, summary = refresh_metrics(ws)
    assert summary.sessions == 0 and metrics.tokens == 0
    assert load_metrics(ws) is None  # nothing counted yet: protection stays off


def test_corrupt_state_is_rebuilt(example_ws: Path, sessions) -> None:
    ws = Workspace.open(example_ws)
    refresh_metrics(ws)
    (ws.state_dir / "metrics.json").write_text("{not json", encoding="utf-8")
    assert load_metrics(ws) is None
    metrics, summary = refresh_metrics(ws)
    assert summary.scanned == 2 and metrics.get(WAL).count == 4


def test_codex_cumulative_usage_is_split_by_day_across_runs(agents, example_ws: Path) -> None:
    (example_ws / "knowledge" / "new-thing.md").write_text(
        "---\ncreated_at: 2026-05-13T00:00:00Z\nupdated_at: 2026-05-13T00:00:00Z\nkind: fact\n"
        "description: Something new.\nmodel_invocation: false\nuser_invocable: true\nlast_sources: []\n---\n"
        "A new fact.\n", encoding="utf-8")
    b = agents.codex(day="2026-05-12")
    b.exec("cat knowledge/new-thing.md", "2026-05-12T10:00:00.000Z")  # before it existed: not counted
    b.tokens(10_000, "2026-05-12T10:01:00.000Z")
    ws = Workspace.open(example_ws)
    first, _ = refresh_metrics(ws)
    assert first.tokens == 10_000 and first.get("knowledge/new-thing.md").tokens == 0
    b.exec("cat knowledge/new-thing.md", "2026-05-13T10:00:00.000Z")
    b.tokens(25_000, "2026-05-13T10:01:00.000Z")  # cumulative: 15 000 more, all on the 13th
    later, _ = refresh_metrics(ws)
    fresh = later.get("knowledge/new-thing.md")
    assert later.tokens == 25_000
    assert fresh.count == 1 and fresh.tokens == 15_000
    assert fresh.rate == pytest.approx(1 / 0.015)

"""memory.budget: the capture hook defers once today's model calls have spent the day's budget (a
state `memcli status` shows, not a failure), counted from the call log whatever made the calls."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from extract.helpers import conversation, make_ws, staged, write_jsonl
from support.fake_llm import Reply

from memcli import history
from memcli.cli import main
from memcli.hooks import capture
from memcli.llm.spend import RUN_LOG, spent
from memcli.workspace import Workspace

ITEMS = json.dumps({"decisions": [{"title": "SQLite index", "decision": "keep the index in SQLite",
                                   "rationale": "one file", "status": "resolved"}],
                    "discussions": [], "attempts": [], "requests": []})


def _budgeted(tmp_path: Path, table: str) -> tuple[Workspace, Path]:
    ws = make_ws(tmp_path / "ws")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    toml = ws.root / "memcli.toml"
    toml.write_text(toml.read_text() + f"[sessions]\npaths = [{json.dumps(str(sessions))}]\n"
                    f"[memory.budget]\n{table}\n", encoding="utf-8")
    return Workspace.open(ws.root), sessions


def test_the_second_capture_of_the_day_defers(tmp_path: Path, fake_llm, capsys) -> None:
    ws, sessions = _budgeted(tmp_path, "day_tokens = 50")
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    first = write_jsonl(sessions / "first.jsonl", conversation(2))
    second = write_jsonl(sessions / "second.jsonl", conversation(2))

    assert capture.capture(ws, None, str(first), event="SessionEnd") == 0
    assert fake_llm.calls == 1 and len(staged(ws)) == 1  # within the budget: extracted
    assert spent(ws.state_dir, dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)).tokens > 50

    assert capture.capture(ws, None, str(second), event="SessionEnd") == 0
    assert fake_llm.calls == 1 and len(staged(ws)) == 1  # over it: no call, nothing staged
    last = history.last(ws, "extract")
    assert last is not None and last["result"] == "deferred"
    assert last["note"].startswith("waits for the budget: today's model calls have spent ")
    assert last["note"].endswith("tokens, the memory.budget.day_tokens of 50 tokens")

    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["status", "-w", str(ws.root)])
    assert done.value.code == 0  # a state, not a failure
    out = capsys.readouterr().out
    assert "model spend today:  " in out and "in 1 call (budget 50 tokens a day)" in out
    assert "budget spent: today's model calls have spent" in out
    assert "deferred:           1 session(s) captured over the budget wait for extraction" in out


def test_spend_counts_every_backend_that_logs_a_row(tmp_path: Path, fake_llm) -> None:
    """An agent backend's rows (no litellm behind them) count like the gateway's."""
    ws, sessions = _budgeted(tmp_path, "day_usd = 0.10")
    now = dt.datetime.now(dt.UTC)
    rows = [{"time": now.isoformat(timespec="seconds"), "role": "consolidation",
             "model": "agent/claude-code", "mode": "agent", "seconds": 30.0, "ok": True, "error": None,
             "prompt_tokens": 1000, "completion_tokens": 100, "cost_usd": 0.06} for _ in range(2)]
    rows.insert(0, {**rows[0], "time": (now - dt.timedelta(days=2)).isoformat(timespec="seconds")})
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    log = "".join(json.dumps(r) + "\n" for r in rows) + '{"torn'  # a row being written: skipped
    (ws.state_dir / RUN_LOG).write_text(log, encoding="utf-8")
    session = write_jsonl(sessions / "s.jsonl", conversation(2))
    assert capture.capture(ws, None, str(session), event="SessionEnd") == 0
    assert fake_llm.calls == 0
    assert history.last(ws, "extract")["note"] == (  # type: ignore[index]
        "waits for the budget: today's model calls have spent $0.1200, the memory.budget.day_usd of $0.1000")

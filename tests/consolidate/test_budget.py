"""memory.budget in consolidation and extraction: a run stops at its cap, `--if-needed` (cron's
background run) waits while the day's budget is spent, a run by hand still runs."""

from __future__ import annotations

import datetime as dt
import json

from consolidate.helpers import dispose_call, finish_call, head, snapshot
from extract.helpers import conversation, make_ws, staged, write_jsonl
from support.fake_llm import FAKE_MODEL, Reply
from support.git import git

from memcli import history
from memcli.consolidate.run import Options, run
from memcli.extract.run import run as extract
from memcli.llm.spend import RUN_LOG
from memcli.workspace import Workspace

ITEMS = json.dumps({"decisions": [{"title": "SQLite index", "decision": "keep the index in SQLite",
                                   "rationale": "one file", "status": "resolved"}],
                    "discussions": [], "attempts": [], "requests": []})


def _budget(root, table: str) -> None:
    toml = root / "memcli.toml"
    toml.write_text(toml.read_text() + f"\n[memory.budget]\n{table}\n", encoding="utf-8")


def _spent_today(ws: Workspace, tokens: int) -> None:
    row = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "role": "extract",
           "model": FAKE_MODEL, "mode": "json_schema", "seconds": 1.0, "ok": True, "error": None,
           "prompt_tokens": tokens, "completion_tokens": 0, "cost_usd": None}
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    with (ws.state_dir / RUN_LOG).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")


def test_a_consolidation_stops_at_its_run_cap(repo_ws, fake_llm, capsys):
    _budget(repo_ws, "run_tokens = 100")
    git(repo_ws, "commit", "-qam", "a small cap")
    before = (snapshot(repo_ws), head(repo_ws))
    fake_llm.responder = lambda body: Reply(tool_calls=[dispose_call(["i1"])])
    assert run(Workspace.open(repo_ws), Options()) == 1
    error = history.last(Workspace.open(repo_ws), "consolidate")["error"]
    assert error.startswith("the run has spent ") and error.endswith(
        " tokens, the memory.budget.run_tokens of 100 tokens (after 1 model calls); staging is kept")
    assert fake_llm.calls == 1 and (snapshot(repo_ws), head(repo_ws)) == before


def test_if_needed_waits_while_the_days_budget_is_spent_and_a_run_by_hand_runs(repo_ws, fake_llm, capsys):
    _budget(repo_ws, "day_tokens = 1000")
    git(repo_ws, "commit", "-qam", "a day's budget")
    ws = Workspace.open(repo_ws)
    _spent_today(ws, 1500)
    before = (snapshot(repo_ws), head(repo_ws))
    assert run(ws, Options(if_needed=True)) == 0
    out = capsys.readouterr().out
    assert out == ("consolidate: waits for the budget: today's model calls have spent 1,500 tokens, the "
                   "memory.budget.day_tokens of 1,000 tokens; staging is kept for a later run\n")
    assert fake_llm.calls == 0 and (snapshot(repo_ws), head(repo_ws)) == before
    assert history.last(ws, "consolidate")["result"] == "deferred"

    fake_llm.push(Reply(tool_calls=[dispose_call(["i1", "i2"]), finish_call()]),
                  Reply(tool_calls=[finish_call()]))
    assert run(ws, Options()) == 0  # by hand: the day's budget is for background work
    assert fake_llm.calls == 2 and not (repo_ws / "memory/_staging/s1.json").exists()


def test_an_extract_run_stops_starting_chunks_at_its_cap(fake_llm, tmp_path, capsys):
    ws = make_ws(tmp_path / "w", extract={"concurrency": 1})
    _budget(ws.root, "run_tokens = 10")
    ws = Workspace.open(ws.root)
    for i in range(3):
        write_jsonl(tmp_path / "s" / f"s{i}.jsonl", conversation(2))
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    assert extract(ws, paths=[tmp_path / "s"]) == 0
    err = capsys.readouterr().err
    assert fake_llm.calls == 1 and len(staged(ws)) == 1
    assert "Stopped: the run has spent " in err and (
        "tokens, the memory.budget.run_tokens of 10 tokens; the 2 chunk(s) not started wait for the next run."
    ) in err
    assert history.last(ws, "extract")["result"] == "partial"
    capsys.readouterr()
    assert extract(ws, paths=[tmp_path / "s"]) == 0  # the next run goes on where this one stopped
    assert fake_llm.calls == 2 and len(staged(ws)) == 2

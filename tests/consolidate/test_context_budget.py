"""The consolidation input within the model's context window, seen in the HTTP requests the scripted
model received: related records instead of all of them, staging in batches that are all disposed of,
old tool results trimmed, and a small memory still pasted in full."""

from __future__ import annotations

import json

from consolidate.helpers import (
    configure,
    decision,
    dispose_call,
    finish_call,
    git,
    head,
    init_repo,
    item_ids,
    snapshot,
    write_staging,
)
from support.fake_llm import Reply, tool_call

from memcli.consolidate.run import Options, run
from memcli.llm import estimate_prompt
from memcli.workspace import Workspace

WINDOW = 8192
TARGET = "memory/decisions/reminder-db-wal.md"
TARGET_BODY = "Open the reminder SQLite database in WAL journal mode so readers never block the writer."
LONG = "memory/decisions/deploy-history.md"
# Words that no staging item uses: a filler record is never related to one.
TOPICS = ["kubernetes", "terraform", "graphql", "webpack", "grafana", "ansible", "protobuf", "nginx",
          "tailwind", "airflow", "kafka", "elastic", "prometheus", "vagrant", "jenkins"]


def _filler(i: int) -> str:
    topic = TOPICS[i % len(TOPICS)]
    return (f"Filler {i}: the {topic} setup for service {i} stays on its pinned version, because upgrading "
            f"{topic} for service {i} broke the staging cluster twice; revisit at the next freeze.")


def _workspace(example_ws, fillers: int = 150, staging: int = 1, window: int = WINDOW) -> Workspace:
    configure(example_ws, max_iterations=8)
    toml = example_ws / "memcli.toml"
    toml.write_text(toml.read_text().replace("context_tokens = 128000", f"context_tokens = {window}"))
    decisions = example_ws / "memory/decisions"
    for i in range(fillers):
        (decisions / f"filler-{i:03d}.md").write_text(decision(_filler(i), [(f"sess-f{i}", 0, 3)]))
    (example_ws / TARGET).write_text(decision(TARGET_BODY, [("sess-wal", 2, 7)]))
    history = "\n\n".join(f"Step {n}: the release train moved the deploy window by one hour and the on-call "
                          f"rota changed accordingly (entry {n})." for n in range(12))
    (example_ws / LONG).write_text(decision("Deploy on Tuesdays.\n\n" + history, [("sess-deploy", 0, 9)]))
    init_repo(example_ws)
    for s in range(staging):
        items = {"decisions": [
            {"title": f"SQLite WAL {s}.{k}", "decision": f"Keep WAL mode on the reminder database ({s}.{k})",
             "rationale": "readers must not block the writer during the nightly reminder batch; checked "
                          f"with the load test of run {s}.{k}", "status": "resolved"} for k in range(4)]}
        write_staging(example_ws, f"s{s:02d}", f"sess-{s}", (0, 9), items)
    return Workspace.open(example_ws)


def _sizes(fake_llm) -> list[int]:
    return [estimate_prompt(r["messages"], {"tools": r["tools"]}) for r in fake_llm.requests]


def _dispose_shown(body: dict) -> Reply:
    """Drop every item of the batch just shown, then finish; in the GC phase, finish."""
    messages = body["messages"]
    if len(messages) == 2:
        return Reply(tool_calls=[dispose_call(item_ids(messages[1]["content"]), reason="already decided"),
                                 finish_call()])
    return Reply(tool_calls=[finish_call()])


def test_small_window_gets_the_related_record_not_the_unrelated_ones(example_ws, fake_llm, capsys):
    ws = _workspace(example_ws)
    fake_llm.responder = _dispose_shown
    assert run(ws, Options(json=True)) == 0
    report = json.loads(capsys.readouterr().out)["runs"][0]
    assert report["batches"] == sum(1 for r in fake_llm.requests if len(r["messages"]) == 2)
    assert all(size < WINDOW for size in _sizes(fake_llm))
    # Each answer is capped at the budget's share, so a rambling model cannot fill the window.
    assert {r.get("max_tokens") for r in fake_llm.requests} == {WINDOW // 8}
    first = fake_llm.requests[0]["messages"][1]["content"]
    assert TARGET_BODY in first  # the related record, in full
    assert "Filler 1:" not in first and "Filler 77:" not in first  # no unrelated record
    assert "Catalogue" not in first  # 150 lines would not fit 8k: a count and memory_search instead
    assert "exist, too many to list" in first and "memory_search" in first and "memory_read" in first
    assert item_ids(first)[0] == "i1"
    assert not (example_ws / "memory/_staging/s00.json").exists()


def _batch_model(body: dict) -> Reply:
    """Per batch: read a long record twice (traffic to trim), then dispose of every item shown."""
    messages = body["messages"]
    reads = sum(1 for m in messages if m["role"] == "tool" and m["tool_call_id"].startswith("read_"))
    if messages[-1]["role"] == "user" and "Phase 2" in messages[-1]["content"]:
        return Reply(tool_calls=[finish_call("nothing to tidy")])  # the GC phase
    if reads < 2:
        return Reply(tool_calls=[tool_call("memory_read", {"path": LONG}, f"read_{len(messages)}")])
    return Reply(tool_calls=[dispose_call(item_ids(messages[1]["content"]), reason="already decided"),
                             finish_call()])


def test_staging_in_batches_all_disposed_old_results_trimmed(example_ws, fake_llm, capsys):
    ws = _workspace(example_ws, fillers=60, staging=8)
    before = head(example_ws)
    fake_llm.responder = _batch_model
    assert run(ws, Options()) == 0, capsys.readouterr().err
    assert all(size < WINDOW for size in _sizes(fake_llm))

    # each batch starts over from the instructions: its items, after a note on the batches done
    starts = [r["messages"] for r in fake_llm.requests if len(r["messages"]) == 2]
    assert len(starts) >= 2  # 32 items do not fit one 8k call
    shown = [i for messages in starts for i in item_ids(messages[1]["content"])]
    assert shown == [f"i{n}" for n in range(1, 33)]  # every item once, in order
    head_of_prompt = starts[0][1]["content"][:400]
    assert all(m[1]["content"].startswith(head_of_prompt) for m in starts)  # instructions whole
    assert "# Done so far in this run" not in starts[0][1]["content"]
    note = starts[-1][1]["content"]
    assert f"of {len(starts)}: items i1–" in note and "all have their disposition (0 integrated" in note
    assert TARGET_BODY in note  # the related record comes with every batch

    # GC only after the last batch, with the gc-report; the last batch's text gave way to the note
    last = fake_llm.requests[-1]["messages"]
    assert "Phase 2" in last[-1]["content"] and "# GC material (gc-report)" in last[-1]["content"]
    assert item_ids(last[1]["content"]) == []
    assert f"Batches 1–{len(starts)} of {len(starts)}" in last[1]["content"]

    # within a batch, the oldest tool result gave way to a stub; the latest turn's never does
    trimmed = [r for r in fake_llm.requests if any(m["role"] == "tool" and m["content"].startswith("[trimmed")
                                                   for m in r["messages"])]
    assert trimmed
    stub = next(m["content"] for m in trimmed[0]["messages"] if m["role"] == "tool")
    assert stub.startswith("[trimmed to fit the context window: the result of memory_read")
    assert f'"path": "{LONG}"' in stub and "make the call again" in stub
    for request in fake_llm.requests:
        if request["messages"][-1]["role"] == "tool":
            assert not request["messages"][-1]["content"].startswith("[trimmed")

    # one run, all or nothing: every item has its disposition and the staging is consumed
    assert not list((example_ws / "memory/_staging").glob("*.json"))
    assert head(example_ws) == before  # everything dropped: nothing to commit
    assert "dropped staging item" in capsys.readouterr().out


def test_item_larger_than_the_window_fails_before_any_call_and_keeps_staging(example_ws, fake_llm, capsys):
    ws = _workspace(example_ws, fillers=0)
    long = "再試行の方針は三回までとし、間隔は指数的に伸ばす。" * 40  # ~1000 CJK characters: ~1500 tokens
    write_staging(example_ws, "s99", "sess-99", (0, 3), {"decisions": [
        {"title": "Huge", "decision": long[:1000], "rationale": long[:1000], "status": "resolved"}]})
    before = (snapshot(example_ws), head(example_ws))
    assert run(ws, Options()) == 1
    err = capsys.readouterr().err
    assert "staging item i5 (decision 'Huge' from s99) alone is about" in err
    assert "memory.context_tokens" in err and "staging is kept" in err
    assert fake_llm.calls == 0
    assert (snapshot(example_ws), head(example_ws)) == before


def test_everything_fits_is_pasted_in_full_as_before(repo_ws, fake_llm):
    fake_llm.push(Reply(tool_calls=[dispose_call(["i1", "i2"], reason="noise"), finish_call()]),
                  Reply(tool_calls=[finish_call()]))
    assert run(Workspace.open(repo_ws), Options()) == 0
    first = fake_llm.requests[0]["messages"][1]["content"]
    assert "# Existing memory (full text)" in first
    records = [p for kind in ("decisions", "requests") for p in sorted((repo_ws / "memory" / kind).glob("*"))]
    assert records
    for path in records:
        assert path.read_text(encoding="utf-8") in first
    assert "Catalogue" not in first and "Batch " not in first and "batch 1 of" not in first
    assert git(repo_ws, "status", "--porcelain").strip() == ""


def test_japanese_item_finds_the_japanese_record(example_ws, fake_llm):
    ws = _workspace(example_ws, staging=0)
    body = "リマインダーのジョブは別のワーカープロセスで実行する。再起動してもジョブが失われないため。"
    (example_ws / "memory/decisions/reminder-worker.md").write_text(decision(body, [("sess-ja", 0, 5)]))
    git(example_ws, "add", "-A")
    git(example_ws, "commit", "-qm", "a Japanese decision")
    write_staging(example_ws, "s00", "sess-0", (0, 9), {"decisions": [
        {"title": "ワーカープロセス", "decision": "リマインダーのジョブをワーカープロセスへ移す",
         "rationale": "再起動でジョブが失われる", "status": "resolved"}]})
    fake_llm.responder = _dispose_shown
    assert run(ws, Options()) == 0
    first = fake_llm.requests[0]["messages"][1]["content"]
    assert body in first and "Filler 3:" not in first

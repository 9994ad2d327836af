"""Faults that must lose nothing: after each, memory/, knowledge/, staging and HEAD are exactly as
before (or exactly the committed result), and the message says what happened."""

from __future__ import annotations

import json

import pytest
from consolidate.helpers import configure, decision, head, make_unwritable, snapshot
from consolidate.test_run import NEW, OLD, done, replace_old, settle, write_new_decision
from support.fake_llm import Reply, tool_call
from support.git import git

from memcli import history
from memcli.consolidate.run import Options, run
from memcli.workspace import Workspace


def _unchanged(root, before):
    files, commit = before
    assert snapshot(root) == files, "workspace files or staging changed"
    assert head(root) == commit, "git HEAD moved"
    assert git(root, "status", "--porcelain").strip() == ""


def _fails(root, capsys, *why):
    assert run(Workspace.open(root), Options()) == 1
    err = capsys.readouterr().err
    assert "consolidate failed:" in err and "Nothing was changed" in err
    for w in why:
        assert w in err
    last = history.last(Workspace.open(root), "consolidate")
    assert last["result"] == "failed"
    return err


def test_model_error_mid_run(repo_ws, fake_llm, capsys):
    before = (snapshot(repo_ws), head(repo_ws))
    fake_llm.push(write_new_decision(), Reply(status=500), Reply(status=500))
    _fails(repo_ws, capsys, "failed 2 times")
    _unchanged(repo_ws, before)


def test_429_storm(repo_ws, fake_llm, capsys):
    before = (snapshot(repo_ws), head(repo_ws))
    fake_llm.responder = lambda body: Reply(status=429, error_message="rate limited")
    _fails(repo_ws, capsys, "RateLimitError")
    _unchanged(repo_ws, before)


def test_model_loops_past_iteration_bound(repo_ws, fake_llm, capsys):
    configure(repo_ws, no_progress_turns=0)  # the bound on calls alone (a repeated read gets nowhere)
    git(repo_ws, "commit", "-qam", "no no-progress stop")
    before = (snapshot(repo_ws), head(repo_ws))
    read = Reply(tool_calls=[tool_call("memory_read", {"path": "memory/summary.md"})])
    fake_llm.responder = lambda body: read
    _fails(repo_ws, capsys, "did not finish within 12 model calls")
    assert fake_llm.calls == 12
    _unchanged(repo_ws, before)


def test_invalid_records_never_fixed(repo_ws, fake_llm, capsys):
    before = (snapshot(repo_ws), head(repo_ws))
    broken = Reply(tool_calls=[tool_call("memory_write", {
        "path": "memory/decisions/broken.md", "mode": "create",
        "content": "---\nstatus: maybe\n---\nno dates, no sources\n", "reason": "try"})])
    fake_llm.responder = lambda body: broken
    err = _fails(repo_ws, capsys, "the same invalid call 3 times: memory_write memory/decisions/broken.md: ")
    assert fake_llm.calls == 3 and "consolidate.no_progress_turns" in err
    refusals = [m["content"] for r in fake_llm.requests for m in r["messages"] if m["role"] == "tool"]
    assert refusals and all('"ok": false' in r for r in refusals)
    _unchanged(repo_ws, before)


def test_attacks_are_refused_and_nothing_bad_lands(repo_ws, fake_llm, capsys):
    workflow = (repo_ws / "memory/workflow/release.md").read_bytes()
    before = (snapshot(repo_ws), head(repo_ws))
    invented = decision("Invented.", [("made-up-session", 0, 3)])
    fake_llm.push(
        Reply(tool_calls=[
            tool_call("memory_write", {"path": "../../etc/passwd", "mode": "create", "content": "x",
                                       "reason": "escape"}, "c1"),
            tool_call("memory_write", {"path": "memory/workflow/release.md", "mode": "replace",
                                       "content": "pwned", "reason": "workflow"}, "c2"),
            tool_call("memory_delete", {"path": "memory/decisions/use-sqlite-wal.md",
                                        "reason": "drop"}, "c3"),
            tool_call("memory_write", {"path": "memory/decisions/invented.md", "mode": "create",
                                       "content": invented, "reason": "invent"}, "c4"),
            tool_call("run_shell", {"cmd": "rm -rf /"}, "c5"),
        ]),
        settle(None),
        Reply(tool_calls=[tool_call("memory_delete", {"path": "memory/decisions/api-versioning.md",
                                                      "reason": "gc", "category": "unused"}, "c6")]),
        done(),
    )
    assert run(Workspace.open(repo_ws), Options()) == 0  # the model gave up its attempts: nothing to do
    results = {m["tool_call_id"]: json.loads(m["content"]) for r in fake_llm.requests
               for m in r["messages"] if m["role"] == "tool" and not m["tool_call_id"].startswith("call_")}
    assert all(not res["ok"] for res in results.values()) and len(results) == 6
    assert results["c1"]["error"] == "path"
    assert "workflow-readonly" in json.dumps(results["c2"])
    assert "source-not-provided" in json.dumps(results["c4"])
    assert results["c5"]["error"] == "unknown-tool"
    assert (repo_ws / "memory/workflow/release.md").read_bytes() == workflow
    files, commit = before
    assert head(repo_ws) == commit
    assert {k: v for k, v in snapshot(repo_ws).items() if "_staging" not in k} == {
        k: v for k, v in files.items() if "_staging" not in k}


def _scratch_dirs(ws_root):
    ws = Workspace.open(ws_root)
    return list((ws.state_dir / "consolidate-scratch").glob("*"))


def _plant_broken(ws_root):
    """Something outside the tools leaves an invalid record in the scratch copy (a lint gap)."""
    (scratch,) = _scratch_dirs(ws_root)
    (scratch / "memory/requests/broken.md").write_text("---\nupdated_at: nope\n---\nbroken\n")


def test_lint_findings_go_back_for_repair(repo_ws, fake_llm, capsys):
    def final_gc_answer(body):
        _plant_broken(repo_ws)
        return done("gc done")

    answers = [lambda b: write_new_decision(), lambda b: settle(), final_gc_answer,
               lambda b: Reply(tool_calls=[tool_call("memory_delete", {
                   "path": "memory/requests/broken.md", "reason": "invalid record"})]),
               lambda b: done("fixed")]
    fake_llm.responder = lambda body: answers.pop(0)(body)
    assert run(Workspace.open(repo_ws), Options()) == 0
    repair = fake_llm.requests[3]["messages"][-1]["content"]
    assert "repair turn 1 of 1" in repair and "memory/requests/broken.md" in repair
    assert (repo_ws / NEW).is_file() and not (repo_ws / "memory/requests/broken.md").exists()


def test_lint_findings_never_fixed_abort(repo_ws, fake_llm, capsys):
    before = (snapshot(repo_ws), head(repo_ws))

    def final_gc_answer(body):
        _plant_broken(repo_ws)
        return done("gc done")

    answers = [lambda b: write_new_decision(), lambda b: settle(), final_gc_answer, lambda b: done("won't")]
    fake_llm.responder = lambda body: answers.pop(0)(body)
    _fails(repo_ws, capsys, "errors after 1 repair turns", "memory/requests/broken.md")
    _unchanged(repo_ws, before)


def test_pre_commit_hook_rejecting_commit_rolls_back(repo_ws, fake_llm, capsys):
    hook = repo_ws / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho 'memory commits need review' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = (snapshot(repo_ws), head(repo_ws))
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    _fails(repo_ws, capsys, "git commit failed", "memory commits need review", "put back")
    _unchanged(repo_ws, before)


def test_disk_write_failing_during_apply(repo_ws, fake_llm, capsys):
    undo = make_unwritable(repo_ws / "memory/requests")
    if undo is None:
        pytest.skip("cannot make a folder unwritable here")
    try:
        before = (snapshot(repo_ws), head(repo_ws))
        new_request = Reply(tool_calls=[tool_call("memory_write", {
            "path": "memory/requests/jp-commits.md", "mode": "create",
            "content": "---\ncreated_at: 2026-05-20T10:00:00+00:00\nupdated_at: 2026-05-20T10:00:00+00:00\n"
                       "sources:\n  - session_id: sess-1\n    range: [4, 9]\n---\n"
                       "コミットメッセージは日本語で可。\n",
            "reason": "staging request"})])
        # memory/decisions/ is written first and must be put back when memory/requests/ fails
        fake_llm.push(write_new_decision(), new_request, settle(), replace_old(), done())
        _fails(repo_ws, capsys, "cannot write memory/requests/jp-commits.md", "put back")
    finally:
        undo()
    _unchanged(repo_ws, before)


def test_human_edit_during_run_aborts(repo_ws, fake_llm, capsys):
    target = repo_ws / "memory/summary.md"

    def human_edits(body):
        target.write_text(target.read_text() + "\n- edited by a human meanwhile\n")
        return settle()

    answers = [lambda b: write_new_decision(), human_edits, lambda b: done()]
    fake_llm.responder = lambda body: answers.pop(0)(body)
    edited_before = head(repo_ws)
    _fails(repo_ws, capsys, "changed while the model worked")
    assert head(repo_ws) == edited_before and not (repo_ws / NEW).exists()
    assert (repo_ws / "memory/_staging/s1.json").exists()


def test_prompt_over_the_context_window_fails_and_keeps_staging(repo_ws, fake_llm, capsys):
    config = repo_ws / "memcli.toml"
    text = config.read_text(encoding="utf-8").replace("context_tokens = 128000", "context_tokens = 1024")
    config.write_text(text, encoding="utf-8")
    git(repo_ws, "commit", "-qam", "a small context window")
    before = (snapshot(repo_ws), head(repo_ws))
    staged = sorted(p.name for p in (repo_ws / "memory" / "_staging").glob("*.json"))
    assert staged
    # the input cannot be laid out within it: refused before any call, with the arithmetic
    _fails(repo_ws, capsys, "the context window cannot hold the consolidation prompt",
           "context window 1024 tokens = prompt and tool schemas")
    _unchanged(repo_ws, before)
    assert fake_llm.calls == 0  # refused before sending: no truncated prompt, no empty answer
    assert sorted(p.name for p in (repo_ws / "memory" / "_staging").glob("*.json")) == staged


def test_conversation_outgrowing_the_window_fails_mid_run_and_keeps_staging(repo_ws, fake_llm, capsys):
    from memcli.llm import estimate_prompt

    fake_llm.push(Reply(status=500), Reply(status=500))  # a first run only to see what it sends
    _fails(repo_ws, capsys, "failed 2 times")
    first = fake_llm.requests[0]
    size = estimate_prompt(first["messages"], {"tools": first["tools"]})
    window = (size + 100) * 4 // 3  # the whole input fits, with the reserve for answer and traffic
    config = repo_ws / "memcli.toml"
    text = config.read_text(encoding="utf-8").replace("context_tokens = 128000", f"context_tokens = {window}")
    config.write_text(text, encoding="utf-8")
    git(repo_ws, "commit", "-qam", "a window the first call fits with a little room")
    before = (snapshot(repo_ws), head(repo_ws))
    # one turn reads far more than the reserve: the latest turn's results are never trimmed
    reads = [tool_call("memory_read", {"path": "memory/summary.md"}, f"r{i}") for i in range(40)]
    fake_llm.push(Reply(tool_calls=reads))
    _fails(repo_ws, capsys, "tool traffic (the latest turn's 40 tool results take about",
           f"filled the context window ({window} tokens) even after trimming")
    _unchanged(repo_ws, before)
    assert fake_llm.calls == 3  # the first run's two, then one: the grown prompt was never sent
    sent = fake_llm.requests[2]["messages"][1]["content"]
    assert "# Existing memory (full text)" in sent and "Catalogue" not in sent  # everything fitted


HUMAN_LINE = "\n- a note by a human, added while the run applied\n"


def _hook_edits_then(root, then: str):
    """The pre-commit hook plays a human who edits a record the run just wrote, at the commit."""
    hook = root / ".git/hooks/pre-commit"
    hook.write_text(f"#!/bin/sh\nprintf '{HUMAN_LINE}' >> '{root / OLD}'\n{then}\n")
    hook.chmod(0o755)


def test_human_edit_during_rejected_commit_is_kept_and_named(repo_ws, fake_llm, capsys):
    """Issue 12 §4: rollback restores only files that hold exactly what the run wrote."""
    _hook_edits_then(repo_ws, "echo 'memory commits need review' >&2; exit 1")
    files, commit = snapshot(repo_ws), head(repo_ws)
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    assert run(Workspace.open(repo_ws), Options()) == 1
    err = capsys.readouterr().err
    assert "git commit failed" in err and f"kept the edit made meanwhile to {OLD}" in err
    assert "Nothing was changed" not in err
    edited = (repo_ws / OLD).read_text()
    assert edited.endswith(HUMAN_LINE) and "status: replaced" in edited  # the human's file, as they left it
    assert not (repo_ws / NEW).exists() and head(repo_ws) == commit  # everything else is old
    assert {k: v for k, v in snapshot(repo_ws).items() if k != OLD} == {
        k: v for k, v in files.items() if k != OLD}
    assert git(repo_ws, "status", "--porcelain").strip() == f"M {OLD}"
    assert history.last(Workspace.open(repo_ws), "consolidate")["result"] == "failed"


def test_human_edit_during_accepted_commit_stays_uncommitted(repo_ws, fake_llm, capsys):
    """The commit holds exactly what the run wrote; the human's edit stays in the file, on top."""
    _hook_edits_then(repo_ws, "exit 0")
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    assert run(Workspace.open(repo_ws), Options()) == 0
    err = capsys.readouterr().err
    assert f"{OLD} was edited while the run applied; the edit is kept, uncommitted" in err
    committed = git(repo_ws, "show", f"HEAD:{OLD}")
    assert "status: replaced" in committed and "a note by a human" not in committed
    assert (repo_ws / OLD).read_text() == committed + HUMAN_LINE
    assert git(repo_ws, "status", "--porcelain").strip() == f"M {OLD}"  # unstaged: the index holds HEAD

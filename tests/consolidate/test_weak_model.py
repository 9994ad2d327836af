"""A scripted model that behaves like a weak local one — narrates, prints tool calls as text, stops
early, tries to drop items without saying so, merges two decisions — loses nothing: every staging
item ends with a disposition, provenance moves with the merge, and staging is kept when it fails."""

from __future__ import annotations

import json

from consolidate.helpers import dispose_call, finish_call, head, snapshot
from support.fake_llm import Reply, tool_call
from support.git import git

from memcli.consolidate.agent import nudge
from memcli.consolidate.run import Options, run
from memcli.lint import lint
from memcli.workspace import Workspace

MERGED = "memory/decisions/reminder-job-runner.md"
THREAD = "memory/decisions/background-jobs-in-thread.md"
SYNC = "memory/decisions/sync-job-runner.md"
THREAD_SRC = ("5c0375b4-57a5-4f26-b12d-d022ee4e51b7", 10, 31)
SYNC_SRC = ("1af7fc5e-8455-4414-9ccd-011d40f70b2a", 0, 12)
STAGING_SRC = ("sess-1", 4, 9)


def _merged_record() -> str:
    sources = "".join(f"  - session_id: {s}\n    range: [{a}, {b}]\n" for s, a, b in
                      (THREAD_SRC, SYNC_SRC, STAGING_SRC))
    return ("---\ncreated_at: 2026-05-20T10:00:00+00:00\nupdated_at: 2026-05-20T10:00:00+00:00\n"
            f"status: resolved\nsources:\n{sources}---\n"
            "Run reminder e-mails in a separate worker process.\n\n"
            "Why: jobs must survive restarts. History: first sent synchronously in the request handler "
            "(latency spiked when SMTP was slow), then from one background thread (lost jobs on restart).\n")


def _replace(path: str, old: str) -> dict:
    return tool_call("memory_edit", {"path": path, "old_string": old,
                                     "new_string": "status: replaced\nreplaced_by: reminder-job-runner",
                                     "reason": "merged into reminder-job-runner"})


SCRIPT = [
    Reply(content="I'll start by reading the existing decisions, then I will write the new one."),
    Reply(content='{"name": "memory_write", "arguments": {"path": "memory/decisions/x.md"}}'),
    Reply(tool_calls=[
        tool_call("memory_write", {"path": MERGED, "mode": "create", "content": _merged_record(),
                                   "reason": "merge the two job-runner decisions with the staging one"}),
        _replace(THREAD, "status: open"),
        _replace(SYNC, "status: replaced\nreplaced_by: background-jobs-in-thread"),
    ]),
    Reply(tool_calls=[finish_call("integration done")]),  # stops early: no disposition at all
    Reply(tool_calls=[dispose_call(["i1"], "integrated", [MERGED], "the worker-process decision")]),
    Reply(content="Done. Everything else was not important."),  # tries to drop i2 silently
    Reply(tool_calls=[dispose_call(["i2"], reason="a one-off wish for one commit, not a standing request"),
                      finish_call("integration done")]),
    Reply(content="The records are tidy."),  # GC: a text turn ends nothing either
    Reply(tool_calls=[finish_call("nothing to tidy")]),
]


def _sent_back(fake_llm) -> list[str]:
    last = fake_llm.requests[-1]["messages"]
    return [m["content"] for m in last if m["role"] in ("user", "tool")]


def test_weak_model_loses_nothing_and_keeps_provenance(repo_ws, fake_llm):
    (repo_ws / "memcli.toml").write_text((repo_ws / "memcli.toml").read_text()
                                         .replace("max_iterations = 12", "max_iterations = 20"))
    git(repo_ws, "commit", "-qam", "more turns")
    before = head(repo_ws)
    fake_llm.push(*SCRIPT)
    assert run(Workspace.open(repo_ws), Options()) == 0
    assert fake_llm.calls == len(SCRIPT)

    back = _sent_back(fake_llm)
    assert any("You replied with text only" in m and "i1, i2" in m for m in back)  # narration nudged
    assert any("written as text (memory_write); it was NOT run" in m for m in back)
    unfinished = [json.loads(m) for m in back if '"unfinished"' in m]
    assert unfinished and "2 staging item(s) have no disposition" in unfinished[0]["message"]
    assert any("You replied with text only" in m and "disposition" in m and "i2." in m for m in back)

    # provenance: the merged record carries every Source of what it absorbed, plus the staging one
    text = (repo_ws / MERGED).read_text()
    for sid, a, b in (THREAD_SRC, SYNC_SRC, STAGING_SRC):
        assert f"session_id: {sid}\n    range: [{a}, {b}]" in text
    for old in (THREAD, SYNC):
        assert "replaced_by: reminder-job-runner" in (repo_ws / old).read_text()
    assert [f for f in lint(Workspace.open(repo_ws)) if f.is_error] == []

    log = git(repo_ws, "log", "-1", "--format=%B")
    assert git(repo_ws, "rev-list", "--count", f"{before}..HEAD").strip() == "1"
    assert "Dropped staging items (1):" in log
    assert "- request 'Japanese' (s1): a one-off wish for one commit, not a standing request" in log
    assert not (repo_ws / "memory/_staging/s1.json").exists()


def test_run_out_of_turns_keeps_staging_and_changes_nothing(repo_ws, fake_llm, capsys):
    before = (snapshot(repo_ws), head(repo_ws))
    fake_llm.push(Reply(tool_calls=[dispose_call(["i1"], reason="stale")]))
    fake_llm.responder = lambda body: Reply(content="I think everything is done now.")
    assert run(Workspace.open(repo_ws), Options()) == 1
    err = capsys.readouterr().err
    # the disposition, then three turns of text: stopped there, not at the 12th call
    assert ("the model answered with text only 3 times in a row, calling no tool (the run stopped after 4 "
            "model calls") in err and fake_llm.calls == 4
    assert "staging is kept" in err
    assert snapshot(repo_ws) == before[0] and head(repo_ws) == before[1]


def test_integrated_record_gone_at_the_end_goes_back_for_repair(repo_ws, fake_llm, capsys):
    request = "memory/requests/japanese-commits.md"
    content = ("---\ncreated_at: 2026-05-20T10:00:00+00:00\nupdated_at: 2026-05-20T10:00:00+00:00\n"
               "sources:\n  - session_id: sess-1\n    range: [4, 9]\n---\n"
               "コミットメッセージは日本語で書いてよい\n")
    fake_llm.push(
        Reply(tool_calls=[tool_call("memory_write", {"path": request, "mode": "create", "content": content,
                                                     "reason": "standing request"})]),
        Reply(tool_calls=[dispose_call(["i1"], reason="already decided elsewhere"),
                          dispose_call(["i2"], "integrated", [request], "the request"), finish_call()]),
        # GC deletes the record i2 went into: the end check sends the stale disposition back
        Reply(tool_calls=[tool_call("memory_delete", {"path": request, "reason": "noise",
                                                      "category": "noisy"}), finish_call()]),
        Reply(tool_calls=[dispose_call(["i2"], reason="judged noise in GC"), finish_call()]),
    )
    assert run(Workspace.open(repo_ws), Options()) == 0
    repair = fake_llm.requests[3]["messages"][-1]["content"]
    assert "disposition-stale" in repair and "i2 (request 'Japanese' from s1)" in repair
    out = capsys.readouterr().out  # nothing changed in the end: no commit, the report says what was dropped
    assert "no changes to make" in out
    assert "dropped staging item: request 'Japanese': judged noise in GC" in out


def test_a_printed_call_of_any_offered_tool_is_named_back() -> None:
    offered = ["memory_read", "project_docs", "dispose"]
    printed = nudge('project_docs(path="AGENTS.md")', "integration", [], offered)
    assert "written as text (project_docs); it was NOT run" in printed
    assert "written as text" not in nudge("Reading the project docs next.", "integration", [], offered)
    # a call printed in a tool-call format is caught even when its name is not a tool
    assert "written as text" in nudge('{"name": "read_file", "arguments": {}}', "gc", [], offered)


def test_items_integrated_only_into_records_of_this_workspace(repo_ws, fake_llm):
    """`dispose` into a file that is not a record is a tool error the model can act on; the item is
    consumed only once it names a real record (here by slug)."""
    bad = ["/etc/hostname", "memcli.toml", "../memcli.toml", "memory/_staging/s1.json", "knowledge/"]
    fake_llm.push(
        Reply(tool_calls=[dispose_call(["i1"], "integrated", [path], "the worker-process decision")
                          for path in bad] + [finish_call()]),
        Reply(tool_calls=[dispose_call(["i1"], "integrated", ["background-jobs-in-thread"], "already held"),
                          dispose_call(["i2"], reason="a one-off wish"), finish_call()]),
        Reply(tool_calls=[finish_call()]),
    )
    assert run(Workspace.open(repo_ws), Options()) == 0
    second = fake_llm.requests[1]["messages"]
    results = [json.loads(m["content"]) for m in second if m["role"] == "tool"]
    assert [r["error"] for r in results[:5]] == ["path"] * 5
    for result in results[:5]:
        assert "\n" not in result["message"] and "records are named by slug" in result["message"]
    assert results[5]["error"] == "unfinished"
    runs = json.loads((Workspace.open(repo_ws).state_dir / "runs.json").read_text())["consolidate"]
    assert runs[-1]["result"] == "no-changes"
    assert not (repo_ws / "memory/_staging/s1.json").exists()

"""A model run that gets nowhere stops after `consolidate.no_progress_turns` calls, not after every
call it is allowed, and says why in one line; staging and memory stay byte for byte as they were.
Timeouts (a slow server, a hung one) stop after one retry and name the URL and the setting."""

from __future__ import annotations

import json

import pytest
from consolidate.helpers import configure, dispose_call, finish_call, head, snapshot
from extract.helpers import conversation, make_ws, write_jsonl
from support.fake_llm import FAKE_MODEL, Reply, tool_call
from support.git import git

from memcli import history
from memcli.consolidate.run import Options, run
from memcli.extract.run import run as extract
from memcli.workspace import Workspace

MAX_CALLS = 12  # the fixture's consolidate.max_iterations: every stop below comes well before it
KEPT = ("(the run stopped after 3 model calls, 3 in a row without progress: consolidate.no_progress_turns); "
        "staging is kept")
MISSING = "memory/decisions/no-such-decision.md"


def _stops(repo_ws, fake_llm, capsys) -> str:
    """Run, check it failed having changed nothing, and return the recorded error."""
    before = (snapshot(repo_ws), head(repo_ws))
    assert run(Workspace.open(repo_ws), Options()) == 1
    err = capsys.readouterr().err
    assert (snapshot(repo_ws), head(repo_ws)) == before
    error = history.last(Workspace.open(repo_ws), "consolidate")["error"]
    assert f"consolidate failed: {error}. Nothing was changed" in err
    assert "\n" not in error
    return error


def _missing_message(repo_ws) -> str:
    """What memory_read answers for a path that is no record (the tools' own wording)."""
    from memcli.tools import ToolSession

    tools = ToolSession(Workspace.open(repo_ws), allowed_sources=None, knowledge_sources=None)
    return tools.call("memory_read", {"path": MISSING}).message


STOPS = {
    "chat only": (lambda body: Reply(content="I will look at the decisions first, then write the record."),
                  f"the model never called a tool: does {FAKE_MODEL} support tool calling? {KEPT}"),
    "refused finish": (lambda body: Reply(tool_calls=[finish_call("all done")]),
                       f"finish_phase refused 3 times: i1, i2 have no disposition {KEPT}"),
    "printed call": (lambda body: Reply(content='{"name": "dispose", "arguments": {"items": ["i1"]}}'),
                     f"the model never called a tool, it wrote them as text (dispose): does {FAKE_MODEL} "
                     f"support tool calling? {KEPT}"),
}


@pytest.mark.parametrize("case", list(STOPS))
def test_a_model_getting_nowhere_stops_at_the_no_progress_limit(repo_ws, fake_llm, capsys, case):
    fake_llm.responder, expected = STOPS[case]
    assert _stops(repo_ws, fake_llm, capsys) == expected
    assert fake_llm.calls == 3 < MAX_CALLS


def test_the_same_invalid_call_stops_and_quotes_the_tool(repo_ws, fake_llm, capsys):
    read = Reply(tool_calls=[tool_call("memory_read", {"path": MISSING})])
    fake_llm.responder = lambda body: read
    message = _missing_message(repo_ws)
    assert _stops(repo_ws, fake_llm, capsys) == (
        f"the same invalid call 3 times: memory_read: {message} {KEPT}")
    assert message.startswith(f"{MISSING} does not exist")
    assert fake_llm.calls == 3


def test_mixed_turns_that_get_nowhere_are_listed(repo_ws, fake_llm, capsys):
    fake_llm.push(Reply(content="Let me think."), Reply(tool_calls=[finish_call()]),
                  Reply(tool_calls=[tool_call("memory_read", {"path": MISSING})]))
    assert _stops(repo_ws, fake_llm, capsys) == (
        f"3 model calls in a row got nowhere: text only; finish_phase refused; memory_read failed {KEPT}")


def test_progress_resets_the_count(repo_ws, fake_llm, capsys):
    """Two idle turns, a disposition, a text turn and a refused finish, the rest: never three in a row."""
    idle = Reply(content="Thinking about it.")
    fake_llm.push(idle, idle, Reply(tool_calls=[dispose_call(["i1"])]), idle,
                  Reply(tool_calls=[finish_call()]),
                  Reply(tool_calls=[dispose_call(["i2"]), finish_call()]), Reply(tool_calls=[finish_call()]))
    assert run(Workspace.open(repo_ws), Options()) == 0, capsys.readouterr().err
    assert fake_llm.calls == 7


def test_a_repeated_read_with_the_same_answer_is_no_progress(repo_ws, fake_llm, capsys):
    read = Reply(tool_calls=[tool_call("memory_read", {"path": "memory/summary.md"})])
    fake_llm.responder = lambda body: read
    assert _stops(repo_ws, fake_llm, capsys) == (
        "the same call 3 times with the same result: memory_read memory/summary.md "
        "(the run stopped after 4 model calls, 3 in a row without progress: consolidate.no_progress_turns); "
        "staging is kept")
    assert fake_llm.calls == 4  # the first read learned something; the three after it did not


def test_no_progress_turns_0_runs_to_the_call_limit(repo_ws, fake_llm, capsys):
    """main's behaviour before the stop: every allowed call is spent."""
    configure(repo_ws, no_progress_turns=0)
    git(repo_ws, "commit", "-qam", "no no-progress stop")
    fake_llm.responder = STOPS["chat only"][0]
    error = _stops(repo_ws, fake_llm, capsys)
    assert error.startswith(f"the model did not finish within {MAX_CALLS} model calls")
    assert fake_llm.calls == MAX_CALLS


def test_a_slow_server_stops_after_one_retry_naming_url_and_setting(repo_ws, fake_llm, capsys):
    configure(repo_ws, retries=4, timeout=0.5)  # four retries allowed: a timeout takes one
    git(repo_ws, "commit", "-qam", "slow")
    fake_llm.responder = lambda body: Reply(delay=1.5, tool_calls=[finish_call()])  # answers, too late
    assert _stops(repo_ws, fake_llm, capsys) == (
        f"model {FAKE_MODEL} at {fake_llm.url} did not answer within 0.5s, 2 times (a slow or overloaded "
        "server, or a prompt too long for it; memory.timeout_s sets the wait)")
    assert fake_llm.calls == 2


def test_an_extract_timeout_names_extract_timeout_s(fake_llm, tmp_path, capsys):
    ws = make_ws(tmp_path / "w", memory={"retries": 4}, extract={"timeout_s": 0.3})
    path = write_jsonl(tmp_path / "s.jsonl", conversation(2))
    fake_llm.responder = lambda body: Reply(delay=30)
    assert extract(ws, paths=[path]) == 1
    assert capsys.readouterr().err.strip() == (
        f"Error: model {FAKE_MODEL} at {fake_llm.url} did not answer within 0.3s, 2 times (a slow or "
        "overloaded server, or a prompt too long for it; extract.timeout_s sets the wait)")
    assert fake_llm.calls == 2
    assert not ws.staging_dir.exists() or not list(ws.staging_dir.iterdir())


def test_json_progress_events_say_phase_call_tool_items_and_tokens(repo_ws, fake_llm, capsys):
    fake_llm.push(Reply(tool_calls=[dispose_call(["i1", "i2"])]), Reply(tool_calls=[finish_call()]),
                  Reply(tool_calls=[finish_call()]))
    assert run(Workspace.open(repo_ws), Options(progress="json")) == 0
    captured = capsys.readouterr()
    events = [json.loads(line) for line in captured.err.splitlines()]
    assert {e["event"] for e in events} == {"progress", "end"} and events[-1]["event"] == "end"
    after = [e for e in events if e["tool"] == "dispose"][0]
    assert after["phase"] == "integration" and (after["call"], after["limit"]) == (1, MAX_CALLS)
    assert (after["done"], after["left"], after["total"]) == (2, 0, 2) and after["unit"] == "items"
    assert after["tokens"] == after["prompt_tokens"] + after["completion_tokens"] > 0
    assert after["command"] == "consolidate"
    last = events[-1]
    assert last["phase"] == "gc" and last["call"] == 3 and last["tool"] == "finish_phase"
    assert last["prompt_tokens"] + last["completion_tokens"] == sum(
        json.loads(r)["prompt_tokens"] + json.loads(r)["completion_tokens"]
        for r in (Workspace.open(repo_ws).state_dir / "llm-calls.jsonl").read_text().splitlines())
    assert captured.out.startswith("consolidate: no changes to make")  # stdout is the report, as before


def test_reading_again_in_the_next_phase_is_progress(repo_ws, fake_llm, capsys):
    """The GC phase may read what integration read: the model's context has moved on."""
    read = Reply(tool_calls=[tool_call("memory_read", {"path": "memory/summary.md"})])
    fake_llm.push(read, read, Reply(tool_calls=[dispose_call(["i1", "i2"]), finish_call()]),
                  read, read, read, Reply(tool_calls=[finish_call()]))  # GC: one new read, two repeats
    assert run(Workspace.open(repo_ws), Options()) == 0, capsys.readouterr().err
    assert fake_llm.calls == 7

"""One rule for the context window, seen in the HTTP requests the scripted model received: every call
has prompt + max_tokens within the window. A weak model's own narration, its empty replies and
memcli's nudges give way to stubs like old tool results do; `max_tokens` shrinks to what is left
down to a floor; only then the run fails, saying what filled the window, and keeps its staging."""

from __future__ import annotations

from consolidate.helpers import (
    configure,
    dispose_call,
    finish_call,
    git,
    head,
    init_repo,
    snapshot,
    write_staging,
)
from support.fake_llm import Reply, tool_call

from memcli.consolidate.run import Options, run
from memcli.llm import estimate_prompt
from memcli.workspace import Workspace

WINDOW = 8192
ITEMS = {"decisions": [{"title": "Job runner", "decision": "Move reminder jobs to a worker process",
                        "rationale": "jobs must survive restarts", "status": "resolved"}]}
# What a small model says instead of calling a tool: 2 400 characters of plans (~800 tokens each).
NARRATION = ("I will first look at the existing decisions about the job runner, then compare them with "
             "the staging item, and after that I will decide whether to integrate or drop it. " * 15)[:2400]


def _workspace(example_ws, max_iterations: int) -> Workspace:
    configure(example_ws, max_iterations=max_iterations, no_progress_turns=0)  # the window over many turns
    toml = example_ws / "memcli.toml"
    toml.write_text(toml.read_text().replace("context_tokens = 128000", f"context_tokens = {WINDOW}"))
    init_repo(example_ws)
    write_staging(example_ws, "s1", "sess-1", (4, 9), ITEMS)
    return Workspace.open(example_ws)


def _totals(fake_llm) -> list[int]:
    """prompt (the gateway's estimate) + max_tokens of every call the server received."""
    return [estimate_prompt(r["messages"], {"tools": r["tools"]}) + r["max_tokens"]
            for r in fake_llm.requests]


def _finish_after(replies: list[Reply]):
    """A model that sends `replies` first, then disposes of i1 and finishes both phases."""
    queue = list(replies)

    def answer(body: dict) -> Reply:
        if queue:
            return queue.pop(0)
        if any(m["role"] == "user" and "Phase 2" in (m["content"] or "") for m in body["messages"]):
            return Reply(tool_calls=[finish_call("nothing to tidy")])
        return Reply(tool_calls=[dispose_call(["i1"], reason="already decided"), finish_call()])
    return answer


def test_narrating_turns_give_way_to_stubs_and_the_run_finishes(example_ws, fake_llm, capsys):
    assert len(NARRATION) >= 2400
    ws = _workspace(example_ws, max_iterations=10)
    fake_llm.responder = _finish_after([Reply(content=NARRATION) for _ in range(3)])
    assert run(ws, Options()) == 0, capsys.readouterr().err
    assert fake_llm.calls == 5  # three narrating turns, the disposition, the GC phase
    assert all(total <= WINDOW for total in _totals(fake_llm))
    fourth = fake_llm.requests[3]["messages"]
    assert fourth[-2]["content"] == NARRATION  # the latest turn stays whole
    assert fourth[2]["content"] == "[trimmed to fit the context window: 2400 characters of your text]"
    assert fourth[1]["content"] == fake_llm.requests[0]["messages"][1]["content"]  # instructions whole
    assert not (example_ws / "memory/_staging/s1.json").exists()


def test_sixty_empty_replies_fit_and_the_run_finishes(example_ws, fake_llm, capsys):
    ws = _workspace(example_ws, max_iterations=60)
    fake_llm.responder = _finish_after([Reply(content="") for _ in range(58)])
    assert run(ws, Options()) == 0, capsys.readouterr().err
    assert fake_llm.calls == 60
    totals = _totals(fake_llm)
    assert all(total <= WINDOW for total in totals)
    # old nudges fold into one stub: trimming alone keeps the full room for every answer
    assert {r["max_tokens"] for r in fake_llm.requests} == {WINDOW // 8}
    last = fake_llm.requests[-1]["messages"]
    assert len(last) < 20 and sum("[trimmed" in (m.get("content") or "") for m in last) >= 2


def test_a_model_that_only_narrates_runs_out_of_turns_not_of_window(example_ws, fake_llm, capsys):
    ws = _workspace(example_ws, max_iterations=10)
    before = (snapshot(example_ws), head(example_ws))
    fake_llm.responder = lambda body: Reply(content=NARRATION)
    assert run(ws, Options()) == 1
    err = capsys.readouterr().err
    assert fake_llm.calls == 10 and all(total <= WINDOW for total in _totals(fake_llm))
    assert "did not finish within 10 model calls" in err and "staging is kept" in err
    assert (snapshot(example_ws), head(example_ws)) == before


def test_max_tokens_shrinks_to_what_is_left(example_ws, fake_llm, capsys):
    """A latest turn too long to trim leaves less than the usual answer: max_tokens goes down."""
    ws = _workspace(example_ws, max_iterations=10)
    fake_llm.responder = _finish_after([Reply(content="x" * 7500)])  # ~2 500 tokens, unanswered yet
    assert run(ws, Options()) == 0, capsys.readouterr().err
    sent = [r["max_tokens"] for r in fake_llm.requests]
    assert sent[0] == WINDOW // 8 and min(sent) < WINDOW // 8
    assert all(total <= WINDOW for total in _totals(fake_llm))


def test_narration_that_cannot_fit_fails_and_says_so(example_ws, fake_llm, capsys):
    ws = _workspace(example_ws, max_iterations=10)
    before = (snapshot(example_ws), head(example_ws))
    fake_llm.responder = lambda body: Reply(content="y" * 15000)  # one reply larger than the window
    assert run(ws, Options()) == 1
    err = capsys.readouterr().err
    assert fake_llm.calls == 1  # the second call is not sent
    assert "the model's narration" in err and "staging is kept" in err
    assert "memory.context_tokens" not in err  # the window is not the problem: the model is
    assert (snapshot(example_ws), head(example_ws)) == before


def test_one_tool_result_too_large_fails_and_names_it(example_ws, fake_llm, capsys):
    ws = _workspace(example_ws, max_iterations=10)
    big = "memory/decisions/api-versioning.md"
    text = (example_ws / big).read_text()
    (example_ws / big).write_text(text + ("\nThe versioning history in long form. " * 700))
    git(example_ws, "commit", "-qam", "a long record")
    fake_llm.responder = _finish_after([Reply(tool_calls=[tool_call("memory_read", {"path": big})])])
    assert run(ws, Options()) == 1
    err = capsys.readouterr().err
    assert "one item too large" in err and "memory_read" in err and big in err
    assert "staging is kept" in err


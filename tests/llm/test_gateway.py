"""The gateway over real HTTP: litellm talks to the local fake server (tests/support/fake_llm.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.fake_llm import FAKE_MODEL, FakeLLM, Reply, tool_call

from memcli.errors import ConfigError
from memcli.llm import Gateway, InvalidOutput, LLMError, extract_json
from memcli.staging import ExtractedItems
from memcli.workspace import Workspace

ASK = [{"role": "system", "content": "extract"}, {"role": "user", "content": "transcript"}]
GOOD = {"decisions": [{"title": "Use SQLite", "decision": "SQLite for the index", "rationale": "one file"}],
        "discussions": [], "attempts": [], "requests": []}


def gw(fake: FakeLLM, tmp_path: Path | None = None, **kw) -> Gateway:
    params = {"backoff_s": 0.001, "backoff_max_s": 0.01, "timeout_s": 2.0, "retries": 2}
    params.update(kw)
    log = tmp_path / "calls.jsonl" if tmp_path else None
    return Gateway(FAKE_MODEL, run_log=log, **params)


def test_structured_sends_json_schema_and_validates(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.push_json(GOOD)
    obj, usage = gw(fake_llm, tmp_path).structured(ASK, ExtractedItems)
    assert obj.decisions[0].title == "Use SQLite"
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    sent = fake_llm.requests[0]
    assert sent["model"] == "fake-model"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["additionalProperties"] is False
    assert fake_llm.paths == ["/v1/chat/completions"]
    rows = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert rows[-1]["ok"] and rows[-1]["prompt_tokens"] == usage.prompt_tokens


@pytest.mark.parametrize("answer", [
    "Here you go:\n```json\n" + json.dumps(GOOD) + "\n```\nHope this helps!",
    "Sure. " + json.dumps(GOOD) + " That's all {not json}",
    "{broken " + json.dumps(GOOD),
])
def test_prose_and_fences_around_json_are_tolerated(fake_llm: FakeLLM, answer: str) -> None:
    fake_llm.push_text(answer)
    obj, _ = gw(fake_llm).structured(ASK, ExtractedItems)
    assert obj.decisions[0].decision == "SQLite for the index"


def test_extract_json_without_object_raises() -> None:
    with pytest.raises(ValueError):
        extract_json("no json here [1, 2]")


def test_degrades_json_schema_then_json_object_then_prompt(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.refuse_json_schema = True
    fake_llm.refuse_json_object = True
    g = gw(fake_llm, tmp_path)
    fake_llm.push_json(GOOD)
    obj, _ = g.structured(ASK, ExtractedItems)
    assert obj.decisions
    types = [r.get("response_format", {}).get("type") for r in fake_llm.requests]
    assert types == ["json_schema", "json_object", None]
    assert "JSON Schema" in fake_llm.requests[-1]["messages"][-1]["content"]
    # the downgrade is remembered: the next call goes straight to prompt mode
    fake_llm.push_json(GOOD)
    g.structured(ASK, ExtractedItems)
    assert len(fake_llm.requests) == 4 and "response_format" not in fake_llm.requests[3]
    # The run log names the mode each call was sent in; a chat turn with tools is "tools".
    fake_llm.push_text("done")
    g.chat(ASK, [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])
    rows = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(r["mode"], r["ok"]) for r in rows] == [
        ("json_schema", False), ("json_object", False), ("prompt", True), ("prompt", True), ("tools", True)]


def test_llama_cpp_style_server_gets_json_object_with_schema(fake_llm: FakeLLM) -> None:
    fake_llm.refuse_json_schema = True
    fake_llm.push_json(GOOD)
    gw(fake_llm).structured(ASK, ExtractedItems)
    fmt = fake_llm.requests[-1]["response_format"]
    assert fmt["type"] == "json_object" and fmt["schema"]["title"] == "ExtractedItems"


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_errors_are_retried(fake_llm: FakeLLM, status: int) -> None:
    fake_llm.push(Reply(status=status), Reply(status=status))
    fake_llm.push_json(GOOD)
    obj, usage = gw(fake_llm).structured(ASK, ExtractedItems)
    assert obj.decisions and fake_llm.calls == 3 and usage.calls == 1


def test_429_storm_is_bounded_and_one_line(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.responder = lambda body: Reply(status=429, error_message="Rate limit reached")
    with pytest.raises(LLMError) as info:
        gw(fake_llm, tmp_path, retries=3).structured(ASK, ExtractedItems)
    assert fake_llm.calls == 4
    assert "\n" not in str(info.value) and "failed 4 times" in str(info.value)
    rows = (tmp_path / "calls.jsonl").read_text().splitlines()
    assert len(rows) == 4 and all(not json.loads(r)["ok"] for r in rows)


def test_hanging_server_times_out(fake_llm: FakeLLM) -> None:
    """A call that timed out has waited timeout_s already: one retry, whatever `retries` says."""
    fake_llm.responder = lambda body: Reply(delay=30, content="{}")
    with pytest.raises(LLMError) as info:
        gw(fake_llm, timeout_s=0.3, retries=3).structured(ASK, ExtractedItems)
    assert str(info.value).startswith(f"model {FAKE_MODEL} at {fake_llm.url} did not answer within 0.3s, "
                                      "2 times")
    assert "extract.timeout_s" in str(info.value)  # gw() makes an extract gateway
    assert fake_llm.calls == 2


def test_malformed_http_body_is_retried(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(raw_body="{not json at all"))
    fake_llm.push_json(GOOD)
    obj, _ = gw(fake_llm).structured(ASK, ExtractedItems)
    assert obj.decisions and fake_llm.calls == 2


@pytest.mark.parametrize("bad, why", [
    ({**GOOD, "notes": "extra"}, "notes"),
    ({**GOOD, "source": {"session_id": "x", "range": [0, 1]}}, "source"),
    ({"decisions": "none", "discussions": [], "attempts": [], "requests": []}, "decisions"),
    ({"decisions": [{"title": "t", "decision": "d"}] * 10_000}, "at most 20"),
    ({"decisions": [{"title": 5, "decision": ["x"]}]}, "decisions.0"),
])
def test_invalid_answers_are_reasked_then_reported(fake_llm: FakeLLM, bad: dict, why: str) -> None:
    fake_llm.responder = lambda body: Reply(content=json.dumps(bad))
    with pytest.raises(InvalidOutput) as info:
        gw(fake_llm, repair_attempts=2).structured(ASK, ExtractedItems)
    assert fake_llm.calls == 3 and info.value.usage.calls == 3
    assert why in str(info.value)
    # the re-ask tells the model what was wrong
    assert why in fake_llm.requests[1]["messages"][-1]["content"]


def test_reask_can_succeed(fake_llm: FakeLLM) -> None:
    fake_llm.push_json({**GOOD, "extra": 1})
    fake_llm.push_json(GOOD)
    obj, usage = gw(fake_llm).structured(ASK, ExtractedItems)
    assert obj.decisions and usage.calls == 2


def test_chat_returns_tool_calls(fake_llm: FakeLLM) -> None:
    tools = [{"type": "function", "function": {"name": "memory_read", "parameters": {
        "type": "object", "properties": {"slug": {"type": "string"}}}}}]
    fake_llm.push(Reply(tool_calls=[tool_call("memory_read", {"slug": "use-sqlite"}, "c1"),
                                    tool_call("memory_read", "{broken", "c2")]))
    turn = gw(fake_llm).chat([{"role": "user", "content": "go"}], tools)
    assert [c.name for c in turn.tool_calls] == ["memory_read", "memory_read"]
    assert turn.tool_calls[0].arguments == {"slug": "use-sqlite"}
    assert turn.tool_calls[1].arguments == "{broken"
    assert fake_llm.requests[0]["tools"][0]["function"]["name"] == "memory_read"
    assert turn.message["tool_calls"][0]["id"] == "c1"
    # the conversation continues with the tool result
    fake_llm.push_text("done")
    convo = [{"role": "user", "content": "go"}, turn.message,
             {"role": "tool", "tool_call_id": "c1", "content": "body"}]
    assert gw(fake_llm).chat(convo, tools).content == "done"
    assert fake_llm.requests[1]["messages"][-1]["tool_call_id"] == "c1"


def test_unreachable_server_is_one_clear_line(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    g = Gateway(FAKE_MODEL, api_base="http://127.0.0.1:9/v1", backoff_s=0.001, retries=1, timeout_s=2)
    with pytest.raises(LLMError, match=r"cannot reach http://127\.0\.0\.1:9/v1"):
        g.structured(ASK, ExtractedItems)


def _ws(tmp_path: Path, toml: str = "") -> Workspace:
    (tmp_path / "memory").mkdir(exist_ok=True)
    (tmp_path / "memcli.toml").write_text(toml, encoding="utf-8")
    return Workspace.open(tmp_path)


def test_from_config_env_only(fake_llm: FakeLLM, tmp_path: Path) -> None:
    g = Gateway.from_config(_ws(tmp_path), "extract", model=FAKE_MODEL)
    fake_llm.push_json(GOOD)
    g.structured(ASK, ExtractedItems)
    assert fake_llm.calls == 1  # OPENAI_API_BASE from the environment reached the fake server
    assert (Path(str(_ws(tmp_path).state_dir)) / "llm-calls.jsonl").is_file()


def test_from_config_reads_model_and_api_base(fake_llm: FakeLLM, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_BASE")
    monkeypatch.delenv("OPENAI_BASE_URL")
    ws = _ws(tmp_path, f'[memory]\nconsolidation_model = "{FAKE_MODEL}"\napi_base = "{fake_llm.url}"\n'
             "backoff_s = 0.001\n")
    g = Gateway.from_config(ws, "consolidation")
    assert g.model == FAKE_MODEL and g.backoff_s == 0.001
    fake_llm.push_text("hello")
    assert g.chat([{"role": "user", "content": "hi"}]).content == "hello"


def test_config_errors_name_the_key(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MEMCLI_EXTRACT_MODEL", raising=False)
    ws = _ws(tmp_path)
    with pytest.raises(ConfigError, match="memory.extract_model"):
        Gateway.from_config(ws, "extract")
    with pytest.raises(ConfigError, match="unknown model 'nonsense-model'"):
        Gateway.from_config(ws, "extract", model="nonsense-model")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        Gateway.from_config(ws, "extract", model="openai/gpt-4o-mini")


def test_importing_memcli_does_not_import_litellm() -> None:
    code = ("import sys, memcli.cli, memcli.llm, memcli.secrets; "
            "sys.exit(1 if 'litellm' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


@pytest.mark.parametrize("status, message", [
    (400, "refused the request"), (401, "rejected the key"), (403, "rejected the key"),
    (404, "not found on the server"), (422, "refused the request"), (418, "failed"),
])
def test_provider_errors_are_one_line_llm_errors(fake_llm: FakeLLM, status: int, message: str) -> None:
    fake_llm.responder = lambda body: Reply(status=status, error_message=f"scripted {status}")
    with pytest.raises(LLMError) as info:
        gw(fake_llm).chat([{"role": "user", "content": "hi"}])
    assert message in str(info.value) and "\n" not in str(info.value)
    assert fake_llm.calls == 1  # not retried


def test_structured_400_in_prompt_mode_is_refused_not_retried(fake_llm: FakeLLM) -> None:
    fake_llm.responder = lambda body: Reply(status=400, error_message="bad request")
    with pytest.raises(LLMError, match="refused the request"):
        gw(fake_llm).structured(ASK, ExtractedItems)
    assert fake_llm.calls == 3  # json_schema → json_object → prompt, then the error
    with pytest.raises(LLMError, match="refused the request"):
        gw(fake_llm, structured_mode="json_schema").structured(ASK, ExtractedItems)
    assert fake_llm.calls == 4  # a forced mode never degrades

"""The context window: config or litellm's knowledge, num_ctx for Ollama, over-window prompts refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fake_llm import FAKE_MODEL, FakeLLM, Reply

from memcli.config import ConfigError
from memcli.llm import (
    DEFAULT_CONTEXT,
    ContextExceeded,
    Gateway,
    LLMError,
    RequestRefused,
    answer_floor,
    assumed_window,
    estimate_prompt,
    known_context,
    table_context,
)
from memcli.staging import ExtractedItems
from memcli.workspace import Workspace

GOOD = {"decisions": [], "discussions": [], "attempts": [], "requests": []}


def _ws(tmp_path: Path, toml: str = "") -> Workspace:
    (tmp_path / "memory").mkdir(exist_ok=True)
    (tmp_path / "memcli.toml").write_text(toml, encoding="utf-8")
    return Workspace.open(tmp_path)


def test_window_from_config_else_litellm_else_default(fake_llm: FakeLLM, tmp_path: Path) -> None:
    assert Gateway.from_config(_ws(tmp_path), "extract", model=FAKE_MODEL).context_tokens == DEFAULT_CONTEXT
    known = Gateway.from_config(_ws(tmp_path), "extract", model="openai/gpt-4o-mini")
    assert known.context_tokens == 128_000  # litellm's local model map (no network)
    ws = _ws(tmp_path, "[memory]\ncontext_tokens = 32768\n")
    assert Gateway.from_config(ws, "extract", model="openai/gpt-4o-mini").context_tokens == 32768


# strings people configure: a provider's own name, with and without its prefix, and ones litellm
# does not know (a local server's name, Ollama's, whose window memcli sets itself)
NAMED = ["openai/gpt-4o-mini", "gpt-4o-mini", "openai/gpt-4.1", "anthropic/claude-3-5-haiku-latest",
         "claude-3-5-haiku-20241022", "gemini/gemini-1.5-flash", "mistral/mistral-large-latest",
         "groq/llama-3.1-8b-instant", "deepseek/deepseek-chat", FAKE_MODEL, "openai/smollm2-135m",
         "ollama/qwen2.5", "ollama_chat/llama3.2"]


@pytest.mark.parametrize("model", NAMED)
def test_the_table_read_as_a_file_gives_litellms_window(model: str) -> None:
    """What a dry run cuts chunks for (no litellm import) is what the real run asks litellm."""
    assert table_context(model) == known_context(model)


def test_an_assumed_window_is_said_a_known_or_configured_one_is_not(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    assert assumed_window(ws, FAKE_MODEL) == (
        f"model {FAKE_MODEL} is not in litellm's model table: assuming a context window of {DEFAULT_CONTEXT} "
        "tokens; set memory.context_tokens to its real size")
    assert assumed_window(ws, FAKE_MODEL, light=True) == assumed_window(ws, FAKE_MODEL)
    assert assumed_window(ws, "ollama/qwen2.5").startswith("model ollama/qwen2.5: asking Ollama for a ")
    assert assumed_window(ws, "openai/gpt-4o-mini") is None
    assert assumed_window(_ws(tmp_path, "[memory]\ncontext_tokens = 4096\n"), FAKE_MODEL) is None


def test_too_small_window_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="memory.context_tokens"):
        _ws(tmp_path, "[memory]\ncontext_tokens = 10\n")


@pytest.mark.parametrize(("model", "path"), [("ollama_chat/qwen2.5", "/api/chat"),
                                             ("ollama/qwen2.5", "/api/generate")])
def test_ollama_gets_num_ctx_over_http(fake_llm: FakeLLM, tmp_path: Path, model: str, path: str) -> None:
    ws = _ws(tmp_path, f'[memory]\napi_base = "{fake_llm.url_root}"\ncontext_tokens = 16384\nretries = 0\n')
    g = Gateway.from_config(ws, "extract", model=model)
    fake_llm.push_json(GOOD)
    obj, _ = g.structured([{"role": "user", "content": "transcript"}], ExtractedItems)
    assert obj == ExtractedItems.model_validate(GOOD)
    assert fake_llm.paths == [path]
    assert fake_llm.requests[0]["options"]["num_ctx"] == 16384


def test_ollama_without_config_gets_the_default_window(fake_llm: FakeLLM, tmp_path: Path) -> None:
    ws = _ws(tmp_path, f'[memory]\napi_base = "{fake_llm.url_root}"\n')
    g = Gateway.from_config(ws, "consolidation", model="ollama_chat/qwen2.5")
    fake_llm.push_text("hello")
    assert g.chat([{"role": "user", "content": "hi"}]).content == "hello"
    assert fake_llm.requests[0]["options"]["num_ctx"] == DEFAULT_CONTEXT


def test_openai_style_models_get_no_num_ctx(fake_llm: FakeLLM, tmp_path: Path) -> None:
    g = Gateway.from_config(_ws(tmp_path, "[memory]\ncontext_tokens = 4096\n"), "extract", model=FAKE_MODEL)
    fake_llm.push_json(GOOD)
    g.structured([{"role": "user", "content": "hi"}], ExtractedItems)
    assert "num_ctx" not in json.dumps(fake_llm.requests[0])


@pytest.mark.parametrize("text", ["word " * 3000, "決定" * 2000])  # English and Japanese
def test_prompt_over_the_window_is_refused_unsent(fake_llm: FakeLLM, tmp_path: Path, text: str) -> None:
    log = tmp_path / "calls.jsonl"
    g = Gateway(FAKE_MODEL, run_log=log, context_tokens=4096, retries=0)
    fake_llm.responder = lambda body: Reply(content=json.dumps(GOOD))  # would answer "nothing found"
    with pytest.raises(ContextExceeded, match=r"at or over the context window .* \(4096 tokens\)") as exc:
        g.structured([{"role": "user", "content": text}], ExtractedItems)
    assert isinstance(exc.value, RequestRefused) and isinstance(exc.value, LLMError)
    assert exc.value.context_window
    assert fake_llm.calls == 0  # never sent, so never answered with empty arrays
    row = json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
    assert not row["ok"] and row["error"].startswith("context:")
    # The same prompt goes through once the window is large enough.
    g.context_tokens = 32_000
    assert g.structured([{"role": "user", "content": text}], ExtractedItems)[0] == ExtractedItems()


def test_tool_schemas_count_toward_the_window(fake_llm: FakeLLM) -> None:
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": "d" * 600,
                                               "parameters": {"type": "object", "properties": {}}}}
             for i in range(10)]
    g = Gateway(FAKE_MODEL, context_tokens=1024, retries=0)
    fake_llm.push_text("ok")
    assert g.chat([{"role": "user", "content": "hi"}]).content == "ok"  # fits without the tools
    with pytest.raises(ContextExceeded):
        g.chat([{"role": "user", "content": "hi"}], tools)
    assert fake_llm.calls == 1


def test_max_tokens_shrinks_to_what_the_prompt_leaves_down_to_a_floor(fake_llm: FakeLLM) -> None:
    """One rule: prompt + max_tokens <= window. A prompt that leaves less than asked shrinks the
    answer's room; one that leaves less than the floor (a quarter of it, at least 256) is not sent."""
    g = Gateway(FAKE_MODEL, context_tokens=4096, retries=0)
    fake_llm.responder = lambda body: Reply(content="ok")
    short = [{"role": "user", "content": "hi"}]
    g.chat(short, max_tokens=1024)
    long = [{"role": "user", "content": "word " * 2000}]  # ~3 300 tokens by the gateway's estimate
    prompt = estimate_prompt(long, {})
    g.chat(long, max_tokens=1024)
    assert [r["max_tokens"] for r in fake_llm.requests] == [1024, 4096 - prompt]
    assert all(estimate_prompt(r["messages"], {}) + r["max_tokens"] <= 4096 for r in fake_llm.requests)
    longer = [{"role": "user", "content": "word " * 2400}]
    with pytest.raises(ContextExceeded, match=r"leaves \d+ of the context window .* less than the 256"):
        g.chat(longer, max_tokens=1024)
    assert fake_llm.calls == 2
    assert (answer_floor(1024), answer_floor(4096), answer_floor(100)) == (256, 1024, 100)

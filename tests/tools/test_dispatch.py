"""schemas() and dispatch(): valid JSON Schema in litellm's tool format; bad calls become results."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from tools.helpers import record, tree, unfence

from memcli.tools import TOOL_NAMES, ToolSession, tool_schemas
from memcli.tools.schemas import MUTATING, check_arguments


@pytest.mark.parametrize("phase", ["integration", "gc"])
def test_schemas_are_openai_tools_with_valid_json_schema(
    make_session: Callable[..., ToolSession], phase: str
) -> None:
    from litellm.types.llms.openai import ChatCompletionToolParam
    from pydantic import TypeAdapter

    schemas = make_session(phase=phase).schemas()
    assert [s["function"]["name"] for s in schemas] == list(TOOL_NAMES)
    assert len(TOOL_NAMES) == 6
    with warnings.catch_warnings():  # pydantic notes litellm's ReadOnly TypedDict items; not our concern
        warnings.simplefilter("ignore", UserWarning)
        adapter = TypeAdapter(list[ChatCompletionToolParam])
    adapter.validate_python(schemas)
    for tool in schemas:
        assert set(tool) == {"type", "function"} and tool["type"] == "function"
        fn = tool["function"]
        assert set(fn) == {"name", "description", "parameters"}
        assert fn["description"].strip()
        params = fn["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
    json.dumps(schemas)  # plain JSON all the way down


def test_gc_phase_requires_category_on_mutating_tools() -> None:
    required = {t["function"]["name"]: t["function"]["parameters"]["required"] for t in tool_schemas("gc")}
    for name in ("memory_write", "memory_edit", "memory_delete"):
        assert "category" in required[name] and "reason" in required[name]
    assert "category" not in required["memory_read"]
    integration = {t["function"]["name"]: t["function"]["parameters"] for t in tool_schemas()}
    assert "category" not in integration["memory_write"]["required"]
    # outside GC a category means nothing: not offered (fewer tokens on every call) ...
    assert all("category" not in integration[name]["properties"] for name in MUTATING)
    assert tool_schemas("repair") == tool_schemas()  # repairing lint findings asks for none either
    # ... and one passed anyway is still checked, not refused as unknown
    assert check_arguments("memory_delete", {"path": "p", "reason": "r", "category": "noisy"}) == []
    assert "not one of" in check_arguments("memory_delete", {"path": "p", "reason": "r", "category": "x"})[0]


def test_schemas_are_fresh_copies(session: ToolSession) -> None:
    session.schemas()[0]["function"]["parameters"]["required"].append("bogus")
    assert "bogus" not in session.schemas()[0]["function"]["parameters"]["required"]


ARGUMENT_CASES: list[tuple[str, Any, str]] = [
    ("memory_read", "{not json", "not valid JSON"),
    ("memory_read", "[1, 2]", "must be a JSON object"),
    ("memory_read", "", "missing required argument 'path'"),
    ("memory_read", None, "missing required argument 'path'"),
    ("memory_read", {"path": 3}, "path: expected string"),
    ("memory_read", {"path": "memory/summary.md", "start_line": True}, "start_line: expected integer"),
    ("memory_read", {"path": "memory/summary.md", "start_line": 0}, "below the minimum"),
    ("memory_read", {"path": "memory/summary.md", "file": "x"}, "unknown argument 'file'"),
    (
        "memory_write",
        {"path": "memory/requests/x.md", "content": "x", "mode": "append", "reason": "r"},
        "'append' is not one of create, replace",
    ),
    (
        "memory_write",
        {"path": "memory/requests/x.md", "content": "x", "reason": "r"},
        "missing required argument 'mode'",
    ),
    ("memory_edit", {"path": "memory/summary.md", "old_string": "a", "reason": "r"}, "'new_string'"),
    (
        "memory_delete",
        {"path": "memory/summary.md", "reason": "r", "category": "stale"},
        "not one of outdated",
    ),
    ("memory_search", {"query": "x", "types": ["decision", "secret"]}, "types[1]"),
    ("knowledge_search", {"query": "x", "limit": 500}, "above the maximum"),
]


@pytest.mark.parametrize(("name", "arguments", "says"), ARGUMENT_CASES)
def test_malformed_calls_are_error_results(
    session: ToolSession, name: str, arguments: Any, says: str
) -> None:
    before = tree(session.workspace.root)
    out = json.loads(session.dispatch(name, arguments))
    assert out["ok"] is False and out["error"] == "arguments", out
    assert says in out["message"], out["message"]
    assert tree(session.workspace.root) == before


@pytest.mark.parametrize(("name", "arguments", "says"), ARGUMENT_CASES)
def test_argument_checker_agrees_with_jsonschema(
    session: ToolSession, name: str, arguments: Any, says: str
) -> None:
    if not isinstance(arguments, dict):
        return  # not JSON objects: nothing for jsonschema to judge
    params = next(t["function"]["parameters"] for t in session.schemas() if t["function"]["name"] == name)
    assert list(jsonschema.Draft202012Validator(params).iter_errors(arguments))


def test_valid_calls_pass_jsonschema_too(session: ToolSession) -> None:
    call = {"path": "memory/requests/x.md", "content": record("request"), "mode": "create", "reason": "r"}
    params = session.schemas()[1]["function"]["parameters"]
    jsonschema.validate(call, params)
    assert json.loads(session.dispatch("memory_write", call))["ok"] is True


@pytest.mark.parametrize("name", ["rm_rf", "memory_Read", "", 7])
def test_unknown_tool_is_an_error_result(session: ToolSession, name: Any) -> None:
    out = json.loads(session.dispatch(name, {"path": "memory/summary.md"}))
    assert out["error"] == "unknown-tool"
    assert "memory_read" in out["message"]


def test_dispatch_returns_json_text_for_success(session: ToolSession) -> None:
    text = session.dispatch("memory_read", '{"path": "memory/summary.md"}')
    out = json.loads(text)
    assert out["ok"] is True and out["path"] == "memory/summary.md"
    label, text = unfence(out["content"])  # record text reaches the model as fenced data
    assert label.startswith("text of memory/summary.md")
    assert text == (session.workspace.root / "memory/summary.md").read_text(encoding="utf-8")


def test_tools_through_litellm_and_the_fake_openai_server(session: ToolSession, fake_llm: Any) -> None:
    """One real round trip: litellm sends our schemas, the scripted model calls tools, we dispatch."""
    import litellm
    from support.fake_llm import FAKE_MODEL, Reply, tool_call

    content = record("request", "レビューは日本語で書く。\n")
    fake_llm.push(
        Reply(
            tool_calls=[
                tool_call(
                    "memory_write",
                    {
                        "path": "memory/requests/japanese-reviews.md",
                        "content": content,
                        "mode": "create",
                        "reason": "staging request",
                    },
                    "call_1",
                ),
                tool_call(
                    "memory_delete", {"path": "memory/decisions/api-versioning.md", "reason": "old"}, "call_2"
                ),
                tool_call("memory_read", '{"path": "../../etc/passwd"', "call_3"),
            ]
        ),
        Reply(content="done"),
    )
    messages: list[dict[str, Any]] = [{"role": "user", "content": "integrate the staging items"}]
    results = []
    for _ in range(3):
        resp = litellm.completion(model=FAKE_MODEL, messages=messages, tools=session.schemas(), num_retries=0)
        msg = resp.choices[0].message
        if not msg.tool_calls:
            break
        messages.append(msg.model_dump(exclude_none=True))
        for call in msg.tool_calls:
            text = session.dispatch(call.function.name, call.function.arguments)
            results.append(json.loads(text))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    sent_tools = fake_llm.requests[0]["tools"]
    assert [t["function"]["name"] for t in sent_tools] == list(TOOL_NAMES)
    assert sent_tools == session.schemas()
    assert [r["ok"] for r in results] == [True, False, False]
    assert results[1]["violations"][0]["code"] == "decision-delete"
    assert results[2]["error"] == "arguments"
    # the second request carried our results back to the model, Japanese intact
    tool_msgs = [m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_1", "call_2", "call_3"]
    assert "decision-delete" in tool_msgs[1]["content"]
    written = session.workspace.root / "memory/requests/japanese-reviews.md"
    assert written.read_text(encoding="utf-8") == content
